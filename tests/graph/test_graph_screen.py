"""The dependency graph screen (`g`): snapshots of each shape at 120x40, and Pilot tests of the
navigation, the toggles and the jump back to the dashboard.

Snapshots are deterministic: the stores are built for a fixed `NOW` (filenames come from the
frozen or stepping clock, or are written literally), the theme is explicit, the watcher is off,
the graph screen shows no store path, and every step waits for the app to settle.
Update with `pytest tests/graph --snapshot-update` only after reading the report.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from support.apps import make_recorded
from support.graph_support import (
    DEMO,
    MISSING,
    SIZE,
    add,
    build_app,
    chain_store,
    cross_repo_store,
    cycle_store,
    diamond_store,
    fifty_store,
    git,
    graph_of,
    item_text,
    missing_store,
    new_store,
    press,
    screen_text,
    service,
    settle,
    write_items,
)
from textual.pilot import Pilot
from textual.widgets import Static

from atk_tui.graph import layout_graph
from atk_tui.tui.app import AtkApp
from atk_tui.tui.screens import graph as graph_module
from atk_tui.tui.screens.graph import GraphScreen, build_graph
from atk_tui.tui.screens.main import MainScreen
from atk_tui.tui.widgets.graph_canvas import GraphCanvas


def open_graph(center: str | None, *keys: str) -> Callable[[Pilot], object]:
    """A `run_before`: settle, select `center` in the dashboard, press g, then `keys`."""

    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, AtkApp)
        await settle(pilot)
        if center is not None:
            assert app.main.jump_to(center)
            await settle(pilot)
        await press(pilot, "v", *keys)

    return run_before


def graph_screen(app: AtkApp) -> GraphScreen:
    screen = app.screen
    assert isinstance(screen, GraphScreen)
    return screen


def canvas(app: AtkApp) -> GraphCanvas:
    return graph_screen(app).query_one(GraphCanvas)


def cycles_line(app: AtkApp) -> str:
    static = graph_screen(app).query_one("#graph-cycles", Static)
    return static.content.plain if static.display and static.has_class("shown") else ""


# -- snapshots --------------------------------------------------------------------------------


def test_chain(snap_compare, tmp_path: Path) -> None:
    """A chain with a done dependency at its start; the cursor moved one step right."""
    root, names = chain_store(tmp_path)
    assert snap_compare(build_app(root), terminal_size=SIZE, run_before=open_graph(names[2], "right"))


def test_diamond(snap_compare, tmp_path: Path) -> None:
    root, names = diamond_store(tmp_path)
    assert snap_compare(build_app(root), terminal_size=SIZE, run_before=open_graph(names[0]))


def test_cycle(snap_compare, tmp_path: Path) -> None:
    """Cycle edges in the error colour, every cycle named above the canvas, a self-loop."""
    root, _names = cycle_store(tmp_path)
    assert snap_compare(build_app(root), terminal_size=SIZE, run_before=open_graph(None))


def test_missing_dependency(snap_compare, tmp_path: Path) -> None:
    root, names = missing_store(tmp_path)
    assert snap_compare(build_app(root), terminal_size=SIZE, run_before=open_graph(names[1]))


def test_cross_repo(snap_compare, tmp_path: Path) -> None:
    """Items of another repo than the centre's show their repo on a second line."""
    root, names = cross_repo_store(tmp_path)
    assert snap_compare(build_app(root), terminal_size=SIZE, run_before=open_graph(names[3]))


def test_fifty_nodes(snap_compare, tmp_path: Path) -> None:
    """50 items around the root: readable at 120x40, the rest scrolls."""
    root, names = fifty_store(tmp_path)
    assert snap_compare(build_app(root), terminal_size=SIZE, run_before=open_graph(names[0], "right", "down"))


# -- behaviour ---------------------------------------------------------------------------------


