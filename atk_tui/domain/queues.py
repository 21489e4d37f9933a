"""The two queues of one store (SPEC §2, §12): `wi` (work items) and `mq` (the feedback queue).

A queue is a parameter of the one service, not a second service: the same store, lock,
commit code and rules serve both. A `Queue` says what differs: its folder, its states and
the named sets over them, its two kinds (a request and a question for the user); its
transition table is `ops.RULES[name]`. Filenames are unique across both queues, so a
`depends_on` entry names one item wherever it lives (dependencies may cross queues).
"""

from __future__ import annotations

from dataclasses import dataclass

from atk_tui.domain.model import QUESTION_KINDS, REQUEST_KINDS
from atk_tui.domain.model import STATES as WI_STATES


@dataclass(frozen=True)
class Queue:
    name: str  # also the folder under the store root
    states: tuple[str, ...]
    active: frozenset[str]
    processable: frozenset[str]
    terminal: frozenset[str]
    request_kind: str  # awi | feedback: a request for work (plan-type when plan_file is set)
    question_kind: str  # uwi | tbd: a question only the user answers
    #: states only their own path enters or leaves (planning: `add --state=planning`, `finish-planning`)
    fenced: frozenset[str] = frozenset()
    #: states besides inbox that `add --state` may create an item in
    add_states: tuple[str, ...] = ("inbox",)
    #: where the dashboard keeps an item while the user edits it in $EDITOR
    edit_state: str = "hold"

    @property
    def folder(self) -> str:
        return self.name

    @property
    def kinds(self) -> tuple[str, str]:
        return (self.request_kind, self.question_kind)

    @property
    def listed_all(self) -> tuple[str, ...]:
        """`--status=all`: every state but the fenced ones (planning is seen only by name)."""
        return tuple(s for s in self.states if s not in self.fenced)

    def path(self, state: str, filename: str) -> str:
        return f"{self.name}/{state}/{filename}"


WI = Queue(
    name="wi",
    states=WI_STATES,
    active=frozenset({"inbox", "processing", "hold"}),
    processable=frozenset({"inbox", "processing"}),
    terminal=frozenset({"adopted", "rejected"}),
    request_kind="awi",
    question_kind="uwi",
)

MQ = Queue(
    name="mq",
    states=("inbox", "processing", "editing", "hold", "planning", "adopted", "rejected"),
    active=frozenset({"inbox", "processing", "editing", "hold"}),
    processable=frozenset({"inbox", "processing"}),
    terminal=frozenset({"adopted", "rejected"}),
    request_kind="feedback",
    question_kind="tbd",
    fenced=frozenset({"planning"}),
    add_states=("inbox", "planning"),
    edit_state="editing",
)

QUEUES: tuple[Queue, ...] = (WI, MQ)
BY_NAME: dict[str, Queue] = {q.name: q for q in QUEUES}
assert {q.question_kind for q in QUEUES} == QUESTION_KINDS and {q.request_kind for q in QUEUES} == REQUEST_KINDS


def queue_named(queue: Queue | str | None) -> Queue:
    """The `Queue` for a name (or a Queue); None is `wi`."""
    if queue is None:
        return WI
    if isinstance(queue, Queue):
        return queue
    try:
        return BY_NAME[queue]
    except KeyError:
        raise ValueError(f"unknown queue {queue!r} (one of {', '.join(BY_NAME)})") from None


def queue_of_kind(kind: str) -> Queue | None:
    return next((q for q in QUEUES if kind in q.kinds), None)
