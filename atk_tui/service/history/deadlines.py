"""When a question should be answered by (SPEC §16): its own `answer_by`, else its urgency's
answer-by time (`[notify.<urgency>] answer_by` in the config; blocking 30 min, next-review
1 day, informational none). A deadline only decides when the person is reminded and what is
shown first: never an answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from atk_tui.domain.model import URGENCIES, Item
from atk_tui.host.settings import TABLE, BadValue, convert

_ANSWER_BY = TABLE["notify.*"].key("answer_by")  # its declaration: type, defaults, help
#: each urgency's answer-by time unless the config says otherwise
DEFAULT_ANSWER_BY: dict[str, timedelta | None] = {u: convert(_ANSWER_BY, _ANSWER_BY.default[u]) for u in URGENCIES}
_cached: dict[str, timedelta | None] | None = None


def answer_by_defaults(cfg: Mapping[str, Any] | None = None) -> dict[str, timedelta | None]:
    """Each urgency's answer-by time from the config's `[notify.<urgency>] answer_by`; a value
    that is not a duration keeps the default (the hub refuses it at start, saying why)."""
    global _cached
    if cfg is None:
        if _cached is not None:
            return _cached
        from atk_tui.host.config import ConfigError, load_config

        try:
            loaded: Mapping[str, Any] = load_config()
        except ConfigError:
            loaded = {}
        _cached = answer_by_defaults(loaded)
        return _cached
    out = dict(DEFAULT_ANSWER_BY)
    table = cfg.get("notify")
    if isinstance(table, Mapping):
        for urgency in out:
            sub = table.get(urgency)
            if isinstance(sub, Mapping) and "answer_by" in sub:
                try:
                    out[urgency] = convert(_ANSWER_BY, sub["answer_by"])
                except BadValue:
                    pass
    return out


def deadline(item: Item, defaults: Mapping[str, timedelta | None] | None = None) -> datetime | None:
    """When `item` (a question) should be answered by, or None (no deadline)."""
    if item.answer_by is not None:
        return item.answer_by if item.answer_by.tzinfo else item.answer_by.replace(tzinfo=UTC)
    span = (answer_by_defaults() if defaults is None else defaults).get(item.urgency)
    if span is None or item.created is None:
        return None
    created = item.created if item.created.tzinfo else item.created.replace(tzinfo=UTC)
    return created + span


def is_overdue(item: Item, now: datetime, defaults: Mapping[str, timedelta | None] | None = None) -> bool:
    """A question still waiting past its deadline."""
    due = deadline(item, defaults)
    return due is not None and item.is_question and not item.answered and now >= due


def overdue_first(items: Iterable[Item], now: datetime, defaults: Mapping[str, timedelta | None] | None = None) -> list[Item]:
    """`items` (the needs-you list, in its order) with the overdue questions first, each part
    keeping its order."""
    items = list(items)
    late = [i for i in items if is_overdue(i, now, defaults)]
    if not late:
        return items
    names = {i.filename for i in late}
    return late + [i for i in items if i.filename not in names]
