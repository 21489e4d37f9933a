"""The one definition of a user-only heading (SPEC §11). Pure, no I/O, no Markdown library.

A *user-only heading* is a Markdown heading of any level whose text, normalised by
`heading_key`, is ``回答`` / ``answer`` (the UWI answer) or ``ユーザーコメント`` /
``user comment`` (the AWI comment). "A heading" here is deliberately broad, so that an agent
cannot write something a renderer shows as one:

* ATX (``## x``) and setext (``x`` over ``---`` / ``===``) headings,
* also inside block quotes and list items (``> ## x``, ``- ## x``, ``1. x`` over ``---``),
  and indented ones,
* HTML ``<h1>`` … ``<h6>`` elements,

but never text inside a fenced code block (a fence opened at the top level; a fence inside
a container does not hide anything, which errs on the side of finding a heading).

`heading_key` is what every reader compares titles with (`sections` uses it for the
structural ATX sections it reads), and `user_only_headings` / `user_only_sections` are what
every guard uses. `tests/itemfile/test_headings.py` checks the scanner against markdown-it-py's
heading tokens with hypothesis: every heading markdown-it sees with a user-only title is
found here (this module may find more; guards then refuse more, never less).
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass

__all__ = [
    "ANSWER",
    "COMMENT",
    "Heading",
    "heading_key",
    "scan_headings",
    "user_only_headings",
    "user_only_kind",
    "user_only_sections",
    "user_only_spans",
]

ANSWER = "answer"
COMMENT = "comment"
_USER_KEYS = {"回答": ANSWER, "answer": ANSWER, "ユーザーコメント": COMMENT, "user comment": COMMENT}

_ESCAPE_RE = re.compile(r"\\([!-/:-@\[-`{-~])")
_LINK_RE = re.compile(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])?")
_ATTR = r"""(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)"""
#: CommonMark's raw HTML: comment, processing instruction, CDATA, declaration, open/close tag
_TAG_RE = re.compile(
    r"<!--.*?-->|<\?.*?\?>|<!\[CDATA\[.*?\]\]>|<![A-Za-z][^>]*>"
    rf"|<[A-Za-z][A-Za-z0-9-]*{_ATTR}*\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>",
    re.S,
)
_MARKERS_RE = re.compile(r"[*_`~]+")


def _edge(ch: str) -> bool:
    """Punctuation, symbols, separators and controls: stripped from the title's edges."""
    return unicodedata.category(ch)[0] in "PSZC"


def heading_key(title: str) -> str:
    """The normalised text of a heading title (SPEC §11): NFKC, entities decoded, format
    characters (Cf) removed, backslash escapes, links, inline tags and emphasis/code markers
    removed, surrounding punctuation/space stripped, inner whitespace collapsed, casefolded."""
    s = _TAG_RE.sub("", title)  # before NFKC: `<Ａ…` is text to a Markdown renderer, not a tag
    s = unicodedata.normalize("NFKC", html.unescape(s))
    s = "".join(ch for ch in s if unicodedata.category(ch) != "Cf")
    s = _ESCAPE_RE.sub(r"\1", s)
    s = _LINK_RE.sub(r"\1", s)
    s = _MARKERS_RE.sub("", s)
    s = unicodedata.normalize("NFKC", s)
    start, end = 0, len(s)
    while start < end and _edge(s[start]):
        start += 1
    while end > start and _edge(s[end - 1]):
        end -= 1
    return " ".join(s[start:end].split()).casefold()


def user_only_kind(title: str) -> str | None:
    """``"answer"``, ``"comment"`` or None for a heading title."""
    return _USER_KEYS.get(heading_key(title))


@dataclass(frozen=True, slots=True)
class Heading:
    line: int  # index of the line the heading ends on (the underline of a setext heading)
    first: int  # index of its first line
    level: int  # 1-6
    title: str  # the raw title text
    raw: str  # the heading's line(s) as written, stripped
    kind: str | None  # "answer", "comment" or None
    plain: bool = False  # an ATX heading outside any container, indented 0-3: what `sections` reads


