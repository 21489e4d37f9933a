"""The reserved frontmatter keys checked and typed (SPEC §4; the table is `domain.fields`)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from atk_tui.domain.fields import FIELDS, Field
from atk_tui.domain.model import KINDS, URGENCIES, is_valid_filename

_KIND_VALUES = KINDS
_URGENCY_VALUES = URGENCIES
#: the valid kinds per queue (domain/queues.py; kept here as data so parsing imports nothing more)
_QUEUE_KINDS: dict[str, tuple[str, ...]] = {"wi": _KIND_VALUES, "mq": ("feedback", "tbd")}
_TZ_HINT = "e.g. 2026-11-30T09:00:00+09:00"


def _one_of(values: tuple[str, ...]) -> str:
    quoted = [repr(v) for v in values]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _time_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], _kinds: tuple[str, ...]) -> None:
    key = f.name
    if v is None:
        out[key] = None
        return
    if isinstance(v, datetime):
        dt = v
    elif isinstance(v, date):
        errors.append(f"{key}: needs a time and a timezone, {_TZ_HINT}")
        return
    elif isinstance(v, str):
        try:
            dt = datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
        except ValueError:
            errors.append(f"{key}: not an ISO 8601 date-time: {v!r}")
            return
    else:
        errors.append(f"{key}: must be a date-time, got {type(v).__name__}")
        return
    if f.shape == "zoned-time" and dt.tzinfo is None:
        errors.append(f"{key}: needs a timezone, {_TZ_HINT}")
        return
    if dt.year in (1, 9999) and dt.tzinfo is not None:
        try:
            dt.astimezone(UTC)  # 9999-12-31T23:00-05:00 is past the last time there is
        except OverflowError:
            errors.append(f"{key}: out of range (before year 1 or after 9999 in UTC): {v!r}")
            return
    out[key] = dt


def _text_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], _kinds: tuple[str, ...]) -> None:
    if v is None or type(v) is str:  # the usual, decided at once
        out[f.name] = v
        return
    if f.shape == "text" and isinstance(v, bool | int | float):
        out[f.name] = str(v)  # YAML reads `commit: 1234567` as an int and `note: yes` as a bool
    else:
        errors.append(f"{f.name}: must be text, got {type(v).__name__}")


def _kind_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], kinds: tuple[str, ...]) -> None:
    if isinstance(v, str) and v in kinds:
        out[f.name] = v
    else:
        errors.append(f"{f.name}: {v!r} is not one of {_one_of(kinds)}")


def _repo_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], _kinds: tuple[str, ...]) -> None:
    if not isinstance(v, str):
        errors.append(f"{f.name}: must be text, got {type(v).__name__}")
    elif not v.strip():
        errors.append(f"{f.name}: must not be empty")
    else:
        out[f.name] = v


def _filenames_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], _kinds: tuple[str, ...]) -> None:
    key = f.name
    if v is None:
        out[key] = None
    elif not isinstance(v, list):
        errors.append(f"{key}: must be a list, got {type(v).__name__}")
    else:
        wrong = [f"{key}.{i}: must be text, got {type(d).__name__}" for i, d in enumerate(v) if not isinstance(d, str)]
        bad = next((d for d in v if not is_valid_filename(d)), None) if not wrong else None
        if wrong:
            errors.extend(wrong)
        elif bad is not None:
            errors.append(f"{key}: bad filename {bad!r} (must be a plain item filename like 20261129-101500-x.md)")
        else:
            out[key] = v


def _urgency_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], _kinds: tuple[str, ...]) -> None:
    if v is None or (isinstance(v, str) and v in _URGENCY_VALUES):
        out[f.name] = v
    else:
        errors.append(f"{f.name}: {v!r} is not one of {_one_of(_URGENCY_VALUES)}")


#: how a value of each shape (`domain.fields`) is checked: into `out`, or an error
_CHECKS = {
    "kind": _kind_value, "repo": _repo_value, "text": _text_value, "string": _text_value,
    "filenames": _filenames_value, "time": _time_value, "zoned-time": _time_value, "urgency": _urgency_value,
}  # fmt: skip
_CHECKED = tuple((f, _CHECKS[f.shape]) for f in FIELDS)


def validate_frontmatter(data: dict[str, Any], kinds: tuple[str, ...] = _KIND_VALUES) -> tuple[dict[str, Any], list[str]]:
    """The reserved keys (`domain.fields`) of a loaded frontmatter mapping, typed (None when
    absent), and every validation error (in key order, one message per problem). Unknown keys
    are allowed and ignored here.

    Hand-written rather than a pydantic model: the rules are few, and this is on the path
    of every listing (importing pydantic alone takes longer than listing a warm queue).
    """
    errors: list[str] = []
    out: dict[str, Any] = {}
    for f, check in _CHECKED:
        if f.name in data:
            check(f, data[f.name], errors, out, kinds)
        elif f.required:
            errors.append(f"{f.name}: required")
        else:
            out[f.name] = None
    return out, errors
