"""How long ago, and how long until, in words: the one place both front ends say an item's
age (`3h`, `created … (3h ago)`, `just now`) and a cooldown's time left (`2h 10m left`).

One time format across the dashboard's screens: relative in lists and lines (`age`, `ago`), and
relative with the absolute time after it where one thing is shown in full, the detail pane
(`dated`: `3h ago (2026-11-28 05:59 UTC)`); an absolute time alone is `stamp`.

A naive time is taken as UTC (as readiness judges it)."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["age", "ago", "dated", "format_cooldown", "format_duration", "stamp", "time_left"]

_UNITS = (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60))


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo is not None and t.utcoffset() is not None else t.replace(tzinfo=UTC)


def age(then: datetime | None, now: datetime) -> str:
    """The compact age of a table column: `now` under a minute, then `3m`, `2h`, `5d`, `2w`;
    `?` when unknown."""
    if then is None:
        return "?"
    secs = max((_aware(now) - _aware(then)).total_seconds(), 0)
    for unit, size in _UNITS:
        if secs >= size:
            return f"{int(secs // size)}{unit}"
    return "now"


def ago(then: datetime | None, now: datetime) -> str:
    """The age in a sentence: `just now` under a minute (also for a time a little ahead of
    the clock), then `3m ago`, `2h ago`, `5d ago`; `unknown` when unknown. Never `now ago`."""
    short = age(then, now)
    if short == "?":
        return "unknown"
    return "just now" if short == "now" else f"{short} ago"


def stamp(t: datetime) -> str:
    """The absolute time, to the minute, in UTC (as the store writes it): `2026-11-28 05:59 UTC`."""
    return f"{_aware(t).astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def dated(then: datetime | None, now: datetime) -> str:
    """Relative, then absolute: `3h ago (2026-11-28 05:59 UTC)`."""
    return "unknown" if then is None else f"{ago(then, now)} ({stamp(then)})"


def time_left(until: datetime, now: datetime, *, compact: bool = False) -> str:
    """The time left until `until`: `2h 10m left` (`compact`: `2h10m left`, for a narrow
    badge), `<1m left` in the last minute."""
    left = format_duration((_aware(until) - _aware(now)).total_seconds())
    return f"{left.replace(' ', '') if compact else left} left"


def _format_offset(dt: datetime) -> str:
    off = dt.utcoffset()
    if off is None:
        return "+00:00"
    minutes = int(off.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def format_duration(seconds: float) -> str:
    """A short human duration: `2d 3h`, `3h 12m`, `12m`, `<1m`."""
    total = int(seconds)
    if total < 60:
        return "<1m"
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m"


def format_cooldown(until: datetime, now: datetime) -> str:
    """`cooldown until 2026-11-30 09:00 +09:00 (in 3h 12m)` (time in `until`'s own zone)."""
    until = _aware(until)
    left = (until - _aware(now)).total_seconds()
    return f"cooldown until {until:%Y-%m-%d %H:%M} {_format_offset(until)} (in {format_duration(left)})"
