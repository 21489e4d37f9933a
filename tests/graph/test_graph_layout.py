"""The dependency graph layout and its text rendering (SPEC §6, §10)."""

from __future__ import annotations

import random
import unicodedata
from itertools import combinations, pairwise

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len, split_graphemes

from atk_tui.graph import (
    DEFAULT_GRID_WIDTH,
    EDGE_CYCLE_STYLE,
    EDGE_STYLE,
    STATUSES,
    GraphNode,
    Layout,
    layout_graph,
    nearest_in_direction,
    neighbors,
    node_at,
    sanitize_label,
    subgraph_around,
    truncate_cells,
)


def node(node_id: str, status: str = "ready", label: str | None = None, **kw: object) -> GraphNode:
    return GraphNode(node_id, label if label is not None else f"item {node_id}", status, **kw)


def graph(edges: list[tuple[str, str]], **kw: object) -> Layout:
    ids = sorted({x for e in edges for x in e})
    return layout_graph([node(i) for i in ids], edges, **kw)


def cells(line: str) -> list[str]:
    """A line as terminal cells, measured like rich/Textual do (grapheme clusters): a wide
    cluster fills its cell and leaves "" in the next, a zero-width one joins the previous cell."""
    out: list[str] = []
    spans, _total = split_graphemes(line)
    for start, end, width in spans:
        if width == 0 and out:
            out[-1] += line[start:end]
        else:
            out.append(line[start:end])
            out.extend([""] * (width - 1))
    return out


def cell(layout: Layout, row: int, x: int) -> str:
    return cells(layout.lines[row])[x]


def segment_crossings(layout: Layout) -> int:
    """Crossings between consecutive columns, counted from the layout's order data alone."""
    segments: set[tuple[int, int, int]] = set()  # (layer, order here, order in the next layer)
    for edge in layout.edges:
        for (la, oa), (lb, ob) in pairwise(edge.hops):
            assert lb == la + 1, "a hop goes to the next column"
            segments.add((la, oa, ob))
    total = 0
    for (l1, a1, b1), (l2, a2, b2) in combinations(sorted(segments), 2):
        if l1 == l2 and (a1 - a2) * (b1 - b2) < 0:
            total += 1
    return total


def check_geometry(layout: Layout) -> None:
    """Invariants every layout keeps, whatever the input."""
    assert len(layout.lines) == layout.height
    for line in layout.lines:
        assert cell_len(line) == layout.width
    for node_id, box in layout.nodes.items():
        assert box.x >= 0 and box.x + box.w <= layout.width, node_id
        assert box.y >= 0 and box.y + box.h <= layout.height, node_id
        assert node_at(layout, box.x, box.y) == node_id
    for (id1, b1), (id2, b2) in combinations(layout.nodes.items(), 2):
        apart = b1.x + b1.w <= b2.x or b2.x + b2.w <= b1.x or b1.y + b1.h <= b2.y or b2.y + b2.h <= b1.y
        assert apart, f"{id1} and {id2} overlap"
    # spans tile every line exactly, in order, with known style keys
    by_row: dict[int, list[tuple[int, int, str]]] = {}
    for row, start, end, key in layout.spans:
        by_row.setdefault(row, []).append((start, end, key))
    assert set(by_row) == set(range(layout.height))
    known = set(STATUSES) | {EDGE_STYLE, EDGE_CYCLE_STYLE}
    for row, row_spans in by_row.items():
        at = 0
        for start, end, key in row_spans:
            assert start == at and end > start and key in known
            at = end
        assert at == len(layout.lines[row])
    # every box row is one span of the node's status, whatever the width of its characters
    statuses = {}
    for row, start, end, key in layout.spans:
        statuses[(row, start)] = (end, key)
    for box in layout.nodes.values():
        for row in range(box.y, box.y + box.h):
            start = sum(len(c) for c in cells(layout.lines[row])[: box.x])
            end, key = statuses[(row, start)]
            assert key in known - {EDGE_STYLE, EDGE_CYCLE_STYLE}
            assert cell_len(layout.lines[row][start:end]) == box.w


