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

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock, Timeout

from .model import STATES, StoreDefect, is_valid_filename

LOCK_TIMEOUT = 10.0
LOCK_TIMEOUT_ENV = "ATK_LOCK_TIMEOUT"
PUSH_TRIES = 3
ZERO = "0" * 40


class AtkError(Exception):
    """An error with a message a person can act on. `exit_code` is the CLI's."""

    exit_code = 1

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message


class StoreBusy(AtkError):
    pass


class StateConflict(AtkError):
    pass


class NotAStore(AtkError):
    pass


class GitFailed(AtkError):
    pass


@dataclass
class WriteResult:
    commit: str | None = None
    pushed: bool | None = None  # None: no remote, or push skipped
    warnings: list[str] = field(default_factory=list)


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
        self._env: dict[str, str] | None = None
        self._repo = None

    # -- git plumbing ----------------------------------------------------------------

    @property
    def env(self) -> dict[str, str]:
        if self._env is None:
            env = dict(os.environ)
            env.pop("GIT_INDEX_FILE", None)
            env["GIT_TERMINAL_PROMPT"] = "0"
            env.setdefault("GIT_EDITOR", "true")
            env["LC_ALL"] = "C"
            name = self.git("config", "user.name", check=False, env=env).stdout.strip()
            email = self.git("config", "user.email", check=False, env=env).stdout.strip()
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
    ) -> subprocess.CompletedProcess[str]:
        """Run git in the store. Retries when another git process holds `index.lock`."""
        for attempt in range(20):
            try:
                # git speaks bytes: file names need not be UTF-8, so undecodable bytes are
                # carried through as surrogates instead of raising
                proc = subprocess.run(
                    ["git", *args],
                    cwd=self.root,
                    env=env if env is not None else self.env,
                    input=input.decode("utf-8", "surrogateescape") if isinstance(input, bytes) else input,
                    capture_output=True,
                    encoding="utf-8",
                    errors="surrogateescape",
                    timeout=timeout,
                )
            except subprocess.TimeoutExpired:
                raise GitFailed(f"git {args[0]} did not finish within {timeout:g} s") from None
            if proc.returncode != 0 and "index.lock" in proc.stderr and attempt < 19:
                self._clear_stale_index_lock()
                time.sleep(0.05 * (attempt + 1))
                continue
            break
        if check and proc.returncode != 0:
            raise GitFailed(f"git {args[0]} failed: {(proc.stderr or proc.stdout).strip()}")
        return proc

    def _clear_stale_index_lock(self) -> None:
        """An index.lock older than 30 s belongs to a git process that died."""
        lock = self.git_dir / "index.lock"
        try:
            if time.time() - lock.stat().st_mtime > 30:
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
        proc = self.git("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False)
        return proc.stdout.strip() or None

    def upstream(self) -> str | None:
        """The upstream branch (e.g. origin/main) when one is configured."""
        proc = self.git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}", check=False)
        return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else None

    def unpushed(self) -> int:
        if not self.upstream():
            return 0
        proc = self.git("rev-list", "--count", "@{u}..HEAD", check=False)
        return int(proc.stdout.strip() or 0) if proc.returncode == 0 else 0

    # -- reading ---------------------------------------------------------------------

    def scan(self, states: Sequence[str] = STATES) -> tuple[dict[str, list[str]], list[StoreDefect]]:
        """Every file in the given state folders: filename -> states it is in."""
        found: dict[str, list[str]] = {}
        defects: list[StoreDefect] = []
        for state in states:
            folder = self.root / "wi" / state
            try:
                entries = list(os.scandir(folder))
            except FileNotFoundError:
                continue
            for entry in entries:
                name = entry.name
                if name.startswith(".") or not entry.is_file(follow_symlinks=False):
                    if entry.is_symlink():
                        defects.append(StoreDefect(f"wi/{state}/{name}", "is a symbolic link (ignored)"))
                    continue
                found.setdefault(name, []).append(state)
                if not is_valid_filename(name):
                    defects.append(StoreDefect(f"wi/{state}/{name}", "filename breaks the item filename pattern"))
        for name, where in found.items():
            if len(where) > 1:
                defects.append(StoreDefect(name, f"filename is in {len(where)} states at once: {', '.join(where)}"))
        return found, defects

    def locate(self, filename: str) -> str | None:
        """The state `filename` is in, or None. Safe against path tricks."""
        for state in STATES:
            if (self.root / item_path(state, filename)).is_file():
                return state
        return None

    def read_bytes(self, state: str, filename: str) -> bytes:
        return (self.root / item_path(state, filename)).read_bytes()

    def index_blobs(self, states: Sequence[str]) -> dict[str, str]:
        """Store-relative path -> blob SHA, from the index, for files git tracks and that are
        unchanged in the work tree. Modified or untracked files are not in the result."""
        dirs = [f"wi/{s}" for s in states]
        proc = self.git("ls-files", "-s", "-z", "--", *dirs, check=False)
        blobs: dict[str, str] = {}
        if proc.returncode != 0:
            return blobs
        for rec in proc.stdout.split("\0"):
            if not rec:
                continue
            meta, _, path = rec.partition("\t")
            parts = meta.split()
            if len(parts) == 3 and parts[2] == "0":
                blobs[path] = parts[1]
        if blobs:
            dirty = self.git("diff-files", "--name-only", "-z", "--", *dirs, check=False).stdout
            for path in dirty.split("\0"):
                blobs.pop(path, None)
        return blobs

    # -- writing ---------------------------------------------------------------------

    @contextmanager
    def locked(self, timeout: float | None = None) -> Iterator[None]:
        if timeout is None:
            timeout = self.lock_timeout if self.lock_timeout is not None else lock_timeout()
        lock = FileLock(str(self.git_dir / "atk.lock"), timeout=timeout)
        try:
            lock.acquire()
        except Timeout:
            raise StoreBusy(
                f"store busy: another atk process has held the store lock for {timeout:g} s; try again"
            ) from None
        try:
            self.recover()
            yield
        finally:
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
            if pull:
                self._pull(result)
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
            else:
                result.pushed = None

    def _pull(self, result: WriteResult) -> None:
        if not self.upstream():
            return
        try:
            proc = self.git("pull", "--rebase", "--autostash", "-q", check=False, timeout=60)
        except GitFailed as exc:
            self._abort_rebase()
            result.warnings.append(f"could not pull from the remote: {exc}")
            return
        if proc.returncode != 0:
            self._abort_rebase()
            msg = (proc.stderr or proc.stdout).strip().splitlines()
            result.warnings.append("could not pull from the remote: " + (msg[-1] if msg else "unknown error"))

    def _abort_rebase(self) -> None:
        if (self.git_dir / "rebase-merge").exists() or (self.git_dir / "rebase-apply").exists():
            self.git("rebase", "--abort", check=False)

    def _push(self, result: WriteResult) -> None:
        if not self.upstream():
            result.pushed = None
            return
        last = ""
        for _ in range(PUSH_TRIES):
            try:
                proc = self.git("push", "-q", check=False, timeout=60)
            except GitFailed as exc:
                last = str(exc)
                break
            if proc.returncode == 0:
                result.pushed = True
                return
            last = (proc.stderr or proc.stdout).strip()
            rejected = "rejected" in last or "fetch first" in last or "non-fast-forward" in last
            if not rejected:
                break
            try:
                reb = self.git("pull", "--rebase", "--autostash", "-q", check=False, timeout=60)
            except GitFailed as exc:
                reb = subprocess.CompletedProcess([], 1, "", str(exc))
            if reb.returncode != 0:
                self._abort_rebase()
                last = "rebase onto the remote hit a conflict; your commit is kept locally"
                break
        result.pushed = False
        n = self.unpushed()
        reason = last.splitlines()[-1] if last else "push failed"
        result.warnings.append(
            f"{n} unpushed commit{'s' if n != 1 else ''} ({reason}); run `atk wi commit` to push later"
        )

    def push_pending(self, *, pull: bool = True) -> WriteResult:
        """`atk wi commit`: push commits that earlier writes could not push."""
        result = WriteResult()
        with self.locked():
            if not self.upstream():
                result.warnings.append("no remote with an upstream branch is configured; nothing to push")
                return result
            if pull:
                self._pull(result)
            self._push(result)
        return result

    # -- crash recovery --------------------------------------------------------------

    @property
    def journal_path(self) -> Path:
        return self.git_dir / "atk-journal.json"

    def recover(self) -> bool:
        """Roll back a write that a killed process left half done. True when it did."""
        path = self.journal_path
        if not path.exists():
            return False
        try:
            journal = json.loads(path.read_text())
            files = journal["files"]
            new_head = journal.get("new_head")
            if not isinstance(files, dict) or not all(
                _journal_path_ok(rel) and (v is None or isinstance(v, str)) for rel, v in files.items()
            ):
                raise ValueError("bad journal")
            for v in files.values():
                if v is not None:
                    base64.b64decode(v, validate=True)
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
        _restore_files(self.root, files)
        path.unlink(missing_ok=True)
        return True


