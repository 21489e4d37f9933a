"""The store lock's mechanism: an exclusive `flock(2)` on a lock file that stays in place,
taken with a deadline.

It is the lock the `filelock` package takes on POSIX (an exclusive flock of the open file,
polled), so a process holding it one way keeps out a process asking the other way (the tests
hold it with `filelock`). Written here rather than imported: that package's import (version 4)
costs 17-25 ms of CPU after atk's own imports, about a twelfth of a committed transition
(bench/transition_cost.py)."""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Callable

#: how often a waiting writer tries again (filelock's default)
POLL = 0.05


class LockTimeout(Exception):
    """The lock was held by another process for the whole time allowed."""


def take(path: str, timeout: float, on_wait: Callable[[], None] | None = None) -> int:
    """The lock on `path` (created if missing), as an open descriptor for `release`. Tried
    once at once; when another process holds it, `on_wait()` is called and it is tried every
    `POLL` seconds until `timeout` (negative: no limit), then `LockTimeout`. Never follows a
    link and never blocks on a named pipe planted there."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, 0o644)
    try:
        deadline = time.monotonic() + timeout
        waited = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                    raise
            left = deadline - time.monotonic()
            if timeout >= 0 and left <= 0:
                raise LockTimeout(path)
            if not waited and on_wait is not None:
                on_wait()
            waited = True
            time.sleep(POLL if timeout < 0 else min(POLL, left))
    except BaseException:
        os.close(fd)
        raise


def release(fd: int) -> None:
    """Give back a lock `take` returned (the file stays, so waiters share its inode)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
