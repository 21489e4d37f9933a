"""Parse a UWI body into questions (SPEC §7). Pure, no I/O, never raises.

Three forms, tried in this order:

1. **checkpoint**: every ``AWAITING_USER_INPUT`` block of ``user-input-protocol.md``
   (anywhere, also inside a code fence): the marker line, ``---``, fields, ``---``. The block
   ends at the next ``---`` line, a closing code fence, another marker or the end of the
   body. Used when at least one of its questions has options.
2. **markdown**: ``## 質問`` / ``## Question`` sections (optionally numbered, ``## 質問 2``),
   with ``- A) Label -- implications`` options and a ``推奨:`` / ``Recommendation:`` line.
   A body with options but no question heading is read as one question region (the title
   is the question when there is no other prose). Used when some question has options.
3. **free**: one free-text question: the question sections' text, or the whole body
   without its title line and without the user-only sections.

Within a question region, numbered items (``1. Test framework?``) or H3 headings
(``### 質問 1``) each followed by their own options split it into several questions; in
a checkpoint's ``Decisions needed:`` a single numbered item is enough.

Question numbers come from the headings or numbered items when every question has one and
they are all different; otherwise questions are numbered 1..n in order.

Cost is linear in the body size: every line is looked at a bounded number of times and the
line regexes only run on lines up to `MAX_LINE` characters (longer lines are plain text).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from atk_tui.domain.model import URGENCIES
from atk_tui.itemfile import sections
from atk_tui.itemfile.question_lines import (  # the model and line patterns; re-exported names are in __all__
    _CONTEXT_TITLES,
    _FIELD_KIND,
    _FIELD_RE,
    _MARKER,
    _NUMBERED_FIRST,
    _OPTIONS_HEADER,
    MAX_LINE,
    Option,
    ParsedQuestions,
    Question,
    _clean_text,
    _indent,
    _is_fence,
    _match_numbered,
    _match_option,
    _match_question_title,
    _match_rec,
    _rec_letter,
)

__all__ = [
    "MAX_LINE",
    "OTHER",
    "OTHER_LINE",
    "AnswerProgress",
    "Option",
    "ParsedQuestions",
    "Question",
    "answer_progress",
    "checkpoint_spans",
    "parse_questions",
]

# --------------------------------------------------------------------------- question regions


@dataclass(slots=True)
class _Draft:
    number: int | None
    text: str
    options: tuple[Option, ...]
    rec_text: str


def _parse_block(lines: list[str], first: str = "") -> _Draft:
    """One question from its lines: options, recommendation, the rest is the text."""
    options: list[tuple[str, str, list[str]]] = []  # implications kept as parts: no O(n²) joins
    text: list[str] = [first] if first.strip() else []
    rec: list[str] = []
    in_fence = False
    last = ""  # "opt" | "rec" | ""
    last_indent = 0
    for line in lines:
        if not line or line.isspace():
            text.append("")
            last = ""
            continue
        if len(line) > MAX_LINE:
            text.append(line)
            last = ""
            continue
        if _is_fence(line):
            in_fence = not in_fence
            text.append(line)
            last = ""
            continue
        if in_fence:
            text.append(line)
            continue
        stripped = line.strip()
        if not stripped:
            text.append("")
            last = ""
            continue
        value = _match_rec(line)
        if value is not None:
            rec.append(value)
            last = "rec"
            continue
        option = _match_option(line)
        if option is not None:
            options.append((option.letter, option.label, [option.implications] if option.implications else []))
            last, last_indent = "opt", _indent(line)
            continue
        if last == "opt" and _indent(line) > last_indent:
            options[-1][2].append(stripped)
            continue
        if last == "rec":
            rec.append(stripped)
            continue
        if stripped.casefold() in _OPTIONS_HEADER:
            continue
        text.append(line)
        last = ""
    opts = tuple(Option(a, b, " ".join(c).strip()) for a, b, c in options)
    return _Draft(None, _clean_text(text), opts, "\n".join(r for r in rec if r).strip())


def _split_numbered(lines: list[str], *, lenient: bool) -> tuple[list[str], list[_Draft]] | None:
    """Split a region at numbered items / H3 question headings.

    Returns (preamble lines, drafts), or None when the region is one question. Strict mode
    (markdown) needs two or more items that each have options; lenient mode (a checkpoint's
    `Decisions needed:`) needs one item.
    """
    starts: list[tuple[int, int | None, str]] = []
    in_fence = False
    for i, line in enumerate(lines):
        first = line.lstrip()[:1]
        if first not in _NUMBERED_FIRST:  # cheap filter before the regexes
            continue
        if _is_fence(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        found = _match_numbered(line)
        if found is not None:
            starts.append((i, found[0], found[1]))
    if not starts or (not lenient and len(starts) < 2):
        return None
    drafts: list[_Draft] = []
    for k, (i, number, first) in enumerate(starts):
        stop = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        draft = _parse_block(lines[i + 1 : stop], first)
        draft.number = number
        drafts.append(draft)
    if not lenient and not all(d.options for d in drafts):
        return None
    return lines[: starts[0][0]], drafts


def _region_drafts(
    lines: list[str], first: str = "", *, number: int | None = None, lenient: bool = False
) -> tuple[list[str], list[_Draft]]:
    split = _split_numbered(lines, lenient=lenient)
    if split is not None:
        pre, drafts = split
        if first.strip():
            pre = [first, *pre]
        return pre, drafts
    draft = _parse_block(lines, first)
    draft.number = number
    return [], [draft]


def _finish(drafts: list[_Draft]) -> tuple[Question, ...]:
    numbers = [d.number for d in drafts]
    use_own = all(n is not None for n in numbers) and len(set(numbers)) == len(numbers)
    out = []
    for k, d in enumerate(drafts):
        n = d.number if use_own and d.number is not None else k + 1
        out.append(Question(n, d.text, d.options, _rec_letter(d.rec_text, d.options), d.rec_text))
    return tuple(out)


# --------------------------------------------------------------------------- checkpoint form


def _is_marker(line: str) -> bool:
    if _MARKER not in line or len(line) > 200:
        return False
    core = line.strip().strip("*_`#>:- \t").strip()
    return core.upper() == _MARKER


def _is_rule(line: str) -> bool:
    s = line.strip()
    return len(s) >= 3 and s.count("-") == len(s)


def _checkpoint_blocks(lines: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = []
    i, n = 0, len(lines)
    while i < n:
        if not _is_marker(lines[i]):
            i += 1
            continue
        j = i + 1
        while j < n and not lines[j].strip():
            j += 1
        if j < n and _is_rule(lines[j]):
            j += 1
        else:
            j = i + 1
        k = j
        while k < n and not (_is_rule(lines[k]) or _is_fence(lines[k]) or _is_marker(lines[k])):
            k += 1
        blocks.append(lines[j:k])
        i = k if k > i else i + 1
    return blocks


def _parse_urgency(value: str) -> str | None:
    v = value.strip().strip("*_`").strip().lower()
    if "|" in v:
        return None  # the template's "blocking | next-review | informational"
    m = re.match(r"[a-z-]+", v)
    return m.group(0) if m and m.group(0) in URGENCIES else None


def _parse_checkpoint(block: list[str]) -> tuple[str, str | None, list[str], list[_Draft]]:
    """(context, urgency, extra preamble lines, drafts) of one block."""
    context: list[str] = []
    extra: list[str] = []
    urgency: str | None = None
    regions: list[tuple[str, bool, list[str]]] = []  # (first text, plural, lines)
    current: list[str] | None = None  # where non-field lines go
    for line in block:
        m = _FIELD_RE.match(line) if len(line) <= MAX_LINE else None
        kind = _FIELD_KIND.get(" ".join(m.group(1).lower().split())) if m else None
        if kind is None or m is None:
            (current if current is not None else extra).append(line)
            continue
        value = m.group(2)
        if kind == "urgency":
            if urgency is None:
                urgency = _parse_urgency(value)
            current = None
        elif kind == "context":
            context.append(value)
            current = context
        elif kind in ("decision", "decisions"):
            regions.append((value, kind == "decisions", []))
            current = regions[-1][2]
        elif kind == "options":
            if regions:
                current = regions[-1][2]
                if value.strip():
                    current.append(value)
            else:
                extra.append(line)
        else:  # a recommendation (or a context line inside a question): the question's own
            (current if current is not None else extra).append(line)
    drafts: list[_Draft] = []
    pre_all: list[str] = []
    for first, plural, lines in regions:
        if plural:
            pre, ds = _region_drafts(lines, first, lenient=True)
        else:
            pre, ds = _region_drafts(lines, first)
        pre_all.extend(pre)
        drafts.extend(ds)
    return _clean_text(context), urgency, extra + pre_all, drafts


def _checkpoint_form(lines: list[str]) -> ParsedQuestions | None:
    blocks = _checkpoint_blocks(lines)
    if not blocks:
        return None
    contexts: list[str] = []
    urgency: str | None = None
    drafts: list[_Draft] = []
    for block in blocks:
        ctx, urg, extra, ds = _parse_checkpoint(block)
        extra_text = _clean_text(extra)
        for part in (ctx, extra_text):
            if part:
                contexts.append(part)
        urgency = urgency or urg
        drafts.extend(ds)
    if not any(d.options for d in drafts):
        return None
    return ParsedQuestions("checkpoint", _finish(drafts), "\n\n".join(contexts), urgency)


# --------------------------------------------------------------------------- markdown form


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").split("\n")


def _markdown_form(secs: list[sections.Section]) -> ParsedQuestions | tuple[str, str]:
    """The markdown form, or (question text, context) for the free form."""
    context_parts = [s.text for s in secs if s.level == 2 and _is_context(s.title)]
    question_secs = [(s, q) for s in secs if s.level == 2 and (q := _match_question_title(s.title)) is not None]
    fallback_ctx = "\n\n".join(t for t in (_clean_text(_lines(s.text)) for s in secs if s.level in (0, 1)) if t)
    context = "\n\n".join(t for t in (_clean_text(_lines(c)) for c in context_parts) if t)
    title_sec = next((s for s in secs if s.level == 1), None)
    title = title_sec.title if title_sec else ""
    drafts: list[_Draft] = []
    pre_all: list[str] = []
    if question_secs:
        for s, (number, first) in question_secs:
            pre, ds = _region_drafts(_lines(s.text), first, number=number)
            pre_all.extend(pre)
            drafts.extend(ds)
        if not context:
            context = fallback_ctx
    else:
        # No question heading: the prose outside title, context and user-only sections.
        region: list[str] = []
        for s in secs:
            if s is title_sec:
                region.extend(_lines(s.text))
            elif s.level == 0 or not (
                _is_context(s.title) or sections.is_answer_heading(s.title) or sections.is_comment_heading(s.title)
            ):
                if s.heading:
                    region.append(s.heading)
                region.extend(_lines(s.text))
        pre_all, drafts = _region_drafts(region)
    if len(drafts) == 1 and not drafts[0].text:
        drafts[0].text = title  # options only: the title is the question
    if any(d.options for d in drafts):
        pre_text = _clean_text(pre_all)
        if pre_text:
            context = f"{context}\n\n{pre_text}" if context else pre_text
        return ParsedQuestions("markdown", _finish(drafts), context, None)
    if question_secs:
        texts = [_clean_text(_lines(s.text)) for s, _ in question_secs]
        heads = [q[1] for _, q in question_secs]
        joined = "\n\n".join("\n\n".join(p for p in (h, t) if p) for h, t in zip(heads, texts, strict=True) if h or t)
        return joined, context
    return "", ""


def _is_context(title: str) -> bool:
    return sections.heading_key(title).rstrip(":：") in _CONTEXT_TITLES


def _free_text(body: str, secs: list[sections.Section]) -> str:
    """The whole body without its title line and without the user-only sections."""
    parts: list[str] = []
    title_seen = False
    comment = secs[-1] if secs and secs[-1].level == 2 and sections.is_comment_heading(secs[-1].title) else None
    for s in secs:
        if (s.level == 2 and sections.is_answer_heading(s.title)) or s is comment:
            continue
        if s.level == 1 and not title_seen:
            title_seen = True
            parts.append(s.text)
            continue
        if s.heading:
            parts.append(s.heading + "\n")
        parts.append(s.text)
    return _clean_text(_lines("".join(parts)))


# --------------------------------------------------------------------------- entry point


def _parse(body: str) -> ParsedQuestions:
    body = body.replace("\r\n", "\n")
    secs = sections.split_sections(body)
    # The answer section is never read as a question; blank it for the checkpoint scan.
    lines: list[str] = []
    for s in secs:
        if s.level == 2 and sections.is_answer_heading(s.title):
            continue
        if s.heading:
            lines.append(s.heading)
        lines.extend(_lines(s.text)[:-1] if s.text.endswith("\n") else _lines(s.text))
    checkpoint = _checkpoint_form(lines)
    if checkpoint is not None:
        return checkpoint
    markdown = _markdown_form(secs)
    if isinstance(markdown, ParsedQuestions):
        return markdown
    text, context = markdown
    if not text:
        text, context = _free_text(body, secs), ""
    return ParsedQuestions("free", (Question(1, text, (), None, ""),), context, None)


def parse_questions(body: str) -> ParsedQuestions:
    """The questions of a UWI body. Never raises: on any internal error the whole body is
    returned as one free-text question."""
    try:
        return _parse(body if isinstance(body, str) else str(body))
    except Exception:
        text = body.strip() if isinstance(body, str) else ""
        return ParsedQuestions("free", (Question(1, text, (), None, ""),), "", None)


# --------------------------------------------------------------------------- answer progress

#: The choice value for "other / see notes" (SPEC §11): `- N: other — see notes`.
OTHER = "other"
OTHER_LINE = "other — see notes"
_CHOICE_LETTER_RE = re.compile(r"^([A-Za-z])(?:[)）.:：]|$)")


@dataclass(frozen=True, slots=True)
class AnswerProgress:
    """How far a UWI's answer goes (SPEC §11). `answered` maps a question number to the
    chosen letter or "other"; `missing` lists the questions without either."""

    answered: dict[int, str]
    missing: tuple[int, ...]
    complete: bool


#: what is left of an "other" line once its words say nothing of their own: ``other — see
#: notes`` names the notes, it does not answer anything by itself
_OTHER_FILLER_RE = re.compile(r"^other\W*(?:see\W+notes?\W*)?$", re.I)


#: letters that show as nothing (Hangul fillers, the blank Braille pattern)
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _visible(text: str) -> str:
    """`text` without the characters that show nothing (format controls such as zero-width
    spaces, joiners, the BOM, the soft hyphen; blank fillers), edges stripped."""
    return "".join(c for c in text if c not in _BLANK_LETTERS and unicodedata.category(c) != "Cf").strip()


def says_something(text: str) -> bool:
    """Whether `text` holds a visible letter, digit or symbol: not only spaces, punctuation
    or characters that show nothing (an answer's words, issue 25)."""
    return any(unicodedata.category(c)[0] in "LNS" for c in _visible(text))


def _choice_value(value: str, question: Question, has_text: bool) -> str | None:
    """The choice a ``- N: value`` line records: a letter, "other", or None when the line
    answers nothing (SPEC §11): it is empty or shows nothing, names a letter that is none of
    the question's options, or says "other" (see notes) while there are no notes."""
    value = _visible(value)
    if not says_something(value):
        return None
    if value.casefold().startswith(OTHER):
        return OTHER if has_text or not _OTHER_FILLER_RE.match(value) else None
    m = _CHOICE_LETTER_RE.match(value)
    if m and question.option(m.group(1)) is not None:
        return m.group(1).upper()
    if m and question.options:
        return None  # a choice the question does not offer: nothing was chosen
    return OTHER  # something else recorded for it: the user's own words


_TYPED_CHOICE_RE = re.compile(r"^\s*(?:-\s*)?Q?(\d+)\s*[:=]\s*(\S.*?)\s*$", re.I)


def typed_choices(text: str, parsed: ParsedQuestions) -> tuple[dict[int, str], str]:
    """Choices typed as lines of free text (``Q1: A``, ``2=other``, ``- 3: B``), for a form
    that shows only a text box (too many questions to list): each line naming a question of
    `parsed` and one of its option letters (or "other") becomes that question's choice; every
    other line stays free text. Returns (choices, the remaining text)."""
    by_number = {q.number: q for q in parsed.questions}
    choices: dict[int, str] = {}
    rest: list[str] = []
    for line in text.split("\n"):
        m = _TYPED_CHOICE_RE.match(line)
        q = by_number.get(int(m.group(1))) if m else None
        value = m.group(2) if m else ""
        if q is not None and value.lower() == OTHER:
            choices[q.number] = OTHER
        elif q is not None and q.options and q.option(value) is not None:
            choices[q.number] = value.strip().upper()
        else:
            rest.append(line)
    return choices, "\n".join(rest).strip("\n")


def answer_progress(body: str, parsed: ParsedQuestions | None = None) -> AnswerProgress:
    """Which questions of `body` its ``## 回答`` section answers.

    A ``- N: X) Label`` line answers question N with X, ``- N: other — see notes`` (or any
    other value) with "other". Free text answers, as "other", a single question, and every
    question without options that has no line; with several questions that have options,
    text alone does not say which it answers: each needs a line (a choice or N=other).
    Complete when no question is missing.

    A line answers nothing when it is empty (``- 2:``) or shows nothing (spaces, zero-width
    or other invisible characters, punctuation alone), names a letter none of the question's
    options has, or says "other" without any words of its own while there are no notes
    (``--choose 2=other`` with no text): "other" needs text, and notes that show nothing are
    none. Such a line counts as no line at all."""
    parsed = parsed or parse_questions(body)
    numbers = tuple(q.number for q in parsed.questions)
    text = sections.answer_text(body)
    if text is None or not text.strip():
        return AnswerProgress({}, numbers, False)
    choices, free = sections.split_answer(text)
    has_text = says_something(free)
    answered: dict[int, str] = {}
    for q in parsed.questions:
        raw = choices.get(q.number)
        if raw is not None and raw.strip():
            value = _choice_value(raw, q, has_text)
            if value is not None:
                answered[q.number] = value
        elif has_text and (not q.options or len(parsed.questions) == 1):
            answered[q.number] = OTHER
    missing = tuple(n for n in numbers if n not in answered)
    return AnswerProgress(answered, missing, not missing)


def checkpoint_urgency(body: str) -> str | None:
    """The first valid `Urgency:` of the body's AWAITING_USER_INPUT blocks (SPEC §11: the
    item's urgency when the frontmatter has none), options or not."""
    if _MARKER not in body:
        return None
    try:
        lines = _lines(body.replace("\r\n", "\n"))
        for block in _checkpoint_blocks(lines):
            urgency = _parse_checkpoint(block)[1]
            if urgency:
                return urgency
    except Exception:
        return None
    return None


def checkpoint_spans(body: str) -> list[tuple[int, int]]:
    """Where each ``AWAITING_USER_INPUT`` block of `body` stands, as (first line, end line)
    indexes into ``body.split("\\n")`` (the marker line through the closing ``---`` line), for
    a reader that shows the block as written (the detail pane renders it literally). Blocks
    inside a code fence are left out: they are shown literally already."""
    lines = body.split("\n")
    spans: list[tuple[int, int]] = []
    fenced = False
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if _is_fence(line):
            fenced = not fenced
            i += 1
            continue
        if fenced or not _is_marker(line):
            i += 1
            continue
        j = i + 1
        while j < n and not lines[j].strip():
            j += 1
        j = j + 1 if j < n and _is_rule(lines[j]) else i + 1
        k = j
        while k < n and not (_is_rule(lines[k]) or _is_fence(lines[k]) or _is_marker(lines[k])):
            k += 1
        end = k + 1 if k < n and _is_rule(lines[k]) else k
        spans.append((i, end))
        i = max(end, i + 1)
    return spans
