#!/usr/bin/env python3
"""Fault injection: crashes, failing disks, broken caches, stale locks, lost remotes.

    python bench/faults.py [--only NAME[,NAME...]] [--keep]

Each scenario builds its own small store in a temporary directory, breaks something on
purpose and checks that the store is consistent afterwards and the next operation works.
tests/soak/test_faults.py runs the same scenarios (`SCENARIOS`).

How the faults are made (all deterministic, none depends on timing):

* kill -9 mid-write: the writer is a real subprocess; a git hook (pre-commit, post-commit) or a
  `git` shim on PATH that hangs at one plumbing step (e.g. the index update right after
  `update-ref`) touches a marker file and sleeps; the writer is killed once the marker exists.
* disk full: a `git` shim fails one step (`commit-tree`, `update-ref`, the index update after
  `update-ref`) once with "No space left on device", or the pre-commit hook exits 1. (Making
  `.git/objects` read-only does not work here: CI runs as root, which ignores permissions.)
* the remote: `origin` is pointed at a path that does not exist, then restored.
* the dashboard: `make_app` on a store, driven with Textual's Pilot, while `.git/objects` is
  moved away or service calls raise.
* hostile git states and stuck children (issue 10): a store mid-rebase/merge/cherry-pick, a
  detached HEAD, an old `index.lock` a live process (or a running `git commit -a`) holds, a
  pre-commit hook that sleeps or leaves a background child, a remote whose upload-pack,
  receive-pack or ssh command sleeps, `Service.interrupt()` and SIGTERM during a stuck hook,
  a writer killed mid pull-rebase, an autostash conflict, a committed linked state folder.
  Time limits are set small through the config file (`[git] hook_timeout = 1`); a scenario
  whose fix is missing waits on its child's hour-long sleep instead.
* the person's decisions (issue 25, `DECISION_ATTACKS`, also run by tests/soak/test_hostile_corpus.py):
  a bare remote rewound under a pushed answer (`update-ref`), an agent's `conflicts apply
  --theirs` on the person's set-aside answer, an agent's hand `git mv` + `commit`, and the
  person's `atk wi commit` over an agent's uncommitted hand-written answer.
* what an agent's own git, a crafted conflict, a named pipe or a flood of output could do (issue
  38, `ROUND3_ATTACKS`): a hand commit pushed by atk, an agent's own conflict ref, named pipes
  in `.git`, gh printing without end or 200,000 levels deep.
* a web page driving `atk-tui --serve` (issue 25): the real server, and the requests a foreign
  page or a rebound DNS name could make (tests/support/serve.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from atk_tui.cache import files as cache_files
from atk_tui.cache.caches import RECORD, ItemCache
from atk_tui.service import Service
from atk_tui.store import AtkError, GitStore, init_store
from support.environ import patched_environ

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
REAL_GIT = shutil.which("git") or "/usr/bin/git"
WAIT = 60.0  # seconds to wait for a marker before giving up (never hit when all is well)

AWI = """# Make the importer retry

- 反映内容: retry three times
- 反映先: acme/api importer
- 理由: flaky network
- メリット: fewer pages
- デメリット: slower failures
- 完成条件: test for the retry
"""
UWI = """# Which retry policy?

## 質問
Which?

- A) Fixed -- simple
- B) Exponential -- kinder to the server

推奨: B)
"""

WRITER = """
import sys
from atk_tui.service import Service
svc = Service(sys.argv[1], actor="user")
out = svc.writes.transition(sys.argv[2], [sys.argv[3]])
print(out.ok, out.message)
"""

LOCK_HOLDER = """
import sys, time
from filelock import FileLock
lock = FileLock(sys.argv[1], timeout=5)
lock.acquire()
open(sys.argv[2], "w").close()
time.sleep(120)
"""

SHIM = f"""#!/bin/sh
# fault shim: ATK_FAULT_GIT=<subcommand>:<action>. `fail` fails the first such call (the
# marker file records it) with ENOSPC's message; `hang` touches the marker and sleeps;
# `fail-after` / `hang-after` run the real command first (e.g. HEAD has moved), then do that.
case "$ATK_FAULT_GIT" in
  "$1:fail")
    if [ ! -e "$ATK_FAULT_MARK" ]; then
      touch "$ATK_FAULT_MARK"
      echo "fatal: unable to write: No space left on device" >&2
      exit 128
    fi ;;
  "$1:hang")
    touch "$ATK_FAULT_MARK"
    sleep 120 ;;
  "$1:fail-after")
    if [ ! -e "$ATK_FAULT_MARK" ]; then
      {REAL_GIT} "$@" || exit $?
      touch "$ATK_FAULT_MARK"
      echo "fatal: unable to write: No space left on device" >&2
      exit 128
    fi ;;
  "$1:hang-after")
    {REAL_GIT} "$@" || exit $?
    touch "$ATK_FAULT_MARK"
    sleep 120 ;;
esac
exec {REAL_GIT} "$@"
"""


class FaultCheckFailed(AssertionError):
    pass


def check(cond: Any, message: str) -> None:
    if not cond:
        raise FaultCheckFailed(message)


# --------------------------------------------------------------------------------------------
# stores and snapshots


def git(cwd: Path, *args: str, check_: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check_ and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def make_store(tmp: Path, name: str = "store", *, remote: bool = False) -> tuple[Path, Path | None, list[str]]:
    """A store with an AWI and a UWI in inbox (and a bare remote with upstream set)."""
    root, _ = init_store(tmp / name)
    git(root, "branch", "-M", "main")
    svc = Service(root, actor="user")
    files = []
    for kind, body in (("awi", AWI), ("uwi", UWI)):
        out = svc.writes.add(kind=kind, target_repo="acme/api", body=body)
        check(out.ok, out.message)
        files.append(out.files[0])
    bare = None
    if remote:
        bare = tmp / f"{name}-remote.git"
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
        git(root, "remote", "add", "origin", str(bare))
        git(root, "push", "-q", "-u", "origin", "main")
    return root, bare, files


def snapshot(root: Path) -> dict[str, Any]:
    """What a failed write must leave exactly as it was: HEAD, the index, the files."""
    files = {}
    for p in sorted((root / "wi").rglob("*")) + sorted((root / "plans").rglob("*")):
        if p.is_file():
            files[str(p.relative_to(root))] = p.read_bytes()
    return {"head": git(root, "rev-parse", "HEAD").strip(), "index": git(root, "ls-files", "-s"), "files": files}


def lock_is_free(root: Path) -> bool:
    code = (
        "import sys; from filelock import FileLock, Timeout\nl = FileLock(sys.argv[1], timeout=0)\n"
        "try:\n l.acquire(); l.release(); print('free')\nexcept Timeout:\n print('held')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(root / ".git" / "atk.lock")], capture_output=True, text=True)
    return proc.stdout.strip() == "free"


def assert_consistent(root: Path, where: str = "") -> None:
    """Index == HEAD == work tree for the item folders, no journal, no leftovers, lock free."""
    g = root / ".git"
    pre = f"{where}: " if where else ""
    check(not (g / "atk-journal.json").exists(), pre + "journal left behind")
    check(not (g / "index.lock").exists(), pre + "index.lock left behind")
    status = git(root, "status", "--porcelain", "--untracked-files=all", "--", "wi", "plans").strip()
    check(not status, pre + f"work tree or index differs from HEAD: {status.splitlines()[:4]}")
    seen: dict[str, str] = {}
    for state in ("inbox", "processing", "hold", "adopted", "rejected"):
        for p in (root / "wi" / state).iterdir():
            if p.name == ".gitkeep":
                continue
            if p.name in seen:
                raise FaultCheckFailed(pre + f"{p.name} is in {seen[p.name]} and {state}")
            seen[p.name] = state
    check(lock_is_free(root), pre + "the store lock is held")


def state_of(root: Path, filename: str) -> str | None:
    return GitStore(root).locate(filename)


@contextmanager
def fault_env(tmp: Path, step: str, action: str = "fail") -> Iterator[Path]:
    """Put the git shim first on PATH (for this process and its children)."""
    shim_dir = Path(tempfile.mkdtemp(prefix=f"shim-{step}-{action}-", dir=tmp))
    shim = shim_dir / "git"
    shim.write_text(SHIM)
    shim.chmod(0o755)
    mark = shim_dir / "marker"
    path = f"{shim_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    with patched_environ(PATH=path, ATK_FAULT_GIT=f"{step}:{action}", ATK_FAULT_MARK=str(mark)):
        yield mark


def hook(root: Path, name: str, body: str) -> Path:
    path = root / ".git" / "hooks" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def store_with_hook(tmp: Path, body: str) -> tuple[Path, list[str]]:
    """`make_store`'s store (no remote) whose pre-commit hook runs `body`: (root, [AWI, UWI])."""
    root, _, files = make_store(tmp)
    hook(root, "pre-commit", body)
    return root, files


def wait_for(path: Path, proc: subprocess.Popen | None = None, timeout: float = WAIT) -> None:
    deadline = time.time() + timeout
    while not path.exists():
        if proc is not None and proc.poll() is not None:
            out = proc.stdout.read() if proc.stdout else ""
            raise FaultCheckFailed(f"the writer ended (exit {proc.returncode}) before reaching the fault: {out}")
        if time.time() > deadline:
            raise FaultCheckFailed(f"timed out waiting for {path.name}")
        time.sleep(0.02)


