"""Narrow terminals (issue 15: gh-dash's bottom preview): below 100 columns the detail shows
under the lists, full width, at a height the selection never changes; the pane last focused is
expanded and the others keep their title line (name and count); `i` or `[tui] narrow_preview =
"off"` bring back the detail in place of the lists (`l` / `h`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import region_text, running, wait_for_text
from support.tui_helpers import build_app, press, screen_text, settle
from test_tui_config import config_app, notifications, write_config
from textual.widget import Widget

from atk_tui.tui.app import AtkApp
from atk_tui.tui.config import TuiConfig, load_tui_config
from atk_tui.tui.keymap import binding_ids, checked_keymap
from atk_tui.tui.widgets.detail import DepTree
from atk_tui.tui.widgets.item_list import ItemList

PANES = ("inbox", "processing", "hold")
TITLES = {"inbox": "Inbox", "processing": "Processing", "hold": "Hold"}


def detail(app: AtkApp) -> Widget:
    return app.main.query_one("#detail")


def lists(app: AtkApp) -> Widget:
    return app.main.query_one("#panes")


def selected_title(app: AtkApp) -> str:
    item = app.main.current_item()
    assert item is not None
    return item.title


def assert_bottom_preview(app: AtkApp, width: int) -> None:
    """The detail under the lists, both full width, the selected item's title in it."""
    d, p = detail(app), lists(app)
    assert d.display and p.display
    assert d.region.width == width and p.region.width == width
    assert d.region.y >= p.region.bottom  # under the lists
    assert selected_title(app)[:12] in region_text(app, d.region)


def assert_every_count_shown(app: AtkApp) -> None:
    text = screen_text(app)
    for pane in PANES:
        lst = app.main.query_one(f"#{pane}", ItemList)
        assert lst.region.height >= 1
        assert f"{TITLES[pane]} {len(lst.rows)}" in text, pane


@pytest.mark.parametrize("size", [(80, 24), (99, 30)], ids=["80x24", "99x30"])
async def test_the_detail_shows_under_the_lists_and_follows_the_cursor(demo_store: Path, size: tuple[int, int]) -> None:
    async with running(demo_store, size) as (app, pilot):
        assert_bottom_preview(app, size[0])
        assert_every_count_shown(app)
        height = detail(app).region.height
        assert height >= 4
        seen = {app.main.selected}
        for _ in range(5):  # items with and without questions, dependencies, long bodies
            await press(pilot, "j")
            seen.add(app.main.selected)
            assert_bottom_preview(app, size[0])
            assert detail(app).region.height == height  # the selection never resizes it
        assert len(seen) == 6
        # the filename whole, not broken mid-word
        assert f"file {app.main.selected}" in region_text(app, detail(app).region)


async def test_only_the_pane_last_focused_is_expanded(demo_store: Path) -> None:
    async with running(demo_store, (80, 24)) as (app, pilot):
        panes = {p: app.main.query_one(f"#{p}", ItemList) for p in PANES}
        assert panes["inbox"].region.height > 3
        assert panes["processing"].region.height == panes["hold"].region.height == 1
        for key, pane in (("2", "processing"), ("3", "hold"), ("n", "needs"), ("tab", "inbox")):
            await press(pilot, key)
            assert app.main.focused is app.main.query_one(f"#{pane}", ItemList)
            expanded = pane if pane != "needs" else "hold"  # needs-you keeps the last pane open
            for p, lst in panes.items():
                assert (lst.region.height > 1) == (p == expanded), (key, p)
            assert_every_count_shown(app)
            assert_bottom_preview(app, 80)
        # the focused pane shows its rows under the cursor
        await press(pilot, "3", "j")
        hold = panes["hold"]
        assert app.main.selected == hold.current_key
        assert selected_title(app)[:12] in region_text(app, hold.region)


async def test_a_click_on_a_collapsed_title_opens_that_pane(demo_store: Path) -> None:
    async with running(demo_store, (80, 24)) as (app, pilot):
        processing = app.main.query_one("#processing", ItemList)
        await pilot.click(offset=(10, processing.region.y))
        await settle(pilot)
        assert app.main.focused is processing
        assert processing.region.height > 1


async def test_l_focuses_the_detail_which_scrolls_and_h_comes_back(demo_store: Path) -> None:
    async with running(demo_store, (80, 24)) as (app, pilot):
        d = detail(app)
        await press(pilot, "l")
        assert app.main.focused is d
        assert lists(app).display and lists(app).region.height > 0  # the lists stay in view
        assert d.max_scroll_y > 0
        await press(pilot, "pagedown")
        assert d.scroll_y > 0
        top = d.scroll_y
        await press(pilot, "k")  # j/k scroll it as the arrows do
        assert d.scroll_y == top - 1
        await press(pilot, "j")
        assert d.scroll_y == top
        await press(pilot, "l")  # further in: the dependency tree
        assert isinstance(app.main.focused, DepTree)
        await press(pilot, "h")
        assert app.main.focused is app.main.query_one("#inbox", ItemList)
        await press(pilot, "right", "left")
        assert app.main.focused is app.main.query_one("#inbox", ItemList)
        await press(pilot, "j")  # another item: its detail from the top
        assert_bottom_preview(app, 80)


