"""The caches of listings and parsed items (their files: `cache.files`, the one place they
are read and written, in one format under one scheme).

Parsed items are kept by git blob SHA.

A move does not change a file's blob SHA, so moving items costs no re-parse. Entries are keyed
by blob *and* filename: a parse depends on the name too (the title falls back to the filename
stem, a bad filename is a defect), so a renamed copy of the same bytes is parsed afresh. The
cache holds the metadata needed for listing and readiness, not bodies (those are read on
demand).

The payload is lines of JSON objects of records (a few thousand each, read back a line at a
time: `files.read_lines`), each record a list of fields in a fixed order. The checksum makes a
damaged, truncated or hand-edited file a miss as a whole, so records need no per-field type
checks on the hot path (loading 10,000 of them is most of a warm listing).

Nothing that gates work rests on these (issue 25): the process-loop's hand-out, `show --json`
and every write judge from the files (`Service.judge_from_files`, `WriteCore.current`). A
forged record can change what a listing shows (a view: a record stays until its item's file
changes), not what is done.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import fields
from datetime import datetime
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

from atk_tui.cache import files
from atk_tui.domain.fields import NAMES, TIMES
from atk_tui.domain.model import Item
from atk_tui.host.gcpause import paused_gc
from atk_tui.store.storesig import RACY_NS, PendingSignature, Signature, dirs_signature

#: what a parse derives beside the frontmatter: these `Item` fields start a record, then
#: every frontmatter key of the table (`domain.fields`), date-times as ISO 8601 text
DERIVED = ("defects", "warnings", "title", "answered", "has_comment", "size", "answer_partial")
RECORD = (*DERIVED, *NAMES)
_N = len(RECORD)
_TIME_AT = tuple(RECORD.index(n) for n in TIMES)
_LIST_AT = tuple(RECORD.index(n) for n in ("defects", "warnings", "depends_on"))  # copies: items may be changed


def cache_key(blob: str, filename: str) -> str:
    return f"{blob}/{filename}"


_get_record = attrgetter(*RECORD)


def to_record(item: Item) -> list[Any]:
    r = list(_get_record(item))
    for i in _TIME_AT:
        if r[i] is not None:
            r[i] = r[i].isoformat()
    return r


#: `Item`'s fields in order: filename, state, the text (not in a record), then the record's
#: fields up to `blob`, then blob, complete, answer_partial, queue
_FIELDS = [f.name for f in fields(Item)]
_TEXT = ("fm_block", "fm_text", "body", "data")
_IN_ORDER = itemgetter(*(RECORD.index(n) for n in _FIELDS[6 : _FIELDS.index("blob")]))
if _FIELDS[:6] != ["filename", "state", *_TEXT] or _FIELDS[_FIELDS.index("blob") :] != ["blob", "complete", "answer_partial", "queue"]:
    raise ImportError("Item's fields moved: from_record makes items by position")
_PARTIAL_AT = RECORD.index("answer_partial")


def from_record(filename: str, state: str, blob: str, r: list[Any]) -> Item:
    # this runs once per listed item (30,000 for a dashboard): the fields by position
    v = list(r)
    for i in _TIME_AT:
        if v[i]:
            v[i] = datetime.fromisoformat(v[i])
    for i in _LIST_AT:
        v[i] = list(v[i])
    return Item(filename, state, "", None, "", {}, *_IN_ORDER(v), blob, False, v[_PARTIAL_AT]).listed()


def _json_lines(entries: dict[str, Any], n: int = 2000) -> Iterator[bytes]:
    """`entries` as lines of JSON objects of a few thousand entries each, ASCII (escapes keep
    names that are not valid UTF-8, surrogates, round-tripping): read back a line at a time
    (`files.read_lines`), the entries cost their objects' memory, not their text's too."""
    from itertools import islice

    it = iter(entries.items())
    while part := dict(islice(it, n)):
        yield json.dumps(part, separators=(",", ":")).encode("ascii") + b"\n"


class ItemCache:
    """Parsed items' records by blob and filename, one entry per scope (`active`,
    `terminal`, `mq-active`, ...), so listing the active queue does not load the history's."""

    def __init__(self, git_dir: Path, scope: str, key: Any = None) -> None:
        self.git_dir, self.name, self.key = git_dir, f"items-{scope}", key
        self.entries: dict[str, Any] = {}
        self.dirty = False

    @property
    def path(self) -> Path:
        return files.path_of(self.git_dir, self.name)

    def load(self) -> None:
        lines = files.read_lines(self.git_dir, self.name, self.key)
        self.entries = {}
        if lines is None:
            self.dirty = self.path.exists()  # damaged or another code's: written anew
            return
        entries: dict[str, Any] = {}
        try:
            with paused_gc():
                for line in lines:  # a part at a time: the file's text is never whole in memory
                    part = json.loads(line)
                    if type(part) is not dict:
                        raise ValueError("bad cache")
                    entries.update(part)
            self.entries = entries
        except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError included
            self.dirty = True

    def get(self, filename: str, state: str, blob: str) -> Item | None:
        key = cache_key(blob, filename)
        rec = self.entries.get(key)
        if rec is None:
            return None
        try:
            if type(rec) is not list or len(rec) != _N:
                raise TypeError("bad record")
            return from_record(filename, state, blob, rec)
        except (TypeError, ValueError, KeyError, IndexError):
            del self.entries[key]
            self.dirty = True
            return None

    def put(self, item: Item) -> None:
        self.entries[cache_key(item.blob, item.filename)] = to_record(item)
        self.dirty = True

    def save(self, keep: set[str] | None = None) -> None:
        """Write the cache (only the keys in `keep`, see `cache_key`, when given), atomically;
        errors ignored: the cache is only ever an optimisation."""
        if keep is not None and not keep.issuperset(self.entries):
            self.entries = {k: v for k, v in self.entries.items() if k in keep}
            self.dirty = True
        if self.dirty and files.write(self.git_dir, self.name, _json_lines(self.entries), self.key):
            self.dirty = False


