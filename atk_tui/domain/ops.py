"""Who may do what to which item, in one place (SPEC §5, §8): the transition table and the
refusals every front end asks.

`refusal(op, items, actor)` is the one judgement: the service calls it inside the store lock
(on the item as stored now), the CLI gets its code and exit code through the service's
`Outcome`, and the dashboard calls it to grey out a key and say why (as lazygit's disabled
reasons). A new transition is one row in `WI.transitions`, one CLI subcommand, one binding;
a second queue with other states (SPEC §12, `atk mq`) is one more `QueueRules`.

Dependency refusals (missing, self, cycle with its path) are `dependency_refusal`.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from atk_tui.domain import graphs
from atk_tui.domain.model import Item, State, deps_of
from atk_tui.domain.queues import MQ as MQ_QUEUE


class Op(StrEnum):
    """Every write a front end can ask for, by its CLI name."""

    HOLD = "hold"
    UNHOLD = "unhold"
    START_PROCESSING = "start-processing"
    ADOPT = "adopt"
    REJECT = "reject"
    RETURN_TO_INBOX = "return-to-inbox"
    MOVE = "move"  # the user's any-state-to-any-state move (resolves to one of the above)
    RM = "rm"
    EDIT = "edit"
    ANSWER = "answer"
    COMMENT = "comment"
    SET_DEPENDENCIES = "set-dependencies"
    CONVERT_TO_PLAN = "convert-to-plan"
    # the feedback queue's own (SPEC §12): the dashboard's edit session, the planning path
    START_EDITING = "start-editing"
    STOP_EDITING = "stop-editing"
    FINISH_PLANNING = "finish-planning"


@dataclass(frozen=True)
class Refusal:
    """Why an operation may not be done: a stable `code` for programs ("state", "invalid",
    "user-only", "missing", "self", "cycle"), a `message` that says what to do instead, the
    CLI's `exit_code`, and the item (or dependency) concerned."""

    code: str
    message: str
    exit_code: int = 1
    filename: str = ""
    cycle: tuple[str, ...] = ()


@dataclass(frozen=True)
class Transition:
    """One row of the table. `user_from` None: the user may start from any other state
    (SPEC §5: the user's UI moves anything anywhere). `answered_from`: further states an
    agent may start from for a question whose answer is saved (an answered UWI in inbox
    may be adopted or rejected). `named_from`: the command names the state it starts from
    (`return-to-inbox --state=...`), the first of `agent_from` by default."""

    target: str
    agent_from: frozenset[str]
    user_from: frozenset[str] | None = None
    answered_from: frozenset[str] = frozenset()
    named_from: bool = False
    takes_note: bool = False
    takes_commit: bool = False
    #: the command takes several items, all or nothing (`start-processing F...`)
    several: bool = False
    #: the command sets plan_file on the way (`finish-planning F... --plan-file P`)
    takes_plan: bool = False
    #: a command of its own (`atk wi <op>`); False: only the dashboard's edit session runs it
    command: bool = True
    #: an item in the target state already is a no-op that says so (confirmation-and-uwi step 4)
    already_ok: bool = False


#: the frontmatter keys adopt and reject write (SPEC §4), cleared when the item leaves the
#: terminal state (`QueueRules.cleared_on_leaving`)
TERMINAL_KEYS = ("note", "commit")


