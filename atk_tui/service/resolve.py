"""What a filename typed on the command line names (SPEC §13): the one resolver every
`atk` command uses.

`F` is accepted as the full filename, without `.md`, or (without `.md`) as a unique prefix of
the filename or of its slug (the part after `YYYYMMDD-HHMMSS-`). A name ending in `.md` names
that file only: `rm a.md` never removes `abc.md`. Several matches refuse with the
candidates listed (exit 1); no match is left to the command, which says "no item named F".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from atk_tui.domain.model import is_valid_filename
from atk_tui.domain.queues import QUEUES
from atk_tui.store import AtkError, GitStore

_STAMP = re.compile(r"\A\d{8}-\d{6}-")


class AmbiguousName(AtkError):
    exit_code = 1


def slug_of(filename: str) -> str:
    """`20261129-051200-login-rule.md` -> `login-rule`."""
    stem = filename[:-3] if filename.endswith(".md") else filename
    return _STAMP.sub("", stem)


def _names(store: GitStore, queues: Sequence[str] | None) -> set[str]:
    chosen = [q.name for q in QUEUES] if queues is None else list(queues)
    names: set[str] = set()
    for q in chosen:
        names.update(store.scan_all(None, q).where)
    return names


def _whole(store: GitStore, given: str, queues: Sequence[str] | None) -> str | None:
    """`given` as a whole filename (with or without `.md`) when that file is there: found by
    a look in each state folder, not a listing of every folder (`atk wi show F` in a store
    of 60,000 items)."""
    whole = given if given.endswith(".md") else f"{given}.md"
    return whole if is_valid_filename(whole) and store.find(whole, queues) else None


def resolve_name(store: GitStore, given: str, queues: Sequence[str] | None = ("wi",)) -> str:
    """The stored item filename `given` names (see the module doc), among the items of
    `queues` (None: both; dependencies may name an item of either queue)."""
    return _whole(store, given, queues) or resolve_among(given, _names(store, queues))


def resolve_among(given: str, names: set[str]) -> str:
    """The one of `names` that `given` names; the rule behind `resolve_name`, for any
    folder of `.md` files (items, notices)."""
    if not given or "/" in given or "\0" in given or given in (".", ".."):
        return given  # the command refuses it with the filename rule
    if given in names:
        return given
    if given.endswith(".md"):
        return given  # a whole filename names that file only, never a longer one
    if f"{given}.md" in names:
        return f"{given}.md"
    found = sorted(n for n in names if n[:-3].startswith(given) or slug_of(n).startswith(given))
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        shown = ", ".join(found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")
        raise AmbiguousName(f"{given!r} names {len(found)} items: {shown}; give more of the filename")
    if is_valid_filename(f"{given}.md"):
        return f"{given}.md"  # "no item named F.md" reads better than a filename-rule error
    return given


def resolve_names(store: GitStore, given: list[str], queues: Sequence[str] | None = ("wi",)) -> list[str]:
    found = [_whole(store, g, queues) for g in given]
    if all(found):  # every one a whole filename: no listing of every folder
        return [f for f in found if f]
    names = _names(store, queues)
    return [f or resolve_among(g, names) for g, f in zip(given, found, strict=True)]
