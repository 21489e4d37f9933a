"""A warm `atk wi list`, answered before the command line is even imported.

`atk`'s entry point is `main` here. A plain listing (`atk [--store S] wi list [--status X]
[--kind K] [--target-repo R] [--json | --count | --no-json] [--offset K] [--limit N] [--skip-pull]
[--skip-push]`)
whose judged result is cached (`core.cache.ListingCache`: the store is as it was) is printed
from that one file: no argparse, no service, no git. Anything else, and every miss, runs
`atk_tui.cli.main` (which fills the cache). The rule for which states a `--status` lists and
how a cached listing is filtered lives here, and the full command line uses it too.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .core.config import ConfigError, is_agent_env, plan_files_missing, resolve_store
from .core.model import ACTIVE, PROCESSABLE, STATES, TERMINAL

if TYPE_CHECKING:
    from .core.cache import Parts

#: a valid `ATK_AGENT_ID` (core/holds.py says so once; this copy keeps the fast path lean)
_AGENT_ID = re.compile(r"[A-Za-z0-9._:@-]{1,64}")
DERIVED = ("ready", "blocked")  # --status values judged per item (SPEC §6): processable items only


def states_for(status: str) -> list[str] | None:
    """The states a `--status` value lists, in STATES order; None for a value it does not know."""
    if status == "active":
        wanted = ACTIVE
    elif status == "processable" or status in DERIVED:
        wanted = PROCESSABLE
    elif status == "all":
        wanted = frozenset(STATES)
    elif status in STATES:
        wanted = frozenset([status])
    else:
        return None
    return [s for s in STATES if s in wanted]


def listing_cache(root: Path, status: str) -> Any:
    from .core.cache import ListingCache

    states = states_for(status)
    return None if states is None else ListingCache(root, states, STATES, tuple(TERMINAL))


def mark_cooldowns(line: str, judgement: Any, now: Any) -> str:
    """A listing line to cache, with the "(in 3h 12m)" of each cooldown reason (the one part
    of a judged line that changes with the clock) replaced by a marker the cache fills in
    when the line is printed (`ListingCache.load`)."""
    from .core.cache import cooldown_marker
    from .core.readiness import format_duration

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


def print_listing(status: str, kind: str | None, only_repo: str | None, count: bool,
                  meta: list[list[Any]] | bytes, lines: list[str] | Parts, page: Page = (0, None),
                  stale: str | None = None) -> None:  # fmt: skip
    """Filter a judged listing (`meta[i]` = state, kind, target_repo, ready of line i) and
    print it (`page` of it; a count counts every line the filter keeps). `meta` and `lines`
    may be as cached (`ListingCache.load`: parts of the newline-joined lines). `stale`: why
    this clone's copy may be behind the remote, added to every record (SPEC §15)."""
    want_ready = status == "ready" if status in DERIVED else None
    filtered = bool(kind or only_repo or want_ready is not None)
    if isinstance(lines, tuple):
        if not (filtered or count or stale):
            parts = lines if page == (0, None) else (_paged(b"".join(lines), page),)
            if any(parts):
                sys.stdout.flush()
                for part in parts:
                    sys.stdout.buffer.write(part)
                sys.stdout.buffer.write(b"\n")
                sys.stdout.buffer.flush()
            return
        joined = b"".join(lines)
        lines = str(joined, "utf-8").split("\n") if joined else []
    if filtered:
        if isinstance(meta, bytes):
            import json

            meta = json.loads(meta)
        lines = [
            line for m, line in zip(meta, lines, strict=True)
            if (not kind or m[1] == kind) and (not only_repo or m[2] == only_repo)
            and (want_ready is None or m[3] == want_ready)
        ]  # fmt: skip
    if not count and page != (0, None):
        lines = lines[page[0] :] if page[1] is None else lines[page[0] : page[0] + page[1]]
    if stale and not count:
        from .core.freshen import with_stale

        lines = [with_stale(line, stale) for line in lines]
    if count:
        sys.stdout.write(f"{len(lines)}\n")
    elif lines:
        sys.stdout.write("\n".join(lines) + "\n")  # the lines are safe and plain UTF-8 already
    sys.stdout.flush()