def spawn_writer(root: Path, op: str, filename: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root), op, filename],
        env=env or dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def kill9(proc: subprocess.Popen) -> None:
    """kill -9 the writer, then whatever it left running (a sleeping hook) in its session."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=WAIT)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def atk(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    exe = BIN / "atk"
    return subprocess.run(
        [str(exe) if exe.exists() else "atk", *args],
        capture_output=True,
        text=True,
        env=env or dict(os.environ),
        timeout=120,
        stdin=subprocess.DEVNULL,  # never a terminal: `atk wi commit` would ask
    )


# --------------------------------------------------------------------------------------------
# scenarios: each returns a one-line summary or raises FaultCheckFailed


def kill9_in_pre_commit(tmp: Path) -> str:
    """kill -9 while the pre-commit hook runs: files moved, nothing committed yet."""
    mark = tmp / "pre-commit.mark"
    root, (awi, _) = store_with_hook(tmp, f"touch '{mark}'\nsleep 120\n")
    before = snapshot(root)  # (the hook is not part of it)
    proc = spawn_writer(root, "hold", awi)
    wait_for(mark, proc)
    check((root / ".git" / "atk-journal.json").exists(), "no journal while the write was under way")
    check((root / "wi" / "hold" / awi).exists(), "the file was not moved yet when the hook ran")
    kill9(proc)
    (root / ".git" / "hooks" / "pre-commit").unlink()
    check(lock_is_free(root), "a killed writer left the lock held")
    check(git(root, "rev-parse", "HEAD").strip() == before["head"], "HEAD moved although the commit never happened")
    with GitStore(root).locked(timeout=0):  # the next writer recovers first
        pass
    check(snapshot(root) == before, "recovery did not put the store back exactly as it was")
    assert_consistent(root, "after recovery")
    out = Service(root, actor="user").writes.transition_command("hold", [awi])
    check(out.ok, f"the next operation failed: {out.message}")
    check(state_of(root, awi) == "hold", "the next operation did not land")
    assert_consistent(root, "after the next operation")
    check(not (root / ".git" / "atk-index.tmp").exists(), "the killed writer's temporary index is still there")
    return "journal rolled back: files and index as before; next hold committed"


def kill9_after_update_ref(tmp: Path) -> str:
    """kill -9 in the post-commit hook: the commit landed (journal has new_head), not pushed."""
    root, remote, (awi, _) = make_store(tmp, remote=True)
    assert remote is not None
    old_head = git(root, "rev-parse", "HEAD").strip()
    mark = tmp / "post-commit.mark"
    hook(root, "post-commit", f"touch '{mark}'\nsleep 120\n")
    proc = spawn_writer(root, "hold", awi)
    wait_for(mark, proc)
    kill9(proc)
    (root / ".git" / "hooks" / "post-commit").unlink()
    journal = json.loads((root / ".git" / "atk-journal.json").read_text())
    head = git(root, "rev-parse", "HEAD").strip()
    check(head != old_head and journal.get("new_head") == head, "the journal does not name the landed commit")
    check(GitStore(root).remote.unpushed() == 1, "expected the killed write's commit to be unpushed")
    with GitStore(root).locked(timeout=0):
        pass
    check(git(root, "rev-parse", "HEAD").strip() == head, "recovery moved HEAD off a commit that had landed")
    check(state_of(root, awi) == "hold", "recovery undid a commit that had landed")
    assert_consistent(root, "after recovery")
    out = Service(root, actor="user").writes.unhold(awi)
    check(out.ok and out.pushed, f"the next operation failed or did not push: {out.message} {out.warnings}")
    check(
        git(remote, "rev-parse", "main").strip() == git(root, "rev-parse", "HEAD").strip(),
        "the remote did not get both commits",
    )
    assert_consistent(root, "after the next operation")
    return "journal new_head kept the landed commit; next unhold pushed both"


def kill9_before_index_update(tmp: Path) -> str:
    """kill -9 right after update-ref, before the real index is updated: HEAD moved, index stale."""
    root, _, (awi, _) = make_store(tmp)
    with fault_env(tmp, "update-ref", "hang-after") as mark:
        proc = spawn_writer(root, "hold", awi, env=dict(os.environ))
        wait_for(mark, proc)
        kill9(proc)
    head = git(root, "rev-parse", "HEAD").strip()
    journal = json.loads((root / ".git" / "atk-journal.json").read_text())
    check(journal.get("new_head") == head, "the journal does not name the landed commit")
    stale = git(root, "status", "--porcelain", "--", "wi").strip()
    check(stale, "expected the real index to lag behind HEAD before recovery")
    with GitStore(root).locked(timeout=0):
        pass
    assert_consistent(root, "after recovery")
    check(state_of(root, awi) == "hold", "the landed hold was lost")
    out = Service(root, actor="user").writes.unhold(awi)
    check(out.ok, f"the next operation failed: {out.message}")
    assert_consistent(root, "after the next operation")
    return "index brought up to HEAD from the journal; next unhold committed"


def _failing_write(tmp: Path, step: str, *, action: str = "fail", hook_exit: bool = False) -> str:
    root, _, (awi, uwi) = make_store(tmp)
    before = snapshot(root)
    svc_ops: list[Callable[[Service], Any]] = [
        lambda s: s.writes.transition_command("hold", [awi]),
        lambda s: s.answers.answer(uwi, choices={1: "B"}),
        lambda s: s.writes.set_dependencies(awi, [uwi]),
        lambda s: s.writes.rm(awi),
    ]
    messages = []
    for op in svc_ops:
        if hook_exit:
            h = hook(root, "pre-commit", "echo 'write error: No space left on device' >&2\nexit 1\n")
            out = op(Service(root, actor="user"))
            h.unlink()
        else:
            with fault_env(tmp, step, action):
                out = op(Service(root, actor="user"))
        check(not out.ok, f"the write succeeded although {step} failed")
        check("No space left on device" in out.message, f"the error does not say why: {out.message!r}")
        check("Traceback" not in out.message, "a traceback in the message")
        check(snapshot(root) == before, f"a failed {out.op} changed the store")
        assert_consistent(root, f"after the failed {out.op}")
        messages.append(out.message)
    out = Service(root, actor="user").writes.transition_command("hold", [awi])
    check(out.ok, f"the next operation failed: {out.message}")
    assert_consistent(root, "after the next operation")
    return f"4 writes refused, store unchanged; e.g. {messages[0][:90]!r}"


def disk_full_pre_commit_hook(tmp: Path) -> str:
    return _failing_write(tmp, "pre-commit", hook_exit=True)


def disk_full_commit_tree(tmp: Path) -> str:
    return _failing_write(tmp, "commit-tree")


def disk_full_update_ref(tmp: Path) -> str:
    return _failing_write(tmp, "update-ref")


def disk_full_after_update_ref(tmp: Path) -> str:
    """HEAD has already moved when the failure is reported: the rollback must move it back."""
    return _failing_write(tmp, "update-ref", action="fail-after")


def _rewrite_payload(p: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Rewrite the cache's records *as a valid entry* (a bug or a hand edit, not damage)."""
    got = cache_files.read(p.parent.parent, p.name.removesuffix(".cache"))
    assert got is not None, "no valid entry to rewrite"
    payload = json.dumps(change(json.loads(bytes(got[1])))).encode()
    assert cache_files.write(p.parent.parent, p.name.removesuffix(".cache"), [payload])


_AT_COOLDOWN = RECORD.index("cooldown_until")


CACHE_CORRUPTIONS: dict[str, Callable[[Path], None]] = {
    "garbage": lambda p: p.write_bytes(os.urandom(4096)),
    "truncated": lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
    "one-byte-flipped": lambda p: p.write_bytes(p.read_bytes()[:-20] + b"X" + p.read_bytes()[-19:]),
    "empty": lambda p: p.write_bytes(b""),
    "nul-bytes": lambda p: p.write_bytes(b"\0" * 1000),
    "invalid-utf8": lambda p: p.write_bytes(b"\xff\xfe" + p.read_bytes()),
    "header-only": lambda p: p.write_bytes(p.read_bytes().split(b"\n")[0] + b"\n"),
    "other-code": lambda p: p.write_bytes(p.read_bytes().replace(cache_files.code_stamp().encode(), b"another-code", 1)),
    "not-json-header": lambda p: p.write_bytes(b"[1, 2, 3]\n{}"),
    "deep-nesting": lambda p: p.write_text("[" * 200_000 + "]" * 200_000),
    "records-wrong-shape": lambda p: _rewrite_payload(p, lambda e: {k: {"title": 1} for k in e}),
    "records-too-short": lambda p: _rewrite_payload(p, lambda e: {k: v[:-3] for k, v in e.items()}),
    "records-bad-datetime": lambda p: _rewrite_payload(
        p, lambda e: {k: [*v[:_AT_COOLDOWN], "yesterday-ish", *v[_AT_COOLDOWN + 1 :]] for k, v in e.items()}
    ),
    "payload-not-a-mapping": lambda p: _rewrite_payload(p, lambda e: list(e)),  # type: ignore[arg-type,return-value]
    "directory-in-its-place": lambda p: (p.unlink(), p.mkdir()),
}


def corrupted_cache(tmp: Path) -> str:
    root, _, files = make_store(tmp)
    from atk_tui.cache.caches import to_record

    def listing(svc: Service) -> dict[str, Any]:
        items, _ = svc.list()
        return {i.filename: (i.state, to_record(i)) for i in items}

    reference = listing(Service(root, actor="user", use_cache=False))
    check(set(reference) == set(files), "the reference listing is wrong")
    path = ItemCache(root / ".git", "active").path
    for name, corrupt in CACHE_CORRUPTIONS.items():
        if path.is_dir():
            path.rmdir()
        listing(Service(root, actor="user"))  # a good cache first
        check(path.is_file(), "no cache file was written")
        corrupt(path)
        got = listing(Service(root, actor="user"))
        check(got == reference, f"{name}: the listing from a corrupted cache differs")
        if name != "directory-in-its-place":
            cache = ItemCache(root / ".git", "active")
            cache.load()
            check(len(cache.entries) == len(files), f"{name}: the cache was not rebuilt")
        proc = atk("wi", "list", "--json", "--store", str(root))
        check(
            proc.returncode == 0 and len(proc.stdout.splitlines()) == len(files),
            f"{name}: atk wi list failed: {proc.stderr}",
        )
    return f"{len(CACHE_CORRUPTIONS)} corruptions: listing identical, cache rebuilt"