class LineCache(ItemCache):
    """A terminal item's listing line with its kind, target_repo and title, keyed by what it is
    derived from alone (blob, state and filename: `Service.terminal_stream`): adopted and
    rejected items change only when moved, so `--status=all` parses each of them once.
    `fmt` names the line format (a digest of a sample line): another format, a miss."""

    def __init__(self, git_dir: Path, fmt: str) -> None:
        super().__init__(git_dir, "lines", key=fmt)
        self.name = "lines"
        self._out: files.Writer | None = None
        self._part: dict[str, list[str]] = {}

    def line(self, key: str) -> list[str] | None:
        """[kind, target_repo, line, title] of the item `key` names, or None."""
        v = self.entries.get(key)
        return v if type(v) is list and len(v) == 4 and all(type(x) is str for x in v) else None

    def stream(self) -> None:
        """When nothing was loaded (a cold listing): the lines put from now on are written as
        they come, not held (50,000 archived items' lines are ~40 MB); `save` ends the file."""
        if self.entries or self._out is not None:
            return
        out = files.Writer(self.git_dir, self.name)
        if out.failed:
            out.abort()
            return
        self._out = out

    def put_line(self, key: str, kind: str, target_repo: str, line: str, title: str) -> None:
        if self._out is None:
            self.entries[key] = [kind, target_repo, line, title]
            self.dirty = True
            return
        self._part[key] = [kind, target_repo, line, title]
        if len(self._part) >= 2000:
            self._write_part(self._out)

    def _write_part(self, out: files.Writer) -> None:
        """The lines put since the last part, as one line of the file (`_json_lines`)."""
        for data in _json_lines(self._part, len(self._part) or 1):
            out.add(data)
        self._part = {}

    def abort(self) -> None:
        """Nothing kept of what was written since `stream`."""
        out, self._out = self._out, None
        if out is not None:
            out.abort()

    def save(self, keep: set[str] | None = None) -> None:
        out, self._out = self._out, None
        if out is None:
            super().save(keep)
            return
        self._write_part(out)
        out.close(self.key)


# -- the judged listing ------------------------------------------------------------------------

MQ = "mq"


