"""A cache of parsed items keyed by git blob SHA, kept in the store's `.git`.

A move does not change a file's blob SHA, so moving items costs no re-parse. Entries are keyed
by blob *and* filename: a parse depends on the name too (the title falls back to the filename
stem, a bad filename is a defect), so a renamed copy of the same bytes is parsed afresh. The cache holds
the metadata needed for listing and readiness, not bodies (those are read on demand). It is
validated on load and silently rebuilt when missing, from another version, or corrupt.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from .model import Item

VERSION = 4
_FIELDS = (
    "defects", "warnings", "title", "kind", "source", "target_repo", "target_commit", "plan_file",
    "depends_on", "urgency", "note", "commit", "answered", "has_comment", "size",
)  # fmt: skip
_TIMES = ("cooldown_until", "created")


def to_record(item: Item) -> dict[str, Any]:
    rec = {k: getattr(item, k) for k in _FIELDS}
    for k in _TIMES:
        v = getattr(item, k)
        rec[k] = v.isoformat() if v is not None else None
    return rec


def cache_key(blob: str, filename: str) -> str:
    return f"{blob}/{filename}"


def from_record(filename: str, state: str, blob: str, rec: dict[str, Any]) -> Item:
    item = Item(filename=filename, state=state, blob=blob, complete=False)
    for k in _FIELDS:
        v = rec[k]
        # copies, so that changing an item never changes the cache entry behind it
        setattr(item, k, list(v) if isinstance(v, list) else v)
    for k in _TIMES:
        v = rec[k]
        setattr(item, k, datetime.fromisoformat(v) if v else None)
    return item


_STR_LISTS = ("defects", "warnings", "depends_on")
_STRS = ("title", "kind", "target_repo", "urgency")
_OPT_STRS = ("source", "target_commit", "plan_file", "note", "commit", *_TIMES)
_BOOLS = ("answered", "has_comment")


def _valid(rec: Any) -> bool:
    """True when `rec` has every field with the type `from_record` expects; anything else
    (an older layout, a hand-edited or damaged file) is a miss and gets re-parsed."""
    if not isinstance(rec, dict) or not all(k in rec for k in _FIELDS + _TIMES):
        return False
    return (
        all(isinstance(rec[k], list) and all(isinstance(x, str) for x in rec[k]) for k in _STR_LISTS)
        and all(isinstance(rec[k], str) for k in _STRS)
        and all(rec[k] is None or isinstance(rec[k], str) for k in _OPT_STRS)
        and all(isinstance(rec[k], bool) for k in _BOOLS)
        and type(rec["size"]) is int
    )


class ItemCache:
    """One JSON file per scope (`active`, `terminal`), so listing the active queue does not
    load the history's entries."""

    def __init__(self, git_dir: Path, scope: str) -> None:
        self.path = git_dir / "atk-cache" / f"{scope}-v{VERSION}.json"
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False

    def load(self) -> None:
        if not self.path.exists():
            # files of other cache versions are dead weight
            for old in self.path.parent.glob(self.path.name.split("-v")[0] + "-v*.json"):
                try:
                    old.unlink()
                except OSError:
                    pass
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(raw, dict) or raw.get("version") != VERSION or not isinstance(raw.get("entries"), dict):
                raise ValueError("bad cache")
            self.entries = raw["entries"]
        except (OSError, ValueError, RecursionError):
            self.entries = {}
            self.dirty = self.path.exists()

    def get(self, filename: str, state: str, blob: str) -> Item | None:
        key = cache_key(blob, filename)
        rec = self.entries.get(key)
        if rec is None:
            return None
        if not _valid(rec):
            del self.entries[key]
            self.dirty = True
            return None
        try:
            return from_record(filename, state, blob, rec)
        except (TypeError, ValueError, KeyError, AttributeError):
            del self.entries[key]
            self.dirty = True
            return None

    def put(self, item: Item) -> None:
        self.entries[cache_key(item.blob, item.filename)] = to_record(item)
        self.dirty = True

    def save(self, keep: set[str] | None = None) -> None:
        """Write the cache (only the keys in `keep`, see `cache_key`, when given), atomically;
        errors ignored."""
        if keep is not None and set(self.entries) - keep:
            self.entries = {k: v for k, v in self.entries.items() if k in keep}
            self.dirty = True
        if not self.dirty:
            return
        tmp = None
        try:
            self.path.parent.mkdir(exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                # ASCII escapes keep names that are not valid UTF-8 (surrogates) round-tripping
                json.dump({"version": VERSION, "entries": self.entries}, fh, separators=(",", ":"))
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
