"""A click selects the option or node under the pointer in the dependency editor and the graph
(SPEC §11; the panes are in tests/dashboard/test_mouse_clicks.py)."""

from __future__ import annotations

from pathlib import Path

from support.graph_support import DEMO, SIZE, build_app, graph_of, press, settle
from textual.widgets import OptionList

from atk_tui.tui.modals.dependencies import DependenciesScreen
from atk_tui.tui.screens.graph import GraphScreen
from atk_tui.tui.widgets.graph_canvas import GraphCanvas


async def test_dependency_editor_selects_the_clicked_option(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main.jump_to(DEMO["hand-svg-logo"])
        await settle(pilot)
        await press(pilot, "d")
        editor = app.screen
        assert isinstance(editor, DependenciesScreen)
        await pilot.press(*"session")
        await settle(pilot)
        results = editor.query_one("#deps-results", OptionList)
        assert results.option_count >= 3
        # an option may take two lines (long titles wrap): click each line of options 2 and 0
        lines = list(results._lines)  # (option index, line within it) per content line
        for index in (2, 0):
            wanted = results.get_option_at_index(index).id
            for y, (at, _) in enumerate(lines):
                if at != index:
                    continue
                await pilot.click(results, offset=(results.gutter.left + 4, results.gutter.top + y - int(results.scroll_offset.y)))
                await settle(pilot)
                # the option clicked is the one added, not its neighbour
                assert editor.deps[-1] == wanted, (index, y, editor.deps)
        assert len(editor.deps) == 2


async def test_graph_selects_the_clicked_node(demo_store: Path) -> None:
    async with graph_of(demo_store, DEMO["chain-uwi"]) as (app, pilot):
        assert isinstance(app.screen, GraphScreen)
        cv = app.screen.query_one(GraphCanvas)
        layout = cv.layout_
        assert layout is not None and len(layout.nodes) >= 3
        for node, box in sorted(layout.nodes.items(), key=lambda kv: -kv[1].y):
            # the box's top-left inner cell, and its bottom-right inner cell
            for bx, by in ((box.x + 1, box.y + 1), (box.x + box.w - 2, box.y + box.h - 2)):
                x = bx - int(cv.scroll_offset.x) + cv.gutter.left
                y = by - int(cv.scroll_offset.y) + cv.gutter.top
                await pilot.click(cv, offset=(x, y))
                await settle(pilot)
                assert cv.focused_node == node, (node, bx, by)
