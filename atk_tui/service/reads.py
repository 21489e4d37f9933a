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

from atk_tui.cache.caches import ItemCache, cache_key
from atk_tui.domain.model import ACTIVE, TERMINAL, Item, Snapshot, StoreDefect, is_valid_filename
from atk_tui.domain.queues import QUEUES, Queue, queue_named
from atk_tui.host.config import plan_files_missing
from atk_tui.itemfile.items import MAX_ITEM_BYTES, parse_item
from atk_tui.service.base import ServiceBase
from atk_tui.service.types import (
    SHA_RE,
    HistoryEntry,
    Loaded,
    Outcome,
    QueueView,
    RemoteLook,
    SyncStatus,
    _code,
    utc_now,
)
from atk_tui.store import AtkError, WriteResult, item_path, states_defect
from atk_tui.store.scan import case_twins, twin_defect
from atk_tui.store.storesig import RACY_NS

if TYPE_CHECKING:
    from atk_tui.domain.readiness import Judgement
    from atk_tui.service.githistory import ItemCommit, ItemDiff, ItemLog

#: `queue(progress=...)` is told after every this many files parsed (not read from the cache)
PROGRESS_EVERY = 500
#: with a previous view, up to this many changed files are parsed without asking git for the
#: blobs and reading the item cache (which cost about as much as parsing a hundred files)
PARSE_BEFORE_CACHE = 100


