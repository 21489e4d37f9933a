"""The data layer's shape (issue 45, point 5): no module of `itemfile/`, `service/`, `store/` or
`cache/` over 600 lines. A module that grows past it is split by role (as items.py became
items, yamlread, validation and frontmatter_edit), not left to grow."""

from __future__ import annotations

from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "atk_tui"
PACKAGES = ("itemfile", "service", "store", "cache")
MAX_LINES = 600


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_data_layer_packages_are_all_there() -> None:
    for name in PACKAGES:
        assert list((PKG / name).rglob("*.py")), f"atk_tui/{name} has no modules: the size check below would pass on nothing"


def test_no_data_layer_module_is_over_600_lines() -> None:
    long = {
        str(p.relative_to(PKG)): n
        for name in PACKAGES
        for p in sorted((PKG / name).rglob("*.py"))
        if (n := _lines(p)) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines (split them by role): {long}"
