"""A theme picked in the command palette is remembered (issue 15 item 4)."""

from __future__ import annotations

import json
from pathlib import Path

from support.apps import running
from support.tui_helpers import press, settle
from test_config import config_app, notifications, write_config

from atk_tui.tui.state import state_path

SIZE = (120, 36)


async def test_a_theme_picked_in_the_palette_is_used_on_the_next_start(demo_store: Path) -> None:
    write_config('[tui]\ntheme = "nord"\n')
    async with running(config_app(demo_store), SIZE) as (app, pilot):
        assert app.theme == "nord"
        assert not state_path().exists()  # starting remembers nothing
        await press(pilot, "ctrl+p")
        await pilot.press(*"theme")
        await settle(pilot)
        await press(pilot, "enter")  # "Theme: change the current theme"
        await pilot.press(*"gruvbox")
        await settle(pilot)
        await press(pilot, "enter")
        assert app.theme == "gruvbox"
    assert json.loads(state_path().read_text())["theme"] == "gruvbox"
    again = config_app(demo_store)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.theme == "gruvbox"
        assert notifications(again) == []


async def test_a_bad_remembered_theme_is_reported_and_the_config_used(demo_store: Path) -> None:
    write_config('[tui]\ntheme = "nord"\n')
    state_path().write_text('{"theme": "gone"}')
    async with running(config_app(demo_store), SIZE) as (app, _pilot):
        assert app.theme == "nord"
        assert any("remembered theme 'gone' is unknown" in n for n in notifications(app))
