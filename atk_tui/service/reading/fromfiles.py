"""Decisions from the files, never from a cache (issue 25): the items a gate reads (`wait`,
`show --json`, the process-loop's hand-out), each parsed from its file, a question counting
as answered only when its answer is committed, and judged again from them."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from atk_tui.domain.model import ACTIVE, TERMINAL, Item, Snapshot, is_valid_filename
from atk_tui.domain.queues import QUEUES, queue_named
from atk_tui.host.config import plan_files_missing
from atk_tui.itemfile.items import parse_item
from atk_tui.store import item_path

if TYPE_CHECKING:
    from atk_tui.domain.readiness import Judgement
    from atk_tui.service.reading.reads import Reads
    from atk_tui.service.types import QueueView


def items_from_files(
    svc: Reads, names: Iterable[str], *, committed_answers: bool = True, view: QueueView | None = None
) -> dict[str, Item]:
    """Every active item reachable from `names` along `depends_on` (`names` included),
    read and parsed from its file in the work tree: never from the item cache, the judged
    listing or a saved view, whose records are only guarded by a CRC-32 anyone can
    recompute (issue 25). With `committed_answers`, a question counts as answered only
    when its answer is committed (HEAD holds the same `## 回答`): an answer written into the
    work tree and not committed decides nothing. Items in a terminal state are left out
    (readiness judges them by their folder alone). `view` (a `queue` just loaded, from
    the folders themselves) says where each item is, and which are in two places at once;
    without it the folders are looked in one name at a time."""
    where = view.snapshot.states if view is not None else None
    known = view.items if view is not None else {}
    root = str(svc.root)
    out: dict[str, Item] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in out or not is_valid_filename(name):
            continue
        seen = known.get(name)
        if where is not None and name in where and (seen is not None or where[name] in TERMINAL):
            queue, state = (seen.queue if seen is not None else "wi"), where[name]
            found = None
        else:
            found = svc.store.find(name)
            if not found:
                continue
            queue, state = found[0]
        if state not in ACTIVE:
            continue
        item = svc._parse_file(root, f"{queue_named(queue).folder}/{state}/{name}", name, state, queue)[0]
        if found is not None:
            svc.core.dup_defect(item, found)
        elif seen is not None:  # where the folders put it (in two places: a defect), not a record's word
            item.defects = [*item.defects, *(d for d in seen.defects if d.startswith("filename is in "))]
        out[name] = item
        todo.extend(d for d in item.depends_on if isinstance(d, str) and d not in out)
    if committed_answers:
        svc.drop_uncommitted_answers(out.values())
    return out


def drop_uncommitted_answers(svc: Reads, items: Iterable[Item], rev: str | None = None) -> None:
    """Each question of `items` whose answer is not in the store as it reads (no such
    `## 回答` at `rev`, or no such item there) counts as unanswered: `answered` and
    `answer_partial` set False. What gates work asks this (issue 25: `wait`, `show --json`,
    the process-loop): an answer written into the work tree and not committed decides
    nothing; for an agent on a clone with a remote (`answers_rev`, issue 38), neither does
    one only this clone has (its own plain `git commit` of a forged answer)."""
    for item in uncommitted_answers(svc, items, rev):
        item.answered = item.answer_partial = False  # not committed: not the user's decision yet


def uncommitted_answers(svc: Reads, items: Iterable[Item], rev: str | None = None) -> list[Item]:
    """The answered questions of `items` whose answer is not at `rev` (`answers_rev()` by
    default). Cheap: one `cat-file --batch-check` for their blob names (an item whose
    file is the committed blob is settled by it), the committed text only of the others."""
    from atk_tui.itemfile import sections

    asked = [i for i in items if i.is_question and (i.answered or i.answer_partial)]
    if not asked:
        return []
    rev = rev or svc.answers_rev()
    # the blob names of their folders at `rev`: one `ls-tree` (a `REV:PATH` lookup each
    # parses the folder's tree again: 458 questions in a 7,000-item inbox took 1.5 s)
    folders = sorted({f"{queue_named(i.queue).folder}/{i.state}/" for i in asked})
    listed = svc.store.git("ls-tree", "-z", rev, "--", *folders, check=False, env=svc.store.read_env).stdout
    committed: dict[str, str] = {}
    for rec in listed.split("\0"):
        meta, _, path = rec.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            committed[path] = parts[2]
    names = [committed.get(item_path(i.state, i.filename, i.queue), "") for i in asked]
    out: list[Item] = []
    todo = [i for i, name in zip(asked, names, strict=True) if not (i.blob and name == i.blob)]
    if not todo:
        return out
    # the committed version, where the item is now (nearly always), else in another state
    here = svc.core.blobs([f"{rev}:{item_path(i.state, i.filename, i.queue)}" for i in todo])
    moved = [i for i, b in zip(todo, here, strict=True) if b is None]
    others = [(i, s) for i in moved for s in queue_named(i.queue).states if s != i.state]
    there = svc.core.blobs([f"{rev}:{item_path(s, i.filename, i.queue)}" for i, s in others]) if others else []
    head = {i.filename: b for i, b in zip(todo, here, strict=True) if b is not None}
    for (i, _s), b in zip(others, there, strict=True):
        if b is not None:
            head.setdefault(i.filename, b)
    for item in todo:
        data = head.get(item.filename)
        theirs = None if data is None else parse_item(item.filename, item.state, data, queue=item.queue)
        body = item.body
        if not item.complete:  # a listed item keeps no text: its file, as the listing read it
            rel = item_path(item.state, item.filename, item.queue)
            body = svc._parse_file(str(svc.root), rel, item.filename, item.state, item.queue)[0].body
        if theirs is None or sections.answer_text(theirs.body) != sections.answer_text(body):
            out.append(item)
    return out


def committed_answers_only(svc: Reads, items: dict[str, Item]) -> None:
    """The ready list's rule (issue 38): an answer not committed counts nowhere, the
    person's own listing included: such a question is listed (a copy) as unanswered, so
    nothing depending on it is ready. Remembered per HEAD and file blob: the dashboard's
    next look at the same store asks git nothing."""
    # a copy made by the last look, reused by this one (its file unchanged): the item as read
    copies: dict[int, tuple[Item, Item]] = svc.__dict__.get("_answer_copies", {})
    for copy, original in copies.values():
        if items.get(copy.filename) is copy:
            items[copy.filename] = original
    copies = svc.__dict__["_answer_copies"] = {}
    asked = [i for i in items.values() if i.is_question and (i.answered or i.answer_partial)]
    if not asked:
        return
    head = svc.store.head() or ""
    memo = svc.__dict__.get("_answers_memo")
    if memo is None or memo[0] != head:
        memo = svc.__dict__["_answers_memo"] = (head, {})
    known: dict[tuple[str, str], bool] = memo[1]
    unknown = [i for i in asked if (i.filename, i.blob) not in known]
    if unknown:
        dropped = {id(i) for i in uncommitted_answers(svc, unknown, "HEAD")} if head else {id(i) for i in unknown}
        for i in unknown:
            known[(i.filename, i.blob)] = id(i) not in dropped
    for item in asked:
        if not known.get((item.filename, item.blob), False):
            copy = items[item.filename] = replace(item, answered=False, answer_partial=False)
            copies[id(copy)] = (copy, item)


def judge_from_files(
    svc: Reads, names: Iterable[str], view: QueueView | None = None
) -> dict[str, tuple[Item, Judgement]]:
    """`names` (each with its item as read) judged again from their files and those of everything they depend on
    (`items_from_files`), at `clock()`: what gates work (the process-loop's hand-out)
    asks this, not a listing. `view` gives where every other filename is (its folder
    listing, not a cache record); without it the store's folders are listed."""
    from atk_tui.domain.readiness import _aware, cycle_edges, cycle_reps, judge_item

    names = [n for n in names if is_valid_filename(n)]
    fresh = svc.items_from_files(names, view=view)
    if view is not None:
        states = dict(view.snapshot.states)
    else:
        states = {}
        for q in QUEUES:
            if q.name == "wi" or os.path.isdir(svc.root / q.folder):
                states.update(svc.store.scan_all(q.states, q.name).where)
    for name, item in fresh.items():
        states[name] = item.state
    plans = [i.plan_file for i in fresh.values() if i.plan_file]
    missing = set(plan_files_missing(svc.root, plans)) if plans else set()
    plan_missing = frozenset(n for n, i in fresh.items() if i.plan_file in missing)
    snap = Snapshot(items=fresh, states=states, plan_missing=plan_missing)
    # the closure holds every strongly connected component of `names`: its cycles are these edges'
    rep = cycle_reps({n: cycle_edges(snap, i) for n, i in fresh.items()})
    now = _aware(svc.clock())
    return {n: (fresh[n], judge_item(snap, n, fresh[n], now, rep)) for n in names if n in fresh}