@dataclass(frozen=True)
class QueueRules:
    """A queue's states and its transition table (`wi` here; `mq` is another instance)."""

    name: str
    states: tuple[str, ...]
    terminal: frozenset[str]
    transitions: Mapping[str, Transition]
    removable: frozenset[str]  # `rm` takes items in these states
    dependencies_agent: frozenset[str]  # `set-dependencies` for an agent
    dependencies_user: frozenset[str]  # ... and for the user
    #: a free move to this state is made as this op (to inbox from hold: unhold)
    move_ops: Mapping[str, str] = field(default_factory=dict)
    #: states only their own path enters or leaves (mq's planning): never in a free move
    fenced: frozenset[str] = frozenset()

    @property
    def active(self) -> frozenset[str]:
        return frozenset(self.states) - self.terminal

    def allowed_from(
        self, op: str, item: Item, *, actor: str, from_state: str | None = None, free: bool = False
    ) -> frozenset[str]:
        """States `op` may start from for `actor` and this item. `free`: as the person's
        any-state move (the dashboard's move, `atk wi move`), which is made as `op`."""
        row = self.transitions[op]
        if actor == "user":
            if free or row.user_from is None:
                return frozenset(self.states) - {row.target} - self.fenced
            return row.user_from
        if row.named_from:
            # the state named on the command line (`--state`, whose choices are agent_from)
            named = from_state or sorted(row.agent_from, key=self.states.index)[0]
            return frozenset({named}) & row.agent_from  # `--state=adopted` is no agent's move
        ok = row.agent_from
        if row.answered_from and item.is_question and item.answered:
            ok = ok | row.answered_from
        return ok

    def cleared_on_leaving(self, from_state: str, to_state: str) -> tuple[str, ...]:
        """The keys a terminal move wrote (`note`, adopt's `commit`), removed when the item
        leaves that terminal state (`return-to-inbox --state=rejected`, the user's move out of
        adopted): they say why the item ended, which no longer holds. The commit that wrote
        them keeps them in the store's history, and the write says what it cleared."""
        return TERMINAL_KEYS if from_state in self.terminal and from_state != to_state else ()

    def move_op(self, from_state: str, to_state: str) -> str | None:
        """The transition a free move from `from_state` to `to_state` is made as."""
        if to_state == State.INBOX and from_state == State.HOLD:
            return Op.UNHOLD.value
        if to_state == State.INBOX and from_state == "editing" and Op.STOP_EDITING.value in self.transitions:
            return Op.STOP_EDITING.value
        return self.move_ops.get(to_state)


WI = QueueRules(
    name="wi",
    states=State.values(),
    terminal=frozenset({State.ADOPTED.value, State.REJECTED.value}),
    transitions={
        # inbox -> hold for everyone, the person too (issue 39): another state is left for hold
        # only by the person's explicit move (the dashboard's, `atk wi move F --to hold`)
        Op.HOLD.value: Transition(State.HOLD.value, frozenset({State.INBOX.value}), user_from=frozenset({State.INBOX.value})),
        Op.UNHOLD.value: Transition(State.INBOX.value, frozenset({State.HOLD.value}), already_ok=True),
        Op.START_PROCESSING.value: Transition(State.PROCESSING.value, frozenset({State.INBOX.value}), several=True),
        Op.ADOPT.value: Transition(
            State.ADOPTED.value, frozenset({State.PROCESSING.value}), answered_from=frozenset({State.INBOX.value}),
            takes_note=True, takes_commit=True,
        ),
        Op.REJECT.value: Transition(
            State.REJECTED.value, frozenset({State.PROCESSING.value}), answered_from=frozenset({State.INBOX.value}),
            takes_note=True,
        ),
        Op.RETURN_TO_INBOX.value: Transition(
            State.INBOX.value, frozenset({State.PROCESSING.value, State.REJECTED.value}), named_from=True
        ),
    },
    removable=frozenset({State.INBOX.value, State.HOLD.value}),
    dependencies_agent=frozenset({State.INBOX.value, State.PROCESSING.value}),
    dependencies_user=frozenset({State.INBOX.value, State.PROCESSING.value, State.HOLD.value}),
    move_ops={
        State.HOLD.value: Op.HOLD.value,
        State.PROCESSING.value: Op.START_PROCESSING.value,
        State.ADOPTED.value: Op.ADOPT.value,
        State.REJECTED.value: Op.REJECT.value,
        State.INBOX.value: Op.RETURN_TO_INBOX.value,
    },
)

#: the wi queue's transitions (op -> Transition): the one table
TRANSITIONS: Mapping[str, Transition] = WI.transitions

