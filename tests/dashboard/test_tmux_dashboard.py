"""The real `atk-tui` binary in a real terminal (tmux) on a real store.

Each test runs its own tmux server (`tmux -L <unique socket>`), killed in a finalizer. The app is
started from an interactive shell in the pane, so that after it quits the pane shows that shell
again: that, and tmux's `alternate_on` flag, prove the terminal was restored. The app's stdout and
stderr are the terminal itself (Textual draws through them); only `$?` goes to a file.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.tmux import ATK_TUI, E2E_PROMPT, Tmux
from test_snapshots import add_hostile_item

from atk_tui.demo import create_demo_store, demo_filenames

pytestmark = pytest.mark.e2e

PROMPT = E2E_PROMPT

#: The binary runs on the real clock, so its demo store is made at the real time (not the
#: suite's frozen NOW): the ages, cooldowns and the order they give are the same on any day.
LIVE_NOW = datetime.now(UTC)
DEMO = demo_filenames(LIVE_NOW)


def file_shown(name: str, screen: str) -> bool:
    """The detail pane's `file` row shows `name` (cut in the middle when the pane is narrow:
    both ends stay)."""
    return any(f"file {name[:17]}" in line and name[-10:] in line for line in screen.splitlines())


@pytest.fixture
def demo_store(tmp_path: Path) -> Path:
    """The demo store made at `LIVE_NOW` (this module's binaries read the real clock)."""
    return create_demo_store(tmp_path / "demo", LIVE_NOW)


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
        tmux.wait_for(lambda s: file_shown(DEMO[item], s), f"{item} after {key}")

    step("j", "cp-multi")  # the second question in the inbox
    step("2", "proc-healthz")
    step("Tab", "hold-plan")
    tmux.send("Tab")  # the detail, in the screen's order: it still shows the held item
    step("Tab", "chain-uwi")  # needs you, the first pane again
    step("1", "cp-multi")  # back to the inbox, where the cursor was

    # filter as you type, then Esc restores every row
    tmux.send("/")
    tmux.type("redis")
    tmux.wait_for(lambda s: "Inbox 1/24" in s, "the filtered inbox")
    tmux.step("Escape", lambda s: "Inbox 24" in s and "Inbox 1/24" not in s, "the filter cleared")

    # help opens and closes
    tmux.step("?", lambda s: "─ Keys ─" in s and "Esc close" in s, "the help screen")
    tmux.step("Escape", lambda s: "─ Keys ─" not in s and "Inbox 24" in s, "the help closed")

    tmux.read()
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
        # the detail's file line keeps the name's ends (a narrow pane elides its middle); the
        # palette's own rows, with the whole name, may still be drawn as it closes
        lambda s: "\\x1b[31mred\\x1b]52;c;aGk=\\x07" in s and f"{name[:17]}…" in s and name[-10:] in s
        and "Search for commands" not in s,
        "the hostile item's detail, the palette closed",
    )
    assert "Literal [bold red]x[/] [$accent]y [/" in screen
    # the body's Markdown rendering (bullets) is the last thing the detail pane does
    screen = tmux.wait_for(lambda s: "• 反映内容: show [bold red]x[/] and" in s, "the rendered body")
    assert "\\x1b[2J\\x1b[H" in screen
    assert tmux.run("list-buffers") == ""
    tmux.read()
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
    assert tmux.display("#{alternate_on}") == "0"


# -- a real mouse click ------------------------------------------------------------------------
# A real mouse click in a real terminal selects the row under the pointer (SPEC §11): the
# binary in tmux, the click sent as the SGR mouse report a terminal writes (`ESC [ < 0 ; x ; y M`
# then `m`), the selection read back from the detail pane (it names the selected file).


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
        want = DEMO[inbox[row]]
        others = [DEMO[k] for k in inbox if k != inbox[row]]
        screen = tmux.wait_for(lambda s, want=want: file_shown(want, s), f"{inbox[row]} selected by a click on line {y}")
        assert not any(file_shown(o, screen) for o in others)
    # the needs-you list: its 5th row (md-multi, the API error format question)
    click(tmux, 40, needs_top + 2 + 4 + 1)
    tmux.wait_for(lambda s: file_shown(DEMO["md-multi"], s), "md-multi selected from needs-you")
    tmux.read()
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0


# -- a fast typist's filter --------------------------------------------------------------------
# The real `atk-tui` in tmux (issue 17): `/`, a filter, Enter and Space sent in one burst, as a
# fast typist's keys arrive in one read from the terminal: the Space marks the highlighted row of
# the narrowed inbox instead of landing in the filter text.


