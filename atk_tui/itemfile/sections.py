"""H1/H2 sections of an item body and the user-only sections (SPEC §7, §8). Pure, no I/O.

How the body is read (the same rules for every function here, so they agree):

* Lines end at ``\\n``; a ``\\r`` before it belongs to the line ending (``\\r\\n``). A lone
  ``\\r`` in a body is ordinary text (in user text to be written it is a line break).
* A heading is an ATX line: up to three spaces, one to six ``#``, then a space/tab or the end
  of the line. Its title is the rest with surrounding blanks and a closing ``#`` sequence
  removed. Setext headings (``Title`` over ``---``) are not recognised.
* Lines inside fenced code blocks (```` ``` ```` or ``~~~``, CommonMark rules; an unclosed
  fence runs to the end of the body) are never headings.
* A section runs from its H1/H2 heading line to the next H1/H2 heading line or the end of the
  body; H3 and deeper headings are part of the section they appear in.
* Heading titles are compared by `headings.heading_key` (SPEC §11: NFKC, format characters,
  emphasis markers and surrounding punctuation dropped, case-folded): ``## 回答`` /
  ``## Answer`` (answer), ``## ユーザーコメント`` / ``## User comment`` (comment). Guards use the
  broader heading scan of `headings` (setext, quotes, lists, HTML); the sections read here are
  the ATX H1/H2 ones. The answer section is the *last* H2 with an answer heading; the comment section
  counts only as the strict trailing H2 of the body (no H1/H2 after it).

Writers (`set_answer`, `append_comment`, `keep_user_sections`) only add or replace the
user-only section they own and leave every other byte as it was, except that trailing blank
lines at the end of the body are dropped where a section is appended, and an unclosed code
fence at the end is closed first (otherwise the appended heading would be inside it).
Free text put into a section is kept verbatim except that leading/trailing blank lines are
dropped, ``\\r\\n`` and a lone ``\\r`` become the body's line ending, a line that would be an
H1/H2 heading gets a backslash before its ``#`` (``\\## x`` renders as the text ``## x`` and
cannot end the section early), and an unclosed fence in the text is closed.

Line endings: a body whose line endings are all ``\\r\\n`` gets ``\\r\\n`` in what is added;
any other body gets ``\\n``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

from atk_tui.domain.model import ANSWER_HEADINGS, COMMENT_HEADINGS
from atk_tui.itemfile import headings

_heading_key = lru_cache(maxsize=4096)(headings.heading_key)

__all__ = [
    "Section",
    "answer_text",
    "append_comment",
    "comment_text",
    "format_answer",
    "heading_key",
    "is_answer_heading",
    "is_answered",
    "is_comment_heading",
    "keep_user_sections",
    "set_answer",
    "split_answer",
    "split_sections",
    "user_only_headings",
]

ANSWER_HEADING = f"## {ANSWER_HEADINGS[0]}"
COMMENT_HEADING = f"## {COMMENT_HEADINGS[0]}"


def heading_key(title: str) -> str:
    """Normalised heading title for comparisons: `headings.heading_key` (SPEC §11), the one
    definition every reader and guard uses."""
    return _heading_key(title)


_ANSWER_KEYS = frozenset(heading_key(h) for h in ANSWER_HEADINGS)
_COMMENT_KEYS = frozenset(heading_key(h) for h in COMMENT_HEADINGS)
_USER_KEYS = _ANSWER_KEYS | _COMMENT_KEYS


def is_answer_heading(title: str) -> bool:
    return heading_key(title) in _ANSWER_KEYS


def is_comment_heading(title: str) -> bool:
    return heading_key(title) in _COMMENT_KEYS


# --------------------------------------------------------------------------- scanning


def _atx(text: str) -> tuple[int, str] | None:
    """(level, title) when `text` (one line, no line ending) is an ATX heading.

    Written with string operations rather than one regex so that a very long line costs
    linear time.
    """
    n = len(text)
    i = 0
    while i < n and i < 4 and text[i] == " ":
        i += 1
    if i > 3:
        return None
    j = i
    while j < n and text[j] == "#":
        j += 1
    level = j - i
    if level < 1 or level > 6:
        return None
    if j < n and text[j] not in " \t":
        return None
    title = text[j:].strip(" \t")
    bare = title.rstrip("#")
    if bare != title and (not bare or bare[-1] in " \t"):
        title = bare.rstrip(" \t")
    return level, title


def _fence_open(text: str) -> tuple[str, int] | None:
    """(char, length) when `text` opens a fenced code block."""
    stripped = text.lstrip(" ")
    if len(text) - len(stripped) > 3 or len(stripped) < 3:
        return None
    char = stripped[0]
    if char not in "`~" or not stripped.startswith(char * 3):
        return None
    run = len(stripped) - len(stripped.lstrip(char))
    if char == "`" and "`" in stripped[run:]:
        return None  # CommonMark: a backtick fence's info string has no backtick
    return char, run


def _fence_closes(text: str, char: str, length: int) -> bool:
    stripped = text.lstrip(" ")
    if len(text) - len(stripped) > 3:
        return False
    body = stripped.rstrip(" \t")
    return len(body) >= length and body.count(char) == len(body)


class _Scan:
    """Per-line view of a body: text, line ending, and the H1/H2 headings outside fences.

    Headings are kept sparse (`heads`, `levels`, `titles` by line index) and line offsets are
    computed on demand, so a body of many short lines costs little more than `str.split`.
    """

    __slots__ = ("_acc", "body", "eol", "eols", "heads", "levels", "open_fence", "texts", "titles")

    def __init__(self, body: str) -> None:
        self.body = body
        parts = body.split("\n")
        ends_with_newline = parts[-1] == ""
        if ends_with_newline:
            parts.pop()
        n = len(parts)
        self._acc: list[int] | None = None
        self.texts: list[str] = parts
        self.eols: list[str] = ["\n"] * n
        if n and not ends_with_newline:
            self.eols[-1] = ""
        if "\r" in body:
            for i, text in enumerate(parts):
                if text.endswith("\r") and self.eols[i]:
                    parts[i] = text[:-1]
                    self.eols[i] = "\r\n"
        self.heads: list[int] = []  # indexes of H1/H2 lines, ascending
        self.levels: dict[int, int] = {}  # line index -> heading level (any level, outside fences)
        self.titles: dict[int, str] = {}
        fence: tuple[str, int] | None = None
        for i, text in enumerate(parts):
            # Cheap filter first: only lines starting (after up to 3 spaces) with #, ` or ~ matter.
            first = text[:1]
            if first == " ":
                first = text.lstrip(" ")[:1]
            if first != "#" and first != "`" and first != "~":
                continue
            if fence is not None:
                if _fence_closes(text, *fence):
                    fence = None
                continue
            opened = _fence_open(text)
            if opened is not None:
                fence = opened
                continue
            head = _atx(text)
            if head is not None:
                self.levels[i], self.titles[i] = head
                if head[0] <= 2:
                    self.heads.append(i)
        self.open_fence = fence
        # CRLF only when every line ending is CRLF: a mixed body gets LF, which keeps repeated
        # writes stable (a lone "\r" before an added "\n" would otherwise flip the style).
        endings = set(self.eols)
        endings.discard("")
        self.eol = "\r\n" if endings == {"\r\n"} else "\n"

    def __len__(self) -> int:
        return len(self.texts)

    def level(self, i: int) -> int:
        return self.levels.get(i, 0)

    def start(self, i: int) -> int:
        """Offset of line `i` in the body (i == len(self) gives len(body))."""
        if i >= len(self.texts):
            return len(self.body)
        if self._acc is None:
            lengths = (len(t) + len(e) for t, e in zip(self.texts, self.eols, strict=True))
            self._acc = list(accumulate(lengths, initial=0))
        return self._acc[i]

    def line_end(self, i: int) -> int:
        """Offset just after line `i` (its line ending included)."""
        return self.start(i + 1)

    def last_nonblank(self, start: int, stop: int) -> int:
        """Index of the last non-blank line in [start, stop), or start - 1 when none."""
        texts = self.texts
        for j in range(stop - 1, start - 1, -1):
            if texts[j] and not texts[j].isspace():
                return j
        return start - 1

    def content(self, start: int, stop: int) -> str:
        """Lines [start, stop) joined with ``\\n``, without leading/trailing blank lines."""
        texts = self.texts
        while start < stop and not texts[start].strip():
            start += 1
        while stop > start and not texts[stop - 1].strip():
            stop -= 1
        return "\n".join(texts[start:stop])

    def _is_h2(self, i: int, keys: frozenset[str]) -> bool:
        return self.levels[i] == 2 and heading_key(self.titles[i]) in keys

    def find_answer(self) -> tuple[int, int] | None:
        """(heading index, end index) of the last answer H2 section."""
        for k in range(len(self.heads) - 1, -1, -1):
            i = self.heads[k]
            if self._is_h2(i, _ANSWER_KEYS):
                return i, self.heads[k + 1] if k + 1 < len(self.heads) else len(self.texts)
        return None

    def find_trailing_comment(self) -> tuple[int, int] | None:
        """(heading index, end index) of the comment section when it is the trailing H2."""
        if self.heads and self._is_h2(self.heads[-1], _COMMENT_KEYS):
            return self.heads[-1], len(self.texts)
        return None

    def has_heading(self, keys: frozenset[str]) -> bool:
        return any(self._is_h2(i, keys) for i in self.heads)


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class Section:
    """One H1/H2 section of a body, or (level 0) the text before the first H1/H2."""

    level: int  # 0 for the preamble, else 1 or 2
    title: str  # heading text without `#`s and surrounding blanks ("" for the preamble)
    heading: str  # the heading line as written, without its line ending ("" for the preamble)
    start: int  # offset of the heading line (of the preamble: 0)
    body_start: int  # offset just after the heading line
    end: int  # offset of the next H1/H2 line, or len(body)
    text: str  # body[body_start:end], exactly


def split_sections(body: str) -> list[Section]:
    """The body cut at its H1/H2 headings. Concatenating ``heading line + text`` of every
    section (with its line ending) gives the body back. The preamble is included only when
    it is not empty."""
    scan = _Scan(body)
    out: list[Section] = []
    heads = scan.heads
    first = scan.start(heads[0]) if heads else len(body)
    if first > 0:
        out.append(Section(0, "", "", 0, 0, first, body[:first]))
    for k, i in enumerate(heads):
        end = scan.start(heads[k + 1]) if k + 1 < len(heads) else len(body)
        body_start = scan.line_end(i)
        out.append(
            Section(scan.levels[i], scan.titles[i], scan.texts[i], scan.start(i), body_start, end, body[body_start:end])
        )
    return out


def _content_of(body: str, find: Callable[[_Scan], tuple[int, int] | None]) -> str | None:
    """The content of the section `find` locates (heading, surrounding blank lines left out)."""
    scan = _Scan(body)
    found = find(scan)
    if found is None:
        return None
    h, end = found
    return scan.content(h + 1, end)


def answer_text(body: str) -> str | None:
    """Content of the answer section without its heading and surrounding blank lines
    (lines joined with ``\\n``); None when the body has no answer section."""
    return _content_of(body, _Scan.find_answer)


def is_answered(body: str) -> bool:
    """True when the answer section exists and has any non-blank content (SPEC §7)."""
    text = answer_text(body)
    return bool(text and text.strip())


def comment_text(body: str) -> str | None:
    """Content of the user comment section (the strict trailing H2), or None."""
    return _content_of(body, _Scan.find_trailing_comment)


def user_only_headings(body: str) -> list[str]:
    """User-only headings found in `body` by the one definition (`headings`, SPEC §11: any
    level, ATX or setext, in quotes and lists, HTML), as written (stripped), first occurrence
    order, without duplicates. Any position counts: this is what an agent's write is refused
    for."""
    out: list[str] = []
    for h in headings.user_only_headings(body):
        if h.raw not in out:
            out.append(h.raw)
    return out


# --------------------------------------------------------------------------- answer text

_CHOICE_RE = re.compile(r"^[-*+][ \t]+([0-9]{1,9})[ \t]*[:：][ \t]*(.*)$")
_ESCAPED_CHOICE_RE = re.compile(r"^\\([-*+][ \t]+[0-9]{1,9}[ \t]*[:：])")
_ESCAPED_HEADING_RE = re.compile(r"^( {0,3})\\(#{1,2}(?:[ \t]|$))")


def _text_lines(text: str) -> list[str]:
    """User text prepared for a section: see the module docstring."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # CommonMark: a lone CR is a line break too
    scan = _Scan(text)
    lines: list[str] = []
    heads = set(scan.heads)
    for i, line in enumerate(scan.texts):
        if i in heads:
            k = line.index("#")
            line = line[:k] + "\\" + line[k:]
        lines.append(line)
    while lines and not lines[-1].strip():
        lines.pop()
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    lines = lines[start:]
    if scan.open_fence is not None and lines:
        char, length = scan.open_fence
        lines.append(char * length)
    return lines


