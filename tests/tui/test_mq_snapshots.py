"""Snapshots of the dashboard with both queues (issue 12): the demo store with its feedback
queue, frozen clock, explicit theme, no watcher (see test_snapshots.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from support.tui_helpers import NOW, build_app
from test_snapshots import WIDE, steps

from atk_tui.demo import create_demo_store


@pytest.fixture(scope="session")
def mq_demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mq-demo-template")
    create_demo_store(base, NOW, feedback_queue=True)
    return base


@pytest.fixture
def mq_store(mq_demo_template: Path, tmp_path: Path) -> Path:
    base = tmp_path / "demo"
    shutil.copytree(mq_demo_template, base, symlinks=True)
    store = base / "store"
    subprocess.run(["git", "remote", "set-url", "origin", str(base / "remote.git")], cwd=store, check=True)
    return store


def test_both_queues(snap_compare, mq_store: Path) -> None:
    """Feedback items and TBDs beside the work items; the TBD in needs-you with the UWIs;
    editing and planning items in the Hold pane."""
    assert snap_compare(build_app(mq_store), terminal_size=WIDE, run_before=steps())


def test_feedback_queue_only(snap_compare, mq_store: Path) -> None:
    """Q: only the feedback queue."""
    assert snap_compare(build_app(mq_store), terminal_size=WIDE, run_before=steps("Q"))
