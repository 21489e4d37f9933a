"""The queue parameter of the service (SPEC §12): one service, both queues. The dashboard's
service (no queue given) reads and writes items of either queue; `editing` is where it keeps
a feedback item while the user edits it; planning is left only by its own path."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.mqkit import TBD, feedback, seed, tbd
from support.storekit import Clock, git, tree_state

from atk_tui.domain.queues import MQ, WI, queue_named, queue_of_kind
from atk_tui.service import Service
from atk_tui.service.history.stuck import stuck_items
from atk_tui.store import init_store


def test_queue_table() -> None:
    assert MQ.active == {"inbox", "processing", "editing", "hold"} and MQ.processable == {"inbox", "processing"}
    assert "planning" not in MQ.active | MQ.processable and MQ.listed_all == tuple(s for s in MQ.states if s != "planning")
    assert queue_of_kind("tbd") is MQ and queue_of_kind("uwi") is WI and queue_named(None) is WI
    with pytest.raises(ValueError):
        queue_named("xx")


def test_the_dashboard_service_sees_and_moves_both_queues(store: Path) -> None:
    seed(store, {"f.md": ("inbox", feedback()), "t.md": ("inbox", tbd(extra="urgency: next-review\n"))})
    seed(store, {"u.md": ("inbox", "---\nkind: uwi\ntarget_repo: acme/web\n---\n" + TBD)}, queue="wi")
    svc = Service(store, clock=Clock(), actor="user")
    view = svc.queue()
    assert {n: i.queue for n, i in view.items.items()} == {"f.md": "mq", "t.md": "mq", "u.md": "wi"}
    assert view.needs_you == ["u.md", "t.md"]  # UWIs and TBDs together, by urgency
    # editing: the $EDITOR session's state for a feedback item, out of automatic processing
    out = svc.writes.move(["f.md"], "editing", expect="inbox")
    assert out.ok, out.message
    assert git(store, "log", "-1", "--format=%s").strip() == "atk: start-editing f.md"
    view = svc.queue()
    assert view.items["f.md"].state == "editing"
    assert view.judgements["f.md"].status == "editing" and not view.judgements["f.md"].ready
    assert svc.writes.agent_may_move(view.items["f.md"], "inbox") is False
    out = svc.writes.move(["f.md"], "inbox", expect="editing")
    assert out.ok and git(store, "log", "-1", "--format=%s").strip() == "atk: stop-editing f.md"
    # a wi item has no editing state
    before = tree_state(store)
    out = svc.writes.move(["u.md"], "editing")
    assert not out.ok and "unknown state 'editing'" in out.message
    out = svc.writes.move(["f.md"], "planning")
    assert not out.ok and "add --state=planning" in out.message
    assert tree_state(store) == before


def test_planning_items_are_not_actionable_except_by_finishing(store: Path) -> None:
    seed(store, {"p.md": ("planning", feedback())})
    svc = Service(store, clock=Clock(), actor="user")
    before = tree_state(store)
    for to in ("inbox", "hold", "processing", "adopted"):
        out = svc.writes.move(["p.md"], to)
        assert not out.ok and "finish-planning" in out.message, to
    assert tree_state(store) == before
    assert svc.queue(["planning"]).judgements["p.md"].status == "planning"
    assert "p.md" not in svc.queue().items  # planning is outside active


def test_agent_cannot_start_editing(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(store, {"f.md": ("inbox", feedback())})
    svc = Service(store, clock=Clock(), actor="agent", queue="mq")
    out = svc.writes.transition("start-editing", ["f.md"])
    assert not out.ok and "state conflict" in out.message


def test_mq_json_records_fit_the_schema(store: Path) -> None:
    from atk_tui.cli.output import item_json
    from atk_tui.itemfile import schema

    seed(store, {"f.md": ("editing", feedback()), "t.md": ("inbox", tbd()), "p.md": ("planning", feedback())})
    svc = Service(store, clock=Clock(), actor="user", queue="mq")
    view = svc.queue(["inbox", "editing", "planning"])
    for item in view.items.values():
        schema.Record.model_validate(item_json(item, view.judgements.get(item.filename), view.blocks.get(item.filename)))


# -- stuck work per queue ----------------------------------------------------------------------
# Stuck work (`S`) looks in the item's own queue: a feedback item started a minute ago is not
# "stuck" because `wi/processing/` has no file of its name.


def test_fresh_processing_items_of_either_queue_are_not_stuck(tmp_path: Path) -> None:
    root, _ = init_store(tmp_path / "notes")
    started = []
    for queue, kind in (("wi", "awi"), ("mq", "feedback")):
        svc = Service(root, actor="user", queue=queue)
        out = svc.writes.add(kind=kind, target_repo="acme/webapp", body=f"# Fresh {queue} work\n\nbody\n")
        assert out.ok, out.message
        assert svc.writes.transition_command("start-processing", [out.files[0]]).ok
        started.append(out.files[0])
    later = Service(root, actor="user", clock=lambda: datetime.now(UTC) + timedelta(hours=1))
    view = later.queue({"inbox", "processing", "hold", "editing"})
    assert set(started) <= set(view.items)
    assert stuck_items(later, view) == []
    days_on = Service(root, actor="user", clock=lambda: datetime.now(UTC) + timedelta(days=3))
    found = stuck_items(days_on, days_on.queue({"inbox", "processing", "hold", "editing"}))
    assert sorted(s.filename for s in found) == sorted(started)
    assert all(s.why.startswith("processing for 2d") or s.why.startswith("processing for 3d") for s in found)
