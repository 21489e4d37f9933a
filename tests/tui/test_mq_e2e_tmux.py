"""The real `atk-tui` in tmux on a store with both queues (issue 12): a TBD answered with keys
only, and the two feedback items waiting on it turn ready on the screen."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.tmux import Tmux
from test_e2e_tmux import run_app, wait_for_exit

pytestmark = pytest.mark.e2e


def dependents(screen: str, badge: str) -> list[str]:
    """The pane rows of the two feedback items waiting on the TBD that show `badge`."""
    return [
        line for line in screen.splitlines()
        if ("Shorten the login" in line or "Align the signup" in line) and " FB " in line and badge in line
    ]


def test_answer_a_tbd_with_keys_and_its_dependents_turn_ready(tmux: Tmux, mq_store: Path, tmp_path: Path) -> None:
    status = tmp_path / "status"
    run_app(tmux, mq_store, status)
    tmux.wait_for(lambda s: "Needs you 7" in s, "the dashboard with both queues")
    tmux.send("Q")  # the feedback queue only
    screen = tmux.wait_for(lambda s: "Needs you 1" in s and "Inbox 6" in s, "the mq queue")
    assert len(dependents(screen, "✗ dep")) == 2  # the two feedback items wait on the TBD
    tmux.send("n")
    tmux.wait_for(lambda s: "TBD · blocking" in s, "the TBD in the detail pane")
    tmux.send("a")
    tmux.wait_for(lambda s: "簡潔な事実のみ" in s and "Enter submit" in s, "the answer form")
    tmux.send("Enter")
    screen = tmux.wait_for(lambda s: "Needs you 0" in s, "the answer saved")
    tmux.wait_for(lambda s: len(dependents(s, "✓ ready")) == 2, "the dependents ready")
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
    subject = subprocess.run(["git", "log", "-1", "--format=%s"], cwd=mq_store, capture_output=True, text=True).stdout
    assert subject.startswith("atk: answer ") and "which-tone" in subject
