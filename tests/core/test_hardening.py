"""Issue 10 (SPEC §14): hostile stores and stuck git. Time limits on every child process, the
interrupt a quitting dashboard uses, git-state guards before a write, locks removed only when
no process holds them, and nothing read through a symbolic link that leaves the store.

Hangs are provoked with real sleeping hooks and remotes; a test whose fix is missing would
wait for the full sleep (an hour), so each write runs in a thread joined with a generous bound
that only guards against that hang."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

from storekit import AWI_BODY, add_item, git, make_remote_pair, tree_state

from atk_tui.core.config import git_limits
from atk_tui.core.service import Outcome, Service
from atk_tui.core.store import GitStore

HANG = 3600  # what a stuck child sleeps: far longer than any test may take
GUARD = 120.0  # a write that is not done by then hung


def hook(root: Path, name: str, script: str) -> Path:
    path = root / ".git" / "hooks" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return path


def in_thread(fn) -> tuple[threading.Thread, list]:
    box: list = []
    t = threading.Thread(target=lambda: box.append(fn()), daemon=True)
    t.start()
    return t, box


def finish(t: threading.Thread, box: list):
    t.join(GUARD)
    assert not t.is_alive(), "the write hung on its child process"
    return box[0]


def kill_pidfile(path: Path) -> None:
    try:
        os.kill(int(path.read_text().strip()), signal.SIGKILL)
    except (OSError, ValueError):
        pass


def wait_file(path: Path) -> None:
    import time

    for _ in range(int(GUARD * 20)):
        if path.exists():
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


# --- time limits ----------------------------------------------------------------------


def test_limits_come_from_the_config_file() -> None:
    assert git_limits({}) == {"timeout": 30.0, "push_timeout": 30.0, "hook_timeout": 30.0}
    got = git_limits({"git": {"timeout": 5, "push_timeout": 7.5, "hook_timeout": -1}})
    assert got == {"timeout": 5.0, "push_timeout": 7.5, "hook_timeout": 5.0}
    assert git_limits({"git": "nonsense"})["timeout"] == 30.0
    assert git_limits({"git": {"timeout": True}})["timeout"] == 30.0


def test_limits_are_read_from_the_users_config(store: Path) -> None:
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "atk" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text("[git]\ntimeout = 4\nhook_timeout = 2\n")
    s = GitStore(store)
    assert (s.limit("timeout"), s.limit("push_timeout"), s.limit("hook_timeout")) == (4.0, 4.0, 2.0)


def test_a_sleeping_pre_commit_hook_is_stopped_and_the_write_rolled_back(svc: Service, tmp_path: Path) -> None:
    a = add_item(svc)
    before = tree_state(svc.root)
    hook(svc.root, "pre-commit", f"sleep {HANG}\n")
    svc.store.limits = {"timeout": 30.0, "push_timeout": 30.0, "hook_timeout": 1.0}
    out: Outcome = finish(*in_thread(lambda: svc.hold(a)))
    assert not out.ok
    assert "pre-commit hook did not finish within 1 s" in out.message
    assert "hook_timeout" in out.message  # says what to do
    assert tree_state(svc.root) == before
    assert not (svc.root / ".git" / "atk-journal.json").exists()


def test_a_hook_leaving_a_background_child_does_not_keep_the_write_waiting(svc: Service, tmp_path: Path) -> None:
    a = add_item(svc)
    pidfile = tmp_path / "bg.pid"
    # the child keeps the hook's stdout/stderr open; reading a pipe to its end would wait
    hook(svc.root, "pre-commit", f"sleep {HANG} &\necho $! > {pidfile}\necho checked\nexit 0\n")
    svc.store.limits = {"timeout": 30.0, "push_timeout": 30.0, "hook_timeout": float(HANG)}
    try:
        out: Outcome = finish(*in_thread(lambda: svc.hold(a)))
    finally:
        kill_pidfile(pidfile)
    assert out.ok, out.message
    assert svc.store.locate(a) == "hold"


def test_interrupt_stops_a_stuck_write_which_rolls_back(svc: Service, tmp_path: Path) -> None:
    a = add_item(svc)
    before = tree_state(svc.root)
    started = tmp_path / "started"
    hook(svc.root, "pre-commit", f"touch {started}\nsleep {HANG}\n")
    svc.store.limits = {"timeout": 30.0, "push_timeout": 30.0, "hook_timeout": float(HANG)}
    t, box = in_thread(lambda: svc.hold(a))
    wait_file(started)
    assert svc.interrupt() >= 1
    out: Outcome = finish(t, box)
    assert not out.ok
    assert "interrupted" in out.message
    assert tree_state(svc.root) == before
    # the next write runs normally (the interrupt does not outlive the write it stopped)
    (svc.root / ".git" / "hooks" / "pre-commit").unlink()
    assert svc.hold(a).ok


def _hanging_remote(tmp_path: Path, which: str) -> tuple[Path, Path]:
    """A store whose remote's upload-pack (fetch/pull) or receive-pack (push) never answers."""
    root, remote = make_remote_pair(tmp_path)
    script = tmp_path / f"hang-{which}"
    script.write_text(f"#!/bin/sh\ntouch {tmp_path}/remote-called\nexec sleep {HANG}\n")
    script.chmod(0o755)
    git(root, "config", f"remote.origin.{which}", str(script))
    return root, remote


def test_a_remote_that_never_answers_a_pull_times_out_and_the_commit_is_kept(tmp_path: Path) -> None:
    root, _ = _hanging_remote(tmp_path, "uploadpack")
    svc = Service(root, actor="user")
    svc.store.limits = {"timeout": 1.0, "push_timeout": 1.0, "hook_timeout": 30.0}
    out: Outcome = finish(*in_thread(lambda: svc.add(kind="awi", target_repo="acme/webapp", body=AWI_BODY)))
    assert (tmp_path / "remote-called").exists()
    assert out.ok, out.message
    text = "\n".join(out.warnings)
    assert "timed out after 1 s" in text
    assert "run `atk wi commit`" in text
    assert svc.store.unpushed() == 1


def test_a_remote_that_never_answers_a_push_times_out_with_a_clear_message(tmp_path: Path) -> None:
    root, _ = _hanging_remote(tmp_path, "receivepack")
    svc = Service(root, actor="user")
    svc.store.limits = {"timeout": 30.0, "push_timeout": 1.0, "hook_timeout": 30.0}
    out: Outcome = finish(*in_thread(lambda: svc.add(kind="awi", target_repo="acme/webapp", body=AWI_BODY)))
    assert out.ok, out.message
    text = "\n".join(out.warnings)
    assert "git push timed out after 1 s; the commit is kept locally" in text
    assert "atk wi commit" in text
    assert svc.store.unpushed() == 1


def test_interrupt_stops_a_hanging_push(tmp_path: Path) -> None:
    root, _ = _hanging_remote(tmp_path, "receivepack")
    svc = Service(root, actor="user")
    svc.store.limits = {"timeout": 30.0, "push_timeout": float(HANG), "hook_timeout": 30.0}
    t, box = in_thread(lambda: svc.add(kind="awi", target_repo="acme/webapp", body=AWI_BODY))
    wait_file(tmp_path / "remote-called")
    svc.interrupt()
    out: Outcome = finish(t, box)
    assert out.ok  # the commit was made before the push; only the push was stopped
    assert any("interrupted" in w and "atk wi commit" in w for w in out.warnings), out.warnings
    assert svc.store.unpushed() == 1
