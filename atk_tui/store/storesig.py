"""The store as a judged listing sees it, as one digest (`ListingCache`'s key).

HEAD (and the ref it names), the index and packed-refs by stat; every folder the listing looks
at by lstat (a name added, removed or renamed changes its mtime); and the files of the folders
whose contents are listed:

- an active folder's by a stat record of each (`find`, in C);
- a terminal folder's (adopted, rejected: tens of thousands of files that hardly ever change) by
  git's word: `git diff-files` compares each tracked file's stat with the index's record of it
  (ctime included, so a file written in place and its mtime set back is seen; content compared
  where the record is racy), in C on its preload threads. What git does not vouch for -- files
  it does not track, entries it is told to skip (assume-unchanged, skip-worktree), unmerged
  entries and files that differ from the index -- is listed when the signature is first taken
  (`survey`) and stat-ed on every check: the "unvouched" paths. This is sound because the index
  and the folders are in the digest too: the same folder stat means the same names, the same
  index the same tracked entries and blobs, so every name that is not unvouched is a tracked
  file that git says is as the index has it. The index is stat-ed before git starts and again
  after it ends: git vouched against the index the digest names. (git compares change times
  to the second: a listing is saved only while the index is over 2 s old, `RACY_NS`,
  so a file written after it has a later second than the index's record of it.)

Without git (or when it fails, or too many paths would be unvouched) the terminal folders are
stat-ed like the active ones; the digest says which way it was taken, so a listing saved one
way is never taken for the other.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Callable, Iterable
from typing import Any

from atk_tui.host.regular import read_regular

#: (digest, newest stat time, the terminal folders' unvouched paths: None when they were stat-ed)
Signature = tuple[str, int, list[str] | None]
#: more unvouched paths than this: the terminal folders are stat-ed instead (about as fast,
#: and the listing's header stays small)
#: A stat time this close (ns) to the moment a signature is taken is not trusted: a file
#: written again within the file system's timestamp granularity could keep its mtime and size
#: (git's "racily clean" case). A listing whose signature has one is not saved.
RACY_NS = 2_000_000_000
MAX_UNVOUCHED = 2000
#: git's word that a file is as the index records it, whatever the user's configuration: no
#: file system monitor (a hook that could be wrong), the change time and every other stat
#: field compared (`GitStore.index_blobs_async` asks git so too)
STAT_CHECK = ("-c", "core.fsmonitor=false", "-c", "core.trustctime=true", "-c", "core.checkStat=default")
#: git as the proof runs it: and no untracked cache, pathspecs literal
_GIT = ("git", *STAT_CHECK, "-c", "core.untrackedCache=false", "--literal-pathspecs")
#: `find` lists a folder's entries with their stat in C (one process per folder, so two
#: cores share 60,000 files), where `os.scandir` + `stat` costs several times more. The
#: change time too: a file written in place and its mtime set back has a new one.
_FIND_FORMAT = "%f/%i/%s/%T@/%C@/%m/%y\\0"


def ref_text(git_dir: str | os.PathLike[str]) -> str:
    """HEAD and what it points at, read without running git (a new commit changes it)."""
    try:
        head = read_regular(os.path.join(git_dir, "HEAD"), 512).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    if head.startswith("ref: "):
        ref = head[5:]
        if ".." in ref:
            return head
        try:
            return head + ":" + read_regular(os.path.join(git_dir, ref), 128).decode("ascii", "replace").strip()
        except OSError:
            return head + ":packed"  # packed-refs' own stat is in the signature
    return head


def store_stamp(root: str | os.PathLike[str], dirs: Iterable[str]) -> tuple[str, int]:
    """Whether the store changed, cheaply: its commit (HEAD and the ref it names, read),
    git's index and packed-refs, and these folders (a name added, removed or renamed changes
    a folder's mtime), by lstat, as one digest; and the newest mtime in it. The dashboard's
    watcher, the hub and process-loop compare it (`service.reading.watch`); a listing's signature
    starts with it (`PendingSignature`) and adds its files' stat."""
    h = hashlib.blake2b(digest_size=20)
    newest = _stamp_into(h, os.fspath(root), dirs)
    return h.hexdigest(), newest


