"""The real `atk-tui` in tmux: `L` on a processing item of the demo store shows its commits
(the agent's start-processing with the actor) and Esc goes back."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import DEMO
from support.tmux import Tmux
from test_e2e_tmux import run_app, wait_for_exit

pytestmark = pytest.mark.e2e


def test_l_shows_an_items_commits_in_a_real_terminal(tmux: Tmux, demo_store: Path, tmp_path: Path) -> None:
    status = tmp_path / "status"
    run_app(tmux, demo_store, status)
    tmux.wait_for(lambda s: "Processing 3" in s and "Needs you" in s, "the dashboard")
    tmux.send("2")
    tmux.wait_for(lambda s: DEMO["proc-healthz"][:28] in s, "the processing item in the detail")
    tmux.send("L")
    screen = tmux.wait_for(
        lambda s: "moved inbox → processing" in s and "created in inbox" in s and "(no change to the item's text)" in s,
        "the item's log, and the newest commit's change: a move, no text diff",
    )
    assert f"History of {DEMO['proc-healthz']}" in screen
    assert f"+++ b/wi/processing/{DEMO['proc-healthz']}" not in screen
    tmux.send("Escape")
    tmux.wait_for(lambda s: "Processing 3" in s and "History of" not in s, "the dashboard again")
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
