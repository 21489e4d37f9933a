"""One write: journal, apply, commit with plumbing on a copy of the index, roll back; a killed
write's journal rolled back (`recover`) (SPEC §9)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from atk_tui.domain.errors import AtkError, GitFailed, GitTimeout, Interrupted
from atk_tui.host.procs import ChildInterrupted, ChildTimeout
from atk_tui.host.regular import open_regular, read_regular
from atk_tui.store.files import (
    ZERO,
    _atomic_write,
    _b64_digest,
    _copy_file,
    _digest,
    _install_index,
    _journal_path_ok,
    _read_private,
    _restore_files,
    _stat_key,
    _write_private,
    b64decode,
    b64encode,
)
from atk_tui.store.gitstate import unmerged_paths, unmerged_problem

if TYPE_CHECKING:
    from atk_tui.store.gitstore import GitStore


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
        #: more `Key: value` trailer lines for the commit message, after `Atk-Actor` (the
        #: answer page's `Atk-Device: NAME`); the service checks their shape
        self.trailers: list[str] = []
        self._tmp_index = store.index_copy_path
        self._index_touched = False  # the real index is only written once HEAD has moved

    def _journal(self, rel: str, wrote: dict[str, str | None] | None = None) -> None:
        """Record `rel`'s original content (first time only) and what is about to be
        written (`wrote`: path -> SHA-256 or None), before anything changes on disk."""
        if wrote:
            self.wrote.update(wrote)
        if rel not in self.originals:
            path = self.root / rel
            try:
                fd = open_regular(path)  # never a named pipe planted in the store (issue 38)
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
        # An index whose tree this process knows (our last commit's, or the write's look at
        # it, `look_at_index`) needs no look, and the look's copy no second copy.
        copied_from = None
        if self.old_tree is not None:
            try:
                copied_from = _stat_key(index)
                if store.index_copy() != (copied_from, _stat_key(tmp) if os.path.lexists(tmp) else None):
                    if os.path.islink(tmp):
                        tmp.unlink()  # never write through a link out of .git
                    _copy_file(index, tmp)
            except OSError:
                copied_from = None
            known = store.clean_index()
            if copied_from is not None and known != (copied_from, self.old_tree):
                if known is not None and known[0] == copied_from:
                    staged = known[1]  # this very index holds that tree
                else:
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
            raise AtkError("nothing to change: the files are already as requested", code="unchanged")
        message = f"{subject}\n\nAtk-Actor: {actor}\n"
        agent_id = getattr(store, "agent_id", None)
        if actor == "agent" and agent_id:
            message += f"Atk-Agent: {agent_id}\n"  # who holds what it holds (service/core/holds.py)
        message += "".join(f"{line}\n" for line in self.trailers)
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


def look_at_index(store: GitStore) -> None:
    """A write's one look at the index before it changes anything: `git write-tree` on a
    copy of it (one git process over the whole index) both refuses unresolved conflicts
    (write-tree fails on an unmerged entry; `unmerged_paths` then names them, as
    `git_state_problem` does) and learns the tree the index holds (`clean_index`), which
    the commit compares with HEAD's instead of asking git again. The copy stays for the
    commit (`index_copy`)."""
    index, tmp = store.git_dir / "index", store.index_copy_path
    store._index_copy = None
    try:
        before = _stat_key(index)
        if os.path.islink(tmp):
            tmp.unlink()  # never write through a link out of .git
        _copy_file(index, tmp)
        same = _stat_key(index) == before  # not rewritten while it was copied
    except OSError:
        before, same = None, False  # no index yet (a new store), or none to read
    tree = None
    if before is not None:
        proc = store.git("write-tree", env=dict(store.env, GIT_INDEX_FILE=str(tmp)), check=False)
        tree = proc.stdout.strip() if proc.returncode == 0 else None
        tree = tree or None
    if tree is None:
        unmerged = unmerged_paths(store)
        if unmerged:
            raise AtkError(f"refused: {unmerged_problem(store, unmerged)}")
        return
    if same and before is not None:
        store._clean_index = (before, tree)
        try:
            store._index_copy = (before, _stat_key(tmp))
        except OSError:
            store._index_copy = None


def _hooks_dir(store: GitStore) -> Path:
    proc = store.git("config", "core.hooksPath", check=False)
    return _hooks_at(store, proc.stdout.strip())


def _hooks_at(store: GitStore, path: str) -> Path:
    """The hooks folder `core.hooksPath` = `path` names (git's own when empty)."""
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
    if store.on_activity is not None:
        store.on_activity(f"{name} hook")
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
    finally:
        if store.on_activity is not None:
            store.on_activity(None)
    if check and proc.returncode != 0:
        out = (proc.stderr or proc.stdout).strip()
        raise GitFailed(f"the {name} hook refused the commit (exit {proc.returncode})" + (f": {out}" if out else ""))


def recover(store: GitStore) -> bool:
    """Roll back a write that a killed process left half done. True when it did."""
    path = store.journal_path
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
    current = store.head()
    if new_head and current == new_head:
        # The commit landed; only the real index may lag behind it.
        store.git("update-index", "-q", "--add", "--remove", "-z", "--stdin", input="\0".join(files) + "\0", check=False)
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
            now = _digest(store.root / dst)
            if now is not None and now != wrote.get(dst):
                _atomic_write(store.root / src, read_regular(store.root / dst))
                (store.root / dst).unlink()
                files.pop(src)
                files.pop(dst)
        for rel in list(files):
            if rel in wrote and _digest(store.root / rel) not in (wrote[rel], _b64_digest(files[rel])):
                files.pop(rel)  # changed since the crash: keep it
    _restore_files(store.root, files)
    path.unlink(missing_ok=True)
    return True