async def test_i_toggles_the_bottom_preview(demo_store: Path) -> None:
    async with running(demo_store, (80, 24)) as (app, pilot):
        await press(pilot, "i")
        assert_detail_in_place_of_the_lists(app)
        await press(pilot, "i")
        assert_bottom_preview(app, 80)


async def test_the_command_palette_toggles_it_too(demo_store: Path) -> None:
    async with running(demo_store, (80, 24)) as (app, pilot):
        await press(pilot, "ctrl+p", *"Bottom preview")
        assert "Bottom preview" in await wait_for_text(pilot, "Bottom preview")
        await press(pilot, "enter")
        assert app.screen is app.main
        assert_detail_in_place_of_the_lists(app)


def assert_detail_in_place_of_the_lists(app: AtkApp) -> None:
    """The "off" layout: the lists full width and height, the detail hidden until `l`."""
    d, p = detail(app), lists(app)
    assert not d.display or d.region.width == 0
    assert p.region.width == 80
    for pane in PANES:  # every pane full size again, none collapsed to its title
        assert app.main.query_one(f"#{pane}", ItemList).region.height > 1


async def test_config_off_keeps_the_detail_in_place_of_the_lists(demo_store: Path) -> None:
    app = build_app(demo_store, config=TuiConfig(narrow_preview="off"))
    async with running(app, (80, 24)) as (app, pilot):
        assert_detail_in_place_of_the_lists(app)
        await press(pilot, "l")
        assert isinstance(app.main.focused, DepTree)
        assert detail(app).region.width == 80 and lists(app).region.width == 0
        await press(pilot, "i")  # the bottom preview on, the focus still in the detail
        assert_bottom_preview(app, 80)
        await press(pilot, "h")
        assert app.main.focused is app.main.query_one("#inbox", ItemList)


async def test_resizing_across_the_threshold_both_ways(demo_store: Path) -> None:
    async with running(demo_store, (120, 36)) as (app, pilot):
        d, p = detail(app), lists(app)
        assert d.region.x >= p.region.right and d.region.y == p.region.y  # side by side
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert_bottom_preview(app, 80)
        await press(pilot, "j")
        assert_bottom_preview(app, 80)
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert d.region.x >= p.region.right and d.region.y == p.region.y
        assert selected_title(app)[:12] in region_text(app, d.region)
        for pane in PANES:  # the wide layout shows every pane's rows again
            assert app.main.query_one(f"#{pane}", ItemList).region.height > 2
        await pilot.resize_terminal(99, 30)
        await settle(pilot)
        assert_bottom_preview(app, 99)


async def test_the_filter_takes_one_line_in_the_bottom_preview(demo_store: Path) -> None:
    async with running(demo_store, (80, 24)) as (app, pilot):
        await press(pilot, "slash", *"session", "enter")
        flt = app.main.query_one("#filter")
        assert flt.region.height == 1
        inbox = app.main.query_one("#inbox", ItemList)
        assert inbox.content_region.height >= 3  # the header and rows still show
        assert_bottom_preview(app, 80)


# -- config ------------------------------------------------------------------------------------


def test_narrow_preview_is_read_and_a_bad_value_names_the_valid_ones() -> None:
    write_config('[tui]\nnarrow_preview = "off"\n')
    cfg = load_tui_config()
    assert cfg.narrow_preview == "off" and cfg.errors == []
    write_config('[tui]\nnarrow_preview = "right"\n')
    cfg = load_tui_config()
    assert cfg.narrow_preview == "bottom"
    assert cfg.errors == ["config: narrow_preview must be one of bottom, off, got 'right'"]


async def test_a_bad_narrow_preview_is_said_in_the_app(demo_store: Path) -> None:
    write_config('[tui]\nnarrow_preview = 3\n')
    async with running(config_app(demo_store), (80, 24)) as (app, _pilot):
        assert any("narrow_preview must be one of bottom, off" in n for n in notifications(app))
        assert_bottom_preview(app, 80)


def test_i_is_taken_a_remap_onto_it_is_refused() -> None:
    ok, errors = checked_keymap({"sort": "i"}, binding_ids())
    assert ok == {}
    assert any("'preview'" in e for e in errors), errors
    ok, errors = checked_keymap({"preview": "o"}, binding_ids())
    assert ok == {"preview": "o"} and errors == []