def check_edges(layout: Layout) -> None:
    """Every edge is drawn from the dependency to the dependent, with an arrowhead at the dependent."""
    for edge in layout.edges:
        dep, dependent = layout.nodes[edge.source], layout.nodes[edge.target]
        if edge.source == edge.target:
            assert edge.cycle and len(edge.hops) == 1
            assert cell(layout, dependent.y + dependent.h, dependent.x + 1) == "▲"
        elif edge.reversed:
            assert edge.cycle
            assert dep.layer > dependent.layer
            assert cell(layout, dependent.port_row, dependent.x + dependent.w) == "◀"
        else:
            assert dep.layer < dependent.layer
            assert cell(layout, dependent.port_row, dependent.x - 1) == "▶"
        if edge.source != edge.target:
            lo, hi = sorted((dep.layer, dependent.layer))
            assert [h[0] for h in edge.hops] == list(range(lo, hi + 1))


# --------------------------------------------------------------------------------------------


def sample_graph() -> tuple[list[GraphNode], list[tuple[str, str]]]:
    nodes = [
        node("a.md", "ready"),
        node("b.md", "blocked", repo="acme/web"),
        node("c.md", "waiting", label="漢字のタイトル"),
        node("d.md", "answered"),
        node("e.md", "cycle"),
        node("f.md", "cycle"),
        node("g.md", "hold"),
        node("lonely.md", "terminal"),
    ]
    edges = [
        ("a.md", "b.md"),
        ("a.md", "c.md"),
        ("b.md", "d.md"),
        ("c.md", "d.md"),
        ("a.md", "d.md"),
        ("d.md", "e.md"),
        ("e.md", "f.md"),
        ("f.md", "e.md"),
        ("g.md", "g.md"),
        ("ghost.md", "g.md"),
    ]
    return nodes, edges


def test_same_input_same_output_in_any_order() -> None:
    nodes, edges = sample_graph()
    first = layout_graph(nodes, edges)
    assert layout_graph(nodes, edges) == first
    rng = random.Random(4)
    for _ in range(5):
        shuffled_nodes, shuffled_edges = list(nodes), list(edges) + edges[:3]  # duplicates too
        rng.shuffle(shuffled_nodes)
        rng.shuffle(shuffled_edges)
        assert layout_graph(shuffled_nodes, shuffled_edges) == first
    check_geometry(first)
    check_edges(first)


def test_bigger_graph_is_deterministic_too() -> None:
    nodes, edges = realistic(120, 6, seed=9)
    edges = [*edges, ("wi-5-00.md", "wi-1-03.md"), ("wi-2-04.md", "wi-2-04.md")]  # a cycle, a self-loop
    first = layout_graph(nodes, edges)
    rng = random.Random(2)
    rng.shuffle(nodes)
    rng.shuffle(edges)
    assert layout_graph(nodes, edges) == first


