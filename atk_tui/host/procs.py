"""Child processes with a time limit, and who holds a file open (SPEC §14).

Every child (git, hooks) starts in its own process group, so that a time limit or an
interrupt kills it *and* whatever it started (a hook's `sleep`, git's ssh). Its output goes to
temporary files, not pipes: a grandchild left running in the background (a hook's `cmd &`)
keeps a pipe open, and reading a pipe to its end would wait for it; a file does not. A signal
that stops atk (`deferred_while_starting`) waits while the main thread starts a child, so that
the child is known and killed as atk unwinds, never left running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


class ChildTimeout(Exception):
    """The child ran past its time limit and was killed with its process group."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"did not finish within {seconds:g} s")
        self.seconds = seconds


class ChildOutputTooLarge(Exception):
    """The child printed more than `max_output` bytes and was killed with its process group."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"printed more than {limit} bytes")
        self.limit = limit


class ChildInterrupted(Exception):
    """`Children.interrupt()` killed the child (or refused to start a slow one)."""


#: the main thread is starting a child (inside `subprocess.Popen`, where an exception would
#: lose the child): a signal's handler waits in `_pending` until the child is known
_starting = False
_pending: list[Callable[[], None]] = []


def deferred_while_starting(handler: Callable[[int, Any], None]) -> Callable[[int, Any], None]:
    """`handler` (a signal handler that raises, to unwind: SystemExit, KeyboardInterrupt) as
    one that, when the signal lands while the main thread starts a child, runs as soon as the
    child is known, so that the unwinding kills it rather than leaving it running."""

    def wrapped(signum: int, frame: Any) -> None:
        if _starting:
            _pending.append(lambda: handler(signum, frame))
            return
        handler(signum, frame)

    return wrapped


def _started() -> None:
    """The child is known (or failed to start): a signal that waited is handled now."""
    global _starting
    _starting = False
    if _pending:
        first = _pending[0]
        _pending.clear()  # the same signal again is the same request
        first()


class Children:
    """The child processes one store runs right now, so that they can all be killed at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[int, subprocess.Popen] = {}
        self._killed: set[int] = set()
        #: set by `interrupt()`: slow children (network, hooks) refuse to start until `reset()`
        self.interrupted = False

    def reset(self) -> None:
        self.interrupted = False

    def interrupt(self) -> int:
        """Kill every running child's process group. Returns how many were running."""
        with self._lock:
            self.interrupted = True
            procs = list(self._running.values())
            self._killed.update(p.pid for p in procs)
        for p in procs:
            _kill_group(p)
        return len(procs)

    def run(
        self,
        argv: Sequence[str],
        *,
        cwd: Path | str,
        env: dict[str, str] | None = None,
        input: str | None = None,
        timeout: float | None = None,
        slow: bool = False,
        max_output: int | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run `argv` and return its exit status and output (str, surrogateescape).

        `timeout`: seconds before the process group is killed (ChildTimeout). `slow`: a child
        that may block for long (network, hooks): refused once `interrupt()` was called.
        `max_output`: bytes of stdout past which the group is killed (ChildOutputTooLarge;
        looked at every 20 ms: the file holds little more, and no more than that is read)."""
        if slow and self.interrupted:
            raise ChildInterrupted()
        # a timer kills the group at the limit; the wait itself blocks in waitpid (a wait
        # with a timeout polls, which costs milliseconds on every short git command)
        expired, too_large, done = threading.Event(), threading.Event(), threading.Event()
        timer: threading.Timer | None = None
        watcher: threading.Thread | None = None

        def expire() -> None:
            if proc.returncode is None:
                expired.set()
                _kill_group(proc)

        def watch_size() -> None:
            while proc.returncode is None and not expired.is_set():
                try:
                    if max(os.fstat(out.fileno()).st_size, os.fstat(err.fileno()).st_size) > (max_output or 0):
                        too_large.set()
                        _kill_group(proc)
                        return
                except (OSError, ValueError):
                    return
                if done.wait(0.02):
                    return

        global _starting
        main = threading.current_thread() is threading.main_thread()
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            _starting = main
            try:
                proc = subprocess.Popen(
                    list(argv),
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                )
            except BaseException:
                if main:
                    _started()
                raise
            # from here on, whatever ends this call (a signal's SystemExit included, even one
            # that came while the child started) kills the child's group first
            try:
                try:
                    if main:
                        _started()
                    with self._lock:
                        self._running[proc.pid] = proc
                        late = slow and self.interrupted  # interrupt() came while it was starting
                        if late:
                            self._killed.add(proc.pid)
                    if late:
                        _kill_group(proc)
                    if timeout is not None:
                        timer = threading.Timer(timeout, expire)
                        timer.daemon = True
                        timer.start()
                    if max_output is not None:
                        watcher = threading.Thread(target=watch_size, daemon=True)
                        watcher.start()
                    if input is not None and proc.stdin is not None:
                        try:
                            proc.stdin.write(input.encode("utf-8", "surrogateescape"))
                        except BrokenPipeError:
                            pass  # the child did not read it all (it failed, or was killed)
                        finally:
                            try:
                                proc.stdin.close()
                            except OSError:
                                pass
                    proc.wait()
                except BaseException:
                    _kill_group(proc)
                    proc.wait()
                    raise
                finally:
                    if timer is not None:
                        timer.cancel()
                    done.set()
                    if watcher is not None:
                        watcher.join()
                if expired.is_set():
                    raise ChildTimeout(timeout or 0)
                if too_large.is_set() or (max_output is not None and os.fstat(out.fileno()).st_size > max_output):
                    raise ChildOutputTooLarge(max_output or 0)
            finally:
                with self._lock:
                    self._running.pop(proc.pid, None)
                    killed = proc.pid in self._killed
                    self._killed.discard(proc.pid)
            if killed:
                raise ChildInterrupted()
            out.seek(0)
            err.seek(0)
            stdout = out.read(max_output).decode("utf-8", "surrogateescape")
            stderr = err.read(max_output).decode("utf-8", "surrogateescape")
        return subprocess.CompletedProcess(list(argv), proc.returncode, stdout, stderr)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass


def holders(path: Path | str) -> list[int]:
    """The processes (pids) that have `path` open, found through /proc/*/fd (Linux).

    Raises OSError when this cannot be known (no /proc): the caller must then assume the
    file is held."""
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return []
    key = (st.st_dev, st.st_ino)
    if not os.path.isdir("/proc/self/fd"):
        raise OSError("no /proc: cannot tell which processes hold a file")
    found: list[int] = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        fd_dir = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue  # gone, or not ours to look at (then it cannot be writing our store)
        for fd in fds:
            try:
                fst = os.stat(f"{fd_dir}/{fd}")
            except OSError:
                continue
            if (fst.st_dev, fst.st_ino) == key:
                found.append(int(pid))
                break
    return found


def git_processes_in(root: Path | str) -> list[int]:
    """Running `git` processes whose working folder is `root` or below it: git closes
    `index.lock` once written but keeps it until it renames it (e.g. while `git commit`
    runs its hooks), so an open file is not the only sign of a live lock."""
    base = os.path.realpath(root).rstrip(os.sep)
    found: list[int] = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as fh:
                comm = fh.read().strip()
            if not comm.startswith("git"):
                continue
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd == base or cwd.startswith(base + os.sep):
            found.append(int(pid))
    return found


def lock_is_held(lock: Path | str, root: Path | str) -> bool:
    """Whether a lock file belongs to a live process: open in one, or a git process works in
    `root`. True whenever this cannot be known."""
    try:
        return bool(holders(lock)) or bool(git_processes_in(root))
    except OSError:
        return True


Popen = subprocess.Popen


def start_session(cmd: str, env: dict[str, str], log: Path | str) -> subprocess.Popen:
    """A long-running session (`atk wi process-loop --run CMD`) through the shell, its output
    to `log`, in its own process group: the loop stops it, a terminal's ^C does not. Raises
    OSError when it cannot be started."""
    with open(log, "wb") as out:
        return subprocess.Popen(
            cmd, shell=True, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip


def stop_sessions(procs: Sequence[subprocess.Popen], grace: float) -> list[int]:
    """Stop sessions (`start_session`): SIGTERM to each process group, then SIGKILL to those
    still running after `grace` seconds; each one's exit code."""
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    codes = []
    for proc in procs:
        try:
            code = proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            code = proc.wait()
        codes.append(code)
    return codes
