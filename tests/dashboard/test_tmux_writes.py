"""The real `atk-tui` binary in tmux, on a real git store, with real vim as $EDITOR.

Each test runs its own tmux server (`tmux -L <unique socket>`, fixed 120x36 window) and kills
it in a finalizer. The app is started from a shell in the pane with EDITOR='vim -u NONE' and
VISUAL unset; its stdout and stderr are the terminal (Textual draws there), only `$?` goes to a
file. Every wait polls capture-pane (or git) in a bounded loop and fails with the last screen.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.actions_support import Demo
from support.tmux import ATK_TUI, Tmux, tmux_session

from atk_tui.service import Service

pytestmark = pytest.mark.e2e

PROMPT = "actions-e2e$ "
ADDED = "- note: added in vim by the e2e test"


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    with tmux_session(tmp_path, PROMPT, requires=("tmux", "vim")) as t:
        yield t


def wait_until(ok: Callable[[], bool], what: str, tmux: Tmux, timeout: float = 30.0) -> None:
    tmux.wait_until(ok, what, timeout)


def launch(tmux: Tmux, demo: Demo, status: Path) -> None:
    """`atk-tui --store <store>` with vim as the editor, then the dashboard on screen."""
    cmd = (
        f"env -u VISUAL EDITOR='vim -u NONE' {shlex.quote(str(ATK_TUI))} --store {shlex.quote(str(demo.root))}"
        f"; echo $? > {shlex.quote(str(status))}"
    )
    tmux.type(cmd)
    tmux.step("Enter", lambda s: "Inbox 24" in s and "Needs you 6" in s, "the dashboard")


def pick(tmux: Tmux, fragment: str, title: str) -> None:
    """Select the one inbox item whose filename contains `fragment`, with the filter."""
    tmux.send("/")
    tmux.type(fragment)
    tmux.wait_for(lambda s: "Inbox 1/24" in s, f"the filter on {fragment}")
    tmux.step("Enter", lambda s: title in s.split("Detail", 1)[-1], f"the detail of {title}")


def quit_app(tmux: Tmux, status: Path) -> None:
    tmux.read()  # the screen the last dialog left, looked at before the key
    tmux.send("q")
    wait_until(lambda: status.exists() and status.read_text().strip() != "", "atk-tui to exit", tmux)
    assert status.read_text().strip() == "0"
    screen = tmux.wait_for(lambda s: s.rstrip().endswith(PROMPT.strip()), "the shell after exit")
    assert "Traceback" not in screen


def edit_in_vim(tmux: Tmux, demo: Demo, name: str, quit_command: str, notice: str = "") -> str:
    """Open the item with `e`, add a line at the end in vim, leave with `quit_command`; back
    on the dashboard, wait for `notice` too (a toast lasts a few seconds)."""
    base = demo.head()
    tmux.send("e")
    screen = tmux.wait_for(
        lambda s: "Press ENTER" in s or ("target_repo: acme/webapp" in s and "Inbox" not in s), "vim"
    )
    if "Press ENTER" in screen:  # vim's file message is longer than a line (the long tmp path)
        tmux.send("Enter")
    tmux.wait_for(lambda s: "target_repo: acme/webapp" in s and "Inbox" not in s, "vim on the item")
    assert demo.state(name) == "hold"  # held (and committed) before the editor opened
    tmux.send("G", "o")
    tmux.type(ADDED)
    tmux.send("Escape")
    tmux.type(quit_command)
    tmux.step("Enter", lambda s: "Inbox" in s and "Needs you" in s and notice in s, f"the dashboard again {notice}")
    wait_until(lambda: demo.subjects_since(base)[-1:] == [f"atk: unhold {name}"], "the unhold commit", tmux)
    return base


def on_logo(tmux: Tmux, demo: Demo, tmp_path: Path) -> tuple[str, Path]:
    """The dashboard in tmux with the logo item selected: (its filename, the exit-status file)."""
    status = tmp_path / "status"
    launch(tmux, demo, status)
    pick(tmux, "header-logo-svg", "ヘッダーのロゴを SVG に差し替える")
    return demo["hand-svg-logo"], status


def test_edit_in_vim_then_wq_commits_hold_edit_unhold(tmux: Tmux, demo: Demo, tmp_path: Path) -> None:
    name, status = on_logo(tmux, demo, tmp_path)
    before = demo.text(name)
    base = edit_in_vim(tmux, demo, name, ":wq")
    assert demo.subjects_since(base) == [f"atk: hold {name}", f"atk: edit {name}", f"atk: unhold {name}"]
    assert demo.text(name) == before + ADDED + "\n"
    assert demo.state(name) == "inbox"
    assert not demo.scratch(name).exists()
    # and pushed (each write pushes right after its commit)
    remote = demo.root.parent / "remote.git"

    def pushed() -> list[str]:
        out = subprocess.run(
            ["git", "log", "--format=%s", f"{base}..main"], cwd=remote, capture_output=True, text=True, check=True
        )
        return out.stdout.splitlines()[::-1]

    wait_until(lambda: len(pushed()) == 3, "the push of the unhold", tmux)
    assert pushed() == [f"atk: hold {name}", f"atk: edit {name}", f"atk: unhold {name}"]
    quit_app(tmux, status)


def test_edit_in_vim_then_cq_changes_nothing(tmux: Tmux, demo: Demo, tmp_path: Path) -> None:
    name, status = on_logo(tmux, demo, tmp_path)
    before = demo.text(name)
    base = edit_in_vim(tmux, demo, name, ":cq", notice="editor exited with status 1: nothing saved")
    assert demo.subjects_since(base) == [f"atk: hold {name}", f"atk: unhold {name}"]
    assert demo.text(name) == before
    assert demo.state(name) == "inbox"
    quit_app(tmux, status)


def test_answer_two_questions_with_keys_only(tmux: Tmux, demo: Demo, tmp_path: Path) -> None:
    name = demo["cp-multi"]
    status = tmp_path / "status"
    launch(tmux, demo, status)
    pick(tmux, "checkout-e2e-setup", "E2E test setup for the checkout redesign")
    base = demo.head()
    # keys only, each one checked on screen like a person would: Q1 -> B, Tab, Q2 -> A, Enter
    tmux.send("a")
    tmux.wait_for(
        lambda s: "Answer: E2E test setup" in s and "▸ Q1." in s and "choices 1=A  2=B" in s, "the answer form"
    )
    tmux.step("b", lambda s: "choices 1=B  2=B" in s, "Q1 on B")
    tmux.step("Tab", lambda s: "▸ Q2." in s, "Q2 current")
    tmux.step("a", lambda s: "choices 1=B  2=A" in s, "Q2 on A")
    tmux.send("Enter")
    wait_until(lambda: demo.subjects_since(base) == [f"atk: answer {name}"], "the answer commit", tmux)
    tmux.wait_for(lambda s: "Answer: E2E" not in s, "the form closed")
    text = demo.text(name)
    assert text.endswith("## 回答\n\n- 1: B) Cypress\n- 2: A) Colocated (src/checkout/__e2e__/)\n")
    assert demo.state(name) == "inbox"
    quit_app(tmux, status)


# -- an edit conflict in vim -------------------------------------------------------------------
# The edit conflict path with real vim in tmux (SPEC §11 "no silent overwrite"): someone else
# saves the item while vim is open; `:wq` is refused, Edit again opens vim on the newer version
# merged with the user's text (conflict markers), and the resolved text is saved on top of the
# newer version — nothing overwritten, nothing left in .git/atk-edit.


LINE = "- デメリット: なし"


def in_vim(t: Tmux, marker: str) -> str:
    def vim(s: str) -> bool:  # not the dashboard, not a dialog naming the marker
        return marker in s and "Inbox" not in s and "Not saved" not in s

    screen = t.wait_for(lambda s: "Press ENTER" in s or vim(s), "vim")
    if "Press ENTER" in screen:  # the file message is longer than a line
        t.send("Enter")
    return t.wait_for(vim, f"vim showing {marker!r}")


def test_changed_while_vim_was_open_edit_again_merges_and_saves_on_the_newer_version(
    tmux: Tmux,
    demo: Demo,
    tmp_path: Path,
) -> None:
    name, status = on_logo(tmux, demo, tmp_path)
    base = demo.head()
    tmux.send("e")
    in_vim(tmux, "target_repo: acme/webapp")
    assert demo.state(name) == "hold"

    # meanwhile another session changes the same line
    other = Service(demo.root, actor="user")
    out = other.writes.save_text(name, other.read(name).text.replace(LINE, "- デメリット: favicon は別途"))
    assert out.ok, out.message

    # the user changes that line too, and :wq
    tmux.type(":%s/^- デメリット: なし$/- デメリット: ロゴの色が変わる/")
    tmux.send("Enter")
    tmux.type(":wq")
    tmux.send("Enter")
    tmux.wait_for(lambda s: "Not saved" in s and "Edit again" in s, "the refusal")
    screen = tmux.screen()
    assert "changed by someone else" in screen
    assert "ロゴの色が変わる" not in demo.text(name)  # not written over the newer version

    # Edit again: vim on the merge, both versions marked
    tmux.read()  # the refusal is read before its key
    tmux.send("e")
    screen = in_vim(tmux, "<<<<<<< your text")
    assert "ロゴの色が変わる" in screen and "favicon は別途" in screen and ">>>>>>> stored now" in screen
    # keep both lines: delete the marker lines, then save
    tmux.type(r":g/^\(<<<<<<<\|=======\|>>>>>>>\|||||||| \)/d")
    tmux.send("Enter")
    tmux.type(":wq")
    tmux.send("Enter")
    tmux.wait_for(lambda s: "Inbox" in s and "Needs you" in s, "the dashboard again")
    wait_until(lambda: demo.subjects_since(base)[-1:] == [f"atk: unhold {name}"], "the unhold", tmux)
    final = demo.text(name)
    assert "ロゴの色が変わる" in final and "favicon は別途" in final
    assert "<<<<<<<" not in final and ">>>>>>>" not in final
    assert demo.subjects_since(base) == [f"atk: hold {name}", f"atk: edit {name}", f"atk: edit {name}", f"atk: unhold {name}"]
    assert demo.state(name) == "inbox"
    assert demo.scratch_files() == []
    quit_app(tmux, status)


# -- vim's message line ------------------------------------------------------------------------
# Issue 30: vim opened by `e` shows the item's filename on its message line and never stops at
# "Press ENTER" (it did when the scratch file's whole path did not fit the line).


def test_vim_opens_on_the_bare_filename_without_press_enter(tmux: Tmux, demo: Demo, tmp_path: Path) -> None:
    name, status = on_logo(tmux, demo, tmp_path)
    tmux.send("e")
    screen = tmux.wait_for(lambda s: "Press ENTER" in s or ("target_repo: acme/webapp" in s and "Inbox" not in s), "vim")
    assert "Press ENTER" not in screen, screen
    stem = name.removesuffix(".md")
    assert f'"{stem}~1.md"' in screen, screen  # the name, not a path
    tmux.send("Escape")
    tmux.type(":cq")
    tmux.step("Enter", lambda s: "Inbox" in s and "Needs you" in s, "the dashboard again")
    quit_app(tmux, status)
