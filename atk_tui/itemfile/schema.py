"""The data shapes, declared once with pydantic (SPEC §4, §13): an item's frontmatter keys, the
config file, and the `--json` record `atk wi list/show` print. `atk wi schema` prints their
JSON Schema for agents.

Not on the hot paths: importing pydantic costs more than listing a warm queue, so parsing an
item uses the hand-written `items.validate_frontmatter`, and a property test
(tests/itemfile/test_schema.py) proves the two accept exactly the same mappings. Import this
module lazily (only `atk wi schema` and the tests do).
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictStr, create_model

from atk_tui.domain.fields import BODY_CONVENTIONS, FIELDS
from atk_tui.domain.model import FILENAME_RE, is_valid_filename
from atk_tui.host.settings import config_model

KindName = Literal["awi", "uwi"]
UrgencyName = Literal["blocking", "next-review", "informational"]
StateName = Literal["inbox", "processing", "hold", "adopted", "rejected"]
StatusName = Literal[
    "ready", "blocked", "cooldown", "waiting", "answered", "hold", "editing", "planning", "terminal", "defective"
]
#: the feedback queue's (`atk mq`, SPEC §12): its kinds and the states wi does not have
MqKindName = Literal["feedback", "tbd"]
MqStateName = Literal["editing", "planning"]


def _text(v: Any) -> Any:
    """YAML reads `commit: 1234567` as an int and `note: yes` as a bool: such keys mean text."""
    return str(v) if isinstance(v, bool | int | float) else v


def _time(v: Any) -> Any:
    """A date-time: a YAML timestamp or an ISO 8601 string (`Z` allowed); a bare date is not one."""
    if v is None or isinstance(v, datetime):
        return v
    if isinstance(v, date):
        raise ValueError("needs a time and a timezone")
    if isinstance(v, str):
        return datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
    raise ValueError(f"must be a date-time, got {type(v).__name__}")


def _aware(v: datetime | None) -> datetime | None:
    if v is not None and v.tzinfo is None:
        raise ValueError("needs a timezone, e.g. 2026-11-30T09:00:00+09:00")
    return v


def _not_blank(v: str) -> str:
    if not v.strip():
        raise ValueError("must not be empty")
    return v


def _filenames(v: list[str] | None) -> list[str] | None:
    if v is not None:
        bad = next((d for d in v if not is_valid_filename(d)), None)
        if bad is not None:
            raise ValueError(f"bad filename {bad!r}")
    return v


Text = Annotated[StrictStr | None, BeforeValidator(_text)]
Time = Annotated[datetime | None, BeforeValidator(_time)]
Filename = Annotated[StrictStr, Field(pattern=FILENAME_RE.pattern.replace(r"\A", "^").replace(r"\Z", "$"))]


#: a frontmatter value's type by its shape (`domain.fields`)
_SHAPES: dict[str, Any] = {
    "kind": KindName,
    "repo": Annotated[StrictStr, AfterValidator(_not_blank)],
    "text": Text,
    "string": StrictStr | None,
    "filenames": Annotated[list[Filename] | None, AfterValidator(_filenames)],
    "time": Time,
    "zoned-time": Annotated[Time, AfterValidator(_aware)],
    "urgency": UrgencyName | None,
}


def _frontmatter_model() -> type[BaseModel]:
    fields: dict[str, Any] = {
        f.name: (_SHAPES[f.shape], Field(... if f.required else None, description=f.description)) for f in FIELDS
    }
    return create_model(
        "Frontmatter",
        __config__=ConfigDict(extra="allow", title="atk item frontmatter"),
        __doc__="The keys atk owns in an item's YAML frontmatter (SPEC §4, the table in `domain.fields`). "
        "Other keys are kept verbatim (`extra = allow`) and never rewritten. "
        + BODY_CONVENTIONS,
        **fields,
    )


Frontmatter = _frontmatter_model()


#: the config file: the model `host.settings` builds from its declarations (every key once)
Config = config_model()


class Blocks(BaseModel):
    direct: int
    transitive: int


class HeldBy(BaseModel):
    """Who holds a held item (SPEC §15): the commit that moved it into its held state."""

    actor: Literal["user", "agent"] | None = Field(description="that commit's Atk-Actor (None: made outside atk)")
    agent_id: str | None = Field(description="that commit's Atk-Agent (an agent's ATK_AGENT_ID), if any")
    since: str | None = Field(description="when (UTC, ISO 8601)")
    commit: str
    state: str


#: a frontmatter key's type in the `--json` record (date-times as ISO 8601 text)
_RECORD_SHAPES: dict[str, Any] = {
    "kind": KindName | MqKindName, "repo": str, "text": str | None, "string": str | None,
    "filenames": list[str], "time": str | None, "zoned-time": str | None, "urgency": UrgencyName | None,
}  # fmt: skip


def _record_model() -> type[BaseModel]:
    """One line of `atk wi list --json` / `atk mq list --json` (and `show --json`, which adds
    `body` and `plan_file_at`): the keys atk derives, then every frontmatter key of the table,
    in the order `cli.item_json` writes them."""
    fields: dict[str, Any] = {
        "filename": (str, ...),
        "state": (StateName | MqStateName, ...),
        "type": (Literal["normal", "plan"] | None, ...),
        "title": (str, ...),
        "status": (StatusName | None, ...),
        "ready": (bool, ...),
        "reasons": (list[str], ...),
        "answered": (bool | None, ...),
        "answer_partial": (bool | None, ...),
        **{f.name: (_RECORD_SHAPES[f.shape], Field(..., description=f.description)) for f in FIELDS},
        "defects": (list[str], ...),
        "warnings": (list[str], ...),
        "blocks": (Blocks | None, None),
        "held_by": (HeldBy | None, None),
        "body": (str | None, None),
        "plan_file_at": (
            Literal["store", "planning root"] | None,
            Field(None, description="show --json: which place holds the plan (before `atk plans commit`: the planning root)"),
        ),
    }
    return create_model("Record", __config__=ConfigDict(title="atk --json record"), __doc__=_record_model.__doc__, **fields)


Record = _record_model()


MODELS: dict[str, type[BaseModel]] = {"item": Frontmatter, "config": Config, "record": Record}


def json_schema(which: str = "item") -> str:
    """The JSON Schema of `item` (frontmatter), `config` or `record`, as indented JSON."""
    return json.dumps(MODELS[which].model_json_schema(), indent=2, ensure_ascii=False)
