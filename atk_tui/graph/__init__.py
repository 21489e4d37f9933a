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
   edge are left out: see step 4), then barycenter sweeps, down then up, keeping the
   best order seen, with Gansner's transpose step on small graphs. The effort shrinks with the
   size (`_sweep_budget`: 12 sweeps + transpose up to 3,000 elements, 4 up to 20,000, 2 up to
   `CROSSING_REDUCTION_LIMIT`, none beyond, where the BFS order stays);
4. rows: each column is placed by an ordered L1 fit to its neighbours' ports (pool-adjacent-
   violators on medians: a node lines up exactly with one neighbour instead of bending both
   edges), one round towards predecessors, one towards successors, one balanced. Above
   15,000 elements only the balanced round runs, with means (O(1) merges) instead of medians;
   items without any edge then fill a grid under the rest, rows as wide as the caller's
   `grid_width` (a screen), in id order (`grid.place_grid`);
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

from atk_tui.graph.canvas import sanitize_label, truncate_cells
from atk_tui.graph.grid import DEFAULT_GRID_WIDTH
from atk_tui.graph.layering import subgraph_around
from atk_tui.graph.model import (
    CROSSING_REDUCTION_LIMIT,
    DEFAULT_MAX_LABEL_CELLS,
    EDGE_CYCLE_STYLE,
    EDGE_STYLE,
    STATUSES,
    EdgeRoute,
    GraphNode,
    Layout,
    LayoutBudget,
    LayoutTooLarge,
    NodeBox,
)
from atk_tui.graph.navigation import nearest_in_direction, neighbors, node_at
from atk_tui.graph.pipeline import layout_graph

__all__ = [
    "CROSSING_REDUCTION_LIMIT",
    "DEFAULT_GRID_WIDTH",
    "DEFAULT_MAX_LABEL_CELLS",
    "EDGE_CYCLE_STYLE",
    "EDGE_STYLE",
    "STATUSES",
    "EdgeRoute",
    "GraphNode",
    "Layout",
    "LayoutBudget",
    "LayoutTooLarge",
    "NodeBox",
    "layout_graph",
    "nearest_in_direction",
    "neighbors",
    "node_at",
    "sanitize_label",
    "subgraph_around",
    "truncate_cells",
]
