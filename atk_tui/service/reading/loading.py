"""Loading the queue from the store's folders (SPEC §4, §15), in named steps (`QueueLoad`): the
folders listed while git names the files' blobs, each item taken from the previous view (its
file's stat unchanged), the item cache (by blob) or its file, and the caches saved."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from atk_tui.cache.caches import ItemCache, cache_key
from atk_tui.domain.model import TERMINAL, Item, StoreDefect
from atk_tui.domain.queues import QUEUES, Queue
from atk_tui.service.types import Loaded
from atk_tui.store import states_defect
from atk_tui.store.scan import case_twins, twin_defect
from atk_tui.store.storesig import RACY_NS

if TYPE_CHECKING:
    from atk_tui.service.reading.reads import Reads
    from atk_tui.service.types import QueueView
    from atk_tui.store.scan import ScanResult

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


def queues_defect(first: str, second: str) -> str:
    return f"filename is in both queues at once: {first} and {second}"


def load_items(
    svc: Reads, states: frozenset[str], progress: Callable[[int, int], None] | None = None, reuse: QueueView | None = None
) -> tuple[dict[str, Item], dict[str, str], list[StoreDefect], Loaded]:
    """`Reads.load_items`, and how (`Loaded`, without the plans). With `reuse` (a view loaded
    the same way), an item whose key is the same there is that view's very `Item` (neither
    read nor parsed: a blob names the file's bytes for good), and a state folder whose
    lstat is the same is not listed again."""
    items: dict[str, Item] = {}
    where: dict[str, str] = {}
    defects: list[StoreDefect] = []
    loaded = Loaded(states, {}, dict(reuse.loaded.folders) if reuse is not None and reuse.loaded else {})
    keys = loaded.keys
    queue_of: dict[str, str] = {}
    for q in QUEUES:
        if q.name != "wi" and not os.path.isdir(svc.root / q.folder):
            continue  # a store made before the queue existed
        wanted = [s for s in q.states if s in states]
        q_items, q_where, q_defects = QueueLoad(svc, q, wanted, progress, reuse, loaded).run()
        for name in q_where.keys() & queue_of.keys():
            defects.append(StoreDefect(name, queues_defect(queue_of[name], q.name)))
            found = items.get(name)
            if found is not None:  # a copy: the item may be the previous view's
                items[name] = replace(found, defects=[*found.defects, queues_defect(queue_of[name], q.name)])
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


class QueueLoad:
    """One queue's items in the `wanted` states, loaded in steps (`run`): `scan` the folders
    while git names the blobs, `list_files` with their stat keys, `keep_unchanged` items of
    the previous view, `look_in_cache`, `parse_rest`, `finish` (duplicates, keys, caches)."""

    def __init__(
        self,
        svc: Reads,
        q: Queue,
        wanted: list[str],
        progress: Callable[[int, int], None] | None = None,
        reuse: QueueView | None = None,
        loaded: Loaded | None = None,
    ) -> None:
        # before anything is read: a file changed since is not remembered (`_stat_key`)
        self.taken = time.time_ns()
        self.svc, self.q, self.wanted, self.progress, self.reuse, self.loaded = svc, q, wanted, progress, reuse, loaded
        self.root = str(svc.root)
        self.prefix = "" if q.name == "wi" else f"{q.name}-"
        self.scopes: dict[str, ItemCache] = {}
        self.collect_blobs: Callable[[], dict[str, str]] = dict
        self.cached = False

    def run(self) -> tuple[dict[str, Item], dict[str, str], list[StoreDefect]]:
        scan = self.scan()
        todo = self.list_files(scan)
        kept = self.keep_unchanged(todo)
        found, parse = self.look_in_cache(todo, kept)
        self.parse_rest(parse, found, len(todo))
        return self.finish(todo, found, scan.dups), scan.where, scan.defects

    def scope_of(self, state: str) -> str:
        return self.prefix + ("terminal" if state in TERMINAL else "active")

    def cache_for(self, scope: str) -> ItemCache:
        cache = self.scopes.get(scope)
        if cache is None:
            cache = self.scopes[scope] = ItemCache(self.svc.store.git_dir, scope)
            cache.load()
        return cache

    def scan(self) -> ScanResult:
        """The queue's folders listed. git stats the work tree for the blob SHAs meanwhile (the
        second queue is scanned first: most stores have few or no feedback items, and an empty
        queue must not cost a git process on every listing). The blobs only look entries up:
        without a cache file (a cold start) git is not asked; with a previous view, only when
        many files changed (`keep_unchanged`)."""
        svc, q, wanted = self.svc, self.q, self.wanted
        first = q.name == "wi"
        self.cached = svc.use_cache and any(ItemCache(svc.store.git_dir, self.scope_of(s)).path.exists() for s in wanted)
        early = self.cached and self.reuse is None
        if early and first:
            self.collect_blobs = svc.store.index_blobs_async(wanted, q.name)
        scan = svc.store.scan_all(q.states, q.name, self.loaded.folders if self.loaded is not None else None)
        if early and not first and any(scan.names.get(s) for s in wanted):
            self.collect_blobs = svc.store.index_blobs_async(wanted, q.name)
        return scan

    def list_files(self, scan: ScanResult) -> list[tuple[str, str, str | None]]:
        """(state, name, stat key) of every item file in the wanted states; the key only when a
        next load may reuse this one's items (not for a duplicate, nor in a one-shot listing)."""
        todo: list[tuple[str, str, str | None]] = []
        keyed = self.loaded is not None and not self.svc.one_shot
        for state in self.wanted:
            folder = os.path.join(self.root, self.q.folder, state, "")
            for name in scan.names.get(state, ()):
                if scan.where[name] != state:
                    continue  # a duplicate: the copy in the first state is the item
                key = None
                if keyed and name not in scan.dups:
                    key = _stat_key(folder + name, self.taken)
                    key = f"{self.q.name}/{state}/{key}" if key else None
                todo.append((state, name, key))
        return todo

    def keep_unchanged(self, todo: list[tuple[str, str, str | None]]) -> dict[str, Item]:
        """The previous view's items whose file's stat key is the same (neither read nor
        parsed); when many others changed, git is asked for their blobs after all."""
        kept: dict[str, Item] = {}
        reuse = self.reuse
        if reuse is None or reuse.loaded is None:
            return kept
        before, before_keys = reuse.items, reuse.loaded.keys
        for _state, name, key in todo:
            if key is not None and before_keys.get(name) == key and (item := before.get(name)) is not None:
                kept[name] = item
        if self.cached and len(todo) - len(kept) > PARSE_BEFORE_CACHE:
            self.collect_blobs = self.svc.store.index_blobs_async(self.wanted, self.q.name)
        return kept

    def look_in_cache(
        self, todo: list[tuple[str, str, str | None]], kept: dict[str, Item]
    ) -> tuple[dict[str, Item], list[tuple[int, int, str, str]]]:
        """(the items kept or found in the item cache by blob, the files still to parse: (n,
        index in `todo`, state, name))."""
        svc, q = self.svc, self.q
        if svc.use_cache and self.reuse is None:
            for state in self.wanted:
                self.cache_for(self.scope_of(state))
        blobs = self.collect_blobs()
        found: dict[str, Item] = {}
        parse: list[tuple[int, int, str, str]] = []
        for done, (state, name, _key) in enumerate(todo):
            item = kept.get(name)
            if item is None and svc.use_cache:
                blob = blobs.get(f"{q.folder}/{state}/{name}")
                if blob:
                    item = self.cache_for(self.scope_of(state)).get(name, state, blob)
                    if item is not None:
                        item.queue = q.name
            if item is None:
                parse.append((len(parse), done, state, name))
            else:
                found[name] = item
        return found, parse

    def parse_rest(self, parse: list[tuple[int, int, str, str]], found: dict[str, Item], total: int) -> None:
        """Parse each file neither kept nor cached (`progress` told now and then), into the cache."""
        q, progress = self.q, self.progress
        for n, done, state, name in parse:
            item, whole = self.svc._parse_file(self.root, f"{q.folder}/{state}/{name}", name, state, q.name)
            if progress is not None and (n + 1) % PROGRESS_EVERY == 0:
                progress(done, total)
            if whole and self.scope_of(state) in self.scopes:
                self.scopes[self.scope_of(state)].put(item)
            found[name] = item.listed()  # as a cached item is: a cold start holds what a warm one does

    def finish(
        self, todo: list[tuple[str, str, str | None]], found: dict[str, Item], dups: dict[str, list[str]]
    ) -> dict[str, Item]:
        """The items in `todo`'s order, a duplicate's defect added, their keys remembered; each
        item cache saved with just the items it now holds."""
        items: dict[str, Item] = {}
        for _state, name, key in todo:
            item = found[name]
            if key is not None and self.loaded is not None:
                self.loaded.keys[name] = key
            if name in dups:
                item.defects = [*item.defects, states_defect(dups[name])]
            items[name] = item
        for scope, cache in self.scopes.items():
            cache.save(keep={cache_key(i.blob, n) for n, i in items.items() if self.scope_of(i.state) == scope})
        return items