class _Printer:
    """`print_listing` line by line: the lines a filter keeps are written in chunks as they
    come (a listing of 60,000 items is never held as one text), or counted."""

    def __init__(self, status: str, kind: str | None, only_repo: str | None, count: bool, page: Page = (0, None),
                 stale: str | None = None) -> None:  # fmt: skip
        self.stale = stale
        self.want_ready = status == "ready" if status in DERIVED else None
        self.kind, self.only_repo, self.count = kind, only_repo, count
        self.n = 0
        self.first, limit = page
        self.last = None if limit is None else self.first + limit
        self.chunk: list[str] = []

    def add(self, m: list[Any], line: str) -> None:
        if (self.kind and m[1] != self.kind) or (self.only_repo and m[2] != self.only_repo) or (
            self.want_ready is not None and m[3] != self.want_ready
        ):
            return
        self.n += 1
        if not self.count and self.n > self.first and (self.last is None or self.n <= self.last):
            if self.stale:
                from .core.freshen import with_stale

                line = with_stale(line, self.stale)
            self.chunk.append(line)
            if len(self.chunk) >= 2000:
                self.flush()

    def flush(self) -> None:
        if self.chunk:
            sys.stdout.write("\n".join(self.chunk) + "\n")  # the lines are safe and plain UTF-8 already
            self.chunk = []

    def close(self) -> None:
        if self.count:
            sys.stdout.write(f"{self.n}\n")
        self.flush()
        sys.stdout.flush()


def _lines(svc: Any, items: list[Any], judgements: dict[str, Any], blocks: dict[str, Any],
           line_of: Callable[[Any, Any, Any], str]) -> list[str]:  # fmt: skip
    """Every item's line; on two cores (`core.halves`) in a one-shot listing (`Service.one_shot`)."""
    from .core.halves import can_fork, map_halves
    from .core.service.reads import HALVES_FROM

    def line(i: Any) -> str:
        return line_of(i, judgements.get(i.filename), blocks.get(i.filename))

    if svc.one_shot and len(items) >= HALVES_FROM and can_fork():
        first, second = map_halves(line, items, str)
        return first + second
    return [line(i) for i in items]


def write_listing(svc: Any, cache: Any, status: str, kind: str | None, only_repo: str | None, count: bool,
                  line_of: Callable[[Any, Any, Any], str], page: Page = (0, None),
                  stale: str | None = None) -> None:  # fmt: skip
    """The judged listing made from the store (the cached one missed): printed as it is made
    and written to `cache` in the same pass. `line_of(item, judgement, blocks)` is a line.
    Adopted and rejected items are judged alone, so they are streamed one at a time
    (`Service.terminal_stream`) and their lines cached for good (`LineCache`)."""
    import time

    from .core.readiness import judge_terminal

    states = states_for(status) or []
    terminal = [s for s in states if s in TERMINAL]  # the last states in STATES order
    taken = time.time_ns()
    sig = cache.signature()  # before reading: a change while reading must miss
    view = svc.queue([s for s in states if s not in TERMINAL])
    # every queue is loaded (dependencies cross them); the listing is the work items'
    items = sorted((i for i in view.items.values() if i.queue == "wi"), key=lambda i: (STATES.index(i.state), i.filename))
    judgements, blocks = view.judgements, view.blocks
    out = _Printer(status, kind, only_repo, count, page, stale)
    writer = cache.writer()
    meta: list[list[Any]] = []
    for i, line in zip(items, _lines(svc, items, judgements, blocks, line_of), strict=True):
        j = judgements.get(i.filename)
        m = [i.state, i.kind, i.target_repo, bool(j and j.ready)]
        meta.append(m)
        out.add(m, line)
        if writer is not None:
            writer.add(mark_cooldowns(line, j, view.now) if j is not None and j.cooldown_until is not None else line)
    # what the cached listing depends on besides the store, taken before the view is let go
    # (the terminal items below are judged alone: 50,000 of them need the memory): a
    # cooldown lifting (naive times are taken as UTC, as judged), plan files appearing
    until = min((
        (c if c.tzinfo is not None else c.replace(tzinfo=UTC)).timestamp()
        for j in judgements.values() if (c := j.cooldown_until) is not None
    ), default=None)  # fmt: skip
    missing = {view.items[n].plan_file for n in view.snapshot.plan_missing}
    plans = {v: v in missing for v in sorted({i.plan_file for i in view.items.values() if i.plan_file})}
    del view, items, judgements, blocks
    if terminal:
        from .core.cache import LineCache
        from .core.model import Item

        lines = None
        if svc.use_cache:
            import zlib

            sample = Item("00000000-000000-sample.md", "adopted", title="sample", defects=["d"])
            lines = LineCache(svc.store.git_dir, f"{zlib.crc32(line_of(sample, judge_terminal(sample.filename, sample), None).encode()):08x}")
            lines.load()
        keep: set[str] = set()
        for key, read in svc.terminal_stream(terminal):
            hit = lines.line(key) if lines is not None and key is not None else None
            if hit is None:
                item = read()
                hit = [item.kind, item.target_repo, line_of(item, judge_terminal(item.filename, item), None)]
                if lines is not None and key is not None:
                    lines.put_line(key, *hit)
                state = item.state
            else:
                state = key.split("/", 2)[1]
            if key is not None:
                keep.add(key)
            m = [state, hit[0], hit[1], False]
            meta.append(m)
            out.add(m, hit[2])
            if writer is not None:
                writer.add(hit[2])
        out.flush()
        if lines is not None:
            lines.save(keep=keep if TERMINAL.issubset(terminal) else None)
    out.close()
    if writer is not None:
        writer.close(sig, meta, until, plans, taken)