async def test_demo_chain_uwi_to_an_item_it_blocks(demo_store: Path) -> None:
    """Select the blocking UWI, open the graph, go right to what it blocks, Enter: the dashboard
    selects that item."""
    async with graph_of(demo_store, DEMO["chain-uwi"]) as (app, pilot):
        assert canvas(app).focused_node == DEMO["chain-uwi"]
        layout = canvas(app).layout_
        assert layout is not None
        assert set(layout.nodes) == {DEMO[k] for k in ("chain-uwi", "chain-1", "chain-2", "chain-3")}
        await press(pilot, "right")
        assert canvas(app).focused_node == DEMO["chain-1"]
        assert DEMO["chain-1"] in layout.dependents[DEMO["chain-uwi"]]
        await press(pilot, "enter")
        assert isinstance(app.screen, MainScreen)
        assert app.main.selected == DEMO["chain-1"]
        assert app.focused is not None and app.focused.id == "inbox"


async def test_arrows_follow_edges_and_columns(tmp_path: Path) -> None:
    root, (a, b, c, d) = diamond_store(tmp_path)
    async with graph_of(root, a) as (app, pilot):
        cv = canvas(app)
        assert cv.focused_node == a
        await press(pilot, "left")  # nothing on the left: stays
        assert cv.focused_node == a
        await press(pilot, "right")
        first = cv.focused_node
        assert first in (b, c)
        await press(pilot, "down")
        second = cv.focused_node
        assert {first, second} == {b, c}
        await press(pilot, "up")
        assert cv.focused_node == first
        await press(pilot, "right")
        assert cv.focused_node == d
        await press(pilot, "left")
        assert cv.focused_node in (b, c)
        info = screen_text(app)
        assert "depends on 1, blocks 1" in info


async def test_whole_queue_toggle_and_centre(tmp_path: Path) -> None:
    root, (a, b, c, d) = diamond_store(tmp_path)
    svc = service(root)
    lone = add(svc, "Unrelated item")
    async with graph_of(root, b) as (app, pilot):
        screen = graph_screen(app)
        assert set(canvas(app).layout_.nodes) == {a, b, d}  # c is neither a dependency nor a dependent of b
        await press(pilot, "w")
        assert screen.whole
        assert set(canvas(app).layout_.nodes) == {a, b, c, d, lone}
        assert canvas(app).focused_node == b  # the cursor stays
        assert "Whole active queue" in screen_text(app)
        await press(pilot, "down")
        await press(pilot, "c")  # centre the graph on the focused item
        assert not screen.whole and screen.center == canvas(app).focused_node
        await press(pilot, "escape")
        assert isinstance(app.screen, MainScreen)


async def test_done_dependencies_toggle(tmp_path: Path) -> None:
    root, (done, _a, b, _c, _d) = chain_store(tmp_path)
    async with graph_of(root, b) as (app, pilot):
        nodes = canvas(app).layout_.nodes
        assert done in nodes
        assert "Old groundwork" in screen_text(app)  # the done item's title was read from the store
        await press(pilot, "t")
        assert done not in canvas(app).layout_.nodes
        assert "1 done hidden" in screen_text(app)
        await press(pilot, "t")
        assert done in canvas(app).layout_.nodes


async def test_enter_on_missing_or_done_node_stays(tmp_path: Path) -> None:
    root, (login, _signup, missing) = missing_store(tmp_path)
    write_items(root, {("adopted", "20261120-090000-finished.md"): item_text("Finished")})
    git_deps = item_text("Login endpoint", deps=[missing, "20261120-090000-finished.md"])
    write_items(root, {("inbox", login): git_deps})
    async with graph_of(root, login) as (app, pilot):
        cv = canvas(app)
        layout = cv.layout_
        assert missing in layout.placeholders
        for node in (missing, "20261120-090000-finished.md"):
            cv.focus_node(node)
            await press(pilot, "enter")
            assert isinstance(app.screen, GraphScreen)
        messages = [m for m, _ in app.notes]
        assert any("missing dependency" in m for m in messages)
        assert any("is adopted" in m for m in messages)


