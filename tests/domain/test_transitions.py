"""The one rule table (core/ops.py): the table matches SPEC §5, `refusal` judges every op
the way the service then refuses it inside the lock (same code, same message), dependency
refusals, and a second queue is one more table."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.storekit import SPEC_AGENT_FROM, SPEC_TARGET, UWI_BODY, add_item

from atk_tui.domain.model import STATES, Item, Kind, State, Status, Urgency
from atk_tui.domain.ops import (
    TRANSITIONS,
    WI,
    DependencyRules,
    Op,
    QueueRules,
    Transition,
    refusal,
)
from atk_tui.domain.readiness import STATUSES
from atk_tui.service import Service


def item(name: str = "a.md", state: str = "inbox", kind: str = "awi", **kw) -> Item:
    return Item(filename=name, state=state, kind=kind, **kw)


def test_enums_are_the_vocabularies() -> None:
    assert STATES == ("inbox", "processing", "hold", "adopted", "rejected") == State.values()
    assert State.is_valid("hold") and not State.is_valid("done") and not State.is_valid(None)
    assert Kind.values() == ("awi", "uwi")
    assert Urgency.values()[0] == "blocking"
    assert Status.values() == STATUSES
    assert State.ADOPTED.terminal and not State.HOLD.terminal
    assert State.INBOX == "inbox" and f"{State.INBOX}" == "inbox"


def test_table_matches_the_spec() -> None:
    assert {op: row.target for op, row in TRANSITIONS.items()} == SPEC_TARGET
    for op, row in TRANSITIONS.items():
        assert set(row.agent_from) >= SPEC_AGENT_FROM[op], op


@pytest.mark.parametrize("op", sorted(SPEC_TARGET))
@pytest.mark.parametrize("state", STATES)
def test_refusal_per_actor_and_state(op: str, state: str) -> None:
    it = item(state=state)
    agent = refusal(op, [it], "agent")
    user = refusal(op, [it], "user")
    assert (agent is None) == (state in SPEC_AGENT_FROM[op])
    # the person's verbs move from any other state, except hold: inbox -> hold for everyone (issue
    # 39); the person's any-state move is `move` (the dashboard's, `atk wi move`)
    assert (user is None) == (state != SPEC_TARGET[op] and (op != "hold" or state == "inbox"))
    for r in (agent, user):
        if r is not None:
            assert r.code == "state" and r.exit_code == 1 and r.message.startswith("state conflict: a.md is ")


def test_answered_uwi_may_be_closed_from_inbox_by_an_agent() -> None:
    waiting = item(kind="uwi")
    answered = item(kind="uwi", answered=True)
    assert refusal(Op.ADOPT, [answered], "agent") is None
    r = refusal(Op.ADOPT, [waiting], "agent")
    assert r is not None and "not answered yet" in r.message


def test_defective_items_refused_except_edit_and_rm() -> None:
    bad = item(defects=["no kind"])
    assert refusal(Op.HOLD, [bad], "user").code == "invalid"
    assert refusal(Op.EDIT, [bad], "user") is None
    assert refusal(Op.RM, [bad], "user") is None


def test_other_ops() -> None:
    assert refusal(Op.RM, [item(state="processing")], "user").code == "state"
    assert refusal(Op.ANSWER, [item(kind="uwi")], "agent").code == "user-only"
    assert refusal(Op.ANSWER, [item(kind="awi")], "user").code == "invalid"
    assert refusal(Op.COMMENT, [item(kind="awi", state="adopted")], "user").code == "state"
    assert refusal(Op.SET_DEPENDENCIES, [item(state="hold")], "user") is None
    assert refusal(Op.SET_DEPENDENCIES, [item(state="hold")], "agent").code == "state"
    assert refusal(Op.EDIT, [item(state="rejected")], "user").code == "state"
    assert refusal(Op.MOVE, [item()], "agent").code == "invalid"
    assert refusal(Op.MOVE, [item(state="hold")], "user", to_state="inbox") is None
    assert refusal(Op.MOVE, [item()], "user", to_state="inbox").code == "state"
    assert refusal(Op.UNHOLD, [item()], "user", expect="hold").code == "state"  # the dashboard's `u`
    assert refusal("frobnicate", [item()], "user").exit_code == 2
    assert refusal(Op.HOLD, [item(), item()], "user").message == "the same item is named twice"
    assert refusal(Op.HOLD, [], "user").code == "invalid"


def test_move_op() -> None:
    assert WI.move_op("hold", "inbox") == "unhold"
    assert WI.move_op("processing", "inbox") == "return-to-inbox"
    assert WI.move_op("inbox", "adopted") == "adopt"
    assert WI.move_op("inbox", "nowhere") is None


@pytest.mark.parametrize("op", sorted(SPEC_TARGET))
@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("actor", ["user", "agent"])
def test_service_refuses_exactly_what_refusal_says(tmp_path: Path, op: str, state: str, actor: str, monkeypatch) -> None:
    """The same judgement, in the lock: same ok, same code and message."""
    from atk_tui.store import init_store

    root, _ = init_store(tmp_path / "s")
    svc = Service(root, actor="user", pull=False, push=False)
    name = add_item(svc)
    if state != "inbox":
        assert svc.writes.move([name], state).ok
    stored = svc.read(name)
    svc_as = Service(root, actor=actor, pull=False, push=False)
    judged = refusal(op, [stored], actor)
    out = svc_as.writes.transition(op, [name])
    if actor == "agent" and state == "hold":
        # who holds it is a thing only the store knows (SPEC §15): the user's hold is said first
        assert (out.ok, out.code, out.exit_code) == (False, "held", 1) and "held by the user" in out.message
        return
    assert out.ok == (judged is None), (out.message, judged)
    if judged is not None:
        assert (out.code, out.message, out.exit_code) == (judged.code, judged.message, judged.exit_code)


def test_dependency_refusals(svc: Service) -> None:
    a = add_item(svc)
    b = add_item(svc, depends_on=[a])
    c = add_item(svc, kind="uwi", body=UWI_BODY, depends_on=[b])
    view = svc.queue()
    assert view.dependency_rules(a).first([b]).code == "cycle"
    r = view.dependency_rules(a).first([c])
    assert r is not None and r.code == "cycle" and r.cycle == (a, c, b)
    assert f"{a} -> {c} -> {b} -> {a}" in r.message
    assert view.dependency_rules(a).first([a]).code == "self"
    assert view.dependency_rules(a).first(["nope.md"]).code == "missing"
    assert view.dependency_rules(c).first([a]) is None
    # the service refuses with the same codes inside the lock
    out = svc.writes.set_dependencies(a, [c])
    assert not out.ok and out.code == "cycle" and f"{a} -> {c} -> {b} -> {a}" in out.message
    assert svc.writes.set_dependencies(a, [a]).code == "self"
    assert svc.writes.set_dependencies(a, ["nope.md"]).code == "missing"


def test_dependency_rules_without_a_view() -> None:
    rules = DependencyRules("a.md", {"b.md": ["c.md"], "c.md": ["a.md"]}, {"b.md", "c.md"})
    assert rules.cycle_through("b.md") == ("a.md", "b.md", "c.md")
    assert rules.refusal("x.md").code == "missing"


def test_a_second_queue_is_one_more_table() -> None:
    """SPEC §12's mq states through the same machinery (the shape m12-mq builds on)."""
    mq_states = ("inbox", "processing", "editing", "hold", "planning", "adopted", "rejected")
    mq = QueueRules(
        name="mq",
        states=mq_states,
        terminal=frozenset({"adopted", "rejected"}),
        transitions={
            **WI.transitions,
            "finish-planning": Transition("inbox", frozenset({"planning"})),
        },
        removable=frozenset({"inbox", "hold"}),
        dependencies_agent=frozenset({"inbox", "processing"}),
        dependencies_user=frozenset({"inbox", "processing", "hold"}),
        move_ops=dict(WI.move_ops),
    )
    planning = item(state="planning")
    assert refusal("hold", [planning], "agent", rules=mq).code == "state"
    assert mq.allowed_from("finish-planning", planning, actor="agent") == {"planning"}
    assert "editing" in mq.active and "planning" in mq.active
    # hold is inbox -> hold for the person too (issue 39); the person's free move goes anywhere
    assert refusal("move", [item(state="editing")], "user", rules=mq, to_state="hold") is None
