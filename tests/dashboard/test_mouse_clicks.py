"""A click selects the row under the pointer (SPEC §11), in every list: the three panes,
needs-you, history, the dependency editor and the graph. Clicked at several offsets: the
first row (right under a titled border), rows further down, a scrolled pane, and the border
itself (which selects nothing). The dependency editor and the graph: tests/graph/test_graph_clicks.py;
a real SGR mouse event in tmux: tests/dashboard/test_tmux_dashboard.py."""

from __future__ import annotations

from pathlib import Path

from support.tui_helpers import build_app, press, settle

from atk_tui.tui.screens.history import HistoryScreen
from atk_tui.tui.widgets.item_list import ItemList

SIZE = (120, 40)


async def click_rows(pilot, lst: ItemList, rows: list[int]) -> None:  # type: ignore[no-untyped-def]
    """Click each row (content line `row` of the list's visible window) and check the cursor
    lands exactly there."""
    top = lst.gutter.top + lst.header  # the titled border, then the column header
    for row in rows:
        await pilot.click(lst, offset=(lst.gutter.left + 8, top + row))
        await settle(pilot)
        expected = row + int(lst.scroll_offset.y)
        assert lst.cursor == expected, (lst.id, row, lst.cursor)


async def test_panes_select_the_clicked_row(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for pane in ("inbox", "processing", "hold", "needs"):
            lst = app.main.query_one(f"#{pane}", ItemList)
            count = min(len(lst.rows), lst.content_region.height - lst.header)
            assert count >= 2, pane
            rows = sorted({count - 1, 1, 0, count // 2})
            await click_rows(pilot, lst, [r for r in reversed(rows)])
            assert app.focused is lst
            # and the selection (the detail pane, the next key's target) is that row's item
            assert app.main.selected == lst.rows[lst.cursor].key
            # a click on the titled border selects nothing
            before = lst.cursor
            await pilot.click(lst, offset=(8, 0))
            await settle(pilot)
            assert lst.cursor == before
            # and neither does a click on the column header
            assert lst.header == 1
            await pilot.click(lst, offset=(8, lst.gutter.top))
            await settle(pilot)
            assert lst.cursor == before


async def test_a_scrolled_pane_selects_the_clicked_row(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        lst = app.main.query_one("#inbox", ItemList)
        assert len(lst.rows) > lst.content_region.height  # it scrolls
        lst.focus()
        await press(pilot, "end")
        assert lst.scroll_offset.y > 0
        await click_rows(pilot, lst, [0, 1, lst.content_region.height - lst.header - 1])


async def test_history_selects_the_clicked_row(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "H")
        assert isinstance(app.screen, HistoryScreen)
        lst = app.screen.query_one("#terminal", ItemList)
        assert len(lst.rows) >= 3
        await click_rows(pilot, lst, [2, 0, 1])
