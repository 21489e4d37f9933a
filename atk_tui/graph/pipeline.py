"""The pipeline: the stages in order (`layout_graph`), one named step each (`_Run`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise

from atk_tui.graph.canvas import _box_text, _Canvas, cell_len
from atk_tui.graph.grid import DEFAULT_GRID_WIDTH, GRID_GAP_Y, place_grid
from atk_tui.graph.layering import layer_edges
from atk_tui.graph.model import (
    _ARROW_BACK,
    _ARROW_IN,
    _ARROW_LOOP,
    _E,
    _N,
    _S,
    _W,
    DEFAULT_MAX_LABEL_CELLS,
    EDGE_CYCLE_STYLE,
    EDGE_STYLE,
    EdgeRoute,
    GraphNode,
    Layout,
    LayoutBudget,
    LayoutTooLarge,
    NodeBox,
)
from atk_tui.graph.ordering import _order_layers, _sweep_budget
from atk_tui.graph.placement import _assign_rows
from atk_tui.graph.routing import _Net, _route_channel

# --------------------------------------------------------------------------------------------
# the layout


def _no_check() -> None:
    """The budget check of a layout without a budget."""


def layout_graph(
    nodes: Sequence[GraphNode],
    edges: Iterable[tuple[str, str]],
    *,
    max_label_cells: int = DEFAULT_MAX_LABEL_CELLS,
    max_sweeps: int | None = None,
    grid_width: int | None = None,
    budget: LayoutBudget | None = None,
) -> Layout:
    """Lay out and render the dependency graph.

    `edges` are `(dependency, dependent)`; duplicates are ignored, and an id that is not among
    `nodes` gets a placeholder node (status `missing`). Labels are sanitised and cut to
    `max_label_cells` cells; a node with `repo` gets a second line for it. `max_sweeps` overrides
    the size-based number of barycenter sweeps (0 disables crossing reduction). Items without
    any link are laid out in a grid under the rest, `grid_width` cells wide (a screen's width;
    default: the width of the rest, or `DEFAULT_GRID_WIDTH` when there is no rest).

    `budget` (none: no limit) bounds the work: over it, `LayoutTooLarge` is raised, before the
    dummy nodes are made when there would be too many, else at the next check (between stages
    and in every loop over the columns), so a caller in a thread can give up on time or when
    cancelled.
    """
    by_id, edge_set = _collect_nodes(nodes, edges)
    if not by_id:
        return Layout(width=0, height=0, nodes={}, edges=(), lines=[], spans=[])
    run = _Run(by_id, edge_set, budget)
    run.break_cycles_and_layer()
    run.chain_long_edges()
    run.order_columns(max_sweeps)
    run.size_boxes(max_label_cells)
    run.assign_rows()
    run.route_channels()
    run.place_columns()
    run.place_grid(grid_width)
    return run.draw()


def _collect_nodes(
    nodes: Sequence[GraphNode], edges: Iterable[tuple[str, str]]
) -> tuple[dict[str, GraphNode], set[tuple[str, str]]]:
    """The nodes by id (a placeholder for an edge's end that is not among them) and the edges,
    without duplicates."""
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
    return by_id, edge_set


class _Run:
    """One layout, stage by stage: each method is one step of `layout_graph` (the order it calls
    them in) and keeps what it finds for the next. Elements are numbered: the real nodes
    0..n-1 (in id order), then the dummy nodes of long edges."""

    def __init__(
        self, by_id: dict[str, GraphNode], edge_set: set[tuple[str, str]], budget: LayoutBudget | None
    ) -> None:
        self.by_id = by_id
        self.ids = ids = sorted(by_id)
        index = {node_id: i for i, node_id in enumerate(ids)}
        self.n = n = len(ids)
        self.orig = sorted((index[a], index[b]) for a, b in edge_set)
        self.budget = budget
        self.check: Callable[[], None] = budget.check if budget is not None else _no_check
        if budget is not None:
            budget.nodes, budget.edges = n, len(self.orig)
            if n > budget.max_elements:
                raise LayoutTooLarge("elements", n, len(self.orig), n, 0, budget.max_elements)

    # -- 1. cycles and layers ---------------------------------------------------------------------

    def break_cycles_and_layer(self) -> None:
        """Cycles broken, a layer (column) for every node; over the budget before any dummy node
        is made when the long edges would need too many."""
        n, budget = self.n, self.budget
        self.self_loops, self.comp, self.back, self.flags, self.layer_of = layer_edges(n, self.orig)
        self.nlayers = max(self.layer_of) + 1
        if budget is not None:
            layer_of = self.layer_of
            elements = n + sum(layer_of[v] - layer_of[u] - 1 for u, v in self.flags)
            if elements > budget.max_elements:
                raise LayoutTooLarge("elements", n, len(self.orig), elements, 0, budget.max_elements)
            self.check()

    # -- 2. dummy chains --------------------------------------------------------------------------

    def chain_long_edges(self) -> None:
        """A chain of dummy nodes for every edge longer than one layer; the predecessors and
        successors of every element, and each segment's edge flags."""
        n, layer_of = self.n, self.layer_of
        pred: list[list[int]] = [[] for _ in range(n)]
        succ: list[list[int]] = [[] for _ in range(n)]
        elem_layer = list(layer_of)
        chain_of: dict[tuple[int, int], list[int]] = {}
        seg_flags: dict[tuple[int, int], list[bool]] = {}
        for (u, v), fl in sorted(self.flags.items()):
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
        self.pred, self.succ, self.elem_layer = pred, succ, elem_layer
        self.chain_of, self.seg_flags = chain_of, seg_flags
        self.total = total = len(elem_layer)
        self.dummy = [e >= n for e in range(total)]

    # -- 3. order in the columns ------------------------------------------------------------------

    def order_columns(self, max_sweeps: int | None) -> None:
        """Crossing reduction over the linked elements; items without any edge set aside for the
        grid, except one with only a self-loop: it waits at the bottom of the first column, where
        its loop is drawn."""
        n, pred, succ, layer_of = self.n, self.pred, self.succ, self.layer_of
        sweeps, transpose = _sweep_budget(self.total + len(self.seg_flags))
        if max_sweeps is not None:
            sweeps = max_sweeps
        isolated = [v for v in range(n) if not pred[v] and not succ[v]]
        self.gridded = [v for v in isolated if v not in self.self_loops]
        self.in_grid = in_grid = set(self.gridded)
        start_order = sorted((v for v in range(n) if pred[v] or succ[v]), key=lambda v: (layer_of[v], v))
        self.check()
        self.layers, self.crossings = _order_layers(
            self.nlayers, self.elem_layer, start_order, pred, succ, sweeps, transpose, self.check
        )
        self.check()
        self.layers[0].extend(v for v in isolated if v not in in_grid)
        self.pos = pos = [0] * self.total
        for layer in self.layers:
            for i, v in enumerate(layer):
                pos[v] = i

    # -- 4. boxes ---------------------------------------------------------------------------------

    def size_boxes(self, max_label_cells: int) -> None:
        """Each node's title and repo lines (sanitised, cut), its box's size, each column's width."""
        by_id, ids, total = self.by_id, self.ids, self.total
        label_cells = max(1, max_label_cells)
        self.titles, self.repos = titles, repos = [], []
        self.title_cells, self.repo_cells = title_cells, repo_cells = [], []
        self.box_w = box_w = [0] * total
        self.box_h = box_h = [1] * total
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
        self.col_w = col_w = [1] * self.nlayers
        elem_layer, in_grid = self.elem_layer, self.in_grid
        for v in range(self.n):
            if box_w[v] > col_w[elem_layer[v]] and v not in in_grid:
                col_w[elem_layer[v]] = box_w[v]

    # -- 5. rows ----------------------------------------------------------------------------------

    def assign_rows(self) -> None:
        """Every element's row (a self-loop takes one more under its box); the drawn part moved
        to the top when there is a grid (it goes under it)."""
        total, self_loops, box_h, dummy = self.total, self.self_loops, self.box_h, self.dummy
        self.extent = extent = [box_h[v] + (1 if v in self_loops else 0) for v in range(total)]
        self.port = port = [0 if dummy[v] else 1 for v in range(total)]
        self.y = y = _assign_rows(self.layers, self.pred, self.succ, extent, port, dummy)
        self.drawn: list[int] = []
        if self.gridded:  # before the nets take their rows
            in_grid = self.in_grid
            self.drawn = drawn = [v for v in range(total) if v not in in_grid]
            top = min((y[v] for v in drawn), default=0)
            for v in drawn:
                y[v] -= top
        self.check()

    # -- 6. routing -------------------------------------------------------------------------------

    def route_channels(self) -> None:
        """One net per element with successors (one per group with exactly the same targets),
        each given a vertical track in the channel right of its column."""
        nlayers, layers, succ, y, port = self.nlayers, self.layers, self.succ, self.y, self.port
        self.channel_nets = channel_nets = [[] for _ in range(nlayers)]
        chan_tracks = [0] * nlayers
        for li in range(nlayers - 1):
            if li % 64 == 0:
                self.check()
            by_targets: dict[tuple[int, ...], list[tuple[int, int, int, int]]] = {}
            for a in layers[li]:  # in column order, so nets come out in a deterministic order
                if succ[a]:
                    segs = by_targets.setdefault(tuple(sorted(succ[a])), [])
                    segs.extend((y[a] + port[a], a, y[b] + port[b], b) for b in succ[a])
            channel_nets[li] = [_Net(segs) for segs in by_targets.values()]
            chan_tracks[li] = _route_channel(channel_nets[li])
        self.chan_w = [max(4, t + 3) for t in chan_tracks]

    def place_columns(self) -> None:
        """Each column's x (columns and channels side by side) and the drawing's size."""
        nlayers, col_w, chan_w = self.nlayers, self.col_w, self.chan_w
        self.col_x = col_x = [0] * nlayers
        for li in range(1, nlayers):
            col_x[li] = col_x[li - 1] + col_w[li - 1] + chan_w[li - 1]
        self.width = col_x[-1] + col_w[-1]
        y, extent = self.y, self.extent
        self.height = max(y[v] + extent[v] for v in range(self.total))

    # -- 7. the grid ------------------------------------------------------------------------------

    def place_grid(self, grid_width: int | None) -> None:
        """Items without any link in rows under the rest (`grid.place_grid`), `grid_width` wide."""
        self.grid_cols: list[list[int]] = []
        self.grid_at: dict[int, tuple[int, int]] = {}
        self.grid_w = 0
        if not self.gridded:
            return
        y, extent, drawn, box_w, box_h = self.y, self.extent, self.drawn, self.box_w, self.box_h
        height = max((y[v] + extent[v] for v in drawn), default=0)
        width = self.width if drawn else 0
        fill = grid_width if grid_width is not None else (width or DEFAULT_GRID_WIDTH)
        top = height + GRID_GAP_Y if drawn else 0
        self.grid_w, self.grid_cols, grid_at = place_grid(self.gridded, box_w, box_h, top=top, width=fill)
        self.grid_at = grid_at
        for col in self.grid_cols:
            for row, v in enumerate(col):
                self.pos[v] = row
        self.width = max(width, max(x for x, _ in grid_at.values()) + self.grid_w)
        self.height = max(height, max(gy + box_h[v] for v, (_, gy) in grid_at.items()))

    # -- 8. drawing -------------------------------------------------------------------------------

    def draw(self) -> Layout:
        """The canvas (within the budget's cells): lines, then boxes over them; rendered."""
        budget, width, height = self.budget, self.width, self.height
        if budget is not None and width * height > budget.max_cells:
            raise LayoutTooLarge("cells", self.n, len(self.orig), self.total, width * height, budget.max_cells)
        self.check()
        canvas = _Canvas(width, height)
        self.style_keys: list[str] = ["", EDGE_STYLE, EDGE_CYCLE_STYLE]
        self.style_id: dict[str, int] = {EDGE_STYLE: 1, EDGE_CYCLE_STYLE: 2}
        self.find_edge_ends()
        self.draw_dummies(canvas)
        self.draw_channels(canvas)
        self.draw_self_loops(canvas)
        boxes = self.draw_boxes(canvas)
        self.check()
        lines, spans = canvas.render(self.style_keys)
        return self.result(boxes, lines, spans)

    def style(self, key: str) -> int:
        """The canvas's style id for `key` (a node status), a new one the first time."""
        found = self.style_id.get(key)
        if found is None:
            if len(self.style_keys) >= 255:
                raise ValueError("too many distinct node statuses")
            found = self.style_id[key] = len(self.style_keys)
            self.style_keys.append(key)
        return found

    def find_edge_ends(self) -> None:
        """Which ports of each node an edge uses: one coming in at all (`in_any`), a normal one
        (an arrowhead, `in_normal`; `in_plain` when one of those is not on a cycle), a normal one
        going out (`out_normal`), a reversed one going out (`out_back`, a `◀` on its right)."""
        total, seg_flags, dummy = self.total, self.seg_flags, self.dummy
        self.in_normal = in_normal = [False] * total
        self.in_any = in_any = [False] * total
        self.in_plain = in_plain = [False] * total
        self.out_normal = out_normal = [False] * total
        self.out_back = out_back = [False] * total
        for nets in self.channel_nets:
            for net in nets:
                for _s, a, _t, b in net.segs:
                    fl = seg_flags[(a, b)]
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

    def draw_dummies(self, canvas: _Canvas) -> None:
        """A dummy node: a line straight through its column."""
        elem_layer, seg_flags, pred, y, col_x, col_w = (
            self.elem_layer, self.seg_flags, self.pred, self.y, self.col_x, self.col_w
        )  # fmt: skip
        hline = canvas.hline
        for v in range(self.n, self.total):
            li = elem_layer[v]
            fl = seg_flags[(pred[v][0], v)]
            hline(y[v], col_x[li], col_x[li] + col_w[li], 2 if fl[2] else 1)

    def draw_channels(self, canvas: _Canvas) -> None:
        """Each net in its channel: straight across, or from its sources to its track and on to
        its targets; style 1 where a plain edge runs, 2 where only cycle edges do."""
        hline, vline, mark = canvas.hline, canvas.vline, canvas.mark
        seg_flags, col_x, col_w = self.seg_flags, self.col_x, self.col_w
        for li in range(self.nlayers - 1):
            cx = col_x[li] + col_w[li]  # first cell of the channel
            end = col_x[li + 1]  # first cell after it
            for net in self.channel_nets[li]:
                src_style: dict[int, int] = {}
                tgt_style: dict[int, int] = {}
                for s, a, t, b in net.segs:
                    style = 2 if seg_flags[(a, b)][2] else 1
                    src_style[s] = min(src_style.get(s, 2), style)
                    tgt_style[t] = min(tgt_style.get(t, 2), style)
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

    def draw_self_loops(self, canvas: _Canvas) -> None:
        """A small loop under the box: out of its bottom, back in with ▲."""
        for v in sorted(self.self_loops):
            li = self.elem_layer[v]
            bx, below, w = self.col_x[li], self.y[v] + self.box_h[v], self.col_w[li]
            canvas.mark(below, bx + w - 2, _N | _W, 2)
            canvas.hline(below, bx + 2, bx + w - 2, 2)
            canvas.overlay(below, bx + 1, _ARROW_LOOP, 1, 2)

    def draw_boxes(self, canvas: _Canvas) -> dict[str, NodeBox]:
        """Every node's box (over the lines), with its port junctions and arrowheads; where
        each box is."""
        boxes: dict[str, NodeBox] = {}
        nlayers, ids, by_id, grid_at, grid_w = self.nlayers, self.ids, self.by_id, self.grid_at, self.grid_w
        elem_layer, col_x, col_w, y, box_h, pos = self.elem_layer, self.col_x, self.col_w, self.y, self.box_h, self.pos
        titles, repos, title_cells, repo_cells = self.titles, self.repos, self.title_cells, self.repo_cells
        in_any, in_normal, in_plain, out_normal, out_back = (
            self.in_any, self.in_normal, self.in_plain, self.out_normal, self.out_back
        )  # fmt: skip
        self_loops, sid, overlay = self.self_loops, self.style, canvas.overlay
        grid_layer = {v: nlayers + c for c, col in enumerate(self.grid_cols) for v in col}
        for v in range(self.n):
            li = elem_layer[v]
            bx, by_, w, h = col_x[li], y[v], col_w[li], box_h[v]
            if v in grid_at:
                (bx, by_), w, li = grid_at[v], grid_w, grid_layer[v]
            node = by_id[ids[v]]
            boxes[ids[v]] = NodeBox(bx, by_, w, h, li, pos[v])
            hz, vt = ("╌", "┆") if node.placeholder else ("─", "│")
            left_port = "┤" if in_any[v] and not in_normal[v] else vt
            right_port = "├" if out_normal[v] else vt
            status = sid(node.status)
            overlay(by_, bx, "┌" + hz * (w - 2) + "┐", w, status)
            title = left_port + " " + titles[v] + " " * (w - 4 - title_cells[v]) + " " + right_port
            overlay(by_ + 1, bx, title, w, status)
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
        return boxes

    # -- 9. the result ----------------------------------------------------------------------------

    def edge_routes(self) -> list[EdgeRoute]:
        """Every edge as drawn: the (column, place) of each element it passes."""
        ids, elem_layer, pos = self.ids, self.elem_layer, self.pos
        back, comp, chain_of = self.back, self.comp, self.chain_of
        routes: list[EdgeRoute] = []
        for u, v in self.orig:
            if u == v:
                hops: tuple[tuple[int, int], ...] = ((elem_layer[u], pos[u]),)
                routes.append(EdgeRoute(ids[u], ids[v], False, True, hops))
                continue
            is_back = (u, v) in back
            chain = chain_of[(v, u) if is_back else (u, v)]
            hops = tuple((elem_layer[e], pos[e]) for e in chain)
            routes.append(EdgeRoute(ids[u], ids[v], is_back, comp[u] == comp[v], hops))
        return routes

    def result(self, boxes: dict[str, NodeBox], lines: list[str], spans: list[tuple[int, int, int, str]]) -> Layout:
        """The `Layout`: the drawing, where everything is, and the adjacency for navigation."""
        ids, n = self.ids, self.n
        deps: dict[str, list[str]] = {node_id: [] for node_id in ids}
        dependents: dict[str, list[str]] = {node_id: [] for node_id in ids}
        for u, v in self.orig:
            deps[ids[v]].append(ids[u])
            dependents[ids[u]].append(ids[v])
        return Layout(
            width=self.width,
            height=self.height,
            nodes=boxes,
            edges=tuple(self.edge_routes()),
            lines=lines,
            spans=spans,
            layers=tuple(tuple(ids[v] for v in layer if v < n) for layer in self.layers),
            grid=tuple(tuple(ids[v] for v in col) for col in self.grid_cols),
            deps={k: tuple(v) for k, v in deps.items()},
            dependents={k: tuple(v) for k, v in dependents.items()},
            crossings=self.crossings,
            placeholders=frozenset(node_id for node_id in ids if self.by_id[node_id].placeholder),
        )
