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

The history is read once, then incrementally: the result of reading `git log` up to a commit is
kept in `.git/atk-stats.json`; the next call reads only the commits after it (a history rewritten
under it — a rebase — is read again from the start). A warm call with an unchanged HEAD runs no git
at all.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from atk_tui.domain.model import FILENAME_PATTERN, QUESTION_KINDS, TERMINAL
from atk_tui.domain.queues import QUEUES
from atk_tui.itemfile.items import fast_load, find_title, parse_item, split_frontmatter
from atk_tui.itemfile.questions import answer_progress

_ITEM_RE = re.compile(rf"^({'|'.join(q.name for q in QUEUES)})/([a-z]+)/({FILENAME_PATTERN})$")
_BLOB_CHUNK = 2000  # blobs per `git cat-file --batch` call
INDEX_FORMAT = 2  # .git/atk-stats.json's format: 2 adds each life's `moved`


# --------------------------------------------------------------------------- the cached index


@dataclass
class Life:
    """One item's recorded life (kept in the cache file)."""

    queue: str
    state: str
    kind: str
    title: str
    seen: int  # commit time it first appeared
    removed: int | None = None
    filed: int | None = None  # questions: first time it was a question
    answered: int | None = None  # questions: first time the answer was complete
    deps: dict[str, list[int | None]] = field(default_factory=dict)  # name -> [start, end]
    urgency: str | None = None  # questions: the urgency while it waited (its last before the answer)
    answer_by: int | None = None  # questions: its own deadline (`answer_by`), if it had one
    agent: str | None = None  # who filed it: the Atk-Agent trailer of that commit, else its source
    moved: int | None = None  # commit time it came into its present state (the history's age)


@dataclass
class HistoryIndex:
    head: str | None = None
    lives: dict[str, Life] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"format": INDEX_FORMAT, "head": self.head, "lives": {k: asdict(v) for k, v in self.lives.items()}}

    @classmethod
    def from_json(cls, data: Any) -> HistoryIndex | None:
        if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT:
            return None  # an index of an earlier format (without `moved`): read again from the start
        try:
            lives = {k: Life(**v) for k, v in data["lives"].items()}
        except (TypeError, KeyError, AttributeError):
            return None
        head = data.get("head")
        return cls(head if isinstance(head, str) else None, lives)


@dataclass(frozen=True)
class _BlobFacts:
    kind: str
    title: str
    deps: tuple[str, ...]
    answered: bool
    urgency: str | None = None
    source: str | None = None
    answer_by: int | None = None