def listing_dirs(root: Path | str, states: list[str], all_states: tuple[str, ...], mq_terminal: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(content_dirs, name_dirs) of a listing of `states`: whose files are parsed (their
    contents count) and whose names only count (where an item is). `mq/` folders, when
    the store has them, count too: items may depend on feedback items."""
    content = [f"wi/{s}" for s in states]
    names = [f"wi/{s}" for s in all_states if s not in states]
    mq = os.path.join(str(root), MQ)
    if os.path.isdir(mq):
        try:
            subs = sorted(e.name for e in os.scandir(mq) if e.is_dir(follow_symlinks=False))
        except OSError:
            subs = []
        names.append(MQ)
        for s in subs:
            (names if s in mq_terminal else content).append(f"{MQ}/{s}")
    return content, names


def plan_signature(root: Path | str, values: list[str], leaves: bool = False) -> tuple[str, int, list[str], list[str]]:
    """(digest, newest mtime, volatile values) of what the existence of these plan files
    depends on: every folder from the store down to each one's folder, by lstat (a file
    added, removed or renamed in a folder changes its mtime). With `leaves`, the values
    whose file is a symbolic link (its target may change elsewhere) or that lie outside the
    store are returned as volatile: a cached listing checks them again on every hit. The
    folders are returned last (`dirs_signature` of them is the digest)."""
    from atk_tui.host.config import plan_file_path

    base = str(root)
    prefix = base + os.sep
    dirs: set[str] = set()
    volatile: list[str] = []
    for v in values:
        path = plan_file_path(base, v)
        if not path.startswith(prefix):
            volatile.append(v)
            continue
        if leaves and (os.path.islink(path) or not os.path.lexists(path)):
            volatile.append(v)  # a link's target, or a plan not in the store (yet: the planning root's)
        d = os.path.dirname(path)
        while len(d) > len(base) and d not in dirs:
            dirs.add(d)
            d = os.path.dirname(d)
    ordered = sorted(dirs)
    digest, newest = dirs_signature(ordered)
    return digest, newest, volatile, ordered


_MARK = re.compile(rb"\x00([0-9.]+)\x00")


def cooldown_marker(until: float) -> str:
    """Stands for the time left until `until` (a NUL never occurs in a JSON line)."""
    return f"\x00{until!r}\x00"


def _fill_cooldowns(payload: bytes, now: float) -> bytes:
    from atk_tui.domain.ages import format_duration

    return _MARK.sub(lambda m: format_duration(float(m[1]) - now).encode(), payload)


#: a cached listing's lines as `ListingCache.load` gives them: parts printed one after the other
Parts = tuple[bytes | memoryview, ...]


#: by a listing's file, what this process's `ListingCache.load` of it found out of date: when
#: the store's signature was taken, the signature (the listing made next starts from it) and
#: the file's stat (the same file is not checked again)
_MISSED: dict[Path, tuple[int, Signature, tuple[int, int, int]]] = {}


class ListingCache:
    """`atk wi list --json`'s judged result for one set of states, keyed by the store's
    signature (`storesig`): a warm listing checks the signature, reads this one file and
    prints.

    The judgement also depends on the time (a cooldown lifts: the listing is valid only
    until the earliest future `cooldown_until`) and on plan files existing (their values
    are checked again on every hit with the listing's own rule)."""

    def __init__(self, root: Path | str, states: list[str], all_states: tuple[str, ...], mq_terminal: tuple[str, ...] = ()) -> None:
        self.root = Path(root)
        self.states = [s for s in all_states if s in set(states)]  # one order (ACTIVE is a set)
        self.git_dir = self.root / ".git"
        self.name = f"list-{'-'.join(self.states)}"
        self.path = files.path_of(self.git_dir, self.name)
        self.content_dirs, self.name_dirs = listing_dirs(self.root, self.states, all_states, mq_terminal)
        self.terminal_dirs = [f"wi/{s}" for s in self.states if s in mq_terminal]
        self.notes: list[str] = []  # the notes kept with the listing `load` returned

    def begin_signature(self, git: bool = True, survey: bool = False) -> PendingSignature | None:
        """The store's signature as this listing sees it, started (`storesig`); None when
        it cannot be taken (a half-done write, a linked cache folder, no plain `.git`)."""
        if os.path.islink(self.path.parent) or (self.git_dir / "atk-journal.json").exists():
            return None  # a half-done write is rolled back by the full listing
        if not os.path.isdir(self.git_dir) or os.path.islink(self.git_dir):
            return None
        return PendingSignature(str(self.root), self.content_dirs, self.name_dirs, self.terminal_dirs, git, survey)

    def signature(self, with_newest: bool = True, unvouched: list[str] | bool | None = True) -> Signature | None:
        """(digest, newest stat time, unvouched paths) of the store as this listing sees it
        (the newest time only `with_newest`: it costs a parse). `unvouched`: True, taken
        before a listing is made, finds them; then what that found, to take it again."""
        pending = self.begin_signature(git=unvouched is not None, survey=unvouched is True)
        if pending is None:
            return None
        return pending.finish(None if unvouched is True else unvouched, with_newest)  # type: ignore[arg-type]

    def load(self, now: float, plan_missing: Callable[[list[str]], list[str]],
             meanwhile: Callable[[bytes], Any] | None = None) -> tuple[Any, Parts] | None:  # fmt: skip
        """(meta, payload) when the cached listing is still the store's, else None. The
        payload is the listing's lines (UTF-8, joined by newlines) in parts to print one
        after the other; `meta` is the JSON of a list whose item i is `[state, kind,
        target_repo, ready, filename, title]` of line i (decoded only to filter), or what
        `meanwhile(meta)` made of it: that runs while git and find take the store's
        signature (a filter that reads every item's file costs their time, not its own and
        theirs). `plan_missing(values)` says which plan_file values name no file now (asked
        only for plan files that are symbolic links).

        The entry's payload is the lines, a newline and `meta` (`meta_at` in the header says
        where it starts); its key is the store's signature."""
        looked = _MISSED.pop(self.path, None)
        try:
            st = os.stat(self.path)
        except OSError:
            return None  # a cold listing: the signature is not worth taking
        file_key = (st.st_ino, st.st_size, st.st_mtime_ns)
        if looked is not None and looked[2] == file_key:
            _MISSED[self.path] = looked  # this process found it out of date (the entry, then `main`)
            return None
        taken = time.time_ns()
        pending = self.begin_signature()  # git and find stat the store while this checks the file
        if pending is None:
            return None
        try:
            got = files.read(self.git_dir, self.name, check_key=False)
            if got is None:
                return None
            header, whole = got
            cut = header["meta_at"]
            payload, meta = whole[:cut], bytes(whole[cut + 1 :])
            until = header.get("until")
            if until is not None and now >= until:
                return None
            plans = header["plans"]
            if dirs_signature(header["plan_dirs"])[0] != header["plan_sig"]:
                return None
            volatile = header["volatile"]
            if volatile and sorted(plan_missing(volatile)) != sorted(v for v in volatile if plans[v]):
                return None
            if meanwhile is not None:
                meta = meanwhile(meta)
            sig = pending.finish(header["unvouched"], with_newest=False)  # last: git has had the most time
            if sig is not None and header["key"] != sig[0]:
                made = pending.completed(sig)  # the listing made next starts from it
                if made is not None:
                    _MISSED[self.path] = (taken, made, file_key)
            pending = None
            if sig is None or header["key"] != sig[0]:
                return None
            self.notes = header["notes"]
            marked = header["marked"]
            if marked:  # markers are in the active lines, which come first: fill only those
                return meta, (_fill_cooldowns(bytes(payload[:marked]), now), payload[marked:])
            return meta, (payload,)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        finally:
            if pending is not None:
                pending.cancel()

    def signature_to_make(self) -> tuple[int, Signature | None]:
        """(when it was taken, the store's signature) for a listing about to be made from the
        store: the one this process's `load` took just before it missed, else one taken now
        (an out-of-date listing looks at the store twice, not four times)."""
        got = _MISSED.pop(self.path, None)
        if got is not None:
            return got[0], got[1]
        taken = time.time_ns()
        return taken, self.signature()

    def writer(self) -> ListingWriter | None:
        """A listing written line by line as it is printed; None when the cache cannot be
        written."""
        w = files.Writer(self.git_dir, self.name)
        if w.failed:
            w.abort()
            return None
        return ListingWriter(self, w)


class ListingWriter:
    """One listing being written (`ListingCache.writer`): `add` every line, then `close`
    (kept only when the store did not change meanwhile) or `abort`."""

    def __init__(self, cache: ListingCache, out: files.Writer) -> None:
        self.cache, self.out = cache, out
        self.n = self.marked = 0

    def add(self, line: str) -> None:
        self.out.add((b"\n" if self.n else b"") + line.encode("utf-8"))
        self.n += 1
        if "\x00" in line:  # a cooldown marker (`cooldown_marker`): filled up to here when printed
            self.marked = self.out.size

    def abort(self) -> None:
        self.out.abort()

    def close(self, sig: Signature | None, meta: list[list[Any]], until: float | None,
              plans: dict[str, bool], taken_ns: int, notes: list[str] | None = None) -> bool:  # fmt: skip
        """Keep the listing computed from the store as it was at `sig` (taken before the
        listing was read, at `taken_ns`), unless the store changed since or `sig` is racy.
        `notes`: what the text listing says on stderr after it (the store's defects)."""
        cache = self.cache
        try:
            if sig is None or sig[1] >= taken_ns - RACY_NS:
                return False
            plan_sig, plan_newest, volatile, plan_dirs = plan_signature(cache.root, list(plans), leaves=True)
            if plan_newest >= taken_ns - RACY_NS:
                return False
            again = cache.signature(with_newest=False, unvouched=sig[2])
            if again is None or again[0] != sig[0]:
                return False  # changed while it was read: the listing may mix two states
            meta_at = self.out.size
            self.out.add(b"\n" + json.dumps(meta, separators=(",", ":")).encode("ascii"))
            return self.out.close(
                sig[0], until=until, plans=plans, plan_sig=plan_sig, plan_dirs=plan_dirs, volatile=volatile,
                unvouched=sig[2], marked=self.marked, meta_at=meta_at, notes=notes or [],
            )  # fmt: skip
        except (OSError, ValueError):
            return False
        finally:
            self.out.abort()  # nothing once closed
