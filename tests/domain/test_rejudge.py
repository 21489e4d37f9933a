"""Incremental refresh (`core.rejudge`, `Service.queue(previous=...)`): never stale.

Plain unit tests of `rejudge` (a chain, a cycle forming and breaking, a missing dependency
appearing, a cooldown running out), a property test over generated snapshots, and a property
test on a real git store with a bare remote that interleaves external git operations (a
commit from another clone, pulled; `git mv`; frontmatter edited in the work tree), atk writes
through the service and the clock moving, comparing after every step the refreshed view with
one judged from scratch."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.storekit import AWI_BODY, UWI_BODY, Clock, add_item, clone, git, make_remote_pair, spy_parses

import atk_tui.service.reading.loading as loading_mod
import atk_tui.service.reading.reads as reads_mod
from atk_tui.cache import caches as cache_mod
from atk_tui.cache.caches import to_record
from atk_tui.domain import readiness
from atk_tui.domain.model import ACTIVE, Item, Snapshot
from atk_tui.domain.rejudge import changed, refresh, rejudge, rejudge_changes
from atk_tui.service import QueueView, Service
from atk_tui.store import AtkError

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def item(name: str, state: str = "inbox", deps: tuple[str, ...] = (), **kw) -> Item:
    return Item(filename=name, state=state, title=name, depends_on=list(deps), **kw)


def snap(*items: Item, extra: dict[str, str] | None = None, plan_missing: frozenset[str] = frozenset()) -> Snapshot:
    states = {i.filename: i.state for i in items}
    states.update(extra or {})
    return Snapshot(items={i.filename: i for i in items}, states=states, plan_missing=plan_missing)


def with_item(s: Snapshot, new: Item, *, drop: str | None = None) -> Snapshot:
    """`s` with `new` in place of its namesake (the other items the very same objects)."""
    items = {n: i for n, i in s.items.items() if n != drop}
    items[new.filename] = new
    states = {n: st_ for n, st_ in s.states.items() if n != drop}
    states[new.filename] = new.state
    return Snapshot(items=items, states=states, plan_missing=s.plan_missing)


def check_rejudge(prev: Snapshot, now0: datetime, new: Snapshot, now: datetime) -> tuple[dict, set[str]]:
    """Rejudge from `judge(prev, now0)` and compare with `judge(new, now)`; (the judgements,
    the names judged anew)."""
    before = readiness.judge(prev, now0)
    got = rejudge_changes(prev, before, new, now)
    fresh = readiness.judge(new, now)
    assert got.judgements == fresh
    assert list(got.judgements) == list(fresh)
    assert rejudge(prev, before, new, now) == fresh
    for name, j in got.judgements.items():
        if name not in got.judged:
            assert j is before[name]  # kept, not judged again
    return got.judgements, set(got.judged)


# -- unit tests ---------------------------------------------------------------------------


def test_a_chain_judges_again_only_the_direct_dependent() -> None:
    a, b, c, d = "a.md", "b.md", "c.md", "d.md"
    prev = snap(item(a), item(b, deps=(a,)), item(c, deps=(b,)), item(d))
    new = with_item(prev, item(a, "adopted"))
    got, judged = check_rejudge(prev, NOW, new, NOW)
    assert judged == {a, b}  # c waits on b, whose state did not change; d is unrelated
    assert got[b].ready and got[a].status == "terminal"
    assert not got[c].ready


def test_a_cycle_forming_and_breaking() -> None:
    a, b, c, e = "a.md", "b.md", "c.md", "e.md"
    prev = snap(item(a, deps=(b,)), item(b, deps=(c,)), item(c), item(e, deps=(a,)))
    closed = with_item(prev, item(c, deps=(a,)))
    got, judged = check_rejudge(prev, NOW, closed, NOW)
    assert {a, b, c} <= judged
    for name in (a, b, c):
        assert any(r.code == "cycle" for r in got[name].reasons)
    assert not any(r.code == "cycle" for r in got[e].reasons)
    opened = with_item(closed, item(b))
    got, judged = check_rejudge(closed, NOW, opened, NOW)
    assert {a, b, c} <= judged  # every member of the old component, though only b changed
    assert not any(r.code == "cycle" for j in got.values() for r in j.reasons)


def test_a_missing_dependency_appearing() -> None:
    a, x = "a.md", "x.md"
    prev = snap(item(a, deps=(x,)), item("z.md"))
    assert [r.code for r in readiness.judge(prev, NOW)[a].reasons] == ["missing-dep"]
    got, judged = check_rejudge(prev, NOW, with_item(prev, item(x, "hold")), NOW)
    assert judged == {a, x}
    assert [r.code for r in got[a].reasons] == ["dep-hold"]
    # and a terminal name that only the states know of (not parsed) counts as existing
    only_named = Snapshot(items=dict(prev.items), states={**prev.states, x: "adopted"})
    got, judged = check_rejudge(prev, NOW, only_named, NOW)
    assert got[a].ready and judged == {a}


def test_a_cooldown_running_out_and_counting_down() -> None:
    a, b = "a.md", "b.md"
    s = snap(item(a, cooldown_until=NOW + timedelta(hours=2)), item(b))
    later = NOW + timedelta(hours=1)
    got, judged = check_rejudge(s, NOW, s, later)
    assert judged == {a}  # its message says how long is left
    assert got[a].status == "cooldown" and "in 1h 0m" in got[a].reasons[0].message
    got, judged = check_rejudge(s, later, s, NOW + timedelta(hours=3))
    assert judged == {a} and got[a].ready
    # the clock going back puts a cooldown in force again
    past = snap(item(a, cooldown_until=NOW + timedelta(minutes=1)), item(b))
    _, judged = check_rejudge(past, NOW + timedelta(hours=1), past, NOW)
    assert judged == {a}


def test_a_dependency_answered_changes_its_dependents_and_the_blocks_counts() -> None:
    q, a, b = "q.md", "a.md", "b.md"
    prev = snap(item(q, kind="uwi"), item(a, deps=(q,)), item(b, deps=(a,)))
    judgements = readiness.judge(prev, NOW)
    deps = readiness.dependents(prev)
    blocks = readiness.blocks_count(prev, judgements, deps)
    assert blocks == {q: (1, 2)}
    new = with_item(prev, item(q, kind="uwi", answered=True))
    got = refresh(prev, judgements, deps, blocks, new, NOW)
    assert got.judgements == readiness.judge(new, NOW)
    assert got.blocks == readiness.blocks_count(new, got.judgements) == {}
    assert got.judgements[a].answered_deps == (q,)
    assert got.dependents is deps or got.dependents == deps


def test_changed_sees_only_what_judgements_read() -> None:
    a = item("a.md")
    prev = snap(a, item("b.md"))
    same = item("a.md")  # another object, the same fields
    assert changed(prev, with_item(prev, same)) == set()
    retitled = item("a.md")
    retitled.title = "something else"  # a title is never judged
    assert changed(prev, with_item(prev, retitled)) == set()
    assert changed(prev, with_item(prev, item("a.md", deps=("b.md",)))) == {"a.md"}
    assert changed(prev, snap(a)) == {"b.md"}
    assert changed(prev, Snapshot(prev.items, prev.states, plan_missing=frozenset({"a.md"}))) == {"a.md"}
    # the same instant in another zone is another message
    z1 = with_item(prev, item("a.md", cooldown_until=NOW))
    z2 = with_item(prev, item("a.md", cooldown_until=NOW.astimezone(timezone(timedelta(hours=9)))))
    assert changed(z1, z2) == {"a.md"}


# -- a property over generated snapshots -------------------------------------------------

NAMES = tuple(f"n{i}.md" for i in range(7))
STATES_ = ("inbox", "inbox", "processing", "hold", "adopted", "rejected", "planning")


@st.composite
def items_st(draw: st.DrawFn, name: str) -> Item:
    cooldown = draw(st.sampled_from([None, -90, 30, 200]))
    return item(
        name,
        draw(st.sampled_from(STATES_)),
        tuple(draw(st.lists(st.sampled_from((*NAMES, "gone.md")), max_size=3))),
        kind=draw(st.sampled_from(["awi", "awi", "uwi"])),
        answered=draw(st.booleans()),
        answer_partial=draw(st.booleans()),
        defects=draw(st.sampled_from([[], [], ["broken"]])),
        cooldown_until=None if cooldown is None else NOW + timedelta(minutes=cooldown),
    )


@st.composite
def snapshots_st(draw: st.DrawFn, base: Snapshot | None = None) -> Snapshot:
    items: dict[str, Item] = {}
    for name in NAMES:
        keep = base is not None and name in base.items and draw(st.integers(0, 3)) > 0
        if keep:
            items[name] = base.items[name]  # the very object: unchanged
        elif draw(st.integers(0, 5)) > 0:
            items[name] = draw(items_st(name))
    states = {n: i.state for n, i in items.items()}
    if draw(st.booleans()):
        states["gone.md"] = "adopted"  # known by name only
    plan_missing = frozenset(n for n in items if draw(st.integers(0, 6)) == 0)
    return Snapshot(items=items, states=states, plan_missing=plan_missing)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_refresh_equals_judging_from_scratch(data: st.DataObject) -> None:
    s = data.draw(snapshots_st())
    now = NOW
    judgements = readiness.judge(s, now)
    deps = readiness.dependents(s)
    blocks = readiness.blocks_count(s, judgements, deps)
    for _ in range(data.draw(st.integers(1, 4))):
        new = data.draw(snapshots_st(s))
        later = now + timedelta(minutes=data.draw(st.sampled_from([0, 1, 45, 120, 400])))
        got = refresh(s, judgements, deps, blocks, new, later)
        fresh = readiness.judge(new, later)
        assert got.judgements == fresh and list(got.judgements) == list(fresh)
        fresh_deps = readiness.dependents(new)
        assert got.dependents == fresh_deps and list(got.dependents) == list(fresh_deps)
        fresh_blocks = readiness.blocks_count(new, fresh)
        assert got.blocks == fresh_blocks and list(got.blocks) == list(fresh_blocks)
        s, now, judgements, deps, blocks = new, later, got.judgements, got.dependents, got.blocks


# -- a property on a real store ----------------------------------------------------------

STATES = ACTIVE | {"planning"}  # what the dashboard loads
RACY = 50_000_000  # ns: the tests wait this long before a refresh so unchanged files are kept


def set_frontmatter(path: Path, key: str, value: str | None) -> None:
    """Edit one frontmatter key in the file by hand (as a user's editor would)."""
    text = path.read_text()
    end = text.index("\n---\n", 4)
    fm, rest = text[4:end], text[end:]
    lines = [ln for ln in fm.split("\n") if not ln.startswith(f"{key}:")]
    if value is not None:
        lines.insert(1, f"{key}: {value}")
    path.write_text("---\n" + "\n".join(lines) + rest)


class World:
    """The store (a clone of a bare remote), another clone of it, the service and a clock."""

    def __init__(self, tmp: Path) -> None:
        self.root, self.remote = make_remote_pair(tmp)
        self.other = clone(self.remote, tmp / "other")
        self.clock = Clock(NOW)
        self.svc = Service(self.root, clock=self.clock, actor="user", pull=False, push=False)
        self.fresh = Service(self.root, clock=self.clock, actor="user", pull=False, push=False, use_cache=False)
        self.n = 0
        a = add_item(self.svc, target_repo="acme/api")
        q = add_item(self.svc, body=UWI_BODY, kind="uwi", depends_on=[a])
        b = add_item(self.svc, body=AWI_BODY.replace("Use one", "Use two"), depends_on=[q])
        add_item(self.svc, body=AWI_BODY.replace("Use one", "Use three"), depends_on=[b],
                 cooldown_until=NOW + timedelta(minutes=90))  # fmt: skip

    def names(
        self, root: Path | None = None, states: tuple[str, ...] = ("inbox", "processing", "hold")
    ) -> list[tuple[str, str]]:
        root = root or self.root
        return [(s, p.name) for s in states for p in sorted((root / "wi" / s).glob("*.md"))]

    def pick(
        self, k: int, root: Path | None = None, states: tuple[str, ...] = ("inbox", "processing", "hold")
    ) -> tuple[str, str] | None:
        found = self.names(root, states)
        return found[k % len(found)] if found else None

    def some_names(self, k: int, n: int) -> list[str]:
        every = [name for _, name in self.names(states=("inbox", "processing", "hold", "adopted"))]
        return [every[(k * 7 + i * 3) % len(every)] for i in range(n)] if every else []

    # -- the steps ---------------------------------------------------------------------

    def external_commit(self, k: int) -> None:
        """Another clone changes the store, commits and pushes; this one pulls."""
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "--allow-empty", "-m", f"wip {k}")
        git(self.root, "push", "-q")
        git(self.other, "pull", "-q", "--rebase")
        pick = self.pick(k, self.other)
        choice = k % 4
        if choice == 0 or pick is None:
            self.n += 1
            deps = ", ".join(self.some_names(k, k % 3))
            (self.other / "wi" / "inbox" / f"20261201-0000{self.n:02d}-remote-{k}.md").write_text(
                f"---\nkind: awi\ntarget_repo: acme/api\ndepends_on: [{deps}]\n---\n# Remote {k}\n\nbody\n"
            )
        elif choice == 1:  # depends_on edited there (maybe closing a cycle)
            set_frontmatter(
                self.other / "wi" / pick[0] / pick[1], "depends_on", f"[{', '.join(self.some_names(k, 2))}]"
            )
        elif choice == 2:  # moved there
            dest = {"inbox": "hold", "hold": "processing", "processing": "adopted"}[pick[0]]
            git(self.other, "mv", f"wi/{pick[0]}/{pick[1]}", f"wi/{dest}/{pick[1]}")
        else:
            git(self.other, "rm", "-q", f"wi/{pick[0]}/{pick[1]}")
        git(self.other, "add", "-A")
        git(self.other, "commit", "-q", "--allow-empty", "-m", f"other {k}")
        git(self.other, "push", "-q")
        git(self.root, "pull", "-q", "--rebase")

    def git_mv(self, k: int) -> None:
        pick = self.pick(k)
        if pick is None:
            return
        dest = ("inbox", "hold", "processing", "rejected")[k % 4]
        if dest != pick[0]:
            git(self.root, "mv", f"wi/{pick[0]}/{pick[1]}", f"wi/{dest}/{pick[1]}")
            if k % 2:
                git(self.root, "commit", "-q", "-m", f"mv {k}")

    def edit_frontmatter(self, k: int) -> None:
        pick = self.pick(k)
        if pick is None:
            return
        path = self.root / "wi" / pick[0] / pick[1]
        if k % 3 == 0:
            until = self.clock.now + timedelta(minutes=(k % 5) * 20 - 30)
            set_frontmatter(path, "cooldown_until", until.strftime("%Y-%m-%dT%H:%M:%SZ"))
        elif k % 3 == 1:
            set_frontmatter(path, "depends_on", f"[{', '.join(self.some_names(k, 1 + k % 2))}]")
        else:
            set_frontmatter(path, "depends_on", None)

    def atk_write(self, k: int) -> None:
        pick = self.pick(k)
        choice = k % 6
        try:
            if choice == 0 or pick is None:
                kind = "uwi" if k % 2 else "awi"
                add_item(self.svc, body=UWI_BODY if kind == "uwi" else AWI_BODY.replace("Use one", f"Use {k}"),
                         kind=kind, depends_on=self.some_names(k, k % 3))  # fmt: skip
            elif choice == 1:
                self.svc.writes.transition_command("hold", [pick[1]])
            elif choice == 2:
                self.svc.writes.unhold(pick[1])
            elif choice == 3:
                uwis = [n for s, n in self.names() if "which-email" in n]
                if uwis:
                    self.svc.answers.answer(uwis[k % len(uwis)], choices={1: "ABC"[k % 3]}, replace=True)
            elif choice == 4:
                self.svc.writes.set_dependencies(pick[1], self.some_names(k, k % 3))
            else:
                self.svc.writes.rm([pick[1]])
        except AtkError:
            pass  # a refusal (the work tree has someone's edit in the way): nothing written

    def plan(self, k: int) -> None:
        """A plan file named in a frontmatter, or one created or deleted (SPEC §6 rule 1)."""
        plan = f"plans/p{k % 3}.md"
        pick = self.pick(k)
        if k % 2 and pick is not None:
            set_frontmatter(
                self.root / "wi" / pick[0] / pick[1], "plan_file", f"$(atk config get private_notes)/{plan}"
            )
            return
        path = self.root / plan
        if path.exists():
            path.unlink()
        else:
            path.parent.mkdir(exist_ok=True)
            path.write_text("# plan\n")

    def tick(self, k: int) -> None:
        self.clock.now += timedelta(minutes=(k % 4) * 25 + 1)


