"""Set-aside push conflicts in the dashboard (SPEC §11): the status line counts them, `C` (or
the palette's "Conflicts") lists them with both versions, and keeping one applies it."""

from __future__ import annotations

from support.actions_support import MINE, THEIRS, Demo, dashboard, git, messages, press_all, set_aside

from atk_tui.service import Service
from atk_tui.tui.modals.conflicts import ConflictsScreen


def status_line(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.main.query_one("#status").render())


async def test_status_line_counts_conflicts_and_c_keeps_mine(demo: Demo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    mine = set_aside(demo, tmp_path)
    name = demo["hand-svg-logo"]
    async with dashboard(demo) as (app, pilot):
        assert "1 set-aside conflict: C resolves" in status_line(app)
        await press_all(pilot, "C")
        dialog = app.screen
        assert isinstance(dialog, ConflictsScreen)
        assert [c.commit for c in dialog.conflicts] == [mine]
        diff = str(dialog.query_one("#conflict-diff").render())
        assert f"wi/inbox/{name}" in diff
        assert "+" + MINE.strip() in diff and "-" + THEIRS.strip() in diff  # both versions
        await press_all(pilot, "m")
        assert app.screen is app.main
        assert "set-aside conflict" not in status_line(app)
    assert Service(demo.root).conflicts.list() == []
    remote_text = git(demo.root.parent / "remote.git", "show", f"main:wi/inbox/{name}")
    assert MINE in remote_text


async def test_keep_theirs_drops_the_set_aside_commit(demo: Demo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    set_aside(demo, tmp_path)
    name = demo["hand-svg-logo"]
    async with dashboard(demo) as (app, pilot):
        await press_all(pilot, "C")
        await press_all(pilot, "t")
        assert "set-aside conflict" not in status_line(app)
    assert Service(demo.root).conflicts.list() == []
    assert THEIRS in demo.text(name) and MINE not in demo.text(name)


async def test_no_conflicts_says_so(demo: Demo) -> None:
    async with dashboard(demo) as (app, pilot):
        assert "conflict" not in status_line(app)
        await press_all(pilot, "C")
        assert app.screen is app.main
        assert "no set-aside conflicts" in messages(app)
