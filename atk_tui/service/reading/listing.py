"""The judged listing of `atk wi list` (JSON Lines, or a count), and its cache.

A listing whose judged result is cached (`cache.caches.ListingCache`: the store is as it was)
is printed from that one entry (`serve`): no service, no git. Otherwise it is made from the
store and printed as it is made, and kept for the next time in the same pass
(`write_listing`). The rule for which states a `--status` lists, and how a cached listing is
filtered, lives here; the CLI's fast path (`cli.quicklist`) and its full `list` use it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atk_tui.domain.model import ACTIVE, PROCESSABLE, STATES, TERMINAL
from atk_tui.host.config import plan_files_missing

if TYPE_CHECKING:
    from atk_tui.cache.caches import Parts
    from atk_tui.domain.queues import Queue


DERIVED = ("ready", "blocked")  # --status values judged per item (SPEC §6): processable items only


def text_matches(needle: str, path: str, filename: str, title: str, target_repo: str | None,
                 body: str | None = None) -> bool:  # fmt: skip
    """`list --text`: `needle` (casefolded) in the item's filename, title, target repo or
    body. Without `body`, the body is read from `path`, the file where the listing found the
    item: one read, no lookup of the name in the store (issue 28)."""
    if needle in f"{filename}\n{title}\n{target_repo or ''}".casefold():
        return True
    if body is None:
        import os

        from atk_tui.host.regular import open_regular
        from atk_tui.itemfile.items import MAX_ITEM_BYTES, split_frontmatter

        try:
            fd = open_regular(path)  # a named pipe in the store must not hang `list --text`
            try:
                data = os.read(fd, MAX_ITEM_BYTES + 1)
            finally:
                os.close(fd)
        except OSError:
            return False
        if len(data) > MAX_ITEM_BYTES:  # too large to be an item (`read` refuses it)
            return False
        text = data.decode("utf-8", "replace")
        parts = split_frontmatter(text)
        body = parts[2] if parts else text
    return needle in body.casefold()


def states_for(status: str, queue: Queue | None = None) -> list[str] | None:
    """The states a `--status` value lists in `queue`, in its order; None for a value it does
    not know. `all` is every state but the fenced ones (mq's planning is listed only by name,
    SPEC §12). The CLI, `atk mcp` and the cached listing ask this one rule. Without `queue`:
    the work items' (`domain.model`'s sets, which `domain.queues.WI` is made of: a warm
    listing does not import the queues)."""
    if queue is None:
        states, active, processable, listed_all = STATES, ACTIVE, PROCESSABLE, STATES
    else:
        states, active, processable, listed_all = queue.states, queue.active, queue.processable, queue.listed_all
    if status == "active":
        wanted: Iterable[str] = active
    elif status == "processable" or status in DERIVED:
        wanted = processable
    elif status == "all":
        wanted = listed_all
    elif status in states:
        wanted = (status,)
    else:
        return None
    return [s for s in states if s in wanted]


def listing_cache(root: Path, status: str) -> Any:
    from atk_tui.cache.caches import ListingCache

    states = states_for(status)
    return None if states is None else ListingCache(root, states, STATES, tuple(TERMINAL))


def mark_cooldowns(line: str, judgement: Any, now: Any) -> str:
    """A listing line to cache, with the "(in 3h 12m)" of each cooldown reason (the one part
    of a judged line that changes with the clock) replaced by a marker the cache fills in
    when the line is printed (`ListingCache.load`)."""
    from atk_tui.cache.caches import cooldown_marker
    from atk_tui.domain.ages import format_duration

    at = line.find('"reasons": [')
    if at < 0:
        return line
    head, tail = line[:at], line[at:]
    for r in judgement.reasons:
        if r.code == "cooldown" and r.until is not None:
            until = r.until if r.until.tzinfo is not None else r.until.replace(tzinfo=UTC)  # as judged
            left = f"(in {format_duration((until - now).total_seconds())})"
            if r.message.endswith(left):
                tail = tail.replace(r.message, r.message[: -len(left)] + f"(in {cooldown_marker(until.timestamp())})", 1)
    return head + tail


#: `--offset K --limit N`: the lines after the first K a filter keeps, at most N (None: all)
Page = tuple[int, int | None]


def _paged(raw: bytes, page: Page) -> bytes:
    """Lines `page` of newline-joined `raw`."""
    offset, limit = page
    start = 0
    for _ in range(offset):
        start = raw.find(b"\n", start) + 1
        if not start:
            return b""
    end = start - 1
    for _ in range(limit if limit is not None else 1 << 62):
        end = raw.find(b"\n", end + 1)
        if end < 0:
            return raw[start:]
    return raw[start:end]


CHUNK = 1 << 20  # bytes of a cached listing decoded at a time


def _lines_of(parts: Parts) -> Iterator[bytes]:
    """The lines of the newline-joined `parts` (as cached), a megabyte of them split at a
    time: a listing of 80,000 items is never one text, nor its lines all at once. Bytes: only
    the lines a filter keeps are decoded."""
    carry, any_bytes = b"", False
    for part in parts:
        for at in range(0, len(part), CHUNK):
            chunk = carry + bytes(part[at : at + CHUNK])
            any_bytes = any_bytes or bool(chunk)
            *whole, carry = chunk.split(b"\n")
            yield from whole
    if any_bytes:
        yield carry


def print_listing(status: str, kind: str | None, only_repo: str | None, count: bool,
                  meta: list[list[Any]] | bytes, lines: Parts, page: Page = (0, None),
                  stale: str | None = None, hits: list[bool] | None = None, into: Into = None) -> None:  # fmt: skip
    """Print a cached listing (`ListingCache.load`: `meta`, the JSON of `[state, kind,
    target_repo, ready, filename, title]` of each line, and the newline-joined lines in parts):
    as it is when nothing filters, pages, counts or adds to it; else through `_Printer`, as a
    listing made from the store is. `hits[i]`: line i has `--text`'s text (`_cached`)."""
    filtered = bool(kind or only_repo or status in DERIVED or hits is not None)
    if not (filtered or count or stale or into is not None):
        parts = lines if page == (0, None) else (_paged(b"".join(lines), page),)
        if any(parts):
            sys.stdout.flush()
            for part in parts:
                sys.stdout.buffer.write(part)
            sys.stdout.buffer.write(b"\n")
            sys.stdout.buffer.flush()
        return
    out = _Printer(status, kind, only_repo, count, page, stale, into=into)
    if filtered and isinstance(meta, bytes):
        import json

        meta = json.loads(meta)
    for at, line in enumerate(_lines_of(lines)):  # (bytes: decoded once kept)
        if (hits is None or hits[at]) and not out.add(meta[at] if filtered else None, line):  # type: ignore[index]
            break
    out.close()


