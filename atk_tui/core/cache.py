"""A cache of parsed items keyed by git blob SHA, kept in the store's `.git`.

A move does not change a file's blob SHA, so moving items costs no re-parse. The cache holds
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

VERSION = 3
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


def from_record(filename: str, state: str, blob: str, rec: dict[str, Any]) -> Item:
    item = Item(filename=filename, state=state, blob=blob, complete=False)
    for k in _FIELDS:
        setattr(item, k, rec[k])
    for k in _TIMES:
        v = rec[k]
        setattr(item, k, datetime.fromisoformat(v) if v else None)
    return item


def _valid(rec: Any) -> bool:
    return (
        isinstance(rec, dict)
        and all(k in rec for k in _FIELDS + _TIMES)
        and isinstance(rec["defects"], list)
        and isinstance(rec["depends_on"], list)
        and isinstance(rec["title"], str)
        and isinstance(rec["kind"], str)
        and isinstance(rec["size"], int)
    )


class ItemCache:
    """One JSON file per scope (`active`, `terminal`), so listing the active queue does not
    load the history's entries."""

    def __init__(self, git_dir: Path, scope: str) -> None:
        self.path = git_dir / "atk-cache" / f"{scope}-v{VERSION}.json"
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False

    def load(self) -> None:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(raw, dict) or raw.get("version") != VERSION or not isinstance(raw.get("entries"), dict):
                raise ValueError("bad cache")
            self.entries = raw["entries"]
        except (OSError, ValueError):
            self.entries = {}
            self.dirty = self.path.exists()

    def get(self, filename: str, state: str, blob: str) -> Item | None:
        rec = self.entries.get(blob)
        if rec is None:
            return None
        if not _valid(rec):
            del self.entries[blob]
            self.dirty = True
            return None
        try:
            return from_record(filename, state, blob, rec)
        except (TypeError, ValueError, KeyError):
            del self.entries[blob]
            self.dirty = True
            return None

    def put(self, item: Item) -> None:
        self.entries[item.blob] = to_record(item)
        self.dirty = True

    def save(self, keep: set[str] | None = None) -> None:
        """Write the cache (only entries in `keep` when given), atomically; errors ignored."""
        if keep is not None and set(self.entries) - keep:
            self.entries = {k: v for k, v in self.entries.items() if k in keep}
            self.dirty = True
        if not self.dirty:
            return
        try:
            self.path.parent.mkdir(exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": VERSION, "entries": self.entries}, fh, ensure_ascii=False, separators=(",", ":"))
            os.replace(tmp, self.path)
            self.dirty = False
        except OSError:
            pass
