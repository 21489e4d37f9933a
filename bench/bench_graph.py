"""Time `layout_graph` (layout + render) on large dependency graphs.

Usage: python bench/bench_graph.py [--quick]     (--quick: one run of the 10k graph instead of 3)

The graphs look like a real queue: projects of 10-60 items whose dependency chains are 3-9 deep,
mostly from one level to the next, with some fan-in and fan-out, a few links between projects,
~1.5 edges per node.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time

from atk_tui.graph import GraphNode, layout_graph

STATUSES = ("ready", "blocked", "waiting", "answered", "cooldown", "hold")
WORDS = ("fix login", "refactor store", "add cache layer", "docs", "更新する", "split the parser", "retry push")


def dependency_graph(n: int, edges_per_node: float = 1.5, seed: int = 7):
    """Items grouped in projects of 10-60; inside a project each item sits on a level (depth
    up to 3-9) and depends on items of earlier levels, mostly the previous one; ~4% of the
    edges go to an earlier project. Sources of a project have no dependencies."""
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
    levels: list[int] = []
    projects: list[tuple[int, int]] = []  # [start, end) of each project
    while len(levels) < n:
        size = min(rng.randint(10, 60), n - len(levels))
        depth = rng.randint(3, 9)
        start = len(levels)
        levels.extend(sorted(rng.randint(0, depth) for _ in range(size)))
        projects.append((start, start + size))
    by_level: dict[tuple[int, int], list[int]] = {}
    project_of = [0] * n
    for p, (start, end) in enumerate(projects):
        for i in range(start, end):
            project_of[i] = p
            by_level.setdefault((p, levels[i]), []).append(i)
    edges: set[tuple[str, str]] = set()
    want = int(n * edges_per_node)
    while len(edges) < want:
        b = rng.randrange(n)
        p = project_of[b]
        if p and rng.random() < 0.04:  # a dependency on another, earlier project
            start, end = projects[rng.randrange(p)]
            a = rng.randrange(start, end)
        else:
            if levels[b] == 0:
                continue
            back = 1 if rng.random() < 0.75 else rng.randint(1, levels[b])
            pool = by_level.get((p, levels[b] - back))
            if not pool:
                continue
            a = rng.choice(pool)
        edges.add((nodes[a].id, nodes[b].id))
    return nodes, sorted(edges)


def timed(nodes, edges, runs: int) -> tuple[float, float, object]:
    """Median wall-clock and CPU seconds of `layout_graph` (layout and full render)."""
    wall, cpu = [], []
    layout = None
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        layout = layout_graph(nodes, edges)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu), layout


def print_machine_load() -> None:
    """The load and a reference loop's CPU time, printed before the figures they qualify."""
    start = time.process_time()
    sum(range(10**7))
    reference = time.process_time() - start
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; reference loop sum(range(10**7)):"
        f" {reference * 1000:.0f} ms CPU (~160 ms on an idle machine here: a busy one slows everything below)"
    )


def main() -> None:
    quick = "--quick" in sys.argv
    print_machine_load()
    for n, runs in ((1_000, 5), (10_000, 1 if quick else 3)):
        nodes, edges = dependency_graph(n)
        wall, cpu, layout = timed(nodes, edges, runs)
        dummies = sum(len(e.hops) - 2 for e in layout.edges if len(e.hops) > 1)
        print(
            f"{n:>6} nodes {len(edges):>6} edges, median of {runs}: wall {wall * 1000:7.1f} ms, CPU {cpu * 1000:7.1f} ms"
            f"  ({len(layout.layers)} layers, {dummies} dummies, {layout.crossings} crossings,"
            f" canvas {layout.width}x{layout.height}, {len(layout.spans)} spans)"
        )


if __name__ == "__main__":
    main()
