"""core/graphs.py: the one place for SCCs, cycles with their path and reachability."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from atk_tui.domain.graphs import cycle_through, reachable, scc_and_back_edges, sccs


def test_sccs_and_the_component_numbers_agree() -> None:
    adj = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": [], "e": ["e"]}
    comps = sorted(sorted(c) for c in sccs(adj, adj))
    assert comps == [["a", "b", "c"], ["d"], ["e"]]
    names = sorted(adj)
    idx = {n: i for i, n in enumerate(names)}
    comp = scc_and_back_edges(len(names), [[idx[w] for w in adj[v]] for v in names])[0]
    assert comp[idx["a"]] == comp[idx["b"]] == comp[idx["c"]] != comp[idx["d"]]


def test_a_long_chain_needs_no_recursion() -> None:
    n = 50_000
    adj = {i: [i + 1] for i in range(n)}
    adj[n] = [0]
    assert len(sccs(adj, adj)) == 1
    assert len(reachable(0, adj)) == n


def test_cycle_through_gives_the_path() -> None:
    adj = {"a": ["b"], "b": ["c", "x"], "c": ["a"], "x": []}
    assert cycle_through("a", adj) == ("a", "b", "c")
    assert cycle_through("x", adj) is None
    assert cycle_through("s", {"s": ["s"]}) == ("s",)


@given(st.dictionaries(st.integers(0, 8), st.lists(st.integers(0, 8), max_size=3), max_size=9))
def test_cycle_through_is_a_real_cycle_exactly_when_the_node_is_on_one(raw: dict[int, list[int]]) -> None:
    adj = {v: raw.get(v, []) for v in range(9)}
    comps = {v: i for i, c in enumerate(sccs(adj, adj)) for v in c}
    for v in adj:
        cyc = cycle_through(v, adj)
        on_cycle = v in adj[v] or any(comps[w] == comps[v] for w in adj if w != v)
        assert (cyc is not None) == on_cycle
        if cyc is not None:
            assert cyc[0] == v and len(set(cyc)) == len(cyc)
            for a, b in zip(cyc, (*cyc[1:], cyc[0]), strict=True):
                assert b in adj[a]


def test_back_edges_are_the_edges_to_the_search_path() -> None:
    # 0 -> 1 -> 2 -> 0 and 2 -> 3: from 0, the edge back to 0 closes the cycle
    succ = [[1], [2], [0, 3], []]
    comp, back = scc_and_back_edges(4, succ)
    assert back == {(2, 0)}
    assert comp == scc_and_back_edges(4, succ)[0]
    # started from 1 instead, the same cycle is broken at another edge
    assert scc_and_back_edges(4, succ, [1])[1] == {(0, 1)}


@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=20))
def test_reversing_the_back_edges_leaves_no_cycle(edges: list[tuple[int, int]]) -> None:
    succ: list[list[int]] = [[] for _ in range(8)]
    for u, v in edges:
        if u != v:
            succ[u].append(v)
    _comp, back = scc_and_back_edges(8, succ)
    dag: dict[int, list[int]] = {v: [] for v in range(8)}
    for v in range(8):
        for w in succ[v]:
            if (v, w) in back:
                dag[w].append(v)
            else:
                dag[v].append(w)
    assert all(len(c) == 1 for c in sccs(dag, dag))
