"""A cache of parsed items keyed by git blob SHA, kept in the store's `.git`.

A move does not change a file's blob SHA, so moving items costs no re-parse. Entries are keyed
by blob *and* filename: a parse depends on the name too (the title falls back to the filename
stem, a bad filename is a defect), so a renamed copy of the same bytes is parsed afresh. The
cache holds the metadata needed for listing and readiness, not bodies (those are read on
demand).

The file is a header line (version, CRC-32 and size of the rest) and one JSON object of
records, each a list of fields in a fixed order. The checksum makes a damaged, truncated or
hand-edited file a miss as a whole, so records need no per-field type checks on the hot path
(loading 10,000 of them is most of a warm listing). A missing file, another version or a
bad checksum: the cache is silently rebuilt.

The checksum tells damage, not forgery: a process that can write `.git` can rewrite a record
and recompute it. So the caches here only ever make a listing faster; nothing that gates work
rests on them (issue 25): the process-loop's hand-out, `show --json` and every write judge from
the files (`Service.judge_from_files`, `Service._current`). A forged record can change what a
listing shows (a view: a record stays until its item's file changes), not what is done.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import Any

from .model import Item
from .storesig import PendingSignature, Signature, dirs_signature

VERSION = 10  # 8: titles without an H1 (items.item_title); 9: an empty choice line or a bare "other" answers nothing, duplicate keys are defects (issue 25); 10: an invisible choice or a letter no option has answers nothing
#: Record layout: these `Item` fields in this order (the order of `Item`'s own fields).
FIELDS = (
    "defects", "warnings", "title", "kind", "source", "target_repo", "target_commit", "plan_file",
    "depends_on", "cooldown_until", "created", "urgency", "note", "commit", "answered", "has_comment",
    "size", "answer_partial",
)  # fmt: skip
_N = len(FIELDS)


def cache_key(blob: str, filename: str) -> str:
    return f"{blob}/{filename}"


def to_record(item: Item) -> list[Any]:
    c, t = item.cooldown_until, item.created
    return [
        item.defects, item.warnings, item.title, item.kind, item.source, item.target_repo,
        item.target_commit, item.plan_file, item.depends_on,
        c.isoformat() if c is not None else None, t.isoformat() if t is not None else None,
        item.urgency, item.note, item.commit, item.answered, item.has_comment, item.size,
        item.answer_partial,
    ]  # fmt: skip


def from_record(filename: str, state: str, blob: str, r: list[Any]) -> Item:
    # positional, in Item's field order: this runs once per listed item
    c, t = r[9], r[10]
    item = Item(
        filename, state, "", None, "", {},
        list(r[0]), list(r[1]), r[2], r[3], r[4], r[5], r[6], r[7], list(r[8]),  # copies: items may be changed
        datetime.fromisoformat(c) if c else None, datetime.fromisoformat(t) if t else None,
        r[11], r[12], r[13], r[14], r[15], r[16], blob, False, r[17],
    )  # fmt: skip
    return item


_HEADER = 79  # bytes of the header line of an `ItemCache` file, padded with spaces


def _json_slices(entries: dict[str, Any], n: int = 2000) -> Iterator[bytes]:
    """`json.dumps(entries)` as ASCII, a few thousand entries at a time (ASCII escapes keep
    names that are not valid UTF-8, surrogates, round-tripping)."""
    from itertools import islice

    it = iter(entries.items())
    first = True
    while True:
        part = dict(islice(it, n))
        if not part:
            break
        text = json.dumps(part, separators=(",", ":"))[1:-1]
        yield (("{" if first else ",") + text).encode("ascii")
        first = False
    yield b"}" if not first else b"{}"


def framed_payload(raw: bytes, expect: dict[str, Any]) -> int | None:
    """Where the payload of a cache file starts in `raw`: the file is a header line (JSON: the
    `expect`ed values, and the size and CRC-32 of the rest) and the payload. None when the
    header says otherwise, or the rest is not what it says (damaged, truncated, hand-edited)."""
    try:
        nl = raw.index(b"\n")
        header = json.loads(raw[:nl])
    except ValueError:  # no newline; not JSON
        return None
    if not isinstance(header, dict) or any(header.get(k) != v for k, v in expect.items()):
        return None
    payload = memoryview(raw)[nl + 1 :]
    if header.get("size") != len(payload) or header.get("crc32") != zlib.crc32(payload):
        return None
    return nl + 1


class ItemCache:
    """One file per scope (`active`, `terminal`), so listing the active queue does not
    load the history's entries."""

    def __init__(self, git_dir: Path, scope: str) -> None:
        self.path = git_dir / "atk-cache" / f"{scope}-v{VERSION}.json"
        self.entries: dict[str, list[Any]] = {}
        self.dirty = False

    def _linked(self) -> bool:
        """The cache folder is a symbolic link: never read or write through it (it could
        lead out of the store); the cache is then simply not used."""
        return os.path.islink(self.path.parent)

    def load(self) -> None:
        try:
            if self._linked():
                raise OSError("linked cache folder")
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as fh:
                raw = fh.read()
        except OSError:
            if self._linked():
                self.entries = {}
                return
            self.entries = {}
            # files of other cache versions are dead weight
            for old in self.path.parent.glob(self.path.name.split("-v")[0] + "-v*.json"):
                try:
                    old.unlink()
                except OSError:
                    pass
            return
        try:
            start = framed_payload(raw, {"version": VERSION})
            if start is None:
                raise ValueError("stale or damaged cache")
            # decoded in place of the bytes (the file may be tens of MB): one text, then records
            text = raw.decode("ascii")
            del raw
            entries, _end = json.JSONDecoder().raw_decode(text, start)
            if not isinstance(entries, dict):
                raise ValueError("bad cache")
            self.entries = entries
        except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError included
            self.entries = {}
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
        self.put_record(cache_key(item.blob, item.filename), to_record(item))

    def put_record(self, key: str, record: list[Any]) -> None:
        """`put` of an item already made a record (`to_record`; `key` is `cache_key`'s)."""
        self.entries[key] = record
        self.dirty = True

    def save(self, keep: set[str] | None = None) -> None:
        """Write the cache (only the keys in `keep`, see `cache_key`, when given), atomically;
        errors ignored: the cache is only ever an optimisation."""
        if keep is not None and not keep.issuperset(self.entries):
            self.entries = {k: v for k, v in self.entries.items() if k in keep}
            self.dirty = True
        if not self.dirty or self._linked():
            return

        def write(fh: Any) -> None:
            # the header (padded: JSON allows the spaces) is written last, so the records
            # are encoded a slice at a time instead of as one text
            fh.write(b" " * _HEADER + b"\n")
            size = crc = 0
            for data in _json_slices(self.entries):
                size += len(data)
                crc = zlib.crc32(data, crc)
                fh.write(data)
            fh.seek(0)
            fh.write(json.dumps({"version": VERSION, "size": size, "crc32": crc}).encode("ascii").ljust(_HEADER))

        if _replace_file(self.path, write):
            self.dirty = False