CHAIN = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")]
TREE = [
    ("r", "x"),
    ("r", "y"),
    ("r", "z"),
    ("x", "x1"),
    ("x", "x2"),
    ("y", "y1"),
    ("z", "z1"),
    ("z", "z2"),
    ("y1", "w"),
]
DIAMOND = [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")]
FAN_IN_TREE = [(child, parent) for parent, child in TREE]


@pytest.mark.parametrize("edges", [CHAIN, TREE, DIAMOND, FAN_IN_TREE], ids=["chain", "tree", "diamond", "fan-in"])
def test_no_crossings_for_simple_shapes(edges: list[tuple[str, str]]) -> None:
    layout = graph(edges)
    assert segment_crossings(layout) == 0
    assert layout.crossings == 0
    check_geometry(layout)
    check_edges(layout)


def test_dependencies_sit_left_of_their_dependents() -> None:
    layout = graph([*DIAMOND, ("a", "e"), ("e", "d"), ("x", "d")])
    boxes = layout.nodes
    assert boxes["a"].layer == 0 and boxes["x"].layer == 0  # depend on nothing
    assert boxes["b"].layer == boxes["c"].layer == boxes["e"].layer == 1
    assert boxes["d"].layer == 2
    assert layout.layers[0] and set(layout.layers[2]) == {"d"}
    for edge in layout.edges:
        assert boxes[edge.source].x + boxes[edge.source].w < boxes[edge.target].x
    check_edges(layout)


def test_long_edges_pass_through_columns() -> None:
    layout = graph([("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")])
    long = next(e for e in layout.edges if (e.source, e.target) == ("a", "d"))
    assert len(long.hops) == 4  # through two dummy positions
    check_edges(layout)
    check_geometry(layout)


def test_diamond_rendering() -> None:
    layout = graph(DIAMOND)
    assert "\n".join(line.rstrip() for line in layout.lines) == (
        "┌────────┐    ┌────────┐\n"
        "│ item a ├─┬─▶│ item b ├─┐\n"
        "└────────┘ │  └────────┘ │\n"
        "           │             │\n"
        "           │  ┌────────┐ │  ┌────────┐\n"
        "           └─▶│ item c ├─┴─▶│ item d │\n"
        "              └────────┘    └────────┘"
    )


def test_two_cycle_and_self_loop_are_drawn_and_flagged() -> None:
    layout = graph([("a", "b"), ("b", "a"), ("c", "c"), ("a", "x")])
    by_pair = {(e.source, e.target): e for e in layout.edges}
    assert by_pair[("a", "b")].cycle and by_pair[("b", "a")].cycle
    assert by_pair[("a", "b")].reversed != by_pair[("b", "a")].reversed  # exactly one goes backwards
    assert by_pair[("c", "c")].cycle
    assert not by_pair[("a", "x")].cycle
    check_edges(layout)
    check_geometry(layout)
    keys = {key for *_rest, key in layout.spans}
    assert EDGE_CYCLE_STYLE in keys and EDGE_STYLE in keys
    # the cycle's cells are styled as cycle edges
    a, b = layout.nodes["a"], layout.nodes["b"]
    left, right = (a, b) if a.x < b.x else (b, a)
    row = left.port_row
    between = [key for r, s, e, key in layout.spans if r == row and s >= left.x + left.w and e <= right.x]
    assert EDGE_CYCLE_STYLE in between


def test_bigger_cycle_with_a_way_in() -> None:
    edges = [("s", "a"), ("a", "b"), ("b", "c"), ("c", "a"), ("c", "t")]
    layout = graph(edges)
    cyc = {(e.source, e.target) for e in layout.edges if e.cycle}
    assert cyc == {("a", "b"), ("b", "c"), ("c", "a")}
    assert sum(e.reversed for e in layout.edges) == 1
    check_edges(layout)
    check_geometry(layout)


def test_missing_dependency_is_a_dashed_placeholder() -> None:
    layout = layout_graph([node("a.md", "blocked")], [("ghost.md", "a.md")])
    assert "ghost.md" in layout.nodes and layout.placeholders == frozenset({"ghost.md"})
    box = layout.nodes["ghost.md"]
    top = "".join(cells(layout.lines[box.y])[box.x : box.x + box.w])
    side = cell(layout, box.y + 1, box.x)
    assert "╌" in top and side == "┆"
    assert "ghost.md" in layout.lines[box.port_row]
    assert any(key == "missing" and row == box.y for row, _s, _e, key in layout.spans)
    # an explicit placeholder node keeps its own label and status
    explicit = layout_graph(
        [node("a.md"), GraphNode("gone.md", "gone.md (missing)", "missing", placeholder=True)], [("gone.md", "a.md")]
    )
    assert "┆ gone.md (missing) ├" in "".join(explicit.lines)
    check_edges(layout)


def test_cjk_labels_are_cut_by_cell_width() -> None:
    title = "漢字のタイトルがとても長い場合"  # 15 double-width characters: 30 cells
    layout = layout_graph([node("a", label=title), node("b", label="short")], [("a", "b")], max_label_cells=10)
    box = layout.nodes["a"]
    row = layout.lines[box.port_row]
    assert "│ 漢字のタ… ├" in row  # 4 wide characters + the ellipsis = 9 cells: a fifth would not fit
    assert box.w == 9 + 4
    check_geometry(layout)
    check_edges(layout)


def test_truncate_cells() -> None:
    assert truncate_cells("short", 10) == "short"
    assert truncate_cells("exactly10!", 10) == "exactly10!"
    assert truncate_cells("a longer title", 8) == "a longe…"
    assert truncate_cells("漢字漢字", 8) == "漢字漢字"
    assert truncate_cells("漢字漢字", 5) == "漢字…"
    assert truncate_cells("漢字漢字", 4) == "漢…"
    assert truncate_cells("anything", 0) == ""
    family = "👨\u200d👩\u200d👧"  # one grapheme, two cells: never cut in the middle
    assert truncate_cells(family + "abc", 4) == family + "a…"
    assert truncate_cells(family + "abc", 2) == "…"
    for text in ("漢字かなカナabc", "e\u0301e\u0301e\u0301e\u0301", "ab漢字cd漢字"):
        for limit in range(1, 12):
            assert cell_len(truncate_cells(text, limit)) <= limit


UNSAFE = "\x00\x07\x08\x0b\x1b\x7f\x85\x9b\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\n\r\t"


def test_control_characters_never_reach_lines() -> None:
    nasty = "\x1b]52;c;SGVsbG8=\x07\x1b[31mred\u202eevil\u2066x\x9b2J\x7f"
    nodes = [
        node("a", label=nasty),
        node("b", label="tab\there\nnewline\r", repo="\x1b[1macme\u202e"),
        node("c", label="".join(UNSAFE)),
    ]
    layout = layout_graph(nodes, [("a", "b"), ("c", "b"), ("\x1b[2Jghost", "a")], max_label_cells=60)
    text = "".join(layout.lines)
    for ch in UNSAFE:
        assert ch not in text, repr(ch)
    for line in layout.lines:
        assert all(unicodedata.category(ch) not in ("Cc", "Cs") for ch in line)
    assert "\\x1b]52;c;SGVsbG8=\\x07" in text  # shown escaped, not dropped
    assert "\\u202e" in text and "\\x1b[2Jghost" in text
    check_geometry(layout)


def test_sanitize_label() -> None:
    assert sanitize_label("plain title") == "plain title"
    assert sanitize_label("漢字 and 😀") == "漢字 and 😀"
    assert sanitize_label("a\x1bb") == "a\\x1bb"
    assert sanitize_label("x\u202ey") == "x\\u202ey"
    assert sanitize_label("line\u2028sep") == "line\\u2028sep"
    assert sanitize_label("\x85") == "\\x85"


def realistic(n: int, levels: int, seed: int) -> tuple[list[GraphNode], list[tuple[str, str]]]:
    rng = random.Random(seed)
    per = n // levels
    ids = [[f"wi-{lvl}-{i:02d}.md" for i in range(per)] for lvl in range(levels)]
    words = ["fix login", "refactor store", "add cache", "docs", "更新する", "split parser"]
    nodes = [
        GraphNode(i, f"{rng.choice(words)} {i[3:-3]}", rng.choice(STATUSES[:6]), repo=rng.choice(["", "acme/web"]))
        for level in ids
        for i in level
    ]
    edges = set()
    for lvl in range(1, levels):
        for i, dependent in enumerate(ids[lvl]):
            for _ in range(rng.choice([1, 1, 2])):
                j = min(per - 1, max(0, i + rng.randint(-2, 2)))
                edges.add((ids[lvl - 1][j], dependent))
    return nodes, sorted(edges)


def test_fifty_nodes_fit_a_reasonable_canvas() -> None:
    nodes, edges = realistic(50, 5, seed=1)
    layout = layout_graph(nodes, edges)
    assert len(layout.layers) == 5
    # five columns of boxes at most 24 cells wide (20-cell labels), with routing channels between
    assert layout.width <= 5 * 24 + 4 * 12
    assert layout.height <= 10 * 5 + 15  # ten boxes of up to four rows, one apart, and some slack
    assert segment_crossings(layout) == layout.crossings
    check_geometry(layout)
    check_edges(layout)


def test_navigation() -> None:
    layout = graph([*DIAMOND, ("c", "e")])
    assert neighbors(layout, "a") == {"deps": [], "dependents": ["b", "c"], "up": [], "down": []}
    nb = neighbors(layout, "d")
    assert nb["deps"] == ["b", "c"] and nb["dependents"] == []
    top, bottom = layout.layers[1][0], layout.layers[1][1]
    assert neighbors(layout, top)["down"] == [bottom] and neighbors(layout, bottom)["up"] == [top]
    # along edges first: from a, right goes to the dependent closest in rows
    first = nearest_in_direction(layout, "a", "right")
    assert first in ("b", "c")
    assert layout.nodes[first].port_row == layout.nodes["a"].port_row
    assert nearest_in_direction(layout, "a", "left") is None
    assert nearest_in_direction(layout, "d", "left") in ("b", "c")
    assert nearest_in_direction(layout, top, "down") == bottom
    assert nearest_in_direction(layout, top, "up") is None
    assert nearest_in_direction(layout, "e", "left") == "c"
    with pytest.raises(ValueError):
        nearest_in_direction(layout, "a", "sideways")


def test_navigation_falls_back_to_the_nearest_column() -> None:
    layout = graph([("a", "b"), ("c", "d"), ("d", "e")])
    # b has no dependent: right goes to the closest box in the next column to the right
    assert nearest_in_direction(layout, "b", "right") == "e"
    assert nearest_in_direction(layout, "e", "right") is None


def test_navigation_through_a_cycle() -> None:
    layout = graph([("a", "b"), ("b", "a")])
    left, right = sorted("ab", key=lambda i: layout.nodes[i].x)
    assert nearest_in_direction(layout, left, "right") == right
    assert nearest_in_direction(layout, right, "left") == left
    assert neighbors(layout, "a")["deps"] == ["b"] and neighbors(layout, "a")["dependents"] == ["b"]


def test_subgraph_around() -> None:
    ids = ["a", "b", "c", "d", "e", "x", "y", "p", "q"]
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("x", "d"), ("c", "e"), ("y", "x"), ("p", "q"), ("d", "b")]
    found, sub = subgraph_around(ids, edges, "c")
    # c's dependencies: b, a, and through the cycle b->c->d->b also d and d's x and y;
    # its dependents: d, e, b. p and q are unrelated.
    assert found == {"a", "b", "c", "d", "e", "x", "y"}
    assert sub == sorted(e for e in edges if "p" not in e)
    found, sub = subgraph_around(ids, edges, "x")
    assert found == {"x", "y", "d", "b", "c", "e"}
    assert ("a", "b") not in sub and ("y", "x") in sub
    assert subgraph_around(ids, edges, "lonely") == ({"lonely"}, [])
    # edges to unknown ids are ignored
    assert subgraph_around(["a"], [("a", "zz")], "a") == ({"a"}, [])


