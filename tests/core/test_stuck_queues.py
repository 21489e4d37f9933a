"""Stuck work (`S`) looks in the item's own queue: a feedback item started a minute ago is not
"stuck" because `wi/processing/` has no file of its name."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from atk_tui.service import Service
from atk_tui.service.stuck import stuck_items
from atk_tui.store import init_store


def test_fresh_processing_items_of_either_queue_are_not_stuck(tmp_path: Path) -> None:
    root, _ = init_store(tmp_path / "notes")
    started = []
    for queue, kind in (("wi", "awi"), ("mq", "feedback")):
        svc = Service(root, actor="user", queue=queue)
        out = svc.add(kind=kind, target_repo="acme/webapp", body=f"# Fresh {queue} work\n\nbody\n")
        assert out.ok, out.message
        assert svc.start_processing([out.files[0]]).ok
        started.append(out.files[0])
    later = Service(root, actor="user", clock=lambda: datetime.now(UTC) + timedelta(hours=1))
    view = later.queue({"inbox", "processing", "hold", "editing"})
    assert set(started) <= set(view.items)
    assert stuck_items(later, view) == []
    days_on = Service(root, actor="user", clock=lambda: datetime.now(UTC) + timedelta(days=3))
    found = stuck_items(days_on, days_on.queue({"inbox", "processing", "hold", "editing"}))
    assert sorted(s.filename for s in found) == sorted(started)
    assert all(s.why.startswith("processing for 2d") or s.why.startswith("processing for 3d") for s in found)