def _stat_key(path: str, taken: int) -> str | None:
    """What names a file's content as long as it stays the same (inode, size, mtime, ctime:
    nothing writes a file without changing its ctime), or None when it cannot be trusted:
    changed within `RACY_NS` of `taken`, the time before it was read (a second write in the
    same clock tick could leave the stat unchanged), or not there."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if max(st.st_mtime_ns, st.st_ctime_ns) >= taken - RACY_NS:
        return None
    return f"{st.st_ino}/{st.st_dev}/{st.st_size}/{st.st_mtime_ns}/{st.st_ctime_ns}/{st.st_mode}"


def _queues_defect(first: str, second: str) -> str:
    return f"filename is in both queues at once: {first} and {second}"


class Reads(ServiceBase):
    """Reads: nothing here writes to the store."""

    #: set by a process that lists once and exits (`atk wi list`): no stat keys are taken for
    #: a next `queue(previous=...)` (there is none: a view passed back anyway has every file
    #: read again)
    one_shot = False

    def pull_now(self, *, lock_timeout: float | None = None) -> list[str]:
        """Pull (rebase) from the remote now, under the store lock, without writing anything
        (the dashboard's periodic pull); when the remote was rewritten and dropped commits
        this clone had pushed, push them back (the warning says so). Returns the warnings; raises AtkError (store busy).
        Never pulls into, nor aborts, a rebase someone else started.

        Like a read (SPEC §15) it never touches uncommitted work: with uncommitted changes in
        the work tree it only fast-forwards, as a read command does (`store.freshen`), and says
        what stopped it ("not pulling: …"); the rebase runs only on a clean work tree, without
        a stash."""
        if not self.store._rebase_in_progress() and self.store.has_uncommitted():  # (a rebase: `_pull` says so)
            from atk_tui.store.freshen import freshen

            found = freshen(self.root, window=0)
            return [f"not pulling: {found.stale.removeprefix('not pulled: ')}"] if found.stale else []
        result = WriteResult()
        with self.store.locked(lock_timeout):
            self.store._pull(result, autostash=False)
            if result.repushed and self.push_on_write:
                self.store._push(result)  # a rewritten remote gets back what it dropped at once
        return result.warnings

    def look_at_remote(self) -> RemoteLook:
        """One `git ls-remote` of the upstream branch (no objects fetched), so the dashboard
        can look every few seconds and pull only when something was pushed: whether it
        moved, or why the remote could not be asked."""
        from atk_tui.store import git_error_lines

        upstream = self.store.upstream()
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

    def pull(self, *, lock_timeout: float | None = 2) -> Outcome:
        """`pull_now` as an Outcome (the dashboard's periodic and `r` pull): ok with the
        warnings, or refused (code "busy" when the store is locked, else the error's code)."""
        try:
            warnings = self.pull_now(lock_timeout=lock_timeout)
        except AtkError as exc:
            return Outcome(False, "pull", exc.message, exit_code=exc.exit_code, code=_code(exc) or "busy")
        return Outcome(True, "pull", "pulled", warnings=tuple(warnings))

    def sync_status(self) -> SyncStatus:
        """How the store stands against its remote (the dashboard's status line)."""
        upstream = self.store.upstream()
        behind = 0
        if upstream:
            proc = self.store.git("rev-list", "--count", "HEAD..@{u}", check=False)
            behind = int(proc.stdout.strip() or 0) if proc.returncode == 0 else 0
        return SyncStatus(
            unpushed=self.store.unpushed() if upstream else 0,
            conflicts=self.conflict_count(),
            upstream=upstream,
            has_upstream=upstream is not None,
            behind=behind,
        )

    def upstream(self) -> str | None:
        """The upstream branch (e.g. origin/main), None when no remote is configured."""
        return self.store.upstream()

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

    def titles(self, names: Iterable[str]) -> dict[str, str]:
        """Each named item's title (the filename when it cannot be read); unknown names are
        left out. Terminal items included (history screens name them)."""
        out: dict[str, str] = {}
        for name in names:
            if not is_valid_filename(name):
                continue
            found = self.store.find(name)
            if not found:
                continue
            try:
                out[name] = self._parse_bounded(name, found[0][1], found[0][0]).title or name
            except (AtkError, OSError):
                out[name] = name
        return out

    def read(self, filename: str, state: str | None = None, queue: str | None = None) -> Item:
        """The full item (body included). Raises AtkError when there is none."""
        found = self._find(filename, state, queue)
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
            raise self._missing(filename)
        item = self._parse_bounded(filename, where[0], found[0][0])
        self._dup_defect(item, self.store.find(filename) or found)  # copies in either queue
        return item

    def path_of(self, item: Item) -> Path:
        """Where the item's file is on disk (the dashboard copies it: `Y`)."""
        return self.root / item_path(item.state, item.filename, item.queue)

    def read_bytes(self, filename: str) -> bytes:
        """The item file's exact bytes (a `base` for answer/comment/save_text)."""
        if not is_valid_filename(filename):
            raise AtkError(f"bad filename {filename!r}: an item filename has no path parts", exit_code=2, code="invalid")
        found = self._find(filename)
        if not found:
            raise self._missing(filename)
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

    def plan_file_at(self, plan_file: str) -> str | None:
        """Which place holds the plan `plan_file` names: "store", "planning root" (before
        `atk plans commit`), or None (neither: missing)."""
        from atk_tui.host.config import plan_file_place

        return plan_file_place(self.root, plan_file)

    def plan_notes(self, item: Item) -> list[str]:
        """Where `item`'s plan is, when that is not the store yet (said after add and edit:
        the value names it all the same, and it is not a defect)."""
        if not item.plan_file or self.plan_file_at(item.plan_file) != "planning root":
            return []
        from atk_tui.host.config import planning_root_file

        return [
            f"{item.filename}: plan file {item.plan_file} is in the planning work root ({planning_root_file(item.plan_file)}), "
            "not in the store yet; `atk plans commit` moves it there (the value stays as it is)"
        ]

    def show(self, filename: str) -> Item:
        item = self.read(filename)
        self._check_repo(item)
        return item

    def load_items(
        self, states: Iterable[str] = ACTIVE, progress: Callable[[int, int], None] | None = None
    ) -> tuple[dict[str, Item], dict[str, str], list[StoreDefect]]:
        """Parse the items in `states` of every queue (through the cache) and locate every
        item of both queues: dependencies cross them, so readiness needs both.
        `progress(done, total)` is called now and then while files are parsed (a cold start)."""
        items, where, defects, _ = self._load_items(frozenset(states), progress)
        return items, where, defects

    def _load_items(
        self, states: frozenset[str], progress: Callable[[int, int], None] | None = None, reuse: QueueView | None = None
    ) -> tuple[dict[str, Item], dict[str, str], list[StoreDefect], Loaded]:
        """`load_items`, and how (`Loaded`, without the plans). With `reuse` (a view loaded
        the same way), an item whose key is the same there is that view's very `Item` (neither
        read nor parsed: a blob names the file's bytes for good), and a state folder whose
        lstat is the same is not listed again."""
        wanted_set = states
        items: dict[str, Item] = {}
        where: dict[str, str] = {}
        defects: list[StoreDefect] = []
        loaded = Loaded(states, {}, dict(reuse.loaded.folders) if reuse is not None and reuse.loaded else {})
        keys = loaded.keys
        queue_of: dict[str, str] = {}
        for q in QUEUES:
            if q.name != "wi" and not os.path.isdir(self.root / q.folder):
                continue  # a store made before the queue existed
            q_items, q_where, q_defects = self._load_queue(
                q, [s for s in q.states if s in wanted_set], progress, reuse, loaded
            )
            for name in q_where.keys() & queue_of.keys():
                defects.append(StoreDefect(name, _queues_defect(queue_of[name], q.name)))
                found = items.get(name)
                if found is not None:  # a copy: the item may be the previous view's
                    items[name] = replace(found, defects=[*found.defects, _queues_defect(queue_of[name], q.name)])
                keys.pop(name, None)
                q_where.pop(name)
                q_items.pop(name, None)
            queue_of.update(dict.fromkeys(q_where, q.name))
            items.update(q_items)
            where.update(q_where)
            defects += q_defects
        for name, others in case_twins(where).items():  # one file on macOS or Windows (issue 38)
            defects.append(StoreDefect(name, twin_defect(others)))
            found = items.get(name)
            if found is not None:  # a copy: the item may be the previous view's
                items[name] = replace(found, defects=[*found.defects, twin_defect(others)])
            keys.pop(name, None)
        return items, where, defects, loaded

    def _load_queue(
        self,
        q: Queue,
        wanted: list[str],
        progress: Callable[[int, int], None] | None = None,
        reuse: QueueView | None = None,
        loaded: Loaded | None = None,
    ) -> tuple[dict[str, Item], dict[str, str], list[StoreDefect]]:
        # before anything is read: a file changed since is not remembered (`_stat_key`)
        taken = time.time_ns()
        first = q.name == "wi"
        prefix = "" if q.name == "wi" else f"{q.name}-"

        def scope_of(state: str) -> str:
            return prefix + ("terminal" if state in TERMINAL else "active")

        # git stats the work tree for the blob SHAs while the folders are scanned here (the
        # second queue is scanned first: most stores have few or no feedback items, and an
        # empty queue must not cost a git process on every listing). The blobs only look
        # entries up: without a cache file (a cold start) git is not asked; with a previous
        # view, only when many files changed
        cached = self.use_cache and any(ItemCache(self.store.git_dir, scope_of(s)).path.exists() for s in wanted)
        early = cached and reuse is None
        collect_blobs = self.store.index_blobs_async(wanted, q.name) if early and first else dict
        scan = self.store.scan_all(q.states, q.name, loaded.folders if loaded is not None else None)
        if early and not first and any(scan.names.get(s) for s in wanted):
            collect_blobs = self.store.index_blobs_async(wanted, q.name)
        where, dups, defects = scan.where, scan.dups, scan.defects
        root = str(self.root)
        todo: list[tuple[str, str, str | None]] = []  # (state, name, stat key)
        for state in wanted:
            folder = os.path.join(root, q.folder, state, "")
            for name in scan.names.get(state, ()):
                if where[name] != state:
                    continue  # a duplicate: the copy in the first state is the item
                key = None
                if loaded is not None and name not in dups and not self.one_shot:
                    key = _stat_key(folder + name, taken)
                    key = f"{q.name}/{state}/{key}" if key else None
                todo.append((state, name, key))
        kept: dict[str, Item] = {}
        if reuse is not None and reuse.loaded is not None:
            before, before_keys = reuse.items, reuse.loaded.keys
            for _state, name, key in todo:
                if key is not None and before_keys.get(name) == key and (item := before.get(name)) is not None:
                    kept[name] = item
            if cached and len(todo) - len(kept) > PARSE_BEFORE_CACHE:
                collect_blobs = self.store.index_blobs_async(wanted, q.name)
        scopes: dict[str, ItemCache] = {}

        def cache_for(scope: str) -> ItemCache:
            cache = scopes.get(scope)
            if cache is None:
                cache = scopes[scope] = ItemCache(self.store.git_dir, scope)
                cache.load()
            return cache

        if self.use_cache and reuse is None:
            for state in wanted:
                cache_for(scope_of(state))
        blobs = collect_blobs()
        found: dict[str, Item] = {}
        parse: list[tuple[int, int, str, str]] = []  # (n, index in todo, state, name): neither kept nor cached
        for done, (state, name, _key) in enumerate(todo):
            item = kept.get(name)
            if item is None and self.use_cache:
                blob = blobs.get(f"{q.folder}/{state}/{name}")
                if blob:
                    item = cache_for(scope_of(state)).get(name, state, blob)
                    if item is not None:
                        item.queue = q.name
            if item is None:
                parse.append((len(parse), done, state, name))
            else:
                found[name] = item
        total = len(todo)

        def parse_one(work: tuple[int, int, str, str]) -> tuple[Item, bool]:
            n, done, state, name = work
            parsed = self._parse_file(root, f"{q.folder}/{state}/{name}", name, state, q.name)
            if progress is not None and (n + 1) % PROGRESS_EVERY == 0:
                progress(done, total)
            return parsed

        for work in parse:
            item, whole = parse_one(work)
            state, name = work[2], work[3]
            if whole and scope_of(state) in scopes:
                scopes[scope_of(state)].put(item)
            found[name] = item.listed()  # as a cached item is: a cold start holds what a warm one does
        items: dict[str, Item] = {}
        for _state, name, key in todo:
            item = found[name]
            if key is not None and loaded is not None:
                loaded.keys[name] = key
            if name in dups:
                item.defects = [*item.defects, states_defect(dups[name])]
            items[name] = item
        for scope, cache in scopes.items():
            cache.save(keep={cache_key(i.blob, n) for n, i in items.items() if scope_of(i.state) == scope})
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
        wanted = [s for s in states if s in TERMINAL]
        collect_blobs = self.store.index_blobs_async(wanted, "wi") if self.use_cache else dict
        scan = self.store.scan_all(None, "wi")
        other: set[str] = set()
        for q in QUEUES:
            if q.name != "wi" and os.path.isdir(self.root / q.folder):
                other.update(self.store.scan_all(q.states, q.name).where)
        blobs = collect_blobs()
        root = str(self.root)
        for state in wanted:
            for name in sorted(scan.names.get(state, ())):
                if scan.where[name] != state:
                    continue  # a duplicate: the copy in the first state is the item
                rel = f"wi/{state}/{name}"
                blob = blobs.get(rel)
                alone = name not in scan.dups and name not in other

                def read(rel: str = rel, name: str = name, state: str = state, alone: bool = alone) -> Item:
                    item = self._parse_file(root, rel, name, state, "wi")[0]
                    if name in scan.dups:
                        item.defects = [*item.defects, states_defect(scan.dups[name])]
                    if not alone and name in other:
                        item.defects = [*item.defects, _queues_defect("wi", "mq")]
                    return item

                yield (f"{blob}/{state}/{name}" if blob and alone else None), read

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
        items, where, defects, loaded = self._load_items(wanted, progress, previous)
        self._committed_answers_only(items)
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
        from atk_tui.service.viewstore import load

        return load(self.store.git_dir, states)

    def save_queue(self, view: QueueView) -> bool:
        """Keep `view` (a `queue` result) for the next run's `saved_queue`."""
        if not self.use_cache:
            return False
        from atk_tui.service.viewstore import save

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
        from atk_tui.service.listing import text_matches

        path = f"{self.root}/{item_path(item.state, item.filename, item.queue)}"
        return text_matches(needle, path, item.filename, item.title, item.target_repo, item.body if item.complete else None)

    def history(self, filename: str, limit: int = 50) -> list[HistoryEntry]:
        """Commits that touched the item, newest first, with the `Atk-Actor` trailer (gitpython,
        service/githistory.py; call it from a worker)."""
        if not is_valid_filename(filename):
            raise AtkError(f"bad filename {filename!r}", exit_code=2)
        from atk_tui.service.githistory import item_history  # gitpython, imported on first use

        return item_history(self.store, filename, limit)

    def item_log(self, filename: str, limit: int = 200) -> ItemLog:
        """Every commit that touched the item (any state, either queue, following moves and
        renames), newest first, each with its actor and change (`githistory.ItemLog`; at most
        `limit`, `older` counts the rest). gitpython: call it from a worker."""
        if not is_valid_filename(filename):
            raise AtkError(f"bad filename {filename!r}", exit_code=2)
        from atk_tui.service.githistory import item_log

        return item_log(self.store, filename, limit)

    def item_diff(self, filename: str, commit: ItemCommit | str) -> ItemDiff:
        """What one commit (an `ItemCommit` from `item_log`, or a SHA or its prefix) did to the
        item: a summary ("moved inbox → processing") and the unified diff of its text."""
        from atk_tui.service.githistory import item_commit, item_diff

        if isinstance(commit, str):
            sha = commit
            if not is_valid_filename(filename) or not re.fullmatch(r"[0-9a-f]{4,40}", sha):
                raise AtkError(f"give an item's filename and a commit SHA (hex), not {filename!r} {sha!r}", exit_code=2)
            commit = item_commit(self.store, filename, sha)
            if commit is None:
                raise AtkError(f"commit {sha} did not change {filename}; `atk wi log {filename}` lists the ones that did")
        return item_diff(self.store, commit)

    def wait_stats(self, *, since: datetime | None = None, now: datetime | None = None):
        """How long questions waited for the user and what they blocked (`service.stats`), from
        the git history, read incrementally (cached in `.git/atk-stats.json`)."""
        from atk_tui.service import stats

        return stats.wait_stats(self.store, now=now or utc_now(), since=since)

    def moved_times(self) -> dict[str, datetime]:
        """When each item came into its present state (the commit time of its last move, or of
        its adding), from the same incrementally read history index as `wait_stats`."""
        from atk_tui.service import stats

        return stats.moved_times(stats.load_index(self.store))

    def status(self) -> dict[str, object]:
        return {
            "store": str(self.root),
            "upstream": self.store.upstream(),
            "unpushed": self.store.unpushed(),
            "head": self.store.head(),
            "actor": self.actor,
            "conflicts": self.conflict_count(),
        }

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

    # -- decisions from the files, never from a cache ---------------------------------------

    def items_from_files(
        self, names: Iterable[str], *, committed_answers: bool = True, view: QueueView | None = None
    ) -> dict[str, Item]:
        """Every active item reachable from `names` along `depends_on` (`names` included),
        read and parsed from its file in the work tree: never from the item cache, the judged
        listing or a saved view, whose records are only guarded by a CRC-32 anyone can
        recompute (issue 25). With `committed_answers`, a question counts as answered only
        when its answer is committed (HEAD holds the same `## 回答`): an answer written into the
        work tree and not committed decides nothing. Items in a terminal state are left out
        (readiness judges them by their folder alone). `view` (a `queue` just loaded, from
        the folders themselves) says where each item is, and which are in two places at once;
        without it the folders are looked in one name at a time."""
        where = view.snapshot.states if view is not None else None
        known = view.items if view is not None else {}
        root = str(self.root)
        out: dict[str, Item] = {}
        todo = list(names)
        while todo:
            name = todo.pop()
            if name in out or not is_valid_filename(name):
                continue
            seen = known.get(name)
            if where is not None and name in where and (seen is not None or where[name] in TERMINAL):
                queue, state = (seen.queue if seen is not None else "wi"), where[name]
                found = None
            else:
                found = self.store.find(name)
                if not found:
                    continue
                queue, state = found[0]
            if state not in ACTIVE:
                continue
            item = self._parse_file(root, f"{queue_named(queue).folder}/{state}/{name}", name, state, queue)[0]
            if found is not None:
                self._dup_defect(item, found)
            elif seen is not None:  # where the folders put it (in two places: a defect), not a record's word
                item.defects = [*item.defects, *(d for d in seen.defects if d.startswith("filename is in "))]
            out[name] = item
            todo.extend(d for d in item.depends_on if isinstance(d, str) and d not in out)
        if committed_answers:
            self.drop_uncommitted_answers(out.values())
        return out

    def drop_uncommitted_answers(self, items: Iterable[Item], rev: str | None = None) -> None:
        """Each question of `items` whose answer is not in the store as it reads (no such
        `## 回答` at `rev`, or no such item there) counts as unanswered: `answered` and
        `answer_partial` set False. What gates work asks this (issue 25: `wait`, `show --json`,
        the process-loop): an answer written into the work tree and not committed decides
        nothing; for an agent on a clone with a remote (`answers_rev`, issue 38), neither does
        one only this clone has (its own plain `git commit` of a forged answer)."""
        for item in self.uncommitted_answers(items, rev):
            item.answered = item.answer_partial = False  # not committed: not the user's decision yet

    def uncommitted_answers(self, items: Iterable[Item], rev: str | None = None) -> list[Item]:
        """The answered questions of `items` whose answer is not at `rev` (`answers_rev()` by
        default). Cheap: one `cat-file --batch-check` for their blob names (an item whose
        file is the committed blob is settled by it), the committed text only of the others."""
        from atk_tui.itemfile import sections

        asked = [i for i in items if i.is_question and (i.answered or i.answer_partial)]
        if not asked:
            return []
        rev = rev or self.answers_rev()
        # the blob names of their folders at `rev`: one `ls-tree` (a `REV:PATH` lookup each
        # parses the folder's tree again: 458 questions in a 7,000-item inbox took 1.5 s)
        folders = sorted({f"{queue_named(i.queue).folder}/{i.state}/" for i in asked})
        listed = self.store.git("ls-tree", "-z", rev, "--", *folders, check=False, env=self.store.read_env).stdout
        committed: dict[str, str] = {}
        for rec in listed.split("\0"):
            meta, _, path = rec.partition("\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == "blob":
                committed[path] = parts[2]
        names = [committed.get(item_path(i.state, i.filename, i.queue), "") for i in asked]
        out: list[Item] = []
        todo = [i for i, name in zip(asked, names, strict=True) if not (i.blob and name == i.blob)]
        if not todo:
            return out
        # the committed version, where the item is now (nearly always), else in another state
        here = self._blobs([f"{rev}:{item_path(i.state, i.filename, i.queue)}" for i in todo])
        moved = [i for i, b in zip(todo, here, strict=True) if b is None]
        others = [(i, s) for i in moved for s in queue_named(i.queue).states if s != i.state]
        there = self._blobs([f"{rev}:{item_path(s, i.filename, i.queue)}" for i, s in others]) if others else []
        head = {i.filename: b for i, b in zip(todo, here, strict=True) if b is not None}
        for (i, _s), b in zip(others, there, strict=True):
            if b is not None:
                head.setdefault(i.filename, b)
        for item in todo:
            data = head.get(item.filename)
            theirs = None if data is None else parse_item(item.filename, item.state, data, queue=item.queue)
            body = item.body
            if not item.complete:  # a listed item keeps no text: its file, as the listing read it
                rel = item_path(item.state, item.filename, item.queue)
                body = self._parse_file(str(self.root), rel, item.filename, item.state, item.queue)[0].body
            if theirs is None or sections.answer_text(theirs.body) != sections.answer_text(body):
                out.append(item)
        return out

    def _committed_answers_only(self, items: dict[str, Item]) -> None:
        """The ready list's rule (issue 38): an answer not committed counts nowhere, the
        person's own listing included: such a question is listed (a copy) as unanswered, so
        nothing depending on it is ready. Remembered per HEAD and file blob: the dashboard's
        next look at the same store asks git nothing."""
        # a copy made by the last look, reused by this one (its file unchanged): the item as read
        copies: dict[int, tuple[Item, Item]] = self.__dict__.get("_answer_copies", {})
        for copy, original in copies.values():
            if items.get(copy.filename) is copy:
                items[copy.filename] = original
        copies = self.__dict__["_answer_copies"] = {}
        asked = [i for i in items.values() if i.is_question and (i.answered or i.answer_partial)]
        if not asked:
            return
        head = self.store.head() or ""
        memo = self.__dict__.get("_answers_memo")
        if memo is None or memo[0] != head:
            memo = self.__dict__["_answers_memo"] = (head, {})
        known: dict[tuple[str, str], bool] = memo[1]
        unknown = [i for i in asked if (i.filename, i.blob) not in known]
        if unknown:
            dropped = {id(i) for i in self.uncommitted_answers(unknown, "HEAD")} if head else {id(i) for i in unknown}
            for i in unknown:
                known[(i.filename, i.blob)] = id(i) not in dropped
        for item in asked:
            if not known.get((item.filename, item.blob), False):
                copy = items[item.filename] = replace(item, answered=False, answer_partial=False)
                copies[id(copy)] = (copy, item)



    def judge_from_files(
        self, names: Iterable[str], view: QueueView | None = None
    ) -> dict[str, tuple[Item, Judgement]]:
        """`names` (each with its item as read) judged again from their files and those of everything they depend on
        (`items_from_files`), at `clock()`: what gates work (the process-loop's hand-out)
        asks this, not a listing. `view` gives where every other filename is (its folder
        listing, not a cache record); without it the store's folders are listed."""
        from atk_tui.domain.readiness import _aware, cycle_edges, cycle_reps, judge_item

        names = [n for n in names if is_valid_filename(n)]
        fresh = self.items_from_files(names, view=view)
        if view is not None:
            states = dict(view.snapshot.states)
        else:
            states = {}
            for q in QUEUES:
                if q.name == "wi" or os.path.isdir(self.root / q.folder):
                    states.update(self.store.scan_all(q.states, q.name).where)
        for name, item in fresh.items():
            states[name] = item.state
        plans = [i.plan_file for i in fresh.values() if i.plan_file]
        missing = set(plan_files_missing(self.root, plans)) if plans else set()
        plan_missing = frozenset(n for n, i in fresh.items() if i.plan_file in missing)
        snap = Snapshot(items=fresh, states=states, plan_missing=plan_missing)
        # the closure holds every strongly connected component of `names`: its cycles are these edges'
        rep = cycle_reps({n: cycle_edges(snap, i) for n, i in fresh.items()})
        now = _aware(self.clock())
        return {n: (fresh[n], judge_item(snap, n, fresh[n], now, rep)) for n in names if n in fresh}

    def loop_status(self) -> dict[str, object] | None:
        """What a running `atk wi process-loop` on this store reports (None when none runs)."""
        from atk_tui.service.loop import read_status

        return read_status(self.store.git_dir)

    def dependents_of(self, filename: str) -> list[str]:
        """Active items that list `filename` in depends_on."""
        items, _, _ = self.load_items(ACTIVE)
        return sorted(n for n, i in items.items() if filename in i.depends_on and n != filename)
