"""The one definition of a user-only heading (SPEC §11), checked against markdown-it-py."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from atk_tui.itemfile import sections
from atk_tui.itemfile.headings import heading_key, scan_headings, user_only_headings, user_only_sections

MD = MarkdownIt("commonmark")
GFM = MarkdownIt("gfm-like")  # what Textual's Markdown widget renders with


def _inline_text(tok) -> str:
    parts = []
    for child in tok.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return "".join(parts)


def rendered_key(text: str) -> str:
    """SPEC §11's normalisation of text as rendered (markup already gone): NFKC, no format
    characters, surrounding punctuation/symbols/space stripped, case-folded."""
    s = "".join(ch for ch in unicodedata.normalize("NFKC", text) if unicodedata.category(ch) != "Cf")
    s = unicodedata.normalize("NFKC", s)
    start, end = 0, len(s)
    while start < end and unicodedata.category(s[start])[0] in "PSZC":
        start += 1
    while end > start and unicodedata.category(s[end - 1])[0] in "PSZC":
        end -= 1
    return " ".join(s[start:end].split()).casefold()


USER_KEYS = {"回答", "answer", "ユーザーコメント", "user comment"}


def markdown_it_user_headings(body: str, md: MarkdownIt = MD) -> list[tuple[int, int]]:
    """Line ranges of the headings markdown-it renders whose text is a user-only title."""
    toks = md.parse(body)
    out = []
    for n, tok in enumerate(toks):
        if tok.type == "heading_open" and rendered_key(_inline_text(toks[n + 1])) in USER_KEYS:
            out.append(tuple(tok.map))
    return out


@pytest.mark.parametrize(
    "body",
    [
        "## 回答\n",
        "# Answer\n",
        "### user comment ###\n",
        "回答\n---\n",
        "回答\n===\n",
        "## **回答**\n",
        "## __Answer__\n",
        "## `回答`\n",
        "> ## 回答\n",
        "- ## 回答\n",
        "1. ## ユーザーコメント\n",
        "> - > ## 回答\n",
        "- 回答\n  ---\n",
        "<h2>回答</h2>\n",
        "<H3 class='x'>User Comment</H3>\n",
        "## 回\u200b答\n",
        "## \u2060Answer\ufeff\n",
        "## ＡＮＳＷＥＲ\n",
        "## ﾕｰｻﾞｰｺﾒﾝﾄ\n",
        "## USER COMMENT\n",
        "## 回答 ##\n",
        "## 回答:\n",
        "## 【回答】\n",
        "## &#x56de;&#x7b54;\n",
        "## [回答](http://x)\n",
        "## 回\\*答*\n",
        "- a\n  ```\n## 回答\n",
        "  ```\n  x\n```\n## 回答\n",
        "<h2>\n```\n\n## 回答",
        "<!-- x -->\n```\n\n## 回答",
        "回答\n    ## \n---",
        "回答<!--1. -->\n---",
        "<!--\n```-->\n## 回答",
        "## <Ａｎｓｗｅｒ<textarea>",
        "## <Ａｎｓｗｅｒ>",
        "## &lt;Answer&gt;",
        "## 回答<!X<div>",
        "回答\n*\n---",
        '## <a title="<">回答</a>',
        "## <?x?>回答<b></b>\n",
    ],
)
def test_user_only_heading_variants_are_found(body: str) -> None:
    assert user_only_headings(body), body
    assert sections.user_only_headings(body)


@pytest.mark.parametrize(
    "body",
    [
        "```\n## 回答\n```\n",
        "~~~md\n回答\n---\n~~~\n",
        "````\n<h2>回答</h2>\n````\n",
        "text 回答\n",
        "##回答\n",
        "## 回答する\n",
        "## Answers welcome\n",
        "- 1: A) 回答\n",
    ],
)
def test_not_user_only_headings(body: str) -> None:
    assert user_only_headings(body) == [], body


def test_heading_key_normalises() -> None:
    assert heading_key(" **回\u200b答** ") == "回答"
    assert heading_key("User  Comment #") == "user comment"
    assert heading_key("ａｎｓｗｅｒ") == "answer"
    assert heading_key("背景:") == "背景"


def test_user_only_sections_extent() -> None:
    body = "# T\n\n## 回答\n\n- 1: A\n\n### more\nx\n\n## Next\ny\n"
    assert user_only_sections(body) == [("answer", "## 回答\n\n- 1: A\n\n### more\nx")]


FRAGMENTS = [
    "## ",
    "# ",
    "### ",
    "> ",
    "- ",
    "1. ",
    "  ",
    "    ",
    " ",
    "```",
    "~~~",
    "---",
    "===",
    "-",
    "回答",
    "Answer",
    "user comment",
    "ユーザーコメント",
    "**",
    "`",
    "\u200b",
    "#",
    "x",
    "\\",
    "*",
    "<h2>",
    "</h2>",
    "ｱ",
    "Ａｎｓｗｅｒ",
    "\t",
    "_",
    "<div>",
    "<!--",
    "-->",
    "<pre>",
    "</pre>",
    "=",
    "~~",
    "|",
    "| --- |",
    "[x]",
    "&#x56de;",
    "&#22238;",
]
line = st.lists(st.sampled_from(FRAGMENTS), min_size=0, max_size=5).map("".join)
doc = st.lists(line, min_size=1, max_size=8).map("\n".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc)
def test_every_markdown_it_user_heading_is_found(body: str) -> None:
    """No false negative: a heading markdown-it renders with a user-only title is found,
    on one of the lines markdown-it says it spans."""
    mine = [h for h in scan_headings(body) if h.kind]
    for start, end in markdown_it_user_headings(body) + markdown_it_user_headings(body, GFM):
        assert any(start <= h.line < end or start <= h.first < end for h in mine), (body, start, end, mine)


@settings(max_examples=200, deadline=None)
@given(doc)
def test_fenced_text_is_never_a_heading(body: str) -> None:
    """Everything inside a top-level fence is ignored (fence runs removed from the inside so
    that nothing closes it early)."""
    inner = body.replace("`", "").replace("~", "")
    assert [h for h in scan_headings("````\n" + inner + "\n````\n") if h.kind] == []


def test_property_generator_reaches_user_headings() -> None:
    """The generator above does produce markdown-it headings with user-only titles."""
    assert markdown_it_user_headings("> - ## **Answer**\n")


@pytest.mark.parametrize(
    "heading",
    ["## 回答", "## 回\u200b答", "## ＡＮＳＷＥＲ", "## &#x56de;&#x7b54;", "## 回\U000e0041答", "## **Answer**"],
)
def test_readers_use_the_same_definition(heading: str) -> None:
    """An item's `answered` flag (the listing's reader) sees every ATX H2 spelling."""
    from support.storekit import UWI_BODY

    from atk_tui.itemfile.items import parse_item

    text = f"---\nkind: uwi\ntarget_repo: r\n---\n{UWI_BODY}\n{heading}\n\n- 1: A) Strict RFC 5322\n"
    assert parse_item("q.md", "inbox", text.encode()).answered


@pytest.mark.parametrize(
    "heading", ["## ユーザーコメント", "## ユーザー\u200bコメント", "## ﾕｰｻﾞｰｺﾒﾝﾄ", "## *User comment*"]
)
def test_comment_reader_uses_the_same_definition(heading: str) -> None:
    from atk_tui.itemfile.items import parse_item

    text = f"---\nkind: awi\ntarget_repo: r\n---\n# T\n\n{heading}\n\nhi\n"
    assert parse_item("a.md", "inbox", text.encode()).has_comment
