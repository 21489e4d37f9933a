"""Derived judgement over a `Snapshot`: ready / blocked, cycles, who blocks whom (SPEC §6).

Everything here is a pure function of a `Snapshot` (and, for `judge`, the current time):
no I/O, no git, no Textual. Graph walks are iterative (no recursion), so a 10,000-item
dependency chain is as safe as a short one.

Decisions (SPEC §6 leaves these open):

* Existence of a dependency is decided by `snapshot.states` (every filename in the store);
  a name that is only in `snapshot.items` counts too. A dependency that is not parsed
  (e.g. an unparsed terminal item) is judged by its state alone.
* An answered UWI dependency counts as satisfied ("answered, awaiting pickup") only while
  the picker could close it: it is in `inbox` or `processing` and not defective. An
  answered UWI in `hold` is excluded from automatic processing, so it is `dep-hold`.
* Cycles are looked for among the dependency edges of *active* items only: a terminal
  item no longer waits for anything, so a loop through it is not a deadlock. A self
  dependency is reported as `self-dep` (not also as `cycle`).
* Terminal items get status `terminal` with no reasons; a defective item is `defective`
  whatever its state (its other reasons are still listed when it is active).
* An unanswered UWI is never `ready` (there is nothing for an agent to do with it) even
  when it has no reasons; its badge is `waiting`.
* Naive datetimes (which a valid item never has) are taken as UTC rather than raising.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from atk_tui.domain.ages import format_cooldown
from atk_tui.domain.graphs import reachable, sccs
from atk_tui.domain.model import ACTIVE, PROCESSABLE, TERMINAL, URGENCIES, Item, Reason, Snapshot, Status, deps_of

#: Badges, in the order the UI may want to list them.
#: non-terminal states whose items are never processed automatically; the status names them
OUT_OF_PROCESSING: frozenset[str] = frozenset({"hold", "editing", "planning"})
STATUSES: tuple[str, ...] = Status.values()

#: Default cap on elementary cycles enumerated per strongly connected component.
MAX_CYCLES_PER_COMPONENT = 100

#: Nodes shown by `format_cycle` in reason messages before the middle is elided.
CYCLE_MESSAGE_NODES = 12


@dataclass(frozen=True, slots=True)
class Judgement:
    """The derived view of one item.

    `status` is the badge (one of `STATUSES`); `reasons` lists every reason the item is
    blocked (empty when ready); `cooldown_until` is set only while a cooldown is in
    force; `answered_deps` names UWI dependencies counted satisfied because answered.
    """

    status: str
    reasons: tuple[Reason, ...] = ()
    ready: bool = False
    cooldown_until: datetime | None = None
    answered_deps: tuple[str, ...] = ()

    @property
    def blocked(self) -> bool:
        """True when the item has at least one blocking reason."""
        return bool(self.reasons)


# --------------------------------------------------------------------------- helpers


def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo is not None and dt.utcoffset() is not None else dt.replace(tzinfo=UTC)



def _state_of(snapshot: Snapshot, name: str) -> str | None:
    state = snapshot.states.get(name)
    if state is None and name in snapshot.items:
        state = snapshot.items[name].state
    return state


def format_cycle(cycle: Sequence[str], start: int = 0, limit: int | None = None) -> str:
    """`a.md -> b.md -> a.md` for the cycle `("a.md", "b.md")` (nodes stored once).

    `start` rotates the display to begin at that index; `limit` elides the middle of
    long cycles (`a.md -> b.md -> ... (+97 more) -> a.md`) so messages stay short.
    """
    n = len(cycle)
    if n == 0:
        return ""
    start %= n
    if limit is not None and n > max(limit, 1):
        shown = max(limit, 1)
        names = [cycle[(start + i) % n] for i in range(shown)]
        names.append(f"... (+{n - shown} more)")
    else:
        names = [cycle[(start + i) % n] for i in range(n)]
    names.append(cycle[start])
    return " -> ".join(names)


def canonical_cycle(cycle: Sequence[str]) -> tuple[str, ...]:
    """The rotation of `cycle` that starts at its smallest filename."""
    if not cycle:
        return ()
    i = min(range(len(cycle)), key=cycle.__getitem__)
    return tuple(cycle[i:]) + tuple(cycle[:i])


# --------------------------------------------------------------------------- graphs


def _normalize(graph: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Every node (keys and targets) -> sorted, de-duplicated successors."""
    adj: dict[str, set[str]] = {}
    for node, succs in graph.items():
        bucket = adj.setdefault(node, set())
        for succ in succs:
            bucket.add(succ)
            adj.setdefault(succ, set())
    return {node: sorted(adj[node]) for node in sorted(adj)}


