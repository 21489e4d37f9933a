"""The store lock's mechanism (atk_tui/host/flock.py): the lock another program takes with the
`filelock` package keeps atk out, and atk's keeps that program out."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from filelock import FileLock

from atk_tui.host import flock


def test_a_lock_held_by_filelock_times_out_after_one_wait_call(tmp_path: Path) -> None:
    path = str(tmp_path / "atk.lock")
    calls: list[int] = []
    with FileLock(path, timeout=0):
        with pytest.raises(flock.LockTimeout):
            flock.take(path, 0.2, lambda: calls.append(1))
        with pytest.raises(flock.LockTimeout):
            flock.take(path, 0, lambda: calls.append(2))  # no wait at all: never told
    assert calls == [1]
    fd = flock.take(path, 0)  # given back: taken at once
    flock.release(fd)
    assert os.path.exists(path)  # the file stays, so waiters share one inode


def test_atks_lock_keeps_another_process_out_until_released(tmp_path: Path) -> None:
    path = str(tmp_path / "atk.lock")
    probe = "import sys; from filelock import FileLock, Timeout\ntry:\n FileLock(sys.argv[1], timeout=0).acquire()\nexcept Timeout:\n sys.exit(3)\n"
    fd = flock.take(path, 0)
    try:
        assert subprocess.run([sys.executable, "-c", probe, path]).returncode == 3
    finally:
        flock.release(fd)
    assert subprocess.run([sys.executable, "-c", probe, path]).returncode == 0


def test_a_waiting_writer_gets_the_lock_once_it_is_given_back(tmp_path: Path) -> None:
    path = str(tmp_path / "atk.lock")
    held = flock.take(path, 0)
    waiting, got = threading.Event(), []
    writer = threading.Thread(target=lambda: got.append(flock.take(path, 30, waiting.set)))
    writer.start()
    assert waiting.wait(30)  # it asked, found the lock held, and said it waits
    assert not got
    flock.release(held)
    writer.join(30)
    assert len(got) == 1
    flock.release(got[0])


def test_a_named_pipe_in_its_place_does_not_hang(tmp_path: Path) -> None:
    path = tmp_path / "atk.lock"
    os.mkfifo(path)
    try:
        fd = flock.take(str(path), 0)
    except (OSError, flock.LockTimeout):
        return  # refused: fine, as long as it did not block
    flock.release(fd)


def test_a_link_in_its_place_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    (tmp_path / "atk.lock").symlink_to(target)
    with pytest.raises(OSError):
        flock.take(str(tmp_path / "atk.lock"), 0)
    assert not target.exists()
