"""Layered layout and text rendering of the dependency graph (SPEC §6, §10).

Pure and deterministic: no Textual, no I/O, no randomness. The same nodes and edges, given in
any order, give the same `Layout` (ids are sorted before anything else happens).

Edges are `(dependency, dependent)`: the arrow runs from the dependency to the item that depends
on it. The drawing flows **left to right**: layer 0 (items that depend on nothing, and missing
dependencies) is the leftmost column, each dependent sits in a column to the right of all its
dependencies. Columns of boxes suit a wide terminal and wide titles better than rows of boxes.

The pipeline is the classic Sugiyama one:

1. cycles are broken by reversing DFS back edges (sources first, then ids in sorted order);
   reversed edges and self-loops are still drawn, with the arrowhead into the true dependent
   (`◀` on its right, `▲` under it for a self-loop), and every edge on a cycle (both ends in one
   strongly connected component, or a self-loop) is flagged `cycle` and styled `edge-cycle`;
2. longest-path layering; an edge longer than one layer gets a chain of dummy nodes;
3. crossing reduction: a BFS start order (connected parts stay together; items without any
   edge go to the bottom of the first column), then barycenter sweeps, down then up, keeping the
   best order seen, with Gansner's transpose step on small graphs. The effort shrinks with the
   size (`_sweep_budget`: 12 sweeps + transpose up to 3,000 elements, 4 up to 20,000, 2 up to
   `CROSSING_REDUCTION_LIMIT`, none beyond, where the BFS order stays);
4. rows: each column is placed by an ordered L1 fit to its neighbours' ports (pool-adjacent-
   violators on medians: a node lines up exactly with one neighbour instead of bending both
   edges), one round towards predecessors, one towards successors, one balanced. Above
   15,000 elements only the balanced round runs, with means (O(1) merges) instead of medians;
5. orthogonal routing in the channel between two columns: one vertical track per source, or
   per group of sources with exactly the same targets (a bus: fan-out shares a line, fan-in
   shares the arrowhead), tracks ordered against crossings and wrong merges by insertion with
   pairwise costs (O(overlapping pairs)); nets that do not overlap share a track. A channel with more than `_ROUTING_PAIR_LIMIT` overlapping pairs uses
   the plain left-edge algorithm instead (fewest tracks, crossings not minimised);
6. drawing on flat grids of line-direction bits (so meeting lines become the right junction
   character) with slice operations only, boxes and arrowheads laid over as text.

Nothing is quadratic in a column: 1,000 items with 1,500 edges take well under 0.2 s and 10,000
items a few seconds (`bench/bench_graph.py`); the canvas, and so `lines`, grows with the graph
(10,000 items make a canvas of millions of cells), so a screen should show `subgraph_around` an
item rather than a whole large store.
"""

from __future__ import annotations

import heapq
import math
import re
from bisect import bisect_right, insort
from codecs import charmap_decode
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from rich.cells import cell_len

from atk_tui.core.graphs import scc_index
from atk_tui.core.textsafe import safe_line

try:  # grapheme-aware splitting (rich >= 14); per-character measuring before that
    from rich.cells import split_graphemes as _split_graphemes
except ImportError:  # pragma: no cover - depends on the installed rich
    from rich.cells import get_character_cell_size as _char_size

    def _split_graphemes(text: str) -> tuple[list[tuple[int, int, int]], int]:
        spans = [(i, i + 1, _char_size(c)) for i, c in enumerate(text)]
        return spans, sum(s[2] for s in spans)


__all__ = [
    "CROSSING_REDUCTION_LIMIT",
    "EDGE_CYCLE_STYLE",
    "EDGE_STYLE",
    "STATUSES",
    "EdgeRoute",
    "GraphNode",
    "Layout",
    "NodeBox",
    "layout_graph",
    "nearest_in_direction",
    "neighbors",
    "node_at",
    "sanitize_label",
    "subgraph_around",
    "truncate_cells",
]

#: The node statuses the dashboard uses; any other string is accepted and used as a style key.
STATUSES: tuple[str, ...] = (
    "ready",
    "blocked",
    "waiting",
    "answered",
    "cooldown",
    "hold",
    "terminal",
    "defective",
    "missing",
    "cycle",
)
EDGE_STYLE = "edge"
EDGE_CYCLE_STYLE = "edge-cycle"

#: Above this many elements (nodes + dummies + segments) the barycenter sweeps are skipped.
CROSSING_REDUCTION_LIMIT = 200_000
#: Box label width cap, in terminal cells.
DEFAULT_MAX_LABEL_CELLS = 20

_ROUTING_PAIR_LIMIT = 20_000
_ONE_SIDED_ROUND_LIMIT = 15_000  # elements (nodes + dummies)
_MEDIAN_LIMIT = 15_000
# row placement weights: real-real edge, edge with a dummy, dummy-dummy, a node's wish to stay put
_W_RR, _W_D, _W_DD, _W_STAY = 1, 2, 8, 2
_CRIT = 1000  # cost of a wrong merge of two lines in a channel (worse than any crossing)