def _johnson(component: list[str], adj: Mapping[str, Sequence[str]], cap: int) -> tuple[list[tuple[str, ...]], bool]:
    """Elementary cycles (length >= 2) of one strongly connected component.

    Johnson's algorithm, iterative: the start vertex is always the smallest name of the
    current sub-component, so every cycle comes out in canonical rotation. Stops after
    `cap` cycles; returns `(cycles, complete)`.
    """
    cycles: list[tuple[str, ...]] = []
    if cap <= 0:
        return cycles, False
    members = set(component)
    sub = {v: [w for w in adj[v] if w in members and w != v] for v in component}
    pending: list[list[str]] = [sorted(component)]
    while pending:
        comp = pending.pop()
        comp_set = set(comp)
        s = comp[0]  # comp is sorted
        succ = {v: [w for w in sub[v] if w in comp_set] for v in comp}
        blocked: set[str] = {s}
        bmap: dict[str, set[str]] = {}
        closed: set[str] = set()
        path = [s]
        # neighbours reversed so pop() walks them in ascending order
        work: list[tuple[str, list[str]]] = [(s, succ[s][::-1])]
        while work:
            v, nbrs = work[-1]
            if nbrs:
                w = nbrs.pop()
                if w == s:
                    cycles.append(tuple(path))
                    if len(cycles) >= cap:
                        return cycles, False
                    closed.update(path)
                elif w not in blocked:
                    path.append(w)
                    work.append((w, succ[w][::-1]))
                    closed.discard(w)
                    blocked.add(w)
                    continue
            if not nbrs:
                if v in closed:
                    todo = [v]
                    while todo:
                        x = todo.pop()
                        if x in blocked:
                            blocked.discard(x)
                            todo.extend(bmap.pop(x, ()))
                else:
                    for w in succ[v]:
                        bmap.setdefault(w, set()).add(v)
                work.pop()
                path.pop()
        # remove s and continue on the non-trivial components of what remains
        rest = comp[1:]
        rest_adj = {v: [w for w in succ[v] if w != s] for v in rest}
        for c in sccs(rest, rest_adj):
            if len(c) > 1:
                pending.append(sorted(c))
        # keep the smallest start first
        pending.sort(key=lambda c: c[0], reverse=True)
    return cycles, True


def _cycles_and_components(
    graph: Mapping[str, Sequence[str]], cap: int
) -> tuple[dict[str, list[str]], list[tuple[list[str], list[tuple[str, ...]], bool]], list[str]]:
    adj = _normalize(graph)
    comps = []
    for comp in sccs(adj, adj):
        if len(comp) > 1:
            found, complete = _johnson(comp, adj, cap)
            comps.append((sorted(comp), found, complete))
    self_loops = [v for v in adj if v in adj[v]]
    return adj, comps, self_loops


