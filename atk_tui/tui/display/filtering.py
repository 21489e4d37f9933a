"""The panes' filter (`/`): what it says is wrong with what was typed, and which items its
free text keeps. The structured tokens (`repo:` `kind:` `urgency:` `is:`) are
`domain.filters`'."""

from __future__ import annotations

from atk_tui.domain.filters import IS_VALUES, KINDS, Query, matches
from atk_tui.domain.model import URGENCIES, Item
from atk_tui.domain.readiness import Judgement
from atk_tui.tui.display.present import contains, fuzzy_match


def filter_hint(text: str, query: Query) -> str:
    """What is wrong with the filter `text` (parsed: `query`), if anything: a token the filter
    does not know, with the nearest one it does (`is:bloked`: did you mean is:blocked?); ""
    when it is all known."""
    errors = query.errors
    if not errors:
        return ""
    import difflib  # (off the way to the first frame)

    valid = {"is": IS_VALUES, "kind": KINDS, "urgency": tuple(URGENCIES)}
    for word in text.split():
        key, colon, value = word.partition(":")
        choices = valid.get(key.casefold()) if colon else None
        if choices and value and value.casefold() not in choices:
            close = difflib.get_close_matches(value.casefold(), choices, n=1)
            if close:
                return f"{key}:{value} is not a filter: did you mean {key.casefold()}:{close[0]}?"
    return errors[0]


def keeps(query: Query, item: Item, judgement: Judgement | None, body: str | None) -> bool:
    """Whether the filter keeps `item`: its tokens, then its free text in the title, the
    filename, the target repo (fuzzy) or the body (when read: `body`)."""
    if query.structured and not matches(query, item, judgement):
        return False
    needle = query.text
    if not needle:
        return True
    if fuzzy_match(needle, f"{item.title} {item.filename} {item.target_repo}"):
        return True
    return body is not None and contains(body, needle)
