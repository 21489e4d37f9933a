"""`P` in a working tree agents also write to (issue 25): before the dashboard commits what is
in the tree as the person's, it shows the list `atk wi commit` prints (`svc.conflicts.pending_changes`),
the person's decisions marked; and a remote that was rewritten is an error, not a warning."""

from __future__ import annotations

from support.actions_support import Demo, dashboard, errors_shown, git, messages, press_all
from support.storekit import rewind_remote

from atk_tui.service import Service
from atk_tui.store import REWRITTEN
from atk_tui.tui.modals.dialogs import CommitScreen

ANSWER = "\n## 回答\n\n- 1: A)\n"


def agents_hand_answer(demo: Demo) -> str:
    name = demo["chain-uwi"]
    path = demo.root / "wi" / "inbox" / name
    path.write_text(path.read_text() + ANSWER)  # an agent in the same tree, uncommitted
    return name


async def test_p_lists_the_agents_answer_and_commits_only_when_confirmed(demo: Demo) -> None:
    name = agents_hand_answer(demo)
    async with dashboard(demo) as (app, pilot):
        await press_all(pilot, "P")
        dialog = app.screen
        assert isinstance(dialog, CommitScreen), dialog
        assert dialog.changes == Service(demo.root).conflicts.pending_changes()  # the one list
        shown = str(dialog.query_one("#commit-list").render())
        assert f"edit wi/inbox/{name}" in shown and "'## 回答'" in shown
        await press_all(pilot, "n")
        assert app.screen is app.main
        assert demo.written() == [] and "not committed" in " ".join(messages(app))
        await press_all(pilot, "P")
        assert isinstance(app.screen, CommitScreen)
        await press_all(pilot, "y")
        assert app.screen is app.main
    assert demo.written() == ["atk: commit wi/inbox/" + name]
    assert demo.trailer() == "user" and "## 回答" in git(demo.root, "show", f"HEAD:wi/inbox/{name}")


async def test_p_with_a_clean_tree_just_pushes(demo: Demo) -> None:
    async with dashboard(demo) as (app, pilot):
        await press_all(pilot, "P")
        assert app.screen is app.main
        assert any("nothing to commit" in m for m in messages(app))


async def test_a_rewritten_remote_is_shown_as_an_error(demo: Demo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    name = demo["chain-uwi"]
    base = demo.head()
    assert Service(demo.root, actor="user").answers.answer(name, choices={1: "A"}).pushed
    answer = demo.head()
    rewind_remote(demo.root.parent / "remote.git", base, "force-push", tmp_path / "third")
    async with dashboard(demo) as (app, pilot):
        app.pull()
        await press_all(pilot)
        await pilot.app.workers.wait_for_complete()
        await press_all(pilot)
        shown = [e for e in errors_shown(app) if e.startswith(REWRITTEN)]
        assert shown and answer[:10] in shown[0], errors_shown(app)
    assert "## 回答" in git(demo.root.parent / "remote.git", "show", f"main:wi/inbox/{name}")


async def test_a_write_over_a_rewritten_remote_says_it_as_an_error(demo: Demo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    name = demo["chain-uwi"]
    base = demo.head()
    assert Service(demo.root, actor="user").answers.answer(name, choices={1: "A"}).pushed
    answer = demo.head()
    rewind_remote(demo.root.parent / "remote.git", base, "update-ref")
    async with dashboard(demo) as (app, pilot):
        await press_all(pilot, "P")  # a clean tree: `atk wi commit` pushes what the remote dropped
        await pilot.app.workers.wait_for_complete()
        await press_all(pilot)
        shown = [e for e in errors_shown(app) if e.startswith(REWRITTEN)]
        assert shown and answer[:10] in shown[0], errors_shown(app)
        assert app.last_error.startswith(REWRITTEN)
    assert "## 回答" in git(demo.root.parent / "remote.git", "show", f"main:wi/inbox/{name}")
