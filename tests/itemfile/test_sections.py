"""User-only sections of an item body (SPEC §7, §8): reading, writing, carrying over."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from atk_tui.itemfile import headings
from atk_tui.itemfile import sections as S

SPEC_ANSWER = "## 回答\n\n- 1: A) Strict RFC 5322\n- 2: B) Top-level (tests/auth/)\n\nFree-text notes\n"

UWI = """# Which email validation should be the project standard?

## 背景
While implementing the login endpoint two validation patterns were found...

## 質問
Which approach should be the standard?

- A) Strict RFC 5322 -- rejects fewer valid addresses, harder to maintain
- B) Simple regex -- faster, may accept malformed addresses

推奨: A) consistent everywhere
"""

AWI = "# Add login\n\n- 反映内容: login endpoint\n- 理由: users need it\n"


# --------------------------------------------------------------------------- format / split


def test_format_answer_matches_spec_example():
    got = S.format_answer({2: "B) Top-level (tests/auth/)", 1: "A) Strict RFC 5322"}, "Free-text notes")
    assert got == SPEC_ANSWER


def test_format_answer_omits_empty_parts():
    assert S.format_answer({}, "just text") == "## 回答\n\njust text\n"
    assert S.format_answer({1: "A) Jest"}, "  \n ") == "## 回答\n\n- 1: A) Jest\n"
    assert S.format_answer({}, "") == "## 回答\n"


def test_format_answer_keeps_text_verbatim_inside():
    text = "line one  \n\n    indented code\n- a list\nlast"
    assert S.format_answer({}, text) == "## 回答\n\n" + text + "\n"
    assert S.format_answer({}, "\n\nx\n\n\n") == "## 回答\n\nx\n"


def test_format_answer_escapes_headings_and_closes_fences():
    got = S.format_answer({}, "## not a heading\n# nor this\n### fine")
    assert got == "## 回答\n\n\\## not a heading\n\\# nor this\n### fine\n"
    assert S.format_answer({}, "```\n## in code\n") == "## 回答\n\n```\n## in code\n```\n"


def test_split_answer_inverts_format():
    assert S.split_answer(S.answer_text(SPEC_ANSWER)) == (
        {1: "A) Strict RFC 5322", 2: "B) Top-level (tests/auth/)"},
        "Free-text notes",
    )
    for text in ("## heading-like", "- 1: looks like a choice", "plain\n\nparas"):
        body = S.set_answer(UWI, S.format_answer({}, text))
        assert S.split_answer(S.answer_text(body)) == ({}, text)


# --------------------------------------------------------------------------- reading


def test_answer_text_and_is_answered():
    assert S.answer_text(UWI) is None
    assert not S.is_answered(UWI)
    body = UWI + "\n" + SPEC_ANSWER
    assert S.answer_text(body) == SPEC_ANSWER[len("## 回答\n\n") :].rstrip("\n")
    assert S.is_answered(body)
    assert S.answer_text(UWI + "\n## 回答\n\n  \n") == ""
    assert not S.is_answered(UWI + "\n## 回答\n\n  \n")


def test_answer_section_ends_at_next_h2_or_h1_not_h3():
    body = "## Answer\n\nyes\n### detail\nmore\n## Next\nother\n"
    assert S.answer_text(body) == "yes\n### detail\nmore"
    assert S.answer_text("## 回答\nA\n# Title\nB\n") == "A"


@pytest.mark.parametrize(
    "heading",
    ["## 回答", "## Answer", "## answer", "## 回答 ##", "## 回答   ", "  ## Answer #", "## 回答##", "##\t回答"],
)
def test_answer_heading_variants(heading):
    assert S.answer_text(f"# T\n\n{heading}\n\nok\n") == "ok"


@pytest.mark.parametrize("line", ["### 回答", "#### Answer", "    ## 回答", "##回答", "## 回答する", "回答"])
def test_not_answer_headings(line):
    assert S.answer_text(f"# T\n\n{line}\n\nok\n") is None


def test_headings_in_fenced_code_are_ignored():
    body = "# T\n\n```markdown\n## 回答\n\nfake\n```\n\n~~~\n## ユーザーコメント\n~~~\n"
    assert S.answer_text(body) is None
    assert S.comment_text(body) is None
    assert S.user_only_headings(body) == []
    # a fence closes only with the same character, at least as long
    body2 = "````\n```\n## 回答\n````\n## 回答\nreal\n"
    assert S.answer_text(body2) == "real"
    # an unclosed fence runs to the end of the body
    assert S.answer_text("```\n## 回答\nx\n") is None


def test_comment_must_be_strict_trailing_h2():
    assert S.comment_text(AWI + "\n## ユーザーコメント\n\nplease hurry\n") == "please hurry"
    assert S.comment_text(AWI + "\n## User comment\n\nhi\n### sub\nmore\n") == "hi\n### sub\nmore"
    assert S.comment_text(AWI + "\n## ユーザーコメント\n\nx\n\n## Later\n") is None
    assert S.comment_text(AWI + "\n## ユーザーコメント\n\nx\n\n# Title\n") is None
    assert S.comment_text(AWI) is None


def test_user_only_headings_as_written():
    body = "# T\n## Answer\nx\n## 回答 ##\n## User Comment\n## Answer\n```\n## ユーザーコメント\n```\n### 回答\n"
    # SPEC §11: a heading of any level counts (### 回答 too); the fenced one does not
    assert S.user_only_headings(body) == ["## Answer", "## 回答 ##", "## User Comment", "### 回答"]
    assert S.user_only_headings(AWI) == []


def test_split_sections_reassembles_body():
    body = "intro\n# T\ntext\n## A\n```\n## no\n```\n## B\nend"
    secs = S.split_sections(body)
    assert [(s.level, s.title) for s in secs] == [(0, ""), (1, "T"), (2, "A"), (2, "B")]
    assert "".join(body[s.start : s.body_start] + s.text for s in secs) == body


# --------------------------------------------------------------------------- set_answer


def test_set_answer_appends_as_last_h2():
    got = S.set_answer(UWI, SPEC_ANSWER)
    assert got == UWI + "\n" + SPEC_ANSWER
    # trailing blank lines are replaced by exactly one blank line; a missing final newline is added
    assert S.set_answer(UWI + "\n\n\n", SPEC_ANSWER) == UWI + "\n" + SPEC_ANSWER
    assert S.set_answer(UWI.rstrip("\n"), SPEC_ANSWER) == UWI + "\n" + SPEC_ANSWER
    assert S.set_answer("", SPEC_ANSWER) == SPEC_ANSWER


_NOT_TRAILING = AWI + "\n## ユーザーコメント\n\nold\n\n## 完成条件\n\ndone\n"


@pytest.mark.parametrize(
    ("write", "body", "text", "want", "read", "read_back"),
    [
        pytest.param(
            S.set_answer,
            UWI + "\n## Answer\n\nold answer\nmore old\n\n\n## Notes\nkeep me\n",
            S.format_answer({1: "B) Simple regex"}, ""),
            UWI + "\n" + S.format_answer({1: "B) Simple regex"}, "") + "\n\n## Notes\nkeep me\n",
            S.answer_text,
            "- 1: B) Simple regex",
            id="answer-replaces-the-existing-section-only",
        ),
        pytest.param(
            S.set_answer,
            UWI + "\n## 回答\n\nold",
            "## 回答\n\nnew\n",
            UWI + "\n## 回答\n\nnew\n",
            S.answer_text,
            "new",
            id="answer-replaces-the-last-section-without-newline",
        ),
        pytest.param(
            S.set_answer,
            AWI + "\n## ユーザーコメント\n\nhi\n",
            "## 回答\n\nx\n",
            AWI + "\n## 回答\n\nx\n\n## ユーザーコメント\n\nhi\n",
            S.answer_text,
            "x",
            id="answer-goes-before-a-trailing-comment",
        ),
        pytest.param(
            S.set_answer,
            "# T\n\n```\ncode",
            "## 回答\n\nx\n",
            "# T\n\n```\ncode\n```\n\n## 回答\n\nx\n",
            S.answer_text,
            "x",
            id="answer-closes-an-unclosed-fence-first",
        ),
        pytest.param(
            S.set_answer,
            "# T\r\n\r\n## 質問\r\nWhich?\r\n",
            S.format_answer({1: "A) x"}, "note"),
            "# T\r\n\r\n## 質問\r\nWhich?\r\n\r\n## 回答\r\n\r\n- 1: A) x\r\n\r\nnote\r\n",
            S.answer_text,
            "- 1: A) x\n\nnote",
            id="answer-keeps-crlf",
        ),
        pytest.param(
            S.append_comment,
            _NOT_TRAILING,
            "new",
            _NOT_TRAILING + "\n## ユーザーコメント\n\nnew\n",
            S.comment_text,
            "new",
            id="comment-new-section-when-the-old-is-not-trailing",
        ),
    ],
)
def test_section_write(write, body, text, want, read, read_back):
    got = write(body, text)
    assert got == want
    assert read(got) == read_back


def test_set_answer_before_a_trailing_comment_keeps_it_and_is_stable():
    got = S.set_answer(AWI + "\n## ユーザーコメント\n\nhi\n", "## 回答\n\nx\n")
    assert S.comment_text(got) == "hi"
    assert S.set_answer(got, "## 回答\n\nx\n") == got


@pytest.mark.parametrize("bad", ["no heading\n", "## Other\nx\n", "## 回答\nx\n## More\n", "# 回答\n"])
def test_set_answer_rejects_malformed_section(bad):
    with pytest.raises(ValueError):
        S.set_answer(UWI, bad)


# --------------------------------------------------------------------------- append_comment


def test_append_comment_creates_trailing_section():
    got = S.append_comment(AWI, "Please also cover logout.")
    assert got == AWI + "\n## ユーザーコメント\n\nPlease also cover logout.\n"
    assert S.comment_text(got) == "Please also cover logout."
    assert S.append_comment(AWI + "\n\n", "x") == AWI + "\n## ユーザーコメント\n\nx\n"


def test_append_comment_appends_to_existing_section():
    body = AWI + "\n## User comment\n\nfirst\n\n"
    got = S.append_comment(body, "second\nline two\n")
    assert got == AWI + "\n## User comment\n\nfirst\n\nsecond\nline two\n"
    assert S.comment_text(got) == "first\n\nsecond\nline two"
    empty = AWI + "\n## ユーザーコメント\n"
    assert S.append_comment(empty, "x") == empty + "\nx\n"


def test_append_comment_heading_in_text_cannot_break_trailing_section():
    got = S.append_comment(AWI, "## Not a section\ntext")
    got = S.append_comment(got, "again")
    assert S.comment_text(got) == "\\## Not a section\ntext\n\nagain"


def test_append_comment_refuses_blank():
    with pytest.raises(ValueError):
        S.append_comment(AWI, " \n\n")


# --------------------------------------------------------------------------- keep_user_sections


def test_keep_carries_comment_for_awi():
    old = AWI + "\n## ユーザーコメント\n\nkeep this\n"
    new = "# Add login v2\n\n- 反映内容: login + logout\n"
    got = S.keep_user_sections(old, new, is_uwi=False)
    assert got == new + "\n## ユーザーコメント\n\nkeep this\n"


def test_keep_awi_keeps_a_stored_answer_too():
    # SPEC §11: every stored user-only section is kept, whatever the item's kind
    old = AWI + "\n## 回答\n\nx\n"
    new = "# New\n"
    assert S.keep_user_sections(old, new, is_uwi=False) == new + "\n## 回答\n\nx\n"


def test_keep_comment_that_is_not_the_last_h2():
    old = AWI + "\n## ユーザーコメント\n\nkeep me\n\n## 追記\n\nagent notes\n"
    got = S.keep_user_sections(old, "# New\n\n## 追記\n\nnew notes\n")
    assert got == "# New\n\n## 追記\n\nnew notes\n\n## ユーザーコメント\n\nkeep me\n"


def test_keep_variant_headings_once():
    old = AWI + "\n> ## User comment\n> quoted\n\n## 回答\n\n### ユーザーコメント\nnested\n"
    got = S.keep_user_sections(old, "# New\n")
    assert got.count("nested") == 1 and "> ## User comment\n> quoted" in got


def test_keep_carries_answer_and_comment_for_uwi_in_order():
    old = UWI + "\n## 回答\n\n- 1: A) Strict\n\n## ユーザーコメント\n\nnote\n"
    new = "# Reworded question\n\n## 質問\nWhich?\n\n\n"
    got = S.keep_user_sections(old, new, is_uwi=True)
    assert got == "# Reworded question\n\n## 質問\nWhich?\n\n## 回答\n\n- 1: A) Strict\n\n## ユーザーコメント\n\nnote\n"
    assert S.keep_user_sections(old, got, is_uwi=True) == got


def test_keep_new_body_section_wins():
    old = UWI + "\n## 回答\n\nold\n"
    new = "# New\n\n## Answer\n\nnew answer\n"
    assert S.keep_user_sections(old, new, is_uwi=True) == new
    old_c = AWI + "\n## ユーザーコメント\n\nold\n"
    new_c = "# New\n\n## User comment\n\nmine\n"
    assert S.keep_user_sections(old_c, new_c, is_uwi=False) == new_c


def test_keep_answer_goes_before_new_trailing_comment():
    old = UWI + "\n## 回答\n\nold\n"
    new = "# New\n\n## ユーザーコメント\n\nc\n"
    got = S.keep_user_sections(old, new, is_uwi=True)
    assert got == "# New\n\n## 回答\n\nold\n\n## ユーザーコメント\n\nc\n"


def test_keep_copies_sections_byte_exact():
    old = "# T\r\n\r\n## 回答  \r\n\r\n- 1: A) x  \r\ntrailing\r\n\r\n"
    got = S.keep_user_sections(old, "# T2\n", is_uwi=True)
    assert got == "# T2\n\n## 回答  \r\n\r\n- 1: A) x  \r\ntrailing\r\n"


def test_keep_without_old_sections_is_identity():
    assert S.keep_user_sections(AWI, "# x\n\n\n", is_uwi=True) == "# x\n\n\n"


# --------------------------------------------------------------------------- properties

_FRAGMENTS = [
    "## 回答",
    "## Answer",
    "## ユーザーコメント",
    "## User comment",
    "# Title",
    "## 質問",
    "### 回答",
    "```",
    "~~~",
    "````",
    "    ## 回答",
    "text",
    "- 1: A) x",
    "\\## x",
    "",
    " ",
    "\r",
    "##",
    "#",
]
_line = st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=12))
_bodies = st.lists(_line, max_size=14).flatmap(
    lambda lines: st.sampled_from(["\n", "\r\n"]).map(lambda eol: eol.join(lines))
) | st.text(max_size=80)
_choices = st.dictionaries(st.integers(1, 20), st.text(max_size=15), max_size=4)
_texts = st.lists(_line, max_size=6).map("\n".join) | st.text(max_size=40)

_settings = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_settings
@given(_bodies, _choices, _texts)
def test_property_set_answer_round_trip_and_idempotent(body, choices, text):
    section = S.format_answer(choices, text)
    once = S.set_answer(body, section)
    assert S.set_answer(once, section) == once
    assert S.answer_text(once) == S.answer_text(section)
    got_choices, _ = S.split_answer(S.answer_text(once))
    assert got_choices == {k: " ".join(v.split()) for k, v in choices.items()}
    assert S.is_answered(once) == bool(choices or text.strip())


@_settings
@given(_bodies, _choices, _texts, _texts)
def test_property_set_answer_replaces_previous_answer(body, choices, text, text2):
    first = S.set_answer(body, S.format_answer(choices, text))
    second = S.set_answer(first, S.format_answer({}, text2))
    assert S.answer_text(second) == S.answer_text(S.format_answer({}, text2))
    assert second == S.set_answer(body, S.format_answer({}, text2))


@_settings
@given(_bodies)
def test_property_set_answer_only_appends_when_no_answer(body):
    if S.answer_text(body) is not None or S.comment_text(body) is not None:
        return
    section = "## 回答\n\nx\n"
    got = S.set_answer(body, section)
    assert S.answer_text(got) == "x"
    if S._Scan(body).open_fence is None:
        # nothing but trailing whitespace of the body is changed before the section
        eol = "\r\n" if got.endswith("\r\n") else "\n"
        appended = section.replace("\n", eol)
        assert got.endswith(appended)
        assert got[: len(got) - len(appended)].rstrip() == body.rstrip()


@_settings
@given(_bodies, _texts)
def test_property_append_comment(body, text):
    if not text.strip():
        return
    got = S.append_comment(body, text)
    assert S.comment_text(got) is not None
    assert S.comment_text(got).endswith(S.comment_text(S.append_comment("", text)))
    before = S.comment_text(body)
    if before:
        assert S.comment_text(got).startswith(before)


@_settings
@given(_bodies, _bodies, st.booleans())
@example(old="## ユーザーコメント\n### 回答\n##\n## 回答\n## ユーザーコメント", new="", is_uwi=False)  # found by hypothesis
def test_property_keep_user_sections_idempotent(old, new, is_uwi):
    got = S.keep_user_sections(old, new, is_uwi=is_uwi)
    assert S.keep_user_sections(old, got, is_uwi=is_uwi) == got
    if S.comment_text(old) is not None and "comment" not in S.user_section_kinds(new):
        comments = [k for k, *_ in headings.user_only_spans(old, skip_indented=True) if k == headings.COMMENT]
        if len(comments) == 1:
            assert S.comment_text(got) == S.comment_text(old)
        else:  # several comment sections: every one is carried; which reads as "the" comment
            # follows the rule's placement (answers, then comments last), not the old order
            assert S.comment_text(got) is not None
            kept = [k for k, *_ in headings.user_only_spans(got, skip_indented=True) if k == headings.COMMENT]
            assert len(kept) >= len(comments)
    if is_uwi and S.answer_text(old) is not None and "answer" not in S.user_section_kinds(new):
        # an answer whose code fence ran to the end of the old body gets the fence closed
        assert S.answer_text(got).startswith(S.answer_text(old))
        if S._Scan(old).open_fence is None:
            assert S.answer_text(got) == S.answer_text(old)


def _expected_text(text: str) -> str:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


@_settings
@given(_bodies, _choices, _texts)
def test_property_split_answer_recovers_choices_and_text(body, choices, text):
    if "\\" in text or S._Scan(text.replace("\r", "\n")).open_fence is not None:
        return  # the documented ambiguities (user-typed escapes, fences closed for them)
    got = S.split_answer(S.answer_text(S.set_answer(body, S.format_answer(choices, text))))
    assert got == ({k: " ".join(v.split()) for k, v in choices.items()}, _expected_text(text))


def test_keep_two_answer_sections_both_kept():
    old = "# T\n\n## 回答\n\nfirst\n\n# Other\n\n## 回答\n\nsecond\n"
    got = S.keep_user_sections(old, "# New\n")
    assert "first" in got and "second" in got and S.answer_text(got) == "second"
