"""git's own state and words: whether a write may happen now (a git operation in progress, a
detached HEAD, unresolved conflicts, another git process holding the index), how long a
writer waits for the store lock, and git's reason for a failed pull or push in one line
(SPEC §9, §14)."""

from __future__ import annotations

import os
import re
import time
from typing import TYPE_CHECKING

from atk_tui.domain.errors import AtkError, GitFailed
from atk_tui.host.procs import lock_is_held
from atk_tui.host.regular import read_regular

if TYPE_CHECKING:
    from atk_tui.store.gitstore import GitStore

LOCK_TIMEOUT = 10.0
LOCK_TIMEOUT_ENV = "ATK_LOCK_TIMEOUT"
_SHA = re.compile(r"[0-9a-f]{40}")


def push_behind_remote(output: str) -> bool:
    """git refused the push only because the remote has commits we lack (`! [rejected] ...
    (fetch first)` / `(non-fast-forward)`): pulling and pushing again can help. A hook or a
    policy refusing it (`! [remote rejected] ... (pre-receive hook declined)`) cannot."""
    if "[remote rejected]" in output:
        # another clone's push won the race for the branch's ref (`failed to update ref`,
        # `cannot lock ref ... but expected ...`): pulling and pushing again can help
        return "failed to update ref" in output or ("cannot lock ref" in output and "but expected" in output)
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
    return git_error_lines(output, "push failed")


#: what git adds after every failure to reach a remote: true, and never the reason
_BOILERPLATE = {"please make sure you have the correct access rights", "and the repository exists"}


def git_error_lines(output: str, fallback: str = "unknown error") -> str:
    """git's reason for a failed pull, fetch or push, in one line: its `fatal:` and `error:`
    lines (`'/x' does not appear to be a git repository; Could not read from remote
    repository.`), else the last line that says something (not a `hint:`, not the access
    rights boilerplate); `fallback` when git said nothing."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    said = [ln for ln in lines if not ln.startswith("hint:") and ln.rstrip(".").casefold() not in _BOILERPLATE]
    marked: list[str] = []
    for i, ln in enumerate(said):
        if not ln.startswith(("fatal:", "error:")):
            continue
        text = ln.partition(":")[2].strip()
        # a reason git goes on with on the next lines ("unable to connect to 127.0.0.1:" then
        # "127.0.0.1[0: 127.0.0.1]: errno=Connection refused"): kept whole (issue 39)
        for more in said[i + 1 :]:
            if not text.endswith(":") or more.startswith(("fatal:", "error:", "warning:", "remote:")):
                break
            text = f"{text} {more}"
        marked.append(text)
    picked = [ln for ln in marked if ln] or said[-1:]
    return "; ".join(dict.fromkeys(picked)) or fallback


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


def git_state_problem(store: GitStore, *, unmerged: bool = True) -> str | None:
    """Why a write must not happen now (a git operation in progress, a detached HEAD,
    unresolved conflicts), with what to do; None when the store is fine to write.
    `unmerged` False: not the conflicts (a write learns them from its look at the index,
    `transaction.look_at_index`, and says `unmerged_problem`)."""
    g, where = store.git_dir, f"git -C {store.root}"
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
        head = read_regular(g / "HEAD", 4096).decode("utf-8", "replace").strip()
    except OSError:
        head = ""
    if _SHA.fullmatch(head):
        return (
            f"the store's HEAD is detached (at {head[:10]}): a write would be lost on the next checkout; "
            f"check out a branch first ({where} switch main, or the branch you use), then retry"
        )
    found = unmerged_paths(store) if unmerged else []
    return unmerged_problem(store, found) if found else None

def unmerged_problem(store: GitStore, unmerged: list[str]) -> str:
    """What `git_state_problem` says of unresolved conflicts in these paths."""
    names = ", ".join(unmerged[:5]) + (" …" if len(unmerged) > 5 else "")
    return (
        f"the store has unresolved conflicts ({names}): resolve them and `git add` the files "
        f"(or git -C {store.root} checkout HEAD -- FILE to drop a change), then retry"
    )

def wait_for_index_lock(store: GitStore, timeout: float | None = None) -> None:
    """Before a write changes anything: wait (as for the store lock) while a live process
    holds git's `index.lock`, remove one no process holds, and refuse when it stays held,
    so that a write never fails half way (and rolls back) on someone else's git command."""
    lock = store.git_dir / "index.lock"
    if not os.path.lexists(lock):
        return
    if timeout is None:
        timeout = store.lock_timeout if store.lock_timeout is not None else lock_timeout()
    deadline = time.monotonic() + timeout
    while os.path.lexists(lock):
        if not lock_is_held(lock, store.root):
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

def check_git_state(store: GitStore, *, unmerged: bool = True) -> None:
    """Refuse a write (AtkError, exit 1) when `git_state_problem()` names one."""
    problem = git_state_problem(store, unmerged=unmerged)
    if problem:
        raise AtkError(f"refused: {problem}")


def rebase_in_progress(store: GitStore) -> bool:
    return (store.git_dir / "rebase-merge").exists() or (store.git_dir / "rebase-apply").exists()


def abort_rebase(store: GitStore) -> None:
    if rebase_in_progress(store):
        store.git("rebase", "--abort", check=False)


def has_uncommitted(store: GitStore) -> bool:
    """Whether a tracked file has uncommitted changes (staged or not)."""
    env = {**store.read_env, "GIT_OPTIONAL_LOCKS": "0"}  # a look: never takes the index lock from a writer
    proc = store.git("status", "--porcelain", "--untracked-files=no", "-z", check=False, env=env)
    return proc.returncode != 0 or bool(proc.stdout.strip("\0"))


def unmerged_paths(store: GitStore) -> list[str]:
    """Paths with an unresolved conflict in the index."""
    proc = store.git("ls-files", "-u", "-z", check=False, env=store.read_env)
    paths = {rec.partition("\t")[2] for rec in proc.stdout.split("\0") if "\t" in rec}
    return sorted(paths)
