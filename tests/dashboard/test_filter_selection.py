"""The filter and the selection (issue 17): the detail pane never shows an item the filter (or a
refresh) has taken out of the panes, and keys typed right after Enter act on the narrowed list."""

from __future__ import annotations

from pathlib import Path

from support.actions_support import burst, dashboard
from support.apps import DEMO, settle
from support.tui_helpers import keys_of_pane, press
from textual.widgets import Input, Static

from atk_tui.service import Service
from atk_tui.tui.app import AtkApp
from atk_tui.tui.widgets.detail import DetailPane
from atk_tui.tui.widgets.item_list import ItemList


def shown(app: AtkApp) -> str | None:
    """The item the detail pane shows (None: its empty state)."""
    item = app.main.query_one(DetailPane).item
    return item.filename if item is not None else None


def detail_message(app: AtkApp) -> str:
    return str(app.main.query_one("#detail-meta", Static).content)


def status_line(app: AtkApp) -> str:
    return str(app.main.query_one("#status", Static).content)


def inbox(app: AtkApp) -> ItemList:
    return app.main.query_one("#inbox", ItemList)


async def test_the_detail_follows_the_highlighted_row_when_the_filter_hides_the_shown_item(demo) -> None:
    async with dashboard(demo, selected=DEMO["comment"]) as (app, pilot):
        assert shown(app) == DEMO["comment"]
        await press(pilot, "slash", *"redis")
        assert keys_of_pane(app, "inbox") == [DEMO["chain-uwi"]]
        assert app.main.selected == DEMO["chain-uwi"] == inbox(app).current_key
        assert shown(app) == DEMO["chain-uwi"]

        # the filter removed while the shown item stays: it stays selected
        await press(pilot, "escape")
        assert shown(app) == app.main.selected == DEMO["chain-uwi"] == inbox(app).current_key


async def test_nothing_left_in_the_pane_shows_an_empty_state_with_the_hidden_count(demo) -> None:
    async with dashboard(demo, selected=DEMO["comment"]) as (app, pilot):
        total = len(keys_of_pane(app, "inbox"))
        await press(pilot, "slash", *"zqxjv")
        assert keys_of_pane(app, "inbox") == []
        assert app.main.selected is None and shown(app) is None
        assert f"no item selected — {total} hidden by the filter" in detail_message(app)

        # typing on to a match: the detail shows the row the pane highlights again
        await press(pilot, *["backspace"] * 5, *"redis")
        assert shown(app) == app.main.selected == DEMO["chain-uwi"]


async def test_an_item_moved_elsewhere_is_not_kept_in_the_detail(demo, demo_store: Path) -> None:
    """A refresh that takes the shown item out of its pane (an agent started it) while the focus
    is in the detail pane's trees: the selection follows the pane's highlighted row instead of
    keeping the item the pane no longer lists."""
    async with dashboard(demo, selected=DEMO["comment"]) as (app, pilot):
        await press(pilot, "right")  # into the detail pane
        assert app.focused is not inbox(app)
        out = Service(demo_store, actor="agent").writes.transition_command("start-processing", [DEMO["comment"]])
        assert out.ok, out.message
        app.reload()
        await settle(pilot)
        assert DEMO["comment"] in keys_of_pane(app, "processing")
        assert app.main.selected == inbox(app).current_key != DEMO["comment"]
        assert shown(app) == app.main.selected
        await press(pilot, "left")  # back on the list: on the row the detail shows
        assert app.focused is inbox(app) and app.main.selected == inbox(app).current_key == shown(app)


async def test_space_right_after_enter_marks_the_highlighted_row_of_the_narrowed_pane(demo) -> None:
    """`/`, a filter, Enter, Space all queued at once (a fast typist): the Space belongs to the
    pane the Enter returned to, and marks its highlighted row; it is not typed into the filter."""
    async with dashboard(demo) as (app, pilot):
        burst(pilot, "slash", *"redis", "enter", "space")
        await settle(pilot)
        assert app.main.query_one("#filter", Input).value == "redis"
        assert app.focused is inbox(app)
        assert inbox(app).marked == {DEMO["chain-uwi"]}
        assert app.main.marked() == [DEMO["chain-uwi"]]
        # the status line says so, after the filter's own redraw (the typed text, debounced)
        assert status_line(app).startswith("1 marked:")


async def test_the_marks_stay_in_the_status_line_through_a_refresh(demo) -> None:
    """A refresh redraws the status line: with items marked it keeps saying how many, and what
    to do with them (a status line back to "store … sort …" looked like nothing was marked)."""
    async with dashboard(demo) as (app, pilot):
        await press(pilot, "space", "space")
        assert status_line(app).startswith("2 marked:")
        app.reload()
        await settle(pilot)
        assert status_line(app).startswith("2 marked:")
        await press(pilot, "escape")
        assert app.main.marked() == [] and status_line(app).startswith("store ")


async def test_space_after_enter_one_key_at_a_time_marks_the_row(demo) -> None:
    async with dashboard(demo) as (app, pilot):
        await press(pilot, "slash", *"acme/docs", "enter", "space")
        first = keys_of_pane(app, "inbox")[0]
        assert app.main.marked() == [first]


async def test_needs_you_says_how_many_the_filter_hides(demo_store: Path) -> None:
    from support.apps import running

    from atk_tui.tui.widgets.item_list import ItemList

    async with running(demo_store, (160, 48)) as (app, pilot):
        needs = app.main.query_one("#needs", ItemList)
        waiting = len(needs.rows)
        assert waiting > 0
        await press(pilot, "slash", *"zzzznomatch")
        await settle(pilot)
        assert needs.rows == []
        assert needs.empty_text == f"{waiting} waiting, hidden by the filter (Esc clears it)"
        assert needs.border_title == f"Needs you 0/{waiting}"
        assert "Nothing needs you" not in needs.empty_text


async def test_a_mistyped_token_says_so_with_the_nearest_one_and_the_box_has_a_label(demo) -> None:
    """Issue 43: `is:bloked` matched nothing and said nothing; the filter box had no label."""
    from support.apps import screen_text

    async with dashboard(demo) as (app, pilot):
        await press(pilot, "slash", *"is:bloked", "enter")
        text = screen_text(app)
        assert "is:bloked is not a filter: did you mean is:blocked?" in text
        inbox = app.main.query_one("#inbox", ItemList)
        assert inbox.empty_text.startswith("no match: is:bloked is not a filter")
        assert str(app.main.query_one("#filter", Input).border_title) == "Filter"
        assert "Filter" in text
