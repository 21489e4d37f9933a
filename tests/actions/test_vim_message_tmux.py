"""Issue 30: vim opened by `e` shows the item's filename on its message line and never stops at
"Press ENTER" (it did when the scratch file's whole path did not fit the line)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.actions_support import Demo
from test_actions_e2e_tmux import Tmux, on_logo, quit_app, tmux  # noqa: F401 (fixture)

pytestmark = pytest.mark.e2e


def test_vim_opens_on_the_bare_filename_without_press_enter(tmux: Tmux, demo: Demo, tmp_path: Path) -> None:  # noqa: F811
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