def find_cycles(
    graph: Mapping[str, Sequence[str]], max_per_component: int = MAX_CYCLES_PER_COMPONENT
) -> list[tuple[str, ...]]:
    """Every elementary dependency cycle, each once, canonical and in sorted order.

    `graph` maps a node to the nodes it depends on; targets that are not keys are nodes
    without edges. A cycle is a tuple of its nodes without repetition, rotated to start
    at its smallest filename (`format_cycle` shows it closed). A self-loop is `(a,)`.

    Strongly connected components come from an iterative Tarjan pass (O(V+E)); inside
    each non-trivial component the elementary cycles are enumerated with Johnson's
    algorithm, **capped at `max_per_component` cycles per component** (default 100), since
    a dense component can hold exponentially many. Self-loops are always all reported.
    """
    _, comps, self_loops = _cycles_and_components(graph, max_per_component)
    out: list[tuple[str, ...]] = [(v,) for v in self_loops]
    for _, found, _ in comps:
        out.extend(found)
    return sorted(out)


def _representative_cycles(
    adj: Mapping[str, Sequence[str]], comps: list[tuple[list[str], list[tuple[str, ...]], bool]]
) -> dict[str, tuple[tuple[str, ...], int]]:
    """node -> (a canonical elementary cycle through it, the node's index in it).

    Uses the shortest enumerated cycle through the node (cycle tuples are shared, so a
    long ring costs one tuple). Where the enumeration was capped and misses a node, an
    elementary cycle is built from BFS trees rooted at the component's smallest node.
    """
    rep: dict[str, tuple[tuple[str, ...], int]] = {}
    for comp, found, _complete in comps:
        for cyc in sorted(found, key=lambda c: (len(c), c)):
            for i, v in enumerate(cyc):
                if v not in rep:
                    rep[v] = (cyc, i)
        missing = [v for v in comp if v not in rep]
        if not missing:
            continue
        members = set(comp)
        root = comp[0]
        fpar: dict[str, str | None] = {root: None}  # forward BFS: path root -> v
        queue = deque([root])
        while queue:
            x = queue.popleft()
            for y in adj[x]:
                if y in members and y not in fpar:
                    fpar[y] = x
                    queue.append(y)
        preds: dict[str, list[str]] = {v: [] for v in comp}
        for x in comp:
            for y in adj[x]:
                if y in members:
                    preds[y].append(x)
        bnext: dict[str, str | None] = {root: None}  # backward BFS: path v -> root
        queue = deque([root])
        while queue:
            x = queue.popleft()
            for y in preds[x]:
                if y not in bnext:
                    bnext[y] = x
                    queue.append(y)
        for v in missing:
            if v == root:
                u = next(y for y in adj[root] if y in members and y != root)
                cyc_list = [root]
                node: str | None = u
                while node is not None and node != root:
                    cyc_list.append(node)
                    node = bnext[node]
            else:
                p: list[str] = []  # v -> root
                node = v
                while node is not None:
                    p.append(node)
                    node = bnext[node]
                q: list[str] = []  # root -> v
                node = v
                while node is not None:
                    q.append(node)
                    node = fpar[node]
                q.reverse()
                q_pos = {n: j for j, n in enumerate(q[:-1])}
                i = next(k for k in range(1, len(p)) if p[k] in q_pos)
                cyc_list = p[:i] + q[q_pos[p[i]] : -1]
            cyc = canonical_cycle(cyc_list)
            rep[v] = (cyc, cyc.index(v))
    return rep


def dependency_graph(snapshot: Snapshot, *, active_only: bool = True) -> dict[str, list[str]]:
    """Parsed item -> its existing dependencies (de-duplicated, order kept).

    With `active_only` (the default, what readiness uses) only the edges of active
    items are kept. Missing dependencies are dropped; self-dependencies are kept.
    """
    graph: dict[str, list[str]] = {}
    for name, item in snapshot.items.items():
        if active_only and item.state not in ACTIVE:
            continue
        graph[name] = cycle_edges(snapshot, item) if active_only else existing_deps(snapshot, item)
    return graph


