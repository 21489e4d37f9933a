"""Reading the queue, one item, its history; the store against its remote."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from atk_tui.domain.model import ACTIVE, Item, Snapshot, StoreDefect, is_valid_filename
from atk_tui.domain.queues import QUEUES, queue_named
from atk_tui.host.config import plan_files_missing
from atk_tui.itemfile.items import MAX_ITEM_BYTES, parse_item
from atk_tui.service.core.base import ServiceBase
from atk_tui.service.reading import fromfiles, loading
from atk_tui.service.types import (
    SHA_RE,
    HistoryEntry,
    Outcome,
    QueueView,
    RemoteLook,
    _code,
    utc_now,
)
from atk_tui.store import AtkError, WriteResult, item_path
from atk_tui.store.gitstate import has_uncommitted, rebase_in_progress
from atk_tui.store.storesig import RACY_NS

if TYPE_CHECKING:
    from atk_tui.domain.readiness import Judgement
    from atk_tui.service.history.githistory import ItemCommit, ItemDiff, ItemLog

class Reads(ServiceBase):
    """Reads: nothing here writes to the store."""

    #: set by a process that lists once and exits (`atk wi list`): no stat keys are taken for
    #: a next `queue(previous=...)` (there is none: a view passed back anyway has every file
    #: read again)
    one_shot = False

    def pull(self, *, lock_timeout: float | None = 2) -> Outcome:
        """Pull (rebase) from the remote now, under the store lock, without writing anything
        (the dashboard's periodic and `r` pull); when the remote was rewritten and dropped
        commits this clone had pushed, push them back (the warning says so). Ok with the
        warnings, or refused (code "busy" when the store is locked, else the error's code).
        Never pulls into, nor aborts, a rebase someone else started.

        Like a read (SPEC §15) it never touches uncommitted work: with uncommitted changes in
        the work tree it only fast-forwards, as a read command does (`store.freshen`), and says
        what stopped it ("not pulling: …"); the rebase runs only on a clean work tree, without
        a stash."""
        try:
            if not rebase_in_progress(self.store) and has_uncommitted(self.store):  # (a rebase: `Remote.pull` says so)
                from atk_tui.store.freshen import freshen

                found = freshen(self.root, window=0)
                warnings = [f"not pulling: {found.stale.removeprefix('not pulled: ')}"] if found.stale else []
            else:
                result = WriteResult()
                with self.store.locked(lock_timeout):
                    self.store.remote.pull(result, autostash=False)
                    if result.repushed and self.push_on_write:
                        self.store.remote.push(result)  # a rewritten remote gets back what it dropped at once
                warnings = result.warnings
        except AtkError as exc:
            return Outcome(False, "pull", exc.message, exit_code=exc.exit_code, code=_code(exc) or "busy")
        return Outcome(True, "pull", "pulled", warnings=tuple(warnings))

    def look_at_remote(self) -> RemoteLook:
        """One `git ls-remote` of the upstream branch (no objects fetched), so the dashboard
        can look every few seconds and pull only when something was pushed: whether it
        moved, or why the remote could not be asked."""
        from atk_tui.store import git_error_lines

        upstream = self.store.remote.upstream()
        if not upstream or "/" not in upstream:
            return RemoteLook(False)
        remote, branch = upstream.split("/", 1)
        limit = self.store.limit("timeout")
        try:
            proc = self.store.git("ls-remote", "--heads", remote, f"refs/heads/{branch}", check=False,
                                  timeout=limit, slow=True)  # fmt: skip
        except AtkError as exc:  # timed out, or interrupted by a quit
            return RemoteLook(False, exc.message)
        if proc.returncode != 0:
            return RemoteLook(False, "could not reach the remote: " + git_error_lines(proc.stderr or proc.stdout))
        there = proc.stdout.split()[0] if proc.stdout.strip() else ""
        here = self.store.git("rev-parse", "-q", "--verify", f"refs/remotes/{upstream}", check=False).stdout.strip()
        if there and there == here:
            # fetched earlier but not brought in (a pull that could not fast-forward): not in step
            behind = self.store.git("merge-base", "--is-ancestor", there, "HEAD", check=False, env=self.store.read_env)
            return RemoteLook(behind.returncode != 0)
        return RemoteLook(there != here)

    def upstream(self) -> str | None:
        """The upstream branch (e.g. origin/main), None when no remote is configured."""
        return self.store.remote.upstream()

    def head(self) -> str:
        """The current commit's SHA ("" on a store without commits)."""
        return self.store.head() or ""

    def commits_touching(self, filename: str, since: str) -> list[str]:
        """Subjects of the commits after `since` (up to HEAD) that touched the item in any
        state folder, newest first (e.g. whether an edit session saved anything)."""
        if not is_valid_filename(filename):
            raise AtkError(f"bad filename {filename!r}: an item filename has no path parts", exit_code=2, code="invalid")
        head = self.head()
        if not head or not since or head == since:
            return []
        rng = f"{since}..{head}" if SHA_RE.match(since) else head
        globs = [f":(glob){q.folder}/*/{filename}" for q in QUEUES]
        proc = self.store.git("log", "-z", "--format=%s", rng, "--", *globs, check=False, env=self.store.read_env)
        return [s for s in proc.stdout.split("\0") if s]

    def read(self, filename: str, state: str | None = None, queue: str | None = None) -> Item:
        """The full item (body included). Raises AtkError when there is none."""
        found = self.core.find(filename, state, queue)
        if state and not found:  # asked for by state: read there (and refuse what is not a file)
            found = [(queue or self.q.name, state)]
        where = [s for _, s in found]
        if not where:
            linked = [
                f"{q}/{s}" for q in self.queues for s in queue_named(q).states if self.store.state_dir_link(s, q)
            ]
            if linked:
                raise AtkError(
                    f"no item named {filename} ({', '.join(linked)}: a symbolic link, never read; "
                    "replace it with a real folder)",
                    code="missing",
                )
            raise self.core.missing(filename)
        item = self.core.parse_bounded(filename, where[0], found[0][0])
        self.core.dup_defect(item, self.store.find(filename) or found)  # copies in either queue
        return item

    def path_of(self, item: Item) -> Path:
        """Where the item's file is on disk (the dashboard copies it: `Y`)."""
        return self.root / item_path(item.state, item.filename, item.queue)

    def read_bytes(self, filename: str) -> bytes:
        """The item file's exact bytes (a `base` for answer/comment/save_text)."""
        if not is_valid_filename(filename):
            raise AtkError(f"bad filename {filename!r}: an item filename has no path parts", exit_code=2, code="invalid")
        found = self.core.find(filename)
        if not found:
            raise self.core.missing(filename)
        return self.store.read_bytes(found[0][1], filename, queue=found[0][0])

    def item_warnings(self, item: Item) -> list[str]:
        """What the dashboard warns about `item` short of a defect, one line each: wi-standards'
        AWI bullets its body misses (`lint_body`, as the detail pane lists them) and a
        `plan_file` naming no file (SPEC §6 rule 1: the item stays blocked until it exists)."""
        said = list(item.warnings)
        if item.plan_file and plan_files_missing(self.root, [item.plan_file]):
            from atk_tui.host.config import planning_root_file

            where = planning_root_file(item.plan_file)
            said.append(
                f"plan file missing: {item.plan_file} (in neither the store nor the planning work root"
                + (f" {where}" if where else "")
                + "; the item is blocked until the plan is written there and stored with `atk plans commit PATH`)"
            )
        return [f"{item.filename}: {w}" for w in said]

    def plan_notes(self, item: Item) -> list[str]:
        """Where `item`'s plan is, when that is not the store yet (said after add and edit:
        the value names it all the same, and it is not a defect)."""
        from atk_tui.host.config import plan_file_place, planning_root_file

        if not item.plan_file or plan_file_place(self.root, item.plan_file) != "planning root":
            return []

        return [
            f"{item.filename}: plan file {item.plan_file} is in the planning work root ({planning_root_file(item.plan_file)}), "
            "not in the store yet; `atk plans commit` moves it there (the value stays as it is)"
        ]

    def show(self, filename: str) -> Item:
        item = self.read(filename)
        self.core.check_repo(item)
        return item

    def load_items(
        self, states: Iterable[str] = ACTIVE, progress: Callable[[int, int], None] | None = None
    ) -> tuple[dict[str, Item], dict[str, str], list[StoreDefect]]:
        """Parse the items in `states` of every queue (through the cache) and locate every
        item of both queues: dependencies cross them, so readiness needs both.
        `progress(done, total)` is called now and then while files are parsed (a cold start)."""
        items, where, defects, _ = loading.load_items(self, frozenset(states), progress)
        return items, where, defects

    @staticmethod
    def _parse_file(root: str, rel: str, name: str, state: str, queue: str) -> tuple[Item, bool]:
        """(the item in file `rel`, whether it was read whole: only then may it be cached)."""
        try:
            # never through a link (scan_all lists none; the file may change since)
            fd = os.open(os.path.join(root, rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            try:  # plain reads, no file object: 10,000 of them start a cold listing
                data = os.read(fd, MAX_ITEM_BYTES + 1)
                while len(data) <= MAX_ITEM_BYTES and (more := os.read(fd, MAX_ITEM_BYTES + 1 - len(data))):
                    data += more
                size = os.fstat(fd).st_size if len(data) > MAX_ITEM_BYTES else None
            finally:
                os.close(fd)
        except OSError as exc:
            return Item(filename=name, state=state, title=name, defects=[f"cannot read: {exc.strerror}"], queue=queue), False
        return parse_item(name, state, data, size=size, queue=queue), size is None

    def terminal_stream(self, states: Sequence[str]) -> Iterator[tuple[str | None, Callable[[], Item]]]:
        """The work items in the terminal `states`, in a listing's order (state, then
        filename), one at a time and unparsed: (key, read) where `read()` parses the file.
        `key` (blob, state and filename) names the item's content for good: a cache of
        anything derived from it alone may answer instead of `read()`; None when the item is
        not in its file alone (a copy in another state or queue adds a defect, or the file
        differs from the index). Terminal items are judged alone (`readiness.judge_terminal`),
        so 50,000 of them are listed without holding them."""
        return loading.terminal_stream(self, states)

    def queue(
        self,
        states: Iterable[str] = ACTIVE,
        progress: Callable[[int, int], None] | None = None,
        previous: QueueView | None = None,
    ) -> QueueView:
        """Everything the dashboard shows, judged at `clock()`. `progress`: see `load_items`.

        `previous`: the last view this service returned for the same `states` (the dashboard
        passes its own). Only the item files whose blob differs from that view's are read,
        and only the judgements the change can reach are worked out again
        (`QueueView.rejudged`); the result is the same as without it."""
        if self.store.journal_path.exists():
            # a write a killed process left half done must not look saved: roll it back now
            # when nobody is writing (a writer holding the lock has its own journal)
            try:
                with self.store.locked(timeout=0):
                    pass
            except AtkError:
                pass
        wanted = frozenset(states)
        if previous is not None and (previous.loaded is None or previous.loaded.states != wanted):
            previous = None  # loaded another way: nothing to go on
        head = self.store.head()
        items, where, defects, loaded = loading.load_items(self, wanted, progress, previous)
        fromfiles.committed_answers_only(self, items)  # the ready list's rule (issue 38)
        values = frozenset(i.plan_file for i in items.values() if i.plan_file)
        missing, plans = self._plans_missing(values, previous.loaded.plans if previous and previous.loaded else None)
        loaded = replace(loaded, plans=plans)
        plan_missing = frozenset(i.filename for i in items.values() if i.plan_file in missing)
        snap = Snapshot(items=items, states=where, store_defects=defects, plan_missing=plan_missing)
        now = self.clock()
        if previous is None:
            view = QueueView.judged(snap, now, head=head, store_defects=defects)
        else:
            view = previous.rejudged(snap, now, head=head, store_defects=defects)
        view.loaded = loaded
        return view

    def saved_queue(self, states: Iterable[str] = ACTIVE) -> QueueView | None:
        """The view `save_queue` kept for these states (by an earlier run, say), or None: only
        ever `queue(previous=...)`'s starting point, never shown as it is (`viewstore`)."""
        if not self.use_cache:
            return None
        from atk_tui.service.reading.viewstore import load

        return load(self.store.git_dir, states)

    def save_queue(self, view: QueueView) -> bool:
        """Keep `view` (a `queue` result) for the next run's `saved_queue`."""
        if not self.use_cache:
            return False
        from atk_tui.service.reading.viewstore import save

        return save(self.store.git_dir, view)

    def _plans_missing(
        self, values: frozenset[str], before: tuple[frozenset[str], str, frozenset[str]] | None
    ) -> tuple[frozenset[str], tuple[frozenset[str], str, frozenset[str]] | None]:
        """(the `values` naming no plan file, what tells the next call whether that still
        holds: `Loaded.plans`). `before`: the last call's; while the same values' folders
        (every folder down to each plan file's, as linked and as followed) have the same
        lstat, only values whose file is a symbolic link or outside the store are looked at."""
        from atk_tui.cache.caches import dirs_signature, plan_signature

        taken = time.time_ns()
        digest, newest, volatile, dirs = plan_signature(self.root, sorted(values), leaves=True)
        followed, newest_followed = dirs_signature([os.path.realpath(d) for d in dirs])
        digest += followed
        if before is not None and before[0] == values and before[1] == digest:
            missing = (before[2] - set(volatile)) | set(plan_files_missing(self.root, volatile))
        else:
            missing = set(plan_files_missing(self.root, values))
        trusted = max(newest, newest_followed) < taken - RACY_NS
        return frozenset(missing), ((values, digest, frozenset(missing)) if trusted else None)

    def list(
        self,
        states: Iterable[str] = ACTIVE,
        *,
        kind: str | None = None,
        target_repo: str | None = None,
        text: str | None = None,
    ) -> tuple[list[Item], QueueView]:
        view = self.queue(states)
        repo = target_repo or self.only_repo
        out = []
        needle = text.casefold() if text else None
        for item in view.items.values():
            if item.queue not in self.queues:
                continue
            if kind and item.kind != kind:
                continue
            if repo and item.target_repo != repo:
                continue
            if needle and not self._matches(item, needle):
                continue
            out.append(item)
        order = {(q.name, s): n for n, (q, s) in enumerate((q, s) for q in QUEUES for s in q.states)}
        out.sort(key=lambda i: (order.get((i.queue, i.state), 99), i.filename))
        return out, view

    def _matches(self, item: Item, needle: str) -> bool:
        """`list --text` (`listing.text_matches`): a listed item without its body (from the
        cache) has its file read where the listing found it."""
        from atk_tui.service.reading.listing import text_matches

        path = f"{self.root}/{item_path(item.state, item.filename, item.queue)}"
        return text_matches(needle, path, item.filename, item.title, item.target_repo, item.body if item.complete else None)

    def history(self, filename: str, limit: int = 50) -> list[HistoryEntry]:
        """Commits that touched the item, newest first, with the `Atk-Actor` trailer (gitpython,
        service/history/githistory.py; call it from a worker)."""
        if not is_valid_filename(filename):
            raise AtkError(f"bad filename {filename!r}", exit_code=2)
        from atk_tui.service.history.githistory import item_history  # gitpython, imported on first use

        return item_history(self.store, filename, limit)

    def item_log(self, filename: str, limit: int = 200) -> ItemLog:
        """Every commit that touched the item (any state, either queue, following moves and
        renames), newest first, each with its actor and change (`githistory.ItemLog`; at most
        `limit`, `older` counts the rest). gitpython: call it from a worker."""
        if not is_valid_filename(filename):
            raise AtkError(f"bad filename {filename!r}", exit_code=2)
        from atk_tui.service.history.githistory import item_log

        return item_log(self.store, filename, limit)

    def item_diff(self, filename: str, commit: ItemCommit | str) -> ItemDiff:
        """What one commit (an `ItemCommit` from `item_log`, or a SHA or its prefix) did to the
        item: a summary ("moved inbox → processing") and the unified diff of its text."""
        from atk_tui.service.history.githistory import item_commit, item_diff

        if isinstance(commit, str):
            sha = commit
            if not is_valid_filename(filename) or not re.fullmatch(r"[0-9a-f]{4,40}", sha):
                raise AtkError(f"give an item's filename and a commit SHA (hex), not {filename!r} {sha!r}", exit_code=2)
            commit = item_commit(self.store, filename, sha)
            if commit is None:
                raise AtkError(f"commit {sha} did not change {filename}; `atk wi log {filename}` lists the ones that did")
        return item_diff(self.store, commit)

    def wait_stats(self, *, since: datetime | None = None, now: datetime | None = None):
        """How long questions waited for the user and what they blocked (`service.history.stats`), from
        the git history, read incrementally (cached in `.git/atk-cache/stats.cache`)."""
        from atk_tui.service.history import stats
        from atk_tui.service.history.historyindex import load_index

        return stats.compute(load_index(self.store), now=now or utc_now(), since=since)

    def moved_times(self) -> dict[str, datetime]:
        """When each item came into its present state (the commit time of its last move, or of
        its adding), from the same incrementally read history index as `wait_stats`."""
        from atk_tui.service.history import stats
        from atk_tui.service.history.historyindex import load_index

        return stats.moved_times(load_index(self.store))

    def notices(self) -> list:
        """Agents' notices for the user, oldest first (`notices.Notice`)."""
        from atk_tui.service import notices

        return notices.list_notices(self.root)

    def notify(self, body: str, *, source: str | None = None) -> Outcome:
        from atk_tui.service import notices

        return notices.notify(self, body, source=source)

    def dismiss_notices(self, filenames: Sequence[str]) -> Outcome:
        """A user-only write: the notices are deleted (git history keeps them)."""
        from atk_tui.service import notices

        return notices.dismiss(self, list(filenames))

    # -- decisions from the files, never from a cache (`fromfiles`) ----------------------

    def items_from_files(
        self, names: Iterable[str], *, committed_answers: bool = True, view: QueueView | None = None
    ) -> dict[str, Item]:
        """Every active item reachable from `names` along `depends_on`, each read from its file."""
        return fromfiles.items_from_files(self, names, committed_answers=committed_answers, view=view)

    def drop_uncommitted_answers(self, items: Iterable[Item], rev: str | None = None) -> None:
        """Each question of `items` whose answer is not committed counts as unanswered."""
        fromfiles.drop_uncommitted_answers(self, items, rev)

    def judge_from_files(
        self, names: Iterable[str], view: QueueView | None = None
    ) -> dict[str, tuple[Item, Judgement]]:
        """`names` judged again from their files and those of everything they depend on."""
        return fromfiles.judge_from_files(self, names, view)

    def loop_status(self) -> dict[str, object] | None:
        """What a running `atk wi process-loop` on this store reports (None when none runs)."""
        from atk_tui.service.reading.loop import read_status

        return read_status(self.store.git_dir)

    def dependents_of(self, filename: str) -> list[str]:
        """Active items that list `filename` in depends_on."""
        items, _, _ = self.load_items(ACTIVE)
        return sorted(n for n, i in items.items() if filename in i.depends_on and n != filename)