def stale_lock(tmp: Path) -> str:
    """A lock file left by a killed process does not block; a live holder does (store busy)."""
    root, _, (awi, _) = make_store(tmp)
    lock = root / ".git" / "atk.lock"
    mark = tmp / "locked.mark"
    proc = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(lock), str(mark)], start_new_session=True)
    try:
        wait_for(mark, proc)
        svc = Service(root, actor="user")
        svc.store.lock_timeout = 0.3
        busy = svc.writes.transition_command("hold", [awi])
        check(
            not busy.ok and "store busy" in busy.message,
            f"a live lock holder did not make the store busy: {busy.message}",
        )
    finally:
        kill9(proc)
    check(lock.exists(), "expected the lock file to be left behind by the killed holder")
    svc = Service(root, actor="user")
    svc.store.lock_timeout = 0
    out = svc.writes.transition_command("hold", [awi])
    check(out.ok, f"a stale lock file blocked the write: {out.message}")
    # a lock file with junk in it, and a stale index.lock from a git that died
    lock.write_bytes(b"pid 99999 \xff\xfe junk")
    idx = root / ".git" / "index.lock"
    idx.write_bytes(b"")
    old = time.time() - 120
    os.utime(idx, (old, old))
    out = svc.writes.unhold(awi)
    check(out.ok, f"a junk lock file or a stale index.lock blocked the write: {out.message}")
    assert_consistent(root)
    return (
        "live holder -> 'store busy'; dead holder's lock file, junk lock file, stale index.lock -> write goes through"
    )


def unreachable_remote(tmp: Path) -> str:
    root, remote, (awi, uwi) = make_store(tmp, remote=True)
    assert remote is not None
    away = remote.with_name(remote.name + ".away")
    remote.rename(away)
    svc = Service(root, actor="user")
    out = svc.writes.transition_command("hold", [awi])
    check(out.ok, f"a local write failed because the remote is gone: {out.message}")
    check(out.pushed is False, "the outcome does not say the push failed")
    text = " ".join(out.warnings)
    check(
        "could not pull" in text and "unpushed" in text and "atk wi commit" in text,
        f"the warnings do not explain: {out.warnings}",
    )
    cli = atk("wi", "hold", uwi, "--store", str(root))
    check(cli.returncode == 0 and "unpushed" in cli.stderr, f"the CLI write failed or did not warn: {cli.stderr}")
    check(GitStore(root).remote.unpushed() == 2, "expected 2 unpushed commits")
    still = atk("wi", "commit", "--store", str(root))
    check(
        still.returncode == 1 and "push failed" in still.stderr,
        f"`atk wi commit` claimed success with no remote: {still}",
    )
    away.rename(remote)
    done = atk("wi", "commit", "--store", str(root))
    check(
        done.returncode == 0 and "pushed" in done.stdout, f"`atk wi commit` did not push: {done.stdout} {done.stderr}"
    )
    check(git(remote, "rev-parse", "main").strip() == git(root, "rev-parse", "HEAD").strip(), "the remote is behind")
    check(GitStore(root).remote.unpushed() == 0, "still unpushed after atk wi commit")
    assert_consistent(root)
    return "2 writes kept locally with pull/push warnings; `atk wi commit` exit 1 while gone, pushed both once restored"


def cross_clone_conflict(tmp: Path) -> str:
    """Two machines move the same item: `atk wi commit` sets the loser aside and converges."""
    a, remote, (awi, uwi) = make_store(tmp, "a", remote=True)
    assert remote is not None
    b = tmp / "b"
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    sa = Service(a, actor="user", push=False)
    check(sa.writes.transition_command("hold", [awi]).ok, "hold on machine a failed")
    check(sa.answers.answer(uwi, choices={1: "A"}).ok, "answer on machine a failed")
    sb = Service(b, actor="user")
    out = sb.writes.move([awi], "processing", expect="inbox")
    check(out.ok and out.pushed, f"machine b's move failed: {out.message}")
    done = atk("wi", "commit", "--store", str(a))
    # SPEC §11: a set-aside commit is not "pushed": exit 1, stdout names it and the way out
    check(done.returncode == 1, f"`atk wi commit` did not fail for the set-aside commit: {done}")
    check(
        "not pushed" in done.stdout and "atk: hold" in done.stdout and "atk wi conflicts" in done.stdout,
        f"the conflicting hold was not named: {done.stdout}",
    )
    refs = git(a, "for-each-ref", "--format=%(subject)", "refs/atk/conflicts").split("\n")
    check(f"atk: hold {awi}" in refs, "the set-aside commit is not kept under refs/atk/conflicts")
    check(git(a, "rev-parse", "HEAD^{tree}") == git(remote, "rev-parse", "main^{tree}"), "machine a did not converge")
    check(state_of(a, awi) == "processing", "the remote's move was not kept")
    check(Service(a).read(uwi).answered, "the answer (no conflict) was not pushed")
    assert_consistent(a)
    return "conflicting hold set aside (refs/atk/conflicts), non-conflicting answer pushed, clone converged"


def same_change_on_two_machines(tmp: Path) -> str:
    """Two machines start processing the same item: the rebase before the loser's push drops
    its identical commit, and the loser is told (state conflict) instead of believing it won."""
    a, remote, (awi, _) = make_store(tmp, "a", remote=True)
    assert remote is not None
    b = tmp / "b"
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    # another machine, another identity (the same identity in the same second makes the very
    # same commit, SHA and all: then both sides did push it)
    old = {k: os.environ[k] for k in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME") if k in os.environ}
    os.environ.update(GIT_AUTHOR_NAME="machine-b", GIT_COMMITTER_NAME="machine-b")
    try:
        won = Service(b, actor="agent").writes.transition_command("start-processing", [awi])
    finally:
        os.environ.update(old)
    check(won.ok and won.pushed, f"machine b's start-processing failed: {won.message}")
    lost = Service(a, actor="agent", pull=False).writes.transition_command("start-processing", [awi])  # a has not seen b's yet
    check(not lost.ok and lost.exit_code == 1, f"the loser was told it succeeded: {lost.message}")
    check("another machine made the same change first" in lost.message, f"unclear message: {lost.message}")
    check(git(a, "rev-parse", "HEAD") == git(remote, "rev-parse", "main"), "machine a did not converge")
    check(state_of(a, awi) == "processing", "the item is not in processing")
    assert_consistent(a)
    return f"loser told: {lost.message[:90]!r}"


# -- the dashboard ----------------------------------------------------------------------------


@contextmanager
def _replaced(obj: Any, name: str, value: Any) -> Iterator[None]:
    """`obj.name` is `value` inside the block."""
    real = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, real)


async def _tui_errors(root: Path, awi: str, uwi: str) -> list[str]:
    from atk_tui.tui.app import make_app

    app = make_app(root, watch=False, actor="user")
    seen: list[tuple[str, str]] = []
    real_notify = app.notify

    def notify(message, *args, **kw):
        seen.append((str(message), kw.get("severity", "information")))
        return real_notify(message, *args, **kw)

    app.notify = notify  # type: ignore[method-assign]
    report: list[str] = []

    async def until(pred: Callable[[], bool], what: str, pilot) -> None:
        deadline = time.time() + WAIT
        while not pred():
            check(time.time() < deadline, f"timed out waiting for {what}")
            await pilot.pause(0.05)

    def errors_since(n: int) -> list[str]:
        return [m for m, sev in seen[n:] if sev == "error"]

    async def error_for(key: str, what: str, pilot, must: str = "") -> str:
        """Press `key`: the error it shows, which must be short, with no traceback (and say `must`)."""
        n = len(seen)
        await pilot.press(key)
        await until(lambda: errors_since(n), f"an error notification for {what}", pilot)
        msg = errors_since(n)[0]
        check(must in msg and "Traceback" not in msg and len(msg) < 600, f"unreadable error: {msg!r}")
        return msg

    def broken_queue(*a, **k):
        raise OSError(5, "Input/output error")

    def broken_transition(*a, **k):
        raise RuntimeError("simulated bug in a write")

    def vanished(filename, *a, **k):
        raise AtkError(f"no item named {filename}")

    async with app.run_test(size=(160, 48)) as pilot:
        await until(lambda: app.main.view is not None and awi in app.main.view.items, "the queue", pilot)
        app.main.jump_to(awi)
        await pilot.pause()
        # 1. the objects database disappears under the running app
        objects = root / ".git" / "objects"
        aside = root / ".git" / "objects.aside"
        objects.rename(aside)
        try:
            msg = await error_for("p", "hold", pilot)  # hold
            report.append(f"hold with .git/objects gone -> {msg[:80]!r}")
            await pilot.press("r")
            await pilot.pause(0.3)
            check(app.is_running, "the app stopped after a failed refresh")
        finally:
            aside.rename(objects)
        # 2. reading the store fails
        with _replaced(app.service, "queue", broken_queue):
            msg = await error_for("r", "refresh", pilot, "could not read the store")
        report.append(f"refresh with reads failing -> {msg[:80]!r}")
        # 3. a write raises something unexpected
        with _replaced(app.service.writes, "transition", broken_transition):
            app.reload()
            await pilot.pause(0.3)
            app.main.jump_to(awi)
            await pilot.pause()
            msg = await error_for("p", "an unexpected exception", pilot)  # hold
        report.append(f"write raising RuntimeError -> {msg[:80]!r}")
        # 4. the item vanished between the listing and the action (an agent removed it)
        with _replaced(app.service, "read", vanished):
            app.main.jump_to(uwi)
            await pilot.pause()
            msg = await error_for("a", "answering a vanished item", pilot, "no item named")
        report.append(f"answer on a vanished item -> {msg[:80]!r}")
        # 5. and it still works
        app.main.jump_to(awi)
        await pilot.pause()
        n = len(seen)
        await pilot.press("p")  # hold
        await until(lambda: any("hold" in m for m, _ in seen[n:]), "the hold after recovery", pilot)
        await until(lambda: state_of(root, awi) == "hold", "the hold to land", pilot)
        check(app.is_running, "the app is not running")
    return report


def tui_readable_errors(tmp: Path) -> str:
    root, _, (awi, uwi) = make_store(tmp)
    report = asyncio.run(_tui_errors(root, awi, uwi))
    assert_consistent(root)
    return "; ".join(report)


# --------------------------------------------------------------------------------------------
# issue 10: hostile git states, live locks, stuck children (SPEC §14)

HANG = 3600  # what a stuck child sleeps; a scenario whose fix is missing hangs on it


