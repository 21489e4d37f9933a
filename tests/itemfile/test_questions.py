"""Parsing UWI bodies into questions (SPEC §7, user-input-protocol.md)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atk_tui.itemfile import questions as Q
from atk_tui.itemfile import sections as S
from atk_tui.itemfile.questions import Option, ParsedQuestions, parse_questions

SPEC_MARKDOWN = """# Which email validation should be the project standard?

## 背景
While implementing the login endpoint two validation patterns were found...

## 質問
Which approach should be the standard?

- A) Strict RFC 5322 -- rejects fewer valid addresses, harder to maintain
- B) Simple regex -- faster, may accept malformed addresses
- C) Context-dependent -- strict for auth, lenient for forms

推奨: A) consistent everywhere
"""

# The two examples of user-input-protocol.md, verbatim.
CHECKPOINT_SINGLE = """AWAITING_USER_INPUT
---
Context: While implementing the login endpoint, I found two email validation
patterns in the codebase. auth/validate.rs uses strict RFC 5322 parsing.
signup/forms.rs uses a simple regex check. These produce different results
for edge cases like "[email protected]".
Decision needed: Which email validation approach should be the project standard?
Options:
  A) Strict RFC 5322 -- rejects fewer valid addresses, more complex to maintain
  B) Simple regex -- faster, but may accept malformed addresses
  C) Context-dependent -- strict for auth, lenient for forms
Recommendation: A) Strict RFC 5322, applied everywhere for consistency
---
"""

CHECKPOINT_MULTI = """AWAITING_USER_INPUT
---
Context: Setting up the test infrastructure for the new auth module.
Decisions needed:

1. Test framework?
   A) Jest -- already used in 3 other modules
   B) Vitest -- faster, but would introduce a second test runner
   Recommendation: A) Jest for consistency

2. Test file location?
   A) Colocated (auth/__tests__/) -- matches signup module pattern
   B) Top-level (tests/auth/) -- matches API module pattern
   Recommendation: A) Colocated, to match the newer module convention
---
"""

JAPANESE_TWO = """# テスト基盤の決定

## 背景
新しい認証モジュールのテスト基盤を準備しています。

## 質問 1
テストフレームワークはどれにしますか？

- A) Jest -- 既に 3 つのモジュールで使用
- B) Vitest — 高速だが 2 つ目のテストランナーになる

**推奨**：B) 速度を優先

## 質問 2
テストファイルの置き場所は？

* (A) 同じ場所 (auth/__tests__/) -- signup と同じ
* (B) トップレベル (tests/auth/) -- API と同じ

推奨: A
"""


def _options(q):
    return [(o.letter, o.label, o.implications) for o in q.options]


# --------------------------------------------------------------------------- markdown form


#: the SPEC's one-question example names the same options, and recommends A, in both forms:
#: only the wording differs
EXAMPLE_LABELS = [("A", "Strict RFC 5322"), ("B", "Simple regex"), ("C", "Context-dependent")]


@pytest.mark.parametrize(
    ("source", "form", "context", "text", "implications", "recommendation_text"),
    [
        pytest.param(
            SPEC_MARKDOWN,
            "markdown",
            "While implementing the login endpoint two validation patterns were found...",
            "Which approach should be the standard?",
            ("rejects fewer valid addresses, harder to maintain", "faster, may accept malformed addresses", "strict for auth, lenient for forms"),
            "A) consistent everywhere",
            id="markdown",
        ),
        pytest.param(
            CHECKPOINT_SINGLE,
            "checkpoint",
            "While implementing the login endpoint, I found two email validation\n"
            "patterns in the codebase. auth/validate.rs uses strict RFC 5322 parsing.\n"
            "signup/forms.rs uses a simple regex check. These produce different results\n"
            'for edge cases like "[email protected]".',
            "Which email validation approach should be the project standard?",
            ("rejects fewer valid addresses, more complex to maintain", "faster, but may accept malformed addresses", "strict for auth, lenient for forms"),
            "A) Strict RFC 5322, applied everywhere for consistency",
            id="checkpoint",
        ),
    ],
)
def test_spec_single_question_example(source, form, context, text, implications, recommendation_text):
    """The SPEC's one-question example, in each of the two forms."""
    r = parse_questions(source)
    assert r.form == form
    assert r.context == context
    assert r.urgency is None
    (q,) = r.questions
    assert q.number == 1
    assert q.text == text
    expected = zip(EXAMPLE_LABELS, implications, strict=True)
    assert _options(q) == [(letter, label, implied) for (letter, label), implied in expected]
    assert (q.recommendation, q.recommendation_text) == ("A", recommendation_text)


