"""The dashboard's last judged view, kept in the store's `.git` between runs.

A start of the dashboard on a store that changed little since its last run should cost what
the change costs, not what judging 10,000 items costs. `Service.queue(previous=...)` already
does that within one run (`core.rejudge`): it reads only the files whose stat key differs from
the previous view's and judges again only what they reach. This module lets the previous view
outlive the process: `save` writes a `QueueView` (its items as the item cache's records, its
judgements, blocks and dependents, and `Loaded`: the stat keys, the folder listings and the
plan files' state it was loaded with), `load` reads it back, equal to what was saved. Nothing
here decides what is current: the saved view is only ever used as `previous`, and `queue`
checks every file and folder against it (a stat key names a file's content as long as the
file stays the same; a folder's lstat its names).

The file is a header line (version, size and CRC-32 of the rest) and one JSON document; a
missing, damaged or other-version file is simply no saved view. JSON, not pickle: the file is
data, never code, whoever wrote it.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from atk_tui.cache.caches import _replace_file, framed_payload, from_record, paused_gc, to_record
from atk_tui.domain.model import Item, Reason, Snapshot, StoreDefect
from atk_tui.domain.readiness import Judgement
from atk_tui.service.types import Loaded, QueueView

VERSION = 2
_HEADER = 119  # bytes of the header line, padded with spaces


def code_stamp() -> str:
    """What names the code that judged a saved view: the stat (size, mtime) of every module of
    `core/`. A view judged by other rules (an upgrade, an edited checkout) is no saved view: its
    unchanged items' judgements would otherwise be taken over as they are."""
    import hashlib

    core = Path(__file__).resolve().parent.parent
    h = hashlib.blake2b(digest_size=12)
    for folder, _subdirs, files in sorted(os.walk(core)):
        for name in sorted(files):
            if name.endswith(".py"):
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                h.update(f"{folder}/{name} {st.st_size} {st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def view_path(git_dir: Path, states: Iterable[str]) -> Path:
    return git_dir / "atk-cache" / f"view-{'-'.join(sorted(states))}-v{VERSION}.json"


def _iso(dt: datetime | None) -> str | None:
    return dt.isoformat() if dt is not None else None


def _dt(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _reason(r: Reason) -> list[Any]:
    return [r.code, r.message, r.ref, _iso(r.until), list(r.cycle)]


def _judgements(view: QueueView) -> list[Any]:
    """Names, the distinct judgements (most items share theirs: "ready", say), and each
    name's index among them."""
    table: dict[Judgement, int] = {}
    rows: list[list[Any]] = []
    judged: list[int] = []
    for j in view.judgements.values():
        at = table.get(j)
        if at is None:
            at = table[j] = len(rows)
            rows.append([j.status, [_reason(r) for r in j.reasons], j.ready, _iso(j.cooldown_until), list(j.answered_deps)])
        judged.append(at)
    return [list(view.judgements), rows, judged]


def encode(view: QueueView) -> Iterator[tuple[str, Any]]:
    """The JSON document of `view` (which must have been loaded by `Service.queue`), a member
    at a time: each is made as it is asked for (`save` writes it and lets it go: the peak is
    one member, not the document)."""
    loaded = view.loaded
    assert loaded is not None
    snap = view.snapshot
    codes = {s: i for i, s in enumerate(sorted(set(snap.states.values())))}
    plans = loaded.plans
    yield "states", sorted(loaded.states)
    yield "head", view.head
    yield "now", view.now.isoformat()
    yield "items", [[i.filename, i.state, i.blob, i.queue, to_record(i)] for i in snap.items.values()]
    # where every item is (terminal ones too): names, and each one's state as an index
    yield "where", [list(codes), list(snap.states), [codes[s] for s in snap.states.values()]]
    # the store's defects: `Service.queue` gives the snapshot and the view the same list
    yield "defects", [[d.path, d.message] for d in view.store_defects]
    yield "plan_missing", sorted(snap.plan_missing)
    yield "judgements", _judgements(view)
    yield "blocks", view.blocks
    yield "dependents", view.dependents
    yield "keys", loaded.keys
    folders = loaded.folders.items()
    yield "folders", [[path, list(sig), names, [[d.path, d.message] for d in found]] for path, (sig, names, found) in folders]
    yield "plans", None if plans is None else [sorted(plans[0]), plans[1], sorted(plans[2])]


def decode(doc: dict[str, Any]) -> QueueView:
    """The `QueueView` `encode` made `doc` of (raises on a document of another shape)."""
    items: dict[str, Item] = {}
    for filename, state, blob, queue, rec in doc["items"]:
        item = from_record(filename, state, blob, rec)
        item.queue = queue
        items[filename] = item
    names_of, names, codes = doc["where"]
    where = dict(zip(names, [names_of[c] for c in codes], strict=True))

    def defects(rows: list[list[str]]) -> list[StoreDefect]:
        return [StoreDefect(p, m) for p, m in rows]

    store_defects = defects(doc["defects"])
    snap = Snapshot(items=items, states=where, store_defects=store_defects, plan_missing=frozenset(doc["plan_missing"]))
    judged_names, rows, judged = doc["judgements"]
    table = [
        Judgement(status, tuple(Reason(c, m, ref, _dt(u), tuple(cy)) for c, m, ref, u, cy in reasons), ready, _dt(until), tuple(answered))
        for status, reasons, ready, until, answered in rows
    ]  # fmt: skip
    judgements = dict(zip(judged_names, [table[i] for i in judged], strict=True))
    blocks = {name: (a, b) for name, (a, b) in doc["blocks"].items()}
    dependents: dict[str, list[str]] = doc["dependents"]
    plans = doc["plans"]
    loaded = Loaded(
        frozenset(doc["states"]),
        doc["keys"],
        {path: (tuple(sig), names, defects(found)) for path, sig, names, found in doc["folders"]},  # type: ignore[misc]
        None if plans is None else (frozenset(plans[0]), plans[1], frozenset(plans[2])),
    )
    view = QueueView._derived(snap, datetime.fromisoformat(doc["now"]), judgements, dependents, blocks, doc["head"], store_defects)
    view.loaded = loaded
    return view


def load(git_dir: Path, states: Iterable[str]) -> QueueView | None:
    """The view saved for `states`, or None (none, another version, damaged: a miss)."""
    path = view_path(git_dir, states)
    try:
        if os.path.islink(path.parent):
            return None  # never through a linked cache folder (it could lead out of the store)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as fh:
            raw = fh.read()
        start = framed_payload(raw, {"version": VERSION, "code": code_stamp()})
        if start is None:
            return None
        with paused_gc():
            doc = json.loads(raw[start:])
            view = decode(doc)
        if view.loaded is None or view.loaded.states != frozenset(states):
            return None
        return view
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
        return None


def save(git_dir: Path, view: QueueView) -> bool:
    """Write `view` (loaded by `Service.queue`) as the saved view of its states, atomically;
    False when it could not be (a cache is only ever an optimisation)."""
    if view.loaded is None:
        return False

    def write(fh: Any) -> None:
        # the header (padded: JSON allows the spaces) is written last, once the size and
        # checksum of what follows it are known
        fh.write(b" " * _HEADER + b"\n")
        size = crc = 0
        with paused_gc():
            for n, (key, value) in enumerate(encode(view)):
                data = (("{" if n == 0 else ",") + json.dumps(key) + ":" + json.dumps(value, separators=(",", ":"))).encode("ascii")
                del value
                size, crc = size + len(data), zlib.crc32(data, crc)
                fh.write(data)
        fh.write(b"}")
        size, crc = size + 1, zlib.crc32(b"}", crc)
        fh.seek(0)
        fh.write(json.dumps({"version": VERSION, "code": code_stamp(), "size": size, "crc32": crc}).encode("ascii").ljust(_HEADER))

    path = view_path(git_dir, view.loaded.states)
    try:
        if not _replace_file(path, write):
            return False
    except (TypeError, OverflowError, RecursionError):  # a value JSON does not carry (ValueError: _replace_file)
        return False
    for old in path.parent.glob(path.name.rsplit("-v", 1)[0] + "-v*.json"):
        if old != path:  # another version's view of the same states: dead weight
            try:
                old.unlink()
            except OSError:
                pass
    return True
