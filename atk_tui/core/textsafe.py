"""Untrusted item text on its way to a terminal (SPEC §9).

Control characters (C0 except tab/newline, DEL, C1) and bidirectional overrides are shown
escaped (`\\x1b`, `\\u202e`), never emitted: an item cannot move the cursor, set the
clipboard (OSC 52), plant hyperlinks (OSC 8) or reorder the text around it.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_UNSAFE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def safe_text(text: str) -> str:
    """Text with every unsafe character escaped; newlines and tabs kept."""
    return _UNSAFE.sub(_escape, text)


def safe_line(text: str) -> str:
    """One line for a table cell: newlines and tabs escaped too."""
    return _UNSAFE_LINE.sub(_escape, text)


def safe_json(encoded: str) -> str:
    """One line of JSON (as `json.dumps` wrote it) with every unsafe character written as a
    `\\uXXXX` escape: still valid JSON that decodes to the same strings, and nothing in it a
    terminal would act on (json leaves DEL, C1 and bidi controls raw with ensure_ascii=False)."""
    return _UNSAFE_LINE.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)
