"""The edit conflict path with real vim in tmux (SPEC §11 "no silent overwrite"): someone else
saves the item while vim is open; `:wq` is refused, Edit again opens vim on the newer version
merged with the user's text (conflict markers), and the resolved text is saved on top of the
newer version — nothing overwritten, nothing left in .git/atk-edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.actions_support import Demo
from test_actions_e2e_tmux import Tmux, launch, on_logo, pick, quit_app, tmux, wait_until  # noqa: F401 (fixture)

from atk_tui.service import Service

pytestmark = pytest.mark.e2e

LINE = "- デメリット: なし"


def in_vim(t: Tmux, marker: str) -> str:
    def vim(s: str) -> bool:  # not the dashboard, not a dialog naming the marker
        return marker in s and "Inbox" not in s and "Not saved" not in s

    screen = t.wait_for(lambda s: "Press ENTER" in s or vim(s), "vim")
    if "Press ENTER" in screen:  # the file message is longer than a line
        t.send("Enter")
    return t.wait_for(vim, f"vim showing {marker!r}")


def test_changed_while_vim_was_open_edit_again_merges_and_saves_on_the_newer_version(
    tmux: Tmux,  # noqa: F811
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
    out = other.save_text(name, other.read(name).text.replace(LINE, "- デメリット: favicon は別途"))
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
