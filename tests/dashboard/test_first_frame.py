"""Issue 14: the first frame composes what it shows, and what it does not show is made on first use.

The dashboard is the app's first screen (no blank screen under it); the filter's input, the
detail's sections, the read-only banner and the store-defects strip are made when they have
something to show, and then work as they did when they were composed hidden."""

from __future__ import annotations

from pathlib import Path

from support.apps import running
from support.tui_helpers import press, screen_text
from textual.widgets import Input

from atk_tui.tui.widgets.detail import DepTree

MADE_ON_FIRST_USE = ("#filter", "#banner", "#store-defects", "#detail-reasons", "#detail-questions", "#deps-tree", "#blocks-tree", "#detail-preview")


async def test_an_empty_store_composes_only_what_the_first_frame_shows(store: Path) -> None:
    async with running(store) as (app, pilot):
        assert app.screen_stack == [app.main]
        assert [w for sel in MADE_ON_FIRST_USE for w in app.main.query(sel)] == []
        assert "Select an item to see it here." in screen_text(app) or "Nothing selected." in screen_text(app)
        await press(pilot, "l")  # → from a list: the (hidden, empty) dependency tree is made, not focused
        assert isinstance(app.main.query_one("#deps-tree"), DepTree)
        assert not app.main.query_one("#deps-tree").display
        await press(pilot, "slash", *"abc")  # the input is made, focused, and gets the keys typed behind `/`
        assert app.main.query_one("#filter", Input).value == "abc"
        await press(pilot, "escape")
        assert not app.main.query("#filter.shown") and app.main.filter_text == ""


async def test_the_first_item_shown_makes_the_detail_sections(demo_store: Path) -> None:
    async with running(demo_store) as (app, _pilot):
        assert app.main.selected is not None
        assert app.main.query_one("#detail-preview").display  # the body shows
        assert not app.main.query("#filter") and not app.main.query("#banner")