# Direction bits of a grid cell: a line leaves the cell towards N / E / S / W.
_N, _E, _S, _W = 1, 2, 4, 8
_MASK_CHARS = " │─└││┌├─┘─┴┐┤┬┼"
_MASK_DECODE = _MASK_CHARS + "\ufffd" * (256 - len(_MASK_CHARS))  # a charmap: mask byte -> character
_OR_EW = bytes((b | _E | _W) & 0xFF for b in range(256))
_OR_NS = bytes((b | _N | _S) & 0xFF for b in range(256))
# style ids: 1 edge (and blank), 2 edge-cycle, 3+ node statuses (a run of one is one box row:
# boxes never touch each other)
_RUNS = re.compile(rb"\x02+|[\x03-\xff]+")
_NOT_EDGE = re.compile(rb"[^\x01]+")


_ARROW_IN = "▶"  # into a dependent, drawn left of its box
_ARROW_BACK = "◀"  # into a dependent that sits left of its dependency (reversed cycle edge)
_ARROW_LOOP = "▲"  # a self-loop, drawn under the box

# Characters `safe_line` lets through that still must not reach a terminal raw.
_EXTRA_UNSAFE = re.compile(r"[\u061c\u2028\u2029\ud800-\udfff]")


# --------------------------------------------------------------------------------------------
# public data


@dataclass(frozen=True, slots=True)
class GraphNode:
    """One item in the graph. `placeholder` marks a missing dependency (drawn dashed)."""

    id: str
    label: str
    status: str
    repo: str = ""
    placeholder: bool = False


@dataclass(frozen=True, slots=True)
class NodeBox:
    """Where a node's box sits, in terminal cells. `order` counts dummies too (it is the
    node's index in its column as used by crossing reduction); `port_row` is the row edges
    attach to (the title row)."""

    x: int
    y: int
    w: int
    h: int
    layer: int
    order: int

    @property
    def port_row(self) -> int:
        return self.y + 1

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.w and self.y <= y < self.y + self.h


@dataclass(frozen=True, slots=True)
class EdgeRoute:
    """One input edge as drawn.

    `reversed`: drawn against the left-to-right flow (a cycle edge chosen for breaking) — its
    arrowhead is `◀` at the dependent's right side. `cycle`: the edge lies on a cycle (both ends
    in one strongly connected component, or a self-loop). `hops` are the (layer, order) stops of
    the drawn path from left to right, dummies included; a self-loop has one hop.
    """

    source: str  # the dependency
    target: str  # the dependent
    reversed: bool
    cycle: bool
    hops: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Layout:
    """A laid-out, rendered graph.

    `lines` are `height` strings, each exactly `width` terminal cells wide (as `rich.cells`
    measures). `spans` are `(row, start, end, style_key)`, sorted, and they tile every line
    exactly; `start`/`end` are **character offsets into `lines[row]`** (equal to cell columns
    unless the row holds wide or combining characters). `style_key` is the node's status over a
    box row, `edge-cycle` over lines (and arrowheads) of edges on a cycle, and `edge` for the
    rest, blank cells included. Geometry (`nodes`) is in cells. `layers` lists the real node ids
    of each column, top to bottom; `deps`/`dependents` are the input edges per node;
    `placeholders` the ids drawn as missing dependencies.
    """

    width: int
    height: int
    nodes: dict[str, NodeBox]
    edges: tuple[EdgeRoute, ...]
    lines: list[str]
    spans: list[tuple[int, int, int, str]]
    layers: tuple[tuple[str, ...], ...] = ()
    deps: dict[str, tuple[str, ...]] = field(default_factory=dict)
    dependents: dict[str, tuple[str, ...]] = field(default_factory=dict)
    crossings: int = 0  # crossings between consecutive columns in the chosen order
    placeholders: frozenset[str] = frozenset()


# --------------------------------------------------------------------------------------------
# text


def sanitize_label(text: str) -> str:
    """Untrusted text made safe for one line of a terminal: C0/C1 controls, DEL, bidi controls,
    line/paragraph separators and lone surrogates are shown escaped (``\\x1b``, ``\\u202e``)."""
    if text.isprintable():  # fast path: nothing to escape (isprintable is False for all of the above)
        return text
    text = safe_line(text)
    return _EXTRA_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def truncate_cells(text: str, max_cells: int) -> str:
    """`text` cut to at most `max_cells` terminal cells, ending in `…` when cut.

    Measured by `rich.cells` (double-width CJK, grapheme clusters), never cut inside a cluster.
    """
    if max_cells <= 0:
        return ""
    if cell_len(text) <= max_cells:
        return text
    budget = max_cells - 1
    spans, _total = _split_graphemes(text)
    used = end = 0
    for _start, stop, width in spans:
        if used + width > budget:
            break
        used += width
        end = stop
    return text[:end] + "…"