#: the feedback queue (SPEC §12): wi's table plus the edit session (`editing`, the user's
#: only: agents never start it) and the planning path (planning -> inbox, for anyone)
MQ = QueueRules(
    name="mq",
    states=MQ_QUEUE.states,
    terminal=MQ_QUEUE.terminal,
    transitions={
        **WI.transitions,
        # the person's edit session holds the item already: its hold is the session's way out
        Op.HOLD.value: Transition(
            State.HOLD.value, frozenset({State.INBOX.value}), user_from=frozenset({State.INBOX.value, "editing"})
        ),
        Op.START_EDITING.value: Transition("editing", frozenset(), command=False),
        Op.STOP_EDITING.value: Transition(State.INBOX.value, frozenset(), command=False),
        Op.FINISH_PLANNING.value: Transition(
            State.INBOX.value, frozenset({"planning"}), user_from=frozenset({"planning"}), several=True, takes_plan=True
        ),
    },
    removable=WI.removable,
    dependencies_agent=WI.dependencies_agent,
    dependencies_user=WI.dependencies_user | {"editing"},
    move_ops={**WI.move_ops, "editing": Op.START_EDITING.value},
    fenced=MQ_QUEUE.fenced,
)
RULES: Mapping[str, QueueRules] = {WI.name: WI, MQ.name: MQ}


def rules_for(item: Item) -> QueueRules:
    """The rules of the queue `item` lives in."""
    return RULES.get(item.queue, WI)


def defect_refusal(item: Item) -> Refusal:
    return Refusal(
        "invalid",
        f"{item.filename} is defective ({'; '.join(item.defects)}); repair it with "
        f"`atk {item.queue} edit {item.filename} --whole-file FILE` (frontmatter and body), or remove it with "
        f"`atk {item.queue} rm`",
        filename=item.filename,
    )


def terminal_hint(item: Item) -> str:
    """What to do with a terminal item instead (wi-standards): a rejected one goes back with
    `return-to-inbox --state=rejected`; an adopted one is done (new work is a new item)."""
    cli = f"atk {item.queue}"
    if item.state == State.REJECTED:
        return f"`{cli} return-to-inbox {item.filename} --state=rejected` first"
    return f"it is done; new work is a new item (`{cli} add`)"


def state_hint(item: Item, rules: QueueRules) -> str | None:
    """What to do about an item that is where no agent step takes it (held, being edited,
    being planned, terminal), as the agent skills prescribe; None for the other states."""
    cli, name = f"atk {rules.name}", item.filename
    if item.state == State.HOLD:
        return f"it is held while someone edits it; wi-standards: whoever holds it runs `{cli} unhold {name}` when the edit is done"
    if item.state == "editing":
        return "the user is editing it in the dashboard; wait until the edit is saved"
    if item.state in rules.fenced:
        return f"a planning item leaves planning only with `{cli} finish-planning {name} --plan-file=P`"
    if item.state in rules.terminal:
        return terminal_hint(item)
    return None


def _terminal(item: Item) -> Refusal:
    return Refusal(
        "state",
        f"{item.filename} is {item.state}: terminal items are read-only ({terminal_hint(item)})",
        filename=item.filename,
    )


def _user_only(op: str) -> Refusal:
    return Refusal(
        "user-only",
        f"{op} is a user-only write; refused in an agent environment (the user does it in the dashboard)",
        exit_code=2,
    )


