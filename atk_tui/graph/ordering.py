"""Stage 3: crossing reduction (barycenter sweeps, transpose) within the budget the graph's size allows."""

from __future__ import annotations

from bisect import bisect_right, insort
from collections import deque
from collections.abc import Callable, Iterable

from atk_tui.graph.model import CROSSING_REDUCTION_LIMIT

# --------------------------------------------------------------------------------------------
# ordering


def _layer_crossings(upper: list[int], succ: list[list[int]], pos: list[int]) -> int:
    """Crossings between one column and the next: inversions of the target positions when the
    segments are sorted by (source position, target position)."""
    seen: list[int] = []
    total = 0
    for u in upper:
        targets = succ[u]
        if not targets:
            continue
        for p in sorted(pos[w] for w in targets):
            total += len(seen) - bisect_right(seen, p)
            insort(seen, p)
    return total


def _total_crossings(layers: list[list[int]], succ: list[list[int]], pos: list[int]) -> int:
    return sum(_layer_crossings(layers[i], succ, pos) for i in range(len(layers) - 1))


def _barycenter_layer(layer: list[int], nbrs: list[list[int]], pos: list[int]) -> list[int]:
    keyed = []
    for v in layer:
        ns = nbrs[v]
        if ns:
            total = 0
            for w in ns:
                total += pos[w]
            keyed.append((total / len(ns), pos[v], v))
        else:  # no neighbour on that side: keep the current place
            keyed.append((float(pos[v]), pos[v], v))
    keyed.sort()
    return [v for _b, _p, v in keyed]


def _pair_crossings(u: int, v: int, nbrs: list[list[int]], pos: list[int]) -> int:
    """Crossings between the edges of `u` and of `v` towards one side, `u` placed above `v`."""
    count = 0
    others = [pos[b] for b in nbrs[v]]
    if others:
        for a in nbrs[u]:
            pa = pos[a]
            for pb in others:
                if pb < pa:
                    count += 1
    return count


def _transpose(layers: list[list[int]], pred: list[list[int]], succ: list[list[int]], pos: list[int]) -> None:
    """Swap neighbours in a column while that removes crossings (Gansner et al.'s transpose)."""
    for _round in range(4):
        improved = False
        for layer in layers:
            for i in range(len(layer) - 1):
                u, v = layer[i], layer[i + 1]
                here = _pair_crossings(u, v, pred, pos) + _pair_crossings(u, v, succ, pos)
                if not here:
                    continue
                if _pair_crossings(v, u, pred, pos) + _pair_crossings(v, u, succ, pos) < here:
                    layer[i], layer[i + 1] = v, u
                    pos[u], pos[v] = i + 1, i
                    improved = True
        if not improved:
            return


def _sweep_budget(size: int) -> tuple[int, bool]:
    """Barycenter sweeps allowed for a graph of `size` elements (nodes + dummies + segments), and
    whether the (costlier) transpose step runs after each sweep."""
    if size > CROSSING_REDUCTION_LIMIT:
        return 0, False
    if size > 20_000:
        return 2, False
    if size > 5_000:
        return 4, False
    return 12, size <= 3_000


def _order_layers(
    nlayers: int,
    layer_of: list[int],
    start_order: list[int],
    pred: list[list[int]],
    succ: list[list[int]],
    sweeps: int,
    transpose: bool,
    check: Callable[[], None] | None = None,
) -> tuple[list[list[int]], int]:
    """Initial BFS order (keeps connected parts together), then barycenter sweeps, keeping the
    order with the fewest crossings."""
    n = len(layer_of)
    layers: list[list[int]] = [[] for _ in range(nlayers)]
    seen = [False] * n
    for start in start_order:
        if seen[start]:
            continue
        seen[start] = True
        queue = deque([start])
        while queue:
            v = queue.popleft()
            layers[layer_of[v]].append(v)
            for w in succ[v]:
                if not seen[w]:
                    seen[w] = True
                    queue.append(w)
            for w in pred[v]:
                if not seen[w]:
                    seen[w] = True
                    queue.append(w)
    pos = [0] * n
    for layer in layers:
        for i, v in enumerate(layer):
            pos[v] = i
    if sweeps <= 0 or nlayers < 2:
        return layers, _total_crossings(layers, succ, pos)

    best = [list(layer) for layer in layers]
    best_crossings = _total_crossings(layers, succ, pos)
    stale = 0
    for sweep in range(sweeps):
        if best_crossings == 0:
            break
        if sweep % 2 == 0:
            indices: Iterable[int] = range(1, nlayers)
            nbrs = pred
        else:
            indices = range(nlayers - 2, -1, -1)
            nbrs = succ
        for li in indices:
            if check is not None and li % 64 == 0:
                check()
            layers[li] = _barycenter_layer(layers[li], nbrs, pos)
            for i, v in enumerate(layers[li]):
                pos[v] = i
        if transpose:
            if check is not None:
                check()
            _transpose(layers, pred, succ, pos)
        crossings = _total_crossings(layers, succ, pos)
        if crossings < best_crossings:
            best_crossings = crossings
            best = [list(layer) for layer in layers]
            stale = 0
        else:
            stale += 1
            if stale >= 4:
                break
    return best, best_crossings


