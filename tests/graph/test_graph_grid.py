"""The whole-queue graph of a store where most items link to nothing (issue 17): those items fill
a grid as wide as the screen under the linked ones, instead of one column hundreds of rows tall;
PageDown/PageUp move the focus (and the view) a screen at a time, Home/End to the first/last box."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from itertools import pairwise
from pathlib import Path

from support.apps import running
from support.graph_support import build_app, item_text, new_store, press, settle, write_items
from textual.pilot import Pilot

from atk_tui.graph import Layout
from atk_tui.tui.app import AtkApp
from atk_tui.tui.screens.graph import GraphScreen
from atk_tui.tui.widgets.graph_canvas import GraphCanvas

SIZE = (120, 40)
LONELY = 60


def lonely_store(tmp_path: Path, lonely: int = LONELY) -> tuple[Path, list[str], list[str]]:
    """A chain of three linked items and `lonely` items that link to nothing."""
    root = new_store(tmp_path)
    chain = [f"20261129-0500{i:02d}-chain-{i}.md" for i in range(3)]
    files = {
        ("inbox", chain[0]): item_text("Chain start"),
        ("inbox", chain[1]): item_text("Chain middle", deps=[chain[0]]),
        ("inbox", chain[2]): item_text("Chain end", deps=[chain[1]]),
    }
    names = [f"20261129-06{i // 60:02d}{i % 60:02d}-lonely-{i:02d}.md" for i in range(lonely)]
    for i, name in enumerate(names):
        files[("inbox", name)] = item_text(f"Lonely item {i:02d}")
    write_items(root, files)
    return root, chain, names


@asynccontextmanager
async def whole_queue(tmp_path: Path, lonely: int = LONELY) -> AsyncIterator[tuple[Pilot, GraphCanvas, Layout, list[str], list[str]]]:
    """The whole-queue graph of `lonely_store`, laid out: (pilot, canvas, layout, chain, lonely)."""
    root, chain, names = lonely_store(tmp_path, lonely)
    async with running(root, SIZE) as (_app, pilot):
        cv = await whole_graph(pilot)
        assert cv.layout_ is not None
        yield pilot, cv, cv.layout_, chain, names


async def whole_graph(pilot: Pilot) -> GraphCanvas:
    app = pilot.app
    assert isinstance(app, AtkApp)
    await settle(pilot)
    app.push_screen(GraphScreen(None))  # `v` with nothing selected: the whole queue
    await settle(pilot)
    return app.screen.query_one(GraphCanvas)


async def test_items_without_links_fill_the_width_under_the_linked_ones(tmp_path: Path) -> None:
    async with whole_queue(tmp_path) as (_pilot, cv, layout, chain, lonely):
        assert set(layout.nodes) == {*chain, *lonely}
        boxes = layout.nodes
        per_row = len(layout.grid)
        assert per_row > 1 and sum(len(col) for col in layout.grid) == LONELY
        # as many boxes a row as the screen holds: the grid needs no sideways scrolling
        assert all(boxes[n].x + boxes[n].w <= cv.scrollable_content_region.width for n in lonely)
        assert (per_row + 1) * (boxes[lonely[0]].w + 2) > SIZE[0] - 1
        assert min(boxes[n].y for n in lonely) > max(boxes[n].y + boxes[n].h for n in chain)
        rows = -(-LONELY // per_row)
        assert layout.height <= max(boxes[n].y + boxes[n].h for n in chain) + rows * (boxes[lonely[0]].h + 1)


async def test_page_keys_move_a_screen_and_home_end_to_the_ends(tmp_path: Path) -> None:
    async with whole_queue(tmp_path, 200) as (pilot, cv, layout, chain, lonely):
        boxes = layout.nodes
        height = cv.scrollable_content_region.height
        await press(pilot, "home")
        assert cv.focused_node == chain[0] and cv.scroll_offset.y == 0

        ys = [boxes[cv.focused_node].y]
        for _ in range(3):
            await press(pilot, "pagedown")
            ys.append(boxes[cv.focused_node].y)
        steps = [b - a for a, b in pairwise(ys)]
        row = boxes[lonely[0]].h + 1
        assert all(height - row < s <= height + row for s in steps), (steps, height)  # a screen, not a few rows
        focused = boxes[cv.focused_node]
        assert cv.scroll_offset.y <= focused.y and focused.y + focused.h <= cv.scroll_offset.y + height  # in view

        await press(pilot, "pageup")
        assert ys[-1] - boxes[cv.focused_node].y > height - row

        await press(pilot, "end")
        assert cv.focused_node == lonely[-1]  # the grid's last item, in reading order
        assert cv.scroll_offset.y + height >= layout.height - 1
        await press(pilot, "pagedown")  # nothing further down: stays
        assert cv.focused_node == lonely[-1]
        await press(pilot, "home")
        assert cv.focused_node == chain[0] and cv.scroll_offset.y == 0


async def test_arrows_walk_the_grid_and_back_into_the_drawing(tmp_path: Path) -> None:
    async with whole_queue(tmp_path, 12) as (pilot, cv, layout, chain, lonely):
        per_row = len(layout.grid)
        assert cv.focus_node(chain[0])
        await press(pilot, "down")
        assert cv.focused_node == lonely[0]
        await press(pilot, "right")
        assert cv.focused_node == lonely[1]
        await press(pilot, "down")
        assert cv.focused_node == lonely[1 + per_row]
        await press(pilot, "up", "up")
        assert cv.focused_node in chain


async def test_a_narrower_screen_lays_the_grid_out_again(tmp_path: Path) -> None:
    async with whole_queue(tmp_path, 30) as (pilot, cv, layout, _chain, lonely):
        wide = len(layout.grid)
        await pilot.resize_terminal(70, 40)
        await settle(pilot)
        narrow = cv.layout_
        assert len(narrow.grid) < wide
        assert all(narrow.nodes[n].x + narrow.nodes[n].w <= 69 for n in lonely)


def test_whole_queue_grid_snapshot(snap_compare, tmp_path: Path) -> None:
    """120x40: the chain on top, the items without links in rows under it."""
    root, _chain, _lonely = lonely_store(tmp_path, lonely=16)

    async def run_before(pilot: Pilot) -> None:
        await whole_graph(pilot)
        await press(pilot, "home")

    assert snap_compare(build_app(root), terminal_size=SIZE, run_before=run_before)