def existing_deps(snapshot: Snapshot, item: Item) -> list[str]:
    """`item`'s dependencies that exist (its edges in `dependency_graph`)."""
    return [d for d in deps_of(item.depends_on) if _state_of(snapshot, d) is not None]


def cycle_edges(snapshot: Snapshot, item: Item | None) -> list[str]:
    """An item's edges in the graph cycles are looked for in: an active item's existing
    dependencies, none for any other (a terminal item waits for nothing)."""
    return existing_deps(snapshot, item) if item is not None and item.state in ACTIVE else []


def cycle_reps(graph: Mapping[str, Sequence[str]]) -> dict[str, tuple[tuple[str, ...], int]]:
    """node -> (the elementary cycle its `cycle` reason shows, the node's index in it), for
    every node on a cycle of `graph` (a `dependency_graph`, or the part of one made of whole
    strongly connected components: a component's cycles depend on its own edges alone)."""
    adj, comps, _ = _cycles_and_components(graph, MAX_CYCLES_PER_COMPONENT)
    return _representative_cycles(adj, comps)


# --------------------------------------------------------------------------- judge


def _is_pickable_answered_uwi(snapshot: Snapshot, name: str, state: str) -> bool:
    dep = snapshot.items.get(name)
    return (
        dep is not None
        and dep.is_question
        and bool(dep.answered)
        and not dep.defects
        and state in PROCESSABLE
    )


def judge_terminal(name: str, item: Item) -> Judgement:
    """An adopted or rejected item's judgement: its own defects only (nothing else counts,
    so a listing of 50,000 of them judges each alone)."""
    defects = [str(d) for d in item.defects] if isinstance(item.defects, (list, tuple)) else []
    if defects:
        return Judgement("defective", (Reason("defective", "; ".join(defects), ref=name),))
    return Judgement("terminal")


def judge(snapshot: Snapshot, now: datetime) -> dict[str, Judgement]:
    """A `Judgement` for every item in `snapshot.items` (SPEC §6).

    Reasons come in SPEC order: `defective`, `plan-missing`, `cooldown`, then per
    `depends_on` entry `self-dep` / `missing-dep`, then `cycle` (one, with an elementary
    cycle through the item; `Reason.cycle` is canonical, the message starts at the item),
    then per entry `dep-hold` / `dep-active`.
    """
    now = _aware(now)
    rep = cycle_reps(dependency_graph(snapshot))
    return {name: judge_item(snapshot, name, item, now, rep) for name, item in snapshot.items.items()}


