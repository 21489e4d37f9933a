"""Untrusted item text on its way to a terminal (SPEC §9, §14): the one sanitiser.

Control characters (C0 except tab/newline, DEL, C1) and bidirectional controls (U+061C,
U+200E/F, U+202A–202E, U+2066–2069, and the BOM/line separators) are shown escaped
(`\\x1b`, `\\u202e`), never emitted: an item cannot move the cursor, set the clipboard
(OSC 52), set the window title (OSC 2), plant hyperlinks (OSC 8) or reorder the text around
it. Escaping the ESC (or the 8-bit CSI/OSC/DCS introducers) defuses a whole sequence: what
follows it is printable text.

Front ends use these and nothing else: the dashboard wraps the result in `Text`/`Content`
(`atk_tui.tui.display.safe`), the CLI writes it (`safe_text` for bodies, `safe_line` for one-line
fields, `safe_json_dumps` for JSON, which stays valid JSON and decodes to the exact text).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

# The characters never emitted raw. Newline and tab are kept by `safe_text` only.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_OTHER = "\u2028\u2029\ufeff"
_UNSAFE_SET = f"\\x00-\\x1f\\x7f-\\x9f{_BIDI}{_OTHER}"
UNSAFE_CHARS = re.compile(f"[{_UNSAFE_SET}]")
_UNSAFE = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_BIDI}{_OTHER}]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def safe_text(text: str) -> str:
    """Text with every unsafe character escaped; newlines and tabs kept."""
    return _UNSAFE.sub(_escape, text)


def safe_line(text: str) -> str:
    """One line (a title, a table cell, a border, a filename): newlines and tabs escaped too."""
    return UNSAFE_CHARS.sub(_escape, text)


_ENTITY = re.compile(r"&(?:#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});")


def _defuse_entity(m: re.Match[str]) -> str:
    ref = m.group()
    if ref[1] == "#":  # by number, as a Markdown parser reads it (not HTML's cp1252 remapping)
        code = int(ref[3:-1], 16) if ref[2] in "xX" else int(ref[2:-1])
        decoded = chr(code) if code <= 0x10FFFF else ""
    else:
        decoded = html.unescape(ref)
    return "&amp;" + ref[1:] if decoded != ref and _UNSAFE.search(decoded) else ref


def safe_markdown(text: str) -> str:
    """Text for a Markdown renderer: `safe_text`, and character references that would decode
    to an unsafe character (`&#x202e;`, `&rlm;`, `&#155;`) made literal (`&amp;#x202e;`), since
    the renderer decodes them after any escaping done here."""
    return _ENTITY.sub(_defuse_entity, safe_text(text))


def has_unsafe(text: str) -> bool:
    """True when `text` holds a character that must not reach a terminal raw (tests, checks)."""
    return UNSAFE_CHARS.search(text) is not None


def _json_escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def safe_json_dumps(value: Any, **kw: Any) -> str:
    """`json.dumps` whose output holds no unsafe character: C1 and bidi controls inside
    strings become `\\uXXXX` escapes, so the JSON decodes to the exact original text."""
    kw.setdefault("ensure_ascii", False)
    return safe_json(json.dumps(value, **kw))


#: what `safe_json_line` escapes: the unsafe characters and the lone surrogates a file name
#: that is not UTF-8 decodes to
_JSON_LINE_UNSAFE = re.compile(f"[{_UNSAFE_SET}\ud800-\udfff]")


def safe_json_line(encoded: str) -> str:
    """`safe_json` that also writes each lone surrogate as its `\\uXXXX` escape (valid JSON, and
    text any stream can encode), in one pass: a listing's line."""
    return _JSON_LINE_UNSAFE.sub(_json_escape, encoded)


def safe_json(encoded: str) -> str:
    """One line of JSON (as `json.dumps` wrote it) with every unsafe character written as a
    `\\uXXXX` escape: still valid JSON that decodes to the same strings, and nothing in it a
    terminal would act on (json leaves DEL, C1 and bidi controls raw with ensure_ascii=False)."""
    return UNSAFE_CHARS.sub(_json_escape, encoded)
