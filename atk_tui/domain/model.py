"""Plain data for the queue: states, kinds, items, reasons (SPEC §2, §4, §6).

Nothing here touches the disk or git; `items.py` builds `Item`s from file bytes and
`readiness.py` derives judgements from a `Snapshot`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from sys import intern
from typing import Any

from atk_tui.domain.fields import NAMES


class _Vocabulary(StrEnum):
    """A closed vocabulary of strings: members compare equal to their values (files and
    the CLI speak strings), `is_valid` checks a string from outside."""

    @classmethod
    def is_valid(cls, value: object) -> bool:
        return isinstance(value, str) and value in cls._value2member_map_

    @classmethod
    def values(cls) -> tuple[str, ...]:
        return tuple(m.value for m in cls)


class State(_Vocabulary):
    """An item's state: the folder it is in (SPEC §5). Declaration order is display order."""

    INBOX = "inbox"
    PROCESSING = "processing"
    HOLD = "hold"
    ADOPTED = "adopted"
    REJECTED = "rejected"

    @property
    def terminal(self) -> bool:
        return self in TERMINAL


class Kind(_Vocabulary):
    AWI = "awi"
    UWI = "uwi"


class Urgency(_Vocabulary):
    """A UWI's urgency (SPEC §7); the first is the default."""

    BLOCKING = "blocking"
    NEXT_REVIEW = "next-review"
    INFORMATIONAL = "informational"


class Status(_Vocabulary):
    """An item's derived badge (SPEC §6, `readiness.judge`), in the order lists show them."""

    READY = "ready"
    BLOCKED = "blocked"
    COOLDOWN = "cooldown"
    WAITING = "waiting"  # a UWI without the user's answer
    ANSWERED = "answered"  # a UWI the user answered: an agent takes it from here
    HOLD = "hold"
    EDITING = "editing"  # mq: the user edits it in the dashboard (SPEC §12)
    PLANNING = "planning"  # mq: its plan is being written; seen only with --status=planning
    TERMINAL = "terminal"
    DEFECTIVE = "defective"


class Actor(_Vocabulary):
    USER = "user"
    AGENT = "agent"


STATES: tuple[str, ...] = State.values()
TERMINAL: frozenset[str] = frozenset({State.ADOPTED.value, State.REJECTED.value})
#: what the user still has to look at, in either queue (`editing` exists in `mq` only, SPEC §12)
ACTIVE: frozenset[str] = frozenset({State.INBOX.value, State.PROCESSING.value, State.HOLD.value, "editing"})
PROCESSABLE: frozenset[str] = frozenset({State.INBOX.value, State.PROCESSING.value})
#: what the dashboard loads: the active states, and planning (mq: visible, not actionable)
SHOWN: frozenset[str] = ACTIVE | {"planning"}
KINDS: tuple[str, ...] = Kind.values()
#: a question only the user answers (`uwi` in wi, `tbd` in mq) and a request for work (SPEC §12)
QUESTION_KINDS: frozenset[str] = frozenset({"uwi", "tbd"})
REQUEST_KINDS: frozenset[str] = frozenset({"awi", "feedback"})
URGENCIES: tuple[str, ...] = Urgency.values()

#: what an item filename is: no path parts, a plain name ending in .md (messages quote it)
FILENAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.md"
FILENAME_RE = re.compile(rf"\A{FILENAME_PATTERN}\Z")

#: Keys the tool owns (the table: `domain.fields`); anything else in the frontmatter is preserved verbatim.
RESERVED_KEYS: tuple[str, ...] = NAMES

#: User-only H2 sections (SPEC §8). Canonical heading first, English alias second.
ANSWER_HEADINGS: tuple[str, ...] = ("回答", "Answer")
COMMENT_HEADINGS: tuple[str, ...] = ("ユーザーコメント", "User comment")

#: Bullets of a normal AWI body, in wi-standards' order (SPEC §4).
AWI_BULLETS: tuple[str, ...] = ("反映内容", "反映先", "理由", "適用範囲", "メリット", "デメリット", "完成条件")


def deps_of(depends_on: object) -> list[str]:
    """A `depends_on` value as the filenames it names: strings only, duplicates dropped, order kept."""
    if not isinstance(depends_on, (list, tuple)):
        return []
    return list(dict.fromkeys(d for d in depends_on if isinstance(d, str)))


