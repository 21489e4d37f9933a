"""Structured filter tokens (`repo:`, `kind:`, `urgency:`, `is:`), combined with free text:
the dashboard's `/` filter (issue 15). A pure function of the query; no Textual here.

    repo:acme/api kind:uwi is:blocked session     -> the structured part, and "session"

Several values of one key are alternatives (`repo:a repo:b`: either); different keys must all
hold. `is:` takes blocked, ready, a kind (awi, uwi, feedback, tbd), answered, waiting, hold. An unknown key or value is
not a silent empty list: it is reported with the valid ones, and the token is then matched as
plain text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from atk_tui.domain.model import URGENCIES, Item
from atk_tui.domain.queues import QUEUES
from atk_tui.domain.readiness import Judgement

KEYS = ("repo", "kind", "urgency", "is")
KINDS = tuple(kind for queue in QUEUES for kind in queue.kinds)  # both queues show on the board
IS_VALUES = ("blocked", "ready", *KINDS, "answered", "waiting", "hold")
_TOKEN = re.compile(r"^(\w+):(\S*)$")


@dataclass(frozen=True)
class Query:
    text: str = ""  # the free text (fuzzy-matched by the front end)
    repos: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    urgencies: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()  # is: values
    errors: tuple[str, ...] = field(default=(), compare=False)

    @property
    def structured(self) -> bool:
        return bool(self.repos or self.kinds or self.urgencies or self.flags)


def parse_query(query: str) -> Query:
    """Split `query` into its tokens and its free text."""
    words: list[str] = []
    found: dict[str, list[str]] = {k: [] for k in KEYS}
    errors: list[str] = []
    valid = {"kind": KINDS, "urgency": tuple(URGENCIES), "is": IS_VALUES}
    for word in query.split():
        m = _TOKEN.match(word)
        if not m or m.group(1).casefold() not in KEYS:
            if m and not word.startswith(("http:", "https:")):
                errors.append(f"unknown filter {m.group(1)}:; filters: {', '.join(k + ':' for k in KEYS)}")
            words.append(word)
            continue
        key, value = m.group(1).casefold(), m.group(2)
        if not value:
            errors.append(f"{key}: needs a value" + (f" ({', '.join(valid[key])})" if key in valid else ""))
            continue
        if key in valid:
            value = value.casefold()
            if value not in valid[key]:
                errors.append(f"{key}:{value} is not one of {', '.join(valid[key])}")
                words.append(word)
                continue
        found[key].append(value)
    return Query(
        text=" ".join(words),
        repos=tuple(found["repo"]),
        kinds=tuple(found["kind"]),
        urgencies=tuple(found["urgency"]),
        flags=tuple(found["is"]),
        errors=tuple(errors),
    )


def _flag(flag: str, item: Item, j: Judgement | None) -> bool:
    if flag in KINDS:
        return item.kind == flag
    if flag == "hold":
        return item.state == "hold"
    if j is None:
        return False
    if flag == "ready":
        return j.ready
    return j.status == flag  # blocked, answered, waiting: the badge the item shows


def matches(query: Query, item: Item, judgement: Judgement | None) -> bool:
    """The structured part of `query` holds for `item` (the free text is the front end's)."""
    if query.repos and not any(r.casefold() in item.target_repo.casefold() for r in query.repos):
        return False
    if query.kinds and item.kind not in query.kinds:
        return False
    if query.urgencies and (item.kind != "uwi" or item.urgency not in query.urgencies):
        return False
    return all(_flag(f, item, judgement) for f in query.flags)