STEPS = ("external_commit", "git_mv", "edit_frontmatter", "atk_write", "plan", "tick")


def assert_same(view: QueueView, fresh: QueueView) -> None:
    assert view.judgements == fresh.judgements
    assert list(view.judgements) == list(fresh.judgements)
    assert view.dependents == fresh.dependents and list(view.dependents) == list(fresh.dependents)
    assert view.blocks == fresh.blocks and list(view.blocks) == list(fresh.blocks)
    assert view.needs_you == fresh.needs_you
    assert view.snapshot.states == fresh.snapshot.states
    assert view.snapshot.plan_missing == fresh.snapshot.plan_missing
    assert view.store_defects == fresh.store_defects
    assert view.head == fresh.head and view.now == fresh.now
    assert list(view.items) == list(fresh.items)
    for name, it in view.items.items():
        other = fresh.items[name]
        for field in ("state", "kind", "title", "depends_on", "cooldown_until", "answered", "defects", "blob", "queue"):
            assert getattr(it, field) == getattr(other, field), (name, field)


def through_disk(world: World, view: QueueView) -> QueueView:
    """`view` kept by one run and read back by the next (a new service); equal to it."""
    assert world.svc.save_queue(view)
    back = Service(world.root, clock=world.clock, actor="user", pull=False, push=False).saved_queue(STATES)
    assert back is not None
    assert_same(back, view)
    assert back.loaded == view.loaded
    for name, it in view.items.items():
        assert to_record(back.items[name]) == to_record(it)
    return back


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(steps=st.lists(st.tuples(st.sampled_from(STEPS), st.integers(0, 40)), min_size=3, max_size=9))
@pytest.mark.parametrize("saved", [False, True], ids=["in-process", "saved-by-an-earlier-run"])
def test_a_refreshed_view_equals_one_from_scratch(
    saved: bool, steps: list[tuple[str, int]], tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`saved`: the previous view is the one an earlier run kept (`Service.save_queue`), read
    back by a new service (`saved_queue`), as the dashboard starts."""
    monkeypatch.setattr(reads_mod, "RACY_NS", RACY)
    monkeypatch.setattr(loading_mod, "RACY_NS", RACY)
    monkeypatch.setattr(cache_mod, "RACY_NS", RACY)
    world = World(tmp_path_factory.mktemp("rj"))
    time.sleep(RACY / 1e9 * 1.2)
    last = world.svc.queue(STATES)
    kept = 0
    for step, k in steps:
        if saved:
            last = through_disk(world, last)
        getattr(world, step)(k)
        time.sleep(RACY / 1e9 * 1.2)  # the change is older than the racy window: files may be kept
        view = world.svc.queue(STATES, previous=last)
        assert_same(view, world.fresh.queue(STATES))
        kept += sum(1 for n, it in view.items.items() if last.items.get(n) is it)
        last = view
    assert kept > 0  # unchanged items were taken over, not read again


def test_a_refresh_reads_only_the_changed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reads_mod, "RACY_NS", RACY)
    monkeypatch.setattr(loading_mod, "RACY_NS", RACY)
    monkeypatch.setattr(cache_mod, "RACY_NS", RACY)
    world = World(tmp_path)
    time.sleep(RACY / 1e9 * 1.2)
    first = world.svc.queue(STATES)
    parsed = spy_parses(monkeypatch)
    again = world.svc.queue(STATES, previous=first)
    assert parsed == [] and all(again.items[n] is first.items[n] for n in first.items)
    # judged again: only the item whose cooldown counts down
    assert [n for n in first.judgements if again.judgements[n] is not first.judgements[n]] == [
        n for n, j in first.judgements.items() if j.cooldown_until is not None
    ]
    _state, name = world.pick(1) or ("", "")
    world.edit_frontmatter(1)  # depends_on edited by hand
    time.sleep(RACY / 1e9 * 1.2)
    third = world.svc.queue(STATES, previous=again)
    assert parsed == [name]
    assert_same(third, world.fresh.queue(STATES))
    # a file changed a moment ago may change again within its clock tick: it is read again
    monkeypatch.setattr(reads_mod, "RACY_NS", 2_000_000_000)
    monkeypatch.setattr(loading_mod, "RACY_NS", 2_000_000_000)
    world.edit_frontmatter(2)
    fourth = world.svc.queue(STATES, previous=third)
    assert world.pick(2) is not None and world.pick(2)[1] not in (fourth.loaded.keys if fourth.loaded else {})
    assert fourth.loaded is not None and len(fourth.loaded.keys) < len(third.loaded.keys if third.loaded else ())
    # a view loaded for other states is not taken as the previous one
    other = world.svc.queue({"inbox"}, previous=third)
    assert other.items.keys() == {n for n, i in third.items.items() if i.state == "inbox"}


def test_a_plan_file_appearing_or_going_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reads_mod, "RACY_NS", RACY)
    monkeypatch.setattr(loading_mod, "RACY_NS", RACY)
    monkeypatch.setattr(cache_mod, "RACY_NS", RACY)
    world = World(tmp_path)
    world.plan(1)  # an item names plans/p1.md, which is not there
    (world.root / "plans").mkdir(exist_ok=True)
    time.sleep(RACY / 1e9 * 1.2)
    view = world.svc.queue(STATES)
    _state, name = world.pick(1) or ("", "")
    assert view.snapshot.plan_missing == {name}
    for expect in (set(), {name}, set()):
        world.plan(4)  # p1.md created, then deleted, then created again
        time.sleep(RACY / 1e9 * 1.2)
        view = world.svc.queue(STATES, previous=view)
        assert view.snapshot.plan_missing == expect
        assert_same(view, world.fresh.queue(STATES))
        assert view.loaded is not None and view.loaded.plans is not None  # remembered, and still right


def test_feedback_items_and_a_name_in_both_queues(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Items of the mq queue count too; a name in both queues gets its defect on a copy, never
    on the previous view's item."""
    monkeypatch.setattr(reads_mod, "RACY_NS", RACY)
    monkeypatch.setattr(loading_mod, "RACY_NS", RACY)
    monkeypatch.setattr(cache_mod, "RACY_NS", RACY)
    world = World(tmp_path)
    _state, name = world.pick(0) or ("", "")
    for state in ("inbox", "planning"):
        (world.root / "mq" / state).mkdir(parents=True, exist_ok=True)
    (world.root / "mq" / "planning" / "20261201-000000-fb.md").write_text(
        f"---\nkind: feedback\ntarget_repo: acme/api\ndepends_on: [{name}]\n---\n# Feedback\n\nbody\n"
    )
    time.sleep(RACY / 1e9 * 1.2)
    first = world.svc.queue(STATES)
    again = world.svc.queue(STATES, previous=first)
    assert_same(again, world.fresh.queue(STATES))
    defects_before = list(again.items[name].defects)
    (world.root / "mq" / "inbox" / name).write_bytes((world.root / "wi" / "inbox" / name).read_bytes())
    time.sleep(RACY / 1e9 * 1.2)
    third = world.svc.queue(STATES, previous=again)
    assert_same(third, world.fresh.queue(STATES))
    assert third.items[name].defects != defects_before  # "in both queues"
    assert again.items[name].defects == defects_before  # the previous view is as it was
    (world.root / "mq" / "inbox" / name).unlink()
    time.sleep(RACY / 1e9 * 1.2)
    assert_same(world.svc.queue(STATES, previous=third), world.fresh.queue(STATES))


def test_a_saved_view_holds_every_kind_of_judgement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a run keeps for the next (`viewstore`) is the view, equal: cycles, a cooldown, a
    missing plan file and dependency, an answered question, a name in two states and in both
    queues, feedback items; and a start from it reads no file that did not change."""
    monkeypatch.setattr(reads_mod, "RACY_NS", RACY)
    monkeypatch.setattr(loading_mod, "RACY_NS", RACY)
    monkeypatch.setattr(cache_mod, "RACY_NS", RACY)
    world = World(tmp_path)
    uwis = [n for _, n in world.names() if "which-email" in n]
    assert world.svc.answers.answer(uwis[0], choices={1: "A"}, replace=True).ok
    names = [n for _, n in world.names() if "which-email" not in n]
    set_frontmatter(world.root / "wi" / "inbox" / names[0], "depends_on", "[20990101-000000-gone.md]")
    x = add_item(world.svc, body=AWI_BODY.replace("Use one", "Use x"))
    y = add_item(world.svc, body=AWI_BODY.replace("Use one", "Use y"), depends_on=[x])
    set_frontmatter(world.root / "wi" / "inbox" / x, "depends_on", f"[{y}]")  # a cycle
    world.plan(3)  # a plan file named, not there
    z = add_item(world.svc, body=AWI_BODY.replace("Use one", "Use z"))
    (world.root / "wi" / "hold" / z).write_bytes((world.root / "wi" / "inbox" / z).read_bytes())
    for state in ("inbox", "planning"):
        (world.root / "mq" / state).mkdir(parents=True, exist_ok=True)
    (world.root / "mq" / "planning" / "20261201-000000-fb.md").write_text(
        f"---\nkind: feedback\ntarget_repo: acme/api\ndepends_on: [{names[2]}]\n---\n# Feedback 日本語\n\nbody\n"
    )
    (world.root / "mq" / "inbox" / names[2]).write_bytes((world.root / "wi" / "inbox" / names[2]).read_bytes())
    time.sleep(RACY / 1e9 * 1.2)
    view = world.svc.queue(STATES)
    reasons = {r.code for j in view.judgements.values() for r in j.reasons}
    assert {"cycle", "cooldown", "missing-dep", "plan-missing"} <= reasons, reasons
    assert any(j.answered_deps for j in view.judgements.values())
    assert view.store_defects and any(i.queue == "mq" for i in view.items.values())
    back = through_disk(world, view)
    parsed = spy_parses(monkeypatch)
    world.tick(3)
    again = world.svc.queue(STATES, previous=back)
    # only the names in two states or both queues (their defect is added on a copy) are read again
    assert set(parsed) <= {z, names[2]}
    assert_same(again, world.fresh.queue(STATES))


def test_no_saved_view_when_the_file_is_damaged_linked_or_for_other_states(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from atk_tui.cache import files

    world = World(tmp_path)
    path = files.path_of(world.root / ".git", "view-" + "-".join(sorted(STATES)))
    path.parent.mkdir(exist_ok=True)
    older = path.with_name("view-adopted-hold-inbox-processing-rejected-v2.json")
    older.write_bytes(b"an earlier format's view")
    view = world.svc.queue(STATES)
    assert world.svc.saved_queue(STATES) is None  # none kept yet
    assert world.svc.save_queue(view)
    assert not older.exists()  # an earlier format's file goes with the first entry kept
    assert world.svc.saved_queue({"inbox"}) is None  # kept for other states
    assert world.svc.saved_queue(STATES) is not None
    raw = path.read_bytes()
    for damaged in (raw[:-10], raw.replace(b'"inbox"', b'"hold!"', 1), b"", raw[: raw.index(b"\n")] + b"\n[]"):
        path.write_bytes(damaged)
        assert world.svc.saved_queue(STATES) is None
    # a valid entry holding a document of another shape: no saved view, no exception
    assert files.write(world.root / ".git", path.name.removesuffix(".cache"), [b'{"items": 3}'])
    assert world.svc.saved_queue(STATES) is None
    # judged by other code (an upgrade): not taken over
    path.write_bytes(raw)
    assert world.svc.saved_queue(STATES) is not None
    monkeypatch.setattr(files, "code_stamp", lambda: "another version")
    assert world.svc.saved_queue(STATES) is None
    monkeypatch.undo()
    # never through a linked cache folder
    cache = path.parent
    elsewhere = tmp_path / "elsewhere"
    cache.rename(elsewhere)
    cache.symlink_to(elsewhere)
    path_elsewhere = elsewhere / path.name
    path_elsewhere.write_bytes(raw)
    assert world.svc.saved_queue(STATES) is None
    before = path_elsewhere.read_bytes()
    assert not world.svc.save_queue(view)
    assert path_elsewhere.read_bytes() == before
    # a service without caches neither keeps nor reads one
    assert not world.fresh.save_queue(view) and world.fresh.saved_queue(STATES) is None


def test_a_cycle_left_when_its_component_breaks_up_is_still_a_cycle() -> None:
    """n0 <-> n2 and n0 -> n2 -> n3 -> n4 -> n0: n4 goes; n0 <-> n2 stays a cycle, though
    its component now holds nothing the change touched (found by the property above)."""
    edges = {"n0.md": ("n2.md",), "n2.md": ("n0.md", "n3.md"), "n3.md": ("n4.md",), "n4.md": ("n0.md",)}
    before = Snapshot(items={n: item(n, "inbox", d) for n, d in edges.items()}, states=dict.fromkeys(edges, "inbox"))
    after = Snapshot(items={n: i for n, i in before.items.items() if n != "n4.md"},
                     states={n: s for n, s in before.states.items() if n != "n4.md"})  # fmt: skip
    judged = readiness.judge(before, NOW)
    got = refresh(before, judged, readiness.dependents(before), readiness.blocks_count(before, judged), after, NOW)
    assert got.judgements == readiness.judge(after, NOW)
    assert got.judgements["n0.md"].reasons[0].code == "cycle"
