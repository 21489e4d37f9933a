"""What the answer page reads and writes, through the service, apart from HTTP (`app.py`
serves it): the needs-you rows and one item as the page shows them, the person's answer and
comment checked against what the page showed, what a one-tap link would record, and what the
page says after a write."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from atk_tui.domain.ages import age, ago, stamp, time_left
from atk_tui.domain.model import ACTIVE
from atk_tui.hub.web import links
from atk_tui.hub.web.pages import Form, ItemView, QuestionView, Row, Status, item_href

if TYPE_CHECKING:
    from atk_tui.domain.model import Item
    from atk_tui.service import Outcome, QueueView, Service


class KeepsView(Protocol):
    """What keeps the last view the page showed (the hub), so the next reads only what changed."""

    last_view: QueueView | None


def _due(item: Item, now: datetime) -> tuple[str, str]:
    """(overdue mark, due text) from the question's deadline (`service.history.deadlines`: its own
    `answer_by`, else its urgency's answer-by time), when it has one."""
    from atk_tui.service.history.deadlines import deadline

    by = deadline(item) if item.is_question else None
    if by is None or item.answered:
        return "", ""
    if by <= now:
        return f"overdue {age(by, now)}", f"answer by {stamp(by)}"
    return "", f"answer by {stamp(by)}, {time_left(by, now)}"


def _row(item: Item, now: datetime) -> Row:
    overdue, due = _due(item, now)
    return Row(item.queue, item.filename, item.title, item.kind, item.urgency, ago(item.created, now),
               item.target_repo, overdue, due, bool(item.answer_partial), item.state)  # fmt: skip


def read_list(svc: Service, hub: KeepsView | None = None) -> tuple[list[Row], list[Row], list[str]]:
    """The needs-you rows in the dashboard's order (`QueueView.needs_you`, the overdue ones
    first: `service.history.deadlines.overdue_first`), then the open work items (inbox, processing,
    hold), the newest first. With `hub`: the view is worked out from the last one it showed
    (or the dashboard's saved view), reading only the item files that changed."""
    from atk_tui.service.history.deadlines import overdue_first

    previous = None if hub is None else hub.last_view or svc.saved_queue()
    view = svc.queue(previous=previous)
    if hub is not None:
        hub.last_view = view
    now = view.now
    needs = [_row(i, now) for i in overdue_first([view.items[n] for n in view.needs_you if n in view.items], now)]
    others = sorted(
        (i for i in view.items.values() if not i.is_question and i.state in ACTIVE),
        key=lambda i: (("inbox", "hold", "processing").index(i.state) if i.state in ("inbox", "hold", "processing") else 3,
                       -(i.created.timestamp() if i.created else 0)),
    )  # fmt: skip
    notes = [f"{d.path}: {d.message}" for d in view.store_defects][:3]
    return needs, [_row(i, now) for i in others[:100]], notes


def read_item(svc: Service, queue: str, filename: str) -> tuple[ItemView, Item]:
    from atk_tui.itemfile.questions import answer_progress, parse_questions
    from atk_tui.itemfile.sections import answer_text
    from atk_tui.service.writing.digest import question_digest

    item = svc.read(filename, queue=queue)
    now = svc.clock()
    overdue, due = _due(item, now)
    questions: list[QuestionView] = []
    text = ""
    if item.is_question:
        parsed = parse_questions(item.body)
        progress = answer_progress(item.body, parsed) if item.answer_partial else None
        for q in parsed.questions:
            done = progress.answered.get(q.number) if progress else None
            opts = [(o.letter, o.label, o.implications) for o in q.options]
            questions.append(QuestionView(q.number, q.text, opts, q.recommendation, done))
        digest = question_digest(item)
        text = answer_text(item.body) or ""
    else:
        digest = hashlib.sha256(svc.read_bytes(filename)).hexdigest()
    view = ItemView(
        queue=item.queue, filename=item.filename, title=item.title, kind=item.kind, state=item.state,
        repo=item.target_repo, urgency=item.urgency, age=ago(item.created, now), body=item.body,
        is_question=item.is_question, answered=bool(item.answered), partial=bool(item.answer_partial),
        digest=digest, questions=questions, due=due, overdue=overdue, answer_text=text,
    )  # fmt: skip
    if item.defects:
        view.answered = True  # nothing to answer until it is repaired
    return view, item


