"""The dashboard over both queues (issue 12): feedback items and TBDs beside work items,
needs-you combining UWIs and TBDs, a TBD answered inline like a UWI (its dependents turn
ready), a feedback item edited through `editing` instead of hold, planning items visible but
not actionable, and Q switching between both queues, wi and mq."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.actions_support import git, make, select, settle, started
from support.clock import NOW

from atk_tui.demo import demo_filenames
from atk_tui.tui.modals.answer import AnswerScreen

SIZE = (140, 40)


@pytest.fixture
def store(mq_store: Path) -> Path:
    return mq_store.resolve()


def mq_names(root: Path) -> dict[str, str]:
    """Title start -> filename of every mq item."""
    out = {}
    for path in (root / "mq").glob("*/*.md"):
        title = next(line for line in path.read_text().splitlines() if line.startswith("# "))[2:]
        out[title.split(" (")[0]] = path.name
    return out


def rows(app, pane: str) -> list[str]:
    from atk_tui.tui.widgets.item_list import ItemList

    return [r.key for r in app.main.query_one(f"#{pane}", ItemList).rows]


async def test_both_queues_and_answering_a_tbd_makes_its_dependents_ready(store: Path) -> None:
    names = mq_names(store)
    tone = names["Which tone should error messages take"]
    login, signup = names["Shorten the login error message"], names["Align the signup error messages with login"]
    wi = demo_filenames(NOW)
    app = make(store)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        view = app.main.view
        needs = rows(app, "needs")
        assert tone in needs and wi["chain-uwi"] in needs  # one list, both queues
        assert needs.index(wi["chain-uwi"]) < needs.index(tone)  # both blocking: blocks 3 > 2
        assert view.blocks[tone] == (2, 2)
        inbox = rows(app, "inbox")
        assert login in inbox and wi["chain-uwi"] in inbox
        hold = rows(app, "hold")
        assert names["Explain the 2FA recovery codes on the settings page"] in hold  # editing
        assert names["Split the nightly export into per-tenant jobs"] in hold  # planning, visible
        assert view.judgements[login].status == "blocked"
        # Q: only the feedback queue, then only wi, then both again
        await pilot.press("Q")
        await settle(pilot)
        assert set(rows(app, "inbox")) <= set(names.values()) and login in rows(app, "inbox")
        assert rows(app, "needs") == [tone]
        await pilot.press("Q")
        await settle(pilot)
        assert tone not in rows(app, "needs") and wi["chain-uwi"] in rows(app, "needs")
        await pilot.press("Q")
        await settle(pilot)
        assert tone in rows(app, "needs")
        # the TBD is answered inline, exactly like a UWI
        await select(pilot, tone)
        base = git(store, "rev-parse", "HEAD").strip()
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, AnswerScreen) and app.screen.item.filename == tone
        await pilot.press("enter")
        await settle(pilot)
        view = app.main.view
        assert view.judgements[login].status == "ready" and view.judgements[signup].status == "ready"
        assert tone not in rows(app, "needs")
    assert git(store, "log", "--format=%s", f"{base}..HEAD").split("\n")[0] == f"atk: answer {tone}"
    assert "- 1: A) 簡潔な事実のみ" in (store / "mq/inbox" / tone).read_text()


async def test_editing_a_feedback_item_goes_through_editing(store: Path) -> None:
    names = mq_names(store)
    item = names["Shorten the login error message"]
    seen: list[str] = []

    def editor(path: Path) -> int:
        seen.extend(p.parent.name for p in (store / "mq").glob(f"*/{item}"))  # where it is meanwhile
        path.write_text(path.read_text().replace("(先月 41 件)", "(先月 42 件)", 1))
        return 0

    app = make(store, editor=editor)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await select(pilot, item)
        base = git(store, "rev-parse", "HEAD").strip()
        await pilot.press("e")
        await settle(pilot)
    assert seen == ["editing"]
    assert git(store, "log", "--reverse", "--format=%s", f"{base}..HEAD").split("\n")[:3] == [
        f"atk: start-editing {item}", f"atk: edit {item}", f"atk: stop-editing {item}"]
    assert "(先月 42 件)" in (store / "mq/inbox" / item).read_text()


async def test_planning_items_are_visible_but_not_actionable(store: Path) -> None:
    item = mq_names(store)["Split the nightly export into per-tenant jobs"]
    app = make(store)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await select(pilot, item)
        base = git(store, "rev-parse", "HEAD").strip()
        for action in ("hold", "unhold", "edit", "move", "remove", "dependencies"):
            assert app.main.check_action(action, ()) is None, action
        await pilot.press("h", "m", "x")
        await settle(pilot)
        assert app.main.view.judgements[item].status == "planning"
    assert git(store, "rev-parse", "HEAD").strip() == base
    assert (store / "mq/planning" / item).exists()
