"""The git store (SPEC §3, §5, §9): layout, lock, atomic write-and-commit, pull/push.

Writes go through `GitStore.writing()`, which holds the store-wide lock, journals what it is
about to change, applies the change to the work tree, and commits with git plumbing on a copy
of the index (so a failure anywhere leaves the real index untouched). If anything fails the
journal puts every touched file back and HEAD where it was; a journal left by a process
killed mid-write is rolled back by the next writer. Every git child runs through
`procs.Children` with a time limit; commits use plumbing through `git` itself, an order of
magnitude faster than gitpython's pure-Python index on large stores (gitpython only reads
an item's history: service/history/githistory.py).
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from atk_tui.domain.errors import (
    AtkError,
    GitFailed,
    GitTimeout,
    Interrupted,
    NotAStore,
    StateConflict,
    StoreBusy,
)
from atk_tui.domain.model import StoreDefect
from atk_tui.domain.queues import QUEUES, queue_named
from atk_tui.host import flock
from atk_tui.host.procs import ChildInterrupted, Children, ChildTimeout, lock_is_held
from atk_tui.host.regular import read_regular
from atk_tui.store.files import (
    _stat_key,
)
from atk_tui.store.gitstate import _SHA, check_git_state, lock_timeout, wait_for_index_lock
from atk_tui.store.layout import LOCK_WAIT_MESSAGE, item_path, not_a_store_message, states_defect
from atk_tui.store.remote import Remote, WriteResult
from atk_tui.store.scan import LINK_DEFECT, FolderMemo, ScanResult, list_folder
from atk_tui.store.storesig import STAT_CHECK, Child
from atk_tui.store.transaction import Transaction, _hooks_at, _hooks_dir, look_at_index, recover


class GitStore:
    """A store on disk. Cheap to construct; every method talks to git or the files."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve()
        git_dir = self.root / ".git"
        try:
            found = git_dir.is_dir() and (self.root / "wi").is_dir()
        except OSError as exc:  # a name too long, a folder not to be read: a message, not a traceback
            raise NotAStore(f"{self.root} cannot be a store: {exc.strerror}") from None
        if not found:
            raise NotAStore(not_a_store_message(self.root))
        self.git_dir = git_dir
        #: seconds a writer waits for the store lock; None: $ATK_LOCK_TIMEOUT, else 10
        self.lock_timeout: float | None = None
        #: told LOCK_WAIT_MESSAGE when a write has to wait for the lock, then None when the
        #: wait is over (acquired or given up): front ends show it (stderr, the status line)
        self.on_lock_wait: Callable[[str | None], None] | None = None
        #: told what slow step a write runs now ("pre-commit hook"), then None once it is done:
        #: front ends show progress (the dashboard's spinner)
        self.on_activity: Callable[[str | None], None] | None = None
        self._env: dict[str, str] | None = None
        self._read_env: dict[str, str] | None = None
        self._hooks: tuple[object, Path] | None = None
        self._clean_index: tuple[tuple[int, ...], str] | None = None  # `clean_index`
        #: (stat of the index, stat of `index_copy_path`) when that copy is the index (`look_at_index`)
        self._index_copy: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        #: the last commit a write of this process made (a Ctrl-C after it says it is kept)
        self.made_commit: str | None = None
        self._repo = None
        #: an agent session's name (`ATK_AGENT_ID`): every agent commit carries it as an
        #: `Atk-Agent` trailer, so its holds are its own (service/core/holds.py)
        self.agent_id: str | None = None
        #: every child process the store runs right now (`interrupt()` kills them)
        self.children = Children()
        #: time limits of writes' children (see config.git_limits); read from the config file
        #: at the first write when not set
        self.limits: dict[str, float] | None = None
        #: the store against its remote: pull, push, set-aside conflicts (`store.remote`)
        self.remote = Remote(self)

    def limit(self, key: str) -> float:
        """A time limit in seconds: "timeout" (fetch/pull), "push_timeout" or "hook_timeout"."""
        if self.limits is None:
            from atk_tui.host.config import git_limits

            self.limits = git_limits()
        return self.limits[key]

    def interrupt(self) -> int:
        """Kill every child process this store runs now (git, hooks, with their process
        groups), so that a write blocked on one fails promptly and rolls back; until the next
        write starts, no new fetch/pull/push or hook starts. Returns how many were killed."""
        return self.children.interrupt()

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
            # one git process for the identity and where the hooks are (`hooks_dir`)
            try:
                config_key: object = _stat_key(self.git_dir / "config")
            except OSError:
                config_key = None
            found = self.git(
                "config", "-z", "--get-regexp", r"^(user\.(name|email)|core\.hookspath)$", check=False, env=env
            ).stdout
            keys: set[str] = set()
            hooks_path = ""
            for record in found.split("\0"):
                key, _, value = record.partition("\n")
                if key == "core.hookspath":
                    hooks_path = value.strip()  # the last one, as `git config core.hooksPath` says
                elif value.strip():
                    keys.add(key)
            if self._hooks is None:
                self._hooks = (config_key, _hooks_at(self, hooks_path))
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

    def blobs(self, specs: Sequence[str]) -> list[bytes | None]:
        """`git cat-file --batch` for `REV:PATH` specs: each object's exact bytes, None where
        there is no such blob. One git process (with the store's time limit) for them all."""
        if not specs:
            return []
        proc = self.git("cat-file", "--batch", check=False, env=self.read_env, input="\n".join(specs) + "\n")
        data = proc.stdout.encode("utf-8", "surrogateescape")  # lossless: git's bytes back
        out: list[bytes | None] = []
        pos = 0
        for _ in specs:
            nl = data.find(b"\n", pos)
            if nl < 0:
                out.append(None)
                continue
            header = data[pos:nl].split()
            pos = nl + 1
            if len(header) == 3 and header[1] == b"blob":
                size = int(header[2])
                out.append(data[pos : pos + size])
                pos += size + 1
            else:
                out.append(None)
        return out

    def blob_at(self, rev: str, path: str) -> bytes | None:
        """The file `path` (store-relative) as it was at commit `rev`, None when it did not exist."""
        return self.blobs([f"{rev}:{path}"])[0]

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
            text = read_regular(self.git_dir / "HEAD", 4096).decode("ascii").strip()
            if _SHA.fullmatch(text):
                return text  # detached
            if not text.startswith("ref: refs/heads/") or ".." in text:
                return None
            ref = text[5:]
            try:
                sha = read_regular(self.git_dir / ref, 4096).decode("ascii").strip()
                return sha if _SHA.fullmatch(sha) else None
            except FileNotFoundError:
                for line in read_regular(self.git_dir / "packed-refs").decode("ascii").splitlines():
                    if line.endswith(" " + ref) and _SHA.fullmatch(line[:40]):
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

    def clean_index(self) -> tuple[tuple[int, ...], str] | None:
        """(stat of the index file, tree) as `remember_clean_index` or `look_at_index` left
        them in this process: while the index file is that very file, it holds that tree and
        nothing else is staged. Kept in memory only (issue 25): a record in `.git` could be
        forged to pass a staged change off as clean, which the next write would then commit
        along with its own."""
        return self._clean_index

    @property
    def index_copy_path(self) -> Path:
        """Where a write builds its commit: a copy of the index (see `Transaction.commit`)."""
        return self.git_dir / "atk-index.tmp"

    def index_copy(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """(stat of the index, stat of `index_copy_path`) when `look_at_index` left a copy of
        that very index there: the commit starts from it instead of copying again."""
        return self._index_copy

    def remember_clean_index(self, tree: str) -> None:
        try:
            self._clean_index = (_stat_key(self.git_dir / "index"), tree)
        except OSError:
            self._clean_index = None

    def head_and_tree(self) -> tuple[str | None, str | None]:
        """HEAD's commit and tree in one call; (None, None) on an unborn branch."""
        proc = self.git("rev-parse", "HEAD^{commit}", "HEAD^{tree}", "--", check=False)
        parts = [x for x in proc.stdout.split() if x != "--"]
        if proc.returncode != 0 or len(parts) != 2:
            return None, None
        return parts[0], parts[1]

    def scan_all(
        self, states: Sequence[str] | None = None, queue: str = "wi", folders: FolderMemo | None = None
    ) -> ScanResult:
        """The item files of the given state folders (see `ScanResult`).

        Written for folders of tens of thousands of files: the per-name work stays in C
        (scandir's cached d_type, dict.fromkeys, one regex over a folder's names).

        `folders` (path -> what an earlier scan found there, see `FolderMemo`): a folder whose
        lstat is what it was then is not listed again (a name added, removed or renamed changes
        its mtime); this scan's trustworthy folders are put in it."""
        q = queue_named(queue)
        order = q.states
        top = q.folder
        if states is None:
            states = order
        names: dict[str, list[str]] = {}
        defects: list[StoreDefect] = []
        root = str(self.root)
        for state in states:
            link = self.state_dir_link(state, queue)
            if link:
                defects.append(StoreDefect(f"{top}/{state}", link))
                continue
            got = list_folder(os.path.join(root, top, state), f"{top}/{state}", folders)
            if got is not None:
                names[state] = got[0]
                defects += got[1]
        where: dict[str, str] = {}
        for state in reversed([s for s in order if s in names]):  # the first state in the queue's order wins
            where.update(dict.fromkeys(names[state], state))
        dups: dict[str, list[str]] = {}
        if len(where) != sum(map(len, names.values())):
            counts = Counter(n for listed in names.values() for n in listed)
            sets = {state: set(listed) for state, listed in names.items()}
            for name, n in counts.items():
                if n > 1:
                    dups[name] = [s for s in order if s in sets and name in sets[s]]
            for name, where_ in dups.items():
                defects.append(StoreDefect(name, states_defect(where_)))
        return ScanResult(names, where, dups, defects)

    def state_dir_link(self, state: str, queue: str = "wi") -> str | None:
        """Why the folder of `state` must not be read (a symbolic link: it may lead out of the
        store), or None. Links are never followed, wherever they lead."""
        top = queue_named(queue).folder
        for rel in (top, f"{top}/{state}"):
            if os.path.islink(os.path.join(self.root, rel)):
                return (
                    f"{rel} is a symbolic link; atk never reads through links (they can lead out of the "
                    f"store): replace it with a real folder (git rm {rel}, then mkdir {rel})"
                )
        return None

    def _present(self, state: str, filename: str, queue: str = "wi") -> bool:
        """An entry named `filename` in the state's folder (a symbolic link counts: it is
        there, as a defect), never looked for through a linked folder."""
        if self.state_dir_link(state, queue):
            return False
        path = self.root / item_path(state, filename, queue)
        try:
            st = os.lstat(path)
        except OSError:
            return False
        return stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)

    def stream(self, *args: str, timeout: float) -> Iterator[bytes]:
        """`git ARGS`'s output as it comes, a chunk at a time, then one empty chunk at its
        end; stopped (killed) when the caller stops reading or after `timeout` seconds. For a
        read that may end early (a walk back through the history). Errors end the stream."""
        try:
            child = subprocess.Popen(
                ["git", *args], cwd=self.root, env=self.read_env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )  # fmt: skip
        except OSError:
            return
        assert child.stdout is not None
        deadline = time.monotonic() + timeout
        try:
            while True:
                chunk = child.stdout.read1(1 << 16)
                yield chunk
                if not chunk or time.monotonic() > deadline:
                    return
        finally:
            if child.poll() is None:
                child.kill()
            child.stdout.close()
            child.wait()

    def locate(self, filename: str, queue: str = "wi") -> str | None:
        """The state `filename` is in, or None. Safe against path tricks."""
        for state in queue_named(queue).states:
            if self._present(state, filename, queue):
                return state
        return None

    def find(self, filename: str, queues: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """Every (queue, state) holding `filename`, over the given queues (default: all).
        Filenames are unique across the states of both queues: more than one is a store
        defect (SPEC §3)."""
        names = [q.name for q in QUEUES] if queues is None else list(queues)
        return [(q, s) for q in names for s in queue_named(q).states if self._present(s, filename, q)]

    def exists_anywhere(self, filename: str) -> bool:
        """Whether an item of that name exists in either queue (new names must not reuse it)."""
        return any(self.locate(filename, q.name) is not None for q in QUEUES)

    def read_bytes(self, state: str, filename: str, *, max_bytes: int | None = None, queue: str = "wi") -> bytes:
        """An item file's bytes (the first `max_bytes` when given). Refuses (AtkError) a file
        that is a symbolic link or lies in a linked folder: it could be anything outside the
        store (`/etc/passwd`)."""
        rel = item_path(state, filename, queue)
        link = self.state_dir_link(state, queue)
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

    def index_blobs_async(self, states: Sequence[str], queue: str = "wi") -> Callable[[], dict[str, str]]:
        """`index_blobs`, started now and collected by calling the result, so that git stats
        the work tree while the caller does other work. One git call: `ls-files -c -m -v`
        tags every index entry `H` and every entry that differs from its file `C`; an entry
        git is told not to look at (assume-unchanged: `h`, skip-worktree: `S`) has no blob
        here, its file may differ. Whatever the user's configuration, git compares every
        stat field (`storesig.STAT_CHECK`): a blob names the file's content for good."""
        dirs = [f"{queue_named(queue).folder}/{s}" for s in states]
        try:
            proc = Child(["git", *STAT_CHECK, "ls-files", "-z", "-s", "-c", "-m", "-v", "--", *dirs], str(self.root), self.read_env)
        except OSError:
            return dict

        def collect() -> dict[str, str]:
            out = proc.output(120)
            if out is None:
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

    @contextmanager
    def locked(self, timeout: float | None = None) -> Iterator[None]:
        if timeout is None:
            timeout = self.lock_timeout if self.lock_timeout is not None else lock_timeout()
        path = self.git_dir / "atk.lock"
        if os.path.islink(path):
            path.unlink()  # opening it would create or truncate whatever it points at
        waiting = False

        def wait() -> None:
            nonlocal waiting
            waiting = self.on_lock_wait is not None
            if waiting:
                self.on_lock_wait(LOCK_WAIT_MESSAGE.format(timeout=timeout))

        try:
            fd = flock.take(str(path), timeout, wait)
        except flock.LockTimeout:
            raise StoreBusy(
                f"store busy: another atk process has held the store lock for {timeout:g} s; try again"
            ) from None
        finally:
            if waiting and self.on_lock_wait is not None:
                self.on_lock_wait(None)
        try:
            self.children.reset()
            self.remote.recover_pull()
            recover(self)  # a write a killed process left half done, rolled back
            self.remote.hold_upstream(True)  # asked at most once per locked operation
            yield
        finally:
            self.remote.hold_upstream(False)
            flock.release(fd)

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
            check_git_state(self, unmerged=False)
            try:
                look_at_index(self)  # unresolved conflicts refused here
                wait_for_index_lock(self, lock_timeout)
                remote_down = pull and not self.remote.pull(result)
            except BaseException:
                self.index_copy_path.unlink(missing_ok=True)
                raise
            if remote_down:
                push = False  # the remote did not answer: do not wait for it a second time
            tx = Transaction(self, subject)
            try:
                yield tx
                if not tx.changed:
                    raise AtkError("nothing to change", code="unchanged")
                result.commit = self.made_commit = tx.commit(tx.subject, actor)
            except BaseException:
                tx.rollback()
                raise
            finally:
                tx.close()
            if push:
                self.remote.push(result)
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

    @property
    def journal_path(self) -> Path:
        return self.git_dir / "atk-journal.json"
