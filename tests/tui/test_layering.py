"""The dashboard's layering (issue 11): screens reach the store only through the service, the
processes it starts are started in two modules, and no module grows past a screenful of
screenfuls."""

from __future__ import annotations

import ast
from pathlib import Path

import atk_tui

TUI = Path(atk_tui.__file__).parent / "tui"
MAX_LINES = 700
PROCESS_MODULES = {"edit_session.py", "alerts.py"}  # the editor and git merge-file; the desktop notifier


def _modules() -> list[Path]:
    return sorted(TUI.rglob("*.py"))


def test_the_dashboard_never_reaches_past_the_service() -> None:
    offenders = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "store" and isinstance(node.value, (ast.Name, ast.Attribute)):
                offenders.append(f"{path.relative_to(TUI)}:{node.lineno}")
    assert offenders == []


def test_only_the_editor_and_notifier_modules_start_processes() -> None:
    users = set()
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, (ast.Import, ast.ImportFrom)) else []
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if "subprocess" in names or module == "subprocess":
                users.add(path.name)
    assert users == PROCESS_MODULES


def test_no_dashboard_module_is_over_700_lines() -> None:
    long = {str(p.relative_to(TUI)): n for p in _modules() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_screen_borrows_attributes_it_does_not_declare() -> None:
    ignores = [str(p.relative_to(TUI)) for p in _modules() if "type: ignore[attr-defined]" in p.read_text(encoding="utf-8")]
    assert ignores == []