_CONTAINER_RE = re.compile(r"(?:[ \t]*(?:>|[-*+](?=[ \t]|$)|[0-9]{1,9}[.)](?=[ \t]|$))[ \t]?)*")
_QUOTE_RE = re.compile(r"(?:[ \t]*>[ \t]?)*")
_ATX_RE = re.compile(r"(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_SETEXT_RE = re.compile(r"(=+|-+)[ \t]*$")
_FENCE_RE = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)$")
_HTML_H_RE = re.compile(r"<h([1-6])(?:\s[^>]*)?>(.*?)(?=</h[1-6]\s*>|<h[1-6][\s>]|\n[ \t]*\n|\Z)", re.I | re.S)


def _strip(line: str, pattern: re.Pattern[str]) -> str:
    """`line` without its leading container markers (one regex pass) and outer blanks."""
    m = pattern.match(line)
    return line[m.end() if m else 0 :].strip(" \t")


def _indent(line: str) -> int:
    return len(line) - len(line.expandtabs(4).lstrip(" ")) if line.strip() else 0


def _fence(line: str) -> tuple[str, int, int] | None:
    """(char, length, indent) when `line` opens a fence at the top level."""
    m = _FENCE_RE.match(line.expandtabs(4))
    if not m:
        return None
    run = m.group(2)
    if run[0] == "`" and "`" in m.group(3):
        return None
    return run[0], len(run), len(m.group(1))


def _closes(line: str, char: str, length: int) -> bool:
    s = line.expandtabs(4)
    body = s.lstrip(" ")
    if len(s) - len(body) > 3:
        return False
    body = body.rstrip(" \t")
    return len(body) >= length and body.count(char) == len(body)


_HTML_START_RE = re.compile(r" {0,3}<")
_HTML_RAW = (("<script", "</script>"), ("<pre", "</pre>"), ("<style", "</style>"), ("<textarea", "</textarea>"),
             ("<!--", "-->"), ("<?", "?>"), ("<![cdata[", "]]>"), ("<!", ">"))  # fmt: skip


def _html_end(line: str) -> str | None:
    """How a possible HTML block starting on `line` ends: its end marker, or "" for the
    next blank line; None when the line cannot start one. Inside one a ``` line is not a
    fence (markdown-it agrees), so fences are not honoured there."""
    if not _HTML_START_RE.match(line):
        return None
    low = line.lstrip(" ").lower()
    for start, end in _HTML_RAW:
        if low.startswith(start):
            return "" if end in low[len(start) :] else end
    return ""


def _lines(body: str) -> list[str]:
    return body.replace("\r\n", "\n").replace("\r", "\n").split("\n")


_EOL_RE = re.compile(r"\r\n|\r|\n")


def line_starts(body: str) -> list[int]:
    """Offset in `body` of each line as `scan_headings` counts them, then len(body)."""
    return [0, *(m.end() for m in _EOL_RE.finditer(body)), len(body)]


