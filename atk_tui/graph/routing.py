"""Stage 5: orthogonal routing of the edges in the channel between two columns."""

from __future__ import annotations

import heapq

from atk_tui.graph.model import _CRIT, _ROUTING_PAIR_LIMIT

# --------------------------------------------------------------------------------------------
# channel routing


class _Net:
    """Lines from one or more elements of a column to the next column, on one vertical track.

    Sources share a net only when they have exactly the same targets, so joining their lines
    says nothing false: every source of the bus feeds every target of it.
    """

    __slots__ = ("hi", "lo", "segs", "sources", "targets", "track")

    def __init__(self, segs: list[tuple[int, int, int, int]]) -> None:
        self.segs = segs  # (source row, source element, target row, target element)
        self.sources = frozenset(seg[0] for seg in segs)
        self.targets = frozenset(seg[2] for seg in segs)
        rows = self.sources | self.targets
        self.lo = min(rows)
        self.hi = max(rows)
        self.track = -1

    @property
    def straight(self) -> bool:
        """One source and one target on the same row: a line straight across, no track."""
        return self.lo == self.hi


def _costs(a: _Net, b: _Net) -> tuple[int, int]:
    """Crossings (and wrong merges, at `_CRIT`) with `a`'s track left of `b`'s, and the other way.

    With `a` left, `a`'s target lines (running right from its track) pass `b`'s vertical and
    `b`'s source lines (running left from its track) pass `a`'s: a crossing where they pass
    inside it, a wrong merge where they land on the other's source or target row. Lines into the
    same target merge legitimately.
    """
    return _cost_left(a, b), _cost_left(b, a)


def _cost_left(a: _Net, b: _Net) -> int:
    cost = 0
    b_targets, b_sources, b_lo, b_hi = b.targets, b.sources, b.lo, b.hi
    for t in a.targets:
        if t not in b_targets:
            if t in b_sources:
                cost += _CRIT
            elif b_lo < t < b_hi:
                cost += 1
    a_targets, a_lo, a_hi = a.targets, a.lo, a.hi
    for s in b_sources:
        if s in a_targets:
            cost += _CRIT
        elif a_lo < s < a_hi:
            cost += 1
    return cost


def _route_channel(nets: list[_Net]) -> int:
    """Assign vertical tracks (0 = leftmost) to the nets that need one; returns the track count."""
    nets = sorted((n for n in nets if not n.straight), key=lambda n: (n.lo, n.hi, min(n.sources)))
    if not nets:
        return 0
    # overlapping pairs, by a sweep over rows
    overlaps: list[list[int]] = [[] for _ in nets]
    active: list[int] = []
    pairs = 0
    for k, net in enumerate(nets):
        active = [j for j in active if nets[j].hi >= net.lo]
        for j in active:
            other = nets[j]
            # meeting only at a common target row, end to end: they may share a track
            if other.hi == net.lo and net.lo in other.targets and net.lo in net.targets:
                continue
            overlaps[k].append(j)
            overlaps[j].append(k)
            pairs += 1
        if pairs > _ROUTING_PAIR_LIMIT:
            return _left_edge(nets)
        active.append(k)

    # insertion in key order, each net at the place of least cost against those already placed
    order: list[int] = []
    placed = [False] * len(nets)
    for k, net in enumerate(nets):
        olap = [j for j in overlaps[k] if placed[j]]
        placed[k] = True
        if not olap:
            order.append(k)
            continue
        where = sorted((order.index(j), j) for j in olap)
        costs = [_costs(nets[j], net) for _i, j in where]  # (j left of k, k left of j)
        cost = sum(c[1] for c in costs)
        best_cost, best_at = cost, where[0][0]
        for (at, _j), (j_left, k_left) in zip(where, costs, strict=True):
            cost += j_left - k_left
            if cost <= best_cost:
                best_cost, best_at = cost, at + 1
        order.insert(best_at, k)

    rank = [0] * len(nets)
    for r, k in enumerate(order):
        rank[k] = r
    ntracks = 0
    for k in order:
        track = 0
        for j in overlaps[k]:
            if rank[j] < rank[k] and nets[j].track >= track:
                track = nets[j].track + 1
        nets[k].track = track
        ntracks = max(ntracks, track + 1)
    return ntracks


def _left_edge(nets: list[_Net]) -> int:
    """Fewest tracks for many nets (already sorted by start row); crossings not minimised."""
    free: list[int] = []
    busy: list[tuple[int, int]] = []
    ntracks = 0
    for net in nets:
        while busy and busy[0][0] < net.lo:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            track = heapq.heappop(free)
        else:
            track = ntracks
            ntracks += 1
        net.track = track
        heapq.heappush(busy, (net.hi, track))
    return ntracks


