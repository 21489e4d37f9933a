"""Toasts never cover the status line (issue 43): they stand above it and the footer."""

from __future__ import annotations

from pathlib import Path

from support.apps import build_app, settle
from textual.widgets import Static


async def test_a_toast_stands_above_the_status_line(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:  # (Pilot shows none by default)
        await settle(pilot)
        app.notify("a message long enough to be seen", timeout=30)
        app.notify("and a second one", severity="warning", timeout=30)
        await settle(pilot)
        status = app.main.query_one("#status", Static)
        toasts = list(app.screen.query("Toast"))
        assert len(toasts) == 2
        for toast in toasts:
            assert toast.region.bottom <= status.region.y, (toast.region, status.region)
