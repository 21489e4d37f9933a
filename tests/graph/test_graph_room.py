"""The graph uses the room across the screen (issue 29): titles were cut at 20 cells on a
160-column screen with most of it empty."""

from __future__ import annotations

from pathlib import Path

from support.apps import DEMO, running, screen_text, settle, wait_for_screen


async def test_graph_titles_use_the_width_there_is(demo_store: Path) -> None:
    async with running(demo_store, (160, 40)) as (app, pilot):
        assert app.main.jump_to(DEMO["chain-2"])
        await settle(pilot)
        await pilot.press("v")
        await wait_for_screen(pilot, "GraphScreen")
        await settle(pilot)
        shown = screen_text(app)
    # the chain's titles, longer than the 20 cells a box had: cut later, or not at all
    assert "セッション期限切れ時にログイ" in shown, shown
    assert "ログインセッションをサーバー" in shown, shown