#: `--text`'s (store root, casefolded needle), or None
Text = tuple[Path, str] | None
#: what takes a listing's lines (`print_listing`, `write_listing`) instead of stdout
Into = Callable[[Iterable[str]], None] | None


def text_filter(root: Path, text: str | None) -> Text:
    """`--text TEXT` as the listing filters by it (`text_matches`)."""
    return (root, text.casefold()) if text else None


def defect_notes(defects: Any) -> list[str]:
    """What a text listing says on stderr after its rows: the store's defects."""
    return [f"store defect: {d.path}: {d.message}" for d in defects]


def _text_kept(text: tuple[Path, str], m: list[Any]) -> bool:
    """`--text` keeps listing line `m` (its meta): the work item's file is `wi/<state>/<name>`."""
    return text_matches(text[1], f"{text[0]}/wi/{m[0]}/{m[4]}", m[4], m[5], m[2])


class _Printer:
    """A listing's lines filtered, paged and printed (or given to `into`) as they come, in
    chunks (a listing of 60,000 items is never held as one text), or counted: the one
    printer of a listing made from the store (`write_listing`) and of a cached one
    (`print_listing`)."""

    def __init__(self, status: str, kind: str | None, only_repo: str | None, count: bool, page: Page = (0, None),
                 stale: str | None = None, text: Text = None, into: Into = None) -> None:  # fmt: skip
        self.stale, self.text, self.into = stale, text, into
        self.want_ready = status == "ready" if status in DERIVED else None
        self.kind, self.only_repo, self.count = kind, only_repo, count
        self.n = 0
        self.first, limit = page
        self.last = None if limit is None else self.first + limit
        self.chunk: list[str] = []

    def add(self, m: list[Any] | None, line: str | bytes) -> bool:
        """Line `line` of meta `m` (None: nothing filters it), kept or not; False once the
        page is printed and nothing is counted (no later line is printed)."""
        if m is not None and ((self.kind and m[1] != self.kind) or (self.only_repo and m[2] != self.only_repo) or (
            self.want_ready is not None and m[3] != self.want_ready
        ) or (self.text and not _text_kept(self.text, m))):  # fmt: skip
            return True
        self.n += 1
        if self.count or self.n <= self.first:
            return True
        if self.last is not None and self.n > self.last:
            return False
        if type(line) is bytes:
            line = str(line, "utf-8")
        if self.stale:
            from atk_tui.service.reading.freshen import with_stale

            line = with_stale(line, self.stale)
        self.chunk.append(line)  # type: ignore[arg-type]
        if len(self.chunk) >= 2000:
            self.flush()
        return True

    def flush(self) -> None:
        if self.chunk and self.into is not None:
            self.into(self.chunk)
            self.chunk = []
        elif self.chunk:
            sys.stdout.write("\n".join(self.chunk) + "\n")  # the lines are safe and plain UTF-8 already
            self.chunk = []

    def close(self) -> None:
        if self.count and self.into is None:
            sys.stdout.write(f"{self.n}\n")
        self.flush()
        sys.stdout.flush()


