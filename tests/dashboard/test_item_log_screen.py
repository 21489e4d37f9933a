"""`L`: an item's history screen — every commit that touched the selected item, newest first,
and the highlighted commit's diff, read in workers through `Service.item_log`/`item_diff`.
Pilot on real stores; snapshots at 160×48 and 80×24 on a store with fixed commit dates."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest
from support.apps import build_app, make_recorded, press, screen_text, settle, wait_for_text
from support.clock import NOW
from support.storekit import AWI_BODY, Clock

from atk_tui.service import Service
from atk_tui.store import init_store
from atk_tui.tui.config import TuiConfig
from atk_tui.tui.keymap import binding_ids, checked_keymap
from atk_tui.tui.screens import item_history
from atk_tui.tui.screens.item_history import ItemLogScreen

EDITED = AWI_BODY.replace("replace the two validators with one", "replace both validators with the auth one")
HOSTILE = "# Hostile [bold red]title[/]\n\nline [@click=app.quit]x[/] \x1b[31mred\x1b[0m end\n"


def worked_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str = AWI_BODY, edited: str = EDITED) -> tuple[Path, str]:
    """One item a user added, an agent started and edited: each commit at a fixed time (so
    the SHAs, dates and ages on screen never change)."""
    steps = iter(range(10))

    def stamp() -> None:
        when = NOW - timedelta(hours=5) + timedelta(hours=next(steps))
        for var in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
            monkeypatch.setenv(var, when.isoformat())

    def at(actor: str) -> Service:
        stamp()
        return Service(root, clock=Clock(NOW - timedelta(days=1)), actor=actor)  # a fresh store: its git env re-read

    stamp()
    root, _ = init_store(tmp_path / "notes")
    out = at("user").writes.add(kind="awi", target_repo="acme/webapp", body=body)
    assert out.ok, out.message
    name = out.files[0]
    assert at("agent").writes.transition_command("start-processing", [name]).ok
    assert at("agent").writes.edit(name, edited).ok
    for var in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.delenv(var)
    return root, name


async def open_log(pilot) -> None:
    await settle(pilot)
    await press(pilot, "2", "L")  # the processing pane, then its item's log


async def test_l_lists_the_commits_and_shows_the_diff_then_escape_goes_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, name = worked_store(tmp_path, monkeypatch)
    app = build_app(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await open_log(pilot)
        assert isinstance(app.screen, ItemLogScreen) and app.screen.filename == name
        shown = screen_text(app)
        assert "Reading history…" not in shown
        assert f"History of {name}" in shown
        for change, actor in (("edited in processing", "agent"), ("moved inbox → processing", "agent"), ("created in inbox", "user")):
            assert any(change in line and actor in line for line in shown.splitlines()), shown
        assert "3 commits, newest first" in shown
        # the newest commit's diff: what the agent changed
        assert "+- 反映内容: replace both validators with the auth one" in shown
        assert "-- 反映内容: replace the two validators with one" in shown
        await press(pilot, "j")  # the move: a summary, no text diff
        shown = screen_text(app)
        assert "(no change to the item's text)" in shown and "replace both" not in shown
        await press(pilot, "down")
        assert f"+++ b/wi/inbox/{name}" in screen_text(app)
        # a commit made meanwhile shows after `r`, the cursor staying on its commit
        assert Service(root, actor="user").writes.move([name], "hold").ok
        await press(pilot, "r")
        shown = screen_text(app)
        assert "4 commits, newest first" in shown and "moved processing → hold" in shown
        assert f"+++ b/wi/inbox/{name}" in shown
        await press(pilot, "enter")
        assert app.screen.query_one("#item-log-diff").has_focus
        await press(pilot, "escape")
        assert type(app.screen).__name__ == "MainScreen"


async def test_the_screen_says_it_is_reading_while_the_worker_reads_then_caps_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, name = worked_store(tmp_path, monkeypatch)
    monkeypatch.setattr(item_history, "LOG_LIMIT", 2)
    app = build_app(root)
    release = threading.Event()
    read = app.service.item_log

    def slow_log(*args, **kw):
        assert release.wait(30)
        return read(*args, **kw)

    monkeypatch.setattr(app.service, "item_log", slow_log)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("2", "L")
        await pilot.pause()
        assert isinstance(app.screen, ItemLogScreen)
        assert "Reading history…" in await wait_for_text(pilot, "Reading history…")  # the UI is not blocked
        release.set()
        await settle(pilot)
        shown = screen_text(app)
        assert "Reading history…" not in shown
        assert f"1 older commit not shown (atk wi log {name} --limit lists them)" in shown
        assert "2 commits, newest first" in shown and "created in inbox" not in shown


async def test_l_opens_from_the_history_view_for_a_terminal_item(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, name = worked_store(tmp_path, monkeypatch)
    assert Service(root, actor="agent").writes.transition_command("adopt", [name], note="merged").ok
    app = build_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "H", "L")
        assert isinstance(app.screen, ItemLogScreen) and app.screen.filename == name
        shown = screen_text(app)
        assert "moved processing → adopted (and edited)" in shown and "+note: merged" in shown
        await press(pilot, "escape")
        assert type(app.screen).__name__ == "HistoryScreen"


async def test_l_opens_from_the_graph_for_the_item_under_its_cursor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, name = worked_store(tmp_path, monkeypatch)
    app = build_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "2", "v")
        assert type(app.screen).__name__ == "GraphScreen"
        await press(pilot, "L")
        assert isinstance(app.screen, ItemLogScreen) and app.screen.filename == name
        await press(pilot, "escape")
        assert type(app.screen).__name__ == "GraphScreen"


async def test_hostile_text_in_the_diff_is_shown_literally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = worked_store(tmp_path, monkeypatch, edited=HOSTILE)
    app = build_app(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await open_log(pilot)
        assert isinstance(app.screen, ItemLogScreen)
        shown = screen_text(app)
        assert "+# Hostile [bold red]title[/]" in shown  # markup shown, not applied
        assert "+line [@click=app.quit]x[/] \\x1b[31mred\\x1b[0m end" in shown  # ESC escaped
        assert "Hostile [bold red]title[/]" in shown.splitlines()[0]  # the title line too


async def test_l_without_a_selected_item_says_so(store: Path) -> None:
    app = make_recorded(store)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "L")
        assert type(app.screen).__name__ == "MainScreen"
        assert ("select an item to see its history (L)", "warning") in app.notes


def test_item_log_is_a_remappable_binding_and_a_clash_is_refused() -> None:
    assert "item_log" in binding_ids()
    ok, errors = checked_keymap({"item_log": "H"}, binding_ids())
    assert ok == {} and any("item_log = 'H' clashes with 'history'" in e for e in errors), errors
    ok, errors = checked_keymap({"item_log": "O"}, binding_ids())
    assert ok == {"item_log": "O"} and errors == []


async def test_a_remapped_item_log_key_opens_the_screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, name = worked_store(tmp_path, monkeypatch)
    app = build_app(root, config=TuiConfig(keys={"item_log": "O"}))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "2", "O")
        assert isinstance(app.screen, ItemLogScreen) and app.screen.filename == name


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
def test_item_log_snapshot(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    root, _ = worked_store(tmp_path, monkeypatch)

    async def run_before(pilot) -> None:
        await open_log(pilot)
        await pilot.app.workers.wait_for_complete()

    assert snap_compare(build_app(root), terminal_size=size, run_before=run_before)
