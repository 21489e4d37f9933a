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
"""

from __future__ import annotations

import json
import os
import zlib
from datetime import datetime
from pathlib import Path
from typing import Any

from .model import Item

VERSION = 6
#: Record layout: these `Item` fields in this order (the order of `Item`'s own fields).
FIELDS = (
    "defects", "warnings", "title", "kind", "source", "target_repo", "target_commit", "plan_file",
    "depends_on", "cooldown_until", "created", "urgency", "note", "commit", "answered", "has_comment",
    "size",
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
    ]  # fmt: skip


def from_record(filename: str, state: str, blob: str, r: list[Any]) -> Item:
    # positional, in Item's field order: this runs once per listed item
    c, t = r[9], r[10]
    return Item(
        filename, state, "", None, "", {},
        list(r[0]), list(r[1]), r[2], r[3], r[4], r[5], r[6], r[7], list(r[8]),  # copies: items may be changed
        datetime.fromisoformat(c) if c else None, datetime.fromisoformat(t) if t else None,
        r[11], r[12], r[13], r[14], r[15], r[16], blob, False,
    )  # fmt: skip


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
            nl = raw.index(b"\n")
            header = json.loads(raw[:nl])
            payload = raw[nl + 1 :]
            if (
                not isinstance(header, dict)
                or header.get("version") != VERSION
                or header.get("size") != len(payload)
                or header.get("crc32") != zlib.crc32(payload)
            ):
                raise ValueError("stale or damaged cache")
            entries = json.loads(payload)
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
        self.entries[cache_key(item.blob, item.filename)] = to_record(item)
        self.dirty = True

    def save(self, keep: set[str] | None = None) -> None:
        """Write the cache (only the keys in `keep`, see `cache_key`, when given), atomically;
        errors ignored: the cache is only ever an optimisation."""
        if keep is not None and not keep.issuperset(self.entries):
            self.entries = {k: v for k, v in self.entries.items() if k in keep}
            self.dirty = True
        if not self.dirty or self._linked():
            return
        tmp = None
        try:
            # ASCII escapes keep names that are not valid UTF-8 (surrogates) round-tripping
            payload = json.dumps(self.entries, separators=(",", ":")).encode("ascii")
            header = json.dumps(
                {"version": VERSION, "size": len(payload), "crc32": zlib.crc32(payload)}
            ).encode("ascii")
            self.path.parent.mkdir(exist_ok=True)
            import tempfile

            fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                fh.write(header + b"\n" + payload)
            os.replace(tmp, self.path)
            tmp = None
            self.dirty = False
        except (OSError, ValueError):
            pass
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