def _cfg_env(tmp: Path, toml: str) -> dict[str, str]:
    """The environment of an `atk` run whose config file holds `toml`."""
    xdg = tmp / "xdg-cfg"
    (xdg / "atk").mkdir(parents=True, exist_ok=True)
    (xdg / "atk" / "config.toml").write_text(toml)
    return {**os.environ, "XDG_CONFIG_HOME": str(xdg)}


def _gone(pidfile: Path) -> bool:
    """The process whose pid `pidfile` holds has ended (or never started)."""
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie is gone too
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def kill_pidfile(pidfile: Path) -> None:
    try:
        os.kill(int(pidfile.read_text().strip()), signal.SIGKILL)
    except (OSError, ValueError):
        pass


def retitle(p: Path, side: str, *, commit: bool = False) -> None:
    """Put `side: ` before the item's title (one line both sides of a conflict change);
    with `commit`, commit it in the file's repository."""
    text = p.read_text()
    at = text.index("\n# ") + 3
    p.write_text(f"{text[:at]}{side}: {text[at:]}")
    if commit:
        git(p.parents[2], "commit", "-q", "-am", f"{side.lower()} edit")


def diverged(root: Path, filename: str, op: str) -> None:
    """Leave `root` in the middle of `git <op>` (rebase, merge, cherry-pick) with
    `wi/inbox/<filename>` conflicted (its title changed on both sides), as a manual
    `git pull --rebase` that hit a conflict would."""
    p = root / "wi" / "inbox" / filename
    git(root, "checkout", "-q", "-b", "side")
    retitle(p, "Side", commit=True)
    git(root, "checkout", "-q", "-")
    retitle(p, "Main", commit=True)
    proc = subprocess.run(["git", op, "side"], cwd=root, capture_output=True, text=True)
    check(proc.returncode != 0, f"setup: git {op} did not stop on the conflict")


def mid_rebase_store(tmp: Path) -> str:
    """A store mid-rebase: writes refused with what to do; the conflicted file is defective."""
    root, _, (awi, uwi) = make_store(tmp)
    diverged(root, awi, "rebase")
    before = snapshot(root)
    out = atk("wi", "hold", uwi, "--store", str(root))
    check(
        out.returncode == 1 and "middle of a rebase" in out.stderr and "rebase --abort" in out.stderr,
        f"a write during a rebase was not refused with what to do: {out.returncode} {out.stderr}",
    )
    check(snapshot(root) == before, "a refused write changed the store")
    rows = {
        json.loads(x)["filename"]: json.loads(x)
        for x in atk("wi", "list", "--json", "--store", str(root)).stdout.splitlines()
    }
    rec = rows.get(awi, {})
    check(rec.get("status") == "defective", f"a file with conflict markers is listed as {rec.get('status')}")
    check("conflict markers" in (rec.get("reasons") or [""])[0], f"the reason does not say why: {rec.get('reasons')}")
    git(root, "rebase", "--abort")
    out = atk("wi", "hold", uwi, "--store", str(root))
    check(out.returncode == 0, f"the write after `git rebase --abort` failed: {out.stderr}")
    assert_consistent(root)
    return (
        "write refused (exit 1, rebase --continue/--abort named), conflict file defective; after abort the write lands"
    )


def merge_and_cherry_pick_in_progress(tmp: Path) -> str:
    done = []
    for op in ("merge", "cherry-pick"):
        root, _, (awi, uwi) = make_store(tmp / op)
        diverged(root, awi, op)
        out = atk("wi", "hold", uwi, "--store", str(root))
        check(
            out.returncode == 1 and f"middle of a {op}" in out.stderr and f"{op} --abort" in out.stderr,
            f"a write during a {op} was not refused: {out.stderr}",
        )
        check(state_of(root, uwi) == "inbox", f"the refused write during a {op} moved the item")
        done.append(op)
    return "writes refused during " + ", ".join(done)


def detached_head(tmp: Path) -> str:
    root, _, (awi, _) = make_store(tmp)
    git(root, "checkout", "-q", "--detach")
    before = snapshot(root)
    out = atk("wi", "hold", awi, "--store", str(root))
    check(out.returncode == 1 and "detached" in out.stderr and "switch" in out.stderr, f"not refused: {out.stderr}")
    check(snapshot(root) == before, "a refused write changed the store")
    git(root, "switch", "-q", "main")
    check(atk("wi", "hold", awi, "--store", str(root)).returncode == 0, "the write on the branch failed")
    assert_consistent(root)
    return "write on a detached HEAD refused (exit 1, `git switch` named); on the branch it lands"


def live_index_lock(tmp: Path) -> str:
    """An old index.lock a live process holds is never removed; once its holder is gone it is."""
    root, _, (awi, _) = make_store(tmp)
    lock = root / ".git" / "index.lock"
    mark = tmp / "holding"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import time; f = open({str(lock)!r}, 'w'); open({str(mark)!r}, 'w'); time.sleep({HANG})",
        ],
        start_new_session=True,
    )
    try:
        wait_for(mark, holder)
        old = time.time() - 600
        os.utime(lock, (old, old))
        out = atk("wi", "hold", awi, "--store", str(root), env={**os.environ, "ATK_LOCK_TIMEOUT": "1"})
        check(lock.exists(), "atk removed an index.lock a live process holds")
        check(
            out.returncode == 1 and "another git process" in out.stderr, f"not reported: {out.returncode} {out.stderr}"
        )
        check(state_of(root, awi) == "inbox", "the failed write moved the item")
    finally:
        holder.kill()
        holder.wait()
    out = atk("wi", "hold", awi, "--store", str(root))
    check(out.returncode == 0 and not lock.exists(), f"the dead holder's lock blocked the write: {out.stderr}")
    assert_consistent(root)
    return "held 10-minute-old index.lock kept (write failed cleanly); removed once its holder died"


def git_commit_holding_index_lock(tmp: Path) -> str:
    """A `git commit -a` running a slow hook holds index.lock with the file closed: kept."""
    started, release = tmp / "started", tmp / "release"
    root, (awi, uwi) = store_with_hook(
        tmp, f'[ -n "$HOLD" ] || exit 0\ntouch {started}\nwhile [ ! -e {release} ]; do sleep 0.1; done\n'
    )
    p = root / "wi" / "inbox" / awi
    p.write_text(p.read_text() + "\nmanual edit\n")
    user = subprocess.Popen(["git", "commit", "-q", "-a", "-m", "manual"], cwd=root, env={**os.environ, "HOLD": "1"})
    try:
        wait_for(started, user)
        old = time.time() - 600  # old: an age rule would take it for a dead process's lock
        os.utime(root / ".git" / "index.lock", (old, old))
        out = atk("wi", "hold", uwi, "--store", str(root), "--skip-pull", env={**os.environ, "ATK_LOCK_TIMEOUT": "1"})
        check((root / ".git" / "index.lock").exists(), "atk removed the index.lock of a running git commit")
    finally:
        release.touch()
        user.wait(WAIT)
    check(user.returncode == 0, "the user's git commit broke")
    check(out.returncode == 1, f"the write did not fail while git held the index: {out.stdout}")
    check(atk("wi", "hold", uwi, "--store", str(root)).returncode == 0, "the write after git commit failed")
    assert_consistent(root)
    return "running `git commit -a` kept its index.lock and finished; atk failed cleanly, then wrote"


def sleeping_pre_commit_hook(tmp: Path) -> str:
    root, awi, pidfile = _hanging_hook(tmp)
    env = _cfg_env(tmp, "[git]\nhook_timeout = 1\n")
    before = snapshot(root)
    out, alive = _hold_past_hang(root, awi, pidfile, env)
    check(
        out.returncode == 1
        and "pre-commit hook did not finish within 1 s" in out.stderr
        and "hook_timeout" in out.stderr,
        f"the stuck hook was not reported: {out.returncode} {out.stderr}",
    )
    _check_rolled_back(root, before, alive, "the stuck hook")
    return "hook killed after hook_timeout = 1 s; write rolled back with a message naming the setting"


def hook_leaving_background_child(tmp: Path) -> str:
    pidfile = tmp / "bg.pid"
    root, (awi, _) = store_with_hook(tmp, f"sleep {HANG} &\necho $! > {pidfile}\necho checked\n")
    out, _ = _hold_past_hang(root, awi, pidfile)  # subprocess timeout: 120 s
    check(out.returncode == 0, f"the write failed: {out.stderr}")
    check(state_of(root, awi) == "hold", "the write did not land")
    assert_consistent(root)
    return "write done without waiting for the hook's background child"


def _check_rolled_back(root: Path, before: dict, alive: bool, what: str) -> None:
    check(not alive, f"{what} outlived the write")
    check(snapshot(root) == before, "the stopped write was not rolled back")
    assert_consistent(root)


def hang_body(pidfile: Path) -> str:
    return f"echo $$ > {pidfile}\nexec sleep {HANG}\n"


def _hanging_hook(tmp: Path) -> tuple[Path, str, Path]:
    """A store whose pre-commit hook records its pid and hangs: (root, its AWI, the pid file)."""
    pidfile = tmp / "hook.pid"
    root, (awi, _) = store_with_hook(tmp, hang_body(pidfile))
    return root, awi, pidfile


def hang_script(tmp: Path, which: str) -> tuple[Path, Path]:
    """A program that records its pid and then hangs: (the script, its pid file)."""
    pidfile = tmp / f"{which}.pid"
    script = tmp / f"hang-{which}"
    script.write_text(f"#!/bin/sh\n{hang_body(pidfile)}")
    script.chmod(0o755)
    return script, pidfile


def _hold_past_hang(root: Path, awi: str, pidfile: Path, env: dict[str, str] | None = None):
    """`atk wi hold` against a hanging program: (its result, whether the program outlived it)."""
    try:
        out = atk("wi", "hold", awi, "--store", str(root), env=env)
        alive = not _gone(pidfile)
    finally:
        kill_pidfile(pidfile)
    return out, alive


def _hanging_remote(tmp: Path, which: str) -> tuple[Path, list[str], Path]:
    root, _, files = make_store(tmp, remote=True)
    script, pidfile = hang_script(tmp, which)
    git(root, "config", f"remote.origin.{which}", str(script))
    return root, files, pidfile


