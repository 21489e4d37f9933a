"""Tests for atk_tui.domain.readiness (SPEC §6)."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atk_tui.domain.ages import format_cooldown
from atk_tui.domain.model import ACTIVE, STATES, Item, Snapshot
from atk_tui.domain.readiness import (
    Judgement,
    blocks_count,
    canonical_cycle,
    dependents,
    find_cycles,
    format_cycle,
    judge,
    sort_needs_you,
    transitive_dependents,
    transitive_deps,
)

NOW = datetime(2026, 11, 30, 0, 0, tzinfo=UTC)
JST = timezone(timedelta(hours=9))


def it(name: str, state: str = "inbox", kind: str = "awi", deps: list[str] | None = None, **kw) -> Item:
    return Item(filename=name, state=state, kind=kind, depends_on=list(deps or []), target_repo="acme/webapp", **kw)


def snap(*items: Item, extra_states: dict[str, str] | None = None, plan_missing: set[str] | None = None) -> Snapshot:
    states = {i.filename: i.state for i in items}
    states.update(extra_states or {})
    return Snapshot(
        items={i.filename: i for i in items},
        states=states,
        plan_missing=frozenset(plan_missing or ()),
    )


def codes(j: Judgement) -> list[str]:
    return [r.code for r in j.reasons]


# --------------------------------------------------------------------------- judge


def test_ready_item_without_deps():
    j = judge(snap(it("a.md")), NOW)["a.md"]
    assert j == Judgement("ready", (), True, None, ())
    assert not j.blocked


def test_processing_item_can_be_ready():
    j = judge(snap(it("a.md", "processing")), NOW)["a.md"]
    assert j.status == "ready" and j.ready


def test_defective_reason_joins_defects():
    j = judge(snap(it("a.md", defects=["YAML error", "unknown kind"])), NOW)["a.md"]
    assert j.status == "defective"
    assert not j.ready
    assert codes(j) == ["defective"]
    assert j.reasons[0].message == "YAML error; unknown kind"


def test_plan_missing():
    pf = "$(atk config get private_notes)/plans/2026/11/login.md"
    j = judge(snap(it("a.md", plan_file=pf), plan_missing={"a.md"}), NOW)["a.md"]
    assert j.status == "blocked"
    assert codes(j) == ["plan-missing"]
    assert pf in j.reasons[0].message


def test_cooldown_in_future_blocks_with_message():
    until = datetime(2026, 11, 30, 9, 0, tzinfo=JST)  # 2026-11-30 00:00 UTC
    now = until - timedelta(hours=3, minutes=12, seconds=30)
    j = judge(snap(it("a.md", cooldown_until=until)), now)["a.md"]
    assert j.status == "cooldown"
    assert not j.ready
    assert j.cooldown_until == until
    (r,) = j.reasons
    assert r.code == "cooldown" and r.until == until
    assert r.message == "cooldown until 2026-11-30 09:00 +09:00 (in 3h 12m)"


def test_cooldown_formats():
    until = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
    assert format_cooldown(until, until - timedelta(days=2, hours=5, minutes=1)).endswith("(in 2d 5h)")
    assert format_cooldown(until, until - timedelta(minutes=7, seconds=5)).endswith("(in 7m)")
    assert format_cooldown(until, until - timedelta(seconds=20)).endswith("(in <1m)")
    assert "+00:00" in format_cooldown(until, NOW)


def test_cooldown_in_past_is_not_a_reason():
    j = judge(snap(it("a.md", cooldown_until=NOW - timedelta(seconds=1))), NOW)["a.md"]
    assert j.status == "ready" and j.ready and j.cooldown_until is None
    j = judge(snap(it("a.md", cooldown_until=NOW)), NOW)["a.md"]  # lifts exactly at `until`
    assert j.ready


def test_missing_dependency():
    j = judge(snap(it("a.md", deps=["ghost.md"])), NOW)["a.md"]
    assert j.status == "blocked"
    (r,) = j.reasons
    assert (r.code, r.ref) == ("missing-dep", "ghost.md")
    assert "ghost.md" in r.message


def test_self_dependency():
    j = judge(snap(it("a.md", deps=["a.md"])), NOW)["a.md"]
    assert codes(j) == ["self-dep"]  # not also reported as a cycle
    assert j.reasons[0].ref == "a.md"


def test_active_dependency():
    s = snap(it("a.md", deps=["b.md"]), it("b.md"))
    j = judge(s, NOW)
    assert j["a.md"].status == "blocked"
    (r,) = j["a.md"].reasons
    assert (r.code, r.ref, r.message) == ("dep-active", "b.md", "waiting on b.md (inbox)")
    assert j["b.md"].ready


def test_dependency_in_processing():
    j = judge(snap(it("a.md", deps=["b.md"]), it("b.md", "processing")), NOW)["a.md"]
    assert j.reasons[0].message == "waiting on b.md (processing)"


def test_dependency_in_hold():
    j = judge(snap(it("a.md", deps=["b.md"]), it("b.md", "hold")), NOW)["a.md"]
    assert codes(j) == ["dep-hold"]
    assert j.reasons[0].message == "waiting on b.md (hold)"


@pytest.mark.parametrize("state", ["adopted", "rejected"])
def test_terminal_dependency_parsed(state):
    j = judge(snap(it("a.md", deps=["b.md"]), it("b.md", state)), NOW)
    assert j["a.md"].ready
    assert j["b.md"].status == "terminal" and j["b.md"].reasons == ()


@pytest.mark.parametrize("state", ["adopted", "rejected"])
def test_terminal_dependency_unparsed(state):
    j = judge(snap(it("a.md", deps=["old.md"]), extra_states={"old.md": state}), NOW)
    assert j["a.md"].ready
    assert "old.md" not in j


def test_unparsed_active_dependency_judged_by_state():
    j = judge(snap(it("a.md", deps=["x.md"]), extra_states={"x.md": "hold"}), NOW)["a.md"]
    assert codes(j) == ["dep-hold"]


def test_answered_uwi_dependency_is_satisfied():
    s = snap(it("a.md", deps=["q.md"]), it("q.md", kind="uwi", answered=True))
    j = judge(s, NOW)
    assert j["a.md"].ready and j["a.md"].status == "ready"
    assert j["a.md"].answered_deps == ("q.md",)
    assert j["q.md"].status == "answered" and j["q.md"].ready


def test_unanswered_uwi_dependency_blocks():
    s = snap(it("a.md", deps=["q.md"]), it("q.md", kind="uwi"))
    j = judge(s, NOW)
    assert codes(j["a.md"]) == ["dep-active"]
    assert j["a.md"].reasons[0].message == "waiting on q.md (inbox, unanswered)"
    assert j["a.md"].answered_deps == ()
    assert j["q.md"].status == "waiting"
    assert not j["q.md"].ready and j["q.md"].reasons == ()


def test_answered_uwi_in_hold_or_defective_is_not_satisfied():
    s = snap(
        it("a.md", deps=["q1.md", "q2.md"]),
        it("q1.md", "hold", kind="uwi", answered=True),
        it("q2.md", kind="uwi", answered=True, defects=["bad urgency"]),
    )
    j = judge(s, NOW)["a.md"]
    assert codes(j) == ["dep-hold", "dep-active"]
    assert j.answered_deps == ()


def test_uwi_badge_wins_over_blocked():
    s = snap(it("q.md", kind="uwi", deps=["b.md"]), it("b.md"))
    j = judge(s, NOW)["q.md"]
    assert j.status == "waiting"
    assert codes(j) == ["dep-active"]
    assert not j.ready
    s = snap(it("q.md", kind="uwi", answered=True, deps=["b.md"]), it("b.md"))
    assert judge(s, NOW)["q.md"].status == "answered"


def test_hold_never_ready_but_reasons_computed():
    s = snap(it("h.md", "hold"), it("h2.md", "hold", deps=["ghost.md"]), it("q.md", "hold", kind="uwi"))
    j = judge(s, NOW)
    assert j["h.md"] == Judgement("hold")
    assert j["h2.md"].status == "hold" and codes(j["h2.md"]) == ["missing-dep"]
    assert j["q.md"].status == "hold"


def test_terminal_and_defective_terminal():
    j = judge(snap(it("a.md", "adopted", deps=["ghost.md"]), it("b.md", "rejected", defects=["x"])), NOW)
    assert j["a.md"] == Judgement("terminal")
    assert j["b.md"].status == "defective" and codes(j["b.md"]) == ["defective"]


def test_several_reasons_in_spec_order():
    until = NOW + timedelta(hours=1)
    s = snap(
        it("a.md", deps=["b.md", "ghost.md", "a.md", "c.md", "q.md"], defects=["bad"], cooldown_until=until,
           plan_file="p"),
        it("b.md", deps=["a.md"]),
        it("c.md", "hold"),
        it("q.md", kind="uwi", answered=True),
        plan_missing={"a.md"},
    )
    j = judge(s, NOW)["a.md"]
    assert codes(j) == [
        "defective", "plan-missing", "cooldown", "missing-dep", "self-dep", "cycle", "dep-active", "dep-hold",
    ]
    assert j.status == "defective"
    assert j.cooldown_until == until
    assert j.answered_deps == ("q.md",)


def test_cooldown_and_dependency_is_blocked_not_cooldown():
    s = snap(it("a.md", deps=["b.md"], cooldown_until=NOW + timedelta(minutes=5)), it("b.md"))
    assert judge(s, NOW)["a.md"].status == "blocked"


def test_duplicate_dependency_reported_once():
    j = judge(snap(it("a.md", deps=["b.md", "b.md"]), it("b.md")), NOW)["a.md"]
    assert codes(j) == ["dep-active"]


def test_cross_target_repo_dependency():
    a = it("a.md", deps=["b.md"])
    b = Item(filename="b.md", state="adopted", target_repo="acme/api")
    c = Item(filename="c.md", state="inbox", target_repo="acme/api", depends_on=["b.md"])
    d = it("d.md", deps=["c.md"])
    j = judge(snap(a, b, c, d), NOW)
    assert j["a.md"].ready and j["c.md"].ready
    assert j["d.md"].reasons[0].ref == "c.md"


def test_cycle_of_two():
    j = judge(snap(it("a.md", deps=["b.md"]), it("b.md", deps=["a.md"])), NOW)
    ra = [r for r in j["a.md"].reasons if r.code == "cycle"]
    rb = [r for r in j["b.md"].reasons if r.code == "cycle"]
    assert ra[0].cycle == rb[0].cycle == ("a.md", "b.md")
    assert ra[0].message == "on a dependency cycle: a.md -> b.md -> a.md"
    assert rb[0].message == "on a dependency cycle: b.md -> a.md -> b.md"
    assert ra[0].ref == "b.md" and rb[0].ref == "a.md"
    assert codes(j["a.md"]) == ["cycle", "dep-active"]


def test_cycle_of_three_and_item_outside_cycle():
    s = snap(
        it("c.md", deps=["a.md"]), it("a.md", deps=["b.md"]), it("b.md", deps=["c.md"]), it("x.md", deps=["a.md"]),
    )
    j = judge(s, NOW)
    for name in ("a.md", "b.md", "c.md"):
        (r,) = [r for r in j[name].reasons if r.code == "cycle"]
        assert r.cycle == ("a.md", "b.md", "c.md")
    assert "cycle" not in codes(j["x.md"])
    assert codes(j["x.md"]) == ["dep-active"]


def test_cycle_through_terminal_item_is_not_a_reason():
    s = snap(it("a.md", deps=["b.md"]), it("b.md", "adopted", deps=["a.md"]))
    assert judge(s, NOW)["a.md"].ready


def test_cycle_through_hold_item_blocks():
    s = snap(it("a.md", deps=["b.md"]), it("b.md", "hold", deps=["a.md"]))
    j = judge(s, NOW)
    assert codes(j["a.md"]) == ["cycle", "dep-hold"]
    assert "cycle" in codes(j["b.md"])


def test_judge_accepts_naive_now():
    j = judge(snap(it("a.md", cooldown_until=NOW + timedelta(hours=1))), NOW.replace(tzinfo=None))
    assert j["a.md"].status == "cooldown"


# --------------------------------------------------------------------------- cycles


def test_find_cycles_two_three_self():
    assert find_cycles({"b.md": ["a.md"], "a.md": ["b.md"]}) == [("a.md", "b.md")]
    assert find_cycles({"c.md": ["a.md"], "a.md": ["b.md"], "b.md": ["c.md"]}) == [("a.md", "b.md", "c.md")]
    assert find_cycles({"a.md": ["a.md"]}) == [("a.md",)]
    assert find_cycles({"a.md": ["b.md"], "b.md": []}) == []
    assert find_cycles({}) == []


def test_find_cycles_two_disjoint_cycles():
    g = {"x.md": ["y.md"], "y.md": ["x.md"], "a.md": ["b.md"], "b.md": ["c.md"], "c.md": ["a.md"], "z.md": ["a.md"]}
    assert find_cycles(g) == [("a.md", "b.md", "c.md"), ("x.md", "y.md")]


def test_find_cycles_overlapping_and_self_loop():
    # a<->b, b->c->a, and c->c
    g = {"a.md": ["b.md"], "b.md": ["a.md", "c.md"], "c.md": ["a.md", "c.md"]}
    assert find_cycles(g) == [("a.md", "b.md"), ("a.md", "b.md", "c.md"), ("c.md",)]


def test_find_cycles_complete_graph_all_enumerated_and_capped():
    nodes = [f"n{i}.md" for i in range(4)]
    g = {n: [m for m in nodes if m != n] for n in nodes}
    cycles = find_cycles(g)
    # K4 has 6 two-cycles + 8 three-cycles + 6 four-cycles
    assert len(cycles) == 20 == len(set(cycles))
    assert all(c[0] == min(c) for c in cycles)
    assert len(find_cycles(g, max_per_component=5)) == 5
    nodes = [f"n{i}.md" for i in range(8)]
    big = {n: [m for m in nodes if m != n] for n in nodes}
    assert len(find_cycles(big)) == 100


def test_find_cycles_unknown_targets_are_sinks():
    assert find_cycles({"a.md": ["ghost.md"]}) == []


def test_format_cycle():
    assert format_cycle(("a.md", "b.md")) == "a.md -> b.md -> a.md"
    assert format_cycle(("a.md",)) == "a.md -> a.md"
    assert format_cycle(("a.md", "b.md", "c.md"), start=1) == "b.md -> c.md -> a.md -> b.md"
    assert format_cycle(tuple(f"{i}.md" for i in range(10)), limit=3) == "0.md -> 1.md -> 2.md -> ... (+7 more) -> 0.md"
    assert format_cycle(()) == ""
    assert canonical_cycle(["c.md", "a.md", "b.md"]) == ("a.md", "b.md", "c.md")


def _brute_force_cycles(graph: dict[str, list[str]]) -> set[tuple[str, ...]]:
    found: set[tuple[str, ...]] = set()
    nodes = sorted(set(graph) | {w for ws in graph.values() for w in ws})

    def walk(start: str, path: list[str]) -> None:
        for w in graph.get(path[-1], ()):
            if w == start:
                found.add(tuple(path))
            elif w > start and w not in path:
                walk(start, [*path, w])

    for n in nodes:
        walk(n, [n])
    return found


graphs = st.dictionaries(
    st.sampled_from([f"{c}.md" for c in "abcdef"]),
    st.lists(st.sampled_from([f"{c}.md" for c in "abcdefg"]), max_size=4),
    max_size=6,
)


@given(graphs)
@settings(max_examples=200, deadline=None)
def test_find_cycles_matches_brute_force(graph):
    result = find_cycles(graph)
    assert result == sorted(result)
    assert len(result) == len(set(result))
    assert set(result) == _brute_force_cycles(graph)


# --------------------------------------------------------------------------- reverse edges


def test_dependents_and_transitive_sets():
    s = snap(
        it("a.md", deps=["b.md", "c.md"]),
        it("b.md", deps=["d.md"]),
        it("c.md", deps=["d.md"]),
        it("d.md", deps=["ghost.md"]),
        it("e.md"),
        it("x.md", deps=["y.md"]),
        it("y.md", deps=["x.md"]),
    )
    rev = dependents(s)
    assert rev["d.md"] == ["b.md", "c.md"]
    assert rev["ghost.md"] == ["d.md"]
    assert rev["e.md"] == [] and rev["a.md"] == []
    assert transitive_deps(s, "a.md") == {"b.md", "c.md", "d.md", "ghost.md"}
    assert transitive_dependents(s, "d.md") == {"a.md", "b.md", "c.md"}
    assert transitive_deps(s, "x.md") == {"y.md"}  # cycle-safe, itself excluded
    assert transitive_dependents(s, "x.md") == {"y.md"}
    assert transitive_deps(s, "nobody.md") == set()


# --------------------------------------------------------------------------- triage


def test_blocks_count_diamond():
    # q <- b, q <- c, b <- a, c <- a, a <- top; plus a terminal and an unrelated item
    s = snap(
        it("q.md", kind="uwi"),
        it("b.md", deps=["q.md"]),
        it("c.md", "hold", deps=["q.md"]),
        it("a.md", "processing", deps=["b.md", "c.md"]),
        it("top.md", deps=["a.md"]),
        it("done.md", "adopted", deps=["q.md"]),
        it("other.md"),
    )
    j = judge(s, NOW)
    counts = blocks_count(s, j)
    assert counts == {"q.md": (2, 4)}


def test_blocks_count_cycle_safe_and_answered_edges():
    s = snap(
        it("q.md", kind="uwi", deps=["a.md"]),
        it("a.md", deps=["q.md"]),  # cycle through the UWI
        it("r.md", kind="uwi", answered=True, deps=["q.md"]),  # answered UWI waiting on q
        it("z.md", deps=["r.md"]),  # satisfied by r's answer: not blocked by q through r
        it("q2.md", "hold", kind="uwi"),
        it("q3.md", "adopted", kind="uwi"),
    )
    counts = blocks_count(s, judge(s, NOW))
    assert counts == {"q.md": (2, 2), "q2.md": (0, 0)}


def test_sort_needs_you():
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    s = snap(
        it("info.md", kind="uwi", urgency="informational", created=t0),
        it("next.md", kind="uwi", urgency="next-review", created=t0),
        it("b-old.md", kind="uwi", created=t0),
        it("b-new.md", kind="uwi", created=t0 + timedelta(days=1)),
        it("b-big.md", kind="uwi", created=t0 + timedelta(days=2)),
        it("b-nodate.md", kind="uwi"),
        it("b-same1.md", kind="uwi", created=t0),
        it("held.md", "hold", kind="uwi", created=t0 + timedelta(days=3)),
        it("answered.md", kind="uwi", answered=True),
        it("closed.md", "adopted", kind="uwi"),
        it("w1.md", deps=["b-big.md"]),
        it("w2.md", deps=["w1.md"]),
        it("w3.md", deps=["held.md"]),
    )
    j = judge(s, NOW)
    counts = blocks_count(s, j)
    assert counts["b-big.md"] == (1, 2)
    assert counts["held.md"] == (1, 1)
    assert sort_needs_you(s, j, counts) == [
        "b-big.md",
        "held.md",
        "b-old.md",
        "b-same1.md",
        "b-new.md",
        "b-nodate.md",
        "next.md",
        "info.md",
    ]


# --------------------------------------------------------------------------- scale


def test_long_chain_no_recursion_error():
    n = 10_000
    items = [it(f"{i:05d}.md", deps=[f"{i + 1:05d}.md"]) for i in range(n - 1)]
    items.append(it(f"{n - 1:05d}.md", kind="uwi"))
    s = snap(*items)
    j = judge(s, NOW)
    assert j[f"{n - 1:05d}.md"].status == "waiting"
    assert j["00000.md"].status == "blocked"
    assert blocks_count(s, j)[f"{n - 1:05d}.md"] == (1, n - 1)
    assert len(transitive_deps(s, "00000.md")) == n - 1
    assert len(transitive_dependents(s, f"{n - 1:05d}.md")) == n - 1
    assert find_cycles({i.filename: i.depends_on for i in items}) == []


def test_long_ring_one_shared_cycle():
    n = 10_000
    names = [f"{i:05d}.md" for i in range(n)]
    s = snap(*(it(names[i], deps=[names[(i + 1) % n]]) for i in range(n)))
    t = time.perf_counter()
    j = judge(s, NOW)
    assert time.perf_counter() - t < 20
    cyc = next(r for r in j[names[5]].reasons if r.code == "cycle")
    assert len(cyc.cycle) == n and cyc.cycle[0] == names[0]
    assert cyc.message.startswith(f"on a dependency cycle: {names[5]} -> {names[6]}")
    assert len(cyc.message) < 400
    assert find_cycles({x: s.items[x].depends_on for x in names}) == [tuple(names)]


def test_random_big_graph_returns():
    rng = random.Random(1234)
    n = 10_000
    names = [f"{i:05d}.md" for i in range(n)]
    items = []
    for i, name in enumerate(names):
        deps = rng.sample(names, rng.randint(0, 3))
        kind = "uwi" if i % 100 == 0 else "awi"
        state = rng.choice(["inbox", "inbox", "processing", "hold", "adopted"])
        items.append(it(name, state, kind=kind, deps=deps, answered=(i % 300 == 0)))
    s = snap(*items)
    t = time.perf_counter()
    cycles = find_cycles({x.filename: x.depends_on for x in items})
    j = judge(s, NOW)
    counts = blocks_count(s, j)
    order = sort_needs_you(s, j, counts)
    assert time.perf_counter() - t < 60
    assert cycles and all(c[0] == min(c) for c in cycles)
    assert len(j) == n
    assert set(order) == set(counts)
    for name, jj in j.items():
        for r in jj.reasons:
            if r.code == "cycle":
                cyc = r.cycle
                assert name in cyc and len(set(cyc)) == len(cyc)
                for k, node in enumerate(cyc):  # every edge of the reported cycle exists
                    assert cyc[(k + 1) % len(cyc)] in s.items[node].depends_on


# --------------------------------------------------------------------------- properties

NAMES = [f"{c}.md" for c in "abcdefgh"]


@st.composite
def snapshots(draw):
    chosen = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=7))
    items = []
    for name in chosen:
        cool = draw(st.one_of(st.none(), st.integers(-3, 3).map(lambda h: NOW + timedelta(hours=h))))
        items.append(
            Item(
                filename=name,
                state=draw(st.sampled_from(STATES)),
                kind=draw(st.sampled_from(["awi", "uwi"])),
                depends_on=draw(st.lists(st.sampled_from([*NAMES, "ghost.md"]), max_size=4)),
                answered=draw(st.booleans()),
                cooldown_until=cool,
                defects=draw(st.lists(st.just("broken"), max_size=1)),
                urgency=draw(st.sampled_from(["blocking", "next-review", "informational", "weird"])),
            )
        )
    unparsed = draw(st.dictionaries(st.sampled_from(["old1.md", "old2.md"]), st.sampled_from(STATES)))
    plan_missing = draw(st.sets(st.sampled_from(NAMES)))
    return snap(*items, extra_states=unparsed, plan_missing=plan_missing)


@given(snapshots())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_judge_properties(s):
    j = judge(s, NOW)
    assert set(j) == set(s.items)
    for name, jj in j.items():
        item = s.items[name]
        assert jj.status in {"ready", "blocked", "cooldown", "waiting", "answered", "hold", "terminal", "defective"}
        if jj.ready:
            assert jj.reasons == ()
            assert item.state in {"inbox", "processing"}
        if jj.status in {"blocked", "cooldown", "defective"}:
            assert len(jj.reasons) >= 1
        if item.state in {"inbox", "processing"} and item.kind == "awi":
            assert jj.ready == (not jj.reasons)
        if item.state == "hold":
            assert not jj.ready
        for r in jj.reasons:
            if r.code == "cycle":
                assert name in r.cycle and r.cycle[0] == min(r.cycle)
    counts = blocks_count(s, j)
    order = sort_needs_you(s, j, counts)
    assert sorted(order) == sorted(counts)
    for d, t in counts.values():
        assert 0 <= d <= t


def _assert_valid_cycle_reasons(s: Snapshot, j: dict[str, Judgement]) -> None:
    for name, jj in j.items():
        for r in jj.reasons:
            if r.code == "cycle":
                cyc = r.cycle
                assert name in cyc and len(set(cyc)) == len(cyc) >= 2
                assert cyc[0] == min(cyc)
                for k, node in enumerate(cyc):
                    assert cyc[(k + 1) % len(cyc)] in s.items[node].depends_on


def test_capped_component_still_gives_every_node_a_cycle():
    clique = [f"a{i}.md" for i in range(8)]  # far more than 100 cycles through a0
    items = [it(n, deps=[m for m in clique if m != n] + (["z.md"] if n == "a7.md" else [])) for n in clique]
    items.append(it("z.md", deps=["a7.md"]))  # only on (a7, z), never reached before the cap
    s = snap(*items)
    j = judge(s, NOW)
    (rz,) = [r for r in j["z.md"].reasons if r.code == "cycle"]
    assert rz.cycle == ("a7.md", "z.md")
    assert rz.message == "on a dependency cycle: z.md -> a7.md -> z.md"
    _assert_valid_cycle_reasons(s, j)


@pytest.mark.parametrize("cap", [0, 1])
@given(s=snapshots())
@settings(max_examples=150, deadline=None)
def test_cycle_reasons_valid_with_tiny_cap(cap, s):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("atk_tui.domain.readiness.MAX_CYCLES_PER_COMPONENT", cap)
        j = judge(s, NOW)
    _assert_valid_cycle_reasons(s, j)
    active = {n for n, i in s.items.items() if i.state in ACTIVE}
    graph = {n: [d for d in s.items[n].depends_on if d != n and d in s.states] for n in active}
    on_cycle = {v for c in find_cycles(graph) for v in c}
    assert {n for n, jj in j.items() if "cycle" in codes(jj)} == on_cycle
