"""Child processes with a time limit, and who holds a file open (SPEC §14).

Every child (git, hooks) starts in its own process group, so that a time limit or an
interrupt kills it *and* whatever it started (a hook's `sleep`, git's ssh). Its output goes to
temporary files, not pipes: a grandchild left running in the background (a hook's `cmd &`)
keeps a pipe open, and reading a pipe to its end would wait for it; a file does not.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path


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
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            with self._lock:
                self._running[proc.pid] = proc
                late = slow and self.interrupted  # interrupt() came while it was starting
                if late:
                    self._killed.add(proc.pid)
            if late:
                _kill_group(proc)
            # a timer kills the group at the limit; the wait itself blocks in waitpid (a wait
            # with a timeout polls, which costs milliseconds on every short git command)
            expired = threading.Event()
            timer = None
            if timeout is not None:

                def expire() -> None:
                    if proc.returncode is None:
                        expired.set()
                        _kill_group(proc)

                timer = threading.Timer(timeout, expire)
                timer.daemon = True
                timer.start()
            too_large = threading.Event()
            if max_output is not None:

                def watch_size() -> None:
                    while proc.returncode is None and not expired.is_set():
                        try:
                            if max(os.fstat(out.fileno()).st_size, os.fstat(err.fileno()).st_size) > max_output:
                                too_large.set()
                                _kill_group(proc)
                                return
                        except (OSError, ValueError):
                            return
                        if done.wait(0.02):
                            return

                done = threading.Event()
                watcher = threading.Thread(target=watch_size, daemon=True)
                watcher.start()
            try:
                try:
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
                    if max_output is not None:
                        done.set()
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
