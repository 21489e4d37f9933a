"""The values the service returns: outcomes, queue pictures, history, sync status."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from atk_tui.domain.model import Item, Snapshot, StoreDefect, deps_of
from atk_tui.domain.ops import DependencyRules
from atk_tui.domain.readiness import Judgement
from atk_tui.itemfile.items import split_frontmatter
from atk_tui.store import AtkError
from atk_tui.store.gitstore import FolderMemo

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
    """A commit `atk wi commit` set aside because it conflicts with the remote (SPEC §11)."""

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
    #: commits the remote-tracking branch has that this clone lacks (fetched, not yet pulled)
    behind: int = 0


@dataclass(frozen=True)
class RemoteLook:
    """One look at the remote (`Service.look_at_remote`): whether its branch moved since this
    clone last fetched, or why the remote could not be asked (`error`; `moved` is False)."""

    moved: bool
    error: str | None = None


@dataclass
class HistoryEntry:
    commit: str
    date: datetime
    author: str
    subject: str
    actor: str


@dataclass(frozen=True, slots=True)
class Loaded:
    """How `Service.queue` loaded a view, what `queue(previous=...)` goes on: the states asked
    for; "queue/state/blob" of every item read from its file alone (the same key next time:
    the same `Item`); the state folders' listings (`GitStore.scan_all`); and the plan files'
    (`plan_files_missing` of `plans[0]` was `plans[2]` while the folders' signature was
    `plans[1]`; None when that could not be trusted)."""

    states: frozenset[str]
    keys: dict[str, str]
    folders: FolderMemo
    plans: tuple[frozenset[str], str, frozenset[str]] | None = None


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
    #: how the items were loaded (`Service.queue`): what its next refresh goes on
    loaded: Loaded | None = field(default=None, repr=False, compare=False)

    def dependency_rules(self, filename: str) -> DependencyRules:
        """What `set-dependencies` of `filename` refuses, judged over this view (the service
        judges its writes again from the files)."""
        depends = {n: deps_of(i.depends_on) for n, i in self.items.items()}
        return DependencyRules(filename, depends, set(self.items) | set(self.snapshot.states))

    @classmethod
    def judged(cls, snap: Snapshot, now: datetime, head: str | None = None, store_defects: list[StoreDefect] | None = None) -> QueueView:
        """The view of `snap` at `now`: every judgement derived the one way (readiness)."""
        from atk_tui.domain import readiness

        judgements = readiness.judge(snap, now)
        deps = readiness.dependents(snap)
        blocks = readiness.blocks_count(snap, judgements, deps)
        return cls._derived(snap, now, judgements, deps, blocks, head, store_defects)

    def rejudged(
        self, snap: Snapshot, now: datetime, head: str | None = None, store_defects: list[StoreDefect] | None = None
    ) -> QueueView:
        """`judged(snap, now, ...)`, equal to it, worked out from this view: only what the
        change from this view's snapshot touches is judged again (`domain.rejudge`)."""
        from atk_tui.domain.rejudge import refresh

        got = refresh(self.snapshot, self.judgements, self.dependents, self.blocks, snap, now)
        return self._derived(snap, now, got.judgements, got.dependents, got.blocks, head, store_defects)

    @classmethod
    def _derived(cls, snap: Snapshot, now: datetime, judgements: dict[str, Judgement], deps: dict[str, list[str]],
                 blocks: dict[str, tuple[int, int]], head: str | None, store_defects: list[StoreDefect] | None) -> QueueView:  # fmt: skip
        from atk_tui.domain import readiness

        return cls(
            snapshot=snap,
            judgements=judgements,
            blocks=blocks,
            dependents=deps,
            needs_you=readiness.sort_needs_you(snap, judgements, blocks),
            head=head,
            now=now,
            store_defects=store_defects if store_defects is not None else [],
        )

    @property
    def items(self) -> dict[str, Item]:
        return self.snapshot.items


class WriteReads(Protocol):
    """What the writes (`Writes`) read through the service's reads: facade.py passes the service."""

    def show(self, filename: str) -> Item: ...
    def read(self, filename: str) -> Item: ...
    def read_bytes(self, filename: str) -> bytes: ...
    def head(self) -> str: ...
    def scratch_dir(self) -> Path: ...
    def queue(self, states: Iterable[str]) -> QueueView: ...
    def dependents_of(self, filename: str) -> list[str]: ...
    def items_from_files(self, names: Iterable[str], *, committed_answers: bool = True) -> dict[str, Item]: ...
    def judge_from_files(self, names: Iterable[str]) -> dict[str, tuple[Item, Judgement]]: ...