def _when(value: Any) -> int | None:
    """An `answer_by` value as seconds since the epoch (a time without a zone is UTC)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    if isinstance(value, datetime):
        return int((value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp())
    return None


def _facts(filename: str, state: str, data: bytes) -> _BlobFacts:
    """What the statistics need of one version of an item. The simple frontmatter of nearly
    every item is read with the fast reader; anything else goes through the full parser."""
    text = data.decode("utf-8", "replace")
    split = split_frontmatter(text)
    fm = fast_load(split[1]) if split is not None else None
    if fm is None:
        item = parse_item(filename, state, data)
        kind, body, deps_raw = item.kind, item.body, item.depends_on
        urgency, source, answer_by = item.urgency, item.source, _when(item.answer_by)
        raw = _raw_kind(split)
        if raw in QUESTION_KINDS:  # a kind the item model does not know (a TBD) still counts
            kind = raw
        title = item.title
    else:
        raw = fm.get("kind")
        kind = raw.strip().lower() if isinstance(raw, str) else "awi"
        body = split[2] if split is not None else text
        deps_raw = fm.get("depends_on") or []
        title = find_title(body) or filename.removesuffix(".md")
        u, src = fm.get("urgency"), fm.get("source")
        urgency = u if isinstance(u, str) else "blocking"
        source = src if isinstance(src, str) else None
        answer_by = _when(fm.get("answer_by"))
    deps = tuple(d for d in deps_raw if isinstance(d, str)) if isinstance(deps_raw, list) else ()
    answered = kind in QUESTION_KINDS and answer_progress(body).complete
    return _BlobFacts(kind, title, deps, answered, urgency, source, answer_by)


def _raw_kind(split: tuple[str, str, str] | None) -> str | None:
    if split is None:
        return None
    m = re.search(r"(?m)^kind:\s*['\"]?([A-Za-z]+)", split[1])
    return m.group(1).lower() if m else None


# --------------------------------------------------------------------------- reading git


def _git_bytes(store: Any, *args: str, input: str | None = None) -> bytes:
    """A git command's exact output bytes (the store runs git with its time limits and
    decodes with surrogateescape, which round-trips any bytes)."""
    proc = store.git(*args, check=False, input=input, env=store.read_env)
    return proc.stdout.encode("utf-8", "surrogateescape")


def _read_blobs(store: Any, shas: list[str]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for i in range(0, len(shas), _BLOB_CHUNK):
        chunk = shas[i : i + _BLOB_CHUNK]
        for sha, data in zip(chunk, store.blobs(chunk), strict=True):
            if data is not None:
                out[sha] = data
    return out


@dataclass
class _Commit:
    sha: str
    time: int
    changes: list[tuple[str, str, str, str, str]]  # (status, queue, state, filename, new blob)
    agent: str | None = None  # its Atk-Agent trailer (an agent session's own name)


def _log(store: Any, since: str | None) -> list[_Commit]:
    rng = [f"{since}..HEAD"] if since else ["HEAD"]
    out = _git_bytes(
        store, "log", "--reverse", "--no-renames", "--raw", "--no-abbrev",
        "--format=%x01%H %ct%x02%(trailers:key=Atk-Agent,valueonly,separator=%x2C)%x03", *rng, "--", "wi", "mq",
    ).decode("utf-8", "replace")
    commits: list[_Commit] = []
    for block in out.split("\x01")[1:]:
        first, _, rest = block.partition("\x02")
        trailer, _, rest = rest.partition("\x03")
        head = first.split()
        if len(head) != 2:
            continue
        agent = trailer.strip().split(",")[0].strip() or None
        commit = _Commit(head[0], int(head[1]), [], agent)
        for line in rest.split("\n"):
            if not line.startswith(":") or "\t" not in line:
                continue
            meta, path = line.split("\t", 1)
            parts = meta.split()
            if len(parts) < 5:
                continue
            m = _ITEM_RE.match(path)
            if m is None:
                continue
            commit.changes.append((parts[4][0], m.group(1), m.group(2), m.group(3), parts[3]))
        commits.append(commit)
    return commits


def _apply(index: HistoryIndex, commits: list[_Commit], blobs: dict[str, bytes]) -> None:
    facts_of: dict[str, _BlobFacts] = {}
    for c in commits:
        present: dict[str, tuple[str, str, str]] = {}  # filename -> (queue, state, blob)
        deleted: set[str] = set()
        for status, queue, state, name, blob in c.changes:
            if status == "D":
                deleted.add(name)
            else:
                present[name] = (queue, state, blob)
        for name in deleted - present.keys():
            life = index.lives.get(name)
            if life is not None and life.removed is None:
                life.removed = c.time
                for span in life.deps.values():
                    if span[1] is None:
                        span[1] = c.time
        for name, (queue, state, blob) in present.items():
            data = blobs.get(blob)
            if data is None:
                continue
            facts = facts_of.get(blob)
            if facts is None:
                facts = facts_of[blob] = _facts(name, state, data)
            life = index.lives.get(name)
            if life is None or life.removed is not None:  # a new life (re-added after rm)
                life = index.lives[name] = Life(queue, state, facts.kind, facts.title, c.time, moved=c.time)
            elif (life.queue, life.state) != (queue, state) or life.moved is None:
                life.moved = c.time
            life.queue, life.state, life.kind, life.title = queue, state, facts.kind, facts.title
            if facts.kind in QUESTION_KINDS:
                if life.filed is None:
                    life.filed = c.time
                    life.agent = c.agent or facts.source
                if life.answered is None:  # what it was while it waited
                    life.urgency, life.answer_by = facts.urgency, facts.answer_by
                if facts.answered and life.answered is None:
                    life.answered = c.time
                elif not facts.answered and life.answered is not None and state not in TERMINAL:
                    life.answered = None  # its answer withdrawn (`z` undid it, an edit): waiting again
            now_deps = set(facts.deps)
            for dep, span in life.deps.items():
                if dep not in now_deps and span[1] is None:
                    span[1] = c.time
            for dep in now_deps:
                span = life.deps.get(dep)
                if span is None:
                    life.deps[dep] = [c.time, None]
                elif span[1] is not None:
                    span[1] = None  # named again: the window goes on
        index.head = c.sha


def _is_ancestor(store: Any, old: str, new: str) -> bool:
    proc = store.git("merge-base", "--is-ancestor", old, new, check=False, env=store.read_env)
    return proc.returncode == 0


def load_index(store: Any) -> HistoryIndex:
    """The history index up to HEAD: from the cache, brought up to date incrementally."""
    from atk_tui.cache import files

    index: HistoryIndex | None = None
    got = files.read(store.git_dir, "stats")  # an index of any earlier HEAD: brought up to date
    if got is not None:
        try:
            index = HistoryIndex.from_json(json.loads(bytes(got[1])))
        except (ValueError, RecursionError):
            index = None
    head = store.head()
    if index is not None and index.head == head:
        return index
    if index is None or index.head is None or head is None or not _is_ancestor(store, index.head, head):
        index = HistoryIndex()
    if head is None:
        return index
    commits = _log(store, index.head)
    wanted = sorted({blob for c in commits for status, *_, blob in c.changes if status != "D"})
    _apply(index, commits, _read_blobs(store, wanted))
    index.head = head
    # a read-only .git: the stats are still right, only not cached
    files.write(store.git_dir, "stats", [json.dumps(index.to_json(), separators=(",", ":")).encode("utf-8")])
    return index


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
    due: datetime | None = None  # its deadline: its own answer_by, else its urgency's (service.deadlines)

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

    def headline(self) -> str:
        """"3 questions waiting · oldest 2 d · answering the top one unblocks 7 items"."""
        if not self.open:
            return "no questions waiting"
        n = len(self.open)
        top = max(self.open, key=lambda q: (q.blocked_all, q.wait))
        text = f"{n} question{'s' if n != 1 else ''} waiting · oldest {duration(self.open[0].wait)}"
        if top.blocked_all:
            text += f" · answering {top.filename} unblocks {top.blocked_all} item{'s' if top.blocked_all != 1 else ''}"
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
    from atk_tui.service.deadlines import answer_by_defaults

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


def wait_stats(store: Any, *, now: datetime, since: datetime | None = None) -> WaitStats:
    return compute(load_index(store), now=now, since=since)