def format_answer(choices: dict[int, str], text: str) -> str:
    """The answer section of SPEC §7: heading, a blank line, ``- N: choice`` lines sorted by
    question number (omitted when there are none), a blank line and the free text (omitted
    when blank). Always ends with exactly one ``\\n``.

    A choice value is put on one line (line breaks become spaces). When there are no choices
    and the text's first line looks like a choice line, it is escaped with a backslash so
    that `split_answer` does not read it as one.
    """
    out = [ANSWER_HEADING, ""]
    for number in sorted(choices):
        value = " ".join(str(choices[number]).replace("\r", " ").replace("\n", " ").split())
        out.append(f"- {number}: {value}".rstrip())
    lines = _text_lines(text or "")
    if lines:
        if choices:
            out.append("")
        elif _CHOICE_RE.match(lines[0]):
            lines[0] = "\\" + lines[0]
        out.extend(lines)
    if out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def split_answer(answer: str) -> tuple[dict[int, str], str]:
    """Inverse of `format_answer` on `answer_text`'s result: (choices, free text).

    Choices are the ``- N: value`` lines at the start; the rest (blank edges removed,
    escapes added by `format_answer` undone) is the free text. The one ambiguity: a text line
    the user wrote as ``\\## x`` (or, first line without choices, ``\\- 1: x``) comes back
    without its backslash; the rendered Markdown is the same either way.
    """
    lines = answer.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    choices: dict[int, str] = {}
    while i < len(lines):
        m = _CHOICE_RE.match(lines[i])
        if not m:
            break
        choices[int(m.group(1))] = m.group(2).strip()
        i += 1
    rest = lines[i:]
    while rest and not rest[0].strip():
        rest.pop(0)
    while rest and not rest[-1].strip():
        rest.pop()
    if rest and not choices:
        rest[0] = _ESCAPED_CHOICE_RE.sub(r"\1", rest[0])
    rest = [_ESCAPED_HEADING_RE.sub(r"\1\2", line) for line in rest]
    return choices, "\n".join(rest)


