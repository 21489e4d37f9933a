"""The one table of the frontmatter keys atk owns (SPEC §4).

Every part that knows these keys asks this table: the validator (`itemfile.items`), the reserved
keys a file keeps in place, the order a new item's frontmatter is written in, the cache's
record (`cache.caches`), the `--json` record (`cli`), the JSON Schema (`itemfile.schema`), the
detail pane's rows, what an `edit` body may repeat and which command changes a key instead
(`service.writing.writes`). A new key is one row here (plus the `Item` attribute of the same name, with
its default, in `domain.model`) and its test.

A key's `shape` says what its value is and how it is checked:

| shape | value |
| --- | --- |
| kind | one of the queue's kinds (`awi`/`uwi`, `feedback`/`tbd`) |
| repo | non-empty text |
| text | text; a YAML number or yes/no is read as text (`commit: 1234567`) |
| string | text only |
| filenames | a list of item filenames |
| time | an ISO 8601 date-time (a time without a zone is taken as UTC) |
| zoned-time | an ISO 8601 date-time with its timezone |
| urgency | `blocking`, `next-review` or `informational` |
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    shape: str
    description: str
    required: bool = False
    #: how a stored item's value changes (`{q}`: the queue's command, wi or mq); an `edit`
    #: body's own frontmatter may only repeat the stored value
    changed_by: str = ""
    #: written by atk itself (add, adopt/reject): never taken from a body's own frontmatter
    by_atk: bool = False
    #: a question's key: `--json` says null for a request
    question_only: bool = False
    #: its row in the dashboard's detail pane (None: shown elsewhere, or not at all)
    label: str | None = None


FIELDS: tuple[Field, ...] = (
    Field("kind", "kind", "awi: a request for an agent; uwi: a question for the user (mq: feedback, tbd)",
          required=True, changed_by="the kind is fixed once an item is added"),
    Field("source", "text", "where the item comes from (agents must set it: a skill's name, or agent); absent: a human",
          changed_by="a stored source is never rewritten (wi-standards)"),
    Field("target_repo", "repo", "the repository it is about", required=True,
          changed_by="target_repo is fixed once an item is added"),
    Field("target_commit", "text", "the commit of target_repo it is about",
          changed_by="target_commit is written when the item is added", label="target"),
    Field("plan_file", "string", "a request's plan: `$(atk config get private_notes)/plans/YYYY/MM/<name>.md`",
          changed_by="`atk {q} edit F --plan-file P` (or `convert-to-plan`) sets it", label="plan"),
    Field("depends_on", "filenames", "item filenames this item waits for",
          changed_by="`atk {q} set-dependencies F --add G` / `--remove G` changes it"),
    Field("cooldown_until", "zoned-time", "not ready before this time",
          changed_by="`atk {q} set-cooldown F --until T` / `--clear` changes it", label="cooldown"),
    Field("created", "time", "when the item was added (UTC)", changed_by="atk writes it when the item is added",
          by_atk=True),
    Field("urgency", "urgency", "a question's urgency; blocking when absent",
          changed_by="`atk {q} set-urgency F LEVEL` changes it", question_only=True),
    Field("answer_by", "time", "a question's own deadline (absent: its urgency's answer-by time); never decides anything",
          changed_by="`atk {q} add --answer-by T` writes it when the question is added", question_only=True,
          label="answer by"),
    Field("note", "text", "written by adopt/reject --note", changed_by="adopt/reject --note writes it", by_atk=True,
          label="note"),
    Field("commit", "text", "the commit an adopt produced (40 hex)", changed_by="adopt --commit writes it", by_atk=True,
          label="commit"),
)  # fmt: skip

#: the reserved keys, in the order a new item's frontmatter is written
NAMES: tuple[str, ...] = tuple(f.name for f in FIELDS)
BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}
#: the keys whose value is a date-time
TIMES: tuple[str, ...] = tuple(f.name for f in FIELDS if f.shape in ("time", "zoned-time"))


#: the body after the frontmatter, as the agent skills write it (Japanese headings, glossed;
#: docs/glossary.md): said in the schema and in `atk wi add --help`
BODY_CONVENTIONS = (
    "The body: a '# title' line, then for a request (awi, feedback) the bullets 反映内容 (what to change), "
    "反映先 (where), 理由 (why), 適用範囲 (scope; required when source is set), メリット (benefits), "
    "デメリット (drawbacks), 完成条件 (done when): a missing one is a warning; for a question (uwi, tbd) "
    "'## 背景' (context), '## 質問' (question; '## 質問 1', '## 質問 2' for several) with options '- A) …', and "
    "'推奨: A) …' (recommendation); English headings (## Context, ## Question, Recommendation:) work too. "
    "'## 回答' (answer) and '## ユーザーコメント' (user comment) are the person's sections: an agent never writes them."
)
