"""The dashboard's shape (issue 11): no module over 700 lines, no screen borrowing attributes
through `type: ignore` (the layers themselves: tests/core/test_import_hygiene.py)."""

from __future__ import annotations

from pathlib import Path

import atk_tui

TUI = Path(atk_tui.__file__).parent / "tui"
MAX_LINES = 700


def _modules() -> list[Path]:
    return sorted(TUI.rglob("*.py"))


def test_no_dashboard_module_is_over_700_lines() -> None:
    long = {str(p.relative_to(TUI)): n for p in _modules() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_screen_borrows_attributes_it_does_not_declare() -> None:
    ignores = [str(p.relative_to(TUI)) for p in _modules() if "type: ignore[attr-defined]" in p.read_text(encoding="utf-8")]
    assert ignores == []
