"""The real `atk-tui` binary in tmux (issue 15): `--demo` removes its store on quitting unless
`--keep`; the vim keys and the pinned footer in a real 80-column terminal."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from support.tmux import ATK_TUI, Tmux
from test_e2e_tmux import wait_for_exit

pytestmark = pytest.mark.e2e


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
    tmux.send("q")
    assert wait_for_exit(tmux, status) == 0
    err = "".join(tmux.screen().split())  # stderr is the terminal: what it printed after the app, unwrapped
    if keep:
        assert demo[0].is_dir()
        assert "demostorekeptat" + str(demo[0] / "store") in err
    else:
        assert not demo[0].exists()
        assert list(tmpdir.iterdir()) == []