def scan_headings(body: str) -> list[Heading]:
    """Every heading of `body` by the broad definition above, in order."""
    lines = _lines(body)
    out: list[Heading] = []
    fence: tuple[str, int, int] | None = None
    visible: list[tuple[int, str]] = []  # lines outside fences, for the HTML scan
    para: list[tuple[int, str]] = []  # the current paragraph's lines (container-stripped)
    html: str | None = None  # inside a possible HTML block: its end marker ("" = a blank line)
    for i, line in enumerate(lines):
        in_html = False  # this line belongs to a possible HTML block (its last line too)
        if html is not None:
            in_html = True
            if (html == "" and not line.strip()) or (html and html in line.lower()):
                html = None
        elif fence is None:
            html = _html_end(line)
            in_html = html is not None
        if fence is not None:
            char, length, indent = fence
            if _closes(line, char, length):
                fence = None
                para = []
                continue
            if not (indent and line.strip() and _indent(line) < indent):
                continue
            fence = None  # the container that held the fence ended: the line is read below
        opened = _fence(line) if not in_html else None
        if opened is not None:
            fence = opened
            para = []
            continue
        visible.append((i, line))
        content = _strip(line, _CONTAINER_RE)
        quoted = _strip(line, _QUOTE_RE)
        if not content and not (_SETEXT_RE.fullmatch(quoted) and para):
            if line.strip(" \t"):
                para.append((i, line.strip(" \t")))  # `*`, `>`, `1.` alone may continue a paragraph
            else:
                para = []
            continue
        m = _ATX_RE.fullmatch(content)
        if m:
            title = (m.group(2) or "").strip()
            bare = title.rstrip("#")
            if bare != title and (not bare or bare[-1] in " \t"):
                title = bare.rstrip(" \t")
            plain = content == line.strip(" \t") and _indent(line) <= 3
            out.append(Heading(i, i, len(m.group(1)), title, line.strip(), user_only_kind(title), plain))
            if plain:
                para = []
            else:
                para.append((i, content))  # indented 4+ it may be a paragraph's continuation
            continue
        under = _SETEXT_RE.fullmatch(quoted) or _SETEXT_RE.fullmatch(content)
        if under and para:
            level = 1 if under.group(1)[0] == "=" else 2
            candidates = [t for _, t in para] + [" ".join(t for _, t in para)]
            kind = next((k for k in map(user_only_kind, candidates) if k), None)
            first = para[0][0]
            raw = "\n".join(lines[j].strip() for j in range(first, i + 1))
            out.append(Heading(i, first, level, candidates[-1], raw, kind))
            para = []
            continue
        para.append((i, content))
    if visible and "<" in body:
        text = "\n".join(t for _, t in visible)
        starts = []
        pos = 0
        for idx, t in visible:
            starts.append((pos, idx))
            pos += len(t) + 1
        for m in _HTML_H_RE.finditer(text):
            title = _TAG_RE.sub("", m.group(2)).strip()
            k = max(j for j, (p, _) in enumerate(starts) if p <= m.start())
            idx = starts[k][1]
            out.append(Heading(idx, idx, int(m.group(1)), title, m.group(0).strip(), user_only_kind(title)))
    out.sort(key=lambda h: (h.first, h.line))  # a setext heading starts before the lines it spans
    return out


def user_only_headings(body: str) -> list[Heading]:
    """The user-only headings of `body` (see the module docstring)."""
    return [h for h in scan_headings(body) if h.kind]


def indented(body: str, starts: list[int], line: int) -> bool:
    """Line `line` is indented by 4+ columns (an indented code block at the top level)."""
    text = body[starts[line] : starts[line + 1]].expandtabs(4)
    return len(text) - len(text.lstrip(" ")) >= 4


def user_only_spans(body: str, *, skip_indented: bool = False) -> list[tuple[str, int, int]]:
    """(kind, first line, end line) of every user-only section: from its heading to the next
    heading of the same or a higher level (or the end), trailing blank lines dropped. Lines
    are counted after `\\r\\n` and a lone `\\r` are made `\\n`. `skip_indented`: headings
    on lines indented 4+ columns are not headings (what `edit` keeps is read that way)."""
    heads = scan_headings(body)
    if not any(h.kind for h in heads):
        return []
    if skip_indented:
        starts = line_starts(body)
        heads = [h for h in heads if not indented(body, starts, h.first)]
    lines = _lines(body)
    out = []
    for n, h in enumerate(heads):
        if not h.kind:
            continue
        end = len(lines)
        # an H1/H2 section as `sections` reads it runs to the next plain H1/H2: the longer of
        # the two readings, so nothing a reader counts as part of the section is left out
        reader = h.plain and h.level <= 2
        for later in heads[n + 1 :]:
            if later.first > h.line and later.level <= h.level and (later.plain or not reader):
                end = later.first
                break
        while end > h.first + 1 and not lines[end - 1].strip():
            end -= 1
        out.append((h.kind, h.first, end))
    return out


def user_only_sections(body: str) -> list[tuple[str, str]]:
    """(kind, text) of every user-only section (see `user_only_spans`): what an agent may
    not change (SPEC §11)."""
    spans = user_only_spans(body)
    if not spans:
        return []
    lines = _lines(body)
    return [(kind, "\n".join(lines[first:end])) for kind, first, end in spans]
