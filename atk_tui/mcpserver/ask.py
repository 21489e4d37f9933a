"""`ask`'s question, from structured arguments to the body the question format prescribes (SPEC §7,
confirmation-and-uwi): the Markdown form, which `itemfile.questions` parses back into the same
questions, options and recommendations (`render` checks that it does before anything is written).

    # <title>

    ## 背景
    <context>

    ## 質問            (## 質問 1, ## 質問 2, … for several)
    <question>

    - A) <label> -- <description>
    - B) <label> -- <description>

    推奨: A) <why>
"""

from __future__ import annotations

import string
from typing import Any

from atk_tui.domain.errors import AtkError
from atk_tui.itemfile.questions import parse_questions

#: the arguments of one question (the tool's schema says the same to the client)
QUESTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["question", "options"],
    "properties": {
        "question": {"type": "string", "minLength": 1, "description": "the question, one decision the person can make from the item alone"},
        "options": {
            "type": "array",
            "minItems": 2,
            "maxItems": 26,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["label"],
                "properties": {
                    "letter": {"type": "string", "pattern": "^[A-Z]$", "description": "A, B, C … (default: in order)"},
                    "label": {"type": "string", "minLength": 1, "description": "the option, short"},
                    "description": {"type": "string", "description": "what choosing it implies"},
                },
            },
        },
        "recommendation": {
            "type": "string",
            "description": "the recommended option's letter, then why (`A` or `A) consistent everywhere`); absent: none",
        },
    },
}  # fmt: skip


def _one_line(text: str, what: str) -> str:
    text = " ".join(text.split())
    if not text:
        raise AtkError(f"ask: {what} is empty", exit_code=2, code="invalid")
    return text


def _block(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().replace("\r\n", "\n").split("\n"))


def render(title: str, context: str, questions: list[dict[str, Any]]) -> str:
    """The body of a question item; AtkError (exit 2) for arguments that would not read back as
    the same questions (`itemfile.questions.parse_questions`)."""
    if not questions:
        raise AtkError("ask: give at least one question", exit_code=2, code="invalid")
    parts = [f"# {_one_line(title, 'the title')}\n"]
    if context.strip():
        parts.append(f"## 背景\n{_block(context)}\n")
    want: list[tuple[list[tuple[str, str]], str | None]] = []
    for n, q in enumerate(questions, 1):
        head = "## 質問" if len(questions) == 1 else f"## 質問 {n}"
        lines = [head, _block(q.get("question") or "") or _one_line("", f"question {n}"), ""]
        options: list[tuple[str, str]] = []
        for k, opt in enumerate(q.get("options") or []):
            letter = (opt.get("letter") or string.ascii_uppercase[k]).strip().upper()
            label = _one_line(opt.get("label") or "", f"question {n}'s option {letter}")
            desc = " ".join((opt.get("description") or "").split())
            options.append((letter, label))
            lines.append(f"- {letter}) {label}" + (f" -- {desc}" if desc else ""))
        if len(options) < 2:
            raise AtkError(f"ask: question {n} needs at least two options", exit_code=2, code="invalid")
        if len({letter for letter, _ in options}) != len(options):
            raise AtkError(f"ask: question {n} gives one letter to two options", exit_code=2, code="invalid")
        rec_letter = None
        rec = " ".join((q.get("recommendation") or "").split())
        if rec:
            rec_letter = rec[0].upper()
            rest = rec[1:].lstrip(")）:：.- ").strip()
            by_letter = dict(options)
            if rec_letter not in by_letter or (len(rec) > 1 and rec[1].isalnum()):
                raise AtkError(
                    f"ask: question {n}'s recommendation must start with one of its letters "
                    f"({', '.join(by_letter)}), e.g. `A) why`; got {rec!r}",
                    exit_code=2, code="invalid",
                )  # fmt: skip
            lines += ["", f"推奨: {rec_letter}) {rest or by_letter[rec_letter]}"]
        parts.append("\n".join(lines) + "\n")
        want.append((options, rec_letter))
    body = "\n".join(parts)
    parsed = parse_questions(body)
    got = [([(o.letter, o.label) for o in q.options], q.recommendation) for q in parsed.questions]
    if parsed.form != "markdown" or got != want:
        raise AtkError(
            "ask: these questions do not read back as given (an option's label or the question's text looks like "
            "the question format's own markup); reword them",
            exit_code=2, code="invalid",
        )  # fmt: skip
    return body