# --------------------------------------------------------------------------- writing


def _trimmed_prefix(scan: _Scan, stop: int) -> str:
    """Lines [0, stop) without trailing blank lines, ending with a line ending (or "")."""
    last = scan.last_nonblank(0, stop)
    if last < 0:
        return ""
    prefix = scan.body[: scan.line_end(last)]
    if not scan.eols[last]:
        prefix += scan.eol
    return prefix


def _append_section(scan: _Scan, section: str) -> str:
    """`section` (ending with a line ending) appended after one blank line."""
    prefix = _trimmed_prefix(scan, len(scan))
    if scan.open_fence is not None and prefix:
        char, length = scan.open_fence
        prefix += char * length + scan.eol
    return prefix + scan.eol + section if prefix else section


def _place_answer(scan: _Scan, section: str) -> str:
    """Replace the answer section with `section`, or add it as the last H2 (before a trailing
    comment section, which has to stay the trailing H2)."""
    body = scan.body
    found = scan.find_answer()
    if found is not None:
        h, end = found
        last = scan.last_nonblank(h, end)
        return body[: scan.start(h)] + section + body[scan.line_end(last) :]
    comment = scan.find_trailing_comment()
    if comment is None:
        return _append_section(scan, section)
    c = comment[0]
    head = body[: scan.start(c)]  # ends with a line ending: a heading line follows
    if c > 0 and scan.texts[c - 1].strip():
        head += scan.eol  # one blank line before the answer
    return head + section + scan.eol + body[scan.start(c) :]


