"""Quitting never waits on git (SPEC §14): a second `q` (or Ctrl+C) during a write stuck in a
pre-commit hook kills the hook, the write rolls back, the app exits, and the store is left with
no journal and no held lock (the next `atk wi list` works on it).

The hook sleeps an hour: were the fix missing, the hook would still be alive after the second
`q` (the assertion below fails), and the `finally` kills it so the test never hangs that long."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import test_tmux_dashboard
from support import faults
from support.tui_helpers import git, settle

from atk_tui.service import Service

ATK = Path(sys.executable).with_name("atk")
HANG = 3600
BOUND = 60.0  # how long the hook may take to die after the second key (never reached)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def _wait_for(cond, bound: float = BOUND) -> bool:
    for _ in range(int(bound / 0.05)):
        if cond():
            return True
        await asyncio.sleep(0.05)
    return cond()


def _patient(app):
    """The app with git time limits longer than the hang: only a quit key stops the child."""
    app.service.store.limits = {"timeout": float(HANG), "push_timeout": float(HANG), "hook_timeout": float(HANG)}
    return app


def _left_consistent(store: Path, hook: Path, head: str) -> None:
    """The stopped write rolled back: nothing journaled or locked, HEAD where it was, and the
    next `atk wi list` works on the store."""
    hook.unlink()
    proc = subprocess.run([str(ATK), "wi", "list", "--store", str(store), "--no-json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not (store / ".git" / "atk-journal.json").exists()
    assert not (store / ".git" / "index.lock").exists()
    assert git(store, "rev-parse", "HEAD").strip() == head


@pytest.mark.parametrize("second_key", ["q", "ctrl+c"])
async def test_second_quit_key_stops_a_stuck_hook_and_exits(app_factory, demo_store: Path, tmp_path: Path, second_key: str) -> None:
    pidfile = tmp_path / "hook.pid"
    hook = faults.hook(demo_store, "pre-commit", faults.hang_body(pidfile))
    head = git(demo_store, "rev-parse", "HEAD").strip()
    app = _patient(app_factory())
    pid = None
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            key = app.main.selected  # the first inbox item
            assert key is not None
            state = app.main.view.items[key].state
            await pilot.press("p")  # hold: a commit, which runs the hook
            assert await _wait_for(lambda: pidfile.exists() and pidfile.read_text().strip())
            pid = int(pidfile.read_text())
            await pilot.press("q")
            await asyncio.sleep(0.2)
            assert app.is_running, "the first q waits for the write"
            assert _alive(pid)
            await pilot.press(second_key)
            # the second key kills the hook: the write fails and rolls back, the app exits
            assert await _wait_for(lambda: not _alive(pid)), "the hook still runs after the second quit key"
        assert not app.is_running
    finally:
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGKILL)
    _left_consistent(demo_store, hook, head)
    svc = Service(demo_store)
    with svc.store.locked(1):  # nobody holds the store lock
        pass
    assert svc.read(key).state == state


async def test_second_q_stops_a_pull_from_a_remote_that_never_answers(app_factory, demo_store: Path, tmp_path: Path) -> None:
    script, pidfile = faults.hang_script(tmp_path, "upload-pack")
    git(demo_store, "config", "remote.origin.uploadpack", str(script))
    app = _patient(app_factory())
    pid = None
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            app.pull()  # what `r` and the periodic pull run
            assert await _wait_for(lambda: pidfile.exists() and pidfile.read_text().strip())
            pid = int(pidfile.read_text())
            await pilot.press("q")
            await asyncio.sleep(0.2)
            assert app.is_running, "the first q waits for the pull"
            await pilot.press("q")
            assert await _wait_for(lambda: not _alive(pid)), "the fetch still runs after the second q"
        assert not app.is_running
    finally:
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGKILL)
    git(demo_store, "config", "--unset", "remote.origin.uploadpack")
    assert not (demo_store / ".git" / "atk-journal.json").exists()
    with Service(demo_store).store.locked(1):
        pass


@pytest.mark.e2e
def test_real_binary_q_q_exits_during_a_stuck_hook(tmux, demo_store: Path, tmp_path: Path) -> None:
    """The real `atk-tui` in tmux: the process itself ends (no thread left joining a hook),
    the terminal is restored, and the store is consistent for the next command."""
    run_app, wait_for_exit = test_tmux_dashboard.run_app, test_tmux_dashboard.wait_for_exit
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "atk" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f"[git]\nhook_timeout = {HANG}\n")
    pidfile = tmp_path / "hook.pid"
    hook = faults.hook(demo_store, "pre-commit", faults.hang_body(pidfile))
    head = git(demo_store, "rev-parse", "HEAD").strip()
    status = tmp_path / "status"
    pid = None
    try:
        run_app(tmux, demo_store, status)
        tmux.wait_for(lambda s: "Inbox 24" in s, "the dashboard")
        tmux.send("p")
        tmux.wait_for(lambda s: pidfile.exists() and bool(pidfile.read_text().strip()), "the hook to start")
        pid = int(pidfile.read_text())
        tmux.send("q")
        tmux.wait_for(lambda s: "waiting for git" in s, "the first q's notice")
        tmux.send("q")
        assert wait_for_exit(tmux, status) == 0
        assert tmux.display("#{alternate_on}") == "0"
        assert not _alive(pid)
    finally:
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGKILL)
    _left_consistent(demo_store, hook, head)
