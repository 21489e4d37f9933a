"""Work over a list on two cores: the second half in a forked child process.

A cold listing parses 10,000 files in pure Python, one core's work; a forked child parses half
of them beside it and sends back what it made as one `marshal` blob (a few milliseconds for
5,000 records). Only where that is safe: a process with one thread (a fork copies only the
calling thread; a lock another thread held would stay locked in the child), on a system with
`fork` and more than one CPU. Anything going wrong in the child (it dies, its output is cut
short) is no error: the parent does that half itself.
"""

from __future__ import annotations

import marshal
import os
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any


def can_fork() -> bool:
    """A forked child may do the work here: `fork` exists, the process has one thread, and
    there is a second CPU for it (`os.sched_getaffinity` where it exists)."""
    if not hasattr(os, "fork") or threading.active_count() != 1:
        return False
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return cpus > 1


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Forked:
    """A job running in a forked child beside the parent (`fork`); `collect()` waits for its
    result, `cancel()` (when it is not wanted after all) stops it; either reaps the child."""

    def __init__(self, pid: int, rfd: int) -> None:
        self.pid, self.rfd = pid, rfd
        self.reaped = False

    def collect(self) -> Any:
        """The job's result, or None when the child failed (died, raised, or made something
        `marshal` cannot carry)."""
        try:
            data = _read_all(self.rfd)
        except BaseException:
            self.cancel()
            raise
        os.close(self.rfd)
        _, status = os.waitpid(self.pid, 0)
        self.reaped = True
        if status != 0:
            return None
        try:
            ok, result = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            return None
        return result if ok is True else None

    def cancel(self) -> None:
        """Stop the child (its result is not wanted) and reap it; nothing once reaped."""
        if self.reaped:
            return
        self.reaped = True
        os.close(self.rfd)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


def fork(job: Callable[[], Any]) -> Forked | None:
    """Run `job()` in a forked child, beside the caller; None when no child could be made.
    `job` returns what `marshal` carries (None, bools, numbers, text, bytes, lists, tuples,
    dicts); whatever else it does in the child (caches in memory) stays there. The caller
    checks `can_fork()` first."""
    rfd, wfd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(rfd)
        os.close(wfd)
        return None
    if pid == 0:  # the child: the job, sent back whole, then gone without running any of the parent's cleanup
        code = 1
        try:
            os.close(rfd)
            _write_all(wfd, marshal.dumps((True, job())))
            code = 0
        except BaseException:  # the parent does the work itself
            pass
        finally:
            os._exit(code)
    os.close(wfd)
    return Forked(pid, rfd)


def map_halves(fn: Callable[[Any], Any], work: Sequence[Any], send: Callable[[Any], Any]) -> tuple[list[Any], list[Any]]:
    """(`fn(w)` for the first half of `work`, `send(fn(w))` for the second half), the second
    half computed in a forked child (`fork`; `send` makes a result what `marshal` carries).
    The caller checks `can_fork()` first."""
    half = len(work) // 2
    child = fork(lambda: [send(fn(w)) for w in work[half:]])
    try:
        mine = [fn(w) for w in work[:half]]
    except BaseException:
        if child is not None:
            child.cancel()  # an interrupt: the child's half is not wanted
        raise
    theirs = child.collect() if child is not None else None
    if type(theirs) is not list or len(theirs) != len(work) - half:
        theirs = [send(fn(w)) for w in work[half:]]
    return mine, theirs