def terminal_stream(svc: Reads, states: Sequence[str]) -> Iterator[tuple[str | None, Callable[[], Item]]]:
    """`Reads.terminal_stream`: the work items in the terminal `states`, in a listing's order,
    one at a time and unparsed."""
    wanted = [s for s in states if s in TERMINAL]
    collect_blobs = svc.store.index_blobs_async(wanted, "wi") if svc.use_cache else dict
    scan = svc.store.scan_all(None, "wi")
    other: set[str] = set()
    for q in QUEUES:
        if q.name != "wi" and os.path.isdir(svc.root / q.folder):
            other.update(svc.store.scan_all(q.states, q.name).where)
    blobs = collect_blobs()
    root = str(svc.root)
    for state in wanted:
        for name in sorted(scan.names.get(state, ())):
            if scan.where[name] != state:
                continue  # a duplicate: the copy in the first state is the item
            rel = f"wi/{state}/{name}"
            blob = blobs.get(rel)
            alone = name not in scan.dups and name not in other

            def read(rel: str = rel, name: str = name, state: str = state, alone: bool = alone) -> Item:
                item = svc._parse_file(root, rel, name, state, "wi")[0]
                if name in scan.dups:
                    item.defects = [*item.defects, states_defect(scan.dups[name])]
                if not alone and name in other:
                    item.defects = [*item.defects, queues_defect("wi", "mq")]
                return item

            yield (f"{blob}/{state}/{name}" if blob and alone else None), read