def test_subgraph_around_is_iterative() -> None:
    n = 5000  # far deeper than the recursion limit
    ids = [f"n{i}" for i in range(n)]
    edges = [*pairwise(ids), (ids[-1], ids[0])]
    found, sub = subgraph_around(ids, edges, ids[n // 2])
    assert len(found) == n and len(sub) == n


def test_empty_and_single() -> None:
    empty = layout_graph([], [])
    assert (empty.width, empty.height, empty.lines, empty.spans, empty.nodes) == (0, 0, [], [], {})
    one = layout_graph([node("solo")], [])
    assert one.lines == ["┌───────────┐", "│ item solo │", "└───────────┘"]
    check_geometry(one)


def test_duplicate_ids_with_different_data_are_refused() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        layout_graph([node("a"), node("a", "blocked")], [])
    assert layout_graph([node("a"), node("a")], []).nodes.keys() == {"a"}


def test_isolated_items_fill_a_grid_under_the_rest() -> None:
    """Items without a link are not stacked in the first column (issue 17): they fill rows as
    wide as asked, in id order, under the connected drawing; arrows walk the grid."""
    layout = graph([("b", "c"), ("d", "c")])
    lonely_ids = [f"z{i:02d}" for i in range(10)]
    nodes = [node(i) for i in ("b", "c", "d", *lonely_ids)]
    lonely = layout_graph(nodes, [("b", "c"), ("d", "c")], grid_width=60)
    check_geometry(lonely)
    check_edges(lonely)
    assert lonely.layers == layout.layers and set(layout.layers[0]) == {"b", "d"}
    assert all(i not in column for column in lonely.layers for i in lonely_ids)
    boxes = lonely.nodes
    drawn_bottom = max(boxes[i].y + boxes[i].h for i in "bcd")
    assert all(boxes[i].y > drawn_bottom for i in lonely_ids)
    per_row = len(lonely.grid)
    assert per_row == (60 + 2) // (boxes["z00"].w + 2) == 4  # boxes of 12 cells and a gap of 2
    rows = [lonely_ids[i : i + per_row] for i in range(0, len(lonely_ids), per_row)]
    for row in rows:  # reading order: left to right, then the next row
        assert len({boxes[i].y for i in row}) == 1 and [boxes[i].x for i in row] == sorted(boxes[i].x for i in row)
    assert lonely.grid[0] == tuple(row[0] for row in rows)
    assert lonely.width <= max(layout.width, 60) and lonely.height < drawn_bottom + 4 * len(rows) + 1

    # arrows: right along a row, down a column, up from the first row back into the drawing
    assert nearest_in_direction(lonely, "z00", "right") == "z01"
    assert nearest_in_direction(lonely, "z03", "right") is None
    assert nearest_in_direction(lonely, "z01", "down") == "z05"
    assert nearest_in_direction(lonely, "z00", "up") in {"b", "d", "c"}
    assert nearest_in_direction(lonely, layout.layers[0][-1], "down") == "z00"


def test_only_isolated_items_make_a_grid_of_the_default_width() -> None:
    only = layout_graph([node(f"z{i:02d}") for i in range(30)], [])
    check_geometry(only)
    assert only.layers == ((),) and only.width <= DEFAULT_GRID_WIDTH
    assert len(only.grid) == (DEFAULT_GRID_WIDTH + 2) // (only.nodes["z00"].w + 2)
    assert only.height < 30 * 3  # not one tall column


def test_no_crossing_reduction_still_lays_out() -> None:
    nodes, edges = realistic(60, 6, seed=3)
    layout = layout_graph(nodes, edges, max_sweeps=0)
    check_geometry(layout)
    check_edges(layout)
    assert segment_crossings(layout) == layout.crossings


# --------------------------------------------------------------------------------------------
# properties


@st.composite
def dags(draw: st.DrawFn) -> tuple[list[GraphNode], list[tuple[str, str]]]:
    n = draw(st.integers(min_value=1, max_value=12))
    ids = [f"n{i:02d}" for i in range(n)]
    pairs = [(ids[i], ids[j]) for i in range(n) for j in range(i + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), max_size=20)) if pairs else []
    repos = draw(st.lists(st.sampled_from(["", "acme/web"]), min_size=n, max_size=n))
    labels = draw(st.lists(st.text(max_size=30), min_size=n, max_size=n))
    nodes = [GraphNode(i, label, "ready", repo=repo) for i, label, repo in zip(ids, labels, repos, strict=True)]
    return nodes, edges


@st.composite
def any_graphs(draw: st.DrawFn) -> tuple[list[GraphNode], list[tuple[str, str]]]:
    n = draw(st.integers(min_value=1, max_value=10))
    ids = [f"n{i:02d}" for i in range(n)] + ["ghost"]
    edges = draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids[:-1])), max_size=25))
    statuses = draw(st.lists(st.sampled_from(STATUSES), min_size=n, max_size=n))
    nodes = [GraphNode(i, f"t{i}", s) for i, s in zip(ids, statuses, strict=False)]
    return nodes, edges


