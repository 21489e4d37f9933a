"""The store's history as the wait statistics read it (issue 16): every item's life (filed,
moved, answered, removed, what it depended on when), from `git log`, read once and then
incrementally, kept in `.git/atk-cache/stats.cache` (the figures are in `stats`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from atk_tui.domain.model import FILENAME_PATTERN, QUESTION_KINDS, TERMINAL
from atk_tui.domain.queues import QUEUES
from atk_tui.itemfile.items import fast_load, find_title, parse_item, split_frontmatter
from atk_tui.itemfile.questions import answer_progress

_ITEM_RE = re.compile(rf"^({'|'.join(q.name for q in QUEUES)})/([a-z]+)/({FILENAME_PATTERN})$")
_BLOB_CHUNK = 2000  # blobs per `git cat-file --batch` call
INDEX_FORMAT = 2  # .git/atk-cache/stats.cache's format: 2 adds each life's `moved`


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
        """For `json.dumps` at once: each life's own fields, not copied (`asdict` deep-copied
        every `deps` list: most of a cold `atk wi stats` at 60,000 items)."""
        return {"format": INDEX_FORMAT, "head": self.head, "lives": {k: vars(v) for k, v in self.lives.items()}}

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