def write_listing(svc: Any, cache: Any, status: str, kind: str | None, only_repo: str | None, count: bool,
                  line_of: Callable[[Any, Any, Any], str], page: Page = (0, None),
                  stale: str | None = None, text: Text = None, into: Into = None) -> list[str]:  # fmt: skip
    """The judged listing made from the store (the cached one missed): printed (or added to
    `into`) as it is made and written to `cache` in the same pass; returns the notes a text
    listing says after it (the store's defects). `line_of(item, judgement, blocks)` is a line.
    In three steps: the active items judged together (`_active_lines`), the adopted and
    rejected ones judged alone, streamed (`_terminal_lines`), the listing kept (`_Made.close`)."""
    states = states_for(status) or []
    taken, sig = cache.signature_to_make()  # before reading: a change while reading must miss
    made = _Made(_Printer(status, kind, only_repo, count, page, stale, text, into), cache.writer())
    try:
        until, plans, notes = _active_lines(svc, [s for s in states if s not in TERMINAL], line_of, made)
        terminal = [s for s in states if s in TERMINAL]  # the last states in STATES order
        if terminal:
            _terminal_lines(svc, terminal, line_of, made)
    except BaseException:  # files being written are not left behind
        if made.writer is not None:
            made.writer.abort()
        raise
    made.out.close()
    if made.writer is not None:
        made.writer.close(sig, made.meta, until, plans, taken, notes)
    return notes


class _Made:
    """A listing being made: each line printed (`_Printer`), its meta kept and the line
    written to the cache (`ListingWriter`, None: not kept)."""

    def __init__(self, out: _Printer, writer: Any) -> None:
        self.out, self.writer = out, writer
        self.meta: list[list[Any]] = []

    def add(self, m: list[Any], line: str, kept: str | None = None) -> None:
        """Line `line` of meta `m`; `kept`: what the cache keeps instead (cooldowns marked)."""
        self.meta.append(m)
        self.out.add(m, line)
        if self.writer is not None:
            self.writer.add(line if kept is None else kept)


def _active_lines(svc: Any, states: list[str], line_of: Callable[[Any, Any, Any], str],
                  made: _Made) -> tuple[float | None, dict[str, bool], list[str]]:  # fmt: skip
    """The listed work items of these (not terminal) states, judged together, to `made`.
    Returns what the cached listing depends on besides the store, taken before the view is
    let go (the terminal items are judged alone next: 50,000 of them need the memory): when
    the first cooldown lifts (naive times taken as UTC, as judged), which plan files are
    missing; and the notes (the store's defects)."""
    view = svc.queue(states)
    # every queue is loaded (dependencies cross them); the listing is the work items'
    items = sorted((i for i in view.items.values() if i.queue == "wi"), key=lambda i: (STATES.index(i.state), i.filename))
    judgements, blocks = view.judgements, view.blocks
    for i in items:
        j = judgements.get(i.filename)
        line = line_of(i, j, blocks.get(i.filename))
        kept = mark_cooldowns(line, j, view.now) if j is not None and j.cooldown_until is not None else None
        made.add([i.state, i.kind, i.target_repo, bool(j and j.ready), i.filename, i.title], line, kept)
    until = min((
        (c if c.tzinfo is not None else c.replace(tzinfo=UTC)).timestamp()
        for j in judgements.values() if (c := j.cooldown_until) is not None
    ), default=None)  # fmt: skip
    missing = {view.items[n].plan_file for n in view.snapshot.plan_missing}
    plans = {v: v in missing for v in sorted({i.plan_file for i in view.items.values() if i.plan_file})}
    return until, plans, defect_notes(view.store_defects)


