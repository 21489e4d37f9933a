"""The dashboard's last judged view, kept in the store's `.git` between runs.

A start of the dashboard on a store that changed little since its last run should cost what
the change costs, not what judging 10,000 items costs. `Service.queue(previous=...)` already
does that within one run (`domain.rejudge`): it reads only the files whose stat key differs from
the previous view's and judges again only what they reach. This module lets the previous view
outlive the process: `save` writes a `QueueView` (its items as the item cache's records, its
judgements, blocks and dependents, and `Loaded`: the stat keys, the folder listings and the
plan files' state it was loaded with), `load` reads it back, equal to what was saved. Nothing
here decides what is current: the saved view is only ever used as `previous`, and `queue`
checks every file and folder against it (a stat key names a file's content as long as the
file stays the same; a folder's lstat its names).

The entry (`cache.files`) is a line of JSON per member (the items in parts), read a line at
a time; a missing, damaged or other code's entry is simply no saved view. JSON, not pickle:
the file is data, never code, whoever wrote it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from sys import intern
from typing import Any

from atk_tui.cache import files
from atk_tui.cache.caches import from_record, to_record
from atk_tui.domain.model import Item, Reason, Snapshot, StoreDefect
from atk_tui.domain.readiness import Judgement
from atk_tui.host.gcpause import paused_gc
from atk_tui.service.types import Loaded, QueueView


def _name(states: Iterable[str]) -> str:
    return f"view-{'-'.join(sorted(states))}"


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
    """The document of `view` (which must have been loaded by `Service.queue`) as (member,
    value) pairs, each made as it is asked for (`save` writes it and lets it go: the peak is
    one pair, not the document). The items come in parts of `PART` (a member may repeat: its
    lists are joined); where every item is comes first, so the names read back are its own
    (`decode`)."""
    loaded = view.loaded
    assert loaded is not None
    snap = view.snapshot
    codes = {s: i for i, s in enumerate(sorted(set(snap.states.values())))}
    plans = loaded.plans
    # where every item is (terminal ones too): names, and each one's state as an index
    yield "where", [list(codes), list(snap.states), [codes[s] for s in snap.states.values()]]
    yield "states", sorted(loaded.states)
    yield "head", view.head
    yield "now", view.now.isoformat()
    items = list(snap.items.values())
    for at in range(0, len(items), PART):
        yield "items", [[i.filename, i.state, i.blob, i.queue, to_record(i)] for i in items[at : at + PART]]
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


PART = 2000  # items per line of a saved view


def decode(pairs: Iterable[tuple[str, Any]]) -> QueueView:
    """The `QueueView` `encode` made `pairs` of (raises on a document of another shape).
    Every name is one string, where's (a name is in the items, their judgements, the keys and
    the folders' listings: at 30,000 items, copies are ~13 MB)."""
    doc: dict[str, Any] = {}
    items: dict[str, Item] = {}
    canon: Callable[[str, str], str] | None = None
    for key, value in pairs:
        if key == "where":  # first: the names every other member's are made the same string as
            names_of, names, codes = value
            where = dict(zip(names, [names_of[c] for c in codes], strict=True))
            canon = {n: n for n in names}.get
        elif key == "items":  # made into items as they come: their text is let go a part at a time
            if canon is None:
                raise ValueError("items before names")
            for filename, state, blob, queue, rec in value:
                filename = canon(filename, filename)
                item = from_record(filename, intern(state), blob, rec)
                item.queue = intern(queue)
                items[filename] = item
        else:
            doc[key] = value
    if canon is None:
        raise ValueError("no names")

    def defects(rows: list[list[str]]) -> list[StoreDefect]:
        return [StoreDefect(p, m) for p, m in rows]

    store_defects = defects(doc["defects"])
    snap = Snapshot(items=items, states=where, store_defects=store_defects, plan_missing=frozenset([canon(n, n) for n in doc["plan_missing"]]))
    judged_names, rows, judged = doc["judgements"]
    table = [
        Judgement(status, tuple(Reason(c, m, ref, _dt(u), tuple(cy)) for c, m, ref, u, cy in reasons), ready, _dt(until), tuple(answered))
        for status, reasons, ready, until, answered in rows
    ]  # fmt: skip
    judgements = dict(zip([canon(n, n) for n in judged_names], [table[i] for i in judged], strict=True))
    blocks = {canon(name, name): (a, b) for name, (a, b) in doc["blocks"].items()}
    dependents: dict[str, list[str]] = {canon(name, name): [canon(n, n) for n in on] for name, on in doc["dependents"].items()}
    plans = doc["plans"]
    loaded = Loaded(
        frozenset(doc["states"]),
        {canon(name, name): key for name, key in doc["keys"].items()},
        {path: (tuple(sig), [canon(n, n) for n in listed], defects(found)) for path, sig, listed, found in doc["folders"]},  # type: ignore[misc]
        None if plans is None else (frozenset(plans[0]), plans[1], frozenset(plans[2])),
    )
    view = QueueView._derived(snap, datetime.fromisoformat(doc["now"]), judgements, dependents, blocks, doc["head"], store_defects)
    view.loaded = loaded
    return view


def load(git_dir: Path, states: Iterable[str]) -> QueueView | None:
    """The view saved for `states`, or None (none, other code's, damaged: a miss). Read a
    line at a time: the file's text (~28 MB at 30,000 items) is never whole in memory."""
    lines = files.read_lines(git_dir, _name(states))
    if lines is None:
        return None
    try:
        with paused_gc():
            view = decode(json.loads(line) for line in lines)
        if view.loaded is None or view.loaded.states != frozenset(states):
            return None
        return view
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
        return None


def save(git_dir: Path, view: QueueView) -> bool:
    """Write `view` (loaded by `Service.queue`) as the saved view of its states, atomically, a
    line of JSON per (member, value) pair; False when it could not be (a cache is only ever
    an optimisation)."""
    if view.loaded is None:
        return False

    def parts() -> Iterator[bytes]:
        with paused_gc():
            for pair in encode(view):
                yield json.dumps(pair, separators=(",", ":")).encode("ascii") + b"\n"
                del pair

    try:
        return files.write(git_dir, _name(view.loaded.states), parts())
    except (TypeError, ValueError, OverflowError, RecursionError):  # a value JSON does not carry
        return False