def _box_text(text: str, max_cells: int) -> str:
    """A label for a box line: sanitised, cut, and measuring the same between the box's spaces
    (a joiner at the end would swallow the padding after it)."""
    out = truncate_cells(sanitize_label(text), max_cells)
    if cell_len(" " + out + " ") != cell_len(out) + 2:
        out = truncate_cells(sanitize_label(text).replace("\u200d", "").replace("\ufe0f", ""), max_cells)
    return out


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


def _back_edges(n: int, succ: list[list[int]], indeg: list[int]) -> set[tuple[int, int]]:
    """DFS back edges: reversing them leaves a DAG. Sources are tried first, then the rest,
    each in index (= sorted id) order, so the result does not depend on input order."""
    color = [0] * n  # 0 new, 1 on the DFS path, 2 done
    back: set[tuple[int, int]] = set()
    roots = [v for v in range(n) if indeg[v] == 0] + [v for v in range(n) if indeg[v] != 0]
    for root in roots:
        if color[root]:
            continue
        color[root] = 1
        work = [(root, 0)]
        while work:
            v, i = work[-1]
            if i < len(succ[v]):
                work[-1] = (v, i + 1)
                w = succ[v][i]
                if color[w] == 0:
                    color[w] = 1
                    work.append((w, 0))
                elif color[w] == 1:
                    back.add((v, w))
            else:
                color[v] = 2
                work.pop()
    return back


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
            layers[li] = _barycenter_layer(layers[li], nbrs, pos)
            for i, v in enumerate(layers[li]):
                pos[v] = i
        if transpose:
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


# --------------------------------------------------------------------------------------------
# vertical placement


