"""Snapshots of the answer form (SPEC §11 "what you see is what is recorded"): the highlighted
row is the recorded choice — a recommended B, no recommendation, after a letter key. Same
determinism as test_actions_snapshots.py (whose `steps` these reuse)."""

from __future__ import annotations

from support.actions_support import SIZE, Demo, make, press_all, settle
from test_actions_snapshots import steps
from test_answer_integrity import NO_REC, TWO_QUESTIONS, add_uwi, agent_edit, reorder_q2


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