def _section_checked(section: str, keys: frozenset[str], what: str) -> list[str]:
    """Lines of a section to write: must start with a heading in `keys` and hold no other
    H1/H2; blank edges dropped, an unclosed fence closed."""
    scan = _Scan(section.replace("\r\n", "\n").replace("\r", "\n"))
    lines = list(scan.texts)
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start >= len(lines) or scan.level(start) != 2 or heading_key(scan.titles[start]) not in keys:
        raise ValueError(f"not {what} section: it must start with its H2 heading")
    if any(i > start for i in scan.heads):
        raise ValueError(f"{what} section holds another H1/H2 heading")
    lines = lines[start:]
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()
    if scan.open_fence is not None:
        char, length = scan.open_fence
        lines.append(char * length)
    return lines


def set_answer(body: str, section: str) -> str:
    """`body` with its answer section replaced by `section` (as made by `format_answer`), or
    with `section` added as the last H2 when there is none.

    Replacing keeps every byte outside the old section's heading..last non-blank line (so
    the blank lines after it stay). Appending drops the body's trailing blank lines, adds one
    blank line, then the section; when the body ends with a trailing comment section the
    answer goes just before it instead, so that both user-only sections stay recognisable.
    The section gets the body's line ending. Raises ValueError for a `section` that does not
    start with an answer H2 or contains another H1/H2.
    """
    lines = _section_checked(section, _ANSWER_KEYS, "an answer")
    scan = _Scan(body)
    return _place_answer(scan, scan.eol.join(lines) + scan.eol)


