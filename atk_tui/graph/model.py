"""What a layout is made of: the public data (nodes, boxes, routed edges, the layout) and the constants every stage shares."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

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
# the budget


class LayoutTooLarge(Exception):
    """`layout_graph` gave up: the graph is over its `LayoutBudget` (`reason`: "elements", the
    nodes plus the dummy nodes long edges need; "cells", the canvas; "time"; or "cancelled").
    `nodes` and `edges` count the graph asked for; `elements`/`cells` what it would take (0
    when not known yet)."""

    def __init__(
        self, reason: str, nodes: int, edges: int, elements: int = 0, cells: int = 0, limit: float = 0
    ) -> None:
        self.reason, self.nodes, self.edges = reason, nodes, edges
        self.elements, self.cells, self.limit = elements, cells, limit
        super().__init__(f"graph too large to lay out ({reason}): {nodes} nodes, {edges} edges")


@dataclass
class LayoutBudget:
    """What `layout_graph` may spend: at most `max_elements` nodes and dummy nodes (an edge
    spanning k columns needs k-1: a 3,000-item chain with one item depending on all of it
    needs 4.5 million), a canvas of at most `max_cells` cells, until `deadline`
    (`time.monotonic()`), while `cancelled()` is false. `tick`, when given, is called at every
    check (a test holds a layout "in progress" with it). Raises `LayoutTooLarge` at the first
    check that fails; the checks run between stages and inside every loop over the layers."""

    max_elements: int = 60_000
    max_cells: int = 30_000_000
    deadline: float | None = None
    cancelled: Callable[[], bool] | None = None
    tick: Callable[[], None] | None = None
    nodes: int = 0
    edges: int = 0

    def check(self) -> None:
        if self.tick is not None:
            self.tick()
        if self.cancelled is not None and self.cancelled():
            raise LayoutTooLarge("cancelled", self.nodes, self.edges)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise LayoutTooLarge("time", self.nodes, self.edges)


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
    `placeholders` the ids drawn as missing dependencies. Items without any link sit in a grid
    under the rest: `grid` lists its columns (top to bottom), and the `layer` of a grid box is
    `len(layers)` plus its grid column.
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
    grid: tuple[tuple[str, ...], ...] = ()  # the grid of items without links, column by column


