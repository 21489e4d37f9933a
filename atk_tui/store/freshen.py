"""A read brings in what the remote has (SPEC §15): cheaply, bounded in time, never rewriting.

Before a read command answers, `freshen(root)` asks the remote whether its branch moved (one
`git ls-remote` of that ref: no objects), and only then fetches and fast-forwards. Within a
freshness window (`[git] read_window`, default 2 s) of the last look it does not ask again, so
an agent polling `atk wi show` every second costs the remote at most one round trip per window.
The round trip and the fetch each run under a time limit (`[git] read_timeout`, default 3 s);
a remote that is slow, dead or refuses leaves the local copy as it is, and the read answers
from it, saying why it may be stale.

A read never merges, never rebases, never touches uncommitted or unpushed work: it only
fast-forwards (`git merge --ff-only`, which refuses when an uncommitted file would be
overwritten), under the store lock, and not while any git operation is in progress. A clone
with unpushed commits is not fast-forwardable: the read says so (the next write rebases and
pushes them).

Only the standard library (and `host.regular` and `storesig`, themselves standard library only)
is imported here at module level: `atk wi list`'s warm path calls this before anything else is
imported.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from atk_tui.host.regular import open_regular, read_regular
from atk_tui.store.storesig import ref_text  # a new commit changes it: the window ends

SEEN_FILE = "atk-remote-seen.json"  # in .git: the last look at the remote


@dataclass(frozen=True)
class Freshness:
    """What a read's look at the remote found. `stale`: why the local copy may be behind the
    remote (None: it has what the remote had, or there is no remote). `asked`: the remote was asked (False within the window, or without one)."""

    stale: str | None = None
    asked: bool = False


def read_limits(cfg: dict | None = None) -> tuple[float, float]:
    """(window, timeout) in seconds: $ATK_READ_WINDOW / $ATK_READ_TIMEOUT, else the config
    file's `[git] read_window` / `read_timeout`, else 2 and 3 (`host.settings` declares them).
    A window of 0 asks every time."""
    from atk_tui.host.config import git_settings

    values = git_settings(cfg)
    return values["read_window"], values["read_timeout"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("GIT_INDEX_FILE", None)
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["LC_ALL"] = "C"
    # an ssh remote must fail, not ask for a password or a host key
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes -o ConnectTimeout=5")
    return env


class _TimedOut(Exception):
    pass


def _git(root: Path, *args: str, timeout: float | None = 30) -> subprocess.CompletedProcess[str]:
    """git in the store, in its own process group, killed with it after `timeout` s."""
    proc = subprocess.Popen(
        ["git", *args], cwd=root, env=_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, errors="surrogateescape", start_new_session=True,
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException as exc:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        if isinstance(exc, subprocess.TimeoutExpired):
            proc.communicate()
            raise _TimedOut from None
        proc.wait()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _reason(proc: subprocess.CompletedProcess[str], what: str) -> str:
    from atk_tui.store.remote import git_error_lines

    return f"{what}: {git_error_lines(proc.stderr or proc.stdout)}"


def _load_seen(path: Path) -> dict | None:
    try:
        fd = open_regular(path)  # a named pipe there must not hang a read (issue 38)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            seen = json.loads(f.read(4096))
    except (OSError, ValueError):
        return None
    return seen if isinstance(seen, dict) else None


def _save_seen(path: Path, seen: dict) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(seen, f)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _upstream(root: Path, git_dir: Path, seen: dict | None) -> tuple[str, str, str] | None:
    """(remote, its branch ref, the remote-tracking ref) of the checked-out branch, None
    without one (no remote, a detached HEAD). Kept in the seen file while .git/config and
    HEAD are as they were (one git process fewer per read)."""
    try:
        head = read_regular(git_dir / "HEAD", 4096).decode("utf-8", "replace").strip()
        config = (git_dir / "config").stat().st_mtime_ns
    except OSError:
        return None
    if not head.startswith("ref: refs/heads/"):
        return None
    stamp = f"{head}@{config}"
    known = seen.get("upstream") if seen else None
    if isinstance(known, list) and len(known) == 4 and known[0] == stamp:
        return (known[1], known[2], known[3]) if known[1] else None
    branch = head.removeprefix("ref: ")
    proc = _git(
        root, "for-each-ref", "--format=%(upstream:remotename)%00%(upstream:remoteref)%00%(upstream)", branch, timeout=10
    )
    parts = proc.stdout.strip().split("\0")
    found = (parts[0], parts[1], parts[2]) if proc.returncode == 0 and len(parts) == 3 and all(parts) else None
    if seen is not None:
        seen["upstream"] = [stamp, *(found or ("", "", ""))]
    return found


def _sha(root: Path, ref: str) -> str:
    """The commit `ref` names: read from its loose ref file or packed-refs, else asked of git."""
    git_dir = root / ".git"
    if ref == "HEAD":
        try:
            head = read_regular(git_dir / "HEAD", 4096).decode("utf-8", "replace").strip()
        except OSError:
            head = ""
        if len(head) == 40 and all(c in "0123456789abcdef" for c in head):
            return head
        ref = head.removeprefix("ref: ") if head.startswith("ref: refs/") else ""
    if ref.startswith("refs/") and ".." not in ref:
        try:
            value = read_regular(git_dir / ref, 4096).decode("utf-8", "replace").strip()
        except OSError:
            value = ""
        if len(value) == 40:
            return value
        try:
            with open(open_regular(git_dir / "packed-refs"), encoding="utf-8", errors="replace") as f:
                for line in f:
                    sha, _, name = line.rstrip("\n").partition(" ")
                    if name == ref and len(sha) == 40:
                        return sha
        except OSError:
            pass
    return _git(root, "rev-parse", "-q", "--verify", f"{ref or 'HEAD'}^{{commit}}", timeout=10).stdout.strip()


def freshen(root: Path | str, *, window: float | None = None, timeout: float | None = None, now: float | None = None) -> Freshness:
    """Bring in what the remote has before a read (see the module's doc). Never raises for
    a remote's failure: that is the `stale` reason."""
    root = Path(root)
    git_dir = root / ".git"
    if not git_dir.is_dir():
        return Freshness()
    if window is None or timeout is None:
        w, t = read_limits()
        window = w if window is None else window
        timeout = t if timeout is None else timeout
    seen_path = git_dir / SEEN_FILE
    now = time.time() if now is None else now
    seen = _load_seen(seen_path)
    if seen and window > 0 and 0 <= now - float(seen.get("at", 0) or 0) < window and seen.get("head") == ref_text(git_dir):
        return Freshness(stale=seen.get("stale") or None)
    seen = seen if seen is not None else {}
    try:
        found = _look(root, git_dir, timeout, seen)
    except _TimedOut:
        found = Freshness(stale=f"the remote did not answer within {timeout:g} s", asked=True)
    except OSError as exc:  # no git, a vanished store
        found = Freshness(stale=f"could not run git: {exc.strerror or exc}")
    seen.update(at=now, head=ref_text(git_dir), stale=found.stale)
    _save_seen(seen_path, seen)
    return found



def _look(root: Path, git_dir: Path, timeout: float, seen: dict) -> Freshness:
    up = _upstream(root, git_dir, seen)
    if up is None:
        return Freshness()
    remote, branch, tracking = up
    deadline = time.monotonic() + timeout
    proc = _git(root, "ls-remote", "--heads", remote, branch, timeout=timeout)
    if proc.returncode != 0:
        return Freshness(stale=_reason(proc, "could not reach the remote"), asked=True)
    there = next((ln.split()[0] for ln in proc.stdout.splitlines() if ln.split()[1:] == [branch]), "")
    here = _sha(root, tracking)
    if not there:
        return Freshness(stale=f"the remote has no branch {branch.removeprefix('refs/heads/')}", asked=True)
    if there != here:
        left = max(deadline - time.monotonic(), 0.5)
        proc = _git(root, "fetch", "-q", "--no-tags", remote, f"+{branch}:{tracking}", timeout=left)
        # (another read on this clone may have fetched the same tip meanwhile: git then fails
        # this fetch's ref update, and what it would have brought is there all the same)
        if proc.returncode != 0 and _sha(root, tracking) != there:
            return Freshness(stale=_reason(proc, "could not fetch from the remote"), asked=True)
    return _fast_forward(root, tracking)


def _fast_forward(root: Path, tracking: str) -> Freshness:
    """HEAD moved up to the remote-tracking ref when it is behind it and nothing is in the way."""
    if _sha(root, "HEAD") == _sha(root, tracking):
        return Freshness(asked=True)
    counts = _git(root, "rev-list", "--left-right", "--count", f"HEAD...{tracking}", timeout=30)
    try:
        ahead, behind = (int(n) for n in counts.stdout.split())
    except ValueError:
        return Freshness(stale="could not compare this clone with the remote", asked=True)
    if behind == 0:
        return Freshness(asked=True)
    if ahead:
        return Freshness(
            stale=(
                f"this clone has {ahead} commit{'s' if ahead != 1 else ''} the remote lacks and the remote has "
                f"{behind} this clone lacks; a read never rebases: the next write (or `atk wi commit`) brings them "
                "together and pushes"
            ),
            asked=True,
        )
    from atk_tui.domain.errors import AtkError
    from atk_tui.store.gitstate import git_state_problem
    from atk_tui.store.gitstore import GitStore

    try:
        store = GitStore(root)
        with store.locked(timeout=2):
            problem = git_state_problem(store)
            if problem:
                return Freshness(stale=f"not pulled: {problem}", asked=True)
            # under the lock: a writer may have moved HEAD meanwhile; --ff-only says so then
            proc = store.git("merge", "--ff-only", "-q", "--no-stat", tracking, check=False, env=store.read_env, timeout=60)
    except AtkError as exc:  # store busy: a writer is pulling anyway
        return Freshness(stale=f"not pulled: {exc}", asked=True)
    if proc.returncode != 0:
        said = f"{proc.stderr}\n{proc.stdout}"
        if "would be overwritten" in said:
            return Freshness(
                stale="not pulled: uncommitted changes in this clone touch files the remote changed (commit them with `atk wi commit`)",
                asked=True,
            )
        return Freshness(stale=_reason(proc, "could not fast-forward to the remote"), asked=True)
    return Freshness(asked=True)


_EARLIER: dict[str, Freshness] = {}


def freshen_once(root: Path | str, *, keep: bool = False) -> Freshness:
    """`freshen(root)`, or what an earlier call with `keep` found in this process: a warm
    `atk wi list` that falls through to the full command line looks at the remote (and
    warns) once."""
    key = str(root)
    found = _EARLIER.pop(key, None) or freshen(root)
    if keep:
        _EARLIER[key] = found
    return found


def stale_message(reason: str) -> str:
    """The one stderr line of a read that answered from a copy that may be stale."""
    return f"warning: the local copy may be stale ({reason}); showing what this clone has"


def with_stale(line: str, reason: str | None) -> str:
    """A JSON record line with the `stale` field added (unchanged when `reason` is None)."""
    if reason is None or not line.endswith("}"):
        return line
    return line[:-1] + (", " if len(line) > 2 else "") + '"stale": ' + json.dumps(reason, ensure_ascii=False) + "}"
