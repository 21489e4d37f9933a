"""How long the agents have waited for the user (issue 16), read from the store's git history.

Every commit that touched `wi/<state>/<file>` or `mq/<state>/<file>` is an event in an item's
life. From them, for every question (a UWI, or a TBD of the feedback queue):

- *filed*: the commit time of the first commit that holds it as a question;
- *answered*: the first commit after which its ``## 回答`` answers every question
  (`questions.answer_progress`; a partial answer does not count; re-answering does not move it;
  an answer taken back, by an undo or an edit, makes it wait again);
- *removed*: the commit that deleted it (`atk wi rm`) while it was still unanswered;
- the wait: filed → answered (or removed, or now while it is open);
- what it blocked: the items whose `depends_on` named it at some time during its wait, directly,
  and in all (items that depended on those, during the same window).

For every other item: how long it waited on questions (the union of the windows in which it
depended on an unanswered question).

The history is read once (`historyindex`), then incrementally: the result of reading `git log` up to a commit is
kept in `.git/atk-cache/stats.cache`; the next call reads only the commits after it (a history rewritten
under it — a rebase — is read again from the start). A warm call with an unchanged HEAD runs no git
at all.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from atk_tui.domain.model import QUESTION_KINDS, TERMINAL
from atk_tui.service.history.historyindex import HistoryIndex

# --------------------------------------------------------------------------- the figures


@dataclass(frozen=True)
class QuestionWait:
    filename: str
    queue: str
    title: str
    state: str
    filed: datetime
    answered: datetime | None
    removed: datetime | None
    wait: timedelta
    blocked_direct: int
    blocked_all: int
    urgency: str = "blocking"
    agent: str | None = None
    due: datetime | None = None  # its deadline: its own answer_by, else its urgency's (service.history.deadlines)

    @property
    def within_deadline(self) -> bool | None:
        """Answered by its deadline (None: no deadline, or not answered)."""
        if self.due is None or self.answered is None:
            return None
        return self.answered <= self.due

    @property
    def status(self) -> str:
        return "answered" if self.answered else "removed" if self.removed else "open"


@dataclass(frozen=True)
class ItemWait:
    filename: str
    title: str
    state: str
    waited: timedelta  # on unanswered questions, in all


@dataclass(frozen=True)
class DeadlineRow:
    """Answered within the deadline, for one urgency or one agent: how many were answered in
    the period, how many of those with a deadline by it, the waits' median and 90th percentile,
    and how many wait past theirs now."""

    by: str  # "urgency" | "agent"
    name: str
    answered: int
    with_deadline: int
    within: int
    p50: timedelta | None
    p90: timedelta | None
    overdue_now: int

    def to_json(self) -> dict[str, Any]:
        return {
            "by": self.by, "name": self.name, "answered": self.answered, "with_deadline": self.with_deadline,
            "within_deadline": self.within, "p50_wait_seconds": None if self.p50 is None else int(self.p50.total_seconds()),
            "p90_wait_seconds": None if self.p90 is None else int(self.p90.total_seconds()), "overdue_now": self.overdue_now,
        }  # fmt: skip


def deadline_rows(answered: list[QuestionWait], open_q: list[QuestionWait], now: datetime) -> list[DeadlineRow]:
    """`DeadlineRow`s per urgency, then per agent (an item no agent filed: "person")."""
    rows: list[DeadlineRow] = []
    for by, key in (("urgency", lambda w: w.urgency), ("agent", lambda w: w.agent or "person")):
        names = sorted({key(w) for w in answered} | {key(w) for w in open_q})
        for name in names:
            done = [w for w in answered if key(w) == name]
            timed = [w for w in done if w.due is not None]
            late_now = sum(1 for w in open_q if key(w) == name and w.due is not None and now >= w.due)
            waits = [w.wait for w in done]
            rows.append(DeadlineRow(by, name, len(done), len(timed), sum(1 for w in timed if w.within_deadline),
                                    median(waits), percentile(waits, 90), late_now))  # fmt: skip
    return rows


@dataclass(frozen=True)
class WaitStats:
    now: datetime
    since: datetime | None
    open: list[QuestionWait]  # longest wait first
    answered: list[QuestionWait]  # answered in the period, in answer order
    removed: list[QuestionWait]  # removed unanswered in the period
    median: timedelta | None
    p90: timedelta | None
    longest: list[QuestionWait]
    per_day: list[tuple[date, int]]  # answers per day over the period (days with none included)
    items: list[ItemWait]  # non-question items that waited on questions, longest first
    deadlines: list[DeadlineRow] = field(default_factory=list)  # answered within the deadline, per urgency and agent

    def headline(self, *, by_title: bool = False) -> str:
        """"3 questions waiting · oldest 2 d · answering the top one unblocks 7 items"; the
        question named by its filename (the CLI's handle) or, `by_title`, by its quoted title
        (the dashboard, whose lists show titles)."""
        if not self.open:
            return "no questions waiting"
        n = len(self.open)
        top = max(self.open, key=lambda q: (q.blocked_all, q.wait))
        text = f"{n} question{'s' if n != 1 else ''} waiting · oldest {duration(self.open[0].wait)}"
        if top.blocked_all:
            name = f"“{top.title}”" if by_title and top.title else top.filename
            text += f" · answering {name} unblocks {top.blocked_all} item{'s' if top.blocked_all != 1 else ''}"
        return text

    def to_json(self) -> dict[str, Any]:
        def q(w: QuestionWait) -> dict[str, Any]:
            return {
                "filename": w.filename,
                "queue": w.queue,
                "title": w.title,
                "state": w.state,
                "status": w.status,
                "filed": _iso(w.filed),
                "urgency": w.urgency,
                "agent": w.agent,
                "due": _iso(w.due) if w.due else None,
                "within_deadline": w.within_deadline,
                "answered": _iso(w.answered) if w.answered else None,
                "removed": _iso(w.removed) if w.removed else None,
                "wait_seconds": int(w.wait.total_seconds()),
                "blocked_direct": w.blocked_direct,
                "blocked_all": w.blocked_all,
            }

        def secs(d: timedelta | None) -> int | None:
            return None if d is None else int(d.total_seconds())

        return {
            "now": _iso(self.now),
            "since": _iso(self.since) if self.since else None,
            "headline": self.headline(),
            "open": [q(w) for w in self.open],
            "answered": [q(w) for w in self.answered],
            "removed": [q(w) for w in self.removed],
            "median_wait_seconds": secs(self.median),
            "p90_wait_seconds": secs(self.p90),
            "longest": [q(w) for w in self.longest],
            "answers_per_day": [{"date": d.isoformat(), "answers": n} for d, n in self.per_day],
            "deadlines": [r.to_json() for r in self.deadlines],
            "items_waiting_on_questions": [
                {"filename": i.filename, "title": i.title, "state": i.state, "waited_seconds": int(i.waited.total_seconds())}
                for i in self.items
            ],
        }


def _iso(d: datetime) -> str:
    return d.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _dt(t: int) -> datetime:
    return datetime.fromtimestamp(t, UTC)


def duration(d: timedelta) -> str:
    """A wait as people say it: 45 s, 12 min, 5 h 10 min, 2 d 4 h."""
    s = max(0, int(d.total_seconds()))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    if s < 86400:
        h, m = divmod(s // 60, 60)
        return f"{h} h {m} min" if m else f"{h} h"
    days, h = divmod(s // 3600, 24)
    return f"{days} d {h} h" if h else f"{days} d"


def percentile(values: list[timedelta], p: float) -> timedelta | None:
    """Nearest-rank percentile (p in 0..100): the smallest value with at least p% at or below it."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def median(values: list[timedelta]) -> timedelta | None:
    """The middle value (the mean of the two middle ones for an even count)."""
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2


def _overlaps(span: list[int | None], start: int, end: int) -> bool:
    s, e = span[0] or 0, span[1]
    return s < end and (e is None or e > start)


Edge = tuple[str, list, bool]  # (dependent, its [start, end] window, still active now)


def _dependents(index: HistoryIndex) -> dict[str, list[Edge]]:
    """For each name, every item that ever named it in `depends_on` (built once per call)."""
    out: dict[str, list[Edge]] = {}
    for other, life in index.lives.items():
        active = life.removed is None and life.state not in TERMINAL
        for dep, span in life.deps.items():
            if dep != other:
                out.setdefault(dep, []).append((other, span, active))
    return out


def _blocked(edges: dict[str, list[Edge]], name: str, start: int, end: int, *, open_now: bool) -> tuple[int, int]:
    """Items that depended on `name` during [start, end): directly, and in all (through items
    that depended on those during the same window). For an open question, only what still
    depends on it and is still active."""

    def deps_of(n: str) -> list[str]:
        if open_now:
            return [o for o, span, active in edges.get(n, ()) if active and span[1] is None]
        return [o for o, span, _ in edges.get(n, ()) if _overlaps(span, start, end)]

    direct = set(deps_of(name))
    seen = set(direct)
    todo = list(direct)
    while todo:
        for nxt in deps_of(todo.pop()):
            if nxt not in seen and nxt != name:
                seen.add(nxt)
                todo.append(nxt)
    return len(direct), len(seen)


def _union_length(spans: list[tuple[int, int]]) -> int:
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(spans):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s  # type: ignore[operator]
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s  # type: ignore[operator]
    return total


def compute(index: HistoryIndex, *, now: datetime, since: datetime | None = None, longest: int = 5) -> WaitStats:
    from atk_tui.service.history.deadlines import answer_by_defaults

    spans = answer_by_defaults()
    now_t = int(now.timestamp())
    since_t = int(since.timestamp()) if since else None
    waits: dict[str, tuple[int, int]] = {}  # question -> its wait window
    open_q: list[QuestionWait] = []
    answered: list[QuestionWait] = []
    removed: list[QuestionWait] = []
    edges = _dependents(index)
    for name, life in index.lives.items():
        if life.filed is None:
            continue
        end = life.answered or life.removed or now_t
        waits[name] = (life.filed, end)
        is_open = life.answered is None and life.removed is None
        if is_open and life.state in TERMINAL:
            continue  # closed without an answer (adopted/rejected as it was): no longer waiting
        d, a = _blocked(edges, name, life.filed, end, open_now=is_open)
        urgency = life.urgency or "blocking"
        span = spans.get(urgency)
        due = _dt(life.answer_by) if life.answer_by is not None else (_dt(life.filed) + span if span else None)
        w = QuestionWait(
            name,
            life.queue,
            life.title,
            life.state,
            _dt(life.filed),
            _dt(life.answered) if life.answered else None,
            _dt(life.removed) if life.removed and not life.answered else None,
            timedelta(seconds=end - life.filed),
            d,
            a,
            urgency,
            life.agent,
            due,
        )
        if is_open:
            open_q.append(w)
        elif life.answered is not None and (since_t is None or life.answered >= since_t):
            answered.append(w)
        elif life.answered is None and life.removed is not None and (since_t is None or life.removed >= since_t):
            removed.append(w)
    open_q.sort(key=lambda w: (-w.wait.total_seconds(), w.filename))
    answered.sort(key=lambda w: (w.answered, w.filename))
    removed.sort(key=lambda w: (w.removed, w.filename))
    answer_waits = [w.wait for w in answered]
    top = sorted(open_q + answered, key=lambda w: (-w.wait.total_seconds(), w.filename))[:longest]
    items: list[ItemWait] = []
    for name, life in index.lives.items():
        if life.kind in QUESTION_KINDS:
            continue
        spans = []
        for dep, span in life.deps.items():
            window = waits.get(dep)
            if window is None:
                continue
            s = max(span[0] or 0, window[0])
            e = min(span[1] if span[1] is not None else now_t, window[1], life.removed or now_t)
            if e > s:
                spans.append((s, e))
        if spans:
            items.append(ItemWait(name, life.title, life.state, timedelta(seconds=_union_length(spans))))
    items.sort(key=lambda i: (-i.waited.total_seconds(), i.filename))
    return WaitStats(
        now=now,
        since=since,
        open=open_q,
        answered=answered,
        removed=removed,
        median=median(answer_waits),
        p90=percentile(answer_waits, 90),
        longest=top,
        per_day=_per_day(answered, since, now),
        items=items,
        deadlines=deadline_rows(answered, open_q, now),
    )


def _per_day(answered: list[QuestionWait], since: datetime | None, now: datetime) -> list[tuple[date, int]]:
    counts: dict[date, int] = {}
    for w in answered:
        if w.answered is not None:
            day = w.answered.astimezone(UTC).date()
            counts[day] = counts.get(day, 0) + 1
    if not counts and since is None:
        return []
    first = since.astimezone(UTC).date() if since else min(counts)
    last = now.astimezone(UTC).date()
    if (last - first).days > 366:  # an open-ended period: the last year, day by day
        first = last - timedelta(days=366)
    days = []
    d = first
    while d <= last:
        days.append((d, counts.get(d, 0)))
        d += timedelta(days=1)
    return days


def needs_headline(items: dict[str, Any], needs_you: list[str], blocks: dict[str, tuple[int, int]], now: datetime) -> str:
    """The needs-you line from the current queue (no history): "3 questions waiting · oldest
    2 d · answering the top one unblocks 7 items" — the top one being the first of the needs-you
    order (urgency, then what it blocks), which is the row the cursor starts on."""
    waiting = [items[n] for n in needs_you if n in items]
    if not waiting:
        return "no questions waiting"
    n = len(waiting)
    text = f"{n} question{'s' if n != 1 else ''} waiting"
    created = [i.created for i in waiting if getattr(i, "created", None) is not None]
    if created:
        text += f" · oldest {duration(now - min(created))}"
    top = blocks.get(waiting[0].filename, (0, 0))[1]
    if top:
        text += f" · answering the top one unblocks {top} item{'s' if top != 1 else ''}"
    return text


_DURATION = re.compile(r"\A(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?\Z")


def parse_since(value: str, *, now: datetime) -> datetime | None:
    """`--since`: `all` (None), a duration back from now (`7d`, `12h`, `1d12h`), a date
    (`2026-11-01`, midnight UTC) or a time with a timezone."""
    text = value.strip()
    if text.lower() == "all":
        return None
    m = _DURATION.match(text)
    if text and m and any(m.groups()):
        d, h, mi = (int(g or 0) for g in m.groups())
        return now - timedelta(days=d, hours=h, minutes=mi)
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return datetime.fromisoformat(text).replace(tzinfo=UTC)
        when = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        from atk_tui.domain.errors import AtkError

        raise AtkError(
            f"--since takes a date (2026-11-01), a time with a timezone, a duration back (7d, 12h) or 'all'; got {value!r}",
            exit_code=2,
            code="invalid",
        )
    return when


def moved_times(index: HistoryIndex) -> dict[str, datetime]:
    """Every item still in the store: when it came into its present state."""
    return {
        name: datetime.fromtimestamp(life.moved, UTC)
        for name, life in index.lives.items()
        if life.removed is None and life.moved is not None
    }
