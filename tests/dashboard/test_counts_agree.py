"""The counts the dashboard shows agree with each other (issue 43): after `z` undoes an answer,
the needs-you pane and the wait statistics both count the question that waits again; with the
queue switch (`Q`) showing only one queue, the needs-you pane says the questions it hides are
hidden by the switch, never "Nothing needs you"."""

from __future__ import annotations

from support.actions_support import Demo, dashboard, press_all, settle
from support.apps import screen_text, wait_for_screen


def waiting_in_stats(demo: Demo, app) -> set[str]:
    stats = app.service.wait_stats(now=app.service.clock())  # as the statistics screen asks
    return {w.filename for w in stats.open}


async def test_after_undoing_an_answer_needs_you_and_the_wait_statistics_agree(demo: Demo) -> None:
    name = demo["cp-single"]
    async with dashboard(demo, name) as (app, pilot):
        before = set(app.main.view.needs_you)
        assert name in before
        assert waiting_in_stats(demo, app) == before
        await press_all(pilot, "a")
        await wait_for_screen(pilot, "AnswerScreen")
        await press_all(pilot, "a", "enter")
        assert demo.written() == [f"atk: answer {name}"]
        assert name not in app.main.view.needs_you
        assert waiting_in_stats(demo, app) == before - {name}
        await press_all(pilot, "z")
        assert len(demo.written()) == 2, demo.written()
        assert set(app.main.view.needs_you) == before
        assert waiting_in_stats(demo, app) == before  # the reopened question counted again
        app.action_stats()
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert f"{len(before)} questions waiting" in screen_text(app)


async def test_the_queue_switch_says_what_it_hides_in_needs_you(demo: Demo) -> None:
    async with dashboard(demo) as (app, pilot):
        waiting = len(app.main.view.needs_you)
        assert waiting
        await press_all(pilot, "Q")  # only mq: the demo's questions are all wi
        assert app.main.queue_view == "mq"
        needs = app.main.query_one("#needs")
        text = screen_text(app)
        assert "Nothing needs you" not in text
        assert f"{waiting} waiting in wi, hidden by the queue switch (Q shows every queue)" in text
        assert f"Needs you 0 · {waiting} in wi hidden" in str(needs.border_title)
        await press_all(pilot, "Q", "Q")  # only wi, then both again
        assert app.main.queue_view is None
        assert str(needs.border_title).startswith(f"Needs you {waiting}")
        assert "hidden" not in str(needs.border_title)
