"""What `source` takes (wi-standards「由来と承認」): an agent names the skill it files an item
from, without the plugin's qualifier (`add-awi`, `plan-and-add-awi`, `process-wi`,
`session-review`, …), or `agent` when no skill applies. `--source=agent-toolkit:add-awi` is
the same skill qualified by its plugin: it is stored as `add-awi`, and the write says so.
Anything else (spaces, capitals, paths) is no source the agent skills define: refused, with the
accepted forms listed."""

from __future__ import annotations

import re

from atk_tui.domain.errors import AtkError

#: the values the agent skills name (wi-standards, process-feedbacks); any other bare skill name is
#: accepted as well (the skills' list ends in 「など」)
KNOWN_SOURCES = (
    "add-awi", "plan-and-add-awi", "process-wi", "session-review",
    "add-feedback", "plan-and-add-feedback", "process-feedbacks", "feedbacks-planner", "agent",
)  # fmt: skip
_SKILL = re.compile(r"[a-z0-9][a-z0-9_-]{0,79}")
_QUALIFIED = re.compile(r"([a-z0-9][a-z0-9_.-]{0,79}):([a-z0-9][a-z0-9_-]{0,79})")


def accepted() -> str:
    return (
        "a bare skill name (" + ", ".join(f"`{s}`" for s in KNOWN_SOURCES[:-1]) + ", or another skill's name in "
        "lower-case kebab-case), `agent` for an item no skill files, or `<plugin>:<skill>` (stored as `<skill>`)"
    )


def normalise_source(value: str | None, flag: str = "--source") -> tuple[str | None, str | None]:
    """(the value to store, a note saying what was changed, or None). Raises AtkError (exit
    2) for a value that is no source pattern."""
    if value is None:
        return None, None
    text = value.strip()
    if _SKILL.fullmatch(text):
        return text, None
    m = _QUALIFIED.fullmatch(text)
    if m:
        return m.group(2), (
            f"{flag} {value!r} stored as {m.group(2)!r}: the source is the skill's name without its plugin's "
            "qualifier (wi-standards)"
        )
    raise AtkError(f"{flag} {value!r} is not a source: it takes {accepted()}", exit_code=2, code="invalid")