def test_japanese_two_questions():
    r = parse_questions(JAPANESE_TWO)
    assert r.form == "markdown"
    assert r.context == "新しい認証モジュールのテスト基盤を準備しています。"
    q1, q2 = r.questions
    assert (q1.number, q1.text) == (1, "テストフレームワークはどれにしますか？")
    assert _options(q1) == [
        ("A", "Jest", "既に 3 つのモジュールで使用"),
        ("B", "Vitest", "高速だが 2 つ目のテストランナーになる"),
    ]
    assert (q1.recommendation, q1.recommendation_text) == ("B", "B) 速度を優先")
    assert (q2.number, q2.text) == (2, "テストファイルの置き場所は？")
    assert _options(q2) == [
        ("A", "同じ場所 (auth/__tests__/)", "signup と同じ"),
        ("B", "トップレベル (tests/auth/)", "API と同じ"),
    ]
    assert q2.recommendation == "A"


def test_english_headings():
    body = """# Pick a cache

## Context
Redis is already deployed.

## Question 1
Which cache?
- A. Redis: already deployed
- B. Memcached: simpler

Recommendation: B, because it is simpler

## Question 2: Expiry policy?
- A) LRU -- default
- B) TTL only -- predictable

**Recommendation:** Option A
"""
    r = parse_questions(body)
    assert r.form == "markdown"
    assert r.context == "Redis is already deployed."
    q1, q2 = r.questions
    assert _options(q1) == [("A", "Redis", "already deployed"), ("B", "Memcached", "simpler")]
    assert q1.recommendation == "B"
    assert q2.text == "Expiry policy?"
    assert q2.recommendation == "A"
    assert q2.recommendation_text == "Option A"


def test_question_section_with_numbered_sub_questions():
    body = """# Setup

## 質問
1. Framework?
   - A) Jest -- used already
   - B) Vitest -- faster
   推奨: A
2. Location?
   - A) Colocated -- like signup
   - B) Top-level -- like API
"""
    r = parse_questions(body)
    assert r.form == "markdown"
    assert [(q.number, q.text, len(q.options), q.recommendation) for q in r.questions] == [
        (1, "Framework?", 2, "A"),
        (2, "Location?", 2, None),
    ]


def test_numbered_prose_is_not_split():
    body = """## 質問
Consider:
1. performance
2. simplicity

Which one matters more?
- A) Performance
- B) Simplicity
"""
    (q,) = parse_questions(body).questions
    assert q.text == "Consider:\n1. performance\n2. simplicity\n\nWhich one matters more?"
    assert [o.letter for o in q.options] == ["A", "B"]


def test_option_continuation_lines_join_implications():
    body = "## Question\nWhich?\n\n- A) Strict -- rejects more,\n  harder to maintain\n- B) Loose\n"
    (q,) = parse_questions(body).questions
    assert _options(q) == [("A", "Strict", "rejects more, harder to maintain"), ("B", "Loose", "")]


def test_options_without_question_heading():
    body = "# Which linter?\n\n- A) ruff -- fast\n- B) flake8 -- familiar\n\nRecommendation: ruff\n"
    r = parse_questions(body)
    assert r.form == "markdown"
    (q,) = r.questions
    assert q.text == "Which linter?"
    assert q.recommendation == "A"


def test_answer_section_is_never_a_question():
    body = SPEC_MARKDOWN + "\n" + S.format_answer({1: "B) Simple regex"}, "- A) not an option")
    r = parse_questions(body)
    (q,) = r.questions
    assert [o.letter for o in q.options] == ["A", "B", "C"]
    assert "not an option" not in q.text


def test_fenced_question_heading_ignored():
    body = "# T\n\n```\n## 質問\n- A) x\n- B) y\n```\n\nWhat now?\n"
    r = parse_questions(body)
    assert r.form == "free"
    assert r.questions[0].options == ()


# --------------------------------------------------------------------------- checkpoint form


def test_checkpoint_multi_example():
    r = parse_questions(CHECKPOINT_MULTI)
    assert r.form == "checkpoint"
    assert r.context == "Setting up the test infrastructure for the new auth module."
    q1, q2 = r.questions
    assert (q1.number, q1.text, q1.recommendation) == (1, "Test framework?", "A")
    assert _options(q1) == [
        ("A", "Jest", "already used in 3 other modules"),
        ("B", "Vitest", "faster, but would introduce a second test runner"),
    ]
    assert q1.recommendation_text == "A) Jest for consistency"
    assert (q2.number, q2.text, q2.recommendation) == (2, "Test file location?", "A")
    assert _options(q2) == [
        ("A", "Colocated (auth/__tests__/)", "matches signup module pattern"),
        ("B", "Top-level (tests/auth/)", "matches API module pattern"),
    ]
    assert q2.recommendation_text == "A) Colocated, to match the newer module convention"


