"""Words a newcomer knows (issue 44): the glossary defines every word of the queue; each
Japanese heading is glossed in English where a doc first uses it, in `atk wi schema` and in
`atk wi add --help`; the product never speaks of "seeds"."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
GLOSSARY = ROOT / "docs" / "glossary.md"

#: each Japanese heading and the English words that gloss it (any one of them will do)
GLOSSES = {
    "反映内容": ("what to change",),
    "反映先": ("where",),
    "理由": ("why",),
    "適用範囲": ("scope",),
    "メリット": ("benefit",),
    "デメリット": ("drawback",),
    "完成条件": ("done when",),
    "背景": ("context", "background"),
    "質問": ("question",),
    "推奨": ("recommend",),
    "回答": ("answer",),
    "ユーザーコメント": ("user comment",),
}
TERMS = ("AWI", "UWI", "TBD", "feedback", "hold", "the agent environment", "the agent skills", "afkkit")
#: the docs a newcomer reads, where a heading must be glossed at its first use in prose
READ = ["README.md", "docs/user-guide.md", "docs/agent-guide.md", "docs/store-format.md", "docs/troubleshooting.md", "docs/spec.md"]


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced and indented code blocks."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced or line.startswith("    ") else line)
    return out


def test_the_glossary_defines_every_term_and_heading() -> None:
    text = GLOSSARY.read_text(encoding="utf-8")
    rows = {m.group(1).strip("*`").lower(): m.group(2) for m in re.finditer(r"^\| ([^|]+?) \| ([^|]+) \|", text, re.MULTILINE)}
    for term in TERMS:
        assert any(term.lower() in key for key in rows), f"the glossary does not define {term}"
    for heading, english in GLOSSES.items():
        assert heading in rows, f"the glossary has no row for {heading}"
        assert any(e in rows[heading].lower() for e in english), (heading, rows[heading])
    # the agent skills are named for what they are, each of them
    for skill in ("wi-standards", "confirmation-and-uwi", "user-input-protocol", "process-feedbacks"):
        assert skill in text


@pytest.mark.parametrize("doc", READ)
def test_each_japanese_heading_is_glossed_where_the_doc_first_uses_it(doc: str) -> None:
    lines = prose_lines((ROOT / doc).read_text(encoding="utf-8"))
    missing = []
    for heading, english in GLOSSES.items():
        at = next((i for i, line in enumerate(lines) if heading in line), None)
        if at is None:
            continue
        near = " ".join(lines[max(at - 1, 0) : at + 2]).lower()
        if not any(e in near for e in english) and "glossary" not in near:
            missing.append(f"{doc}:{at + 1}: {heading}")
    assert missing == []


def test_schema_and_add_help_gloss_the_headings() -> None:
    schema = subprocess.run([str(BIN / "atk"), "wi", "schema"], capture_output=True, text=True, check=True).stdout
    helptext = subprocess.run([str(BIN / "atk"), "wi", "add", "--help"], capture_output=True, text=True, check=True).stdout
    flat = " ".join(helptext.split())
    for heading, english in GLOSSES.items():
        for where, text in (("atk wi schema", schema), ("atk wi add --help", flat)):
            m = re.search(re.escape(heading) + r"[^(]{0,12}\(([^)]*)\)", text)
            assert m and any(e in m.group(1).lower() for e in english), f"{where} does not gloss {heading}"


def test_the_product_never_says_seeds() -> None:
    word = re.compile(r"\bseeds?\b|\bseed's", re.IGNORECASE)
    paths = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").glob("*.md"),
             *(ROOT / "atk_tui").rglob("*.py")]  # fmt: skip
    said = []
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if word.search(line.replace("--seed", "")):
                said.append(f"{path.relative_to(ROOT)}:{n}")
    assert said == []


def test_readme_says_how_to_reach_the_commands_from_a_new_shell() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "source .venv/bin/activate" in text
    first = text.index("atk init")
    assert text.index("source .venv/bin/activate") < first, "the PATH comes after the first bare `atk`"


def test_the_docs_never_say_fixed_in_a_release_not_yet_made() -> None:
    """"fixed in X.Y.Z" only for a release at or before the version `--version` prints."""
    version = tuple(int(x) for x in re.search(r'^version = "([\d.]+)"$', (ROOT / "pyproject.toml").read_text(), re.M).group(1).split("."))
    for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        for m in re.finditer(r"fixed in (?:version )?v?(\d+\.\d+\.\d+)", path.read_text(encoding="utf-8")):
            said = tuple(int(x) for x in m.group(1).split("."))
            assert said <= version, f"{path.relative_to(ROOT)} says {m.group(0)!r}; --version is {'.'.join(map(str, version))}"