def serve(root: Path, status: str, kind: str | None, only_repo: str | None, as_json: bool, count: bool,
          page: Page = (0, None), stale: str | None = None) -> bool:  # fmt: skip
    """Print the cached listing when it is still the store's; False when the full listing
    must run (no cache, a change, text output)."""
    if not (as_json or count) or (sys.stdout.encoding or "").lower().replace("-", "") != "utf8":
        return False  # the full listing escapes what this stream cannot encode
    cache = listing_cache(root, status)
    if cache is None:
        return False
    import time

    hit = cache.load(time.time(), lambda values: plan_files_missing(root, values))
    if hit is None:
        return False
    print_listing(status, kind, only_repo, count, *hit, page=page, stale=stale)
    return True


_VALUED = {"--store": "store", "--status": "status", "--kind": "kind", "--target-repo": "only_repo",
           "--offset": "offset", "--limit": "limit"}  # fmt: skip
_FLAGS = {"--json": "json", "--no-json": "no_json", "--count": "count", "--skip-pull": "skip_pull", "--skip-push": None}


def parse(argv: list[str]) -> dict[str, Any] | None:
    """The options of a plain `[--store S] wi list ...`, or None for anything else (the full
    command line then parses it, with its abbreviations, help and errors)."""
    opts: dict[str, Any] = {"store": None, "status": "active", "kind": None, "only_repo": None,
                            "json": False, "no_json": False, "count": False, "offset": None, "limit": None,
                            "skip_pull": False}  # fmt: skip
    seen: set[str] = set()
    i, words = 0, []
    while i < len(argv):
        a = argv[i]
        name, eq, value = a.partition("=")
        if name in _VALUED:
            if not eq:
                if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                    return None
                value = argv[i + 1]
                i += 1
            if name in seen or not value:
                return None
            seen.add(name)
            opts[_VALUED[name]] = value
        elif a in _FLAGS and not eq:
            if _FLAGS[a]:
                opts[_FLAGS[a]] = True
        elif a.startswith("-"):
            return None
        else:
            words.append(a)
        i += 1
    if words != ["wi", "list"] or opts["json"] + opts["no_json"] + opts["count"] > 1:
        return None
    if opts["kind"] not in (None, "awi", "uwi"):
        return None
    for key, least in (("offset", 0), ("limit", 1)):
        value = opts.get(key)
        if value is not None and not (value.isascii() and value.isdigit() and int(value) >= least):
            return None  # the full command line says what it takes
    opts["page"] = (int(opts.pop("offset") or 0), int(v) if (v := opts.pop("limit")) is not None else None)
    return opts


def main() -> None:
    try:
        _main()
    except KeyboardInterrupt:  # Ctrl-C before the full command line took over: a read, nothing changed
        sys.stderr.write("atk: interrupted; nothing was changed\n")
        sys.exit(130)


def _main() -> None:
    opts = parse(sys.argv[1:])
    if opts is not None:
        import gc

        # a listing builds tens of thousands of objects and exits: the cycle collector's
        # passes over them (a tenth of a cold listing) find nothing to free
        gc.disable()
        try:
            root = resolve_store(opts["store"])
            as_json = opts["json"] or (is_agent_env() and not opts["no_json"])
            only_repo = opts["only_repo"]
            named = os.environ.get("ATK_AGENT_ID")
            if named and is_agent_env() and not _AGENT_ID.fullmatch(named):
                raise ValueError("a bad ATK_AGENT_ID: the full command line refuses it")
            if (root / ".git").is_dir():
                stale = None
                if not opts["skip_pull"]:  # a read brings in what the remote has (SPEC §15)
                    from .core.freshen import freshen_once

                    stale = freshen_once(root, keep=True).stale
                if serve(root, opts["status"], opts["kind"], only_repo, as_json, opts["count"], opts["page"], stale):
                    if stale:
                        from .core.freshen import stale_message
                        from .core.textsafe import safe_text

                        sys.stderr.write("atk: " + safe_text(stale_message(stale)) + "\n")
                    sys.exit(0)
        except (ConfigError, OSError, ValueError):
            pass  # the full command line says what is wrong
        except BrokenPipeError:
            os._exit(0)
    from .cli import main as cli_main

    cli_main()
