"""The dashboard on a big or busy store: a cold start counts its progress in the panes, the
history shows its rows without parsing every terminal item, a push from another clone shows
without waiting for the periodic pull."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.storekit import AWI_BODY, add_item, clone, make_remote_pair, spy_parses
from support.tui_helpers import build_app, keys_of_pane, settle

from atk_tui.domain.model import SHOWN
from atk_tui.service import Service
from atk_tui.service.reading import loading as service_mod
from atk_tui.tui.config import TuiConfig
from atk_tui.tui.screens.history import HistoryScreen
from atk_tui.tui.widgets.item_list import ItemList


async def test_a_cold_start_shows_how_far_parsing_got(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = make_remote_pair(tmp_path)
    svc = Service(root, actor="user", push=False)
    for k in range(6):
        add_item(svc, body=AWI_BODY.replace("Use one", f"Use {k}"))
    monkeypatch.setattr(service_mod, "PROGRESS_EVERY", 2)
    app = build_app(root, config=TuiConfig(pull_interval=0, remote_check_interval=0))
    app.service.use_cache = False
    shown: list[str] = []
    real = app._show_progress

    def spy(done: int, total: int) -> None:
        real(done, total)
        shown.append(app.main.query_one("#inbox", ItemList).empty_text)

    app._show_progress = spy  # type: ignore[method-assign]
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert shown and shown[0].startswith("Loading… parsed ") and shown[0].endswith(" / 6")
        assert len(keys_of_pane(app, "inbox")) == 6


async def test_history_rows_read_only_the_files_drawn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = make_remote_pair(tmp_path)
    svc = Service(root, actor="user", push=False)
    names = [add_item(svc, body=AWI_BODY.replace("Use one", f"Use {k}")) for k in range(60)]
    assert svc.writes.transition_command("start-processing", names).ok
    for n in names:
        assert svc.writes.transition_command("adopt", [n], note=f"note {n[-8:]}").ok
    app = build_app(root)
    reads: list[str] = []
    real_read = app.service.read

    def read(filename: str, state: str | None = None):  # type: ignore[no-untyped-def]
        reads.append(filename)
        return real_read(filename, state)

    monkeypatch.setattr(app.service, "read", read)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        app.action_history()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        lst = screen.query_one("#terminal", ItemList)
        assert lst.border_title == "History 60"
        assert [r.key for r in lst.rows] == sorted(names, reverse=True)
        drawn = set(reads)
        assert 0 < len(drawn) < 60  # the visible rows (and the highlighted one's detail)
        assert lst.rows[0].cells[0].plain == "adopted"


async def test_the_history_is_the_views_archived_items_and_follows_every_move(tmp_path: Path) -> None:
    """The history's rows are the archived items of the view the dashboard shows, newest
    first, without reading their files: an adopt, a move by hand, a file added or removed by
    hand, a reject all show once the view is refreshed (as the dashboard's panes do)."""
    import os

    root, _ = make_remote_pair(tmp_path)
    svc = Service(root, actor="user", push=False)
    a, b, c = (add_item(svc, body=AWI_BODY.replace("Use one", f"Use {k}")) for k in range(3))
    assert svc.writes.transition_command("start-processing", [a, b]).ok
    assert svc.writes.transition_command("adopt", [a], note="done").ok
    (root / "wi" / "adopted" / a).write_text("not an item at all")  # a row is a name: never parsed here
    app = build_app(root)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        app.action_history()
        await settle(pilot)
        lst = app.screen.query_one("#terminal", ItemList)

        def rows() -> list[tuple[str, str]]:
            assert isinstance(app.screen, HistoryScreen)
            return [(r.key, app.screen.where[r.key]) for r in lst.rows]

        assert rows() == [(a, "adopted")] and lst.border_title == "History 1"
        by_hand = "20260101-000000-by-hand.md"
        for step, expected in (
            (lambda: svc.writes.transition_command("adopt", [b], note="ok"), [(b, "adopted"), (a, "adopted")]),
            (lambda: os.rename(root / "wi" / "adopted" / a, root / "wi" / "rejected" / a), [(b, "adopted"), (a, "rejected")]),
            (lambda: (root / "wi" / "adopted" / by_hand).write_text("---\nkind: awi\n---\n# x\n"),
             [(b, "adopted"), (a, "rejected"), (by_hand, "adopted")]),
            (lambda: (root / "wi" / "rejected" / a).unlink(), [(b, "adopted"), (by_hand, "adopted")]),
            (lambda: (svc.writes.transition_command("start-processing", [c]), svc.writes.transition_command("reject", [c], note="no")), [(c, "rejected"), (b, "adopted"), (by_hand, "adopted")]),
        ):
            step()
            app.reload()
            await settle(pilot)
            assert rows() == sorted(expected, reverse=True)
            assert lst.border_title == f"History {len(expected)}"


async def test_a_push_from_another_clone_shows_without_the_periodic_pull(tmp_path: Path) -> None:
    root, remote = make_remote_pair(tmp_path)
    add_item(Service(root, actor="user"))
    app = build_app(root, watch=True, config=TuiConfig(pull_interval=0, remote_check_interval=0.2))
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert len(keys_of_pane(app, "inbox")) == 1
        other = clone(remote, tmp_path / "other")
        new = add_item(Service(other, actor="user"), body=AWI_BODY.replace("Use one", "Use pushed"))
        for _ in range(150):  # bounded: the check runs every 0.2 s, then a pull, then a reload
            await pilot.pause(0.1)
            if new in keys_of_pane(app, "inbox"):
                break
        assert new in keys_of_pane(app, "inbox")


async def test_a_start_goes_on_the_view_the_last_run_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dashboard keeps its view for the next run a moment after showing it; the next
    start reads only the files that changed since and shows the same rows (`saved_queue`)."""
    import time

    from atk_tui.cache import caches as cache_mod
    from atk_tui.service.reading import reads as reads_mod
    from atk_tui.tui.feeds import view_keeper as app_mod

    monkeypatch.setattr(service_mod, "RACY_NS", 50_000_000)
    monkeypatch.setattr(reads_mod, "RACY_NS", 50_000_000)
    monkeypatch.setattr(cache_mod, "RACY_NS", 50_000_000)
    monkeypatch.setattr(app_mod, "SAVE_DELAY", 0.05)
    root, _ = make_remote_pair(tmp_path)
    svc = Service(root, actor="user", push=False)
    names = [add_item(svc, body=AWI_BODY.replace("Use one", f"Use {k}")) for k in range(5)]
    assert svc.writes.transition_command("hold", [names[0]]).ok
    time.sleep(0.06)  # older than the racy window: files may be kept
    config = TuiConfig(pull_interval=0, remote_check_interval=0)
    app = build_app(root, config=config)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.pause(0.1)
        await settle(pilot)
        first = {p: keys_of_pane(app, p) for p in ("inbox", "hold")}
    assert app.service.saved_queue(SHOWN) is not None
    # another run, after an agent changed one item by hand
    changed = root / "wi" / "inbox" / names[1]
    changed.write_text(changed.read_text().replace("Use 1", "Use one, changed"))
    time.sleep(0.06)
    parsed = spy_parses(monkeypatch)
    again = build_app(root, config=config)
    async with again.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert parsed == [names[1]]
        assert {p: keys_of_pane(again, p) for p in ("inbox", "hold")} == first
        assert again.queue is not None and again.queue.items[names[1]].title == "Use one, changed email validator everywhere"