async def test_cycles_are_named(tmp_path: Path) -> None:
    root, (split, invoice, tax, _selfref, docs) = cycle_store(tmp_path)
    async with graph_of(root, docs) as (app, pilot):
        # titles, as the lists show them, not filenames (issue 43)
        split_t, invoice_t, tax_t = "“Split billing interface”", "“Move invoice PDF”", "“Tax report”"
        assert cycles_line(app) == (
            f"2 cycles: {split_t} -> {invoice_t} -> {tax_t} -> {split_t}  ·  {invoice_t} -> {tax_t} -> {invoice_t}"
        )
        assert split not in cycles_line(app)
        layout = canvas(app).layout_
        assert all(e.cycle for e in layout.edges if {e.source, e.target} <= {split, invoice, tax})
        assert not any(e.cycle for e in layout.edges if e.target == docs)
        # the self-dependency is not connected to docs: the whole queue shows it
        await press(pilot, "w")
        assert cycles_line(app).startswith("3 cycles: ")
        assert cycles_line(app).endswith("  ·  “Refers to itself” -> “Refers to itself”")


async def test_labels_are_never_markup(tmp_path: Path) -> None:
    root = new_store(tmp_path)
    hostile = "[bold red]x[/] [$accent]y \x1b[31mred"
    base = "20261129-050000-base.md"
    user = "20261129-050100-user.md"
    write_items(root, {("inbox", base): item_text(hostile), ("inbox", user): item_text("User", deps=[base])})
    async with graph_of(root, base) as (app, _pilot):
        text = screen_text(app)
        assert "[bold red]x[/]" in text  # in the info line, whole
        assert "\x1b" not in text and "\\x1b[31m" in text
        assert "✗ [bold red]x[/]" in text or "? [bold red]x[/]" in text or "✓ [bold red]x[/]" in text


async def test_light_theme_draws(tmp_path: Path) -> None:
    root, _names = cycle_store(tmp_path)
    app = build_app(root, theme="textual-light")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "v")
        cv = canvas(app)
        edge = cv.style_for("edge-cycle")
        assert edge.color is not None and edge.bold
        app.theme = "textual-dark"
        await settle(pilot)
        assert cv.style_for("edge-cycle").color != edge.color
        assert "cycle" in screen_text(app)


async def test_only_visible_rows_are_rendered(tmp_path: Path) -> None:
    """The canvas is a line-API widget: a graph taller than the screen renders its visible rows."""
    root, names = fifty_store(tmp_path)
    async with graph_of(root, names[0]) as (app, pilot):
        cv = canvas(app)
        assert cv.layout_ is not None and len(cv.layout_.nodes) == 50
        assert cv.layout_.height > cv.size.height
        assert len(cv._strips) < cv.layout_.height  # (the first frame may come before the centring)
        cv._strips.clear()
        cv.refresh()
        await settle(pilot)
        assert 0 < len(cv._strips) <= cv.size.height
        # keep going down the last column: the view follows the cursor
        await press(pilot, *["right"] * 5)
        for _ in range(12):
            await press(pilot, "down")
            box = cv.layout_.nodes[cv.focused_node]
            top = int(cv.scroll_offset.y)
            assert top <= box.y and box.y + box.h <= top + cv.scrollable_content_region.height