def test_space_typed_right_behind_enter_marks_the_filtered_row(tmux: Tmux, demo_store: Path, tmp_path: Path) -> None:
    status = tmp_path / "status"
    run_app(tmux, demo_store, status)
    tmux.wait_for(lambda s: "Inbox 24" in s and "Needs you 6" in s, "the dashboard")
    tmux.send("/", "r", "e", "d", "i", "s", "Enter", "Space")  # one send-keys: one burst
    screen = tmux.wait_for(lambda s: "1 marked" in s, "the mark made by the Space")
    assert "Inbox 1/24" in screen
    marked = [line for line in screen.splitlines() if "●" in line and "Redis" in line]
    assert marked, screen  # the mark is on the one row the filter left: the Redis question
    tmux.read()
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0


# -- an item's log -----------------------------------------------------------------------------
# The real `atk-tui` in tmux: `L` on a processing item of the demo store shows its commits
# (the agent's start-processing with the actor) and Esc goes back.


def test_l_shows_an_items_commits_in_a_real_terminal(tmux: Tmux, demo_store: Path, tmp_path: Path) -> None:
    status = tmp_path / "status"
    run_app(tmux, demo_store, status)
    tmux.wait_for(lambda s: "Processing 3" in s and "Needs you" in s, "the dashboard")
    tmux.send("2")
    tmux.wait_for(lambda s: file_shown(DEMO["proc-healthz"], s), "the processing item in the detail")
    tmux.send("L")
    screen = tmux.wait_for(
        lambda s: "moved inbox → processing" in s and "created in inbox" in s and "(no change to the item's text)" in s,
        "the item's log, and the newest commit's change: a move, no text diff",
    )
    assert f"History of {DEMO['proc-healthz']}" in screen
    assert f"+++ b/wi/processing/{DEMO['proc-healthz']}" not in screen
    tmux.send("Escape")
    tmux.wait_for(lambda s: "Processing 3" in s and "History of" not in s, "the dashboard again")
    tmux.read()
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0


# -- both queues -------------------------------------------------------------------------------
# The real `atk-tui` in tmux on a store with both queues (issue 12): a TBD answered with keys
# only, and the two feedback items waiting on it turn ready on the screen.


def dependents(screen: str, badge: str) -> list[str]:
    """The pane rows of the two feedback items waiting on the TBD that show `badge`."""
    rows = [line.split("││", 1)[0] for line in screen.splitlines()]  # the lists, not the detail beside them
    return [
        row for row in rows
        if ("Shorten the login" in row or "Align the signup" in row) and " FB " in row and badge in row
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
    tmux.read()
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
    subject = subprocess.run(["git", "log", "-1", "--format=%s"], cwd=mq_store, capture_output=True, text=True).stdout
    assert subject.startswith("atk: answer ") and "which-tone" in subject


# -- the demo store on quitting ----------------------------------------------------------------
# The real `atk-tui` binary in tmux (issue 15): `--demo` removes its store on quitting unless
# `--keep`; the vim keys and the pinned footer in a real 80-column terminal.


@pytest.mark.parametrize("keep", [False, True])
def test_demo_store_is_removed_on_quit_unless_kept(tmux: Tmux, tmp_path: Path, keep: bool) -> None:
    status = tmp_path / "status"
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    flag = " --keep" if keep else ""
    tmux.type(f"TMPDIR={shlex.quote(str(tmpdir))} {shlex.quote(str(ATK_TUI))} --demo{flag}; "
              f"echo $? > {shlex.quote(str(status))}")
    tmux.send("Enter")
    tmux.wait_for(lambda s: "Needs you" in s and "? Help" in s and "q Quit" in s, "the dashboard on the demo store")
    demo = [p for p in tmpdir.iterdir() if p.name.startswith("atk-demo-")]
    assert len(demo) == 1 and (demo[0] / "store" / ".git").is_dir()
    tmux.send("G")  # vim keys in a real terminal: last row, then first
    tmux.send("g")
    tmux.send("g")
    tmux.read()
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
    err = "".join(tmux.screen().split())  # stderr is the terminal: what it printed after the app, unwrapped
    if keep:
        assert demo[0].is_dir()
        assert "demostorekeptat" + str(demo[0] / "store") in err
    else:
        assert not demo[0].exists()
        assert list(tmpdir.iterdir()) == []


# -- notices from another shell ----------------------------------------------------------------
# `atk agents notify` from another shell reaches a running dashboard (the real binaries in
# tmux): the notice strip appears, the bell rings (tmux's window bell flag: the session is
# detached) and the window title carries the count (OSC 2, tmux's pane_title).


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
    tmux.read()
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