def transition_refusal(
    op: str,
    item: Item,
    actor: str,
    *,
    from_state: str | None = None,
    expect: str | None = None,
    rules: QueueRules | None = None,
    free: bool = False,
) -> Refusal | None:
    """Whether `actor` may make transition `op` on `item` as it is now (SPEC §5, §12);
    `rules`: the item's queue's by default; `free`: the person's any-state move made as `op`."""
    rules = rules or rules_for(item)
    name = item.filename
    if op not in rules.transitions:
        return Refusal("invalid", f"{name} is a {rules.name} item: {op} is not one of its transitions", exit_code=2, filename=name)
    if expect and item.state != expect:
        return Refusal("state", f"state conflict: {name} is in {item.state}, not {expect}", filename=name)
    row = rules.transitions[op]
    target = row.target
    allowed = rules.allowed_from(op, item, actor=actor, from_state=from_state, free=free)
    if item.state == target and (actor == "user" or not row.named_from):
        return Refusal("state", f"state conflict: {name} is already in {target}", filename=name)
    if item.state in allowed:
        return None
    hint = ""
    cli = f"atk {rules.name}"
    if row.answered_from and item.state in row.answered_from and item.is_question:
        hint = (
            f" (an inbox {'TBD' if rules.name == 'mq' else 'UWI'} can be {op}ed only once the user's answer is saved; "
            f"it is {'partially answered' if item.answer_partial else 'not answered yet'})"
        )
    elif op == Op.HOLD and item.state == State.PROCESSING and actor != "user":
        hint = (
            " (wi-standards: an item waiting for a user's answer is not held: add the question to its "
            f"dependencies (`{cli} set-dependencies {name} --add <question filename>`), then "
            f"`{cli} return-to-inbox {name}`: it waits in inbox, blocked; hold is only for editing an inbox "
            "item, in the order hold → edit → unhold)"
        )
    elif row.answered_from and item.state in row.answered_from:
        hint = f" (`{cli} start-processing {name}` first)"
    elif op == Op.UNHOLD and item.state != "editing":
        hint = f" (only a held item is unheld; {name} is not held, so there is nothing to unhold" + (
            ": its work goes on in processing)" if item.state == State.PROCESSING else ")"
        )
    elif op == Op.RETURN_TO_INBOX and item.state == State.INBOX:
        hint = f" ({name} is in inbox already: nothing to return)"
    elif op == Op.RETURN_TO_INBOX and item.state == State.REJECTED and row.named_from and State.REJECTED in row.agent_from:
        # the one command that fixes it, whole (issue 39)
        hint = f" (a rejected item goes back with its own form: run `{cli} return-to-inbox {name} --state=rejected`)"
    elif op == Op.RETURN_TO_INBOX and item.state == State.PROCESSING:
        hint = f" (a processing item goes back with `{cli} return-to-inbox {name}`, without --state)"
    elif actor == "user" and not free and item.state not in rules.fenced:
        hint = (
            f" (the verb keeps its meaning for the person too; to move {name} from {item.state} to {target} anyway, "
            f"use the explicit move: the dashboard's move, or `{cli} move {name} --to {target}`)"
        )
    elif (said := state_hint(item, rules)) is not None:
        hint = f" ({said}{f', then it can {op}' if item.state == State.HOLD else ''})"
    return Refusal(
        "state",
        f"state conflict: {name} is in {item.state}; {op} expects {' or '.join(sorted(allowed))}{hint}",
        filename=name,
    )


def move_refusal(item: Item, to_state: str, actor: str, *, rules: QueueRules | None = None) -> Refusal | None:
    """Whether `actor` may move `item` from its state to `to_state` as a rename of its file
    (a hand `git mv` that `atk wi commit` would commit): judged as the transition that makes
    that move (`move_op`), by the same table as the verbs. The user moves anything anywhere
    (not into or out of a fenced state); an agent only along its transitions, and a move no
    agent transition makes (out of adopted, into mq's editing) is the user's."""
    rules = rules or rules_for(item)
    name, src = item.filename, item.state
    if to_state == src:
        return None
    if to_state not in rules.states:
        return Refusal("invalid", f"unknown state {to_state!r}", exit_code=2, filename=name)
    if to_state in rules.fenced:
        return Refusal(
            "invalid", f"an item enters {to_state} only when it is added there (`atk {rules.name} add --state={to_state}`)",
            exit_code=2, filename=name,
        )  # fmt: skip
    if src in rules.fenced:
        return Refusal(
            "state",
            f"{name} leaves {src} only with `atk {rules.name} finish-planning {name} --plan-file=P`",
            filename=name,
        )
    op = rules.move_op(src, to_state)
    row = rules.transitions.get(op) if op else None
    if op is None or row is None:
        return Refusal("invalid", f"no transition moves an item from {src} to {to_state}", exit_code=2, filename=name)
    if actor == "user":
        return transition_refusal(op, item, actor, rules=rules)
    if (not row.agent_from and not row.answered_from) or (row.named_from and src not in row.agent_from):
        return Refusal(
            "user-only",
            f"moving {name} from {src} to {to_state} is a user-only move; refused in an agent environment "
            "(the user does it in the dashboard)",
            exit_code=2,
            filename=name,
        )
    return transition_refusal(op, item, actor, from_state=src if row.named_from else None, rules=rules)


