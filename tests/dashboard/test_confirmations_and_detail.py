"""Small integrity points (issue 9): the move confirmation says what agents do by the service's
own rules; `x` on an item others depend on names them in the confirmation."""

from __future__ import annotations

from support.actions_support import Demo, dashboard, press_all, select

from atk_tui.service import Service
from atk_tui.tui.modals.dialogs import ChoiceScreen


async def move_dialog(pilot, name: str, key: str) -> ChoiceScreen | None:  # type: ignore[no-untyped-def]
    await select(pilot, name)
    await press_all(pilot, "m", key)
    if key in "ax":  # adopt/reject take a note first
        await press_all(pilot, "enter")
    screen = pilot.app.screen
    return screen if isinstance(screen, ChoiceScreen) else None


async def test_move_confirmation_follows_the_agent_rules(demo: Demo) -> None:
    async with dashboard(demo) as (_app, pilot):
        # inbox AWI -> adopted: agents never do that
        dialog = await move_dialog(pilot, demo["hand-svg-logo"], "a")
        assert dialog is not None
        assert dialog.title_text == "Move outside the agent flow?"
        assert "Agents never make this move themselves." in str(dialog.message)
        await press_all(pilot, "n")
        # processing -> rejected: the agents' own move, no confirmation at all
        base = demo.head()
        dialog = await move_dialog(pilot, demo["proc-darkmode"], "x")
        assert dialog is None
        assert demo.subjects_since(base) == [f"atk: reject {demo['proc-darkmode']}"]


async def test_an_answered_uwi_rejected_from_inbox_is_an_agent_move(demo: Demo) -> None:
    name = demo["answered-uwi"]
    assert Service(demo.root).read(name).answered
    async with dashboard(demo) as (_app, pilot):
        base = demo.head()
        dialog = await move_dialog(pilot, name, "x")
        assert dialog is None  # SPEC §11: as adopt may close it from inbox, so may reject
        assert demo.subjects_since(base) == [f"atk: reject {name}"]


async def test_remove_names_the_items_that_depend_on_it(demo: Demo) -> None:
    name = demo["chain-1"]
    dependents = Service(demo.root).dependents_of(name)
    assert dependents
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "x")
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen)
        text = str(dialog.message)
        titles = [Service(demo.root).read(d).title[:20] for d in dependents[:5]]
        assert "depend" in text and all(t in text for t in titles), text  # by title, as the lists show them
        await press_all(pilot, "n")
        # an item nothing depends on: no warning
        await select(pilot, demo["hand-svg-logo"])
        await press_all(pilot, "x")
        assert "depend" not in str(app.screen.message)


FREE_TEXT = """# Support hours for the SLA page

## 質問
What support hours should the SLA page state?
Consider the EU on-call rota too.
"""

CHECKPOINT = """# Checkpoint: where the auth tests go

AWAITING_USER_INPUT
---
Urgency: next-review
Context: tests live in auth/__tests__/ and api/__tests__/ today; __init__ files differ
Decisions needed:
1. Where should new auth tests go?
Options:
- A) auth/__tests__/ -- next to the code
- B) tests/auth/ -- one top-level folder
Recommendation: A
---

Notes after the block: **bold** stays Markdown.
"""


def rendered(app, wid: str) -> str:  # type: ignore[no-untyped-def]
    import io

    from rich.console import Console
    from textual.widgets import Static

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.main.query_one(f"#{wid}", Static).content)
    return console.export_text()


async def test_detail_shows_question_text_and_checkpoint_faithfully(demo: Demo) -> None:
    svc = Service(demo.root, actor="user")
    free = svc.writes.add(kind="uwi", target_repo="acme/docs", body=FREE_TEXT)
    cp = svc.writes.add(kind="uwi", target_repo="acme/api", body=CHECKPOINT)
    assert free.ok and cp.ok
    async with dashboard(demo, free.files[0]) as (app, pilot):
        questions = rendered(app, "detail-questions")
        assert "\\x0a" not in questions
        assert "What support hours should the SLA page state?\nConsider the EU on-call rota too." in questions
        await select(pilot, cp.files[0])
        preview = rendered(app, "detail-preview")
        assert "auth/__tests__/ and api/__tests__/ today; __init__ files differ" in preview
        assert "- A) auth/__tests__/ -- next to the code" in preview
        assert "Urgency: next-review" in preview
        assert "**bold**" not in preview and "bold stays Markdown" in preview  # the rest is Markdown


def test_agent_may_move_follows_the_transition_rules(demo: Demo) -> None:
    svc = Service(demo.root, actor="user")
    awi = svc.read(demo["hand-svg-logo"])  # inbox AWI
    proc = svc.read(demo["proc-darkmode"])  # processing
    answered = svc.read(demo["answered-uwi"])  # inbox, answered UWI
    done = svc.read(demo["adopt-node"])  # adopted
    assert svc.writes.agent_may_move(awi, "hold") and svc.writes.agent_may_move(awi, "processing")
    assert not svc.writes.agent_may_move(awi, "adopted") and not svc.writes.agent_may_move(awi, "rejected")
    assert svc.writes.agent_may_move(proc, "adopted") and svc.writes.agent_may_move(proc, "rejected") and svc.writes.agent_may_move(proc, "inbox")
    assert not svc.writes.agent_may_move(proc, "hold")  # wi-standards: return to inbox first
    assert svc.writes.agent_may_move(answered, "adopted") and svc.writes.agent_may_move(answered, "rejected")
    assert not svc.writes.agent_may_move(done, "inbox")  # adopted is done: SPEC §5 gives agents no way out of it
    assert not svc.writes.agent_may_move(done, "rejected") and not svc.writes.agent_may_move(done, "hold")