def judge_item(
    snapshot: Snapshot, name: str, item: Item, now: datetime, rep: Mapping[str, tuple[tuple[str, ...], int]]
) -> Judgement:
    """One item's `Judgement` (see `judge`; `now` aware, `rep` from `cycle_reps` covering the
    item's strongly connected component). It reads the item, `now` (only while a cooldown
    is or was set), its direct dependencies' states and fields, and its component's cycles:
    nothing else (what `rejudge` relies on)."""
    if item.state in TERMINAL:
        return judge_terminal(name, item)
    defects = [str(d) for d in item.defects] if isinstance(item.defects, (list, tuple)) else []

    reasons_l: list[Reason] = []
    if defects:
        reasons_l.append(Reason("defective", "; ".join(defects), ref=name))
    if name in snapshot.plan_missing:
        reasons_l.append(
            Reason(
                "plan-missing",
                f"plan file missing: {item.plan_file or '?'} (in neither the store nor the planning work root; "
                "the plan is not yet committed: until the agent that writes it runs `atk plans commit`, it is only in "
                "that agent's plans folder, on its machine)",
                ref=item.plan_file,
            )
        )

    cooldown: datetime | None = None
    if isinstance(item.cooldown_until, datetime) and _aware(item.cooldown_until) > now:
        cooldown = item.cooldown_until
        reasons_l.append(Reason("cooldown", format_cooldown(cooldown, now), until=cooldown))

    deps = deps_of(item.depends_on)
    pending: list[tuple[str, str]] = []
    answered: list[str] = []
    for dep in deps:
        if dep == name:
            reasons_l.append(Reason("self-dep", f"depends on itself ({name})", ref=name))
            continue
        state = _state_of(snapshot, dep)
        if state is None:
            reasons_l.append(Reason("missing-dep", f"missing dependency: {dep}", ref=dep))
            continue
        if state in TERMINAL:
            continue
        if _is_pickable_answered_uwi(snapshot, dep, state):
            answered.append(dep)
            continue
        pending.append((dep, state))

    if name in rep:
        cyc, pos = rep[name]
        nxt = cyc[(pos + 1) % len(cyc)]
        msg = "on a dependency cycle: " + format_cycle(cyc, pos, CYCLE_MESSAGE_NODES)
        reasons_l.append(Reason("cycle", msg, ref=nxt, cycle=cyc))

    for dep, state in pending:
        dep_item = snapshot.items.get(dep)
        extra = ""
        if dep_item is not None:
            if dep_item.defects:
                extra = ", defective"
            elif dep_item.is_question and not dep_item.answered:
                extra = ", partially answered" if dep_item.answer_partial else ", unanswered"
        code = "dep-hold" if state == "hold" else "dep-active"
        reasons_l.append(Reason(code, f"waiting on {dep} ({state}{extra})", ref=dep))

    reasons = tuple(reasons_l)
    is_uwi = item.is_question  # a UWI or a TBD (SPEC §12)
    # hold, editing and planning are out of automatic processing; an unanswered UWI has
    # nothing to pick up
    ready = item.state in PROCESSABLE and not reasons and (not is_uwi or bool(item.answered))

    if defects:
        status = "defective"
    elif item.state in OUT_OF_PROCESSING:
        status = item.state
    elif is_uwi:
        status = "answered" if item.answered else "waiting"
    elif not reasons:
        status = "ready"
    elif all(r.code == "cooldown" for r in reasons):
        status = "cooldown"
    else:
        status = "blocked"
    return Judgement(status, reasons, ready, cooldown, tuple(answered))


# --------------------------------------------------------------------------- reverse edges


def dependents(snapshot: Snapshot) -> dict[str, list[str]]:
    """Reverse edges over every parsed item: name -> sorted items that list it in `depends_on`.

    Every parsed item is a key (possibly with `[]`); a missing name someone depends on
    is a key too. A self-dependency appears as the item depending on itself.
    """
    rev: dict[str, set[str]] = {name: set() for name in snapshot.items}
    for name, item in snapshot.items.items():
        for dep in deps_of(item.depends_on):
            rev.setdefault(dep, set()).add(name)
    return {name: sorted(users) for name, users in sorted(rev.items())}


def transitive_deps(snapshot: Snapshot, name: str) -> set[str]:
    """Everything `name` depends on, directly or not (missing names included, itself excluded)."""
    fwd = {n: deps_of(item.depends_on) for n, item in snapshot.items.items()}
    return reachable(name, fwd)


def transitive_dependents(snapshot: Snapshot, name: str) -> set[str]:
    """Every parsed item that depends on `name`, directly or not (itself excluded)."""
    return reachable(name, dependents(snapshot))


# --------------------------------------------------------------------------- triage


def unanswered_uwis(snapshot: Snapshot) -> list[str]:
    """The unanswered UWIs in an active state, sorted (the keys of `blocks_count`)."""
    return sorted(
        name
        for name, item in snapshot.items.items()
        if item.is_question and item.state in ACTIVE and not item.answered
    )


