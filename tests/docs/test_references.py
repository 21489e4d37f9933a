"""The project stands on its own (issue 44): every "SPEC §N" in the code, the tests and the docs
names a section of docs/spec.md, the docs say where SPEC lives, and every module a docstring or
a comment names (`service.reading`, `tui/commands.py`) exists."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "atk_tui"
SPEC = ROOT / "docs" / "spec.md"
#: "SPEC §3", "SPEC §3.2", "SPEC §3, §5", "SPEC §§3-§9": every § number after SPEC
SPEC_REF = re.compile(r"SPEC(?:\.md)?\s*(§[§\d.,\s\-–and]*\d)")
SECTION_NO = re.compile(r"§\s*(\d+(?:\.\d+)?)")
HEADING = re.compile(r"^## (\d+)\. \S", re.MULTILINE)
SUBHEADING = re.compile(r"^### (\d+\.\d+)\.? \S", re.MULTILINE)


def sections() -> set[str]:
    text = SPEC.read_text(encoding="utf-8")
    return set(HEADING.findall(text)) | set(SUBHEADING.findall(text))


def citing_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]
    for top in ("atk_tui", "tests", "bench"):
        files += sorted(p for p in (ROOT / top).rglob("*") if p.suffix in (".py", ".md", ".tcss") and p.is_file())
    return [p for p in files if "__snapshots__" not in p.parts]


def references(text: str) -> list[tuple[int, str]]:
    """(line, section number) of every SPEC reference in `text`."""
    out = []
    for m in SPEC_REF.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out += [(line, n) for n in SECTION_NO.findall(m.group(1))]
    return out


def test_the_reference_finder_reads_every_form() -> None:
    found = [n for _, n in references("SPEC §3, §5 and SPEC §15; SPEC §11.2 and SPEC.md §4-§9, not §2\n")]
    assert found == ["3", "5", "15", "11.2", "4", "9"]


def test_the_spec_has_its_seventeen_sections_in_order() -> None:
    numbers = [int(n) for n in HEADING.findall(SPEC.read_text(encoding="utf-8"))]
    assert numbers == list(range(1, 18))


def test_every_spec_reference_names_a_section_of_docs_spec_md() -> None:
    known = sections()
    bad, count = [], 0
    for path in citing_files():
        for line, n in references(path.read_text(encoding="utf-8", errors="replace")):
            count += 1
            # "§11.2" resolves to a `### 11.2` heading, else to section 11 when it has no subsections
            if n not in known and not ("." in n and n.split(".")[0] in known and not SUBHEADING.search(SPEC.read_text())):
                bad.append(f"{path.relative_to(ROOT)}:{line}: SPEC §{n}")
    assert count > 100, "the finder found almost no references: is it broken?"
    assert bad == []


@pytest.mark.parametrize("doc", ["docs/README.md", "ARCHITECTURE.md", "docs/development.md"])
def test_the_docs_say_where_spec_lives(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert re.search(r"SPEC §N\b.*\bspec\.md", text), f"{doc} does not say that SPEC §N is docs/spec.md"


def test_no_reference_names_a_contract_that_is_not_in_the_repository() -> None:
    """`contract §4` once named an issue's own list; the spec is the one numbered document."""
    said = [f"{p.relative_to(ROOT)}" for p in citing_files() if p != Path(__file__) and re.search(r"\bcontract §", p.read_text(encoding="utf-8", errors="replace"))]
    assert said == []


def test_no_doc_points_outside_the_repository_for_its_spec() -> None:
    outside, spec_md = "../" + "shared", "SPEC" + ".md"  # spelt apart: this file is searched too
    for path in citing_files():
        if path == Path(__file__):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        assert outside not in text and spec_md not in text, path.relative_to(ROOT)


# -- module paths named in docstrings and comments ---------------------------------------

#: the packages of atk_tui, and `core`, which once was one: a name under any of them must exist
PACKAGES = sorted({p.name for p in PKG.iterdir() if (p / "__init__.py").exists()} | {"core"})
_ALT = "|".join(PACKAGES)
DOTTED = re.compile(rf"(?<![\w./-])(?:atk_tui\.)?(?:{_ALT})(?:\.[a-z_][a-z0-9_]*)+(?![\w(])")
SLASHED = re.compile(rf"(?<![\w./-])(?:atk_tui/)?(?:{_ALT})/(?:[a-z_][a-z0-9_]*/)*[a-z_][a-z0-9_]*\.py(?![\w])")
#: git configuration keys, not modules
NOT_MODULES = re.compile(r"^core\.(fsmonitor|trustctime|checkstat|untrackedcache|hookspath|quotepath|autocrlf|bare)$", re.I)


def prose(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every docstring and comment of a Python file."""
    out: list[tuple[int, str]] = []
    prev = tokenize.INDENT
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and prev in (tokenize.INDENT, tokenize.NEWLINE, tokenize.DEDENT, tokenize.NL)):
            out.append((tok.start[0], tok.string))
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            prev = tok.type
    return out


def module_exists(dotted: str) -> bool:
    parts = dotted.removeprefix("atk_tui.").split(".")
    where = PKG
    for i, part in enumerate(parts):
        if (where / part).is_dir() and (where / part / "__init__.py").exists():
            where = where / part
            continue
        if (where / f"{part}.py").exists():
            return True  # a module; what follows is a name inside it
        # a name defined in the package itself (`store.GitStore`-like, lower case: a function)
        return i > 0
    return True


def named_modules(text: str) -> list[str]:
    names = [m.group(0) for m in DOTTED.finditer(text) if not NOT_MODULES.match(m.group(0))]
    return names + [m.group(0) for m in SLASHED.finditer(text)]


def test_the_module_finder_sees_both_spellings() -> None:
    text = "`core.service.Service`, see core/holds.py; `service.reading` and tui/commands.py; git's core.hooksPath; rich.text"
    assert named_modules(text) == ["core.service", "service.reading", "core/holds.py", "tui/commands.py"]
    assert not module_exists("core.service") and module_exists("service.reading")


def test_every_module_a_docstring_or_comment_names_exists() -> None:
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        for line, text in prose(path):
            for name in named_modules(text):
                ok = (PKG / name.removeprefix("atk_tui/")).exists() if name.endswith(".py") else module_exists(name)
                if not ok:
                    bad.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert bad == []


def test_the_slow_list_names_test_files_that_exist() -> None:
    """tests/slow_tests.txt (the quick loop's leave-outs) is written from a run: each line is a
    node id whose file is still there (scripts/slow_tests.py writes it again when not)."""
    lines = [x for x in (ROOT / "tests" / "slow_tests.txt").read_text(encoding="utf-8").splitlines() if x and not x.startswith("#")]
    assert len(lines) > 50
    gone = sorted({x.split("::")[0] for x in lines if not (ROOT / x.split("::")[0]).is_file()})
    assert gone == []