def append_comment(body: str, text: str) -> str:
    """`body` with `text` added to the trailing ``## ユーザーコメント`` section, which is
    created (after one blank line) when missing. A new comment is separated from existing
    content by one blank line; the body's trailing blank lines are dropped. Raises
    ValueError when `text` is blank."""
    lines = _text_lines(text or "")
    if not lines:
        raise ValueError("empty comment")
    scan = _Scan(body)
    eol = scan.eol
    chunk = eol.join(lines) + eol
    found = scan.find_trailing_comment()
    if found is None:
        return _append_section(scan, COMMENT_HEADING + eol + eol + chunk)
    prefix = _trimmed_prefix(scan, len(scan))
    if scan.open_fence is not None:
        char, length = scan.open_fence
        prefix += char * length + eol
    return prefix + eol + chunk


def user_section_kinds(body: str) -> set[str]:
    """The kinds ("answer", "comment") of user-only section `body` holds by the one
    definition (`headings`), headings in an indented code block aside: what `edit` treats as
    "the new body contains that section itself"."""
    starts = headings.line_starts(body)
    return {
        h.kind for h in headings.user_only_headings(body) if h.kind and not headings.indented(body, starts, h.first)
    }


def keep_user_sections(old_body: str, new_body: str, *, is_uwi: bool = True) -> str:
    """`new_body` with the stored user-only sections of `old_body` carried over (SPEC §8, §11).

    Every user-only section of `old_body` (the one definition in `headings`: any level,
    anywhere in the body, not only the trailing H2) is carried when `new_body` has no
    heading of its kind (answer / comment): answers are placed like `set_answer` does (last
    H2, before a trailing comment section) when they start with an ATX H2, else appended;
    comments are appended as the trailing section. They are copied as stored (heading to last
    non-blank line, in the old body's line ending); an answer whose unclosed fence ran to
    the end gets it closed. A section inside another carried one is carried with it, once.
    New-body bytes are kept except trailing blank lines where something is appended.
    Applying it twice changes nothing more. (`is_uwi` is kept for callers; a stored answer
    is kept whatever the kind.)"""
    del is_uwi
    spans = headings.user_only_spans(old_body, skip_indented=True)
    if not spans:
        return new_body  # fast path: nothing to carry
    new_kinds = user_section_kinds(new_body)
    old = _Scan(old_body)
    starts = headings.line_starts(old_body)
    blocks: list[list] = []  # [kind, first, end]: carried spans, adjacent ones merged
    for kind, first, end in spans:
        if kind in new_kinds:
            continue
        if blocks and first < blocks[-1][2]:
            continue  # inside a section already carried
        if blocks and not old_body[starts[blocks[-1][2]] : starts[first]].strip():
            blocks[-1][2] = end  # right after the previous one: they stay together, in order
            blocks[-1][3] = kind
            continue
        blocks.append([kind, first, end, kind])
    carried: list[tuple[str, str]] = []
    for kind, first, end, last_kind in blocks:
        raw = old_body[starts[first] : starts[end]]
        if not raw.endswith(("\n", "\r")):
            raw += old.eol
        inner = _Scan(raw)
        if last_kind == headings.ANSWER and inner.open_fence is not None:  # a comment goes last: no need
            char, length = inner.open_fence
            raw += char * length + inner.eol
        carried.append((kind, raw))

    def h2(raw: str) -> bool:
        head = _Scan(raw)
        return bool(head.heads) and head.heads[0] == 0 and head.levels[0] == 2

    def holds(raw: str, keys: frozenset[str]) -> bool:  # an H2 of that kind, as this module reads
        return _Scan(raw).has_heading(keys)

    # other spellings first (appended), then what holds an H2 answer (last H2, before a
    # trailing comment), then H2 comments (the trailing section): nothing carried lands inside
    # a carried answer, and what a reader sees as the answer stays the same
    answers = [raw for _, raw in carried if holds(raw, _ANSWER_KEYS)]
    comments = [raw for _, raw in carried if raw not in answers and holds(raw, _COMMENT_KEYS)]
    result = new_body
    for _kind, raw in carried:
        if raw not in answers and raw not in comments:
            result = _append_section(_Scan(result), raw)
    if answers:  # together, in their order: placing one must not replace another
        joined = "".join(raw if k == 0 else _Scan(raw).eol + raw for k, raw in enumerate(answers))
        result = _place_answer(_Scan(result), joined) if h2(answers[0]) else _append_section(_Scan(result), joined)
    for raw in comments:
        result = _append_section(_Scan(result), raw)
    return result
