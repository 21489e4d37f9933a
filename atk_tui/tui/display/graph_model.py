"""The dependency graph's model, apart from the screen that draws it (`screens/graph.py`):
which items a graph around one item (or of the whole active queue) holds (`select_graph`), what
each box says (`describe_graph`: title, status, repo, cycles), what a graph too large to draw
shows instead (`neighbourhood`, `too_large_note`), and a layout widened to the screen
(`widened`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from atk_tui.domain.model import TERMINAL, deps_of
from atk_tui.domain.readiness import find_cycles
from atk_tui.graph import (
    DEFAULT_MAX_LABEL_CELLS,
    GraphNode,
    Layout,
    LayoutTooLarge,
    layout_graph,
    subgraph_around,
)
from atk_tui.service import QueueView
from atk_tui.text.cells import cell_len
from atk_tui.tui.display.present import STATUS_GLYPH

#: a graph too large to draw: the focused item and at most this many direct links
FALLBACK_NODES = 120


@dataclass(frozen=True)
class NodeInfo:
    """What the info line says about a node."""

    status: str
    title: str
    state: str | None  # None: missing
    repo: str = ""
    reason: str = ""  # the first blocking reason, if any


@dataclass
class GraphModel:
    """The nodes and edges to draw, and what the screen says about them."""

    nodes: list[GraphNode]
    edges: list[tuple[str, str]]
    info: dict[str, NodeInfo]
    cycles: list[tuple[str, ...]] = field(default_factory=list)
    center: str | None = None
    whole: bool = False
    hidden_terminal: int = 0
    ref_repo: str = ""


_STAMP = re.compile(r"^\d{8}-\d{6}-(?=.)")


def _short_name(filename: str) -> str:
    return _STAMP.sub("", filename.removesuffix(".md")) or filename


@dataclass
class GraphSelection:
    """Which items a graph holds, before anything about them is looked up."""

    shown: set[str]
    edges: list[tuple[str, str]]
    center: str | None
    whole: bool
    hidden_terminal: int
    terminal: list[tuple[str, str]]  # (name, state) of the done items drawn


def select_graph(
    view: QueueView, center: str | None, *, whole: bool = False, show_terminal: bool = True
) -> GraphSelection:
    """The items around `center` (its transitive dependencies and dependents), or every active
    item when `whole` or when `center` is not an active item, with the edges among them."""
    items = view.items
    states = view.snapshot.states
    if center not in items:
        center = None
        whole = True
    edges: set[tuple[str, str]] = set()
    hidden: dict[str, list[str]] = {}  # a hidden terminal dependency -> its dependents
    for name, item in items.items():
        for dep in deps_of(item.depends_on):
            if not show_terminal and dep not in items and states.get(dep) in TERMINAL:
                hidden.setdefault(dep, []).append(name)
                continue
            edges.add((dep, name))
    if whole:
        shown = set(items)
        shown.update(d for d, _ in edges)
        shown_edges = sorted(edges)
    else:
        assert center is not None
        ids = set(items)
        ids.update(d for d, _ in edges)
        shown, shown_edges = subgraph_around(ids, edges, center)
        hidden = {h: users for h, users in hidden.items() if any(u in shown for u in users)}
    terminal = sorted((n, states[n]) for n in shown if n not in items and states.get(n) in TERMINAL)
    return GraphSelection(shown, shown_edges, center, whole, len(hidden), terminal)


def describe_graph(view: QueueView, sel: GraphSelection, known: Mapping[str, tuple[str, str]]) -> GraphModel:
    """Boxes for the selected items: label (status glyph and title), status, repo; `known`
    gives the title and repo of done items by name (others show their filename)."""
    items = view.items
    states = view.snapshot.states
    ref_repo = items[sel.center].target_repo if sel.center is not None else ""
    nodes: list[GraphNode] = []
    info: dict[str, NodeInfo] = {}
    for node_id in sorted(sel.shown):
        item = items.get(node_id)
        if item is not None:
            j = view.judgements.get(node_id)
            status = j.status if j is not None else ("defective" if item.defects else "blocked")
            if status in ("editing", "planning"):
                status = "hold"  # out of automatic processing, drawn as hold (mq, SPEC §12)
            reason = j.reasons[0].message if j is not None and j.reasons else ""
            title, repo, state = item.title or node_id, item.target_repo, item.state
        elif node_id in states:
            status, reason, state = "terminal", "", states[node_id]
            title, repo = known.get(node_id, (node_id, ""))
        else:
            # the box shows the name without its timestamp: the part a person recognises
            nodes.append(GraphNode(node_id, _short_name(node_id), "missing", repo="✗ missing", placeholder=True))
            info[node_id] = NodeInfo("missing", node_id, None, reason="no item has this name")
            continue
        label = f"{STATUS_GLYPH.get(status, '·')} {title}"
        shown_repo = repo if repo and repo != ref_repo else ""
        nodes.append(GraphNode(node_id, label, status, repo=shown_repo))
        info[node_id] = NodeInfo(status, title, state, repo, reason)

    # cycles among the active items drawn (self-dependencies included)
    graph: dict[str, list[str]] = {}
    for dep, dependent in sel.edges:
        if dependent in items and dep in items:
            graph.setdefault(dependent, []).append(dep)
    cycles = find_cycles(graph, max_per_component=20) if graph else []
    return GraphModel(nodes, sel.edges, info, cycles, sel.center, sel.whole, sel.hidden_terminal, ref_repo)


def build_graph(
    view: QueueView,
    center: str | None,
    *,
    whole: bool = False,
    show_terminal: bool = True,
    terminal_info: Callable[[list[tuple[str, str]]], Mapping[str, tuple[str, str]]] | None = None,
) -> GraphModel:
    """`select_graph` then `describe_graph`; `terminal_info` is given the `(name, state)` of the
    done items drawn and returns `name -> (title, repo)` for those it knows."""
    sel = select_graph(view, center, whole=whole, show_terminal=show_terminal)
    known = terminal_info(sel.terminal) if terminal_info is not None and sel.terminal else {}
    return describe_graph(view, sel, known)


@dataclass
class GraphResult:
    model: GraphModel
    layout: Layout | None  # None: too large, nothing drawn (`note` says why)
    token: int
    note: str = ""  # the graph was too large: what it holds and what is shown instead


def too_large_note(exc: LayoutTooLarge, shown: str) -> str:
    """What the screen says about a graph over the layout budget: its numbers, why, what is
    shown instead."""
    why = {
        "elements": f"its long links need {exc.elements:,} layout cells, over the {int(exc.limit):,} allowed",
        "cells": f"its canvas would be {exc.cells:,} cells, over the {int(exc.limit):,} allowed",
        "time": "laying it out took longer than allowed",
    }.get(exc.reason, exc.reason)
    return f"too large to draw: {exc.nodes:,} items, {exc.edges:,} links ({why}) — {shown}"


def neighbourhood(
    view: QueueView, sel: GraphSelection, focus: str | None, limit: int = FALLBACK_NODES
) -> GraphSelection:
    """`focus` and what it links to directly within `sel` (its dependencies first, then its
    dependents, by name), at most `limit` of them: what a graph too large to draw shows."""
    if focus is None or focus not in sel.shown:
        degree: dict[str, int] = {}
        for a, b in sel.edges:
            degree[a] = degree.get(a, 0) + 1
            degree[b] = degree.get(b, 0) + 1
        active = [n for n in sel.shown if n in view.items]
        focus = max(sorted(active), key=lambda n: degree.get(n, 0), default=None)
    if focus is None:
        return GraphSelection(set(), [], None, sel.whole, sel.hidden_terminal, [])
    deps = sorted({a for a, b in sel.edges if b == focus and a != focus})
    users = sorted({b for a, b in sel.edges if a == focus and b != focus})
    keep = {focus, *(deps + users)[:limit]}
    edges = [(a, b) for a, b in sel.edges if a in keep and b in keep and focus in (a, b)]
    terminal = [(n, st) for n, st in sel.terminal if n in keep]
    return GraphSelection(keep, edges, focus, sel.whole, sel.hidden_terminal, terminal)


#: the widest a box's title gets when the screen has room (cells), and up to how many items
#: the graph is laid out a second time to use that room
WIDE_LABEL_CELLS, WIDEN_NODES = 60, 400


def widened(model, layout, width: int, budget):  # type: ignore[no-untyped-def]
    """`layout` again with longer titles when the drawing leaves room across the screen and a
    title was cut (issue 29: titles were cut at 20 cells on a 160-column screen)."""
    columns = len(layout.layers)
    if not columns or layout.width >= width or len(model.nodes) > WIDEN_NODES:
        return layout
    longest = max((cell_len(n.label) for n in model.nodes), default=0)
    extra = (width - layout.width) // columns
    if longest <= DEFAULT_MAX_LABEL_CELLS or extra < 2:
        return layout
    cells = min(DEFAULT_MAX_LABEL_CELLS + extra, longest, WIDE_LABEL_CELLS)
    for _ in range(3):  # (a wide character that does not fit the cut leaves a cell or so over)
        wider = layout_graph(model.nodes, model.edges, max_label_cells=cells, grid_width=width, budget=budget)
        if wider.width <= width:
            return wider
        cells -= -(-(wider.width - width) // columns)
        if cells <= DEFAULT_MAX_LABEL_CELLS:
            break
    return layout
