"""Batch approval (issue 15 item 8): mark several questions, `A`, one confirmation listing them,
one commit; a question without a recommendation refuses the batch, named."""

from __future__ import annotations

from pathlib import Path

from support.actions_support import recording
from support.apps import wait_for_screen
from support.tui_helpers import DEMO, build_app, git, press, screen_text, settle

from atk_tui.service import Service

SIZE = (140, 40)


async def mark(pilot, key: str) -> None:
    app = pilot.app
    assert app.main.jump_to(DEMO[key])
    await settle(pilot)
    await press(pilot, "space")


async def batch_confirmation(pilot, store: Path) -> str:
    """Mark two questions, press `A`, wait for the confirmation: HEAD before it."""
    await settle(pilot)
    await press(pilot, "1")
    before = git(store, "rev-parse", "HEAD").strip()
    await mark(pilot, "chain-uwi")
    await mark(pilot, "md-multi")
    await pilot.press("A")
    await wait_for_screen(pilot, "ChoiceScreen")
    return before


async def test_marked_questions_accepted_after_one_confirmation_in_one_commit(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        before = await batch_confirmation(pilot, demo_store)
        text = screen_text(app)
        assert "Accept the recommendations of 2 questions" in text
        for key in ("chain-uwi", "md-multi"):
            assert app.main.view.items[DEMO[key]].title[:20] in text
        await pilot.press("y")
        await settle(pilot)
        log = git(demo_store, "log", "--format=%s", f"{before}..HEAD").splitlines()
        assert log == ["atk: answer 2 items"]
        for key in ("chain-uwi", "md-multi"):
            assert app.main.view.items[DEMO[key]].answered
        assert app.main.marked() == []


async def test_no_writes_when_the_confirmation_is_declined(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        before = await batch_confirmation(pilot, demo_store)
        await pilot.press("n")
        await settle(pilot)
        assert git(demo_store, "rev-parse", "HEAD").strip() == before


def test_a_question_without_recommendation_refuses_the_batch_by_name(demo_store: Path) -> None:
    svc = Service(demo_store, actor="user", pull=False, push=False)
    before = git(demo_store, "rev-parse", "HEAD").strip()
    out = svc.answers.accept_recommendations([DEMO["chain-uwi"], DEMO["free-text"]])
    assert not out.ok
    assert DEMO["free-text"] in out.message and "no recommendation" in out.message
    assert DEMO["chain-uwi"] not in out.message.split("no recommendation to accept in", 1)[1]
    assert git(demo_store, "rev-parse", "HEAD").strip() == before  # nothing, not even the good one


async def test_the_batch_is_checked_before_the_confirmation_and_names_titles(demo_store: Path) -> None:
    """Issue 43: `A` asked to confirm, then refused because one marked question had no
    recommendation, naming its file. Now nothing is asked: the refusal comes at once, by title."""
    app = recording(build_app(demo_store))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "1")
        before = git(demo_store, "rev-parse", "HEAD").strip()
        await mark(pilot, "chain-uwi")
        await mark(pilot, "free-text")
        await press(pilot, "A")
        assert app.screen is app.main  # no confirmation
        (note,) = [m for m, sev in app.notes if m.startswith("Nothing accepted")]
        free = app.main.view.items[DEMO["free-text"]]
        assert f"“{free.title[:50]}” has no recommendation" in note
        assert DEMO["free-text"] not in note  # titles, not filenames
        assert app.main.view.items[DEMO["chain-uwi"]].title[:30] not in note  # only the one refused
        assert git(demo_store, "rev-parse", "HEAD").strip() == before


async def test_one_question_in_the_batch_is_said_in_the_singular(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "1")
        await mark(pilot, "chain-uwi")
        await mark(pilot, "hand-svg-logo")  # an AWI: left out
        await pilot.press("A")
        await wait_for_screen(pilot, "ChoiceScreen")
        text = screen_text(app)
        assert "Accept the recommendations of 1 question " in text or "Accept the recommendations of 1 question─" in text
        assert "recommendations of 1 questions" not in text