def refusal(
    op: str,
    items: Sequence[Item],
    actor: str,
    *,
    to_state: str | None = None,
    from_state: str | None = None,
    expect: str | None = None,
    rules: QueueRules | None = None,
) -> Refusal | None:
    """Why `actor` may not do `op` on `items` as they are now, or None when it may.
    `rules`: each item's own queue's (wi or mq) unless given.

    `to_state` goes with `Op.MOVE` (the user's free move); `from_state` with
    return-to-inbox; `expect`: the state the caller saw (refused when an item moved since).
    The first refusal wins (an all-or-nothing write refuses as a whole).
    Not judged here: things only the store knows (a `base` that changed, who wrote an
    answer), which the service checks as well inside the lock."""
    if op not in (rules or MQ).transitions and op not in Op._value2member_map_:
        return Refusal("invalid", f"unknown operation {op!r}", exit_code=2)
    op = str(op)
    if not items:
        return Refusal("invalid", "no item given", exit_code=2)
    if len({i.filename for i in items}) != len(items):
        return Refusal("invalid", "the same item is named twice", exit_code=2)
    single = len(items) == 1
    for item in items:
        found = _item_refusal(op, item, actor, single, to_state, from_state, expect, rules or rules_for(item))
        if found is not None:
            return found
    return None


def _item_refusal(
    op: str,
    item: Item,
    actor: str,
    single: bool,
    to_state: str | None,
    from_state: str | None,
    expect: str | None,
    rules: QueueRules,
) -> Refusal | None:
    name = item.filename
    if op == Op.RM:
        if expect and item.state != expect:
            return Refusal("state", f"state conflict: {name} is in {item.state}, not {expect}", filename=name)
        if item.state not in rules.removable:
            said = state_hint(item, rules) if item.state not in rules.terminal else None
            why = (
                " (wi-standards: a processing item ends with adopt or reject, or goes back with "
                f"`atk {rules.name} return-to-inbox {name}`)"
                if item.state == State.PROCESSING
                else " (a terminal item stays; git history is the record)"
                if item.state in rules.terminal
                else f" ({said})"
                if said
                else ""
            )
            return Refusal(
                "state",
                f"state conflict: {name} is in {item.state}; rm takes {' or '.join(sorted(rules.removable))} items only{why}",
                filename=name,
            )
        return None
    if op in (Op.ANSWER, Op.COMMENT) and actor != "user":
        return _user_only(op)
    if op == Op.MOVE and actor != "user":
        return Refusal("invalid", "a free move is a user-only write; agents use the named transitions", exit_code=2)
    if not single and op not in rules.transitions and op != Op.MOVE:
        return Refusal("invalid", f"{op} takes one item at a time", exit_code=2)
    if item.defects and op not in (Op.EDIT,):
        return defect_refusal(item)
    if op == Op.EDIT or op == Op.CONVERT_TO_PLAN:
        if op == Op.CONVERT_TO_PLAN and not item.is_request:
            what = "a feedback item" if rules.name == "mq" else "an AWI"
            return Refusal("invalid", f"{name} is a {item.kind.upper()}; only {what} can have a plan file", filename=name)
        return _terminal(item) if item.state in rules.terminal else None
    if op == Op.ANSWER:
        if not item.is_question:
            what, question = ("a feedback item", "a question (TBD)") if rules.name == "mq" else ("an AWI", "a UWI (question)")
            return Refusal("invalid", f"{name} is {what}; only {question} can be answered — comment instead", filename=name)
        if item.state in rules.terminal:
            back = (
                f"`atk {rules.name} return-to-inbox {name} --state=rejected`"
                if item.state == State.REJECTED
                else "move it to inbox in the dashboard"
            )
            return Refusal("state", f"{name} is {item.state}: return it to inbox ({back}) before answering it again", filename=name)
        return None
    if op == Op.COMMENT:
        if not item.is_request:
            return Refusal("invalid", f"{name} is a {item.kind.upper()}; answer it instead of commenting", filename=name)
        return _terminal(item) if item.state in rules.terminal else None
    if op == Op.SET_DEPENDENCIES:
        allowed = rules.dependencies_user if actor == "user" else rules.dependencies_agent
        if item.state not in allowed:
            said = state_hint(item, rules)
            why = f" ({said})" if said else ""
            return Refusal(
                "state",
                f"state conflict: {name} is in {item.state}; set-dependencies takes {' or '.join(sorted(allowed))} items{why}",
                filename=name,
            )
        return None
    if op == Op.MOVE:
        if to_state in rules.fenced:
            return Refusal(
                "invalid", "an item enters planning only when it is added there (`atk mq add --state=planning`)", exit_code=2
            )
        if to_state not in rules.states:
            return Refusal("invalid", f"unknown state {to_state!r}", exit_code=2)
        resolved = rules.move_op(expect or item.state, to_state)
        if resolved is None:
            return Refusal("invalid", f"unknown state {to_state!r}", exit_code=2)
        return transition_refusal(resolved, item, actor, expect=expect, rules=rules, free=True)
    return transition_refusal(op, item, actor, from_state=from_state, expect=expect, rules=rules)


