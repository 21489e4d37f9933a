"""The CLI commands a message may suggest, and the dashboard binding that does the same thing:
one table, so the dashboard says "press `P` to push later" where `atk` says "run `atk wi
commit`" (issue 15). Core messages are written for the command line; the dashboard passes every
toast through `for_dashboard` with its own key lookup (a remapped key is named as remapped)."""

from __future__ import annotations

import re
from collections.abc import Callable

#: (pattern in a core message, replacement naming `{binding id}` keys)
DASHBOARD_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"run `atk wi commit`"), "press `{push}`"),
    (
        re.compile(
            r"resolve it with `atk wi conflicts` \(list\), `atk wi conflicts show REF`, "
            r"`atk wi conflicts apply REF --mine\|--theirs`"
        ),
        "press `{conflicts}` to resolve it (keep yours or theirs)",
    ),
    (re.compile(r"`atk wi commit`"), "`{push}` (push)"),
    (re.compile(r"`atk wi conflicts`"), "`{conflicts}` (conflicts)"),
    (re.compile(r"`atk wi unhold [^`]*`"), "`{unhold}` (unhold)"),
    (re.compile(r"`atk wi return-to-inbox[^`]*`"), "`{move}` (move to inbox)"),
    (re.compile(r"`atk wi start-processing[^`]*`"), "`{move}` (move to processing)"),
    (re.compile(r"`atk wi set-dependencies`"), "`{dependencies}` (dependencies)"),
    (re.compile(r"`atk wi rm`"), "`{remove}` (remove)"),
)

_KEY = re.compile(r"\{(\w+)\}")


def binding_ids() -> set[str]:
    """Every binding id the table names (a test checks the dashboard has each)."""
    return {m.group(1) for _, repl in DASHBOARD_WORDS for m in _KEY.finditer(repl)}


def for_dashboard(message: str, key_for: Callable[[str], str]) -> str:
    """`message` with every CLI command the dashboard has a key for replaced by that key;
    `key_for(binding_id)` gives the key as the user sees it (`P`, `ctrl+p`)."""
    if "atk wi" not in message:
        return message
    for pattern, repl in DASHBOARD_WORDS:
        message = pattern.sub(lambda _m, r=repl: _KEY.sub(lambda k: key_for(k.group(1)), r), message)
    return message
