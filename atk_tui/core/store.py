"""The git store (SPEC §3, §5, §9): layout, lock, atomic write-and-commit, pull/push.

Writes go through `GitStore.writing()`, which holds the store-wide lock, journals what it is
about to change, applies the change to the work tree, and commits with git plumbing on a copy
of the index (so a failure anywhere leaves the real index untouched). If anything fails the
journal puts every touched file back and HEAD where it was; a journal left by a process
killed mid-write is rolled back by the next writer. gitpython is the read-side front
(remotes, config, history); commits use plumbing through `git` itself, which is an order of
magnitude faster than gitpython's pure-Python index on large stores.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .model import STATES, StoreDefect, is_valid_filename
from .procs import ChildInterrupted, Children, ChildTimeout, lock_is_held

# Imported when first used: `atk wi list` never writes, and every import is start-up time
# for an agent that runs `atk` many times.


def b64encode(data: bytes) -> bytes:
    import base64

    return base64.b64encode(data)


def b64decode(data: str, *, validate: bool = False) -> bytes:
    import base64

    return base64.b64decode(data, validate=validate)


def _copy_file(src: Path, dst: Path) -> None:
    import shutil

    shutil.copyfile(src, dst)

LOCK_TIMEOUT = 10.0
LOCK_TIMEOUT_ENV = "ATK_LOCK_TIMEOUT"
LOCK_WAIT_MESSAGE = "waiting for the store lock (another atk process is writing; giving up after {timeout:g} s)…"
PUSH_TRIES = 3
PULL_MARKER = "atk-pulling"
ZERO = "0" * 40
_SHA = re.compile(r"[0-9a-f]{40}")
_UNSET = object()
LINK_DEFECT = (
    "is a symbolic link; atk never follows links (they can lead out of the store): "
    "replace it with the file itself, or remove it"
)



def push_behind_remote(output: str) -> bool:
    """git refused the push only because the remote has commits we lack (`! [rejected] ...
    (fetch first)` / `(non-fast-forward)`): pulling and pushing again can help. A hook or a
    policy refusing it (`! [remote rejected] ... (pre-receive hook declined)`) cannot."""
    if "[remote rejected]" in output:
        return False
    return "(fetch first)" in output or "(non-fast-forward)" in output or "[rejected]" in output


def push_failure_reason(output: str) -> str:
    """git's own reason for a failed push, in one line: what the remote said (`remote: ...`
    lines: a hook's message) and the refusal (`[remote rejected] main -> main (pre-receive
    hook declined)`); else the last line that says something (not a `hint:`)."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    remote = [ln.removeprefix("remote:").strip() for ln in lines if ln.startswith("remote:")]
    remote = [ln for ln in remote if ln]
    refused = [ln.lstrip("! ").strip() for ln in lines if ln.startswith("!")]
    parts = remote + refused
    if parts:
        return "; ".join(parts)
    said = [ln for ln in lines if not ln.startswith("hint:")]
    return said[-1] if said else "push failed"

class AtkError(Exception):
    """An error with a message a person can act on. `exit_code` is the CLI's."""

    exit_code = 1
    #: a stable refusal code for programs (see `service.Outcome.code`); "" when none applies
    code = ""

    def __init__(self, message: str, *, exit_code: int | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return self.message


class StoreBusy(AtkError):
    code = "busy"


class StateConflict(AtkError):
    code = "state"


class NotAStore(AtkError):
    pass


class GitFailed(AtkError):
    pass


class GitTimeout(GitFailed):
    """A child process (git, a hook) ran past its time limit and was killed."""


class Interrupted(AtkError):
    """`GitStore.interrupt()` stopped the write's child processes (the dashboard is quitting)."""

    def __init__(self, message: str = "interrupted: the write was stopped; nothing was changed") -> None:
        super().__init__(message)


@dataclass
class ScanResult:
    """What the state folders hold."""

    names: dict[str, list[str]]  # state -> item filenames in that folder
    where: dict[str, str]  # filename -> its state (the first, in STATES order, for a duplicate)
    dups: dict[str, list[str]]  # filename -> every state it is in, when more than one
    defects: list[StoreDefect]


@dataclass
class WriteResult:
    commit: str | None = None
    pushed: bool | None = None  # None: no remote, or push skipped
    warnings: list[str] = field(default_factory=list)
    #: the subject of this write's commit when the rebase before its push dropped it because
    #: the remote already had the very same change (made on another machine meanwhile)
    superseded: str | None = None
    #: (sha, subject) of commits `push_pending` set aside as refs/atk/conflicts/<sha>
    set_aside: list[tuple[str, str]] = field(default_factory=list)


def lock_timeout() -> float:
    """How long a writer waits for the store lock: $ATK_LOCK_TIMEOUT seconds, else 10."""
    raw = os.environ.get(LOCK_TIMEOUT_ENV, "").strip()
    if raw:
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if value >= 0:
            return value
    return LOCK_TIMEOUT


_NAME_CHARS = re.compile(r"[A-Za-z0-9._\n-]*")


def _bad_names(names: list[str]) -> list[str]:
    """The names that break the item filename pattern (model.FILENAME_RE). The usual case,
    every name good, is decided with a few C-level passes over all of them at once (this
    runs on every listing, over every item of the store) instead of a match per name."""
    if not names:
        return []
    joined = "\n".join(names)
    if (
        joined.count("\n") == len(names) - 1  # no name has a newline of its own
        and _NAME_CHARS.fullmatch(joined)
        and joined[0] not in "._-"
        and "\n." not in joined
        and "\n_" not in joined
        and "\n-" not in joined
        and joined.endswith(".md")
        and joined.count(".md\n") == len(names) - 1
        and max(map(len, names)) <= 204
    ):
        return []
    return [n for n in names if not is_valid_filename(n) or "\n" in n]


def item_path(state: str, filename: str) -> str:
    """The store-relative path of an item; refuses anything that could leave the store."""
    if state not in STATES:
        raise AtkError(f"unknown state {state!r} (one of {', '.join(STATES)})", exit_code=2)
    if not is_valid_filename(filename):
        raise AtkError(
            f"bad filename {filename!r}: an item filename has no path parts and matches "
            "^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\\.md$",
            exit_code=2,
        )
    return f"wi/{state}/{filename}"


class GitStore:
    """A store on disk. Cheap to construct; every method talks to git or the files."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve()
        git_dir = self.root / ".git"
        if not git_dir.is_dir() or not (self.root / "wi").is_dir():
            raise NotAStore(
                f"{self.root} is not an atk store (no .git or no wi/ folder); run `atk init {self.root}`"
            )
        self.git_dir = git_dir
        #: seconds a writer waits for the store lock; None: $ATK_LOCK_TIMEOUT, else 10
        self.lock_timeout: float | None = None
        #: told LOCK_WAIT_MESSAGE when a write has to wait for the lock, then None when the
        #: wait is over (acquired or given up): front ends show it (stderr, the status line)
        self.on_lock_wait: Callable[[str | None], None] | None = None
        self._env: dict[str, str] | None = None
        self._read_env: dict[str, str] | None = None
        self._hooks: tuple[object, Path] | None = None
        self._upstream_memo: object = None  # (upstream,) while the lock is held
        self._repo = None
        #: every child process the store runs right now (`interrupt()` kills them)
        self.children = Children()
        #: time limits of writes' children (see config.git_limits); read from the config file
        #: at the first write when not set
        self.limits: dict[str, float] | None = None

    def limit(self, key: str) -> float:
        """A time limit in seconds: "timeout" (fetch/pull), "push_timeout" or "hook_timeout"."""
        if self.limits is None:
            from .config import git_limits

            self.limits = git_limits()
        return self.limits[key]

    def interrupt(self) -> int:
        """Kill every child process this store runs now (git, hooks, with their process
        groups), so that a write blocked on one fails promptly and rolls back; until the next
        write starts, no new fetch/pull/push or hook starts. Returns how many were killed."""
        return self.children.interrupt()

    # -- git plumbing ----------------------------------------------------------------

    @property
    def read_env(self) -> dict[str, str]:
        """The environment for git commands that only read (no identity needed)."""
        if self._read_env is None:
            env = dict(os.environ)
            env.pop("GIT_INDEX_FILE", None)
            env["GIT_TERMINAL_PROMPT"] = "0"
            env.setdefault("GIT_EDITOR", "true")
            env["LC_ALL"] = "C"
            self._read_env = env
        return self._read_env

    @property
    def env(self) -> dict[str, str]:
        """`read_env` plus a fallback identity when git has none configured (commits)."""
        if self._env is None:
            env = dict(self.read_env)
            found = self.git("config", "--get-regexp", r"^user\.(name|email)$", check=False, env=env).stdout
            keys = {line.split(" ", 1)[0] for line in found.splitlines() if " " in line and line.split(" ", 1)[1].strip()}
            name, email = "user.name" in keys, "user.email" in keys
            if not name:
                env.setdefault("GIT_AUTHOR_NAME", "atk")
                env.setdefault("GIT_COMMITTER_NAME", "atk")
            if not email:
                env.setdefault("GIT_AUTHOR_EMAIL", "atk@localhost")
                env.setdefault("GIT_COMMITTER_EMAIL", "atk@localhost")
            self._env = env
        return self._env

    def git(
        self,
        *args: str,
        check: bool = True,
        env: dict[str, str] | None = None,
        input: bytes | str | None = None,
        timeout: float | None = 120,
        slow: bool = False,
    ) -> subprocess.CompletedProcess[str]:
        """Run git in the store. Retries when another git process holds `index.lock`.

        Runs in its own process group, killed with it after `timeout` seconds (GitTimeout) or
        by `interrupt()` (Interrupted). `slow`: talks to a remote (refused after an interrupt)."""
        for attempt in range(20):
            try:
                # git speaks bytes: file names need not be UTF-8, so undecodable bytes are
                # carried through as surrogates instead of raising
                proc = self.children.run(
                    ["git", *args],
                    cwd=self.root,
                    env=env if env is not None else self.env,
                    input=input.decode("utf-8", "surrogateescape") if isinstance(input, bytes) else input,
                    timeout=timeout,
                    slow=slow,
                )
            except ChildTimeout:
                raise GitTimeout(f"git {args[0]} timed out after {timeout:g} s") from None
            except ChildInterrupted:
                raise Interrupted(f"interrupted: git {args[0]} was stopped") from None
            # `update-index -q` fails on a taken index.lock without saying so
            lock_busy = "index.lock" in proc.stderr or (
                not proc.stderr.strip() and (self.root / ".git" / "index.lock").exists()
            )
            if proc.returncode != 0 and lock_busy and attempt < 19:
                self._clear_stale_index_lock()
                time.sleep(0.05 * (attempt + 1))
                continue
            break
        if check and proc.returncode != 0:
            if lock_busy:
                raise GitFailed(
                    f"git {args[0]} failed: another git process is using the store ({self.git_dir / 'index.lock'} "
                    "is held by a running process); wait for it to finish, then retry"
                )
            raise GitFailed(f"git {args[0]} failed: {(proc.stderr or proc.stdout).strip()}")
        return proc

    def _clear_stale_index_lock(self) -> None:
        """An index.lock that no process holds belongs to a git process that died. Checked
        through /proc (open files, git processes working in the store), never guessed from
        the lock's age: a `git commit` running a slow hook keeps a lock for minutes."""
        lock = self.git_dir / "index.lock"
        try:
            if os.path.lexists(lock) and not lock_is_held(lock, self.root):
                lock.unlink()
        except OSError:
            pass

    @property
    def repo(self):  # gitpython Repo, imported lazily: it is slow to import
        if self._repo is None:
            import git

            self._repo = git.Repo(self.root)
        return self._repo

    def head(self) -> str | None:
        """HEAD's commit SHA, None on an unborn branch. Read from the ref files when they are
        plainly there (every listing and every refresh of the dashboard asks), else by git."""
        sha = self._head_from_files()
        if sha is not None:
            return sha
        proc = self.git("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False, env=self.read_env)
        return proc.stdout.strip() or None

    def _head_from_files(self) -> str | None:
        try:
            text = (self.git_dir / "HEAD").read_text(encoding="ascii").strip()
            if _SHA.fullmatch(text):
                return text  # detached
            if not text.startswith("ref: refs/heads/") or ".." in text:
                return None
            ref = text[5:]
            try:
                sha = (self.git_dir / ref).read_text(encoding="ascii").strip()
                return sha if _SHA.fullmatch(sha) else None
            except FileNotFoundError:
                with open(self.git_dir / "packed-refs", encoding="ascii") as fh:
                    for line in fh:
                        if line.rstrip("\n").endswith(" " + ref) and _SHA.fullmatch(line[:40]):
                            return line[:40]
        except (OSError, ValueError):
            pass
        return None  # unborn, or a layout this does not know (reftable): ask git

    def hooks_dir(self) -> Path:
        """Where git looks for hooks (`core.hooksPath`), asked again when .git/config changes."""
        try:
            key: object = _stat_key(self.git_dir / "config")
        except OSError:
            key = None
        if self._hooks is None or self._hooks[0] != key:
            self._hooks = (key, _hooks_dir(self))
        return self._hooks[1]

    @property
    def _index_state_path(self) -> Path:
        return self.git_dir / "atk-index-state.json"

    def clean_index(self) -> tuple[tuple[int, int, int], str] | None:
        """(stat of the index file, tree) as `remember_clean_index` left them: while the index
        file is that very file, it holds that tree and nothing else is staged."""
        try:
            data = json.loads(_read_private(self._index_state_path))
            return (tuple(data["index"]), data["tree"])  # type: ignore[return-value]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def remember_clean_index(self, tree: str) -> None:
        try:
            state = {"index": list(_stat_key(self.git_dir / "index")), "tree": tree}
            _write_private(self._index_state_path, json.dumps(state).encode())
        except OSError:
            pass

    def head_and_tree(self) -> tuple[str | None, str | None]:
        """HEAD's commit and tree in one call; (None, None) on an unborn branch."""
        proc = self.git("rev-parse", "HEAD^{commit}", "HEAD^{tree}", "--", check=False)
        parts = [x for x in proc.stdout.split() if x != "--"]
        if proc.returncode != 0 or len(parts) != 2:
            return None, None
        return parts[0], parts[1]

    def upstream(self) -> str | None:
        """The upstream branch (e.g. origin/main) when one is configured."""
        memo = self._upstream_memo
        if memo is not None and memo is not _UNSET:
            return memo[0]
        proc = self.git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}", check=False)
        found = proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else None
        if memo is _UNSET:
            self._upstream_memo = (found,)
        return found

    def unpushed(self) -> int:
        if not self.upstream():
            return 0
        proc = self.git("rev-list", "--count", "@{u}..HEAD", check=False)
        return int(proc.stdout.strip() or 0) if proc.returncode == 0 else 0

    # -- reading ---------------------------------------------------------------------

    def scan(self, states: Sequence[str] = STATES) -> tuple[dict[str, list[str]], list[StoreDefect]]:
        """Every file in the given state folders: filename -> states it is in."""
        res = self.scan_all(states)
        found = {name: [state] for name, state in res.where.items()}
        found.update(res.dups)
        return found, res.defects

    def scan_all(self, states: Sequence[str] = STATES) -> ScanResult:
        """The item files of the given state folders (see `ScanResult`).

        Written for folders of tens of thousands of files: the per-name work stays in C
        (scandir's cached d_type, dict.fromkeys, one regex over a folder's names)."""
        names: dict[str, list[str]] = {}
        defects: list[StoreDefect] = []
        root = str(self.root)
        for state in states:
            link = self.state_dir_link(state)
            if link:
                defects.append(StoreDefect(f"wi/{state}", link))
                continue
            try:
                with os.scandir(os.path.join(root, "wi", state)) as it:
                    entries = list(it)
            except (FileNotFoundError, NotADirectoryError):
                continue
            listed = [e.name for e in entries if e.is_file(follow_symlinks=False) and not e.name.startswith(".")]
            if len(listed) < len(entries):
                for e in entries:
                    if e.is_symlink():
                        defects.append(StoreDefect(f"wi/{state}/{e.name}", LINK_DEFECT))
                    elif not e.name.startswith(".") and not e.is_file(follow_symlinks=False):
                        defects.append(StoreDefect(
                            f"wi/{state}/{e.name}",
                            "is not a regular file (a folder, a pipe or a device; ignored): move it out of wi/",
                        ))
            for name in _bad_names(listed):
                defects.append(StoreDefect(f"wi/{state}/{name}", "filename breaks the item filename pattern"))
            names[state] = listed
        where: dict[str, str] = {}
        for state in reversed([s for s in STATES if s in names]):  # the first state in STATES order wins
            where.update(dict.fromkeys(names[state], state))
        dups: dict[str, list[str]] = {}
        if len(where) != sum(map(len, names.values())):
            counts = Counter(n for listed in names.values() for n in listed)
            sets = {state: set(listed) for state, listed in names.items()}
            for name, n in counts.items():
                if n > 1:
                    dups[name] = [s for s in STATES if s in sets and name in sets[s]]
            for name, where_ in dups.items():
                defects.append(StoreDefect(name, f"filename is in {len(where_)} states at once: {', '.join(where_)}"))
        return ScanResult(names, where, dups, defects)

    def state_dir_link(self, state: str) -> str | None:
        """Why the folder of `state` must not be read (a symbolic link: it may lead out of the
        store), or None. Links are never followed, wherever they lead."""
        for rel in ("wi", f"wi/{state}"):
            if os.path.islink(os.path.join(self.root, rel)):
                return (
                    f"{rel} is a symbolic link; atk never reads through links (they can lead out of the "
                    f"store): replace it with a real folder (git rm {rel}, then mkdir {rel})"
                )
        return None

    def _present(self, state: str, filename: str) -> bool:
        """An entry named `filename` in the state's folder (a symbolic link counts: it is
        there, as a defect), never looked for through a linked folder."""
        if self.state_dir_link(state):
            return False
        path = self.root / item_path(state, filename)
        try:
            st = os.lstat(path)
        except OSError:
            return False
        return stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)

    def locate(self, filename: str) -> str | None:
        """The state `filename` is in, or None. Safe against path tricks."""
        for state in STATES:
            if self._present(state, filename):
                return state
        return None

    def locate_all(self, filename: str) -> list[str]:
        """Every state `filename` is in: more than one is a store defect (SPEC §3)."""
        return [s for s in STATES if self._present(s, filename)]

    def read_bytes(self, state: str, filename: str, *, max_bytes: int | None = None) -> bytes:
        """An item file's bytes (the first `max_bytes` when given). Refuses (AtkError) a file
        that is a symbolic link or lies in a linked folder: it could be anything outside the
        store (`/etc/passwd`)."""
        rel = item_path(state, filename)
        link = self.state_dir_link(state)
        if link:
            raise AtkError(f"cannot read {rel}: {link}")
        try:
            # O_NONBLOCK: opening a named pipe planted in the store must not block
            fd = os.open(self.root / rel, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise AtkError(f"cannot read {rel}: {LINK_DEFECT}") from None
            raise
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise AtkError(f"cannot read {rel}: not a regular file")
            return fh.read() if max_bytes is None else fh.read(max_bytes)

    def check_inside(self, rel: str) -> None:
        """Refuse (AtkError) to change `rel` through a symbolic link: a linked state folder
        would take a write out of the store."""
        parts = rel.split("/")
        for i in range(1, len(parts)):
            sub = "/".join(parts[:i])
            if os.path.islink(os.path.join(self.root, sub)):
                raise AtkError(
                    f"refused: {sub} is a symbolic link and a write through it could leave the store; "
                    f"replace it with a real folder (git rm {sub}, then mkdir {sub})"
                )

    def index_blobs(self, states: Sequence[str]) -> dict[str, str]:
        """Store-relative path -> blob SHA, from the index, for files git tracks and that are
        unchanged in the work tree. Modified or untracked files are not in the result."""
        return self.index_blobs_async(states)()

    def index_blobs_async(self, states: Sequence[str]) -> Callable[[], dict[str, str]]:
        """`index_blobs`, started now and collected by calling the result, so that git stats
        the work tree while the caller does other work. One git call: `ls-files -c -m -t`
        tags every index entry `H` and every entry that differs from its file `C`."""
        dirs = [f"wi/{s}" for s in states]
        try:
            proc = subprocess.Popen(
                ["git", "ls-files", "-z", "-s", "-c", "-m", "-t", "--", *dirs],
                cwd=self.root,
                env=self.read_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            return dict

        def collect() -> dict[str, str]:
            try:
                out, _ = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
                return {}
            if proc.returncode != 0:
                return {}
            blobs: dict[str, str] = {}
            changed: list[str] = []
            # records: "<tag> <mode> <sha> <stage>\t<path>"
            for rec in out.decode("utf-8", "surrogateescape").split("\0"):
                if not rec:
                    continue
                meta, _, path = rec.partition("\t")
                if meta[0] == "H" and meta.endswith(" 0"):
                    blobs[path] = meta[9:49]
                else:
                    changed.append(path)
            for path in changed:
                blobs.pop(path, None)
            return blobs

        return collect

    # -- writing ---------------------------------------------------------------------

    @contextmanager
    def locked(self, timeout: float | None = None) -> Iterator[None]:
        from filelock import FileLock, Timeout  # only writers need it, and it is slow to import

        if timeout is None:
            timeout = self.lock_timeout if self.lock_timeout is not None else lock_timeout()
        path = self.git_dir / "atk.lock"
        if os.path.islink(path):
            path.unlink()  # opening it would create or truncate whatever it points at
        lock = FileLock(str(path), timeout=timeout)
        waiting = False
        try:
            try:
                lock.acquire(timeout=0)
            except Timeout:
                if timeout <= 0:
                    raise
                waiting = self.on_lock_wait is not None
                if waiting:
                    self.on_lock_wait(LOCK_WAIT_MESSAGE.format(timeout=timeout))
                lock.acquire()
        except Timeout:
            raise StoreBusy(
                f"store busy: another atk process has held the store lock for {timeout:g} s; try again"
            ) from None
        finally:
            if waiting and self.on_lock_wait is not None:
                self.on_lock_wait(None)
        try:
            self.children.reset()
            self._recover_pull()
            self.recover()
            self._upstream_memo = _UNSET  # asked at most once per locked operation
            yield
        finally:
            self._upstream_memo = None
            lock.release()

    @contextmanager
    def writing(
        self,
        subject: str,
        actor: str,
        *,
        pull: bool = True,
        push: bool = True,
        result: WriteResult | None = None,
        lock_timeout: float | None = None,
    ) -> Iterator[Transaction]:
        """One operation = one commit. Yields a `Transaction` to change files through;
        commits on a clean exit, rolls everything back on an exception."""
        result = result if result is not None else WriteResult()
        with self.locked(lock_timeout):
            self.check_git_state()
            self.wait_for_index_lock(lock_timeout)
            remote_down = pull and not self._pull(result)
            if remote_down:
                push = False  # the remote did not answer: do not wait for it a second time
            tx = Transaction(self, subject)
            try:
                yield tx
                if not tx.changed:
                    raise AtkError("nothing to change")
                result.commit = tx.commit(tx.subject, actor)
            except BaseException:
                tx.rollback()
                raise
            finally:
                tx.close()
            if push:
                self._push(result)
                if result.superseded:
                    raise StateConflict(
                        f"state conflict: another machine made the same change first ({result.superseded}); "
                        "nothing of yours was committed"
                    )
            else:
                result.pushed = None
                if remote_down:
                    result.pushed = False
                    result.warnings.append(
                        "the commit is kept locally (the remote did not answer); run `atk wi commit` to push it later"
                    )

    def _fingerprints(self, *log_args: str) -> set[tuple[str, str, str]]:
        """(subject, author, author date) of the commits `git log ARGS` lists: what a rebase
        keeps of a commit (its SHA changes)."""
        proc = self.git("log", "--format=%s%x00%an <%ae>%x00%ad", "--date=raw", *log_args, check=False)
        return {tuple(line.split("\0")) for line in proc.stdout.splitlines() if line.count("\0") == 2}  # type: ignore[misc]

    def _pull(self, result: WriteResult) -> bool:
        """Pull (rebase) before a write. False when the remote timed out (do not push then)."""
        if self._rebase_in_progress():
            # someone else's rebase (a write checks `git_state_problem` first; the dashboard's
            # periodic pull does not): never pull into it, nor abort it
            result.warnings.append("not pulling: " + (self.git_state_problem() or "a rebase is in progress"))
            return True
        if not self.upstream():
            return True
        try:
            proc = self._pull_rebase()
        except Interrupted:
            self._abort_rebase()
            raise
        except GitFailed as exc:
            self._abort_rebase()
            result.warnings.append(f"could not pull from the remote: {exc}")
            return not isinstance(exc, GitTimeout)
        if proc.returncode != 0:
            self._abort_rebase()
            msg = (proc.stderr or proc.stdout).strip().splitlines()
            result.warnings.append("could not pull from the remote: " + (msg[-1] if msg else "unknown error"))
            return True
        self._check_autostash(proc)
        return True

    def _pull_rebase(self) -> subprocess.CompletedProcess[str]:
        """`git pull --rebase --autostash` under the time limit, with a marker file saying a
        pull is under way: a writer killed during it leaves a rebase half done, which the next
        writer aborts (`_recover_pull`)."""
        marker = self.git_dir / PULL_MARKER
        _write_private(marker, str(os.getpid()).encode())
        try:
            return self.git("pull", "--rebase", "--autostash", "-q", check=False, timeout=self.limit("timeout"), slow=True)
        finally:
            marker.unlink(missing_ok=True)

    def _check_autostash(self, proc: subprocess.CompletedProcess[str]) -> None:
        """`git pull --autostash` exits 0 when putting the user's uncommitted edits back
        conflicts with what it pulled (it leaves unmerged files and keeps the edits in the
        stash). Never silent: refuse the write and say how to get the edits back."""
        said = f"{proc.stdout}\n{proc.stderr}"
        unmerged = self.unmerged_paths()
        if not unmerged and "autostash" not in said.lower():
            return
        if not unmerged and "conflict" not in said.lower():
            return
        files = ", ".join(unmerged[:5]) + (" …" if len(unmerged) > 5 else "") if unmerged else "your edited files"
        raise AtkError(
            "the pull before this write brought in changes that conflict with your uncommitted edits "
            f"({files}); your edits are kept in the stash (`git -C {self.root} stash list`). Resolve the "
            f"conflict in those files and `git add` them (or `git -C {self.root} checkout HEAD -- FILE` and "
            "`git stash pop` again), then retry; nothing was written"
        )

    # -- git-state guards ------------------------------------------------------------

    def unmerged_paths(self) -> list[str]:
        """Paths with an unresolved conflict in the index."""
        proc = self.git("ls-files", "-u", "-z", check=False, env=self.read_env)
        paths = {rec.partition("\t")[2] for rec in proc.stdout.split("\0") if "\t" in rec}
        return sorted(paths)

    def git_state_problem(self) -> str | None:
        """Why a write must not happen now (a git operation in progress, a detached HEAD,
        unresolved conflicts), with what to do; None when the store is fine to write."""
        g, where = self.git_dir, f"git -C {self.root}"
        if (g / "rebase-apply" / "applying").exists():
            return f"the store is in the middle of `git am`: finish or abort it first ({where} am --continue, or {where} am --abort), then retry"
        if (g / "rebase-merge").exists() or (g / "rebase-apply").exists():
            return (
                f"the store is in the middle of a rebase: finish or abort it first ({where} rebase --continue, "
                f"or {where} rebase --abort), then retry"
            )
        for head, op in (("MERGE_HEAD", "merge"), ("CHERRY_PICK_HEAD", "cherry-pick"), ("REVERT_HEAD", "revert")):
            if os.path.lexists(g / head):
                return (
                    f"the store is in the middle of a {op}: finish or abort it first ({where} {op} --continue, "
                    f"or {where} {op} --abort), then retry"
                )
        if (g / "sequencer").is_dir() and not os.path.islink(g / "sequencer"):
            return f"the store is in the middle of a cherry-pick or revert sequence: {where} cherry-pick --abort, then retry"
        try:
            head = (g / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            head = ""
        if _SHA.fullmatch(head):
            return (
                f"the store's HEAD is detached (at {head[:10]}): a write would be lost on the next checkout; "
                f"check out a branch first ({where} switch main, or the branch you use), then retry"
            )
        unmerged = self.unmerged_paths()
        if unmerged:
            names = ", ".join(unmerged[:5]) + (" …" if len(unmerged) > 5 else "")
            return (
                f"the store has unresolved conflicts ({names}): resolve them and `git add` the files "
                f"(or {where} checkout HEAD -- FILE to drop a change), then retry"
            )
        return None

    def wait_for_index_lock(self, timeout: float | None = None) -> None:
        """Before a write changes anything: wait (as for the store lock) while a live process
        holds git's `index.lock`, remove one no process holds, and refuse when it stays held,
        so that a write never fails half way (and rolls back) on someone else's git command."""
        lock = self.git_dir / "index.lock"
        if not os.path.lexists(lock):
            return
        if timeout is None:
            timeout = self.lock_timeout if self.lock_timeout is not None else lock_timeout()
        deadline = time.monotonic() + timeout
        while os.path.lexists(lock):
            if not lock_is_held(lock, self.root):
                try:
                    lock.unlink()
                except FileNotFoundError:
                    pass
                continue
            if time.monotonic() >= deadline:
                raise GitFailed(
                    f"another git process is using the store ({lock} is held by a running process); wait for it "
                    "to finish, then retry (nothing was changed)"
                )
            time.sleep(0.1)

    def check_git_state(self) -> None:
        """Refuse a write (AtkError, exit 1) when `git_state_problem()` names one."""
        problem = self.git_state_problem()
        if problem:
            raise AtkError(f"refused: {problem}")

    def _abort_rebase(self) -> None:
        if (self.git_dir / "rebase-merge").exists() or (self.git_dir / "rebase-apply").exists():
            self.git("rebase", "--abort", check=False)

    def _push(self, result: WriteResult) -> None:
        if not self.upstream():
            result.pushed = None
            return
        last = ""
        mine = next(iter(self._fingerprints("-1", result.commit)), None) if result.commit else None
        for _ in range(PUSH_TRIES):
            try:
                proc = self.git("push", "-q", check=False, timeout=self.limit("push_timeout"), slow=True)
            except Interrupted:
                last = "the push was interrupted; the commit is kept locally"
                break
            except GitTimeout:
                last = f"git push timed out after {self.limit('push_timeout'):g} s; the commit is kept locally"
                break
            except GitFailed as exc:
                last = str(exc)
                break
            if proc.returncode == 0:
                result.pushed = True
                return
            last = (proc.stderr or proc.stdout).strip()
            if not push_behind_remote(last):
                break  # refused by a hook or policy, or another failure: a rebase cannot help
            try:
                reb = self._pull_rebase()
            except (GitFailed, Interrupted) as exc:  # timed out or interrupted: the commit stays
                self._abort_rebase()
                last = f"{exc}; your commit is kept locally"
                break
            if reb.returncode != 0:
                self._abort_rebase()
                last = "rebase onto the remote hit a conflict; your commit is kept locally"
                break
            if mine and mine not in self._fingerprints("@{u}..HEAD"):
                # the rebase dropped our commit: the remote already had the same change
                result.superseded = mine[0]
                mine = None
        result.pushed = False
        n = self.unpushed()
        reason = push_failure_reason(last)
        result.warnings.append(
            f"{n} unpushed commit{'s' if n != 1 else ''} ({reason}); run `atk wi commit` to push later"
        )

    def push_pending(self, *, pull: bool = True) -> WriteResult:
        """`atk wi commit`: push commits that earlier writes could not push.

        The unpushed commits are rebased onto the remote one by one. One that conflicts with
        a change made on the remote meanwhile (two machines moved or edited the same item) is
        set aside, kept as `refs/atk/conflicts/<sha>` and named in a warning, and the rest is
        pushed: without that the clone could never push again (every later write would stack
        onto the same conflict)."""
        result = WriteResult()
        with self.locked():
            self.check_git_state()
            if not self.upstream():
                result.warnings.append("no remote with an upstream branch is configured; nothing to push")
                return result
            if pull:
                try:
                    self._rebase_setting_aside(result)
                except Interrupted:
                    self._abort_rebase()  # never leave our own rebase half done
                    raise
            self._push(result)
        return result

    def _rebase_setting_aside(self, result: WriteResult) -> None:
        try:
            fetch = self.git("fetch", "-q", check=False, timeout=self.limit("timeout"), slow=True)
        except GitFailed as exc:
            result.warnings.append(f"could not pull from the remote: {exc}")
            return
        if fetch.returncode != 0:
            msg = (fetch.stderr or fetch.stdout).strip().splitlines()
            result.warnings.append("could not pull from the remote: " + (msg[-1] if msg else "fetch failed"))
            return
        before = self._fingerprints("@{u}..HEAD")
        aside: set[tuple[str, str, str]] = set()
        proc = self.git("rebase", "-q", "--autostash", "@{u}", check=False, timeout=60)
        for _ in range(10_000):
            if proc.returncode == 0 or not self._rebase_in_progress():
                break
            stopped = self.git("rev-parse", "-q", "--verify", "REBASE_HEAD", check=False).stdout.strip()
            if not stopped:
                break
            subject = self.git("show", "-s", "--format=%s", stopped, check=False).stdout.strip()
            self.git("update-ref", f"refs/atk/conflicts/{stopped}", stopped)
            result.set_aside.append((stopped, subject))
            aside |= self._fingerprints("-1", stopped)
            result.warnings.append(
                f"set aside '{subject}' ({stopped[:10]}): it conflicts with a change made on the remote "
                f"meanwhile; kept as refs/atk/conflicts/{stopped} (see it with `git show {stopped[:10]}`)"
            )
            proc = self.git("rebase", "--skip", check=False, timeout=60)
        if self._rebase_in_progress():
            self._abort_rebase()
            msg = (proc.stderr or proc.stdout).strip().splitlines()
            result.warnings.append("could not rebase onto the remote: " + (msg[-1] if msg else "unknown error"))
            return
        for subject, _, _ in sorted(before - aside - self._fingerprints("@{u}..HEAD")):
            result.warnings.append(f"'{subject}' was already on the remote (another machine made the same change)")

    def _rebase_in_progress(self) -> bool:
        return (self.git_dir / "rebase-merge").exists() or (self.git_dir / "rebase-apply").exists()

    # -- crash recovery --------------------------------------------------------------

    @property
    def journal_path(self) -> Path:
        return self.git_dir / "atk-journal.json"

    def _recover_pull(self) -> None:
        """A writer killed during its pre-write pull left the marker, and maybe a rebase half
        done (and the user's autostashed edits in it): abort that rebase, which also puts the
        edits back. Runs under the store lock, so the marker's writer is gone."""
        marker = self.git_dir / PULL_MARKER
        try:
            started = os.lstat(marker).st_mtime
        except FileNotFoundError:
            return
        rebase = next((d for d in (self.git_dir / "rebase-merge", self.git_dir / "rebase-apply") if d.is_dir()), None)
        # only the rebase that pull made: it last changed while the pull could run. One the
        # user started later is theirs (the guard then refuses the write with what to do).
        if rebase is not None and rebase.stat().st_mtime <= started + self.limit("timeout") + 5:
            self._clear_stale_index_lock()
            self.git("rebase", "--abort", check=False)
        marker.unlink(missing_ok=True)

    def recover(self) -> bool:
        """Roll back a write that a killed process left half done. True when it did."""
        path = self.journal_path
        if not os.path.lexists(path):
            return False
        try:
            journal = json.loads(_read_private(path))
            files = journal["files"]
            new_head = journal.get("new_head")
            if not isinstance(files, dict) or not all(
                _journal_path_ok(rel) and (v is None or isinstance(v, str)) for rel, v in files.items()
            ):
                raise ValueError("bad journal")
            for v in files.values():
                if v is not None:
                    b64decode(v, validate=True)
        except (ValueError, KeyError, TypeError, OSError):
            path.unlink(missing_ok=True)
            return False
        current = self.head()
        if new_head and current == new_head:
            # The commit landed; only the real index may lag behind it.
            self.git("update-index", "-q", "--add", "--remove", "-z", "--stdin", input="\0".join(files) + "\0", check=False)
            path.unlink(missing_ok=True)
            return True
        # The commit did not land (HEAD only moves once `new_head` is journaled), so the real
        # index was never touched: put the files back and leave HEAD and the index alone. A
        # HEAD that moved since was moved by someone else; resetting it would lose their work.
        # A file changed again after the crash (the user edited it) is not put back: that
        # would discard the user's later edit. It stays as it is, uncommitted, for
        # `atk wi commit` (a moved one goes back to where it came from, with the edit).
        wrote = journal.get("wrote")
        if isinstance(wrote, dict):
            files = dict(files)
            moves = journal.get("moves")
            for pair in moves if isinstance(moves, list) else []:
                if not (isinstance(pair, list) and len(pair) == 2):
                    continue
                src, dst = pair
                if not (_journal_path_ok(src) and _journal_path_ok(dst)) or src not in files or dst not in files:
                    continue
                now = _digest(self.root / dst)
                if now is not None and now != wrote.get(dst):
                    _atomic_write(self.root / src, (self.root / dst).read_bytes())
                    (self.root / dst).unlink()
                    files.pop(src)
                    files.pop(dst)
            for rel in list(files):
                if rel in wrote and _digest(self.root / rel) not in (wrote[rel], _b64_digest(files[rel])):
                    files.pop(rel)  # changed since the crash: keep it
        _restore_files(self.root, files)
        path.unlink(missing_ok=True)
        return True


def _read_private(path: Path) -> bytes:
    """Read one of atk's own files in `.git` without following a symbolic link out of it."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def _write_private(path: Path, data: bytes) -> None:
    """Write one of atk's own files in `.git`: a symbolic link there is replaced, never followed."""
    if os.path.islink(path):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _journal_path_ok(rel: object) -> bool:
    """A journal only ever names item and plan files inside the store."""
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\\" in rel:
        return False
    parts = rel.split("/")
    return parts[0] in ("wi", "plans") and all(p not in ("", ".", "..") for p in parts) and ".git" not in parts


def _digest(path: Path) -> str | None:
    """SHA-256 of a file's bytes, None when there is no file."""
    import hashlib

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _b64_digest(content: str | None) -> str | None:
    import hashlib

    return None if content is None else hashlib.sha256(b64decode(content)).hexdigest()


def _restore_files(root: Path, files: dict[str, str | None]) -> None:
    for rel, content in files.items():
        parts = rel.split("/")
        if any(os.path.islink(os.path.join(root, *parts[:i])) for i in range(1, len(parts))):
            continue  # a folder became a symbolic link: never write through it
        target = root / rel
        if content is None:
            try:
                target.unlink()
            except FileNotFoundError:
                pass
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            _atomic_write(target, b64decode(content))


def _atomic_write(path: Path, data: bytes) -> None:
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".atk-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


class Transaction:
    """The changes of one write. Every touched path is journaled before it is changed."""

    def __init__(self, store: GitStore, subject: str = "atk: write") -> None:
        self.store = store
        self.subject = subject
        self.root = store.root
        self.old_head, self.old_tree = store.head_and_tree()
        self.originals: dict[str, str | None] = {}
        #: what this write put in each journaled path (SHA-256, None: no file), so that
        #: recovery can tell a file changed again after a crash from one it left half done
        self.wrote: dict[str, str | None] = {}
        self.moves: list[tuple[str, str]] = []
        self.changed: list[str] = []
        self._tmp_index = store.git_dir / "atk-index.tmp"
        self._index_touched = False  # the real index is only written once HEAD has moved

    def _journal(self, rel: str, wrote: dict[str, str | None] | None = None) -> None:
        """Record `rel`'s original content (first time only) and what is about to be
        written (`wrote`: path -> SHA-256 or None), before anything changes on disk."""
        if wrote:
            self.wrote.update(wrote)
        if rel not in self.originals:
            path = self.root / rel
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, "rb") as fh:
                    self.originals[rel] = b64encode(fh.read()).decode()
            except FileNotFoundError:
                self.originals[rel] = None
        elif not wrote:
            return
        self._write_journal()

    def _write_journal(self, new_head: str | None = None) -> None:
        data = {
            "head": self.old_head,
            "files": self.originals,
            "new_head": new_head,
            "wrote": self.wrote,
            "moves": self.moves,
        }
        tmp = self.store.journal_path.with_suffix(".tmp")
        _write_private(tmp, json.dumps(data).encode())
        os.replace(tmp, self.store.journal_path)

    def write(self, rel: str, data: bytes) -> None:
        self.store.check_inside(rel)
        import hashlib

        self._journal(rel, {rel: hashlib.sha256(data).hexdigest()})
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, data)
        self.changed.append(rel)

    def move(self, src: str, dst: str) -> None:
        self.store.check_inside(src)
        self.store.check_inside(dst)
        if os.path.lexists(self.root / dst):
            raise AtkError(f"cannot move: {dst} already exists")
        self.moves.append((src, dst))
        self._journal(src, {src: None, dst: _digest(self.root / src)})
        self._journal(dst)
        (self.root / dst).parent.mkdir(parents=True, exist_ok=True)
        os.rename(self.root / src, self.root / dst)
        self.changed += [src, dst]

    def include(self, rels: Sequence[str]) -> None:
        """Commit paths already changed in the work tree (not journaled: a failure must not
        undo the user's own edits)."""
        self.changed += list(rels)

    def delete(self, rel: str) -> None:
        self.store.check_inside(rel)
        self._journal(rel, {rel: None})
        (self.root / rel).unlink()
        self.changed.append(rel)

    def commit(self, subject: str, actor: str) -> str:
        """Commit exactly the changed paths on top of HEAD, with plumbing on a copy of the
        index, running the hooks `git commit` would run; then move HEAD and bring the real
        index up to date."""
        store = self.store
        paths = sorted(set(self.changed))
        stdin = "\0".join(paths) + "\0"
        index = store.git_dir / "index"
        tmp = self._tmp_index
        env = dict(store.env, GIT_INDEX_FILE=str(tmp))
        hooks = store.hooks_dir()
        # Start from a copy of the real index (it has the stat data that makes git fast on a
        # big store) unless it holds changes someone staged: those are not ours to commit.
        # An index that is still the one our last commit left needs no look (see `_clean`).
        copied_from = None
        if self.old_tree is not None:
            try:
                copied_from = _stat_key(index)
                if os.path.islink(tmp):
                    tmp.unlink()  # never write through a link out of .git
                _copy_file(index, tmp)
            except OSError:
                copied_from = None
            if copied_from is not None and store.clean_index() != (copied_from, self.old_tree):
                staged = store.git("write-tree", env=env, check=False).stdout.strip()
                if staged != self.old_tree:
                    copied_from = None
            if copied_from is None:
                tmp.unlink(missing_ok=True)
                store.git("read-tree", self.old_tree, env=env)
        else:
            tmp.unlink(missing_ok=True)
        store.git("update-index", "--add", "--remove", "-z", "--stdin", env=env, input=stdin)
        _run_hook(hooks, store, "pre-commit", [], env)
        tree = store.git("write-tree", env=env).stdout.strip()
        if tree == self.old_tree:
            raise AtkError("nothing to change: the files are already as requested")
        message = f"{subject}\n\nAtk-Actor: {actor}\n"
        msg_file = store.git_dir / "ATK_COMMIT_MSG"
        _write_private(msg_file, message.encode())
        _run_hook(hooks, store, "commit-msg", [str(msg_file)], env)
        args = ["commit-tree", tree, "-F", str(msg_file)]
        if self.old_head:
            args[2:2] = ["-p", self.old_head]
        new = store.git(*args, env=env).stdout.strip()
        self._write_journal(new_head=new)
        store.git("update-ref", "-m", subject, "HEAD", new, self.old_head or ZERO)
        self._index_touched = True
        if copied_from is not None and _install_index(tmp, index, copied_from):
            store.remember_clean_index(tree)
        else:
            store.git("update-index", "-q", "--add", "--remove", "-z", "--stdin", input=stdin)
        _run_hook(hooks, store, "post-commit", [], store.env, check=False)
        self.store.journal_path.unlink(missing_ok=True)
        self.originals = {}
        return new

    def rollback(self) -> None:
        if not self.originals:
            return
        _restore_files(self.root, self.originals)
        if self.old_head and self.store.head() != self.old_head:
            self.store.git("update-ref", "HEAD", self.old_head, check=False)
        if self._index_touched:
            # the real index is only touched after update-ref; refresh the touched paths from
            # disk. Before that it still holds exactly what it held: leave it alone (refreshing
            # would stage a user's uncommitted edits of those files).
            paths = "\0".join(self.originals) + "\0"
            self.store.git("update-index", "-q", "--add", "--remove", "-z", "--stdin", input=paths, check=False)
        self.store.journal_path.unlink(missing_ok=True)
        self.originals = {}

    def close(self) -> None:
        self._tmp_index.unlink(missing_ok=True)
        (self.store.git_dir / "ATK_COMMIT_MSG").unlink(missing_ok=True)


def _hooks_dir(store: GitStore) -> Path:
    proc = store.git("config", "core.hooksPath", check=False)
    path = proc.stdout.strip()
    if path:
        p = Path(path).expanduser()
        return p if p.is_absolute() else store.root / p
    return store.git_dir / "hooks"


def _run_hook(
    hooks: Path, store: GitStore, name: str, args: list[str], env: dict[str, str], *, check: bool = True
) -> None:
    """Run a git hook the way `git commit` would (we commit with plumbing, which does not)."""
    hook = hooks / name
    if not (hook.is_file() and os.access(hook, os.X_OK)):
        return
    limit = store.limit("hook_timeout")
    # its own process group and output to files (see procs): a hook's background child
    # neither keeps the write waiting nor outlives the time limit's kill of the group
    try:
        proc = store.children.run([str(hook), *args], cwd=store.root, env=env, timeout=limit, slow=True)
    except ChildTimeout:
        if not check:
            return  # post-commit: the commit is made; a stuck hook must not undo it
        raise GitTimeout(
            f"the {name} hook did not finish within {limit:g} s and was stopped; nothing was committed. "
            "Fix the hook, or raise `hook_timeout` in the [git] table of the atk config file"
        ) from None
    except ChildInterrupted:
        if not check:
            return
        raise Interrupted(f"interrupted: the {name} hook was stopped; nothing was committed") from None
    if check and proc.returncode != 0:
        out = (proc.stderr or proc.stdout).strip()
        raise GitFailed(f"the {name} hook refused the commit (exit {proc.returncode})" + (f": {out}" if out else ""))


def _stat_key(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)
    return st.st_ino, st.st_size, st.st_mtime_ns


def _install_index(new: Path, index: Path, expected: tuple[int, int, int]) -> bool:
    """Make `new` the real index the way git writes it (through `index.lock`), but only when
    the real index is still the one `new` was copied from. False: not done, use git."""
    lock = index.with_name("index.lock")
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except OSError:
        return False  # a git process is writing the index right now
    os.close(fd)
    try:
        if _stat_key(index) != expected:
            return False
        os.replace(new, lock)
        os.replace(lock, index)
        return True
    except OSError:
        return False
    finally:
        try:
            lock.unlink()
        except FileNotFoundError:
            pass


def init_store(path: Path | str) -> tuple[Path, bool]:
    """Make `path` a store. Returns (root, created); an existing store is left unchanged."""
    root = Path(path).expanduser().resolve()
    root.mkdir(parents=True, exist_ok=True)
    if (root / ".git").is_dir() and all((root / "wi" / s).is_dir() for s in STATES):
        return root, False
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
    for s in STATES:
        d = root / "wi" / s
        d.mkdir(parents=True, exist_ok=True)
        (d / ".gitkeep").touch()
    (root / "plans").mkdir(exist_ok=True)
    store = GitStore(root)
    store.git("add", "--", *[f"wi/{s}/.gitkeep" for s in STATES])
    store.git("commit", "-q", "-m", "atk: init store", "-m", "Atk-Actor: user", "--", *[f"wi/{s}/.gitkeep" for s in STATES])
    return root, True
