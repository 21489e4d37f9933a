"""A real mouse click in a real terminal selects the row under the pointer (SPEC §11): the
binary in tmux, the click sent as the SGR mouse report a terminal writes (`ESC [ < 0 ; x ; y M`
then `m`), the selection read back from the detail pane (it names the selected file)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.tui_helpers import DEMO
from test_e2e_tmux import Tmux, run_app, wait_for_exit

pytestmark = pytest.mark.e2e


def click(t: Tmux, x: int, y: int) -> None:
    """Press and release the left button at 1-based cell (x, y)."""
    t.type(f"\x1b[<0;{x};{y}M")
    t.type(f"\x1b[<0;{x};{y}m")


def line_of(screen: str, text: str) -> int:
    """The 0-based screen line holding `text`."""
    return next(i for i, line in enumerate(screen.splitlines()) if text in line)


def test_a_real_click_selects_the_row_under_the_pointer(tmux: Tmux, demo_store: Path, tmp_path: Path) -> None:
    status = tmp_path / "status"
    run_app(tmux, demo_store, status)
    screen = tmux.wait_for(lambda s: "Inbox 24" in s and "Needs you 6" in s, "the dashboard")
    inbox_top = line_of(screen, "Inbox 24")  # the pane's titled border
    needs_top = line_of(screen, "Needs you 6")
    # the inbox rows in order (needs-you sort): row k is on screen line inbox_top + 2 + k
    # (the titled border, then the column header)
    inbox = ["chain-uwi", "cp-multi", "free-text", "cp-single", "md-multi", "post-approval"]
    for row in (3, 1, 5, 0, 2):
        y = inbox_top + 2 + row + 1  # SGR coordinates are 1-based
        click(tmux, 30, y)
        want = DEMO[inbox[row]][:28]
        others = [DEMO[k][:28] for k in inbox if k != inbox[row]]
        screen = tmux.wait_for(lambda s, want=want: f"file {want}" in s, f"{inbox[row]} selected by a click on line {y}")
        assert not any(f"file {o}" in screen for o in others)
    # the needs-you list: its 5th row (md-multi, the API error format question)
    click(tmux, 40, needs_top + 2 + 4 + 1)
    tmux.wait_for(lambda s: f"file {DEMO['md-multi'][:28]}" in s, "md-multi selected from needs-you")
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