async def test_laying_out_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a big graph is laid out (in a thread), the canvas says so; the UI stays live."""
    root, names = fifty_store(tmp_path)
    release = threading.Event()

    def slow_layout(*args: object, **kw: object) -> object:
        release.wait(10)
        return layout_graph(*args, **kw)

    monkeypatch.setattr(graph_module, "layout_graph", slow_layout)
    monkeypatch.setattr(graph_module, "PROGRESS_NODES", 10)
    monkeypatch.setattr(graph_module, "SYNC_NODES", 0)
    app = build_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.jump_to(names[0])
        await pilot.press("v")
        for _ in range(500):
            await pilot.pause(0.01)
            if isinstance(app.screen, GraphScreen) and canvas(app).message == "laying out 50 items…":
                break
        assert canvas(app).message == "laying out 50 items…" and canvas(app).layout_ is None
        assert "laying out 50 items…" in screen_text(app)
        release.set()
        await settle(pilot)
        assert canvas(app).layout_ is not None and canvas(app).message == ""


async def test_graph_follows_a_new_queue(tmp_path: Path) -> None:
    root, (a, _b, _c, d) = diamond_store(tmp_path)
    async with graph_of(root, a) as (app, pilot):
        svc = service(root)
        e = add(svc, "Another dependent", deps=(d,))
        app.reload()
        await settle(pilot)
        assert e in canvas(app).layout_.nodes


async def test_edit_dependencies_from_the_graph(tmp_path: Path) -> None:
    root, (_a, b, c, _d) = diamond_store(tmp_path)
    async with graph_of(root, b) as (app, pilot):
        assert c not in canvas(app).layout_.nodes
        await press(pilot, "d")
        await pilot.press(*"background")
        await settle(pilot)
        await press(pilot, "enter", "ctrl+s")
        assert isinstance(app.screen, GraphScreen)
        layout = canvas(app).layout_
        assert c in layout.nodes and c in layout.deps[b]
        assert canvas(app).focused_node == b
        assert git(root, "log", "-1", "--format=%s").strip() == f"atk: set-dependencies {b}"


def test_build_graph_statuses_and_repos(tmp_path: Path) -> None:
    root, (infra, api, lib, web) = cross_repo_store(tmp_path)
    view = service(root).queue()
    model = build_graph(view, web)
    by_id = {n.id: n for n in model.nodes}
    assert by_id[infra].repo == "acme/infra" and by_id[api].repo == "acme/api"
    assert by_id[web].repo == "" and by_id[lib].repo == ""  # the centre's own repo is not repeated
    assert by_id[web].status == "blocked" and by_id[infra].status == "ready"
    assert by_id[web].label.startswith("✗ ")
    layout = layout_graph(model.nodes, model.edges)
    assert layout.deps[web] == tuple(sorted((api, lib)))


@pytest.mark.parametrize("center_index", [0, 2])
def test_build_graph_missing_is_a_placeholder(tmp_path: Path, center_index: int) -> None:
    root, names = missing_store(tmp_path)
    view = service(root).queue()
    model = build_graph(view, names[center_index] if center_index < 2 else None)
    placeholders = {n.id for n in model.nodes if n.placeholder}
    assert MISSING in placeholders
    assert model.info[MISSING].status == "missing"


async def test_detail_trees_jump_to_dependencies_and_dependents(tmp_path: Path) -> None:
    """Issue #5, part 3: the detail pane's "Depends on" / "Blocks" trees, one key from each item."""
    from atk_tui.tui.widgets.detail import DepTree

    root, (done, a, b, c, _d) = chain_store(tmp_path)
    app = make_recorded(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.jump_to(b)
        await press(pilot, "right")
        deps = app.main.query_one("#deps-tree", DepTree)
        assert app.focused is deps
        shown = [node.data for node in deps.root.children]
        assert shown == [a, done]
        await press(pilot, "enter")  # onto the question b waits for
        assert app.main.selected == a
        app.main.jump_to(b)
        await press(pilot, "right", "down", "down")  # past "depends on" into "blocks"
        blocks = app.main.query_one("#blocks-tree", DepTree)
        assert app.focused is blocks and blocks.cursor_node.data == c
        await press(pilot, "enter")
        assert app.main.selected == c
        # a done dependency is not in the panes: Enter says where it is instead of jumping
        app.main.jump_to(b)
        await press(pilot, "right")  # a tree refilled for another item is entered on its first line
        assert app.focused is deps and deps.cursor_line == 0
        await press(pilot, "down", "enter")
        assert app.main.selected == b
        assert any("is adopted" in m for m, _ in app.notes)