def _replace_file(path: Path, write: Callable[[Any], None]) -> bool:
    """Write `path` whole or not at all (`write(fh)` fills a temporary file in its folder,
    renamed over it; never through a linked folder). Errors are ignored: a cache is only
    ever an optimisation."""
    tmp = None
    try:
        path.parent.mkdir(exist_ok=True)
        if os.path.islink(path.parent):
            return False
        import tempfile

        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(tmp, path)
        tmp = None
        return True
    except (OSError, ValueError):
        return False
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


class LineCache(ItemCache):
    """A terminal item's listing line with its kind and target_repo, keyed by what it is
    derived from alone (blob, state and filename: `Service.terminal_stream`): adopted and
    rejected items change only when moved, so `--status=all` parses each of them once.
    `fmt` names the line format (a digest of a sample line): another format, another file."""

    def __init__(self, git_dir: Path, fmt: str) -> None:
        super().__init__(git_dir, "lines")
        self.path = git_dir / "atk-cache" / f"lines-v{VERSION}-{fmt}.json"

    def line(self, key: str) -> list[str] | None:
        v = self.entries.get(key)
        return v if type(v) is list and len(v) == 3 and all(type(x) is str for x in v) else None

    def put_line(self, key: str, kind: str, target_repo: str, line: str) -> None:
        self.entries[key] = [kind, target_repo, line]
        self.dirty = True


