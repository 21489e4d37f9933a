"""The values the service returns: outcomes, queue pictures, history, sync status."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..items import split_frontmatter
from ..model import Item, Snapshot, StoreDefect
from ..readiness import Judgement
from ..store import AtkError

Clock = Callable[[], datetime]


def _body_of(text: str) -> str:
    parts = split_frontmatter(text)
    return parts[2] if parts is not None else text


def _code(exc: AtkError) -> str:
    return exc.code or ("invalid" if exc.exit_code == 2 else "")


SHA_RE = re.compile(r"^[0-9a-f]{40}$")


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Outcome:
    """What a write did. `ok` False means nothing was changed (see `message`)."""

    ok: bool
    op: str
    message: str
    files: tuple[str, ...] = ()
    commit: str | None = None
    pushed: bool | None = None
    warnings: tuple[str, ...] = ()
    exit_code: int = 0
    item: Item | None = None
    #: a stable refusal code so callers never match message text: "changed" (the item
    #: differs from the base the caller saw), "partial", "user-only", "state", "busy",
    #: "missing", "invalid", "self"/"cycle" (dependencies), "unchanged" (nothing to
    #: change), "dirty" (uncommitted changes in the way), "conflict", "unpushed";
    #: "" on success or when none applies
    code: str = ""


@dataclass(frozen=True)
class Conflict:
    """A commit `atk wi commit` set aside because it conflicts with the remote (contract §4)."""

    ref: str  # refs/atk/conflicts/<sha>
    commit: str
    subject: str
    files: tuple[str, ...]
    when: str  # the commit's author date, ISO 8601


CONFLICT_PREFIX = "refs/atk/conflicts/"


@dataclass(frozen=True)
class SyncStatus:
    """The store against its remote: commits not pushed yet, set-aside conflicts."""

    unpushed: int
    conflicts: int
    upstream: str | None
    has_upstream: bool


@dataclass
class HistoryEntry:
    commit: str
    date: datetime
    author: str
    subject: str
    actor: str


@dataclass
class QueueView:
    """A consistent picture of the queue at one moment, with every derived judgement."""

    snapshot: Snapshot
    judgements: dict[str, Judgement]
    blocks: dict[str, tuple[int, int]]
    dependents: dict[str, list[str]]
    needs_you: list[str]
    head: str | None
    now: datetime
    store_defects: list[StoreDefect] = field(default_factory=list)

    @classmethod
    def judged(cls, snap: Snapshot, now: datetime, head: str | None = None, store_defects: list[StoreDefect] | None = None) -> QueueView:
        """The view of `snap` at `now`: every judgement derived the one way (readiness)."""
        from .. import readiness

        judgements = readiness.judge(snap, now)
        blocks = readiness.blocks_count(snap, judgements)
        return cls(
            snapshot=snap,
            judgements=judgements,
            blocks=blocks,
            dependents=readiness.dependents(snap),
            needs_you=readiness.sort_needs_you(snap, judgements, blocks),
            head=head,
            now=now,
            store_defects=store_defects if store_defects is not None else [],
        )

    @property
    def items(self) -> dict[str, Item]:
        return self.snapshot.items

    def in_state(self, state: str) -> list[Item]:
        return [i for i in self.snapshot.items.values() if i.state == state]