def hanging_remote_push(tmp: Path) -> str:
    root, (awi, _), pidfile = _hanging_remote(tmp, "receivepack")
    env = _cfg_env(tmp, "[git]\ntimeout = 5\npush_timeout = 1\n")
    out, alive = _hold_past_hang(root, awi, pidfile, env)
    check(out.returncode == 0, f"the local write failed: {out.stderr}")
    check(
        "git push timed out after 1 s; the commit is kept locally" in out.stderr and "atk wi commit" in out.stderr,
        f"the timeout is not explained: {out.stderr}",
    )
    check(not alive, "the hanging receive-pack was left running")
    check(GitStore(root).remote.unpushed() == 1, "the commit is not kept locally")
    git(root, "config", "--unset", "remote.origin.receivepack")
    done = atk("wi", "commit", "--store", str(root), env=env)
    check(done.returncode == 0 and GitStore(root).remote.unpushed() == 0, f"`atk wi commit` did not push later: {done.stderr}")
    assert_consistent(root)
    return "push killed after push_timeout = 1 s, commit kept locally, pushed later by `atk wi commit`"


def hanging_remote_pull(tmp: Path) -> str:
    root, (awi, _), pidfile = _hanging_remote(tmp, "uploadpack")
    env = _cfg_env(tmp, "[git]\ntimeout = 1\n")
    out, alive = _hold_past_hang(root, awi, pidfile, env)
    check(out.returncode == 0, f"the local write failed: {out.stderr}")
    check("did not answer within 1 s" in out.stderr and "atk wi commit" in out.stderr, f"not explained: {out.stderr}")
    check(not alive, "the hanging upload-pack was left running")
    check(GitStore(root).remote.unpushed() == 1, "the commit is not kept locally")
    assert_consistent(root)
    return "pull killed after timeout = 1 s, push not attempted, commit kept locally"


def hanging_ssh_remote(tmp: Path) -> str:
    """An ssh remote whose connection never answers (`core.sshCommand` sleeps): pull and push
    both time out, the commit is kept, and no ssh process is left running."""
    root, _, (awi, _) = make_store(tmp, remote=True)
    script, pidfile = hang_script(tmp, "ssh")
    git(root, "remote", "set-url", "origin", "ssh://git.example.invalid/store.git")
    git(root, "config", "core.sshCommand", str(script))
    env = _cfg_env(tmp, "[git]\ntimeout = 1\npush_timeout = 1\n")
    out, alive = _hold_past_hang(root, awi, pidfile, env)
    check(out.returncode == 0, f"the local write failed: {out.stderr}")
    check("did not answer within 1 s" in out.stderr and "atk wi commit" in out.stderr, f"not explained: {out.stderr}")
    check(not alive, "the hanging ssh was left running")
    check(state_of(root, awi) == "hold", "the write did not land")
    try:
        later = atk("wi", "commit", "--store", str(root), env=env)
    finally:
        kill_pidfile(pidfile)
    check(
        later.returncode != 0 and "timed out" in later.stderr,
        f"`atk wi commit` did not report the timeout: {later.stderr}",
    )
    return "ssh remote that never answers: write kept locally after 1 s; `atk wi commit` reports the timeout"


