"""Snapshots of the action dialogs over the dashboard (pytest-textual-snapshot).

Deterministic the same way as tests/dashboard: the demo store is made for a fixed `now` and the app's
clock is frozen at it, theme textual-dark, no watcher, a fixed store label instead of the tmp
path (also in the invalid-edit message), cursors that do not blink, and every step waits for the
app to settle (workers, debounce timers) instead of sleeping.

Update with `pytest tests/dashboard/test_dialog_snapshots.py --snapshot-update` only after
reading the report.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from support.actions_support import SIZE, Demo, make, press_all, settle
from test_answer_integrity import NO_REC, TWO_QUESTIONS, add_uwi, agent_edit, reorder_q2
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


# -- the answer form ---------------------------------------------------------------------------
# Snapshots of the answer form (SPEC §11 "what you see is what is recorded"): the highlighted
# row is the recorded choice — a recommended B, no recommendation, after a letter key. Same
# determinism as test_dialog_snapshots.py (whose `steps` these reuse).


def test_answer_form_recommended_b(snap_compare, demo: Demo) -> None:
    """cp-single recommends B: B is marked ★, pressed and highlighted; the summary says 1=B."""
    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=steps("a", jump=demo["cp-single"]))


def test_answer_form_no_recommendation(snap_compare, demo: Demo) -> None:
    """Nothing preselected, nothing highlighted; the summary says 1=-."""
    name = add_uwi(demo, NO_REC)
    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=steps("a", jump=name))


def test_answer_form_after_a_letter_key(snap_compare, demo: Demo) -> None:
    """`c` on cp-single: C highlighted and pressed, the summary says 1=C."""
    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=steps("a", "c", jump=demo["cp-single"]))


def test_answer_form_reopened_after_the_question_changed(snap_compare, demo: Demo) -> None:
    """Q2's options reordered by an agent while the form was open: nothing saved, the form
    shows the new question with the user's choice kept by label (C became A) and a notice."""
    name = demo["md-multi"]
    first = steps("a", "tab", "c", jump=name)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await first(pilot)
        agent_edit(demo, name, reorder_q2)
        await press_all(pilot, "ctrl+s")
        for widget in pilot.app.screen.query("TextArea"):
            widget.cursor_blink = False
        pilot.app.clear_notifications()  # the toast repeats the notice and times out
        await settle(pilot)

    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=run_before)


def test_partial_answer_confirmation(snap_compare, demo: Demo) -> None:
    name = add_uwi(demo, TWO_QUESTIONS)
    assert snap_compare(make(demo.root), terminal_size=SIZE, run_before=steps("a", "enter", jump=name))
