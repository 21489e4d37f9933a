"""When a question should be answered by (SPEC §16): its own `answer_by`, else its urgency's
answer-by time (`[notify.<urgency>] answer_by` in the config; blocking 30 min, next-review
1 day, informational none). A deadline only decides when the person is reminded and what is
shown first: never an answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from atk_tui.domain.model import Item

#: each urgency's answer-by time unless the config says otherwise
DEFAULT_ANSWER_BY: dict[str, timedelta | None] = {
    "blocking": timedelta(minutes=30),
    "next-review": timedelta(days=1),
    "informational": None,
}
_DURATION = re.compile(r"\A(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?\Z")
_cached: dict[str, timedelta | None] | None = None


def duration(value: Any) -> timedelta | None:
    """`30m`, `1d`, `2h30m`, `90s` or a number of seconds; "" / 0 / None: none. ValueError otherwise."""
    if value in ("", None, 0):
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return timedelta(seconds=float(value)) if value > 0 else None
    m = _DURATION.match(value.strip()) if isinstance(value, str) else None
    if not m or not any(m.groups()):
        raise ValueError(f"not a duration (30m, 2h, 1d, or seconds): {value!r}")
    d, h, mi, s = (int(g or 0) for g in m.groups())
    return timedelta(days=d, hours=h, minutes=mi, seconds=s)


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
                    out[urgency] = duration(sub["answer_by"])
                except ValueError:
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
