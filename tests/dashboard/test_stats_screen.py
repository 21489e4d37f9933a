"""The wait statistics screen (issue 16): opened from the palette, filled from the history in a
worker, and a snapshot on a store with a scripted history (fixed commit times, fixed `now`)."""

from __future__ import annotations

import re
from pathlib import Path

from support.stats_history import NOW, T0, scripted_store
from support.tui_helpers import build_app, screen_text, settle
from textual.pilot import Pilot
from textual.widgets import DataTable

from atk_tui.tui.app import AtkApp
from atk_tui.tui.screens.stats import StatsScreen


async def test_the_palette_opens_the_stats_with_the_waits(tmp_path: Path) -> None:
    root, _ = scripted_store(tmp_path)
    app = build_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(StatsScreen(since=T0, now=NOW))
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        text = screen_text(app)
        # questions by their titles, as the lists show them (issue 43), never their filenames
        assert "1 question waiting · oldest 3 d 22 h · answering “Q two” unblocks 1 item" in text
        assert ".md" not in text.split("Wait statistics")[1], text
        assert "3 answered · median wait 5 h · 90th percentile 1 d" in text
        assert "1 removed unanswered" in text
        # the chart has axes (issue 29: a bare sparkline said neither how many nor when)
        # (the dashboard shows, dimmed, around the screen: the chart is read from its own lines)
        chart = [m.group(0).rstrip(" │") for line in text.splitlines() if (m := re.search(r"\d+ ┤.*|└.*", line))]
        assert chart[0].startswith(f"{max(n for _, n in app.screen.stats.per_day)} ┤"), chart
        assert any(line.startswith("0 ┤") for line in chart) and any("└─" in line for line in chart), chart
        first, last = app.screen.stats.per_day[0][0], app.screen.stats.per_day[-1][0]
        assert re.search(rf"{first:%m-%d}\s.*{last:%m-%d}", text), text
        table = app.screen.query_one("#stats-open", DataTable)
        assert table.row_count == 1 and str(table.get_row_at(0)[3]) == "Q two"
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, StatsScreen)
        # and the palette has it
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Wait statistics")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)


def test_stats_screen_snapshot(snap_compare, tmp_path: Path) -> None:
    root, _ = scripted_store(tmp_path)

    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, AtkApp)
        await settle(pilot)
        app.push_screen(StatsScreen(since=T0, now=NOW))
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)

    assert snap_compare(build_app(root), terminal_size=(120, 36), run_before=run_before)
