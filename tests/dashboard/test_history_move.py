"""The history view can move a terminal item back (SPEC §5: the user may move any state)."""

from __future__ import annotations

from pathlib import Path

from support.apps import build_app, settle
from support.clock import NOW
from support.storekit import git

from atk_tui.demo import create_demo_store


async def test_history_moves_a_terminal_item_back_to_inbox_after_confirming(tmp_path: Path) -> None:
    root = create_demo_store(tmp_path, NOW)
    app = build_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        key = app.screen.query_one("#terminal").current_key
        state = next(s for s in ("adopted", "rejected") if (root / "wi" / s / key).exists())
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        assert type(app.screen).__name__ == "ChoiceScreen"
        await pilot.press("y")
        await settle(pilot)
        assert (root / "wi" / "inbox" / key).exists()
        assert not (root / "wi" / state / key).exists()
    assert git(root, "log", "-1", "--format=%s").strip() == f"atk: return-to-inbox {key}"


async def test_history_move_is_refused_read_only(tmp_path: Path) -> None:
    root = create_demo_store(tmp_path, NOW)
    app = build_app(root, actor="agent")
    head = git(root, "rev-parse", "HEAD")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        assert app.screen.check_action("move", ()) is None
        await pilot.press("m")
        await settle(pilot)
        assert type(app.screen).__name__ == "HistoryScreen"
    assert git(root, "rev-parse", "HEAD") == head
