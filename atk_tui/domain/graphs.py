"""Graph algorithms shared by readiness, the graph layout and the dependency editor: strongly
connected components, a cycle through a node with its path, reachability.

Iterative throughout (no recursion), so a 10,000-item dependency chain is as safe as a short
one. Two forms of the same Tarjan: over any hashable nodes (`sccs`, readiness) and over
vertices 0..n-1 with successor lists (`scc_and_back_edges`, the layout's hot path, which also
gives the back edges of its search: the edges the layout reverses to break cycles).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

N = TypeVar("N", bound=Hashable)


def sccs(nodes: Iterable[N], adj: Mapping[N, Sequence[N]]) -> list[list[N]]:
    """Tarjan's strongly connected components, in the order Tarjan completes them (each
    component's nodes in the order they leave the stack). `adj` must be closed over `nodes`."""
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    on_stack: set[N] = set()
    stack: list[N] = []
    result: list[list[N]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(adj[root]))]
        while work:
            v, it = work[-1]
            descended = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(adj[w])))
                    descended = True
                    break
                if w in on_stack and index[w] < low[v]:
                    low[v] = index[w]
            if descended:
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                comp: list[N] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                result.append(comp)
    return result


def scc_index(n: int, succ: list[list[int]]) -> list[int]:
    """The strongly connected component number of every vertex 0..n-1 (iterative Tarjan
    over successor lists: the form the layout uses on thousands of vertices)."""
    return scc_and_back_edges(n, succ)[0]


def scc_and_back_edges(
    n: int, succ: list[list[int]], roots: Iterable[int] | None = None
) -> tuple[list[int], set[tuple[int, int]]]:
    """`scc_index`, and the back edges of the same depth-first search: the edges `(v, w)` to a
    vertex `w` on the current search path (reversing them leaves a DAG). The search starts
    from `roots` in their order (default 0..n-1), then from any vertex not reached yet."""
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    on_path = [False] * n
    comp = [-1] * n
    back: set[tuple[int, int]] = set()
    stack: list[int] = []
    counter = ncomp = 0
    for root in range(n) if roots is None else (*roots, *range(n)):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = on_path[root] = True
        work = [(root, 0)]
        while work:
            v, i = work[-1]
            if i < len(succ[v]):
                work[-1] = (v, i + 1)
                w = succ[v][i]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = on_path[w] = True
                    work.append((w, 0))
                    continue
                if on_path[w]:
                    back.add((v, w))
                if on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
            else:
                work.pop()
                on_path[v] = False
                if work:
                    parent = work[-1][0]
                    if low[v] < low[parent]:
                        low[parent] = low[v]
                if low[v] == index[v]:
                    while True:
                        w = stack.pop()
                        on_stack[w] = False
                        comp[w] = ncomp
                        if w == v:
                            break
                    ncomp += 1
    return comp, back


def reachable(start: N, edges: Mapping[N, Iterable[N]]) -> set[N]:
    """Every node reachable from `start` along `edges` (breadth first), `start` excluded."""
    seen = closure((start,), edges)
    seen.discard(start)
    return seen


def closure(starts: Iterable[N], edges: Mapping[N, Iterable[N]]) -> set[N]:
    """`starts` and every node reachable from any of them along `edges` (breadth first)."""
    seen = set(starts)
    queue = deque(seen)
    while queue:
        x = queue.popleft()
        for y in edges.get(x, ()):
            if y not in seen:
                seen.add(y)
                queue.append(y)
    return seen


def cycle_through(node: N, edges: Mapping[N, Iterable[N]]) -> tuple[N, ...] | None:
    """A shortest cycle through `node` as its nodes in order, `node` first and each stored
    once (`a -> b -> a` is `(a, b)`); None when there is none. A self-edge is `(node,)`."""
    parent: dict[N, N] = {}
    queue = deque([node])
    while queue:
        x = queue.popleft()
        for y in edges.get(x, ()):
            if y == node:
                path = [x]
                while path[-1] != node:
                    path.append(parent[path[-1]])
                return tuple(reversed(path))
            if y not in parent:
                parent[y] = x
                queue.append(y)
    return None
