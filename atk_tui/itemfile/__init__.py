"""One item file: frontmatter kept byte-exact, sections, headings, questions."""