# -- dependencies --------------------------------------------------------------------------


class DependencyRules:
    """What `set-dependencies` refuses for one item, over the active items' dependencies
    (the same cycles `Writes.set_dependencies` refuses): build it once, ask per candidate."""

    def __init__(self, filename: str, depends: Mapping[str, Iterable[str]], exists: Iterable[str]) -> None:
        self.filename = filename
        self.known = set(exists)
        deps: dict[str, list[str]] = {}
        users: dict[str, list[str]] = {}
        for name, item_deps in depends.items():
            if name == filename:
                continue
            for dep in deps_of(list(item_deps)):
                deps.setdefault(name, []).append(dep)
                users.setdefault(dep, []).append(name)
        self._deps = deps
        # every item that depends on `filename`, directly or not: depending on one closes a cycle
        self.dependents = graphs.reachable(filename, users)

    def cycle_through(self, dep: str) -> tuple[str, ...] | None:
        """The cycle `filename -> dep -> ... -> filename` that depending on `dep` makes."""
        if dep not in self.dependents:
            return None
        return graphs.cycle_through(self.filename, ChainMap({self.filename: [dep]}, self._deps))

    def refusal(self, dep: str) -> Refusal | None:
        from atk_tui.domain.readiness import format_cycle

        if dep == self.filename:
            return Refusal("self", f"{dep} cannot depend on itself", filename=dep)
        if dep not in self.known:
            return Refusal("missing", f"no item named {dep}: a dependency must be an existing item", filename=dep)
        cycle = self.cycle_through(dep)
        if cycle is not None:
            return Refusal(
                "cycle", f"that would make a dependency cycle: {format_cycle(cycle)}", filename=dep, cycle=cycle
            )
        return None

    def refusals(self, deps: Iterable[str]) -> list[Refusal]:
        return [r for dep in deps if (r := self.refusal(dep)) is not None]

    def first(self, deps: Iterable[str]) -> Refusal | None:
        """The refusal to report for `deps`: a self-dependency first, then a missing item, then a cycle."""
        return min(self.refusals(deps), key=lambda r: ("self", "missing", "cycle").index(r.code), default=None)