def _stamp_into(h: Any, root: str, dirs: Iterable[str]) -> int:
    """`store_stamp` fed to `h`; returns the newest mtime."""
    git_dir = os.path.join(root, ".git")
    h.update(ref_text(git_dir).encode())
    paths = [(rel, os.path.join(git_dir, rel)) for rel in ("index", "packed-refs")]
    paths += [(rel, os.path.join(root, rel)) for rel in dirs]
    return _hash_lstats(h, paths)


def _lstat_key(path: str) -> tuple[int, ...] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mode, st.st_mtime_ns, st.st_ctime_ns


class Child:
    """A process (git, `find`) started to run beside this one: its output goes to a file (an
    anonymous one in memory where the system has one), read once it has exited. Through a
    pipe it would stop at 64 KiB until this process read it: `find`'s 10,000 records
    (~0.6 MB) waited for a cached listing to be checked, instead of being made meanwhile."""

    def __init__(self, argv: list[str], root: str, env: dict[str, str]) -> None:
        if hasattr(os, "memfd_create"):
            self.out: Any = open(os.memfd_create("atk-signature", os.MFD_CLOEXEC), "w+b")  # noqa: SIM115
        else:
            import tempfile

            self.out = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            self.p = subprocess.Popen(argv, cwd=root, stdin=subprocess.DEVNULL, stdout=self.out, stderr=subprocess.DEVNULL, env=env)
        except BaseException:
            self.out.close()
            raise

    def output(self, timeout: float = 60) -> bytes | None:
        """What it printed, None when it failed (or took over `timeout` seconds)."""
        try:
            code = self._wait(timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            return None
        try:
            if code != 0:
                return None
            self.out.seek(0)
            return self.out.read()
        finally:
            self.out.close()

    def _wait(self, timeout: float) -> int:
        """Its exit code, as soon as it exits: `Popen.wait(timeout)` polls, sleeping up to
        50 ms between looks, where a process descriptor wakes this one at the exit."""
        if hasattr(os, "pidfd_open") and self.p.returncode is None:
            import select

            try:
                fd = os.pidfd_open(self.p.pid)
            except OSError:
                return self.p.wait(timeout=timeout)
            try:
                if not select.select([fd], [], [], timeout)[0]:
                    raise subprocess.TimeoutExpired(self.p.args, timeout)
            finally:
                os.close(fd)
        return self.p.wait(timeout=timeout)

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        self.out.close()


def _output(p: Child | None) -> bytes | None:
    """What `p` printed, None when it failed (or is None)."""
    return None if p is None else p.output()


def _stop(p: Child | None) -> None:
    if p is not None:
        p.stop()


def _git_env() -> dict[str, str]:
    """The caller's environment without git's own variables (`GIT_DIR`, `GIT_INDEX_FILE` and
    the like would point git elsewhere): git finds the store from its folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["LC_ALL"] = "C"
    return env


class PendingSignature:
    """A store signature being taken (`ListingCache.begin_signature`): what runs in other
    processes (`find`, git) is started here, so that the caller reads meanwhile; `finish`
    collects it. `git`: prove the terminal folders by git (see the module); `survey`: and
    list their unvouched paths (when the signature is first taken, before a listing is made)."""

    def __init__(self, root: str, content_dirs: list[str], name_dirs: list[str], terminal_dirs: list[str],
                 git: bool = True, survey: bool = False) -> None:  # fmt: skip
        self.root = root
        self.skipped: bytes | None = None  # the active folders' stats `finish` did not parse
        self.terminal = [d for d in content_dirs if d in terminal_dirs]
        self.active = [d for d in content_dirs if d not in self.terminal]
        self.survey = survey
        git_dir = os.path.join(root, ".git")
        index = os.path.join(git_dir, "index")
        # before git reads it (and before the digest's own stat of it): git must vouch
        # against the index the digest names
        self._index = index, _lstat_key(index)
        self._diff = self._ls = None
        proved = git and self.terminal and all(_real_dir(os.path.join(root, d)) for d in self.terminal)
        if proved:
            self._diff = self._git(["diff-files", "--name-only", "-z"])  # the long pole: first
        self._active = _find_stats(root, self.active)  # the folders are listed meanwhile
        self.h = hashlib.blake2b(digest_size=20)
        self.newest = _stamp_into(self.h, root, [*name_dirs, *content_dirs])
        if proved and survey and self._diff is not None:
            # after the folders' stat: a name it lists is one the digest's folder stat has
            self._ls = self._git(["ls-files", "-z", "-v", "-c", "-o", "--directory"])
            if self._ls is None:
                self._stop_git()

    def _git(self, args: list[str]) -> Child | None:
        try:
            return Child([*_GIT, *args, "--", *self.terminal], self.root, _git_env())
        except OSError:
            return None

    def _stop_git(self) -> None:
        _stop(self._diff)
        _stop(self._ls)
        self._diff = self._ls = None

    def cancel(self) -> None:
        """Stop what still runs (the signature is not wanted after all)."""
        self._stop_git()
        if self._active is not None:
            self._active()
            self._active = None

    def finish(self, unvouched: list[str] | None = None, with_newest: bool = True) -> Signature | None:
        """The signature (the newest stat time in it only `with_newest`: it costs a parse).
        `unvouched`: the paths the listing being checked was saved with (None: its terminal
        folders were stat-ed); ignored in a survey, which finds them. None when the store
        cannot be read this way (or its index changed meanwhile)."""
        collect, self._active = self._active, None
        listed = collect() if collect is not None else None
        if listed is None:
            listed = _scandir_stats(self.root, self.active)
        h, newest = self.h, self.newest
        h.update(listed)
        if with_newest:
            newest = max(newest, _newest_of(listed))
        if not self.terminal:
            self.cancel()
            self.skipped = None if with_newest else listed
            return h.hexdigest(), newest, None
        proved = self._proof(unvouched) if self.survey or unvouched is not None else None
        self.cancel()
        if proved is None:
            if unvouched is not None and not self.survey:
                return None  # saved with git's proof, which fails now: this way it cannot match
            terminal = _find_stats(self.root, self.terminal)
            stats = terminal() if terminal is not None else None
            if stats is None:
                stats = _scandir_stats(self.root, self.terminal)
            h.update(b"\0stat\0" + stats)
            if with_newest:
                newest = max(newest, _newest_of(stats))
            return h.hexdigest(), newest, None
        part, vnewest, paths = proved
        h.update(part)
        return h.hexdigest(), max(newest, vnewest), paths

    def completed(self, sig: Signature) -> Signature | None:
        """`sig`, as `finish(with_newest=False)` took it, with the newest stat time it skipped
        (what a listing made next needs: `ListingCache.signature_to_make`); None when that
        took more than the active folders' stat (git's proof: a survey must take it again)."""
        listed, self.skipped = self.skipped, None
        return None if listed is None else (sig[0], max(sig[1], self.newest, _newest_of(listed)), None)

    def _proof(self, unvouched: list[str] | None) -> tuple[bytes, int, list[str]] | None:
        """(what git's proof adds to the digest, the unvouched paths' newest mtime, the
        unvouched paths) or None when git failed or was not asked."""
        dirty = _output(self._diff)
        self._diff = None
        if dirty is None:
            return None
        if self.survey:
            listed = _output(self._ls)
            self._ls = None
            if listed is None:
                return None
            found = {rec[2:].rstrip(b"/") for rec in listed.split(b"\0") if rec and not rec.startswith(b"H ")}
            found.update(p for p in dirty.split(b"\0") if p)
            unvouched = sorted(p.decode("utf-8", "surrogateescape") for p in found)
            if len(unvouched) > MAX_UNVOUCHED:
                return None
        if unvouched is None or self._index[1] is None or _lstat_key(self._index[0]) != self._index[1]:
            return None  # the index changed while git read it
        h = hashlib.blake2b(digest_size=20)
        newest = 0
        for rel in unvouched:
            key = _lstat_key(os.path.join(self.root, rel))
            if key is not None:
                newest = max(newest, key[3])
            h.update(f"{rel} {key}\n".encode("utf-8", "surrogateescape"))
        return b"\0git\0" + dirty + b"\0\0" + h.digest(), newest, unvouched


def _real_dir(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


def _newest_of(listed: bytes) -> int:
    """The newest mtime of `_find_stats` records: "seconds.fraction" (find's %T@, or
    `_scandir_stats`') to ns, without float rounding. (The change time is only compared:
    it tells a write whose mtime was set back, where the mtime alone would not.)"""
    newest = 0
    for rec in listed.split(b"\0"):
        if rec and not rec.endswith(b" -"):
            sec, _, frac = rec.rsplit(b"/", 4)[1].partition(b".")
            newest = max(newest, int(sec) * 1_000_000_000 + int((frac + b"000000000")[:9]))
    return newest


def _find_stats(root: str, dirs: list[str]) -> Callable[[], bytes | None] | None:
    """Start listing every entry of `dirs` as name/inode/size/mtime(s)/mode/type records,
    NUL-separated; the result is collected by calling what this returns (None when `find`
    is not there or fails)."""
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    procs: list[Child | None] = []
    try:
        for rel in dirs:
            if not os.path.isdir(os.path.join(root, rel)):
                procs.append(None)
                continue
            procs.append(Child(["find", rel, "-mindepth", "1", "-maxdepth", "1", "-printf", _FIND_FORMAT], root, env))
    except OSError:
        for p in procs:
            _stop(p)
        return None

    def collect() -> bytes | None:
        outs, ok = [], True
        for rel, p in zip(dirs, procs, strict=True):
            if p is None:
                outs.append(f"{rel} -\0".encode("utf-8", "surrogateescape"))
                continue
            out = _output(p)
            ok = ok and out is not None
            outs.append(out or b"")
        return b"".join(outs) if ok else None

    return collect


def _scandir_stats(root: str, dirs: list[str]) -> bytes:
    """What `_find_stats` lists, without `find` (slower)."""
    parts: list[str] = []
    for rel in dirs:
        try:
            with os.scandir(os.path.join(root, rel)) as it:
                for e in it:
                    st = e.stat(follow_symlinks=False)
                    m, c = st.st_mtime_ns, st.st_ctime_ns
                    times = f"{m // 1_000_000_000}.{m % 1_000_000_000:09d}/{c // 1_000_000_000}.{c % 1_000_000_000:09d}"
                    parts.append(f"{e.name}/{st.st_ino}/{st.st_size}/{times}/{st.st_mode}/-")
        except OSError:
            parts.append(f"{rel} -")
    return "".join(p + "\0" for p in parts).encode("utf-8", "surrogateescape")


def dirs_signature(dirs: list[str]) -> tuple[str, int]:
    """(digest, newest mtime) of these folders' lstat."""
    h = hashlib.blake2b(digest_size=20)
    newest = _hash_lstats(h, [(d, d) for d in dirs])
    return h.hexdigest(), newest


def _hash_lstats(h: Any, paths: list[tuple[str, str]]) -> int:
    """Feed `h` a line per (name, path): the name and the path's lstat (inode, size, mode,
    mtime), or "name -" when there is none; return the newest mtime (0: none)."""
    newest = 0
    for name, path in paths:
        try:
            st = os.lstat(path)
        except OSError:
            h.update(f"{name} -\n".encode("utf-8", "surrogateescape"))
            continue
        newest = max(newest, st.st_mtime_ns)
        line = f"{name} {st.st_ino} {st.st_size} {st.st_mode} {st.st_mtime_ns}\n"
        h.update(line.encode("utf-8", "surrogateescape"))
    return newest