def outcome_status(out: Outcome, queue: str, filename: str, what: str) -> Status:
    """What the page says after a write: committed, pushed, or why not, and what to do."""
    back = (("/", "Back to the list"),)
    again = ((item_href(queue, filename), "Open it again"), *back)
    short = (out.commit or "")[:12]
    warn = tuple(out.warnings)
    if out.ok and out.pushed:
        return Status("ok", f"{what}: committed and pushed", (f"Commit {short}. The agent sees it at its next look.", *warn), back)
    if out.ok and out.pushed is None:
        return Status("ok", f"{what}: committed", (f"Commit {short}. This store has no remote to push to.", *warn), back)
    if out.ok:
        return Status(
            "warn",
            f"{what}: committed, not pushed",
            (f"Commit {short} is kept on the hub's machine; the remote did not take it.", *warn,
             "It is pushed with the next write there, or run `atk wi commit` on that machine."),
            back,
        )  # fmt: skip
    code = out.code
    if code == "changed":
        head = "Not saved: the question changed since you read it"
        todo = "Nothing was recorded. The new version is below with your notes kept: read it and answer again."
    elif code == "state" and ("already answered" in out.message or "same change first" in out.message):
        head = "Not saved: someone else answered first"
        todo = "Nothing of yours was recorded. Open it to see their answer."
    elif code == "partial":
        head = "Not saved: a question has no answer yet"
        todo = "Choose for every question, or tick “Save as a partial answer”."
    elif code == "busy":
        head = "Not saved: the store is busy"
        todo = "Another write is running on the hub's machine; try again in a moment."
    elif code == "user-only":
        head = "Not saved: the hub runs as an agent"
        todo = "Answers are the person's: start `atk hub` outside an agent environment."
    else:
        head = "Not saved"
        todo = "Nothing was recorded."
    return Status("bad", head, (out.message, todo, *warn), again if code != "changed" else back)


def with_answer(status: Status, out: Outcome) -> Status:
    """`status` showing the answer section as the write stored it."""
    from dataclasses import replace

    from atk_tui.itemfile.sections import answer_text

    said = answer_text(out.item.body) if out.ok and out.item is not None else None
    return replace(status, recorded=said.strip()) if said else status


def write_answer(svc: Service, queue: str, filename: str, form: Form, shown: str, trailers: tuple[str, ...]) -> Outcome:
    """The person's answer as the page showed the question (`shown`: its content digest)."""
    from atk_tui.service import Outcome
    from atk_tui.service.writing.digest import question_digest

    item = svc.read(filename, queue=queue)
    if not item.is_question:
        return Outcome(False, "answer", f"{filename} is not a question", (filename,), exit_code=2, code="invalid")
    if question_digest(item) != shown:
        return Outcome(False, "answer", f"not saved: the question in {filename} changed since you read it", (filename,),
                       code="changed")  # fmt: skip
    choices = {n: v for n, v in form.choices.items() if v}
    return svc.answers.answer(filename, choices=choices, text=form.text.strip(), partial=form.partial, seen=item.body, trailers=trailers)


def write_comment(svc: Service, queue: str, filename: str, text: str, shown: str, trailers: tuple[str, ...]) -> Outcome:
    """The person's comment on the AWI as the page showed it (`shown`: the file's SHA-256)."""
    from atk_tui.service import Outcome

    svc.read(filename, queue=queue)
    base = svc.read_bytes(filename)
    if hashlib.sha256(base).hexdigest() != shown:
        return Outcome(False, "comment", f"not saved: {filename} changed since you read it", (filename,), code="changed")
    return svc.answers.comment(filename, text, base=base, trailers=trailers)


# --------------------------------------------------------------------------- one tap


@dataclass(frozen=True)
class Plan:
    """What a one-tap link would record, or why it cannot (`why`: a WHY key)."""

    title: str
    choices: dict[int, str]
    shown: tuple[str, ...]
    why: str = ""
    detail: str = ""


def plan_accept(svc: Service, link: links.Link) -> Plan:
    from atk_tui.itemfile.questions import parse_questions
    from atk_tui.service.writing.digest import question_digest

    item = svc.read(link.filename, queue=link.queue)
    title = item.title or item.filename
    if not item.is_question or (item.answered and not item.answer_partial):
        return Plan(title, {}, (), "answered", f"{item.filename} is answered already")
    if question_digest(item) != link.digest:
        return Plan(title, {}, (), "changed", f"the question in {item.filename} changed since the notification was sent")
    questions = parse_questions(item.body).questions
    missing = [q.number for q in questions if not (q.recommendation and q.option(q.recommendation))]
    if missing or not questions:
        which = ", ".join(str(n) for n in missing) or "all"
        return Plan(title, {}, (), "no-recommendation", f"question {which} of {item.filename} has no recommendation")
    choices = {q.number: q.recommendation for q in questions if q.recommendation}
    shown = tuple(f"Question {q.number}: {q.option(q.recommendation).display}" for q in questions if q.recommendation)  # type: ignore[union-attr]
    return Plan(title, choices, shown)


def accept_now(svc: Service, link: links.Link, trailers: tuple[str, ...]) -> tuple[Plan, Outcome | None]:
    plan = plan_accept(svc, link)
    if plan.why:
        return plan, None
    item = svc.read(link.filename, queue=link.queue)
    return plan, svc.answers.answer(link.filename, choices=plan.choices, seen=item.body, trailers=trailers)
