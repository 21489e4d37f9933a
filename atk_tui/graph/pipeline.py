"""The pipeline: the stages in order (`layout_graph`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
    check = budget.check if budget is not None else _no_check
    if budget is not None:
        budget.nodes, budget.edges = n, len(orig)
        if n > budget.max_elements:
            raise LayoutTooLarge("elements", n, len(orig), n, 0, budget.max_elements)
    self_loops, comp, back, flags, layer_of = layer_edges(n, orig)
    nlayers = max(layer_of) + 1
    if budget is not None:
        elements = n + sum(layer_of[v] - layer_of[u] - 1 for u, v in flags)
        if elements > budget.max_elements:
            raise LayoutTooLarge("elements", n, len(orig), elements, 0, budget.max_elements)
        check()

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
    # items without any edge go to a grid under the rest (`place_grid`); one with only a
    # self-loop waits at the bottom of the first column, where its loop is drawn
    isolated = [v for v in range(n) if not pred[v] and not succ[v]]
    gridded = [v for v in isolated if v not in self_loops]
    in_grid = set(gridded)
    start_order = sorted((v for v in range(n) if pred[v] or succ[v]), key=lambda v: (layer_of[v], v))
    check()
    layers, crossings = _order_layers(nlayers, elem_layer, start_order, pred, succ, sweeps, transpose, check)
    check()
    layers[0].extend(v for v in isolated if v not in in_grid)
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
        if box_w[v] > col_w[elem_layer[v]] and v not in in_grid:
            col_w[elem_layer[v]] = box_w[v]
    extent = [box_h[v] + (1 if v in self_loops else 0) for v in range(total)]
    port = [0 if dummy[v] else 1 for v in range(total)]
    y = _assign_rows(layers, pred, succ, extent, port, dummy)
    if gridded:  # the drawn part starts at the top (the grid goes under it): before the nets take their rows
        drawn = [v for v in range(total) if v not in in_grid]
        top = min((y[v] for v in drawn), default=0)
        for v in drawn:
            y[v] -= top
    check()

    # routing: one net per element with successors
    channel_nets: list[list[_Net]] = [[] for _ in range(nlayers)]
    chan_tracks = [0] * nlayers
    for li in range(nlayers - 1):
        if li % 64 == 0:
            check()
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
    grid_cols: list[list[int]] = []
    grid_at: dict[int, tuple[int, int]] = {}
    grid_w = 0
    if gridded:
        height = max((y[v] + extent[v] for v in drawn), default=0)
        width = width if drawn else 0
        fill = grid_width if grid_width is not None else (width or DEFAULT_GRID_WIDTH)
        grid_w, grid_cols, grid_at = place_grid(gridded, box_w, box_h, top=height + GRID_GAP_Y if drawn else 0, width=fill)
        for col in grid_cols:
            for row, v in enumerate(col):
                pos[v] = row
        width = max(width, max(x for x, _ in grid_at.values()) + grid_w)
        height = max(height, max(gy + box_h[v] for v, (_, gy) in grid_at.items()))

    # drawing: direction masks and style ids
    if budget is not None and width * height > budget.max_cells:
        raise LayoutTooLarge("cells", n, len(orig), total, width * height, budget.max_cells)
    check()
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
    grid_layer = {v: nlayers + c for c, col in enumerate(grid_cols) for v in col}
    for v in range(n):
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

    check()
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
        grid=tuple(tuple(ids[v] for v in col) for col in grid_cols),
        deps={k: tuple(v) for k, v in deps.items()},
        dependents={k: tuple(v) for k, v in dependents.items()},
        crossings=crossings,
        placeholders=frozenset(node_id for node_id in ids if by_id[node_id].placeholder),
    )


