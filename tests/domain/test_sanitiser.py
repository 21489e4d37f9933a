"""The one sanitiser (atk_tui/text/textsafe.py, SPEC §14): every control and bidi character is
escaped, newlines kept only by `safe_text`; JSON stays valid and exact; Markdown character
references cannot smuggle a control in."""

from __future__ import annotations

import json
import re

import pytest
from support.hostile_text import ENTITIES, ESCAPES

from atk_tui.text.textsafe import (
    has_unsafe,
    safe_json,
    safe_json_dumps,
    safe_json_line,
    safe_line,
    safe_markdown,
    safe_text,
)

BIDI_AND_SEPARATORS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029\ufeff"
UNSAFE = [*map(chr, [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]), *BIDI_AND_SEPARATORS]


@pytest.mark.parametrize("ch", UNSAFE, ids=lambda c: f"U+{ord(c):04X}")
def test_every_unsafe_character_is_escaped(ch: str) -> None:
    for fn in (safe_text, safe_line):
        out = fn(f"a{ch}b")
        assert not has_unsafe(out.replace("\n", "").replace("\t", ""))
        assert out.startswith("a\\") and out.endswith("b")


def test_newlines_and_tabs_are_kept_by_safe_text_only() -> None:
    assert safe_text("a\n\tb") == "a\n\tb"
    assert safe_line("a\n\tb") == "a\\x0a\\x09b"
    assert safe_line(safe_line(ESCAPES)) == safe_line(ESCAPES)  # escaping twice changes nothing
    assert not has_unsafe(safe_line(ESCAPES))


def test_markup_is_left_to_the_front_end() -> None:
    # text, not markup: the dashboard wraps it in Text/Content, so brackets stay as they are
    assert safe_line("[WIP] [/x] [@click=app.quit]") == "[WIP] [/x] [@click=app.quit]"


def test_json_stays_exact_and_safe() -> None:
    value = {"title": ESCAPES, ESCAPES: [ESCAPES, 1]}
    out = safe_json_dumps(value)
    assert not has_unsafe(out)
    assert json.loads(out) == value
    assert json.loads(safe_json(json.dumps(value, ensure_ascii=False))) == value


def test_markdown_character_references_to_controls_are_made_literal() -> None:
    out = safe_markdown(f"x {ENTITIES} &amp; &lt; &#65; &copy;")
    assert "&amp;#x202e;" in out and "&amp;rlm;" in out and "&amp;#155;" in out
    assert "&lt; &#65; &copy;" in out  # harmless references are kept
    from markdown_it import MarkdownIt

    assert not has_unsafe(MarkdownIt().render(out).replace("\n", ""))


@pytest.mark.parametrize("text", ["plain", "ü und ß", "\x1b]52;c;aGk=\x07", "a\u202eb", "\x85\x9b", "name-\udcff.md", "\ufeff\u2028"])
def test_a_listing_line_is_safe_json_with_its_surrogates_escaped(text: str) -> None:
    line = json.dumps({"title": text}, ensure_ascii=False)
    out = safe_json_line(line)
    assert out == re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", safe_json(line))
    assert json.loads(out) == {"title": text} and not has_unsafe(out) and out.encode("utf-8")
