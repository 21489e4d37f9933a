"""The real `atk-tui` in tmux (issue 17): `/`, a filter, Enter and Space sent in one burst, as a
fast typist's keys arrive in one read from the terminal: the Space marks the highlighted row of
the narrowed inbox instead of landing in the filter text."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.tmux import Tmux
from test_e2e_tmux import run_app, wait_for_exit

pytestmark = pytest.mark.e2e


def test_space_typed_right_behind_enter_marks_the_filtered_row(tmux: Tmux, demo_store: Path, tmp_path: Path) -> None:
    status = tmp_path / "status"
    run_app(tmux, demo_store, status)
    tmux.wait_for(lambda s: "Inbox 24" in s and "Needs you 6" in s, "the dashboard")
    tmux.send("/", "r", "e", "d", "i", "s", "Enter", "Space")  # one send-keys: one burst
    screen = tmux.wait_for(lambda s: "1 marked" in s, "the mark made by the Space")
    assert "Inbox 1/24" in screen
    marked = [line for line in screen.splitlines() if "●" in line and "Redis" in line]
    assert marked, screen  # the mark is on the one row the filter left: the Redis question
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
