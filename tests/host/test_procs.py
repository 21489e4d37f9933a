"""A child (git, a hook) never outlives the call that started it (atk_tui/host/procs.py): an
exception that ends the call (a signal's SystemExit) kills the child's process group first,
wherever it lands once the child exists."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest
from support.faults import BIN, HANG, _gone, assert_consistent, kill_pidfile, snapshot, store_with_hook

from atk_tui.host import procs


def test_an_exception_as_the_time_limit_starts_kills_the_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The narrowest window: the child runs, its timer is starting (a thread start can take
    milliseconds on a loaded machine) and a signal's SystemExit lands there."""
    pidfile = tmp_path / "child.pid"
    started = threading.Event()

    class LandsOnStart(threading.Timer):
        def start(self) -> None:
            while not pidfile.exists():  # the child has started and said who it is
                started.wait(0.01)
            raise SystemExit(128 + signal.SIGTERM)

    monkeypatch.setattr(procs.threading, "Timer", LandsOnStart)
    children = procs.Children()
    try:
        with pytest.raises(SystemExit):
            children.run(["sh", "-c", f"echo $$ > {pidfile}; exec sleep {HANG}"], cwd=tmp_path, timeout=HANG)
        assert _gone(pidfile), "the child outlived the call"
    finally:
        kill_pidfile(pidfile)


@pytest.mark.parametrize("run", range(2))
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
def test_a_signal_as_a_hook_starts_stops_the_hook_and_rolls_back(tmp_path: Path, sig: signal.Signals, run: int) -> None:
    """The hook's first act is to signal atk (an agent harness's time limit, a closed
    terminal, Ctrl-C, at the worst moment: atk may still be starting the hook): atk exits
    128 + the signal, the write rolls back and the hook is gone with it."""
    pidfile = tmp_path / "hook.pid"
    root, (awi, _) = store_with_hook(tmp_path, f"echo $$ > {pidfile}\nkill -{sig.name[3:]} $PPID\nexec sleep {HANG}\n")
    before = snapshot(root)
    exe = BIN / "atk"
    proc = subprocess.Popen(
        [str(exe) if exe.exists() else "atk", "wi", "hold", awi, "--store", str(root), "--skip-pull"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + sig, err
        assert _gone(pidfile), "the hook outlived atk"
    finally:
        kill_pidfile(pidfile)
        if proc.poll() is None:
            proc.kill()
    assert snapshot(root) == before
    assert_consistent(root)