def _l1_place(layer: list[int], offsets: list[int], points: list[list[int]], y: list[int]) -> None:
    """Place one column: minimise sum(|y - p|) over each element's wanted rows `points` (already
    less the element's packed offset; a row repeated stands for a weight), subject to the
    column's order and spacing (`offsets` are the packed positions).

    Pool-adjacent-violators with medians: an element lines up exactly with one neighbour (a
    straight edge) instead of averaging between two (two bent edges). A block is a sorted list,
    so a merge is one C-level sort of two sorted runs.
    """
    blocks: list[tuple[list[int], int, int]] = []  # (sorted rows, lower median, element count)
    for rows in points:
        rows.sort()
        median = rows[(len(rows) - 1) // 2]
        count = 1
        while blocks and blocks[-1][1] > median:
            prev_rows, _m, prev_count = blocks.pop()
            prev_rows += rows
            prev_rows.sort()
            rows = prev_rows
            median = rows[(len(rows) - 1) // 2]
            count += prev_count
        blocks.append((rows, median, count))
    i = 0
    for _rows, value, count in blocks:
        for _ in range(count):
            y[layer[i]] = value + offsets[i]
            i += 1


def _l2_place(layer: list[int], offsets: list[int], points: list[list[int]], y: list[int]) -> None:
    """`_l1_place` with means instead of medians: O(1) merges, for columns too big for medians
    (least squares averages between neighbours, so it bends more)."""
    blocks: list[tuple[float, int, int]] = []  # (sum of rows, number of rows, element count)
    for rows in points:
        total, size, count = float(sum(rows)), len(rows), 1
        while blocks and blocks[-1][0] * size > total * blocks[-1][1]:  # previous mean > this mean
            prev_total, prev_size, prev_count = blocks.pop()
            total, size, count = total + prev_total, size + prev_size, count + prev_count
        blocks.append((total, size, count))
    i = 0
    for total, size, count in blocks:
        value = math.floor(total / size + 0.5)
        for _ in range(count):
            y[layer[i]] = value + offsets[i]
            i += 1


def _assign_rows(
    layers: list[list[int]],
    pred: list[list[int]],
    succ: list[list[int]],
    extent: list[int],
    port: list[int],
    dummy: list[bool],
) -> list[int]:
    """Top rows of every element: one round pulling each column towards its predecessors then
    one towards its successors, then a balanced round both ways (measured on random queues:
    fewer bends than more rounds, or than averaging, which bends both edges of a node). Above
    `_ONE_SIDED_ROUND_LIMIT` elements only the balanced round runs, above `_MEDIAN_LIMIT` with
    means instead of medians."""
    n = len(extent)
    y = [0] * n
    offsets: list[list[int]] = []
    for layer in layers:
        offs = []
        cur = 0
        for i, v in enumerate(layer):
            offs.append(cur)
            y[v] = cur
            if i + 1 < len(layer):
                cur += extent[v] + (0 if dummy[v] and dummy[layer[i + 1]] else 1)
        offsets.append(offs)

    def wanted(nbrs: list[list[int]]) -> list[list[tuple[int, int, int]]]:
        # (neighbour, port difference, weight), weights like dot's: 1 between real nodes,
        # 2 with a dummy, 8 between dummies (long edges stay straight)
        out = []
        for v in range(n):
            dv, pv = dummy[v], port[v]
            out.append(
                [(w, port[w] - pv, _W_DD if dv and dummy[w] else _W_D if dv or dummy[w] else _W_RR) for w in nbrs[v]]
            )
        return out

    from_pred = wanted(pred)
    from_succ = wanted(succ)
    from_both = [a + b for a, b in zip(from_pred, from_succ, strict=True)]

    def place(li: int, rep: list[list[tuple[int, int, int]]]) -> None:
        layer = layers[li]
        offs = offsets[li]
        points = []
        for i, v in enumerate(layer):
            off = offs[i]
            rows = [y[v] - off] * _W_STAY  # the wish to stay put, for a side without neighbours
            if rep[v]:
                rows = []
                for w, k, c in rep[v]:
                    rows += [y[w] + k - off] * c
            points.append(rows)
        solve(layer, offs, points, y)

    # medians are exact but a merge re-sorts a block: quadratic when a tall column packs solid
    solve = _l1_place if n <= _MEDIAN_LIMIT else _l2_place
    nl = len(layers)
    if n <= _ONE_SIDED_ROUND_LIMIT:
        for li in range(1, nl):
            place(li, from_pred)
        for li in range(nl - 2, -1, -1):
            place(li, from_succ)
    for li in range(nl):
        place(li, from_both)
    for li in range(nl - 1, -1, -1):
        place(li, from_both)
    if n:
        top = min(y)
        if top:
            y = [v - top for v in y]
    return y


# --------------------------------------------------------------------------------------------
# channel routing


class _Net:
    """Lines from one or more elements of a column to the next column, on one vertical track.

    Sources share a net only when they have exactly the same targets, so joining their lines
    says nothing false: every source of the bus feeds every target of it.
    """

    __slots__ = ("hi", "lo", "segs", "sources", "targets", "track")

    def __init__(self, segs: list[tuple[int, int, int, int]]) -> None:
        self.segs = segs  # (source row, source element, target row, target element)
        self.sources = frozenset(seg[0] for seg in segs)
        self.targets = frozenset(seg[2] for seg in segs)
        rows = self.sources | self.targets
        self.lo = min(rows)
        self.hi = max(rows)
        self.track = -1

    @property
    def straight(self) -> bool:
        """One source and one target on the same row: a line straight across, no track."""
        return self.lo == self.hi


def _costs(a: _Net, b: _Net) -> tuple[int, int]:
    """Crossings (and wrong merges, at `_CRIT`) with `a`'s track left of `b`'s, and the other way.

    With `a` left, `a`'s target lines (running right from its track) pass `b`'s vertical and
    `b`'s source lines (running left from its track) pass `a`'s: a crossing where they pass
    inside it, a wrong merge where they land on the other's source or target row. Lines into the
    same target merge legitimately.
    """
    return _cost_left(a, b), _cost_left(b, a)


def _cost_left(a: _Net, b: _Net) -> int:
    cost = 0
    b_targets, b_sources, b_lo, b_hi = b.targets, b.sources, b.lo, b.hi
    for t in a.targets:
        if t not in b_targets:
            if t in b_sources:
                cost += _CRIT
            elif b_lo < t < b_hi:
                cost += 1
    a_targets, a_lo, a_hi = a.targets, a.lo, a.hi
    for s in b_sources:
        if s in a_targets:
            cost += _CRIT
        elif a_lo < s < a_hi:
            cost += 1
    return cost


def _route_channel(nets: list[_Net]) -> int:
    """Assign vertical tracks (0 = leftmost) to the nets that need one; returns the track count."""
    nets = sorted((n for n in nets if not n.straight), key=lambda n: (n.lo, n.hi, min(n.sources)))
    if not nets:
        return 0
    # overlapping pairs, by a sweep over rows
    overlaps: list[list[int]] = [[] for _ in nets]
    active: list[int] = []
    pairs = 0
    for k, net in enumerate(nets):
        active = [j for j in active if nets[j].hi >= net.lo]
        for j in active:
            other = nets[j]
            # meeting only at a common target row, end to end: they may share a track
            if other.hi == net.lo and net.lo in other.targets and net.lo in net.targets:
                continue
            overlaps[k].append(j)
            overlaps[j].append(k)
            pairs += 1
        if pairs > _ROUTING_PAIR_LIMIT:
            return _left_edge(nets)
        active.append(k)

    # insertion in key order, each net at the place of least cost against those already placed
    order: list[int] = []
    placed = [False] * len(nets)
    for k, net in enumerate(nets):
        olap = [j for j in overlaps[k] if placed[j]]
        placed[k] = True
        if not olap:
            order.append(k)
            continue
        where = sorted((order.index(j), j) for j in olap)
        costs = [_costs(nets[j], net) for _i, j in where]  # (j left of k, k left of j)
        cost = sum(c[1] for c in costs)
        best_cost, best_at = cost, where[0][0]
        for (at, _j), (j_left, k_left) in zip(where, costs, strict=True):
            cost += j_left - k_left
            if cost <= best_cost:
                best_cost, best_at = cost, at + 1
        order.insert(best_at, k)

    rank = [0] * len(nets)
    for r, k in enumerate(order):
        rank[k] = r
    ntracks = 0
    for k in order:
        track = 0
        for j in overlaps[k]:
            if rank[j] < rank[k] and nets[j].track >= track:
                track = nets[j].track + 1
        nets[k].track = track
        ntracks = max(ntracks, track + 1)
    return ntracks


def _left_edge(nets: list[_Net]) -> int:
    """Fewest tracks for many nets (already sorted by start row); crossings not minimised."""
    free: list[int] = []
    busy: list[tuple[int, int]] = []
    ntracks = 0
    for net in nets:
        while busy and busy[0][0] < net.lo:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            track = heapq.heappop(free)
        else:
            track = ntracks
            ntracks += 1
        net.track = track
        heapq.heappush(busy, (net.hi, track))
    return ntracks


# --------------------------------------------------------------------------------------------
# drawing


def _shift(cell: int, shifts: list[tuple[int, int]]) -> int:
    """Character offset of a cell in a row whose overlays ending at cell `at` added `extra` chars."""
    offset = cell
    for at, extra in shifts:
        if at <= cell:
            offset += extra
    return offset


class _Canvas:
    """A row-major grid of line-direction masks and style ids, plus text overlays (boxes,
    arrowheads) laid over it. Lines are slice operations on flat bytearrays (a vertical line is
    an extended slice with step = width), so drawing costs no Python work per cell."""

    __slots__ = ("cycle_rows", "height", "masks", "overlays", "styles", "width")

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.masks = bytearray(width * height)
        self.styles = bytearray(b"\x01") * (width * height)  # blank cells count as edge
        self.cycle_rows = bytearray(height)  # rows with a cycle-edge line: their styles need a scan
        self.overlays: list[list[tuple[int, str, int, int]]] = [[] for _ in range(height)]  # x, text, cells, style

    def hline(self, row: int, x0: int, x1: int, style: int) -> None:
        """A horizontal line over cells x0..x1-1."""
        if x1 > x0:
            a = row * self.width
            masks = self.masks
            masks[a + x0 : a + x1] = masks[a + x0 : a + x1].translate(_OR_EW)
            self.styles[a + x0 : a + x1] = bytes((style,)) * (x1 - x0)
            if style == 2:
                self.cycle_rows[row] = 1

    def vline(self, col: int, r0: int, r1: int, style: int) -> None:
        """A vertical line over rows r0+1..r1-1 (the ends are marked separately)."""
        count = r1 - r0 - 1
        if count > 0:
            w = self.width
            a, b = (r0 + 1) * w + col, r1 * w + col
            masks = self.masks
            masks[a:b:w] = masks[a:b:w].translate(_OR_NS)
            self.styles[a:b:w] = bytes((style,)) * count
            if style == 2:
                self.cycle_rows[r0 + 1 : r1] = b"\x01" * count

    def mark(self, row: int, col: int, bits: int, style: int) -> None:
        i = row * self.width + col
        self.masks[i] |= bits
        self.styles[i] = style
        if style == 2:
            self.cycle_rows[row] = 1

    def overlay(self, row: int, x: int, text: str, cells: int, style: int) -> None:
        """Text covering `cells` cells from x (its own cell width, whatever its length)."""
        self.overlays[row].append((x, text, cells, style))
        a = row * self.width + x
        self.styles[a : a + cells] = bytes((style,)) * cells

    def render(self, style_keys: Sequence[str]) -> tuple[list[str], list[tuple[int, int, int, str]]]:
        """The lines, and spans tiling each of them: what is not a box or a cycle edge is `edge`."""
        width, styles, cycle_rows = self.width, self.styles, self.cycle_rows
        view = memoryview(self.masks)
        lines: list[str] = []
        spans: list[tuple[int, int, int, str]] = []
        for r in range(self.height):
            base = r * width
            text = charmap_decode(view[base : base + width], "strict", _MASK_DECODE)[0]
            row_overlays = self.overlays[r]
            if not row_overlays and not cycle_rows[r]:
                lines.append(text)
                spans.append((r, 0, width, EDGE_STYLE))
                continue
            row_overlays.sort()
            parts = []
            at = 0
            if not cycle_rows[r]:
                # no cycle line here: the overlays alone say where the styles change
                delta = 0  # characters minus cells so far (wide and combining characters)
                edge_from = 0
                for x, piece, cells, style in row_overlays:
                    parts.append(text[at:x])
                    parts.append(piece)
                    at = x + cells
                    if style != 1:
                        start = x + delta
                        if start > edge_from:
                            spans.append((r, edge_from, start, EDGE_STYLE))
                        edge_from = start + len(piece)
                        spans.append((r, start, edge_from, style_keys[style]))
                    delta += len(piece) - cells
                parts.append(text[at:])
                lines.append("".join(parts))
                if edge_from < width + delta:
                    spans.append((r, edge_from, width + delta, EDGE_STYLE))
                continue
            shifts: list[tuple[int, int]] = []  # (cell where a wide/combining overlay ends, extra chars)
            for x, piece, cells, _style in row_overlays:
                parts.append(text[at:x])
                parts.append(piece)
                at = x + cells
                if len(piece) != cells:
                    shifts.append((at, len(piece) - cells))
            parts.append(text[at:])
            lines.append("".join(parts))
            at = 0
            for stretch in _NOT_EDGE.finditer(styles, base, base + width):
                piece = stretch.group()
                first = stretch.start() - base
                if first > at:
                    spans.append((r, _shift(at, shifts), _shift(first, shifts), EDGE_STYLE))
                if piece.count(piece[0]) == len(piece):  # one style: the common case
                    runs: Iterable[tuple[int, int]] = ((first, first + len(piece)),)
                else:
                    runs = [(first + m.start(), first + m.end()) for m in _RUNS.finditer(piece)]
                for start, stop in runs:
                    spans.append((r, _shift(start, shifts), _shift(stop, shifts), style_keys[styles[base + start]]))
                at = first + len(piece)
            if at < width:
                spans.append((r, _shift(at, shifts), _shift(width, shifts), EDGE_STYLE))
        return lines, spans


# --------------------------------------------------------------------------------------------
# the layout


def layout_graph(
    nodes: Sequence[GraphNode],
    edges: Iterable[tuple[str, str]],
    *,
    max_label_cells: int = DEFAULT_MAX_LABEL_CELLS,
    max_sweeps: int | None = None,
) -> Layout:
    """Lay out and render the dependency graph.

    `edges` are `(dependency, dependent)`; duplicates are ignored, and an id that is not among
    `nodes` gets a placeholder node (status `missing`). Labels are sanitised and cut to
    `max_label_cells` cells; a node with `repo` gets a second line for it. `max_sweeps` overrides
    the size-based number of barycenter sweeps (0 disables crossing reduction).
    """
    by_id: dict[str, GraphNode] = {}
    for node in nodes:
        if node.id in by_id and by_id[node.id] != node:
            raise ValueError(f"duplicate node id with different data: {node.id!r}")
        by_id[node.id] = node
    edge_set = {(a, b) for a, b in edges}
    for a, b in edge_set:
        for end in (a, b):
            if end not in by_id:
                by_id[end] = GraphNode(id=end, label=end, status="missing", placeholder=True)
    if not by_id:
        return Layout(width=0, height=0, nodes={}, edges=(), lines=[], spans=[])

    ids = sorted(by_id)
    index = {node_id: i for i, node_id in enumerate(ids)}
    n = len(ids)
    orig = sorted((index[a], index[b]) for a, b in edge_set)
    self_loops = {u for u, v in orig if u == v}
    succ0: list[list[int]] = [[] for _ in range(n)]
    indeg0 = [0] * n
    for u, v in orig:
        if u != v:
            succ0[u].append(v)
            indeg0[v] += 1

    comp = scc_index(n, succ0)
    back = _back_edges(n, succ0, indeg0)

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
    nlayers = max(layer_of) + 1

    # dummy chains for long edges; element ids: real nodes 0..n-1, dummies after
    pred: list[list[int]] = [[] for _ in range(n)]
    succ: list[list[int]] = [[] for _ in range(n)]
    elem_layer = list(layer_of)
    chain_of: dict[tuple[int, int], list[int]] = {}
    seg_flags: dict[tuple[int, int], list[bool]] = {}
    for (u, v), fl in sorted(flags.items()):
        chain = [u]
        for li in range(layer_of[u] + 1, layer_of[v]):
            d = len(elem_layer)
            elem_layer.append(li)
            pred.append([])
            succ.append([])
            chain.append(d)
        chain.append(v)
        chain_of[(u, v)] = chain
        for a, b in pairwise(chain):
            succ[a].append(b)
            pred[b].append(a)
            seg_flags[(a, b)] = fl
    total = len(elem_layer)
    dummy = [e >= n for e in range(total)]

    # ordering
    size = total + len(seg_flags)
    sweeps, transpose = _sweep_budget(size)
    if max_sweeps is not None:
        sweeps = max_sweeps
    # items without any edge wait at the bottom of the first column, out of the way
    isolated = [v for v in range(n) if not pred[v] and not succ[v]]
    start_order = sorted((v for v in range(n) if pred[v] or succ[v]), key=lambda v: (layer_of[v], v))
    layers, crossings = _order_layers(nlayers, elem_layer, start_order, pred, succ, sweeps, transpose)
    layers[0].extend(isolated)
    pos = [0] * total
    for layer in layers:
        for i, v in enumerate(layer):
            pos[v] = i

    # boxes
    label_cells = max(1, max_label_cells)
    titles: list[str] = []
    repos: list[str] = []
    title_cells: list[int] = []
    repo_cells: list[int] = []
    box_w = [0] * total
    box_h = [1] * total
    for i, node_id in enumerate(ids):
        node = by_id[node_id]
        title = _box_text(node.label, label_cells)
        repo = _box_text(node.repo, label_cells) if node.repo else ""
        titles.append(title)
        repos.append(repo)
        title_cells.append(cell_len(title))
        repo_cells.append(cell_len(repo))
        box_w[i] = max(title_cells[i], repo_cells[i], 1) + 4
        box_h[i] = 4 if repo else 3
    col_w = [1] * nlayers
    for v in range(n):
        if box_w[v] > col_w[elem_layer[v]]:
            col_w[elem_layer[v]] = box_w[v]
    extent = [box_h[v] + (1 if v in self_loops else 0) for v in range(total)]
    port = [0 if dummy[v] else 1 for v in range(total)]
    y = _assign_rows(layers, pred, succ, extent, port, dummy)

    # routing: one net per element with successors
    channel_nets: list[list[_Net]] = [[] for _ in range(nlayers)]
    chan_tracks = [0] * nlayers
    for li in range(nlayers - 1):
        by_targets: dict[tuple[int, ...], list[tuple[int, int, int, int]]] = {}
        for a in layers[li]:  # in column order, so nets come out in a deterministic order
            if succ[a]:
                segs = by_targets.setdefault(tuple(sorted(succ[a])), [])
                segs.extend((y[a] + port[a], a, y[b] + port[b], b) for b in succ[a])
        channel_nets[li] = [_Net(segs) for segs in by_targets.values()]
        chan_tracks[li] = _route_channel(channel_nets[li])
    chan_w = [max(4, t + 3) for t in chan_tracks]
    col_x = [0] * nlayers
    for li in range(1, nlayers):
        col_x[li] = col_x[li - 1] + col_w[li - 1] + chan_w[li - 1]
    width = col_x[-1] + col_w[-1]
    height = max(y[v] + extent[v] for v in range(total))

    # drawing: direction masks and style ids
    canvas = _Canvas(width, height)
    style_keys: list[str] = ["", EDGE_STYLE, EDGE_CYCLE_STYLE]
    style_id: dict[str, int] = {EDGE_STYLE: 1, EDGE_CYCLE_STYLE: 2}

    def sid(key: str) -> int:
        found = style_id.get(key)
        if found is None:
            if len(style_keys) >= 255:
                raise ValueError("too many distinct node statuses")
            found = style_id[key] = len(style_keys)
            style_keys.append(key)
        return found

    hline, vline, mark = canvas.hline, canvas.vline, canvas.mark
    in_normal = [False] * total  # a normal edge ends here: arrowhead drawn
    in_any = [False] * total
    in_plain = [False] * total  # ... and at least one of them is not on a cycle
    out_normal = [False] * total
    out_back = [False] * total

    for v in range(n, total):  # dummies: a line straight through the column
        li = elem_layer[v]
        fl = seg_flags[(pred[v][0], v)]
        hline(y[v], col_x[li], col_x[li] + col_w[li], 2 if fl[2] else 1)

    for li in range(nlayers - 1):
        cx = col_x[li] + col_w[li]  # first cell of the channel
        end = col_x[li + 1]  # first cell after it
        for net in channel_nets[li]:
            # style per line: 1 where a plain edge runs, 2 where only cycle edges do
            src_style: dict[int, int] = {}
            tgt_style: dict[int, int] = {}
            for s, a, t, b in net.segs:
                fl = seg_flags[(a, b)]
                style = 2 if fl[2] else 1
                src_style[s] = min(src_style.get(s, 2), style)
                tgt_style[t] = min(tgt_style.get(t, 2), style)
                if not dummy[b]:
                    in_any[b] = True
                    if fl[0]:
                        in_normal[b] = True
                        if not fl[2]:
                            in_plain[b] = True
                if not dummy[a]:
                    if fl[0]:
                        out_normal[a] = True
                    if fl[1]:
                        out_back[a] = True
            if net.straight:
                hline(net.lo, cx, end, min(src_style.values()))
                continue
            lo, hi = net.lo, net.hi
            tx = cx + 1 + net.track
            vline(tx, lo, hi, min(src_style.values()))
            for s, style in src_style.items():
                hline(s, cx, tx, style)
                mark(s, tx, _W | (_N if s > lo else 0) | (_S if s < hi else 0), style)
            for t, style in tgt_style.items():
                hline(t, tx + 1, end, style)
                mark(t, tx, _E | (_N if t > lo else 0) | (_S if t < hi else 0), style)

    for v in sorted(self_loops):  # a small loop under the box: out of its bottom, back in with ▲
        bx, below, w = col_x[elem_layer[v]], y[v] + box_h[v], col_w[elem_layer[v]]
        mark(below, bx + w - 2, _N | _W, 2)
        hline(below, bx + 2, bx + w - 2, 2)
        canvas.overlay(below, bx + 1, _ARROW_LOOP, 1, 2)

    # boxes, arrowheads, port junctions
    boxes: dict[str, NodeBox] = {}
    for v in range(n):
        li = elem_layer[v]
        bx, by_, w, h = col_x[li], y[v], col_w[li], box_h[v]
        node = by_id[ids[v]]
        boxes[ids[v]] = NodeBox(bx, by_, w, h, li, pos[v])
        hz, vt = ("╌", "┆") if node.placeholder else ("─", "│")
        left_port = "┤" if in_any[v] and not in_normal[v] else vt
        right_port = "├" if out_normal[v] else vt
        status = sid(node.status)
        overlay = canvas.overlay
        overlay(by_, bx, "┌" + hz * (w - 2) + "┐", w, status)
        overlay(by_ + 1, bx, left_port + " " + titles[v] + " " * (w - 4 - title_cells[v]) + " " + right_port, w, status)
        if repos[v]:
            overlay(by_ + 2, bx, vt + " " + repos[v] + " " * (w - 4 - repo_cells[v]) + " " + vt, w, status)
        if v in self_loops:
            overlay(by_ + h - 1, bx, "└" + hz * (w - 3) + "┬┘", w, status)
        else:
            overlay(by_ + h - 1, bx, "└" + hz * (w - 2) + "┘", w, status)
        if in_normal[v]:
            overlay(by_ + 1, bx - 1, _ARROW_IN, 1, 1 if in_plain[v] else 2)
        if out_back[v]:
            overlay(by_ + 1, bx + w, _ARROW_BACK, 1, 2)

    lines, spans = canvas.render(style_keys)

    # edges as drawn, and adjacency for navigation
    routes: list[EdgeRoute] = []
    deps: dict[str, list[str]] = {node_id: [] for node_id in ids}
    dependents: dict[str, list[str]] = {node_id: [] for node_id in ids}
    for u, v in orig:
        deps[ids[v]].append(ids[u])
        dependents[ids[u]].append(ids[v])
        if u == v:
            hops: tuple[tuple[int, int], ...] = ((elem_layer[u], pos[u]),)
            routes.append(EdgeRoute(ids[u], ids[v], False, True, hops))
            continue
        is_back = (u, v) in back
        chain = chain_of[(v, u) if is_back else (u, v)]
        hops = tuple((elem_layer[e], pos[e]) for e in chain)
        routes.append(EdgeRoute(ids[u], ids[v], is_back, comp[u] == comp[v], hops))

    return Layout(
        width=width,
        height=height,
        nodes=boxes,
        edges=tuple(routes),
        lines=lines,
        spans=spans,
        layers=tuple(tuple(ids[v] for v in layer if v < n) for layer in layers),
        deps={k: tuple(v) for k, v in deps.items()},
        dependents={k: tuple(v) for k, v in dependents.items()},
        crossings=crossings,
        placeholders=frozenset(node_id for node_id in ids if by_id[node_id].placeholder),
    )


# --------------------------------------------------------------------------------------------
# navigation


def node_at(layout: Layout, x: int, y: int) -> str | None:
    """The id of the box covering cell (x, y), if any."""
    for node_id, box in layout.nodes.items():
        if box.contains(x, y):
            return node_id
    return None


def _by_position(layout: Layout, ids: Iterable[str]) -> list[str]:
    boxes = layout.nodes
    return sorted(set(ids), key=lambda i: (boxes[i].layer, boxes[i].y, i))


def neighbors(layout: Layout, node_id: str) -> dict[str, list[str]]:
    """Graph and column neighbours of a node.

    `deps` (its dependencies) and `dependents`, ordered left to right then top to bottom;
    `up` and `down`, the other nodes of its column, nearest first. Self-loops are left out.
    """
    box = layout.nodes[node_id]
    column = layout.layers[box.layer]
    at = column.index(node_id)
    return {
        "deps": _by_position(layout, (d for d in layout.deps.get(node_id, ()) if d != node_id)),
        "dependents": _by_position(layout, (d for d in layout.dependents.get(node_id, ()) if d != node_id)),
        "up": list(reversed(column[:at])),
        "down": list(column[at + 1 :]),
    }


_DIRECTIONS = ("left", "right", "up", "down")


def nearest_in_direction(layout: Layout, node_id: str, direction: str) -> str | None:
    """Where a cursor on `node_id` goes for an arrow key (`left`, `right`, `up`, `down`).

    Left/right follow edges first: the edge neighbour (dependency or dependent) in the nearest
    column on that side, closest in rows; with none, the closest box in the nearest column on
    that side. Up/down go to the next node in the same column. None when there is nowhere to go.
    """
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction must be one of {_DIRECTIONS}, not {direction!r}")
    boxes = layout.nodes
    box = boxes[node_id]
    if direction in ("up", "down"):
        near = neighbors(layout, node_id)[direction]
        return near[0] if near else None

    sign = -1 if direction == "left" else 1

    def key(other: str) -> tuple[int, int, int, str]:
        ob = boxes[other]
        return ((ob.layer - box.layer) * sign, abs(ob.port_row - box.port_row), ob.order, other)

    linked = set(layout.deps.get(node_id, ())) | set(layout.dependents.get(node_id, ()))
    on_side = [o for o in linked if (boxes[o].layer - box.layer) * sign > 0]
    if on_side:
        return min(on_side, key=key)
    layer = box.layer + sign
    while 0 <= layer < len(layout.layers):
        if layout.layers[layer]:
            return min(layout.layers[layer], key=key)
        layer += sign
    return None