def test_checkpoint_inside_fence_with_urgency_and_surrounding_prose():
    body = (
        "# Email rule\n\nSome prose first.\n\n```\n"
        + CHECKPOINT_SINGLE.replace("---\nContext", "---\nUrgency: next-review\nContext", 1)
        + "```\n\nTrailing prose.\n"
    )
    r = parse_questions(body)
    assert r.form == "checkpoint"
    assert r.urgency == "next-review"
    assert r.questions[0].recommendation == "A"
    assert len(r.questions[0].options) == 3


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("blocking", "blocking"),
        ("informational", "informational"),
        ("Next-Review", "next-review"),
        ("blocking | next-review | informational", None),
        ("urgent", None),
        ("", None),
    ],
)
def test_checkpoint_urgency(value, expected):
    body = CHECKPOINT_SINGLE.replace("---\nContext", f"---\nUrgency: {value}\nContext", 1)
    assert parse_questions(body).urgency == expected


def test_checkpoint_no_recommendation():
    body = CHECKPOINT_SINGLE.replace(
        "Recommendation: A) Strict RFC 5322, applied everywhere for consistency", "Recommendation: No recommendation"
    )
    (q,) = parse_questions(body).questions
    assert q.recommendation is None
    assert q.recommendation_text == "No recommendation"


def test_checkpoint_wins_over_markdown_and_without_options_falls_back():
    body = SPEC_MARKDOWN + "\n" + CHECKPOINT_MULTI
    assert parse_questions(body).form == "checkpoint"
    no_opts = "AWAITING_USER_INPUT\n---\nContext: c\nDecision needed: What now?\n---\n"
    r = parse_questions(no_opts)
    assert r.form == "free"
    assert "What now?" in r.questions[0].text


# --------------------------------------------------------------------------- free form & recommendation


def test_free_form_whole_body_without_title():
    body = "# Should we ship on Friday?\n\nThe release has two known bugs.\nWhat do you think?\n"
    r = parse_questions(body)
    assert r.form == "free"
    (q,) = r.questions
    assert (q.number, q.options, q.recommendation) == (1, (), None)
    assert q.text == "The release has two known bugs.\nWhat do you think?"


def test_free_form_uses_question_section():
    body = "# T\n\n## 背景\nbackground\n\n## 質問\nWhat should the timeout be?\n\n## 回答\n\n30s\n"
    r = parse_questions(body)
    assert r.form == "free"
    assert r.questions[0].text == "What should the timeout be?"
    assert r.context == "background"


def test_free_form_drops_answer_and_empty_body():
    r = parse_questions("# T\n\nWhat?\n\n## 回答\n\nsecret\n")
    assert r.questions[0].text == "What?"
    r = parse_questions("")
    assert r == ParsedQuestions("free", (Q.Question(1, "", (), None, ""),), "", None)


OPTS = (Option("A", "Jest", ""), Option("B", "Vitest", ""), Option("C", "Mocha", ""))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A) Jest", "A"),
        ("(B) Vitest", "B"),
        ("B", "B"),
        ("B because it is fast", "B"),
        ("C.", "C"),
        ("Option C", "C"),
        ("選択肢B", "B"),
        ("B案がよい", "B"),
        ("Ｂ）速度", "B"),
        ("I'd go with (c)", "C"),
        ("I recommend B", "B"),
        ("A strict approach is better", None),
        ("Vitest for speed", "B"),
        ("No recommendation", None),
        ("なし", None),
        ("D) something else", None),
        ("", None),
    ],
)
def test_recommendation_letter(text, expected):
    assert Q._rec_letter(text, OPTS) == expected


def test_option_display_and_lookup():
    (q,) = parse_questions(SPEC_MARKDOWN).questions
    assert q.options[0].display == "A) Strict RFC 5322"
    assert q.option("b") is q.options[1]
    assert q.option("Z") is None


def test_crlf_body():
    r = parse_questions(SPEC_MARKDOWN.replace("\n", "\r\n"))
    assert r.form == "markdown"
    assert r.questions[0].recommendation == "A"
    assert r.questions[0].options[2].implications == "strict for auth, lenient for forms"


