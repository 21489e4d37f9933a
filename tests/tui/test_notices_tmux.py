"""`atk agents notify` from another shell reaches a running dashboard (the real binaries in
tmux): the notice strip appears, the bell rings (tmux's window bell flag: the session is
detached) and the window title carries the count (OSC 2, tmux's pane_title)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_e2e_tmux import Tmux, run_app, wait_for_exit

pytestmark = pytest.mark.e2e

ATK = Path(sys.executable).with_name("atk")


def test_notify_from_another_shell_reaches_the_dashboard(tmux: Tmux, demo_store: Path, tmp_path: Path) -> None:
    status = tmp_path / "status"
    run_app(tmux, demo_store, status)
    tmux.wait_for(lambda s: "Inbox 24" in s, "the dashboard")
    title = tmux.display("#{pane_title}")
    assert title.startswith("atk-tui")
    assert tmux.display("#{window_bell_flag}") == "0"
    body = tmp_path / "notice.md"
    body.write_text("# The login question needs you\n\nSee the UWI.\n")
    env = {**os.environ, "CLAUDECODE": "1"}
    proc = subprocess.run([str(ATK), "agents", "notify", f"--body-file={body}", "--store", str(demo_store)],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    tmux.wait_for(lambda s: "1 notice from agents" in s and "The login question needs you" in s, "the notice strip")
    assert tmux.display("#{window_bell_flag}") == "1"
    new_title = tmux.display("#{pane_title}")
    assert new_title != title and new_title.startswith("atk-tui (")
    tmux.send("N")
    tmux.wait_for(lambda s: "Notices from agents" in s and "See the UWI." in s, "the notices screen")
    tmux.send("Escape")
    tmux.wait_for(lambda s: "Notices from agents" not in s and "Inbox 24" in s, "the notices closed")
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
