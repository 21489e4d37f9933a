"""Time `layout_graph` (layout + render) on large dependency graphs.

Usage: python bench/bench_graph.py [--quick]

The graphs look like a real queue: items are created in sequence and each depends on one or two
recent items (a window of the last 40), so dependencies form long chains with some fan-in and
fan-out, ~1.5 edges per node, and ~3% of the items depend on nothing.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from atk_tui.core.graph_layout import GraphNode, layout_graph

STATUSES = ("ready", "blocked", "waiting", "answered", "cooldown", "hold")
WORDS = ("fix login", "refactor store", "add cache layer", "docs", "更新する", "split the parser", "retry push")


def dependency_graph(n: int, edges_per_node: float = 1.5, window: int = 40, seed: int = 7):
    rng = random.Random(seed)
    nodes = [
        GraphNode(
            id=f"2026-01-01-{i:05d}.md",
            label=f"{rng.choice(WORDS)} #{i}",
            status=rng.choice(STATUSES),
            repo=rng.choice(("", "", "acme/webapp", "acme/api")),
        )
        for i in range(n)
    ]
    edges: set[tuple[str, str]] = set()
    roots = {i for i in range(n) if i == 0 or rng.random() < 0.03}
    want = int(n * edges_per_node)
    while len(edges) < want:
        b = rng.randrange(1, n)
        if b in roots:
            continue
        a = b - rng.randint(1, min(b, window))
        edges.add((nodes[a].id, nodes[b].id))
    return nodes, sorted(edges)


def timed(nodes, edges, runs: int) -> tuple[float, object]:
    times = []
    layout = None
    for _ in range(runs):
        start = time.perf_counter()
        layout = layout_graph(nodes, edges)
        times.append(time.perf_counter() - start)
    return statistics.median(times), layout


def main() -> None:
    quick = "--quick" in sys.argv
    for n, runs in ((1_000, 5), (10_000, 1 if quick else 3)):
        nodes, edges = dependency_graph(n)
        seconds, layout = timed(nodes, edges, runs)
        dummies = sum(len(e.hops) - 2 for e in layout.edges if len(e.hops) > 1)
        print(
            f"{n:>6} nodes {len(edges):>6} edges: median of {runs}: {seconds * 1000:8.1f} ms"
            f"  ({len(layout.layers)} layers, {dummies} dummies, {layout.crossings} crossings,"
            f" canvas {layout.width}x{layout.height})"
        )


if __name__ == "__main__":
    main()