@contextmanager
def paused_gc() -> Iterator[None]:
    """No cycle collection while tens of thousands of objects (holding no cycles) are made in
    a process with a big heap (the dashboard): the collector's passes over that heap would
    cost several times the work itself."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class NamesCache:
    """What listing folders yields (names, not contents), keyed by those folders' lstat
    (`dirs_signature`: a name added, removed or renamed changes its folder's mtime): the
    history's 50,000 names without listing 50,000 files. Not saved while racy."""

    def __init__(self, git_dir: Path, name: str) -> None:
        self.path = git_dir / "atk-cache" / f"{name}-v{VERSION}.json"

    def load(self, sig: str) -> Any:
        try:
            if os.path.islink(self.path.parent):
                return None
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as fh:
                raw = fh.read()
            with paused_gc():
                data = json.loads(raw)
            return data["value"] if type(data) is dict and data.get("sig") == sig else None
        except (OSError, ValueError, KeyError, RecursionError):
            return None

    def save(self, sig: str, newest_ns: int, taken_ns: int, value: Any) -> None:
        if newest_ns >= taken_ns - RACY_NS:
            return
        payload = json.dumps({"sig": sig, "value": value}, separators=(",", ":")).encode("ascii")
        _replace_file(self.path, lambda fh: fh.write(payload))


# -- the judged listing ------------------------------------------------------------------------

LISTING_VERSION = 9  # 6: titles without an H1 (items.item_title); 7: as VERSION 9; 8: held_by (core/holds); 9: as VERSION 10
#: A stat time this close (ns) to the moment a signature is taken is not trusted: a file
#: written again within the file system's timestamp granularity could keep its mtime and size
#: (git's "racily clean" case). A listing whose signature has one is not saved.
RACY_NS = 2_000_000_000
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
    from .config import plan_file_path

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
    from .readiness import format_duration

    return _MARK.sub(lambda m: format_duration(float(m[1]) - now).encode(), payload)


#: a cached listing's lines as `ListingCache.load` gives them: parts printed one after the other
Parts = tuple[bytes | memoryview, ...]


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
        self.path = self.git_dir / "atk-cache" / f"list-{'-'.join(self.states)}-v{LISTING_VERSION}"
        self.content_dirs, self.name_dirs = listing_dirs(self.root, self.states, all_states, mq_terminal)
        self.terminal_dirs = [f"wi/{s}" for s in self.states if s in mq_terminal]

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

    def load(self, now: float, plan_missing: Callable[[list[str]], list[str]]) -> tuple[bytes, Parts] | None:
        """(meta, payload) when the cached listing is still the store's, else None. The
        payload is the listing's lines (UTF-8, joined by newlines) in parts to print one
        after the other; `meta` is the JSON of a list whose item i is `[state, kind,
        target_repo, ready]` of line i (decoded only to filter). `plan_missing(values)` says
        which plan_file values name no file now (asked only for plan files that are symbolic
        links).

        The file: the payload's length (12 digits) and a newline, the payload, a newline,
        `meta`, a newline, the header (JSON): written in one pass as the listing is printed."""
        pending = None
        try:
            # the file first: without one (a cold listing) the signature is not worth taking
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                pending = self.begin_signature()  # git and find stat the store while this checks the file
                if pending is None:
                    return None
                import mmap

                # mapped, not read: a listing of everything is 30 MB, and a read costs a copy
                # (the file is only ever replaced by a rename, never written in place)
                raw = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
            finally:
                os.close(fd)
            size = int(raw[:12])
            end = 13 + size
            nl = raw.find(b"\n", end + 1)
            if raw[12:13] != b"\n" or raw[end : end + 1] != b"\n" or nl < 0:
                return None
            meta = raw[end + 1 : nl]
            header = json.loads(raw[nl + 1 :])
            payload = memoryview(raw)[13:end]
            if (
                header.get("version") != LISTING_VERSION
                or header.get("size") != len(meta) + len(payload)
                or header.get("crc32") != zlib.crc32(meta, zlib.crc32(payload))
            ):
                return None
            until = header.get("until")
            if until is not None and now >= until:
                return None
            plans = header["plans"]
            if dirs_signature(header["plan_dirs"])[0] != header["plan_sig"]:
                return None
            volatile = header["volatile"]
            if volatile and sorted(plan_missing(volatile)) != sorted(v for v in volatile if plans[v]):
                return None
            sig = pending.finish(header["unvouched"], with_newest=False)  # last: git has had the most time
            pending = None
            if sig is None or header["sig"] != sig[0]:
                return None
            cut = header["marked"]
            if cut:  # markers are in the active lines, which come first: fill only those
                return meta, (_fill_cooldowns(bytes(payload[:cut]), now), payload[cut:])
            return meta, (payload,)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        finally:
            if pending is not None:
                pending.cancel()

    def save(self, sig: Signature | None, meta: list[list[Any]], lines: list[str], until: float | None,
             plans: dict[str, bool], taken_ns: int) -> bool:  # fmt: skip
        """Write the listing computed from the store as it was at `sig` (taken before the
        listing was read, at `taken_ns`), unless the store changed since or `sig` is racy."""
        w = self.writer()
        if w is None:
            return False
        for line in lines:
            w.add(line)
        return w.close(sig, meta, until, plans, taken_ns)

    def writer(self) -> ListingWriter | None:
        """A listing written line by line as it is printed (`save` at once); None when
        the cache cannot be written."""
        try:
            self.path.parent.mkdir(exist_ok=True)
            if os.path.islink(self.path.parent):
                return None
            import tempfile

            fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        except OSError:
            return None
        return ListingWriter(self, fd, tmp)


class ListingWriter:
    """One listing file being written (`ListingCache.writer`): `add` every line, then
    `close` (kept only when the store did not change meanwhile) or `abort`."""

    def __init__(self, cache: ListingCache, fd: int, tmp: str) -> None:
        self.cache, self.tmp = cache, tmp
        self.fh: Any = os.fdopen(fd, "wb")
        self.n = self.size = self.crc = self.marked = 0
        self.failed = False
        self._write(b"0" * 12 + b"\n")

    def _write(self, data: bytes) -> None:
        if self.failed:
            return
        try:
            self.fh.write(data)
        except (OSError, ValueError):
            self.failed = True

    def add(self, line: str) -> None:
        data = (b"\n" if self.n else b"") + line.encode("utf-8")
        self.n += 1
        self.size += len(data)
        self.crc = zlib.crc32(data, self.crc)
        self._write(data)
        if "\x00" in line:  # a cooldown marker (`cooldown_marker`): filled up to here when printed
            self.marked = self.size

    def abort(self) -> None:
        try:
            self.fh.close()
        except OSError:
            pass
        try:
            os.unlink(self.tmp)
        except OSError:
            pass

    def close(self, sig: Signature | None, meta: list[list[Any]], until: float | None,
              plans: dict[str, bool], taken_ns: int) -> bool:  # fmt: skip
        """Keep the listing computed from the store as it was at `sig` (taken before the
        listing was read, at `taken_ns`), unless the store changed since or `sig` is racy."""
        cache = self.cache
        ok = False
        try:
            if self.failed or sig is None or sig[1] >= taken_ns - RACY_NS:
                return False
            plan_sig, plan_newest, volatile, plan_dirs = plan_signature(cache.root, list(plans), leaves=True)
            if plan_newest >= taken_ns - RACY_NS:
                return False
            again = cache.signature(with_newest=False, unvouched=sig[2])
            if again is None or again[0] != sig[0]:
                return False  # changed while it was read: the listing may mix two states
            meta_raw = json.dumps(meta, separators=(",", ":")).encode("ascii")
            header = {"version": LISTING_VERSION, "sig": sig[0], "until": until, "plans": plans, "plan_sig": plan_sig,
                      "plan_dirs": plan_dirs, "volatile": volatile, "unvouched": sig[2], "marked": self.marked, "size": len(meta_raw) + self.size,
                      "crc32": zlib.crc32(meta_raw, self.crc)}  # fmt: skip
            self._write(b"\n" + meta_raw + b"\n" + json.dumps(header, separators=(",", ":")).encode("ascii"))
            if self.failed:
                return False
            self.fh.seek(0)
            self.fh.write(b"%012d" % self.size)
            self.fh.close()
            os.replace(self.tmp, cache.path)
            ok = True
            for old in cache.path.parent.glob(cache.path.name.rsplit("-v", 1)[0] + "-v*"):
                if old.name != cache.path.name and not old.name.endswith(".tmp"):
                    with suppress(OSError):
                        old.unlink()  # another version's listing: dead weight (tens of MB)
            return True
        except (OSError, ValueError):
            return False
        finally:
            if not ok:
                self.abort()
