"""The history view can move a terminal item back (SPEC §5: the user may move any state)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from storekit import git

from atk_tui.demo import create_demo_store
from atk_tui.tui.app import make_app

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


async def _settle(app, pilot, *, workers: bool = True) -> None:
    """Let timers and messages run; wait for workers only when none waits on a dialog."""
    for _ in range(10):
        await pilot.pause(0.05)
    if workers:
        await app.workers.wait_for_complete()
        await pilot.pause()


def test_history_moves_a_terminal_item_back_to_inbox_after_confirming(tmp_path: Path) -> None:
    root = create_demo_store(tmp_path, NOW)
    app = make_app(root, clock=lambda: NOW, watch=False, theme="textual-dark")

    async def run() -> str:
        async with app.run_test(size=(120, 36)) as pilot:
            await _settle(app, pilot)
            await pilot.press("H")
            await _settle(app, pilot)
            key = app.screen.query_one("#terminal").current_key
            state = next(s for s in ("adopted", "rejected") if (root / "wi" / s / key).exists())
            await pilot.press("m")
            await _settle(app, pilot, workers=False)
            await pilot.press("i")
            await _settle(app, pilot, workers=False)
            assert type(app.screen).__name__ == "ChoiceScreen"
            await pilot.press("y")
            await _settle(app, pilot)
            assert (root / "wi" / "inbox" / key).exists()
            assert not (root / "wi" / state / key).exists()
            return key

    key = asyncio.run(run())
    assert git(root, "log", "-1", "--format=%s").strip() == f"atk: return-to-inbox {key}"


def test_history_move_is_refused_read_only(tmp_path: Path) -> None:
    root = create_demo_store(tmp_path, NOW)
    app = make_app(root, clock=lambda: NOW, watch=False, theme="textual-dark", actor="agent")
    head = git(root, "rev-parse", "HEAD")

    async def run() -> None:
        async with app.run_test(size=(120, 36)) as pilot:
            await _settle(app, pilot)
            await pilot.press("H")
            await _settle(app, pilot)
            assert app.screen.check_action("move", ()) is None
            await pilot.press("m")
            await _settle(app, pilot)
            assert type(app.screen).__name__ == "HistoryScreen"

    asyncio.run(run())
    assert git(root, "rev-parse", "HEAD") == head
