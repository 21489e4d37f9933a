"""A dialog dims the dashboard under it; it does not blank it (issue 43)."""

from __future__ import annotations

from support.actions_support import Demo, dashboard, press_all
from support.apps import screen_text


async def test_the_dashboard_shows_through_under_a_dialog(demo: Demo) -> None:
    async with dashboard(demo, demo["hand-svg-logo"]) as (app, pilot):
        await press_all(pilot, "m")
        assert type(app.screen).__name__ == "MoveScreen"
        assert app.screen.styles.background.a < 1  # see-through
        text = screen_text(app)
        assert "Inbox" in text and "Needs you" in text  # the panes' titles, under the dialog
        await press_all(pilot, "escape", "question_mark")
        assert "Inbox" in screen_text(app)