def sigterm_during_hook(tmp: Path) -> str:
    """`atk` stopped with SIGTERM (an agent harness's time limit) while a hook hangs: the
    write rolls back and the hook does not outlive it."""
    root, awi, pidfile = _hanging_hook(tmp)
    before = snapshot(root)
    exe = BIN / "atk"
    proc = subprocess.Popen(
        [str(exe) if exe.exists() else "atk", "wi", "hold", awi, "--store", str(root)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for(pidfile, proc)
        proc.terminate()
        proc.communicate(timeout=WAIT)
        alive = not _gone(pidfile)
    finally:
        kill_pidfile(pidfile)
        if proc.poll() is None:
            proc.kill()
    check(proc.returncode == 128 + signal.SIGTERM, f"atk exit {proc.returncode} after SIGTERM")
    _check_rolled_back(root, before, alive, "the hook")
    return "SIGTERM: exit 143, hook killed with its group, write rolled back"


def interrupt_stuck_write(tmp: Path) -> str:
    """`Service.interrupt()` (the dashboard quitting) stops a write stuck in a hook."""
    import threading

    mark = tmp / "hook.pid"
    root, (awi, _) = store_with_hook(tmp, f"echo $$ > {mark}\nexec sleep {HANG}\n")
    svc = Service(root, actor="user")
    svc.store.limits = {"timeout": float(HANG), "push_timeout": float(HANG), "hook_timeout": float(HANG)}
    before = snapshot(root)
    box: list = []
    t = threading.Thread(target=lambda: box.append(svc.writes.transition_command("hold", [awi])), daemon=True)
    t.start()
    wait_for(mark)
    # 1, or 0 when the hook ran before the store counted it as running: then it is killed as
    # it is counted (`Children.run`'s late interrupt)
    try:
        killed = svc.interrupt()
        t.join(WAIT)
        check(not t.is_alive(), "the write did not stop after interrupt()")
        out = box[0]
        check(killed <= 1 and not out.ok and "interrupted" in out.message, f"not reported: {killed} {out.message}")
        check(_gone(mark), "the hook outlived the interrupted write")
    finally:
        kill_pidfile(mark)
    check(snapshot(root) == before, "the interrupted write was not rolled back")
    assert_consistent(root)
    return "interrupt() killed the hook; the write failed promptly and rolled back"


def killed_during_pull_rebase(tmp: Path) -> str:
    """A writer killed while its pre-write pull is rebasing leaves a rebase; the next writer
    aborts it (the user's commit and edits back where they were)."""
    root, remote, (awi, uwi) = make_store(tmp, remote=True)
    assert remote is not None
    other = tmp / "other"
    subprocess.run(["git", "clone", "-q", str(remote), str(other)], check=True)
    (other / "wi" / "hold" / "x.txt").write_text("remote change\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "remote change")
    git(other, "push", "-q")
    p = root / "wi" / "inbox" / awi
    p.write_text(p.read_text() + "\nlocal commit\n")
    git(root, "commit", "-q", "-am", "local commit")
    local = git(root, "rev-parse", "HEAD").strip()
    pidfile, mark = tmp / "hook.pid", tmp / "hook.mark"
    # the rebase stops in post-checkout (rebase-merge exists then) until killed
    hook(
        root,
        "post-checkout",
        f"[ -d .git/rebase-merge ] || exit 0\necho $$ > {pidfile}\ntouch {mark}\nexec sleep {HANG}\n",
    )
    proc = spawn_writer(root, "hold", uwi)
    wait_for(mark, proc)
    kill9(proc)
    os.killpg(os.getpgid(int(pidfile.read_text())), signal.SIGKILL)  # the pull, its rebase and the hook
    check((root / ".git" / "rebase-merge").exists(), "setup: no rebase was left behind")
    (root / ".git" / "hooks" / "post-checkout").unlink()
    out = atk("wi", "hold", uwi, "--store", str(root), "--skip-pull", "--skip-push")
    check(out.returncode == 0, f"the next write failed: {out.stderr}")
    check(not (root / ".git" / "rebase-merge").exists(), "the killed writer's rebase was not aborted")
    check(git(root, "rev-parse", "HEAD^").strip() == local, "the branch is not back where the killed pull found it")
    check(git(root, "symbolic-ref", "-q", "HEAD").strip() == "refs/heads/main", "HEAD is not back on the branch")
    check(state_of(root, uwi) == "hold", "the next write did not land")
    assert_consistent(root)
    return "the killed writer's rebase aborted by the next writer; local commit kept, write landed"


def autostash_conflict(tmp: Path) -> str:
    root, remote, (awi, uwi) = make_store(tmp, remote=True)
    assert remote is not None
    other = tmp / "other"
    subprocess.run(["git", "clone", "-q", str(remote), str(other)], check=True)
    q = other / "wi" / "inbox" / awi
    retitle(q, "Remote", commit=True)
    git(other, "push", "-q")
    p = root / "wi" / "inbox" / awi
    retitle(p, "My uncommitted")
    out = atk("wi", "hold", uwi, "--store", str(root))
    check(out.returncode == 1, f"the write went on over an autostash conflict: {out.stderr}")
    check("uncommitted edits" in out.stderr and "stash" in out.stderr, f"not reported: {out.stderr}")
    stash = git(root, "stash", "list")
    kept = git(root, "stash", "show", "-p", "stash@{0}") if stash else p.read_text()
    check("My uncommitted" in kept, "the user's uncommitted edit was lost")
    check(state_of(root, uwi) == "inbox", "the refused write moved the item")
    return "autostash conflict reported (exit 1, stash named), the edit kept in the stash"


def symlinked_state_folder(tmp: Path) -> str:
    root, _, (awi, _) = make_store(tmp)
    outside = tmp / "outside"
    outside.mkdir()
    (outside / "planted.md").write_text("---\nkind: awi\ntarget_repo: acme/api\n---\n# planted\n")
    git(root, "rm", "-q", "-r", "wi/hold")
    (root / "wi" / "hold").symlink_to(outside)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hostile: linked hold")
    out = atk("wi", "list", "--status", "all", "--no-json", "--store", str(root))
    check("planted" not in out.stdout, "a file outside the store was listed")
    check("store defect: wi/hold" in out.stderr and "symbolic link" in out.stderr, f"not reported: {out.stderr}")
    show = atk("wi", "show", "planted.md", "--store", str(root))
    check(show.returncode != 0 and "planted" not in show.stdout, "a file outside the store was shown")
    hold = atk("wi", "hold", awi, "--store", str(root))
    check(
        hold.returncode == 1 and "symbolic link" in hold.stderr,
        f"a write through the link was not refused: {hold.stderr}",
    )
    check(sorted(x.name for x in outside.iterdir()) == ["planted.md"], "a write went through the link")
    return "linked state folder: a store defect, never listed, shown or written through"


def serve_driven_by_a_web_page(tmp: Path) -> str:
    """Issue 25: what a page the person visits could send to `atk-tui --serve` (another
    Origin, a rebound DNS name, no or a wrong token: `support.serve.SERVE_ATTACKS`) is refused
    and logged, the store untouched; the address it printed still opens the dashboard."""
    from support.serve import SERVE_ATTACKS, run_attack, serving

    root, _, _ = make_store(tmp)
    before = snapshot(root)
    with serving(root) as served:
        problems = [p for a in SERVE_ATTACKS if (p := run_attack(served, a, other_port=served.port + 1))]
        check(not problems, "\n".join(problems))
        check(served.ws(origin=served.origin, cookie=served.cookie) == "open", "the printed address does not connect")
    check(snapshot(root) == before, "a refused request changed the store")
    return f"--serve: {len(SERVE_ATTACKS)} requests of a foreign page refused and logged; its own page connects"


# -- the person's decisions through back doors (issue 25) -----------------------------------

AGENT_ENV = {"CLAUDECODE": "1"}


def _as_agent() -> dict[str, str]:
    return dict(os.environ, **AGENT_ENV)


def rewritten_remote(tmp: Path) -> str:
    """The remote is force-pushed back (an admin's `update-ref` in the bare repository) after
    the person's answer was pushed: the next write keeps the answer, pushes it again, warns."""
    root, remote, (awi, uwi) = make_store(tmp, remote=True)
    assert remote is not None
    base = git(root, "rev-parse", "HEAD").strip()
    out = Service(root, actor="user").answers.answer(uwi, choices={1: "A"})
    check(out.ok and out.pushed, f"the answer was not pushed: {out.message}")
    answer = git(root, "rev-parse", "HEAD").strip()
    git(remote, "update-ref", "refs/heads/main", base)
    hold = atk("wi", "hold", awi, "--store", str(root))
    check(hold.returncode == 0, f"the next write failed: {hold.stderr}")
    check("the remote was rewritten" in hold.stderr and answer[:10] in hold.stderr, f"not said: {hold.stderr}")
    check("## 回答" in git(remote, "show", f"main:wi/inbox/{uwi}"), "the answer is not on the remote again")
    check(Service(root).read(uwi).answered, "the answer is gone from the tree")
    assert_consistent(root)
    return "remote rewound under the answer: kept, pushed again, the write warned naming it"


def agent_conflicts_apply_theirs(tmp: Path) -> str:
    """An agent runs `atk wi conflicts apply REF --theirs` on the person's set-aside answer."""
    root, remote, (_, uwi) = make_store(tmp, remote=True)
    assert remote is not None
    other = tmp / "other"
    subprocess.run(["git", "clone", "-q", str(remote), str(other)], check=True)
    check(Service(root, actor="user", push=False).answers.answer(uwi, choices={1: "A"}).ok, "answer failed")
    check(Service(other, actor="user").answers.answer(uwi, choices={1: "B"}).ok, "the other answer failed")
    done = atk("wi", "commit", "--store", str(root))
    check(done.returncode == 1 and "not pushed" in done.stdout, f"the answer was not set aside: {done}")
    [ref] = git(root, "for-each-ref", "--format=%(refname)", "refs/atk/conflicts").split()
    applied = atk("wi", "conflicts", "apply", ref, "--theirs", "--store", str(root), env=_as_agent())
    check(applied.returncode == 2 and "user" in applied.stderr, f"the agent resolved it: {applied}")
    check(git(root, "for-each-ref", "refs/atk/conflicts").strip() != "", "the set-aside answer is gone")
    return "agent's conflicts apply --theirs on the person's answer: exit 2, the set-aside answer kept"


def hand_moves_through_commit(tmp: Path) -> str:
    """An agent's `git mv` hold -> processing, adopted -> inbox, mq inbox -> editing, then
    `atk wi/mq commit`: each refused, nothing committed, the work tree as it was."""
    root, _, (awi, uwi) = make_store(tmp)
    check(Service(root, actor="user").writes.transition_command("hold", [awi]).ok, "hold failed")
    svc = Service(root, actor="user")
    check(svc.answers.answer(uwi, choices={1: "A"}).ok and svc.writes.transition_command("adopt", [uwi]).ok, "adopt failed")
    out = Service(root, actor="user", queue="mq").writes.add(
        kind="feedback", target_repo="acme/api", body="# faster\n\nbody\n"
    )
    check(out.ok, f"mq add failed: {out.message}")
    fb = out.files[0]
    refused = []
    for queue, src, dst in (("wi", f"hold/{awi}", f"processing/{awi}"), ("wi", f"adopted/{uwi}", f"inbox/{uwi}"),
                            ("mq", f"inbox/{fb}", f"editing/{fb}")):  # fmt: skip
        (root / queue / dst).parent.mkdir(parents=True, exist_ok=True)
        git(root, "mv", f"{queue}/{src}", f"{queue}/{dst}")
        head = git(root, "rev-parse", "HEAD").strip()
        status = git(root, "status", "--porcelain")
        done = atk(queue, "commit", "--store", str(root), env=_as_agent())
        check(done.returncode in (1, 2) and "Nothing was committed" in done.stderr, f"{src} -> {dst} committed: {done}")
        check(git(root, "rev-parse", "HEAD").strip() == head and git(root, "status", "--porcelain") == status,
              f"{src} -> {dst}: the store changed")  # fmt: skip
        git(root, "mv", f"{queue}/{dst}", f"{queue}/{src}")
        refused.append(done.returncode)
    assert_consistent(root)
    return f"three agent hand moves refused by commit (exit {', '.join(map(str, refused))}), nothing committed"


def shared_tree_user_commit(tmp: Path) -> str:
    """An agent's uncommitted hand-written `## 回答` in the person's store: the person's
    `atk wi commit` lists it and needs --yes off a terminal."""
    root, _, (_, uwi) = make_store(tmp)
    path = root / "wi" / "inbox" / uwi
    path.write_text(path.read_text() + "\n## 回答\n\n- 1: B)\n")
    head = git(root, "rev-parse", "HEAD").strip()
    asked = atk("wi", "commit", "--store", str(root))
    check(asked.returncode == 2 and "## 回答" in asked.stdout and "--yes" in asked.stderr, f"not asked: {asked}")
    check(git(root, "rev-parse", "HEAD").strip() == head, "committed without --yes")
    done = atk("wi", "commit", "--yes", "--store", str(root))
    check(done.returncode == 0 and "committed 1 file" in done.stdout, f"--yes did not commit: {done}")
    assert_consistent(root)
    return "the person's commit listed the agent's hand answer, exit 2 without --yes, committed with it"


def forged_index_memo(tmp: Path) -> str:
    """Issue 25, independent check: a staged hand answer and a forged `.git/atk-index-state.json`
    (the old on-disk "index is clean" memo) do not ride along with an agent's hold."""
    from atk_tui.store.files import _stat_key

    root, _, (awi, uwi) = make_store(tmp)
    path = root / "wi" / "inbox" / uwi
    path.write_text(path.read_text() + "\n## 回答\n\n- 1: A) forged\n")
    git(root, "add", "--", f"wi/inbox/{uwi}")
    memo = {"index": list(_stat_key(root / ".git" / "index")), "tree": git(root, "rev-parse", "HEAD^{tree}").strip()}
    (root / ".git" / "atk-index-state.json").write_text(json.dumps(memo))
    done = atk("wi", "hold", awi, "--store", str(root), env=_as_agent())
    check(done.returncode == 0, f"the hold failed: {done.stderr}")
    check("## 回答" not in git(root, "show", f"HEAD:wi/inbox/{uwi}"), "the staged answer was committed with the hold")
    return "forged index memo: the hold committed the hold alone; the staged answer stayed staged"


def forged_holders_cache(tmp: Path) -> str:
    """Issue 25, independent check: the holders cache (`.git/atk-cache/holders.cache`) rewritten to name an agent as
    the holder of the person's hold: the agent's unhold is still refused."""
    root, _, (awi, _) = make_store(tmp)
    check(Service(root, actor="user").writes.transition_command("hold", [awi]).ok, "hold failed")
    from support.forge import forge_holders

    atk("wi", "list", "--json", "--store", str(root))

    def an_agent_holds_it(data: dict) -> None:
        for row in data["holders"].values():
            row[2], row[3] = "agent", None

    forge_holders(root, an_agent_holds_it)
    head = git(root, "rev-parse", "HEAD")
    out = atk("wi", "unhold", awi, "--store", str(root), env=_as_agent())
    check(out.returncode == 1 and "held by the user" in out.stderr, f"the agent unheld it: {out}")
    check(git(root, "rev-parse", "HEAD") == head, "something was committed")
    return "forged holders cache: the agent's unhold of the person's hold refused (exit 1)"


def agent_drops_the_persons_hand_commit(tmp: Path) -> str:
    """Issue 25, independent check: the person's own `git commit` (no trailer) set aside by
    `atk wi commit`; an agent's `conflicts apply --theirs` on it is refused."""
    root, remote, (awi, _) = make_store(tmp, remote=True)
    assert remote is not None
    other = tmp / "other"
    subprocess.run(["git", "clone", "-q", str(remote), str(other)], check=True)
    git(root, "mv", f"wi/inbox/{awi}", f"wi/hold/{awi}")
    git(root, "commit", "-q", "-m", "hold it by hand")
    check(Service(other, actor="agent").writes.transition("start-processing", [awi]).ok, "the other clone's move failed")
    done = atk("wi", "commit", "--store", str(root))
    check(done.returncode == 1 and "not pushed" in done.stdout, f"not set aside: {done}")
    [ref] = git(root, "for-each-ref", "--format=%(refname)", "refs/atk/conflicts").split()
    applied = atk("wi", "conflicts", "apply", ref, "--theirs", "--store", str(root), env=_as_agent())
    check(applied.returncode == 2 and "user" in applied.stderr, f"the agent dropped it: {applied}")
    check(git(root, "for-each-ref", "refs/atk/conflicts").strip() != "", "the person's commit is gone")
    return "the person's hand commit set aside: an agent's --theirs refused (exit 2), kept"


def hand_commit_across_queues(tmp: Path) -> str:
    """Issue 25, independent check: an agent's `git mv wi/inbox/F mq/inbox/F` and a copy of F
    into mq, then `atk wi commit`: both refused, nothing committed."""
    root, _, (_, uwi) = make_store(tmp)
    (root / "mq" / "inbox").mkdir(parents=True, exist_ok=True)
    head = git(root, "rev-parse", "HEAD")
    codes = []
    for how in ("copy", "move"):
        if how == "copy":
            shutil.copy(root / "wi" / "inbox" / uwi, root / "mq" / "inbox" / uwi)
        else:
            git(root, "mv", f"wi/inbox/{uwi}", f"mq/inbox/{uwi}")
        done = atk("wi", "commit", "--store", str(root), env=_as_agent())
        check(done.returncode in (1, 2) and "Nothing was committed" in done.stderr, f"{how} committed: {done}")
        check(git(root, "rev-parse", "HEAD") == head, f"{how}: the store changed")
        codes.append(done.returncode)
        git(root, "reset", "-q", "--hard")
        (root / "mq" / "inbox" / uwi).unlink(missing_ok=True)
    return f"an item copied and moved into the other queue by hand: refused (exit {', '.join(map(str, codes))})"


def hand_pull_after_rewrite(tmp: Path) -> str:
    """Issue 25, independent check: the remote rewound under the pushed answer, then a hand
    `git pull --rebase` in the store drops it from the branch too: the next write sets it
    aside for the person and says so loudly."""
    root, remote, (awi, uwi) = make_store(tmp, remote=True)
    assert remote is not None
    base = git(root, "rev-parse", "HEAD").strip()
    check(Service(root, actor="user").answers.answer(uwi, choices={1: "A"}).ok, "answer failed")
    answer = git(root, "rev-parse", "HEAD").strip()
    git(remote, "update-ref", "refs/heads/main", base)
    git(root, "pull", "-q", "--rebase")
    hold = atk("wi", "hold", awi, "--store", str(root))
    check(hold.returncode == 0, f"the write failed: {hold.stderr}")
    check("no longer on your branch either" in hold.stderr and answer[:10] in hold.stderr, f"not said: {hold.stderr}")
    check(git(root, "for-each-ref", "--format=%(objectname)", "refs/atk/conflicts").split() == [answer], "not set aside")
    return "rewound remote + hand pull --rebase: the answer set aside for the person, said loudly"


def uncommitted_answer_wait(tmp: Path) -> str:
    """Issue 25, independent check: an agent's hand answer in the work tree, never committed:
    `atk wi wait` keeps waiting and `show --json` says unanswered."""
    root, _, (_, uwi) = make_store(tmp)
    path = root / "wi" / "inbox" / uwi
    path.write_text(path.read_text() + "\n## 回答\n\n- 1: A) Fixed\n")
    out = atk("wi", "wait", uwi, "--timeout", "0.2", "--store", str(root), "--skip-pull", env=_as_agent())
    check(out.returncode == 1 and "still waiting" in out.stderr, f"wait took it: {out}")
    shown = json.loads(atk("wi", "show", uwi, "--json", "--store", str(root), "--skip-pull", env=_as_agent()).stdout)
    check(shown["answered"] is False, f"show says answered: {shown['answered']}")
    return "an uncommitted hand answer: wait still waiting (exit 1), show --json answered false"


# --------------------------------------------------------------------------------------------
# issue 38: an agent's own git pushed by atk, a crafted conflict, named pipes, floods


def agent_hand_commit_pushed_by_atk(tmp: Path) -> str:
    """Issue 38: the person's pushed answer trimmed by an agent's plain `git commit`, then
    `AI_AGENT=1 atk wi commit`: the push is refused naming the commit, the remote keeps the
    answer, nothing is rewritten; the person's `atk wi commit` pushes it."""
    root, bare, (_, uwi) = make_store(tmp, remote=True)
    assert bare is not None
    check(Service(root, actor="user").answers.answer(uwi, choices={1: "A"}).ok, "the person's answer failed")
    path = root / "wi" / "inbox" / uwi
    path.write_text(path.read_text().split("## 回答")[0])
    git(root, "commit", "-qam", "tidy")
    sha = git(root, "rev-parse", "HEAD").strip()
    out = atk("wi", "commit", "--store", str(root), env=_as_agent())
    check(out.returncode == 1 and sha[:10] in out.stderr and "tidy" in out.stderr, f"the agent's push went: {out}")
    check("## 回答" in git(bare, "show", f"main:wi/inbox/{uwi}"), "the remote lost the answer")
    check(git(root, "rev-parse", "HEAD").strip() == sha, "the agent's commit was rewritten")
    out = atk("wi", "commit", "--yes", "--store", str(root))
    check(out.returncode == 0, f"the person's push failed: {out}")
    return "an agent's hand commit trimming the answer: its push refused naming it (exit 1); the person's pushes it"


def agent_forged_conflict_ref(tmp: Path) -> str:
    """Issue 38: an agent makes its own refs/atk/conflicts/<sha> (an `Atk-Actor: agent`
    commit moving an adopted item back to inbox) and applies it with --mine: refused."""
    root, _, (awi, _) = make_store(tmp)
    svc = Service(root, actor="user", pull=False, push=False)
    check(svc.writes.transition_command("start-processing", [awi]).ok and svc.writes.transition_command("adopt", [awi]).ok, "adopt failed")
    head = git(root, "rev-parse", "HEAD").strip()
    git(root, "mv", f"wi/adopted/{awi}", f"wi/inbox/{awi}")
    git(root, "commit", "-qm", "atk: tidy\n\nAtk-Actor: agent")
    crafted = git(root, "rev-parse", "HEAD").strip()
    git(root, "update-ref", f"refs/atk/conflicts/{crafted}", crafted)
    git(root, "reset", "-q", "--hard", head)
    out = atk("wi", "conflicts", "apply", crafted[:10], "--mine", "--store", str(root), "--skip-pull", env=_as_agent())
    check(out.returncode == 2 and "adopted" in out.stderr, f"the crafted conflict was applied: {out}")
    check((root / "wi" / "adopted" / awi).exists(), "the adopted item moved")
    return "an agent's own conflict ref reopening an adopted item: apply --mine refused (exit 2), nothing moved"


def named_pipes_in_git(tmp: Path) -> str:
    """Issue 38: named pipes at atk's own files in .git and at the item cache: list, show,
    answer and hold each finish (a blocked open would hang past `atk`'s time limit)."""
    from atk_tui.cache import files as cache_files

    root, _, (_, uwi) = make_store(tmp)
    check(atk("wi", "list", "--store", str(root)).returncode == 0, "the first listing failed")
    targets = [root / ".git" / n for n in ("atk-shown.json", "atk-remote-seen.json", "atk-remote-pushed")]
    targets.append(cache_files.path_of(root / ".git", "items-active"))
    for t in targets:
        if t.exists():
            t.unlink()
        os.mkfifo(t)
    said = []
    for args in (("wi", "list"), ("wi", "show", uwi), ("wi", "answer", uwi, "--choose", "1=A"), ("wi", "hold", uwi)):
        out = atk(*args, "--store", str(root))
        check("Traceback" not in out.stderr, f"{args}: {out.stderr}")
        said.append(f"{args[1]} {out.returncode}")
    return "named pipes in .git: " + ", ".join(said) + " (none hung)"


def gh_flood(tmp: Path) -> str:
    """Issue 38: gh printing without end, and JSON 200,000 levels deep: a clear message each,
    gh killed, no traceback."""
    from atk_tui.host.procs import Children
    from atk_tui.service.elsewhere.afkkit import Gh, GhProblem

    said = []
    for name, body in (("endless", "chunk = b'x' * 65536\nwhile True:\n    sys.stdout.buffer.write(chunk)"),
                       ("deep", "sys.stdout.write('[' * 200000 + ']' * 200000)")):  # fmt: skip
        program = tmp / f"gh-{name}"
        program.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
        program.chmod(0o755)
        try:
            Gh(Children(), timeout=120, cwd=tmp, program=str(program)).json(["issue", "list"])
        except GhProblem as exc:
            said.append(exc.message)
        else:
            raise FaultCheckFailed(f"gh {name}: no problem said")
    check("MiB" in said[0] and "nested deeper" in said[1], f"unclear messages: {said}")
    return "gh flooding: " + "; ".join(said)


#: issue 38's attacks, short (the hostile suite runs them too)
ROUND3_ATTACKS = ("agent-hand-commit-pushed-by-atk", "agent-forged-conflict-ref", "named-pipes-in-git", "gh-flood")


#: issue 25's attacks on the person's decisions, short (the hostile suite runs them too)
DECISION_ATTACKS = (
    "rewritten-remote",
    "agent-conflicts-apply-theirs",
    "hand-moves-through-commit",
    "shared-tree-user-commit",
    # the independent check's variants
    "forged-index-memo",
    "forged-holders-cache",
    "agent-drops-the-persons-hand-commit",
    "hand-commit-across-queues",
    "hand-pull-after-rewrite",
    "uncommitted-answer-wait",
)


# --------------------------------------------------------------------------------------------
# issue 25: decisions from a forged cache, incomplete answers, endless inputs, a graph too large


def forged_cache_record(tmp: Path) -> str:
    """The item cache and the judged listing say the question is answered and its dependent
    ready (CRC-32 recomputed): nothing that gates work believes them, and nothing is committed."""
    from support.forge import forge_item_record, forge_listing, process_loop_once

    root, _, (awi, uwi) = make_store(tmp)
    svc = Service(root, actor="user", pull=False, push=False)
    check(svc.writes.set_dependencies(awi, [uwi]).ok, "set-dependencies failed")
    atk("wi", "list", "--json", "--store", str(root))  # the caches
    forge_item_record(root, uwi, answered=True)
    forge_listing(root, lambda b: b.replace(b'"ready": false', b'"ready": true'))
    check(Service(root, actor="user").queue().judgements[awi].ready, "the forged record did not take")
    head = git(root, "rev-parse", "HEAD")
    agent = {**os.environ, "CLAUDECODE": "1"}
    proc, handed = process_loop_once(root, tmp / "loop", env={"CLAUDECODE": "1"})
    check(proc.returncode == 0 and not handed, f"the process-loop handed out {handed}: {proc.stderr[-300:]}")
    out = atk("wi", "adopt", uwi, "--store", str(root), "--skip-pull", "--skip-push", env=agent)
    check(out.returncode == 1, f"adopt of the unanswered question: exit {out.returncode}")
    shown = atk("wi", "show", awi, "--json", "--store", str(root)).stdout
    check('"ready": false' in shown, "show believed the cache")
    check(git(root, "rev-parse", "HEAD") == head, "something was committed")
    return "forged item record + listing: loop handed nothing, adopt refused, show from the file"


def incomplete_answers(tmp: Path) -> str:
    """`- 2:` by hand and `--choose 1=other` without text answer nothing."""
    from support.forge import process_loop_once

    root, _, (awi, uwi) = make_store(tmp)
    svc = Service(root, actor="user", pull=False, push=False)
    check(svc.writes.set_dependencies(awi, [uwi]).ok, "set-dependencies failed")
    out = atk("wi", "answer", uwi, "--choose", "1=other", "--store", str(root), "--skip-pull", "--skip-push")
    check(out.returncode == 1 and "with no text" in out.stderr, f"--choose 1=other alone: {out.returncode} {out.stderr}")
    path = root / "wi" / "inbox" / uwi
    path.write_text(path.read_text() + "\n## 回答\n\n- 1:\n")
    check(svc.conflicts.commit_pending().ok, "commit failed")
    check(not Service(root, actor="user").read(uwi).answered, "an empty choice line counts as an answer")
    _proc, handed = process_loop_once(root, tmp / "loop", env={"CLAUDECODE": "1"})
    check(awi not in handed, "the dependent of an empty answer was handed out")
    return "empty choice line and bare other: unanswered, dependent kept back"


def endless_input(tmp: Path) -> str:
    """`--body-file /dev/zero` and an endless stdin: refused past the item size limit."""
    from support.forge import atk_run

    root, _, _ = make_store(tmp)
    head = git(root, "rev-parse", "HEAD")
    add = ("wi", "add", "--kind", "awi", "--target-repo", "r", "--store", str(root), "--skip-pull", "--skip-push")
    for src in ("/dev/zero", "-"):
        with open("/dev/zero", "rb") as zero:
            out = atk_run(*add, "--body-file", src, stdin=zero, timeout=WAIT, memory=1 << 31)
        check(out.returncode == 2 and "size limit" in out.stderr, f"{src}: exit {out.returncode} {out.stderr[-300:]}")
    check(git(root, "rev-parse", "HEAD") == head, "something was committed")
    return "/dev/zero and endless stdin refused at 1 MiB + 1 byte"


def cli_messages(tmp: Path) -> str:
    """Messages, not tracebacks; one stderr line per record; duplicate keys are defects."""
    root, _, (awi, _) = make_store(tmp)
    out = atk("wi", "set-cooldown", awi, "--until", "999999999d", "--store", str(root))
    check(out.returncode == 2 and "Traceback" not in out.stderr, f"set-cooldown: {out.returncode} {out.stderr[-300:]}")
    full = tmp / "full"
    full.mkdir()
    (full / "mine.txt").write_text("x")
    out = atk("init", str(full))
    check(out.returncode == 1 and "not empty" in out.stderr and not (full / ".git").exists(), f"init: {out.stderr}")
    (root / "wi" / "inbox" / "20261129-000001-x.md\n\tatk: fake line").write_text("x")
    (root / "wi" / "inbox" / "20261129-000002-dup.md").write_text("---\nkind: awi\ntarget_repo: a\nkind: uwi\n---\n# d\n")
    out = atk("wi", "list", "--store", str(root))
    check(all(line.startswith("atk: ") for line in out.stderr.splitlines()) and "\t" not in out.stderr, "a raw line on stderr")
    check("duplicate key 'kind'" in atk("wi", "list", "--json", "--store", str(root)).stdout, "duplicate key not a defect")
    return "set-cooldown, init refused clearly; stderr one line per record; duplicate key defective"


def graph_too_large(tmp: Path) -> str:
    """A 3,000-item chain and one item depending on all of it: the layout refuses it before
    making 4.5 million dummy nodes, the screen says so with its numbers, Esc closes it."""
    from atk_tui.graph import GraphNode, LayoutBudget, LayoutTooLarge, layout_graph
    from support.forge import chain_and_star

    files = chain_and_star(3000)
    names = list(files)
    nodes = [GraphNode(n, n, "ready") for n in names]
    edges = [(names[i - 1], names[i]) for i in range(1, 3000)] + [(n, names[-1]) for n in names[:-1]]
    t0 = time.monotonic()
    try:
        layout_graph(nodes, edges, budget=LayoutBudget())
        check(False, "the layout took the whole graph")
    except LayoutTooLarge as exc:
        check(exc.nodes == 3001 and exc.edges == 5999, f"numbers: {exc.nodes} {exc.edges}")
    spent = time.monotonic() - t0
    root, _ = init_store(tmp / "huge")
    for name, text in files.items():
        (root / "wi" / "inbox" / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "huge")

    async def drive() -> str:
        from textual.widgets import Static

        from atk_tui.tui.app import make_app
        from atk_tui.tui.screens.graph import GraphScreen

        app = make_app(root, watch=False, actor="user")
        async with app.run_test(size=(120, 40)) as pilot:
            deadline = time.time() + WAIT
            while app.main.view is None or names[-1] not in app.main.view.items:
                check(time.time() < deadline, "the queue never loaded")
                await pilot.pause(0.05)
            app.main.jump_to(names[-1])
            await pilot.pause()
            await pilot.press("v")
            note = ""
            while "too large" not in note:
                check(time.time() < deadline, "no too-large message")
                await pilot.pause(0.05)
                if isinstance(app.screen, GraphScreen):
                    note = app.screen.query_one("#graph-note", Static).content.plain
            await pilot.press("escape")
            await pilot.pause()
            check(not isinstance(app.screen, GraphScreen), "Esc did not close the graph")
            return note

    note = asyncio.run(drive())
    check("3,001 items, 5,999 links" in note, f"the message lacks the numbers: {note!r}")
    return f"refused in {spent * 1000:.0f} ms; screen: {note[:60]!r}…; Esc closed it"


SCENARIOS: dict[str, Callable[[Path], str]] = {
    "kill9-in-pre-commit-hook": kill9_in_pre_commit,
    "kill9-after-update-ref": kill9_after_update_ref,
    "kill9-before-index-update": kill9_before_index_update,
    "disk-full-pre-commit-hook": disk_full_pre_commit_hook,
    "disk-full-commit-tree": disk_full_commit_tree,
    "disk-full-update-ref": disk_full_update_ref,
    "disk-full-after-update-ref": disk_full_after_update_ref,
    "corrupted-cache": corrupted_cache,
    "stale-lock": stale_lock,
    "unreachable-remote": unreachable_remote,
    "cross-clone-conflict": cross_clone_conflict,
    "same-change-on-two-machines": same_change_on_two_machines,
    "tui-readable-errors": tui_readable_errors,
    "mid-rebase-store": mid_rebase_store,
    "merge-and-cherry-pick-in-progress": merge_and_cherry_pick_in_progress,
    "detached-head": detached_head,
    "live-index-lock": live_index_lock,
    "git-commit-holding-index-lock": git_commit_holding_index_lock,
    "sleeping-pre-commit-hook": sleeping_pre_commit_hook,
    "hook-leaving-background-child": hook_leaving_background_child,
    "hanging-remote-push": hanging_remote_push,
    "hanging-remote-pull": hanging_remote_pull,
    "hanging-ssh-remote": hanging_ssh_remote,
    "interrupt-stuck-write": interrupt_stuck_write,
    "sigterm-during-hook": sigterm_during_hook,
    "killed-during-pull-rebase": killed_during_pull_rebase,
    "autostash-conflict": autostash_conflict,
    "symlinked-state-folder": symlinked_state_folder,
    "rewritten-remote": rewritten_remote,
    "agent-conflicts-apply-theirs": agent_conflicts_apply_theirs,
    "hand-moves-through-commit": hand_moves_through_commit,
    "shared-tree-user-commit": shared_tree_user_commit,
    "serve-driven-by-a-web-page": serve_driven_by_a_web_page,
    "forged-cache-record": forged_cache_record,
    "incomplete-answers": incomplete_answers,
    "endless-input": endless_input,
    "cli-messages": cli_messages,
    "graph-too-large": graph_too_large,
    "forged-index-memo": forged_index_memo,
    "forged-holders-cache": forged_holders_cache,
    "agent-drops-the-persons-hand-commit": agent_drops_the_persons_hand_commit,
    "hand-commit-across-queues": hand_commit_across_queues,
    "hand-pull-after-rewrite": hand_pull_after_rewrite,
    "uncommitted-answer-wait": uncommitted_answer_wait,
    "agent-hand-commit-pushed-by-atk": agent_hand_commit_pushed_by_atk,
    "agent-forged-conflict-ref": agent_forged_conflict_ref,
    "named-pipes-in-git": named_pipes_in_git,
    "gh-flood": gh_flood,
}


def isolated_env(tmp: Path) -> None:
    for var in ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT", "ATK_AGENT_ID", "ATK_LOOP_SESSION",
                "ATK_PRIVATE_NOTES", "GIT_INDEX_FILE"):
        os.environ.pop(var, None)
    os.environ.update(
        {
            "XDG_CONFIG_HOME": str(tmp / "xdg"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "faults",
            "GIT_AUTHOR_EMAIL": "faults@atk.invalid",
            "GIT_COMMITTER_NAME": "faults",
            "GIT_COMMITTER_EMAIL": "faults@atk.invalid",
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        }
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated scenario names")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args(argv)
    names = args.only.split(",") if args.only else list(SCENARIOS)
    base = Path(tempfile.mkdtemp(prefix="atk-faults-"))
    isolated_env(base)
    failed = 0
    try:
        for name in names:
            tmp = base / name
            tmp.mkdir()
            t0 = time.time()
            try:
                summary = SCENARIOS[name](tmp)
                status = "ok"
            except Exception as exc:
                failed += 1
                status = "FAIL"
                summary = f"{type(exc).__name__}: {exc}"
                if not isinstance(exc, FaultCheckFailed):
                    summary += "\n" + traceback.format_exc()
            print(f"{status:4} {name:34} {time.time() - t0:5.1f} s  {summary}")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print(f"{len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
