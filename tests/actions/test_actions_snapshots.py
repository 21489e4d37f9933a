"""Snapshots of the action dialogs over the dashboard (pytest-textual-snapshot).

Deterministic the same way as tests/tui: the demo store is made for a fixed `now` and the app's
clock is frozen at it, theme textual-dark, no watcher, a fixed store label instead of the tmp
path (also in the invalid-edit message), cursors that do not blink, and every step waits for the
app to settle (workers, debounce timers) instead of sleeping.

Update with `pytest tests/actions/test_actions_snapshots.py --snapshot-update` only after
reading the report.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from support.actions_support import SIZE, Demo, make, press_all, settle
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from atk_tui.tui.app import AtkApp


def steps(*keys: str, jump: str | None = None, marks: tuple[str, ...] = ()) -> Callable[[Pilot], object]:
    """A `run_before`: settle, select `jump` (or mark `marks`), press `keys` one by one."""

    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, AtkApp)
        await settle(pilot)
        for name in marks:
            assert app.main.jump_to(name)
            await settle(pilot)
            await press_all(pilot, "space")
        if jump is not None:
            assert app.main.jump_to(jump)
            await settle(pilot)
        for key in keys:
            await press_all(pilot, key)
        for widget in app.screen.query("Input, TextArea"):
            assert isinstance(widget, Input | TextArea)
            widget.cursor_blink = False
        await settle(pilot)

    return run_before


def test_answer_form_one_question(snap_compare, demo: Demo) -> None:
    """The top question: its recommended option (A) is marked and preselected."""
    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=steps("a"))


def test_answer_form_three_questions(snap_compare, demo: Demo) -> None:
    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=steps("a", jump=demo["md-multi"]))


def test_answer_form_free_text_only(snap_compare, demo: Demo) -> None:
    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=steps("a", jump=demo["free-text"]))


def test_move_menu(snap_compare, demo: Demo) -> None:
    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=steps("m", jump=demo["hand-svg-logo"]))


def test_move_menu_adopt_note(snap_compare, demo: Demo) -> None:
    """`m a`: adopting asks for a note (then for confirmation)."""
    keys = ("m", "a", *"merged in #42")
    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=steps(*keys, jump=demo["proc-darkmode"]))


def test_rm_confirmation(snap_compare, demo: Demo) -> None:
    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=steps("x", jump=demo["hand-svg-logo"]))


def test_invalid_edit_message(snap_compare, demo: Demo) -> None:
    def break_yaml(path: Path) -> int:
        text = path.read_text(encoding="utf-8")
        path.write_text(
            text.replace("target_repo: acme/webapp\n", "target_repo: acme/webapp: oops\n"), encoding="utf-8"
        )
        return 0

    app = make(demo.root, editor=break_yaml)
    assert snap_compare(app, terminal_size=SIZE, run_before=steps("e", jump=demo["hand-svg-logo"]))


def test_bulk_marked_rows(snap_compare, demo: Demo) -> None:
    marks = (demo["hand-svg-logo"], demo["agent-index"], demo["lint"])
    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=steps(marks=marks))
