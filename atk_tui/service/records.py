"""What a front end says about an item or a write, said once for every front end: the `--json`
record of an item (`atk wi schema --which record`), `show --json`'s record, the one line a write
prints (README "Say what was written"), and whether a question is answered as `atk wi wait`
waits for it. The CLI prints them (`cli.output`), `atk mcp` returns them (`mcpserver`)."""

from __future__ import annotations

import re
from typing import Any

from atk_tui.domain.fields import FIELDS, TIMES
from atk_tui.domain.model import STATES, Item
from atk_tui.domain.queues import MQ
from atk_tui.domain.readiness import Judgement

#: (key, is a date-time, a question's only) of every frontmatter key, in the table's order
_JSON_FIELDS = tuple((f.name, f.name in TIMES, f.question_only) for f in FIELDS)


def item_json(
    item: Item, j: Judgement | None, blocks: tuple[int, int] | None = None, holder: Any = None
) -> dict[str, Any]:
    """The `--json` record of an item (`atk wi schema --which record`): what atk derives, then
    every frontmatter key of the table (`domain.fields`), then the defects and warnings."""
    question = item.is_question  # once: 10,000 lines a listing
    d: dict[str, Any] = {
        "filename": item.filename,
        "state": item.state,
        "type": item.awi_type if item.is_request else None,
        "title": item.title,
        "status": j.status if j else None,
        "ready": j.ready if j else False,
        "reasons": [r.message for r in j.reasons] if j else [],
        "answered": item.answered if question else None,
        "answer_partial": item.answer_partial if question else None,
    }
    for name, time, question_only in _JSON_FIELDS:
        v = getattr(item, name)
        d[name] = None if (question_only and not question) or v is None else v.isoformat() if time else v
    d["defects"] = item.defects
    d["warnings"] = item.warnings
    if blocks:
        d["blocks"] = {"direct": blocks[0], "transitive": blocks[1]}
    if holder is not None:
        d["held_by"] = holder.as_json()  # SPEC §15: who holds it, since when
    return d


def shown_records(svc: Any, items: list[Item], stale: str | None = None) -> list[dict[str, Any]]:
    """`atk wi show --json`'s records of `items` (read by `svc.show`): each `item_json` with its
    body and where its plan file is, judged as the files say (not a cache), "answered" as
    committed (issue 25), as `ready` is judged."""
    from atk_tui.host.config import plan_file_place

    svc.drop_uncommitted_answers(items)
    view = svc.queue({*STATES, *MQ.states})
    judged = svc.judge_from_files([i.filename for i in items], view)
    held = svc.held_by(items)
    out = []
    for item in items:
        name = item.filename
        j = judged[name][1] if name in judged else view.judgements.get(name)
        d = item_json(item, j, view.blocks.get(name), held.get(name))
        d["body"] = item.body
        d["plan_file_at"] = plan_file_place(svc.root, item.plan_file) if item.plan_file else None  # "store", "planning root", None
        if stale:
            d["stale"] = stale
        out.append(d)
    return out


def answered(item: Item, svc: Any) -> bool:
    """Whether `item` is answered in full by a committed answer (an answer written into the
    work tree and not committed is no answer yet: issue 25): what `wait` waits for."""
    svc.drop_uncommitted_answers([item])
    return bool(item.answered and not item.answer_partial)


#: how often `wait` looks at the remote: every second, backing off to 8 s while it does not answer
WAIT_STEP, WAIT_MAX_STEP = 1.0, 8.0


def still_waiting(names: list[str], timeout: float) -> str:
    """What a `wait` whose time is up says."""
    return f"still waiting for an answer to {', '.join(names)} after {timeout:g} s"


#: the warning a write whose push failed carries (store.remote): said in its one line instead
_UNPUSHED = ("unpushed commit", "the commit is kept locally")


def push_said(out: Any, svc: Any) -> tuple[str, tuple[str, ...]]:
    """(` pushed` / ` not pushed: <why>`, the warnings left to print) for a write that made
    `out.commit` with `svc`; the reason a push failed is said here, not again as a warning."""
    warnings = tuple(out.warnings)
    queue = getattr(getattr(svc, "q", None), "name", "wi")
    if queue != "wi":  # `atk mq adopt … --skip-push` is pushed by `atk mq commit` (issue 39)
        warnings = tuple(w.replace("`atk wi commit`", f"`atk {queue} commit`") for w in warnings)
    if out.pushed:
        return " pushed", warnings
    if out.pushed is False:
        # the warning (kept: it asks for `atk wi commit`) says why; the line says it short
        why = next((w for w in warnings if any(k in w for k in _UNPUSHED)), "")
        m = re.search(r"unpushed commits? \((.*)\); run `atk (?:wi|mq) commit`", why, re.S)
        reason = m.group(1) if m else "the remote did not answer" if "did not answer" in why else "the push failed"
        return f" not pushed: {reason} (`atk {queue} commit` pushes it later)", warnings
    if svc is not None and svc.store.remote.upstream() is None:
        return " not pushed: no remote (no upstream branch is configured)", warnings
    if svc is not None and not svc.push_on_write:
        return f" not pushed: --skip-push (run `atk {queue} commit` to push it)", warnings
    return " not pushed: no remote", warnings


def written_line(out: Any, svc: Any) -> tuple[str, list[str]]:
    """(the one line saying what `out`'s write did, the lines to say beside it: its warnings,
    and as a note what the message says after `<verb> <file>`: the line is exactly
    `<verb> <file> (<sha>) pushed|not pushed: <why>`; a filename has no space or parenthesis)."""
    if out.commit and out.op != "commit":  # `atk wi commit` says what it pushed in its message
        said, warnings = push_said(out, svc)
        head, paren, extra = out.message.partition(" (")
        notes = [f"note: {head}: {extra[:-1]}"] if paren and extra.endswith(")") else []
        return f"{head if notes else out.message} ({out.commit[:10]}){said}", [f"warning: {w}" for w in warnings] + notes
    return out.message, [f"warning: {w}" for w in out.warnings]
