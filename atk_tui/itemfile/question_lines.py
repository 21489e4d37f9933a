"""The pieces UWI question parsing is built from (SPEC §7): the parsed-question model
(`Option`, `Question`, `ParsedQuestions`), the line patterns (options, recommendations,
numbered items, checkpoint fields) and the text helpers. `questions.py` assembles them into
the three forms; change a line pattern here, a form there."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: Longer lines are never options, recommendations or fields (keeps regex cost bounded).
MAX_LINE = 4000


@dataclass(frozen=True, slots=True)
class Option:
    letter: str  # upper-case ASCII letter
    label: str
    implications: str

    @property
    def display(self) -> str:
        """``A) Label``: the value `sections.format_answer` records for a chosen option."""
        return f"{self.letter}) {self.label}".rstrip()


@dataclass(frozen=True, slots=True)
class Question:
    number: int
    text: str
    options: tuple[Option, ...]
    recommendation: str | None  # the recommended option letter if one can be identified
    recommendation_text: str

    def option(self, letter: str) -> Option | None:
        letter = letter.strip().upper()
        return next((o for o in self.options if o.letter == letter), None)


@dataclass(frozen=True, slots=True)
class ParsedQuestions:
    form: str  # "markdown" | "checkpoint" | "free"
    questions: tuple[Question, ...]
    context: str
    urgency: str | None  # from a checkpoint's `Urgency:` line if valid


# --------------------------------------------------------------------------- line patterns

_LETTER = r"[A-Za-zＡ-Ｚａ-ｚ]"
_EMPH = r"(?:\*\*|__)?"
_OPTION_RE = re.compile(
    r"^[ \t]*(?:(?:[-*+•・]|[0-9]{1,3}[.)])[ \t]+)?(?:\[[ xX]?\][ \t]+)?"
    + _EMPH
    + r"(?:[(（]("
    + _LETTER
    + r")[)）]|("
    + _LETTER
    + r")"
    + _EMPH
    + r"[)）]|("
    + _LETTER
    + r")"
    + _EMPH
    + r"[.:：．](?=[ \t]))"
    + _EMPH
    + r"[ \t]*(\S.*)$"
)
_REC_RE = re.compile(
    r"^[ \t]*(?:[-*+•・>][ \t]+)?"
    + _EMPH
    + r"(推奨案?|おすすめ|お勧め|recommendations?|recommended|recommend|suggestion)"
    + r"[ \t]*(?:(?:\*\*|__)[ \t]*)?[:：][ \t]*(?:(?:\*\*|__)[ \t]*)?(.*)$",
    re.IGNORECASE,
)
_NUMBERED_RE = re.compile(
    r"^ {0,3}(?:[-*+][ \t]+)?" + _EMPH + r"(?:(?:質問|question|q)[ \t]*)?([0-9０-９]{1,4})[.)．）:：](?:[ \t]+|$)(.*)$",
    re.IGNORECASE,
)
_H3_RE = re.compile(r"^ {0,3}#{3,6}(?:[ \t]+|$)(.*)$")
_QUESTION_TITLE_RE = re.compile(
    r"^(?:質問|問い|questions?|q)(?:[ \t]*(?:(?:#|＃|no\.?)[ \t]*)?([0-9０-９]{1,4}))?"
    r"(?:[ \t]*(?:[:：.．)）]|[ \t]-|[ \t]?[–—])[ \t]*(.*))?$",
    re.IGNORECASE,
)
_FIELD_RE = re.compile(
    r"^[ \t]*"
    + _EMPH
    + r"(urgency|緊急度|context|背景|decisions? needed|必要な判断|判断事項|options|選択肢"
    + r"|recommendations?|推奨案?)[ \t]*(?:(?:\*\*|__)[ \t]*)?[:：][ \t]*(?:(?:\*\*|__)[ \t]*)?(.*)$",
    re.IGNORECASE,
)
_FIELD_KIND = {
    "urgency": "urgency",
    "緊急度": "urgency",
    "context": "context",
    "背景": "context",
    "decision needed": "decision",
    "必要な判断": "decision",
    "判断事項": "decision",
    "decisions needed": "decisions",
    "options": "options",
    "選択肢": "options",
    "recommendation": "recommendation",
    "recommendations": "recommendation",
    "推奨": "recommendation",
    "推奨案": "recommendation",
}
_MARKER = "AWAITING_USER_INPUT"
_CONTEXT_TITLES = frozenset({"背景", "経緯", "状況", "context", "background"})
_OPTIONS_HEADER = frozenset(
    {"options", "options:", "選択肢", "選択肢:", "選択肢：", "**options**", "**options:**", "**選択肢**"}
)

_SEPARATORS = (
    re.compile(r"[ \t]--+[ \t]"),
    re.compile(r"[—―]+"),
    re.compile(r"[ \t]–[ \t]"),
    re.compile(r"[ \t]-[ \t]"),
    re.compile(r"："),
    re.compile(r":[ \t]"),
)
_NO_REC_RE = re.compile(r"^(?:no recommendation|none\b|n/a\b|なし|特になし|推奨なし|推奨はありません)", re.IGNORECASE)
_REC_LEAD_RE = re.compile(
    r"^((?:option|choice|選択肢|案)[ \t]*)?([(\[（])?([A-Za-z])(?![A-Za-z0-9])(.?)", re.IGNORECASE
)
_REC_BARE_RE = re.compile(r"(?<![A-Za-z0-9'’])([A-Z])(?![A-Za-z0-9'’])(.?)")
_REC_ANY_RE = re.compile(
    r"(?:(?<![A-Za-z0-9])\(?([A-Za-z])\))"
    r"|(?:(?:option|choice|選択肢)[ \t]*([A-Za-z])(?![A-Za-z0-9]))"
    r"|(?:(?<![A-Za-z0-9])([A-Za-z])案)",
    re.IGNORECASE,
)


def _strip_emphasis(text: str) -> str:
    text = text.strip()
    for mark in ("**", "__"):
        if text.startswith(mark) and text.endswith(mark) and len(text) >= 4:
            text = text[2:-2].strip()
        elif text.startswith(mark) and mark not in text[2:]:
            text = text[2:].strip()
        elif text.endswith(mark) and mark not in text[:-2]:
            text = text[:-2].strip()
    return text


def _letter(raw: str) -> str:
    return unicodedata.normalize("NFKC", raw).upper()


def _match_option(line: str) -> Option | None:
    if len(line) > MAX_LINE:
        return None
    m = _OPTION_RE.match(line)
    if not m:
        return None
    letter = _letter(m.group(1) or m.group(2) or m.group(3))
    rest = m.group(4).strip()
    label, implications = rest, ""
    for sep in _SEPARATORS:
        found = sep.search(rest)
        if found:
            label, implications = rest[: found.start()], rest[found.end() :]
            break
    label = _strip_emphasis(label)
    if not label:
        return None
    return Option(letter, label, implications.strip())


def _match_rec(line: str) -> str | None:
    if len(line) > MAX_LINE:
        return None
    m = _REC_RE.match(line)
    return _strip_emphasis(m.group(2)) if m else None


def _match_numbered(line: str) -> tuple[int | None, str] | None:
    """A line that starts a numbered question: (number, text)."""
    if len(line) > MAX_LINE:
        return None
    m = _NUMBERED_RE.match(line)
    if m:
        return int(m.group(1)), _strip_emphasis(m.group(2))
    m = _H3_RE.match(line)
    if m:
        title = m.group(1).strip()
        bare = title.rstrip("#")
        if bare != title and (not bare or bare[-1] in " \t"):
            title = bare.strip()
        q = _match_question_title(title)
        if q is not None:
            return q
        m2 = re.match(r"^([0-9０-９]{1,4})[.)．）:：]?(?:[ \t]+|$)(.*)$", title)
        if m2:
            return int(m2.group(1)), m2.group(2).strip()
    return None


def _match_question_title(title: str) -> tuple[int | None, str] | None:
    """A question heading's (number or None, text in the heading)."""
    if len(title) > MAX_LINE:
        return None
    m = _QUESTION_TITLE_RE.match(title.strip())
    if not m:
        return None
    number = int(m.group(1)) if m.group(1) else None
    return number, (m.group(2) or "").strip()


