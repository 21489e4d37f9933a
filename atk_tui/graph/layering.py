"""Stage 1-2: the graph around an item, cycles broken by reversing DFS back edges, longest-path layering."""

from __future__ import annotations

from collections.abc import Iterable

from atk_tui.domain.graphs import scc_and_back_edges

# --------------------------------------------------------------------------------------------
# graph helpers


def subgraph_around(
    node_ids: Iterable[str], edges: Iterable[tuple[str, str]], focus: str
) -> tuple[set[str], list[tuple[str, str]]]:
    """`focus` plus all its transitive dependencies and transitive dependents.

    Edges are `(dependency, dependent)`; those touching ids outside `node_ids` are ignored
    (`focus` always counts as known). Iterative and cycle-safe. Returns the node set and the
    edges among it, sorted.
    """
    known = set(node_ids)
    known.add(focus)
    up: dict[str, list[str]] = {}
    down: dict[str, list[str]] = {}
    kept: set[tuple[str, str]] = set()
    for dep, dependent in edges:
        if dep in known and dependent in known:
            kept.add((dep, dependent))
            up.setdefault(dependent, []).append(dep)
            down.setdefault(dep, []).append(dependent)
    found = {focus}
    for adjacency in (up, down):
        seen = {focus}
        stack = [focus]
        while stack:
            for nxt in adjacency.get(stack.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        found |= seen
    sub = sorted((a, b) for a, b in kept if a in found and b in found)
    return found, sub


def layer_edges(
    n: int, orig: list[tuple[int, int]]
) -> tuple[set[int], list[int], set[tuple[int, int]], dict[tuple[int, int], list[bool]], list[int]]:
    """Stages 1-2 over vertices 0..n-1 and the sorted edges `orig` (dependency, dependent):
    (self-loops, each vertex's strongly connected component, the edges reversed to break cycles, the layout edges left to right with what
    they carry `[normal, reversed, cycle]`, each vertex's layer by longest path)."""
    self_loops = {u for u, v in orig if u == v}
    succ0: list[list[int]] = [[] for _ in range(n)]
    indeg0 = [0] * n
    for u, v in orig:
        if u != v:
            succ0[u].append(v)
            indeg0[v] += 1

    # DFS back edges: sources tried first, then the rest, each in index (= sorted id) order, so
    # the edges reversed do not depend on input order
    comp, back = scc_and_back_edges(n, succ0, [v for v in range(n) if indeg0[v] == 0])

    # layout edges (left to right) with what they carry: [normal, reversed, cycle]
    flags: dict[tuple[int, int], list[bool]] = {}
    for u, v in orig:
        if u == v:
            continue
        cyc = comp[u] == comp[v]
        key = (v, u) if (u, v) in back else (u, v)
        entry = flags.setdefault(key, [False, False, False])
        entry[1 if (u, v) in back else 0] = True
        entry[2] = entry[2] or cyc

    # longest-path layering (Kahn)
    lsucc: list[list[int]] = [[] for _ in range(n)]
    lindeg = [0] * n
    for u, v in sorted(flags):
        lsucc[u].append(v)
        lindeg[v] += 1
    layer_of = [0] * n
    queue = [v for v in range(n) if lindeg[v] == 0]
    head = 0
    while head < len(queue):
        u = queue[head]
        head += 1
        for v in lsucc[u]:
            if layer_of[u] + 1 > layer_of[v]:
                layer_of[v] = layer_of[u] + 1
            lindeg[v] -= 1
            if lindeg[v] == 0:
                queue.append(v)
    return self_loops, comp, back, flags, layer_of