def _journal_path_ok(rel: object) -> bool:
    """A journal only ever names item and plan files inside the store."""
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\\" in rel:
        return False
    parts = rel.split("/")
    return parts[0] in ("wi", "plans") and all(p not in ("", ".", "..") for p in parts) and ".git" not in parts


def _restore_files(root: Path, files: dict[str, str | None]) -> None:
    for rel, content in files.items():
        target = root / rel
        if content is None:
            try:
                target.unlink()
            except FileNotFoundError:
                pass
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            _atomic_write(target, base64.b64decode(content))


def _atomic_write(path: Path, data: bytes) -> None:
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
        self.old_head = store.head()
        self.originals: dict[str, str | None] = {}
        self.changed: list[str] = []
        self._tmp_index = store.git_dir / "atk-index.tmp"
        self._index_touched = False  # the real index is only written once HEAD has moved

    def _journal(self, rel: str) -> None:
        if rel in self.originals:
            return
        path = self.root / rel
        try:
            self.originals[rel] = base64.b64encode(path.read_bytes()).decode()
        except FileNotFoundError:
            self.originals[rel] = None
        self._write_journal()

    def _write_journal(self, new_head: str | None = None) -> None:
        data = {"head": self.old_head, "files": self.originals, "new_head": new_head}
        tmp = self.store.journal_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, self.store.journal_path)

    def write(self, rel: str, data: bytes) -> None:
        self._journal(rel)
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, data)
        self.changed.append(rel)

    def move(self, src: str, dst: str) -> None:
        if (self.root / dst).exists():
            raise AtkError(f"cannot move: {dst} already exists")
        self._journal(src)
        self._journal(dst)
        (self.root / dst).parent.mkdir(parents=True, exist_ok=True)
        os.rename(self.root / src, self.root / dst)
        self.changed += [src, dst]

    def include(self, rels: Sequence[str]) -> None:
        """Commit paths already changed in the work tree (not journaled: a failure must not
        undo the user's own edits)."""
        self.changed += list(rels)

    def delete(self, rel: str) -> None:
        self._journal(rel)
        (self.root / rel).unlink()
        self.changed.append(rel)

    def commit(self, subject: str, actor: str) -> str:
        store = self.store
        paths = sorted(set(self.changed))
        index = store.git_dir / "index"
        if index.exists():
            shutil.copyfile(index, self._tmp_index)
        else:
            self._tmp_index.unlink(missing_ok=True)
        env = dict(store.env, GIT_INDEX_FILE=str(self._tmp_index))
        stdin = "\0".join(paths) + "\0"
        store.git("update-index", "--add", "--remove", "-z", "--stdin", env=env, input=stdin)
        _run_hook(store, "pre-commit", [], env)
        tree = store.git("write-tree", env=env).stdout.strip()
        if self.old_head:
            old_tree = store.git("rev-parse", f"{self.old_head}^{{tree}}").stdout.strip()
            if old_tree == tree:
                raise AtkError("nothing to change: the files are already as requested")
        message = f"{subject}\n\nAtk-Actor: {actor}\n"
        msg_file = store.git_dir / "ATK_COMMIT_MSG"
        msg_file.write_text(message)
        _run_hook(store, "commit-msg", [str(msg_file)], env)
        args = ["commit-tree", tree, "-F", str(msg_file)]
        if self.old_head:
            args[2:2] = ["-p", self.old_head]
        new = store.git(*args, env=env).stdout.strip()
        self._write_journal(new_head=new)
        store.git("update-ref", "-m", subject, "HEAD", new, self.old_head or ZERO)
        self._index_touched = True
        store.git("update-index", "-q", "--add", "--remove", "-z", "--stdin", input=stdin)
        _run_hook(store, "post-commit", [], store.env, check=False)
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


def _run_hook(store: GitStore, name: str, args: list[str], env: dict[str, str], *, check: bool = True) -> None:
    """Run a git hook the way `git commit` would (we commit with plumbing, which does not)."""
    hook = _hooks_dir(store) / name
    if not (hook.is_file() and os.access(hook, os.X_OK)):
        return
    proc = subprocess.run([str(hook), *args], cwd=store.root, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        out = (proc.stderr or proc.stdout).strip()
        raise GitFailed(f"the {name} hook refused the commit (exit {proc.returncode})" + (f": {out}" if out else ""))


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
