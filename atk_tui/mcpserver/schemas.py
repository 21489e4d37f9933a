"""The tools' input schemas, generated from the tables the CLI's options come from: a frontmatter
key's schema from its row of `domain.fields.FIELDS` (its shape, its description), a transition's
arguments from its row of `domain.ops` (several items, a note, a commit, the state it starts
from, a plan file), `--status` and the kinds from the queue (`domain.queues`), and which keys
`add` takes from `Writes.add`'s own keywords. No second, hand-written copy of any of them."""

from __future__ import annotations

import inspect
from typing import Any

from atk_tui.domain.fields import BY_NAME, FIELDS
from atk_tui.domain.model import STATES, URGENCIES
from atk_tui.domain.ops import Transition
from atk_tui.domain.queues import Queue

#: a frontmatter shape (`domain.fields`) as JSON Schema
_SHAPES: dict[str, dict[str, Any]] = {
    "repo": {"type": "string", "minLength": 1},
    "text": {"type": "string"},
    "string": {"type": "string"},
    "filenames": {"type": "array", "items": {"type": "string"}},
    "time": {"type": "string"},
    "zoned-time": {"type": "string"},
    "urgency": {"type": "string", "enum": list(URGENCIES)},
}

#: what a time argument takes, said once (the CLI's `--until`, `--answer-by`)
TIME_HELP = {
    "time": "an ISO 8601 time (no zone: UTC) or a duration from now (30m, 2h, 1d)",
    "zoned-time": "an ISO 8601 time with its timezone (2026-11-30T09:00:00+09:00) or a duration from now (2h, 30m, 1d)",
}

#: what a filename argument takes (the CLI's resolver: `service.resolve`)
FILENAME_HELP = "an item's filename (without .md, or a unique prefix, will do)"


def field_schema(name: str, queue: Queue) -> dict[str, Any]:
    """One frontmatter key's schema, from its row of the table."""
    f = BY_NAME[name]
    if f.shape == "kind":
        s: dict[str, Any] = {"type": "string", "enum": list(queue.kinds)}
    else:
        s = dict(_SHAPES[f.shape])
    desc = f.description
    if f.shape in TIME_HELP:
        desc += f"; {TIME_HELP[f.shape]}"
    if f.shape == "filenames":
        desc += f" ({FILENAME_HELP})"
    s["description"] = desc
    return s


def add_fields(add: Any) -> tuple[str, ...]:
    """The frontmatter keys an agent gives `add`: the table's keys `Writes.add` takes (its
    keywords), but `kind` (its own argument), `source` (the server's `--source`) and what atk
    writes itself."""
    params = inspect.signature(add).parameters
    return tuple(f.name for f in FIELDS if f.name in params and f.name not in ("kind", "source") and not f.by_atk)


def obj(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        s["required"] = list(required)
    return s


def filename() -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "description": FILENAME_HELP}


def filenames(what: str = "items") -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1,
            "description": f"the {what}' filenames ({FILENAME_HELP})"}  # fmt: skip


def statuses(queue: Queue) -> list[str]:
    """What `list --status` takes (`service.reading.listing.states_for`)."""
    return ["active", "processable", "ready", "blocked", "all", *queue.states]


def _order(state: str) -> int:
    return STATES.index(state) if state in STATES else len(STATES)


def agent_froms(row: Transition) -> list[str]:
    return sorted(row.agent_from, key=_order)


def transition_schema(row: Transition, queue: Queue) -> dict[str, Any]:
    """A transition tool's arguments: what its row takes."""
    props: dict[str, Any] = {}
    required: list[str] = []
    if row.several:
        props["filenames"] = filenames()
        required.append("filenames")
    else:
        props["filename"] = filename()
        required.append("filename")
    if row.takes_note:
        props["note"] = {"type": "string", "description": BY_NAME["note"].description}
    if row.takes_commit:
        props["commit"] = {"type": "string", "pattern": "^[0-9a-f]{40}$", "description": BY_NAME["commit"].description}
    if row.named_from:
        froms = agent_froms(row)
        props["state"] = {"type": "string", "enum": froms, "default": froms[0],
                          "description": f"the state the item leaves (default {froms[0]})"}  # fmt: skip
    if row.takes_plan:
        props["plan_file"] = field_schema("plan_file", queue)
        required.append("plan_file")
    return obj(props, tuple(required))


def transition_summary(row: Transition, question: str) -> str:
    """A transition tool's description, said from its row (as `atk wi <op> --help` says it)."""
    froms = agent_froms(row)
    text = f"{' or '.join(froms)} -> {row.target}"
    if row.takes_plan:
        text += " with plan_file set"
    if row.already_ok:
        text += f" (an item in {row.target} already: nothing to do, and it says whether the item is ready)"
    if row.several:
        text += ", all or nothing (every item checked before any moves)"
    if row.answered_from:
        text += f" (an answered {question} also from {' or '.join(sorted(row.answered_from, key=_order))})"
    return text