_NUMBERED_FIRST = frozenset("0123456789０１２３４５６７８９-*+_#Qq質`~")


def _is_fence(line: str) -> bool:
    head = line[:3] if line[:1] in "`~" else line.lstrip()[:3]
    return head == "```" or head == "~~~"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


# --------------------------------------------------------------------------- text helpers


def _clean_text(lines: list[str]) -> str:
    """Lines right-stripped, common indentation removed, blank runs collapsed, edges trimmed."""
    out: list[str] = []
    for line in lines:
        line = line.rstrip()
        if not line:
            if out and out[-1] != "":
                out.append("")
            continue
        out.append(line)
    while out and out[-1] == "":
        out.pop()
    widths = [_indent(line) for line in out if line]
    cut = min(widths) if widths else 0
    if cut:
        out = [line[cut:] if line else line for line in out]
    return "\n".join(out)


def _rec_letter(text: str, options: tuple[Option, ...]) -> str | None:
    letters = {o.letter for o in options}
    if not letters or not text.strip():
        return None
    t = unicodedata.normalize("NFKC", text[:1000]).strip().lstrip("*_ \t")
    if _NO_REC_RE.match(t):
        return None
    m = _REC_LEAD_RE.match(t)
    if m:
        letter, follow = m.group(3).upper(), m.group(4)
        # "A strict parser..." / "I think..." start with a word, not an option letter.
        ambiguous = not m.group(1) and not m.group(2) and follow.isspace() and letter in "AI"
        if letter in letters and not ambiguous:
            return letter
    for m in _REC_ANY_RE.finditer(t):
        letter = (m.group(1) or m.group(2) or m.group(3)).upper()
        if letter in letters:
            return letter
    for m in _REC_BARE_RE.finditer(t):
        letter, follow = m.group(1), m.group(2)
        if letter in letters and letter != "I" and not (letter == "A" and follow.isspace()):
            return letter
    folded = t.casefold()
    best: Option | None = None
    for o in options:
        label = o.label.casefold()
        if label and folded.startswith(label) and (best is None or len(label) > len(best.label)):
            best = o
    return best.letter if best else None