#: found by the test below: nodes without edges (a grid under the drawing) lifted the drawn part
#: after its edges had their rows, so an edge ran past the canvas's bottom
_GRID_UNDER_EDGES = (
    [GraphNode(f"n0{i}", "", "ready", "acme/web" if i == 7 else "") for i in range(8)],
    [("n00", "n06"), ("n00", "n07"), ("n01", "n03"), ("n01", "n07"), ("n03", "n04"), ("n03", "n06"), ("n04", "n06")],
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags())
@example(_GRID_UNDER_EDGES)
def test_random_dags_lay_out(data: tuple[list[GraphNode], list[tuple[str, str]]]) -> None:
    nodes, edges = data
    layout = layout_graph(nodes, edges)
    assert not any(e.reversed or e.cycle for e in layout.edges)
    assert segment_crossings(layout) == layout.crossings
    check_geometry(layout)
    check_edges(layout)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_graphs())
def test_random_graphs_with_cycles_lay_out(data: tuple[list[GraphNode], list[tuple[str, str]]]) -> None:
    nodes, edges = data
    layout = layout_graph(nodes, edges)
    assert {e.source for e in layout.edges} | {e.target for e in layout.edges} <= set(layout.nodes)
    assert len(layout.edges) == len(set(edges))
    check_geometry(layout)
    check_edges(layout)
    shuffled = list(reversed(edges))
    assert layout_graph(list(reversed(nodes)), shuffled) == layout


TRICKY = ["\u200d", "\ufe0f", "\u0301", "漢", "a", "👨", "\u00ad", " ", "\u200b", "\u3000", "\x1b", "❤", "\u202e"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.text(st.sampled_from(TRICKY), max_size=25), min_size=1, max_size=4),
    st.lists(st.text(st.sampled_from(TRICKY), max_size=8), min_size=4, max_size=4),
    st.integers(min_value=1, max_value=12),
)
def test_joiners_and_wide_characters_keep_boxes_aligned(labels: list[str], repos: list[str], cap: int) -> None:
    nodes = [GraphNode(f"n{i}", label, "ready", repo=repos[i]) for i, label in enumerate(labels)]
    edges = [(f"n{i}", f"n{i + 1}") for i in range(len(labels) - 1)] + [("n0", "n0")]
    layout = layout_graph(nodes, edges, max_label_cells=cap)
    check_geometry(layout)
    check_edges(layout)
