"""Time to first draw of the dependency graph screen (`g`), in-process with `App.run_test`.

Usage: python bench/bench_graph_screen.py [--quick]     (--quick: skip the 10,000-item run)

The queue is synthetic (the graphs of `bench_graph.py`, made into active items and judged like a
store's), handed to the dashboard as its `QueueView`, so the numbers are the screen's own: from
pushing the graph screen (as `g` does) to the canvas' first `render_line` with the layout, split
into building the graph from the queue, `layout_graph`, and the rest (screen, thread hand-off, first
frame). Wall and CPU (all threads) are both printed: on a shared, loaded machine the wall time is
mostly waiting for a core.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_graph import dependency_graph, print_machine_load

from atk_tui.domain import readiness
from atk_tui.domain.model import Item, Snapshot
from atk_tui.graph import layout_graph
from atk_tui.service import QueueView
from atk_tui.store import init_store
from atk_tui.tui.app import make_app
from atk_tui.tui.config import TuiConfig
from atk_tui.tui.screens.graph import GraphScreen, build_graph
from atk_tui.tui.widgets.graph_canvas import GraphCanvas

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
STATES = ("inbox", "inbox", "inbox", "processing", "hold")


def synthetic_view(n: int) -> QueueView:
    nodes, edges = dependency_graph(n)
    deps: dict[str, list[str]] = {}
    for a, b in edges:
        deps.setdefault(b, []).append(a)
    items = {}
    for i, node in enumerate(nodes):
        items[node.id] = Item(
            filename=node.id,
            state=STATES[i % len(STATES)],
            title=node.label,
            kind="uwi" if i % 11 == 0 else "awi",
            target_repo=node.repo or "acme/webapp",
            depends_on=sorted(deps.get(node.id, [])),
            created=NOW,
        )
    snap = Snapshot(items=items, states={k: v.state for k, v in items.items()})
    return QueueView.judged(snap, NOW)


async def first_draw(view: QueueView, center: str | None, whole: bool, runs: int) -> list[tuple[float, float]]:
    """(wall, CPU) seconds from pushing the graph screen to the canvas' first row drawn with the
    layout. CPU is the process's (every thread): on a loaded machine wall time is mostly waiting."""
    root, _ = init_store(Path(tempfile.mkdtemp(prefix="atk-bench-graph-")) / "store")
    app = make_app(root, theme="textual-dark", watch=False, actor="user", config=TuiConfig(), clock=lambda: NOW)
    drawn: list[tuple[float, float]] = []
    done = asyncio.Event()
    original = GraphCanvas.render_line

    def render_line(self: GraphCanvas, y: int):
        if self.layout_ is not None and not drawn:
            drawn.append((time.perf_counter(), time.process_time()))
            done.set()
        return original(self, y)

    GraphCanvas.render_line = render_line  # type: ignore[method-assign]
    times = []
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            app.show_queue(view)
            # let the dashboard finish with the new queue (its detail pane reads an item)
            await pilot.pause(0.3)
            await app.workers.wait_for_complete()
            await pilot.pause(0.3)
            for run in range(runs + 1):  # the first run (CSS, imports) is not counted
                drawn.clear()
                done.clear()
                start, start_cpu = time.perf_counter(), time.process_time()
                app.push_screen(GraphScreen(center, whole=whole))
                await done.wait()  # (no polling: a polling loop would take the GIL from the layout thread)
                if run:
                    times.append((drawn[0][0] - start, drawn[0][1] - start_cpu))
                await pilot.pause()
                app.pop_screen()
                await pilot.pause(0.2)
    finally:
        GraphCanvas.render_line = original  # type: ignore[method-assign]
    return times


def parts(view: QueueView, center: str | None, whole: bool) -> tuple[float, float, int, str]:
    """CPU seconds of building the graph from the queue and of `layout_graph`, out of the app."""
    start = time.process_time()
    model = build_graph(view, center, whole=whole)
    built = time.process_time()
    layout = layout_graph(model.nodes, model.edges)
    laid = time.process_time()
    return built - start, laid - built, len(layout.nodes), f"{layout.width}x{layout.height}"


def main() -> None:
    quick = "--quick" in sys.argv
    print_machine_load()
    cases = [(1_000, 5)] + ([] if quick else [(10_000, 1)])
    for n, runs in cases:
        view = synthetic_view(n)
        # the item with the biggest graph around it (its transitive dependencies and dependents)
        sizes = {
            name: len(readiness.transitive_deps(view.snapshot, name)) + len(view.dependents.get(name, ()))
            for name in list(view.items)[:: max(1, n // 200)]
        }
        center = max(sizes, key=sizes.__getitem__)
        for label, c, whole in (("around one item", center, False), ("whole queue", None, True)):
            if n > 1_000 and not whole:
                continue
            build, lay, count, canvas = parts(view, c, whole)
            times = asyncio.run(first_draw(view, c, whole, runs))
            wall = statistics.median(t[0] for t in times)
            cpu = statistics.median(t[1] for t in times)
            print(
                f"{n:>6} items, {label:<15} {count:>6} nodes (canvas {canvas}): first draw, median of {runs}:"
                f" wall {wall * 1000:7.1f} ms, CPU {cpu * 1000:7.1f} ms;"
                f" of which CPU: build {build * 1000:.1f} ms, layout {lay * 1000:.1f} ms"
            )


if __name__ == "__main__":
    main()