def is_valid_filename(name: str) -> bool:
    """True when `name` is a legal item filename (no path parts, SPEC §3)."""
    return isinstance(name, str) and bool(FILENAME_RE.match(name))


def _one(value: Any) -> Any:
    """`value`, one string for every equal one (`Item.listed`)."""
    return intern(value) if type(value) is str else value


@dataclass(slots=True)
class Item:
    """One work item file as read from the store.

    A file that fails validation is still an `Item`, with `defects` naming every reason;
    the typed fields then hold whatever could be read (or their defaults).
    """

    filename: str
    state: str
    fm_block: str = ""  # the file text up to and including the closing `---` line, exact (not a commit)
    fm_text: str | None = None  # the YAML between the `---` lines (None: no frontmatter)
    body: str = ""  # everything after the closing `---` line
    data: dict[str, Any] = field(default_factory=dict)  # the loaded frontmatter mapping
    defects: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # body lint (never blocking)
    title: str = ""
    kind: str = "awi"
    source: str | None = None
    target_repo: str = ""
    target_commit: str | None = None
    plan_file: str | None = None
    depends_on: list[str] = field(default_factory=list)
    cooldown_until: datetime | None = None
    created: datetime | None = None
    urgency: str = "blocking"
    answer_by: datetime | None = None  # a question's own deadline (SPEC §16)
    note: str | None = None
    commit: str | None = None
    answered: bool = False  # UWI whose `## 回答` answers every question (SPEC §11)
    has_comment: bool = False
    size: int = 0
    blob: str = ""  # git blob SHA-1 of the file bytes
    complete: bool = True  # False: loaded from the cache, fm_block/fm_text/body/data not read yet
    #: UWI whose `## 回答` has content but leaves some question without a choice (SPEC §11):
    #: it still needs the user and still blocks
    answer_partial: bool = False
    #: the queue the item lives in (`wi` or `mq`, see domain/queues.py)
    queue: str = "wi"

    def listed(self) -> Item:
        """This item as a listing keeps it (in place): its text let go (`complete` False: read
        again when shown, as a cached item is) and the values many items share one string
        each (at 30,000 items, ~40 MB less)."""
        self.fm_block, self.fm_text, self.body, self.data, self.complete = "", None, "", {}, False
        self.kind, self.source = _one(self.kind), _one(self.source)
        self.target_repo, self.urgency = _one(self.target_repo), _one(self.urgency)
        return self

    @property
    def defective(self) -> bool:
        return bool(self.defects)

    @property
    def is_uwi(self) -> bool:
        return self.kind == "uwi"

    @property
    def is_question(self) -> bool:
        """A UWI or a TBD: answered by the user in `## 回答`, satisfied once answered."""
        return self.kind in QUESTION_KINDS

    @property
    def is_request(self) -> bool:
        """An AWI or a feedback item: plan-type when `plan_file` is set."""
        return self.kind in REQUEST_KINDS

    @property
    def awi_type(self) -> str:
        """`plan` when `plan_file` is set, else `normal` (never guessed from the body)."""
        return "plan" if self.plan_file else "normal"

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL

    @property
    def text(self) -> str:
        """The whole file as text: `fm_block + body` reproduces the file exactly."""
        return self.fm_block + self.body


@dataclass(frozen=True, slots=True)
class Reason:
    """Why an item is blocked. `code` is stable for programs; `message` is for people."""

    code: str  # defective | plan-missing | cooldown | missing-dep | self-dep | cycle | dep-active | dep-hold
    message: str
    ref: str | None = None  # the filename concerned, where there is one
    until: datetime | None = None  # for cooldown
    cycle: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StoreDefect:
    """A problem with the store's layout rather than one item's content (SPEC §3)."""

    path: str
    message: str


@dataclass(slots=True)
class Snapshot:
    """What readiness is judged over: parsed items plus where every filename lives.

    `items` holds the parsed items (at least every active one); `states` maps *every*
    filename in the store, parsed or not (terminal items may be left unparsed), to its
    state. `plan_missing` names items whose `plan_file` does not resolve to a file.
    """

    items: dict[str, Item] = field(default_factory=dict)
    states: dict[str, str] = field(default_factory=dict)
    store_defects: list[StoreDefect] = field(default_factory=list)
    plan_missing: frozenset[str] = frozenset()
