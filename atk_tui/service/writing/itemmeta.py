"""Frontmatter writes the agent skills ask for besides dependencies and plan files (SPEC §13):
`set-cooldown` and `set-urgency`. Each is one commit through the service's write path."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from atk_tui.domain.model import TERMINAL, URGENCIES
from atk_tui.domain.ops import terminal_hint
from atk_tui.itemfile.items import set_keys, with_frontmatter
from atk_tui.store import AtkError, StateConflict, Transaction

_DURATION = re.compile(r"\A(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?\Z")


def parse_until(value: str, now: datetime, *, future: bool = False) -> datetime:
    """`--until`: an ISO 8601 time with a timezone, or a duration from now (`2h`, `1d12h`,
    `30m`, `90s`). A time without a timezone is refused: `cooldown_until` requires one.
    `future`: a time that is not after `now` is refused too (a cooldown that has already
    ended would block nothing: `--clear` removes one)."""
    when = _parse_until(value, now)
    if future and when <= now:
        raise AtkError(
            f"--until {value!r} is not in the future (now {now.astimezone(when.tzinfo).isoformat(timespec='seconds')}): "
            "a cooldown must end later than now; give a later time or a duration (2h, 1d), or --clear to remove one",
            exit_code=2,
        )
    return when


def _parse_until(value: str, now: datetime) -> datetime:
    text = value.strip()
    m = _DURATION.match(text)
    too_far = AtkError(
        f"--until {value!r} is too far away: a cooldown must end between now and the year 9999 "
        "(give a shorter duration, e.g. 30d, or a date)",
        exit_code=2,
    )
    if text and m and any(m.groups()):
        d, h, mi, s = (int(g or 0) for g in m.groups())
        try:
            return (now + timedelta(days=d, hours=h, minutes=mi, seconds=s)).replace(microsecond=0)
        except (OverflowError, ValueError):  # past year 9999, or more days than a timedelta holds
            raise too_far from None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        raise AtkError(
            f"--until takes a time with a timezone (e.g. 2026-11-30T09:00:00+09:00) or a duration (2h, 30m, 1d), got {value!r}",
            exit_code=2,
        ) from None
    if when.tzinfo is None:
        raise AtkError(f"--until {value!r} has no timezone; add one (e.g. +09:00 or Z)", exit_code=2)
    try:
        when.astimezone(UTC)  # 9999-12-31T23:00-05:00 is past the last time there is
    except OverflowError:
        raise too_far from None
    return when


def parse_answer_by(value: str, now: datetime) -> datetime:
    """`--answer-by`: a question's own deadline, an ISO 8601 time (no zone: UTC) or a duration
    from now (`30m`, `2h`, `1d`); the time is stored in UTC."""
    text = value.strip()
    m = _DURATION.match(text)
    if text and m and any(m.groups()):
        d, h, mi, s = (int(g or 0) for g in m.groups())
        try:
            return (now + timedelta(days=d, hours=h, minutes=mi, seconds=s)).astimezone(UTC).replace(microsecond=0)
        except (OverflowError, ValueError):
            raise AtkError(f"--answer-by {value!r} is too far away (give a shorter duration or a date)", exit_code=2) from None
    try:
        when = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
        when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    except (ValueError, OverflowError):
        raise AtkError(
            f"--answer-by takes a time (e.g. 2026-11-30T09:00:00+09:00) or a duration (30m, 2h, 1d), got {value!r}",
            exit_code=2,
        ) from None
    return when.replace(microsecond=0)


def _set(svc, op: str, filename: str, updates: dict, check) -> object:
    def change(tx: Transaction):
        item = svc.core.current(filename)
        if item.state in TERMINAL:
            raise StateConflict(
                f"state conflict: {filename} is {item.state}: terminal items are read-only ({terminal_hint(item)})"
            )
        check(item)
        new_fm = set_keys(item.fm_text or "", updates)
        return svc.core.save(tx, item, with_frontmatter(item.fm_block, item.fm_text or "", new_fm) + item.body)

    return svc.core.write(op, [filename], change)


def set_cooldown(svc, filename: str, until: datetime | None):
    """Set (or with None clear) `cooldown_until` on an active item."""
    if until is not None and until.tzinfo is None:
        return svc.core.refuse("set-cooldown", "cooldown_until needs a timezone", [filename], 2)

    def check(item) -> None:
        if until is None and item.cooldown_until is None:
            raise AtkError(f"nothing to change: {filename} has no cooldown", code="unchanged")

    return _set(svc, "set-cooldown", filename, {"cooldown_until": until}, check)


def set_urgency(svc, filename: str, level: str):
    """Set a UWI's `urgency` (blocking, next-review, informational)."""
    if level not in URGENCIES:
        return svc.core.refuse("set-urgency", f"urgency is one of {', '.join(URGENCIES)}, got {level!r}", [filename], 2)

    def check(item) -> None:
        if not item.is_question:
            raise AtkError(f"{filename} is a {item.kind.upper()}; urgency belongs to questions (UWIs, TBDs) only")

    return _set(svc, "set-urgency", filename, {"urgency": level}, check)
