"""The store against its remote: pull (rebase), push, commits set aside on conflict (SPEC §9,
§14); the guards against a rebase or merge in progress are in `gitstate`."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from atk_tui.domain.errors import AtkError, GitFailed, GitTimeout, Interrupted
from atk_tui.store.files import _read_private, _write_private
from atk_tui.store.gitstate import (
    _SHA,
    abort_rebase,
    check_git_state,
    git_error_lines,
    git_state_problem,
    push_behind_remote,
    push_failure_reason,
    rebase_in_progress,
    unmerged_paths,
)

if TYPE_CHECKING:
    from atk_tui.store.gitstore import GitStore

PUSH_TRIES = 3
PULL_MARKER = "atk-pulling"
#: the remote branch tip this clone last pushed or integrated ("<upstream> <sha>"): a remote
#: that no longer contains it was rewritten (force-pushed back), see `_note_rewrite`
REMOTE_SEEN = "atk-remote-pushed"
#: how the warning about a rewritten remote begins (front ends show it as an error)
REWRITTEN = "the remote was rewritten"
_FINGERPRINT = "%s%x00%an <%ae>%x00%ad"  # what a rebase keeps of a commit (`_fingerprints`)
_UNSET = object()



def is_alarm(warning: str) -> bool:
    """A write's warning that must not pass as a mere warning: the remote was rewritten and
    commits this clone had pushed were dropped from it (shown as an error)."""
    return warning.startswith(REWRITTEN)


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
    #: (sha before the rebase, subject) of commits this clone had pushed or pulled that a
    #: rewritten remote dropped: kept on the branch (rebased) and pushed again
    repushed: list[tuple[str, str]] = field(default_factory=list)
    #: (subject, item filename, parts) of commits a pull replayed by merging the item over its
    #: parts (`merge.merge_item`): both sides' changes kept, nothing set aside
    merged: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)


class Remote:
    """The store against its remote: everything that pulls, pushes or sets aside. A `GitStore`
    holds one as `store.remote` and asks it inside its lock (`writing()`: `pull` before the
    change, `push` after the commit); git's in-progress state is `gitstate`'s."""

    def __init__(self, store: GitStore) -> None:
        self.store = store
        #: called before every push (in an agent environment: the service's check that the
        #: commits to push hold no change only the user makes, issue 38); raises AtkError to
        #: refuse the push: nothing pushed, nothing rewritten
        self.push_check: Callable[[], None] | None = None
        self._upstream_memo: object = None  # (upstream,) while the store lock is held

    def hold_upstream(self, held: bool) -> None:
        """While the store lock is held (`GitStore.locked`), `upstream()` asks git at most once."""
        self._upstream_memo = _UNSET if held else None

    def upstream(self) -> str | None:
        """The upstream branch (e.g. origin/main) when one is configured."""
        memo = self._upstream_memo
        if memo is not None and memo is not _UNSET:
            return memo[0]
        proc = self.store.git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}", check=False)
        found = proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else None
        if memo is _UNSET:
            self._upstream_memo = (found,)
        return found

    def unpushed(self) -> int:
        if not self.upstream():
            return 0
        proc = self.store.git("rev-list", "--count", "@{u}..HEAD", check=False)
        return int(proc.stdout.strip() or 0) if proc.returncode == 0 else 0

    def _fingerprints(self, *log_args: str) -> set[tuple[str, str, str]]:
        """(subject, author, author date) of the commits `git log ARGS` lists: what a rebase
        keeps of a commit (its SHA changes)."""
        proc = self.store.git("log", f"--format={_FINGERPRINT}", "--date=raw", *log_args, check=False)
        return {tuple(line.split("\0")) for line in proc.stdout.splitlines() if line.count("\0") == 2}  # type: ignore[misc]

    def _rebased_sha(self, fingerprint: tuple[str, str, str]) -> str | None:
        """The SHA a rebase gave the unpushed commit with this fingerprint; None when the
        rebase dropped it (the newest one when several match)."""
        proc = self.store.git("log", f"--format=%H%x00{_FINGERPRINT}", "--date=raw", "@{u}..HEAD", check=False)
        for line in proc.stdout.splitlines():
            sha, _, rest = line.partition("\0")
            if tuple(rest.split("\0")) == fingerprint:
                return sha
        return None

    def pull(self, result: WriteResult, *, autostash: bool = True) -> bool:
        """Pull (rebase) before a write. False when the remote timed out (do not push then).
        `autostash` False (the dashboard's pull): a work tree with uncommitted changes is
        not pulled into (git refuses the rebase; the warning says so)."""
        if rebase_in_progress(self.store):
            # someone else's rebase (a write checks `git_state_problem` first; the dashboard's
            # periodic pull does not): never pull into it, nor abort it
            result.warnings.append("not pulling: " + (git_state_problem(self.store) or "a rebase is in progress"))
            return True
        if not self.upstream():
            return True
        limit = self._pull_limit()
        try:
            proc = self._pull_rebase(result, autostash=autostash, fetch_timeout=limit)
        except Interrupted:
            abort_rebase(self.store)
            raise
        except GitFailed as exc:
            abort_rebase(self.store)
            if isinstance(exc, GitTimeout):
                # issue 39: bounded like a read; the write goes on locally and says so
                result.warnings.append(
                    f"could not pull from the remote: it did not answer within {limit:g} s "
                    "([git] pull_timeout, $ATK_PULL_TIMEOUT)"
                )
                return False
            result.warnings.append(f"could not pull from the remote: {exc}")
            return True
        if proc.returncode != 0:
            abort_rebase(self.store)
            result.warnings.append("could not pull from the remote: " + git_error_lines(proc.stderr or proc.stdout))
            return True
        self._check_autostash(proc)
        return True

    def _pull_limit(self) -> float:
        """How long the pull before a write may take (`[git] pull_timeout`, $ATK_PULL_TIMEOUT;
        a few seconds, as a read's look)."""
        try:
            return self.store.limit("pull_timeout")
        except KeyError:  # limits given without it
            return self.store.limit("timeout")

    def _pull_rebase(
        self, result: WriteResult | None = None, *, autostash: bool = True, fetch_timeout: float | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Fetch, then rebase onto the upstream without fork-point (`--no-fork-point`), under
        the time limit, with a marker file saying a pull is under way: a writer killed during
        it leaves a rebase half done, which the next writer aborts (`_recover_pull`).

        Not `git pull --rebase`: its fork-point takes a commit the remote-tracking ref once
        pointed at as upstream's, so a commit we pushed that the remote then lost (a force
        push back) would be dropped from our branch without a word. Rebasing onto `@{u}`
        keeps every commit the remote lacks; `_note_rewrite` says so in `result`."""
        marker = self.store.git_dir / PULL_MARKER
        _write_private(marker, str(os.getpid()).encode())
        try:
            before = self._tracking_tip()
            fetch = self.store.git("fetch", "-q", check=False, timeout=fetch_timeout or self.store.limit("timeout"), slow=True)
            if fetch.returncode != 0:
                return fetch
            self._note_rewrite(result, before)
            _write_private(marker, str(os.getpid()).encode())  # the rebase starts now
            proc = self.store.git(
                "rebase", "-q", "--autostash" if autostash else "--no-autostash", "--no-fork-point", "@{u}",
                check=False, timeout=self.store.limit("timeout"),
            )  # fmt: skip
            proc = self._merge_through(proc, result)
            if proc.returncode == 0:
                self._remember_remote()
            return proc
        finally:
            marker.unlink(missing_ok=True)

    # -- a rewritten remote ---------------------------------------------------------------

    def _tracking_tip(self) -> str | None:
        proc = self.store.git("rev-parse", "-q", "--verify", "@{u}^{commit}", check=False)
        sha = proc.stdout.strip()
        return sha if proc.returncode == 0 and _SHA.fullmatch(sha) else None

    def _remember_remote(self) -> None:
        """Record the upstream tip (after a push or a rebase onto it: our branch contains it)."""
        upstream, tip = self.upstream(), self._tracking_tip()
        if upstream and tip:
            try:
                _write_private(self.store.git_dir / REMOTE_SEEN, f"{upstream} {tip}\n".encode())
            except OSError:
                pass

    def _remembered_remote(self, tip: str | None = None) -> str | None:
        """The tip `_remember_remote` recorded for the current upstream, when still known
        (None as well when it is `tip`: nothing to look at)."""
        try:
            upstream, _, sha = _read_private(self.store.git_dir / REMOTE_SEEN, 4096).decode().strip().partition(" ")
        except (OSError, UnicodeDecodeError):
            return None
        if upstream != self.upstream() or not _SHA.fullmatch(sha) or sha == tip:
            return None
        known = self.store.git("cat-file", "-e", f"{sha}^{{commit}}", check=False)
        return sha if known.returncode == 0 else None

    def _is_ancestor(self, older: str, newer: str) -> bool:
        return self.store.git("merge-base", "--is-ancestor", older, newer, check=False).returncode == 0

    def dropped_by_remote(self, before: str | None = None) -> list[tuple[str, str]]:
        """(sha, subject) of the commits on our branch that the remote had (we pushed them,
        or pulled them from it) and no longer has: it was rewritten (force-pushed back). The
        remote's tip is the fetched `@{u}`; what it had is the tip we recorded last
        (`REMOTE_SEEN`) and `before`, the remote-tracking ref before this fetch."""
        tip = self._tracking_tip()
        if tip is None:
            return []
        found: dict[str, str] = {}
        for seen in dict.fromkeys(s for s in (self._remembered_remote(tip), before) if s and s != tip):
            if self._is_ancestor(seen, tip):
                continue
            # only what our branch still holds: a commit the person dropped on purpose (a
            # reset) is not brought back
            base = seen if self._is_ancestor(seen, "HEAD") else self.store.git("merge-base", seen, "HEAD", check=False).stdout.strip()
            if not _SHA.fullmatch(base):
                continue
            log = self.store.git("log", "--format=%H%x00%s", base, f"^{tip}", check=False).stdout
            for line in log.splitlines():
                sha, _, subject = line.partition("\0")
                found.setdefault(sha, subject)
        return list(found.items())

    def lost_in_rewrite(self) -> list[tuple[str, str]]:
        """(sha, subject) of commits this clone had pushed (the recorded tip, `REMOTE_SEEN`)
        that a rewritten remote dropped and that our branch no longer holds either: a hand
        `git pull --rebase` (its fork-point takes them for the remote's), or a fetch and a
        reset, after someone else's force push. Not when this clone pushed the remote's tip
        itself (the person rewinding their own branch and remote on purpose)."""
        tip = self._tracking_tip()
        seen = self._remembered_remote(tip)
        if tip is None or seen is None or self._is_ancestor(seen, tip):
            return []
        upstream = self.upstream() or ""
        log = self.store.git("reflog", "show", "-n", "50", "--format=%H%x00%gs", f"refs/remotes/{upstream}", check=False)
        moved = next((msg for sha, _, msg in (ln.partition("\0") for ln in log.stdout.splitlines()) if sha == tip), "")
        if moved.startswith("update by push"):
            return []
        out = self.store.git("log", "--format=%H%x00%s", seen, f"^{tip}", "^HEAD", check=False).stdout
        return [(sha, subject) for sha, _, subject in (ln.partition("\0") for ln in out.splitlines()) if _SHA.fullmatch(sha)]

    def _note_rewrite(self, result: WriteResult | None, before: str | None) -> None:
        """After a fetch: when the remote dropped commits our branch holds, say so loudly in
        `result` (they are kept: the rebase onto `@{u}` replays them, the push sends them).
        Commits it dropped that our branch lost too (`lost_in_rewrite`) are set aside as
        `refs/atk/conflicts/<sha>` for the person, said as loudly."""
        if result is None:
            return
        lost = [c for c in self.lost_in_rewrite() if c[0] not in {s for s, _ in result.set_aside}]
        for sha, _subject in lost:
            self.store.git("update-ref", f"refs/atk/conflicts/{sha}", sha, check=False)
        if lost:
            names = ", ".join(f"{sha[:10]} '{subject}'" for sha, subject in lost[:5]) + (" …" if len(lost) > 5 else "")
            result.warnings.append(
                f"{REWRITTEN} (force-pushed back) and {len(lost)} commit{'s' if len(lost) != 1 else ''} this clone had "
                f"pushed {'are' if len(lost) != 1 else 'is'} no longer on your branch either (a `git pull --rebase` or a "
                f"reset after the rewrite dropped {'them' if len(lost) != 1 else 'it'}): {names}. Set aside as "
                "refs/atk/conflicts/<sha>, nothing is lost: resolve it with `atk wi conflicts` (keeping yours puts it back)"
            )
        dropped = [c for c in self.dropped_by_remote(before) if c[0] not in {s for s, _ in result.repushed}]
        if not dropped:
            return
        result.repushed += dropped
        n = len(dropped)
        names = ", ".join(f"{sha[:10]} '{subject}'" for sha, subject in dropped[:5]) + (" …" if n > 5 else "")
        result.warnings.append(
            f"{REWRITTEN} (force-pushed back): {self.upstream()} no longer has {n} commit{'s' if n != 1 else ''} "
            f"this clone had pushed or pulled: {names}. They are kept on your branch and pushed again (one "
            "that conflicts with what the remote has now stays unpushed or is set aside: `atk wi commit` says "
            "which); nothing was dropped. Tell whoever rewrote the remote (their copy lacks them)"
        )

    def _check_autostash(self, proc: subprocess.CompletedProcess[str]) -> None:
        """`git pull --autostash` exits 0 when putting the user's uncommitted edits back
        conflicts with what it pulled (it leaves unmerged files and keeps the edits in the
        stash). Never silent: refuse the write and say how to get the edits back."""
        said = f"{proc.stdout}\n{proc.stderr}"
        unmerged = unmerged_paths(self.store)
        if not unmerged and "autostash" not in said.lower():
            return
        if not unmerged and "conflict" not in said.lower():
            return
        files = ", ".join(unmerged[:5]) + (" …" if len(unmerged) > 5 else "") if unmerged else "your edited files"
        raise AtkError(
            "the pull before this write brought in changes that conflict with your uncommitted edits "
            f"({files}); your edits are kept in the stash (`git -C {self.store.root} stash list`). Resolve the "
            f"conflict in those files and `git add` them (or `git -C {self.store.root} checkout HEAD -- FILE` and "
            "`git stash pop` again), then retry; nothing was written"
        )

    def push(self, result: WriteResult) -> None:
        if not self.upstream():
            result.pushed = None
            return
        last = ""
        mine = next(iter(self._fingerprints("-1", result.commit)), None) if result.commit else None
        for _ in range(PUSH_TRIES):
            if self.push_check is not None:
                try:
                    self.push_check()
                except AtkError:
                    result.pushed = False
                    raise
            try:
                proc = self.store.git("push", "-q", check=False, timeout=self.store.limit("push_timeout"), slow=True)
            except Interrupted:
                last = "the push was interrupted; the commit is kept locally"
                break
            except GitTimeout:
                last = f"git push timed out after {self.store.limit('push_timeout'):g} s; the commit is kept locally"
                break
            except GitFailed as exc:
                last = str(exc)
                break
            if proc.returncode == 0:
                result.pushed = True
                self._remember_remote()
                return
            last = (proc.stderr or proc.stdout).strip()
            if not push_behind_remote(last):
                break  # refused by a hook or policy, or another failure: a rebase cannot help
            try:
                reb = self._pull_rebase(result)
            except (GitFailed, Interrupted) as exc:  # timed out or interrupted: the commit stays
                abort_rebase(self.store)
                last = f"{exc}; your commit is kept locally"
                break
            if reb.returncode != 0:
                abort_rebase(self.store)
                said = f"{reb.stdout}\n{reb.stderr}"
                if "CONFLICT" in said or "could not apply" in said:
                    last = "rebase onto the remote hit a conflict; your commit is kept locally"
                else:  # the pull itself failed (the remote went away meanwhile): git's reason
                    last = f"could not pull from the remote: {git_error_lines(reb.stderr or reb.stdout)}"
                break
            if mine:
                # the rebase gave our commit a new SHA: report the one that is pushed
                rebased = self._rebased_sha(mine)
                if rebased is None:
                    # the rebase dropped our commit: the remote already had the same change
                    result.superseded = mine[0]
                    mine = None
                else:
                    result.commit = rebased
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
        with self.store.locked():
            check_git_state(self.store)
            if not self.upstream():
                result.warnings.append("no remote with an upstream branch is configured; nothing to push")
                return result
            if pull:
                try:
                    self._rebase_setting_aside(result)
                except Interrupted:
                    abort_rebase(self.store)  # never leave our own rebase half done
                    raise
            self.push(result)
        return result

    def _rebase_setting_aside(self, result: WriteResult) -> None:
        before = self._tracking_tip()
        try:
            fetch = self.store.git("fetch", "-q", check=False, timeout=self.store.limit("timeout"), slow=True)
        except GitFailed as exc:
            result.warnings.append(f"could not pull from the remote: {exc}")
            return
        if fetch.returncode != 0:
            result.warnings.append("could not pull from the remote: " + git_error_lines(fetch.stderr or fetch.stdout, "fetch failed"))
            return
        self._note_rewrite(result, before)
        before_fp = self._fingerprints("@{u}..HEAD")
        aside: set[tuple[str, str, str]] = set()
        proc = self.store.git("rebase", "-q", "--autostash", "--no-fork-point", "@{u}", check=False, timeout=60)
        for _ in range(10_000):
            proc = self._merge_through(proc, result)
            if proc.returncode == 0 or not rebase_in_progress(self.store):
                break
            stopped = self.store.git("rev-parse", "-q", "--verify", "REBASE_HEAD", check=False).stdout.strip()
            if not stopped:
                break
            subject = self.store.git("show", "-s", "--format=%s", stopped, check=False).stdout.strip()
            self.store.git("update-ref", f"refs/atk/conflicts/{stopped}", stopped)
            result.set_aside.append((stopped, subject))
            aside |= self._fingerprints("-1", stopped)
            result.warnings.append(
                f"set aside '{subject}' ({stopped[:10]}): it conflicts with a change made on the remote "
                f"meanwhile; kept as refs/atk/conflicts/{stopped} (see it with `git show {stopped[:10]}`)"
            )
            proc = self.store.git("rebase", "--skip", check=False, timeout=60)
        if rebase_in_progress(self.store):
            abort_rebase(self.store)
            result.warnings.append("could not rebase onto the remote: " + git_error_lines(proc.stderr or proc.stdout))
            return
        self._remember_remote()
        for subject, _, _ in sorted(before_fp - aside - self._fingerprints("@{u}..HEAD")):
            result.warnings.append(f"'{subject}' was already on the remote (another machine made the same change)")

    # -- merging an item over its parts where the rebase stopped (issue 39) ---------------

    def _merge_through(self, proc: subprocess.CompletedProcess[str], result: WriteResult | None) -> subprocess.CompletedProcess[str]:
        """While the rebase `proc` ran stops on a commit git could not replay line by line,
        merge the items that commit changes over their parts (`merge.merge_item`) and go on;
        returns the rebase's last step (still stopped: a part both sides changed differently,
        which the caller sets aside or aborts as before)."""
        for _ in range(10_000):
            if proc.returncode == 0 or not rebase_in_progress(self.store):
                return proc
            merged = self._merge_stopped()
            if merged is None:
                return proc
            if result is not None:
                result.merged += merged
                for subject, name, parts in merged:
                    said = ", ".join(parts) if parts else "different parts"
                    result.warnings.append(
                        f"merged '{subject}' with a change made on the remote meanwhile ({name}: {said}): "
                        "both changes are kept"
                    )
            if self.store.git("diff", "--cached", "--quiet", "HEAD", check=False).returncode == 0:
                proc = self.store.git("rebase", "--skip", check=False, timeout=60)  # the change is there already
            else:
                proc = self.store.git("rebase", "--continue", check=False, timeout=60)  # GIT_EDITOR=true: its own message
        return proc

    def _merge_stopped(self) -> list[tuple[str, str, tuple[str, ...]]] | None:
        """The rebase stopped on a conflict: merge every item file the stopped commit changes
        (its parent's version, its own, and what the rebase has so far) over its parts, and
        stage the result. None (nothing staged) when something cannot be merged so: a part both
        sides changed differently, a conflict in a file that is not an item."""
        from atk_tui.domain.model import is_valid_filename
        from atk_tui.domain.queues import QUEUES, queue_named
        from atk_tui.store.merge import merge_item

        stopped = self.store.git("rev-parse", "-q", "--verify", "REBASE_HEAD", check=False).stdout.strip()
        if not _SHA.fullmatch(stopped):
            return None
        changed = self.store.git("diff", "--name-only", "--no-renames", "-z", f"{stopped}^", stopped, check=False)
        if changed.returncode != 0:
            return None
        folders = {q.name for q in QUEUES}
        names: dict[str, str] = {}  # filename -> queue
        others: list[str] = []
        for path in filter(None, changed.stdout.split("\0")):
            parts = path.split("/")
            if len(parts) == 3 and parts[0] in folders and parts[1] in queue_named(parts[0]).states and is_valid_filename(parts[2]):
                if names.setdefault(parts[2], parts[0]) != parts[0]:
                    return None
            else:
                others.append(path)
        unmerged = set(unmerged_paths(self.store))
        if not names or unmerged & set(others):
            return None
        candidates = {n: [f"{q}/{s}/{n}" for s in queue_named(q).states] for n, q in names.items()}
        every = [p for paths in candidates.values() for p in paths]
        versions = {rev: self._item_versions(rev, every) for rev in (f"{stopped}^", stopped, "HEAD")}
        mine_user = self._actor_of(stopped) == "user"
        merged: list[tuple[str, str, tuple[str, ...]]] = []
        plan: list[tuple[list[str], tuple[str, bytes] | None, str]] = []
        subject = self.store.git("show", "-s", "--format=%s", stopped, check=False).stdout.strip()
        for name, queue in names.items():
            base, mine, theirs = (versions[rev].get(name) for rev in (f"{stopped}^", stopped, "HEAD"))
            theirs_user = self._user_changed_since(f"{stopped}^", candidates[name])
            out = merge_item(base, mine, theirs, mine_user=mine_user, theirs_user=theirs_user, filename=name)
            if not out.ok:
                return None
            plan.append((candidates[name], out.result, queue))
            merged.append((subject, name, out.parts))
        for paths, version, queue in plan:
            self.store.git("rm", "-q", "--cached", "--ignore-unmatch", "--", *paths, check=False)
            for path in paths:
                try:
                    (self.store.root / path).unlink()
                except FileNotFoundError:
                    pass
            if version is not None:
                state, data = version
                path = f"{queue}/{state}/{paths[0].rsplit('/', 1)[1]}"
                blob = self.store.git("hash-object", "-w", "--stdin", "--path", path, input=data.decode("utf-8", "surrogateescape"), check=False)
                sha = blob.stdout.strip()
                if blob.returncode != 0 or not _SHA.fullmatch(sha):
                    return None
                self.store.git("update-index", "--add", "--cacheinfo", f"100644,{sha},{path}")
                self.store.git("checkout-index", "-f", "--", path)
        if unmerged_paths(self.store):
            return None
        return merged

    def _item_versions(self, rev: str, paths: list[str]) -> dict[str, tuple[str, bytes]]:
        """filename -> (state, bytes) of the item files among `paths` that `rev` holds."""
        listed = self.store.git("ls-tree", "-z", rev, "--", *paths, check=False)
        out: dict[str, tuple[str, bytes]] = {}
        for rec in filter(None, listed.stdout.split("\0")):
            meta, _, path = rec.partition("\t")
            fields = meta.split()
            if len(fields) != 3 or fields[1] != "blob":
                continue
            data = self._blob_bytes(fields[2])
            if data is not None:
                _queue, state, name = path.split("/")
                out[name] = (state, data)
        return out

    def _blob_bytes(self, sha: str) -> bytes | None:
        return self.store.blobs([sha])[0]

    def _actor_of(self, rev: str) -> str:
        said = self.store.git("show", "-s", "--format=%(trailers:key=Atk-Actor,valueonly,separator=%x2c)", rev, check=False)
        return said.stdout.strip().split(",")[-1].strip()

    def _user_changed_since(self, base: str, paths: list[str]) -> bool:
        """Whether the person made one of the commits that changed `paths` between `base`'s
        merge-base with HEAD and HEAD (the other side of a merge)."""
        since = self.store.git("merge-base", base, "HEAD", check=False).stdout.strip()
        if not _SHA.fullmatch(since):
            return False
        log = self.store.git(
            "log", "--format=%(trailers:key=Atk-Actor,valueonly,separator=%x2c)", f"{since}..HEAD", "--", *paths, check=False
        )
        return any(line.strip().split(",")[-1].strip() == "user" for line in log.stdout.splitlines())

    def recover_pull(self) -> None:
        """A writer killed during its pre-write pull left the marker, and maybe a rebase half
        done (and the user's autostashed edits in it): abort that rebase, which also puts the
        edits back. Runs under the store lock, so the marker's writer is gone."""
        marker = self.store.git_dir / PULL_MARKER
        try:
            started = os.lstat(marker).st_mtime
        except FileNotFoundError:
            return
        rebase = next((d for d in (self.store.git_dir / "rebase-merge", self.store.git_dir / "rebase-apply") if d.is_dir()), None)
        # only the rebase that pull made: it last changed while the pull could run. One the
        # user started later is theirs (the guard then refuses the write with what to do).
        if rebase is not None and rebase.stat().st_mtime <= started + self.store.limit("timeout") + 5:
            self.store._clear_stale_index_lock()
            self.store.git("rebase", "--abort", check=False)
        marker.unlink(missing_ok=True)
