"""Snapshots of the dashboard with both queues (issue 12): the demo store with its feedback
queue, frozen clock, explicit theme, no watcher (see test_snapshots.py)."""

from __future__ import annotations

from pathlib import Path

from support.tui_helpers import build_app
from test_snapshots import WIDE, steps


def test_both_queues(snap_compare, mq_store: Path) -> None:
    """Feedback items and TBDs beside the work items; the TBD in needs-you with the UWIs;
    editing and planning items in the Hold pane."""
    assert snap_compare(build_app(mq_store), terminal_size=WIDE, run_before=steps())


def test_feedback_queue_only(snap_compare, mq_store: Path) -> None:
    """Q: only the feedback queue."""
    assert snap_compare(build_app(mq_store), terminal_size=WIDE, run_before=steps("Q"))
