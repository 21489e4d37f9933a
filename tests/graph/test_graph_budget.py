"""Issue 25: the graph that froze the dashboard (a 3,000-item chain and one item depending on
all of it: 4.5 million dummy nodes). Laid out within a budget: the screen says it is too large,
with its numbers, and draws the focused item's direct links; Esc and `q` work while a layout is
in progress (held there by the budget's injected `tick`, not by timing)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.forge import chain_and_star
from support.graph_support import SIZE, build_app, press, settle, write_items
from textual.widgets import Static
from textual.worker import get_current_worker

from atk_tui.graph import GraphNode, LayoutBudget, LayoutTooLarge, layout_graph
from atk_tui.store import init_store
from atk_tui.tui.screens.graph import GraphScreen
from atk_tui.tui.screens.main import MainScreen
from atk_tui.tui.widgets.graph_canvas import GraphCanvas

STAR = "20261130-000000-star.md"


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root, _ = init_store(tmp_path_factory.mktemp("huge") / "notes")
    write_items(root, {("inbox", name): text for name, text in chain_and_star(3000).items()})
    return root


@pytest.fixture
def held() -> Iterator[tuple[threading.Event, threading.Event, threading.Event]]:
    """A layout held in progress: `entered` is set once it reaches a budget check, which then
    waits for `release` (set at the end whatever happens) or for its worker to be cancelled
    (then `gave_up` is set). (entered, release, gave_up)"""
    entered, release = threading.Event(), threading.Event()

    def tick() -> None:
        entered.set()
        while not release.wait(0.05):
            if get_current_worker().is_cancelled:
                gave_up.set()
                return

    gave_up = threading.Event()
    GraphScreen.layout_tick = staticmethod(tick)  # type: ignore[assignment]
    try:
        yield entered, release, gave_up
    finally:
        release.set()
        GraphScreen.layout_tick = None


def test_the_layout_refuses_what_would_not_fit_before_making_it() -> None:
    files = chain_and_star(3000)
    nodes = [GraphNode(n, n, "ready") for n in files]
    edges = [
        (d, n) for n, t in files.items() if (m := re.search(r"depends_on: \[(.*)\]", t)) for d in m.group(1).split(", ")
    ]
    with pytest.raises(LayoutTooLarge) as info:
        layout_graph(nodes, edges, budget=LayoutBudget())
    assert (info.value.reason, info.value.nodes, info.value.edges) == ("elements", 3001, 5999)
    assert info.value.elements > 4_000_000
    with pytest.raises(LayoutTooLarge) as info:
        layout_graph(nodes[:10], [], budget=LayoutBudget(deadline=0.0))
    assert info.value.reason == "time"


async def test_too_large_says_so_with_its_numbers_and_shows_the_direct_links(huge: Path) -> None:
    app = build_app(huge)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main.jump_to(STAR)
        await press(pilot, "v")
        screen = app.screen
        assert isinstance(screen, GraphScreen)
        note = screen.query_one("#graph-note", Static)
        assert note.has_class("shown")
        text = note.content.plain
        assert "too large to draw: 3,001 items, 5,999 links" in text, text
        assert "4,501,501 layout cells" in text and "showing" in text
        layout = screen.query_one(GraphCanvas).layout_
        assert layout is not None and STAR in layout.nodes and len(layout.nodes) <= 121
        await press(pilot, "escape")
        assert isinstance(app.screen, MainScreen)


async def test_too_large_with_no_time_left_still_says_so(huge: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A time budget of nothing (injected): the whole graph and then the fallback give up at
    their first check that looks at the time; the message says why, with the numbers."""
    monkeypatch.setattr(GraphScreen, "layout_seconds", -1.0)
    app = build_app(huge)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "v", "w")  # the whole queue
        screen = app.screen
        assert isinstance(screen, GraphScreen)
        text = screen.query_one("#graph-note", Static).content.plain
        assert "too large to draw: 3,001 items, 5,999 links" in text, text
        await press(pilot, "escape")
        assert isinstance(app.screen, MainScreen)


async def graph_being_laid_out(app, pilot, entered) -> None:
    """The star item's graph opened (`v`), its layout started and held (`held`)."""
    await settle(pilot)
    assert app.main.jump_to(STAR)
    await pilot.press("v")
    for _ in range(3000):
        if entered.is_set():
            break
        await pilot.pause(0.01)
    assert entered.is_set(), "the layout never started"
    assert isinstance(app.screen, GraphScreen)


async def test_escape_closes_the_graph_while_its_layout_is_in_progress(huge: Path, held) -> None:
    entered, release, gave_up = held
    app = build_app(huge)
    async with app.run_test(size=SIZE) as pilot:
        await graph_being_laid_out(app, pilot, entered)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen), "Esc did not close the graph while it was laid out"
        for _ in range(3000):  # the layout gives up at its next check: nothing is left running
            if gave_up.is_set():
                break
            await pilot.pause(0.01)
        assert gave_up.is_set(), "the layout went on after the screen closed"
        release.set()
        await settle(pilot)
        assert not [w for w in app.workers if w.group == "graph-layout" and not w.is_finished]


async def test_q_backs_out_and_quits_while_a_layout_is_in_progress(huge: Path, held) -> None:
    """`q` on a sub-screen backs out of it as Esc does (the same everywhere); the second `q`
    quits: neither waits for the layout."""
    entered, release, _gave_up = held
    app = build_app(huge)
    async with app.run_test(size=SIZE) as pilot:
        await graph_being_laid_out(app, pilot, entered)
        await pilot.press("q")
        for _ in range(3000):
            if not isinstance(app.screen, GraphScreen):
                break
            await pilot.pause(0.01)
        assert app.screen is app.main and app.is_running
        await pilot.press("q")
        for _ in range(3000):
            if not app.is_running:
                break
            await pilot.pause(0.01)
        assert not app.is_running, "q waited for the layout"
    release.set()
