"""`atk wi process-loop`: the resident loop (SPEC §13).

It watches the store with the dashboard's change detection (`watch.store_signature`) and,
while ready processable work exists and fewer than N sessions run, starts CMD through the
shell for it. Work is grouped by `target_repo`: one session per repository at a time, given
the ready filenames of that repository in `ATK_READY_FILES` (space-separated: every ready
processable item, SPEC §13, inbox and processing alike), the same split by state in
`ATK_READY_PROCESSING_FILES` (work already taken, to resume) and `ATK_READY_INBOX_FILES` (work
to pick), the store in `ATK_PRIVATE_NOTES`, the repository in `ATK_TARGET_REPO`. Hold, blocked and defective items
are never handed out (only items judged ready are).

A session that ends is not started again for the same files until the store changes: a
crashing CMD is logged and survived, not restarted in a tight loop.

Everything is recorded under the store's `.git/atk-loop/`:
- `sessions.jsonl`: one `start` and one `end` record per session (time, files, pid, exit
  code, the tail of its output, whether the loop stopped it);
- `sessions/<id>.log`: the session's whole output;
- `state.json`: the live status (`Service.loop_status()` reads it; removed on exit);
- `loop.lock`: held (flock) while a loop runs: one loop per store. The kernel drops it when
  the process dies, so no lock is ever left behind.

SIGINT/SIGTERM stop it cleanly: no new session starts, running ones get SIGTERM (then
SIGKILL after a grace period), their end is recorded, the state file and lock are removed.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from atk_tui.domain.model import PROCESSABLE
from atk_tui.host.procs import Popen, start_session, stop_sessions
from atk_tui.host.regular import open_regular, read_regular
from atk_tui.service.reading.watch import store_signature
from atk_tui.store import AtkError
from atk_tui.text.textsafe import safe_line

LOOP_DIR = "atk-loop"
TAIL_LINES = 20


def loop_dir(git_dir: Path) -> Path:
    return Path(git_dir) / LOOP_DIR


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_status(git_dir: Path) -> dict | None:
    """The running loop's state, or None when no loop runs (a state file left by a killed
    loop is ignored)."""
    path = loop_dir(git_dir) / "state.json"
    try:
        data = json.loads(read_regular(path, 1 << 20))  # a regular file only, never blocking (issue 38)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("pid"), int) or not _alive(data["pid"]):
        return None
    return data


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _tail(path: Path, lines: int = TAIL_LINES) -> str:
    try:
        with open(open_regular(path), "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(size - 16384, 0))
            data = fh.read()
    except OSError:
        return ""
    return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])


@dataclass
class Session:
    id: str
    repo: str
    files: list[str]
    proc: Popen
    log: Path
    started: str
    signature: tuple = field(default_factory=tuple)


class ProcessLoop:
    def __init__(
        self,
        svc,
        cmd: str,
        *,
        max_parallel: int = 1,
        interval: float = 0.5,
        grace: float = 5.0,
        pull_interval: float = 2.0,
        log: Callable[[str], None] = lambda _m: None,
    ) -> None:
        if max_parallel < 1:
            raise AtkError("--max-parallel takes a number of sessions >= 1", exit_code=2)
        self.svc = svc
        self.cmd = cmd
        self.max_parallel = max_parallel
        self.interval = interval
        self.grace = grace
        self.pull_interval = pull_interval
        self.log = log
        self._last_pull: float | None = None
        self.dir = loop_dir(svc.store.git_dir)
        self.running: dict[str, Session] = {}  # by repo
        self.ended: dict[str, tuple[frozenset[str], tuple]] = {}  # repo -> (files, store signature at end)
        self.last_exit: int | None = None
        self.started_count = 0
        self.stop = threading.Event()
        self._lock_fd: int | None = None
        self._seq = 0
        self.states: dict[str, str] = {}  # a ready file's state when last judged (its session's variables)

    # -- what to run -------------------------------------------------------------------

    def ready_groups(self) -> dict[str, list[str]]:
        """Ready processable filenames by target_repo (honouring --target-repo).

        The listing (through the caches) only proposes: every proposed item is judged again
        from its file and the files of everything it depends on, answers counting only once
        committed (`Service.judge_from_files`), and only what is ready that way is handed
        out. A cache record that disagrees (forged, or stale) is logged, never obeyed."""
        view = self.svc.queue(PROCESSABLE)
        proposed: list[str] = []
        for item in view.items.values():
            j = view.judgements.get(item.filename)
            if item.state not in PROCESSABLE or j is None or not j.ready:
                continue
            if item.queue not in self.svc.queues:
                continue
            proposed.append(item.filename)
        try:
            # inside the store lock (issue 38): no write moves a file while it is judged
            with self.svc.store.locked():
                judged = self.svc.judge_from_files(proposed, view)
                owners = self._owners(judged)
        except AtkError as exc:  # the store is busy: nothing handed out this round
            self.log(f"not handing out work now: {safe_line(exc.message)}")
            return {}
        groups: dict[str, list[str]] = {}
        for name in proposed:
            item, j = judged.get(name, (None, None))
            if item is None or j is None or not j.ready:
                why = "; ".join(r.message for r in j.reasons) if j is not None and j.reasons else "not ready"
                self.log(f"not handed out: {safe_line(name)}: its file says {safe_line(why)} (the listing said ready)")
                continue
            if self.svc.only_repo and item.target_repo != self.svc.only_repo:
                continue
            owner = owners.get(name)
            if owner is not None:
                # issue 39: processing belongs to the agent that started it
                self.log(f"not handed out: {safe_line(name)} is {owner.describe()} (not this loop's agent)")
                continue
            groups.setdefault(item.target_repo, []).append(name)
            self.states[name] = item.state
        return {repo: sorted(files) for repo, files in sorted(groups.items())}

    def _owners(self, judged: dict) -> dict:
        """filename -> the holder (`service.core.holds`) of each judged processing item that another
        agent owns: its start-processing commit names an agent other than this loop's
        (`ATK_AGENT_ID`); a loop without an id leaves every named agent's alone."""
        from atk_tui.service.core.holds import may_change

        paths = {
            f"{item.queue}/{item.state}/{name}": name
            for name, (item, _j) in judged.items()
            if item is not None and item.state == "processing"
        }
        if not paths:
            return {}
        found = self.svc.core.holders(list(paths), cache=False)
        return {paths[p]: h for p, h in found.items() if not may_change(h, "agent", self.svc.agent_id)}

    # -- bookkeeping -------------------------------------------------------------------

    def _journal(self, record: dict) -> None:
        with open(self.dir / "sessions.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")

    def _write_state(self) -> None:
        state = {
            "pid": os.getpid(),
            "cmd": self.cmd,
            "max_parallel": self.max_parallel,
            "updated": _now(),
            "running": [{"id": s.id, "repo": s.repo, "files": s.files, "pid": s.proc.pid, "started": s.started}
                        for s in self.running.values()],
            "sessions_started": self.started_count,
            "last_exit": self.last_exit,
        }
        tmp = self.dir / "state.json.tmp"
        tmp.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, self.dir / "state.json")

    def _acquire(self) -> None:
        import fcntl

        (self.dir / "sessions").mkdir(parents=True, exist_ok=True)
        fd = os.open(self.dir / "loop.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            other = read_status(self.svc.store.git_dir)
            who = f" (pid {other['pid']})" if other else ""
            raise AtkError(f"a process-loop is already running on this store{who}; stop it first") from None
        self._lock_fd = fd

    def _release(self) -> None:
        (self.dir / "state.json").unlink(missing_ok=True)
        if self._lock_fd is not None:
            (self.dir / "loop.lock").unlink(missing_ok=True)
            os.close(self._lock_fd)  # closing drops the flock
            self._lock_fd = None

    # -- sessions ----------------------------------------------------------------------

    def _start(self, repo: str, files: list[str], signature: tuple) -> None:
        self._seq += 1
        sid = f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{os.getpid()}-{self._seq}"
        log = self.dir / "sessions" / f"{sid}.log"
        env = dict(os.environ)
        env.update(
            ATK_PRIVATE_NOTES=str(self.svc.root),
            ATK_READY_FILES=" ".join(files),
            ATK_READY_PROCESSING_FILES=" ".join(f for f in files if self.states.get(f) == "processing"),
            ATK_READY_INBOX_FILES=" ".join(f for f in files if self.states.get(f) == "inbox"),
            ATK_TARGET_REPO=repo,
            ATK_LOOP_SESSION=sid,
            # a session is an agent (issue 38): its writes are `Atk-Actor: agent` (its own
            # ATK_LOOP_SESSION says so too; an ATK_AGENT_ID the loop was given passes through)
            AI_AGENT="1",
        )
        try:
            proc = start_session(self.cmd, env, log)
        except OSError as exc:  # no session was started: nothing to stop or record as running
            self.log(f"could not start a session for {repo}: {exc}; will try again when the store changes")
            self.ended[repo] = (frozenset(files), signature)
            return
        started = _now()
        self.running[repo] = Session(sid, repo, files, proc, log, started, signature)
        self.started_count += 1
        self._journal({"event": "start", "id": sid, "time": started, "repo": repo, "files": files,
                       "pid": proc.pid, "cmd": self.cmd})
        self._write_state()
        self.log(f"session {sid} started for {repo}: {' '.join(files)}")

    def _finish(self, s: Session, code: int, *, stopped: bool = False) -> None:
        del self.running[s.repo]
        self.last_exit = code
        self.ended[s.repo] = (frozenset(s.files), store_signature(self.svc.root))
        self._journal({"event": "end", "id": s.id, "time": _now(), "repo": s.repo, "files": s.files,
                       "exit_code": code, "stopped": stopped, "tail": _tail(s.log)})
        self._write_state()
        self.log(f"session {s.id} ended with exit code {code}" + (" (stopped by the loop)" if stopped else ""))

    def _reap(self) -> bool:
        done = [(s, code) for s in list(self.running.values()) if (code := s.proc.poll()) is not None]
        for s, code in done:
            self._finish(s, code)
        return bool(done)

    def _terminate_all(self) -> None:
        sessions = list(self.running.values())
        for s, code in zip(sessions, stop_sessions([s.proc for s in sessions], self.grace), strict=True):
            self._finish(s, code, stopped=True)

    def _fill(self, groups: dict[str, list[str]], signature: tuple) -> None:
        for repo, files in groups.items():
            if len(self.running) >= self.max_parallel or self.stop.is_set():
                return
            if repo in self.running:
                continue
            if self.ended.get(repo) == (frozenset(files), signature):
                continue  # ran for exactly this at this store state: wait for a change
            self._start(repo, files, signature)

    # -- the loop ----------------------------------------------------------------------

    def run(self, *, once: bool = False) -> int:
        self._acquire()
        handlers = {}
        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                handlers[sig] = signal.signal(sig, lambda *_a: self.stop.set())
        except ValueError:
            handlers = {}  # not the main thread (tests drive it from one): stop via .stop
        try:
            self._write_state()
            self.log(f"watching {self.svc.root} (at most {self.max_parallel} at once)")
            if once:
                self._run_once()
            else:
                self._run_forever()
        finally:
            self._terminate_all()
            self._release()
            for sig, h in handlers.items():
                signal.signal(sig, h)
        return 0

    def _run_once(self) -> None:
        self._maybe_pull()
        signature = store_signature(self.svc.root)
        todo = self.ready_groups()
        if not todo:
            self.log("nothing is ready")
        while (todo or self.running) and not self.stop.is_set():
            self._reap()
            for repo in [r for r in todo if r not in self.running]:
                if len(self.running) >= self.max_parallel:
                    break
                self._start(repo, todo.pop(repo), signature)
            self.stop.wait(self.interval)
        self._reap()

    def _maybe_pull(self) -> None:
        """Work filed on other machines arrives by pulling before a scan, as every read does
        (`store.freshen`: fast-forward only, bounded in time; at most once per pull interval;
        not with --skip-pull or a pull interval of 0)."""
        import time

        if not self.svc.pull_on_write or self.pull_interval <= 0:
            return
        now = time.monotonic()
        if self._last_pull is not None and now - self._last_pull < self.pull_interval:
            return
        self._last_pull = now
        from atk_tui.store.freshen import freshen

        found = freshen(self.svc.root, window=0)
        if found.stale:
            self.log(f"not pulled: {found.stale}")

    def _run_forever(self) -> None:
        seen: tuple | None = None
        while not self.stop.is_set():
            self._maybe_pull()
            freed = self._reap()
            signature = store_signature(self.svc.root)
            if (signature != seen or freed) and len(self.running) < self.max_parallel:
                try:
                    groups = self.ready_groups()
                except AtkError as exc:
                    self.log(f"could not read the store: {exc}")
                    groups = {}
                seen = signature
                self._fill(groups, signature)
            self.stop.wait(self.interval)
