"""The data layer's shape (issue 45, point 5): no module of `itemfile/`, `service/`, `store/` or
`cache/` over 600 lines. A module that grows past it is split by role (as items.py became
items, yamlread, validation and frontmatter_edit), not left to grow. And no package folder of
`atk_tui/` holds more than 15 modules at one level: a crowded folder is grouped into subpackages
by concern (as `service/` became `core/`, `reading/`, `writing/`, `history/`, `elsewhere/`)."""

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


MAX_MODULES = 15


def _entries(folder: Path) -> list[str]:
    """A package folder's modules at its own level: its .py files but `__init__.py`, and its
    subpackages (folders with an `__init__.py`)."""
    return sorted(
        p.name for p in folder.iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py") or (p.is_dir() and (p / "__init__.py").exists())
    )  # fmt: skip


def _package_folders() -> list[Path]:
    return sorted(p.parent for p in PKG.rglob("__init__.py") if "__pycache__" not in p.parts)


def test_the_folder_count_sees_modules_and_subpackages() -> None:
    service = _entries(PKG / "service")
    assert "facade.py" in service and "core" in service and "__init__.py" not in service
    assert PKG in _package_folders() and PKG / "service" / "writing" in _package_folders()


def test_no_package_folder_holds_more_than_15_modules() -> None:
    crowded = {str(f.relative_to(PKG.parent)): len(e) for f in _package_folders() if len(e := _entries(f)) > MAX_MODULES}
    assert crowded == {}, f"group these folders' modules into subpackages by concern: {crowded}"
