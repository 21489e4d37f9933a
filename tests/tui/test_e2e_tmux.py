"""The real `atk-tui` binary in a real terminal (tmux) on a real store.

Each test runs its own tmux server (`tmux -L <unique socket>`), killed in a finalizer. The app is
started from an interactive shell in the pane, so that after it quits the pane shows that shell
again: that, and tmux's `alternate_on` flag, prove the terminal was restored. The app's stdout and
stderr are the terminal itself (Textual draws through them); only `$?` goes to a file.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import pytest
from support.tmux import ATK_TUI, E2E_PROMPT, Tmux
from support.tui_helpers import DEMO
from test_snapshots import add_hostile_item

pytestmark = pytest.mark.e2e

PROMPT = E2E_PROMPT


def run_app(tmux: Tmux, store: Path, status_file: Path) -> None:
    cmd = f"{shlex.quote(str(ATK_TUI))} --store {shlex.quote(str(store))}; echo $? > {shlex.quote(str(status_file))}"
    tmux.type(cmd)
    tmux.send("Enter")


def wait_for_exit(tmux: Tmux, status_file: Path) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if status_file.exists() and status_file.read_text().strip():
            return int(status_file.read_text().strip())
        time.sleep(0.05)
    raise AssertionError(f"atk-tui did not exit; the screen was:\n{tmux.screen()}")


def test_start_navigate_filter_quit(tmux: Tmux, demo_store: Path, tmp_path: Path) -> None:
    status = tmp_path / "status"
    run_app(tmux, demo_store, status)
    # every pane's count: the panes are drawn in one frame, but a capture may come between frames
    tmux.wait_for(lambda s: all(t in s for t in ("Inbox 24", "Needs you 6", "Processing 3", "Hold 2")), "the dashboard")
    assert tmux.display("#{alternate_on}") == "1"

    # navigate, waiting after each key for the detail pane to show the selected item's file
    # name (only the detail shows file names), as a person would look before the next key
    def step(key: str, item: str) -> None:
        tmux.send(key)
        tmux.wait_for(lambda s: DEMO[item][:28] in s, f"{item} after {key}")

    step("j", "cp-multi")  # the second question in the inbox
    step("2", "proc-healthz")
    step("Tab", "hold-plan")
    step("Tab", "chain-uwi")  # needs you
    step("1", "cp-multi")  # back to the inbox, where the cursor was

    # filter as you type, then Esc restores every row
    tmux.send("/")
    tmux.type("redis")
    tmux.wait_for(lambda s: "Inbox 1/24" in s, "the filtered inbox")
    tmux.step("Escape", lambda s: "Inbox 24" in s and "Inbox 1/24" not in s, "the filter cleared")

    # help opens and closes
    tmux.step("?", lambda s: "Esc to close" in s, "the help screen")
    tmux.step("Escape", lambda s: "Esc to close" not in s and "Inbox 24" in s, "the help closed")

    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
    # the terminal is restored: the normal screen with the shell, not the dashboard
    screen = tmux.wait_for(lambda s: s.rstrip().endswith(PROMPT.strip()), "the shell prompt after exit")
    assert tmux.display("#{alternate_on}") == "0"
    assert "Inbox" not in screen and "Needs you" not in screen
    assert "Traceback" not in screen


def test_hostile_item_text_in_a_real_terminal(tmux: Tmux, demo_store: Path, tmp_path: Path) -> None:
    """Escape sequences in an item reach the terminal as visible text: no colour change, no
    screen clear, no clipboard write (OSC 52 would create a tmux buffer with set-clipboard on)."""
    name = add_hostile_item(demo_store)
    status = tmp_path / "status"
    run_app(tmux, demo_store, status)
    tmux.wait_for(lambda s: "Inbox 25" in s, "the dashboard")
    tmux.step("C-p", lambda s: "Search for commands" in s, "the command palette")
    tmux.type("Literal")
    tmux.wait_for(lambda s: "[bold red]x[/]" in s, "the palette hit")
    tmux.send("Enter")
    screen = tmux.wait_for(
        lambda s: "\\x1b[31mred\\x1b]52;c;aGk=\\x07" in s and name[:30] in s and "Search for commands" not in s,
        "the hostile item's detail, the palette closed",
    )
    assert "Literal [bold red]x[/] [$accent]y [/" in screen
    # the body's Markdown rendering (bullets) is the last thing the detail pane does
    screen = tmux.wait_for(lambda s: "• 反映内容: show [bold red]x[/] and" in s, "the rendered body")
    assert "\\x1b[2J\\x1b[H" in screen
    assert tmux.run("list-buffers") == ""
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
    assert tmux.display("#{alternate_on}") == "0"