def test_large_body_returns():
    # ~1 MB of mixed content, plus pathological long lines; only checks that it finishes.
    chunk = SPEC_MARKDOWN + CHECKPOINT_MULTI + "- A) " + "x " * 200 + "\n" + "```\n## 質問\n```\n"
    body = chunk * (1_000_000 // len(chunk))
    r = parse_questions(body)
    assert r.form == "checkpoint"
    long_lines = "## 質問" + " " * 200_000 + "x\n" + "- A)" + " " * 300_000 + "\n" + "Recommendation:" + " -" * 200_000
    assert parse_questions(long_lines).form in ("markdown", "free")


# --------------------------------------------------------------------------- properties

_FRAGMENTS = [
    "## 質問",
    "## 質問 1",
    "## 質問 2",
    "## Question",
    "## 背景",
    "## Context",
    "## 回答",
    "# Title",
    "A) ",
    "- A) x -- y",
    "  B) y",
    "(C) z",
    "1. ",
    "2. Q?",
    "### 質問 3",
    "AWAITING_USER_INPUT",
    "---",
    "Recommendation:",
    "推奨: A",
    "Urgency: blocking",
    "Context: c",
    "Decision needed: d?",
    "Decisions needed:",
    "Options:",
    "```",
    "~~~",
    "**",
    "—",
    " -- ",
    "：",
    "",
    " ",
    "\t",
    "\r",
]
_line = st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=8)), max_size=4).map("".join)
_bodies = st.lists(_line, max_size=30).map("\n".join) | st.text()
_settings = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_settings
@given(_bodies)
def test_property_never_raises(body):
    # `_parse` is the unguarded parser: a bug would show here even though the public
    # function would hide it behind its fallback.
    r = Q._parse(body)
    assert r == parse_questions(body)
    assert r.form in ("markdown", "checkpoint", "free")
    assert r.questions
    assert r.urgency in (None, "blocking", "next-review", "informational")
    numbers = [q.number for q in r.questions]
    assert len(set(numbers)) == len(numbers)
    for q in r.questions:
        letters = {o.letter for o in q.options}
        assert q.recommendation is None or q.recommendation in letters
        assert all(len(o.letter) == 1 and o.label for o in q.options)
    if r.form == "free":
        assert len(r.questions) == 1 and not r.questions[0].options
    else:
        assert any(q.options for q in r.questions)


@_settings
@given(st.text())
def test_property_never_raises_on_arbitrary_text(body):
    assert isinstance(parse_questions(body), ParsedQuestions)


@pytest.mark.parametrize(
    "line",
    [
        "- A) Strict -- x",
        "* A. Strict -- x",
        "A: Strict -- x",
        "- (A) Strict -- x",
        "- **A)** Strict -- x",
        "- **A**: Strict -- x",
        "  A) Strict — x",
        "- [ ] A) Strict -- x",
        "- Ａ）Strict -- x",
        "1. A) Strict -- x",
    ],
)
def test_option_line_variants(line):
    body = f"## 質問\nWhich?\n\n{line}\n- B) Loose -- y\n"
    (q,) = parse_questions(body).questions
    assert _options(q)[0] == ("A", "Strict", "x")


@pytest.mark.parametrize("line", ["e.g. this is prose", "I.e. prose", "A strict rule applies", "Answer: yes"])
def test_prose_is_not_an_option(line):
    (q,) = parse_questions(f"## 質問\n{line}\n- B) Loose\n").questions
    assert [o.letter for o in q.options] == ["B"]


def test_question_section_with_options_only_uses_title():
    (q,) = parse_questions("# Which DB?\n\n## 質問\n- A) Postgres\n- B) SQLite\n").questions
    assert q.text == "Which DB?"


def test_several_checkpoints_are_concatenated_and_renumbered():
    r = parse_questions(CHECKPOINT_SINGLE + "\nlater:\n\n" + CHECKPOINT_MULTI)
    assert r.form == "checkpoint"
    assert [q.number for q in r.questions] == [1, 2, 3]
    assert [q.text for q in r.questions] == [
        "Which email validation approach should be the project standard?",
        "Test framework?",
        "Test file location?",
    ]
    assert r.context.startswith("While implementing")
    assert r.context.endswith("Setting up the test infrastructure for the new auth module.")


def test_checkpoint_spans_cover_the_block_and_skip_fenced_ones() -> None:
    from atk_tui.itemfile.questions import checkpoint_spans

    body = "# T\n\nAWAITING_USER_INPUT\n---\nUrgency: blocking\nContext: a/__b__/\n---\nafter\n```\nAWAITING_USER_INPUT\n---\nx\n---\n```\n"
    lines = body.split("\n")
    assert checkpoint_spans(body) == [(2, 7)]
    assert lines[2] == "AWAITING_USER_INPUT" and lines[6] == "---" and lines[7] == "after"
    assert checkpoint_spans("no block here") == []