class BlockedBy(Mapping[str, list[str]]):
    """`y` -> the active items that `y` blocks directly: each lists `y` in `depends_on`, both
    are active, `y` is not the item itself nor one of its `answered_deps`. Worked out for a
    name when first asked, from `users` (reverse edges, like `dependents`)."""

    def __init__(
        self, snapshot: Snapshot, judgements: Mapping[str, Judgement], users: Mapping[str, Sequence[str]]
    ) -> None:
        self.snapshot, self.judgements, self.users = snapshot, judgements, users
        self._memo: dict[str, list[str]] = {}

    def __getitem__(self, y: str) -> list[str]:
        got = self._memo.get(y)
        if got is None:
            got = []
            if _state_of(self.snapshot, y) in ACTIVE:
                items, judgements = self.snapshot.items, self.judgements
                for x in self.users.get(y, ()):
                    item, j = items.get(x), judgements.get(x)
                    if x != y and item is not None and item.state in ACTIVE and (j is None or y not in j.answered_deps):
                        got.append(x)
            self._memo[y] = got
        return got

    def __iter__(self) -> Iterator[str]:
        return iter(self.users)

    def __len__(self) -> int:
        return len(self.users)


def blocks_count(
    snapshot: Snapshot,
    judgements: Mapping[str, Judgement],
    users: Mapping[str, Sequence[str]] | None = None,
    only: Iterable[str] | None = None,
) -> dict[str, tuple[int, int]]:
    """For each unanswered UWI in an active state: (direct, transitive) active items it blocks.

    An edge "x depends on y" blocks x when both are active and y is not one of x's
    `answered_deps` (`BlockedBy`). Direct: active items that list the UWI; transitive: every
    active item reachable along blocking reverse edges, counted once, the UWI itself
    excluded. Cost is one BFS per unanswered UWI: O(U * (V + E)). `users`: the snapshot's
    `dependents` when known; `only`: count just these UWIs (others are left out).
    """
    if users is None:
        rev: dict[str, list[str]] = {}
        for name, item in snapshot.items.items():
            for dep in deps_of(item.depends_on):
                rev.setdefault(dep, []).append(name)
        users = rev
    blocked = BlockedBy(snapshot, judgements, users)
    out: dict[str, tuple[int, int]] = {}
    for uwi in unanswered_uwis(snapshot) if only is None else only:
        out[uwi] = (len(blocked[uwi]), len(reachable(uwi, blocked)))
    return out


_URGENCY_RANK = {u: i for i, u in enumerate(URGENCIES)}


def _created_key(item: Item) -> tuple[int, float]:
    created = item.created
    if isinstance(created, datetime):
        return (0, _aware(created).timestamp())
    return (1, 0.0)


def sort_needs_you(
    snapshot: Snapshot,
    judgements: Mapping[str, Judgement],
    counts: Mapping[str, tuple[int, int]],
) -> list[str]:
    """The "Needs you" list: every unanswered UWI in `inbox`, `processing` or `hold`.

    Hold UWIs are included (only the user can answer them, hold or not), as are
    defective ones (the user must fix them). Order: urgency (blocking, next-review,
    informational, anything else), transitive blocks count descending, `created`
    ascending (unknown last), filename. `judgements` is accepted for symmetry with the
    other helpers; membership is decided from the items themselves.
    """
    del judgements  # membership and order depend on item fields and counts only

    def key(name: str) -> tuple[int, int, tuple[int, float], str]:
        item = snapshot.items[name]
        rank = _URGENCY_RANK.get(item.urgency, len(URGENCIES))
        return (rank, -counts.get(name, (0, 0))[1], _created_key(item), name)

    return sorted(unanswered_uwis(snapshot), key=key)


__all__ = [
    "CYCLE_MESSAGE_NODES",
    "MAX_CYCLES_PER_COMPONENT",
    "STATUSES",
    "BlockedBy",
    "Judgement",
    "blocks_count",
    "canonical_cycle",
    "cycle_edges",
    "cycle_reps",
    "dependency_graph",
    "dependents",
    "find_cycles",
    "format_cycle",
    "judge",
    "judge_item",
    "sort_needs_you",
    "transitive_dependents",
    "transitive_deps",
    "unanswered_uwis",
]
