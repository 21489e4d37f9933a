"""What a question says, as one digest (SPEC §16): a notification's one-tap link and the
answer page are bound to it, so an answer is refused when the question changed since the
person read it.

`question_digest(item)` covers what the person decides on: the item's queue, filename and
title, and every parsed question's number, text, options (letter, label, implications) and
recommended letter. A reworded question, a new or changed option, or another recommendation
gives another digest; the context, the frontmatter, or an answer written meanwhile do not (an
answer written meanwhile is refused by the write itself: "already answered").
"""

from __future__ import annotations

import hashlib
import json

from atk_tui.domain.model import Item


def question_digest(item: Item) -> str:
    """SHA-256 (hex) of what `item`'s questions say (see the module's docstring)."""
    from atk_tui.itemfile.questions import parse_questions

    parsed = parse_questions(item.body)
    record = {
        "queue": item.queue,
        "filename": item.filename,
        "title": " ".join(item.title.split()),
        "questions": [
            {
                "n": q.number,
                "text": " ".join(q.text.split()),
                "options": [[o.letter, " ".join(o.label.split()), " ".join(o.implications.split())] for o in q.options],
                "recommended": q.recommendation or "",
            }
            for q in parsed.questions
        ],
    }
    data = json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


__all__ = ["question_digest"]
