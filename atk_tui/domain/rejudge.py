"""Judging again only what a change touches (the dashboard's refresh after an external change).

`readiness.judge_item` reads, for one item: the item itself (its state and fields, whether its
plan file is missing), `now` (only while a cooldown is or was in force), the state and a few
fields of each *direct* dependency, and the cycles of the item's strongly connected component
(`readiness.cycle_reps`, a function of that component's own edges). So after a change, only
these judgements can differ:

* the changed items (`changed`: appeared, disappeared, moved, or any field `judge_item` reads
  changed, plan file presence included);
* their direct dependents (a dependency's state and fields show in the dependent's reasons;
  its existence decides the dependent's edges). Those of the new snapshot are enough: an
  item that listed a changed one before and does not now has changed itself. Dependents
  further away are not judged again: a judgement reads its dependencies' states and fields,
  never their judgements (whether a dependency is itself blocked does not show);
* the items whose cooldown is or was in force (its message counts down with `now`);
* every member of a strongly connected component, before or after, that holds one of the
  above: an SCC that holds none of them has the same edges on both sides, so it is the same
  component with the same cycles (any edge that changed starts at one of them);
* and every member of a component now that holds one of those: a component the change broke
  up can leave a smaller cycle that holds nothing above (its members' cycle reason changes).

Everything else keeps its previous `Judgement` object. Components are found with
`graphs.sccs` over what the touched items reach, so a refresh costs about what it touches plus
a pass over the names; `blocks` and `dependents` are brought up to date the same way
(`refresh`). The results are equal to judging from scratch: tests/domain/test_rejudge.py
checks that against a real store.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from atk_tui.domain import readiness
from atk_tui.domain.graphs import closure, sccs
from atk_tui.domain.model import Item, Snapshot, deps_of
from atk_tui.domain.readiness import Judgement, _aware

Reps = dict[str, tuple[tuple[str, ...], int]]


def _basis(item: Item) -> tuple[Any, ...]:
    """Everything about an item that any judgement reads (its own, or a dependent's)."""
    cu = item.cooldown_until
    defects = item.defects
    return (
        item.state, item.kind, bool(item.answered), bool(item.answer_partial), item.plan_file,
        (cu, cu.isoformat()) if isinstance(cu, datetime) else cu,  # the zone shows in the message
        tuple(defects) if isinstance(defects, (list, tuple)) else (bool(defects), repr(defects)),
        tuple(deps_of(item.depends_on)),
    )  # fmt: skip


def changed(previous: Snapshot, snapshot: Snapshot) -> set[str]:
    """The names whose item, state or plan file presence differ between the two snapshots
    (appeared and disappeared ones included). Unchanged items may be the very same objects
    (the service reuses them): those cost one identity test."""
    out: set[str] = set()
    if previous.states != snapshot.states:
        out.update(name for name, _ in previous.states.items() ^ snapshot.states.items())
    old_items, new_items = previous.items, snapshot.items
    for name, item in new_items.items():
        old = old_items.get(name)
        if old is not item and (old is None or _basis(old) != _basis(item)):
            out.add(name)
    out.update(name for name in old_items if name not in new_items)
    out.update(previous.plan_missing ^ snapshot.plan_missing)
    return out


class _Edges(Mapping[str, list[str]]):
    """A snapshot's dependency edges, each worked out when first asked: `cycle_edges` (what
    cycles are looked for along) or, with `every`, each parsed item's `depends_on` entries."""

    def __init__(self, snapshot: Snapshot, every: bool = False) -> None:
        self.snapshot, self.every = snapshot, every
        self._memo: dict[str, list[str]] = {}

    def __getitem__(self, name: str) -> list[str]:
        got = self._memo.get(name)
        if got is None:
            item = self.snapshot.items.get(name)
            if self.every:
                got = deps_of(item.depends_on) if item is not None else []
            else:
                got = readiness.cycle_edges(self.snapshot, item)
            self._memo[name] = got
        return got

    def __iter__(self) -> Iterator[str]:
        return iter(self.snapshot.items)

    def __len__(self) -> int:
        return len(self.snapshot.items)


def _components_holding(snapshot: Snapshot, names: set[str]) -> tuple[list[list[str]], _Edges]:
    """The strongly connected components (of more than one node) of the snapshot's cycle
    graph that hold any of `names`, found among what `names` reach."""
    edges = _Edges(snapshot)
    reach = closure(names, edges)
    return [c for c in sccs(reach, edges) if len(c) > 1 and not names.isdisjoint(c)], edges


def _users(deps: Mapping[str, Sequence[str]], names: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for name in names:
        out.update(deps.get(name, ()))
    return out


@dataclass(frozen=True, slots=True)
class Rejudged:
    """`rejudge_changes`' answer: every judgement, and the names judged anew."""

    judgements: dict[str, Judgement]
    judged: frozenset[str]


def rejudge_changes(
    previous: Snapshot,
    judgements: Mapping[str, Judgement],
    snapshot: Snapshot,
    now: datetime,
    *,
    touched: set[str] | None = None,
    dependents: Mapping[str, Sequence[str]] | None = None,
) -> Rejudged:
    """`rejudge`, also saying which names it judged. `touched` (`changed(previous, snapshot)`)
    and `dependents` (`readiness.dependents(snapshot)`) are worked out when not given."""
    now = _aware(now)
    if touched is None:
        touched = changed(previous, snapshot)
    if dependents is None:
        dependents = readiness.dependents(snapshot)
    items = snapshot.items
    near = touched | _users(dependents, touched)
    # a cooldown's message counts down: judged again while one is, or was, in force
    for name, item in items.items():
        cu = item.cooldown_until
        if isinstance(cu, datetime) and _aware(cu) > now:
            near.add(name)
    near.update(n for n, j in judgements.items() if j.cooldown_until is not None)
    redo = set(near)
    for comp in _components_holding(previous, near)[0]:
        redo.update(comp)
    # the components now of everything judged again: a member of a component the change broke
    # up may still be on a smaller cycle that holds nothing `near` (its cycle reason changes)
    comps, edges = _components_holding(snapshot, redo)
    members = {v for comp in comps for v in comp}
    redo |= members
    rep: Reps = readiness.cycle_reps({v: [w for w in edges[v] if w in members] for v in members})
    out: dict[str, Judgement] = {}
    for name, item in items.items():
        old = judgements.get(name)
        out[name] = (
            old if old is not None and name not in redo else readiness.judge_item(snapshot, name, item, now, rep)
        )
    return Rejudged(out, frozenset(redo.intersection(items)))


def rejudge(
    previous: Snapshot, judgements: Mapping[str, Judgement], snapshot: Snapshot, now: datetime
) -> dict[str, Judgement]:
    """What `readiness.judge(snapshot, now)` returns, given `judgements` =
    `judge(previous, <any earlier time>)`: only the items the change can reach are judged
    again (see the module's docstring); every other item keeps its previous `Judgement`."""
    return rejudge_changes(previous, judgements, snapshot, now).judgements


def update_dependents(
    previous_dependents: Mapping[str, list[str]], previous: Snapshot, snapshot: Snapshot, touched: Iterable[str]
) -> dict[str, list[str]]:
    """`readiness.dependents(snapshot)` from `previous`'s, changing only the entries of what
    the `touched` items list (or listed); unchanged lists stay the same objects."""
    out = dict(previous_dependents)
    keys_changed = False
    for x in touched:
        old, new = previous.items.get(x), snapshot.items.get(x)
        before = set(deps_of(old.depends_on)) if old is not None else set()
        after = set(deps_of(new.depends_on)) if new is not None else set()
        for dep in before - after:
            users = list(out[dep])
            del users[bisect_left(users, x)]
            if users or dep in snapshot.items:
                out[dep] = users
            else:
                del out[dep]
                keys_changed = True
        for dep in after - before:
            users = list(out.get(dep, ()))
            keys_changed |= dep not in out
            insort(users, x)
            out[dep] = users
        if new is None and old is not None and not out.get(x):
            keys_changed |= out.pop(x, None) is not None
        elif new is not None and x not in out:
            out[x] = []
            keys_changed = True
    return dict(sorted(out.items())) if keys_changed else out


@dataclass(frozen=True, slots=True)
class Refreshed:
    """`refresh`'s answer: what a `QueueView` derives from a snapshot."""

    judgements: dict[str, Judgement]
    dependents: dict[str, list[str]]
    blocks: dict[str, tuple[int, int]]
    judged: frozenset[str]


def refresh(
    previous: Snapshot,
    judgements: Mapping[str, Judgement],
    previous_dependents: Mapping[str, list[str]],
    blocks: Mapping[str, tuple[int, int]],
    snapshot: Snapshot,
    now: datetime,
) -> Refreshed:
    """Judgements, dependents and blocks counts of `snapshot` at `now`, from those of
    `previous` (at any earlier time): equal to `judge`, `dependents` and `blocks_count` from
    scratch. A UWI's counts are taken again only when its blocking reach can hold an edge
    that changed: an edge ending at a touched or re-judged item's dependency (old or new),
    so only UWIs those dependencies lead to along `depends_on` (before or after)."""
    touched = changed(previous, snapshot)
    deps = update_dependents(previous_dependents, previous, snapshot, touched)
    got = rejudge_changes(previous, judgements, snapshot, now, touched=touched, dependents=deps)
    dirty = set(touched)
    for name in got.judged | touched:
        for snap in (previous, snapshot):
            item = snap.items.get(name)
            if item is not None:
                dirty.update(deps_of(item.depends_on))
    reach = closure(dirty, _Edges(previous, every=True)) | closure(dirty, _Edges(snapshot, every=True))
    uwis = readiness.unanswered_uwis(snapshot)
    fresh = readiness.blocks_count(snapshot, got.judgements, deps, [u for u in uwis if u in reach or u not in blocks])
    counts = {u: fresh[u] if u in fresh else blocks[u] for u in uwis}
    return Refreshed(got.judgements, deps, counts, got.judged)


__all__ = ["Refreshed", "Rejudged", "changed", "refresh", "rejudge", "rejudge_changes", "update_dependents"]
