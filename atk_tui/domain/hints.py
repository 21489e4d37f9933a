"""The CLI commands a message may suggest, and the dashboard binding that does the same thing:
one table, so the dashboard says "press `P` to push later" where `atk` says "run `atk wi
commit`" (issue 15). Core messages are written for the command line; the dashboard passes every
toast through `for_dashboard` with its own key lookup (a remapped key is named as remapped)."""

from __future__ import annotations

import re
from collections.abc import Callable

#: (pattern in a core message, replacement naming `{binding id}` keys)
_Q = r"atk (?:wi|mq)"  # both queues' commands: the dashboard has the same keys for each

DASHBOARD_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"run `{_Q} commit`"), "press `{push}`"),
    (
        re.compile(
            rf"resolve it with `{_Q} conflicts` \(list\), `{_Q} conflicts show REF`, "
            rf"`{_Q} conflicts apply REF --mine\|--theirs`"
        ),
        "press `{conflicts}` to resolve it (keep yours or theirs)",
    ),
    (re.compile(rf"`{_Q} commit`"), "`{push}` (push)"),
    (re.compile(rf"`{_Q} conflicts`"), "`{conflicts}` (conflicts)"),
    (re.compile(rf"`{_Q} hold [^`]*`"), "`{hold}` (hold)"),
    (re.compile(rf"`{_Q} unhold [^`]*`"), "`{unhold}` (unhold)"),
    (re.compile(rf"`{_Q} return-to-inbox[^`]*`"), "`{move}` (move to inbox)"),
    (re.compile(rf"`{_Q} start-processing[^`]*`"), "`{move}` (move to processing)"),
    (re.compile(rf"`{_Q} set-dependencies[^`]*`"), "`{dependencies}` (dependencies)"),
    (re.compile(rf"`{_Q} rm[^`]*`"), "`{remove}` (remove)"),
    (re.compile(rf"`{_Q} edit [^`]*`"), "`{edit}` (edit)"),
    (re.compile(rf"`{_Q} answer [^`]*`"), "`{answer}` (answer)"),
)

_KEY = re.compile(r"\{(\w+)\}")


def binding_ids() -> set[str]:
    """Every binding id the table names (a test checks the dashboard has each)."""
    return {m.group(1) for _, repl in DASHBOARD_WORDS for m in _KEY.finditer(repl)}


def for_dashboard(message: str, key_for: Callable[[str], str]) -> str:
    """`message` with every CLI command the dashboard has a key for replaced by that key;
    `key_for(binding_id)` gives the key as the user sees it (`P`, `ctrl+p`)."""
    if "atk wi" not in message and "atk mq" not in message:
        return message
    for pattern, repl in DASHBOARD_WORDS:
        message = pattern.sub(lambda _m, r=repl: _KEY.sub(lambda k: key_for(k.group(1)), r), message)
    return message