def _line_cache(svc: Any, line_of: Callable[[Any, Any, Any], str]) -> Any:
    """The terminal items' line cache for this line format (`LineCache`), loaded; None
    without caches."""
    if not svc.use_cache:
        return None
    import zlib

    from atk_tui.cache.caches import LineCache
    from atk_tui.domain.model import Item
    from atk_tui.domain.readiness import judge_terminal

    sample = Item("00000000-000000-sample.md", "adopted", title="sample", defects=["d"])
    lines = LineCache(svc.store.git_dir, f"{zlib.crc32(line_of(sample, judge_terminal(sample.filename, sample), None).encode()):08x}")
    lines.load()
    lines.stream()  # a cold listing: its lines written as they come, not held
    return lines


def _terminal_lines(svc: Any, terminal: list[str], line_of: Callable[[Any, Any, Any], str], made: _Made) -> None:
    """The adopted and rejected items, judged alone: streamed one at a time
    (`Service.terminal_stream`) to `made`, each line cached for good (`LineCache`: an item
    there changes only when moved)."""
    from atk_tui.domain.readiness import judge_terminal

    lines = _line_cache(svc, line_of)
    keep: set[str] = set()
    try:
        for key, read in svc.terminal_stream(terminal):
            hit = lines.line(key) if lines is not None and key is not None else None
            if hit is None:
                item = read()
                hit = [item.kind, item.target_repo, line_of(item, judge_terminal(item.filename, item), None), item.title]
                if lines is not None and key is not None:
                    lines.put_line(key, *hit)
                state, name = item.state, item.filename
            else:
                _, state, name = key.split("/", 2)
            if key is not None:
                keep.add(key)
            made.add([state, hit[0], hit[1], False, name, hit[3]], hit[2])
    except BaseException:  # files being written are not left behind
        if lines is not None:
            lines.abort()
        raise
    made.out.flush()
    if lines is not None:
        lines.save(keep=keep if TERMINAL.issubset(terminal) else None)


def serve(root: Path, status: str, kind: str | None, only_repo: str | None, count: bool,
          page: Page = (0, None), stale: str | None = None, text: str | None = None,
          into: Into = None) -> list[str] | None:  # fmt: skip
    """The cached listing, when it is still the store's: its `--json` lines printed, or their
    count (the lines whose item has `text`, when given), or given to `into` as they come (a
    text listing's rows); returns its notes (the store's defects), None when the full
    listing must run (no cache, a change: nothing printed or given)."""
    if into is None and (sys.stdout.encoding or "").lower().replace("-", "") != "utf8":
        return None  # the full listing escapes what this stream cannot encode
    hit = _cached(root, status, text_filter(root, text))
    if hit is None:
        return None
    print_listing(status, kind, only_repo, count, *hit[1], page=page, stale=stale, hits=hit[2], into=into)
    return hit[0].notes


def _cached(root: Path, status: str, text: Text = None) -> tuple[Any, tuple[Any, Parts], list[bool] | None] | None:
    """(the cache, its (meta, lines), which lines have `text`: None without) when the cached
    listing is still the store's. `--text` reads every listed item's file: while git and find
    take the signature the cache is checked against (discarded when it misses)."""
    cache = listing_cache(root, status)
    if cache is None:
        return None
    import time

    hits: list[bool] | None = None

    def matched(raw: bytes) -> list[list[Any]]:
        import json

        nonlocal hits
        meta = json.loads(raw)
        hits = [_text_kept(text, m) for m in meta]  # type: ignore[arg-type]
        return meta

    hit = cache.load(time.time(), lambda values: plan_files_missing(root, values), matched if text else None)
    return None if hit is None else (cache, hit, hits)
