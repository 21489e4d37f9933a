"""Reading and writing one item file (atk_tui/itemfile/items.py, SPEC §4)."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta, timezone

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.storekit import AWI_BODY, UWI_BODY

from atk_tui.itemfile import sections
from atk_tui.itemfile.items import (
    blob_sha,
    fast_load,
    find_title,
    new_file_text,
    parse_item,
    set_keys,
    split_frontmatter,
    validate_frontmatter,
    with_frontmatter,
)


def test_parse_keeps_text_exact_and_reads_fields() -> None:
    text = (
        "---\nkind: uwi\nsource: process-wi\ntarget_repo: acme/webapp\ntarget_commit: 3f2a\n"
        "depends_on: [a.md, b.md]\ncooldown_until: 2026-11-30T09:00:00+09:00\ncreated: 2026-11-29T05:12:00Z\n"
        "urgency: next-review\nnote: merged\ncustom_key: kept as is\n---\n" + UWI_BODY
    )
    item = parse_item("x.md", "inbox", text.encode())
    assert item.defects == []
    assert item.text == text and item.fm_block + item.body == text and item.body == UWI_BODY
    assert (item.kind, item.source, item.target_repo, item.target_commit) == ("uwi", "process-wi", "acme/webapp", "3f2a")
    assert item.depends_on == ["a.md", "b.md"]
    assert item.cooldown_until == datetime(2026, 11, 30, 0, 0, tzinfo=UTC)
    assert item.created == datetime(2026, 11, 29, 5, 12, tzinfo=UTC)
    assert item.urgency == "next-review" and item.note == "merged"
    assert item.data["custom_key"] == "kept as is"
    assert item.title == "Which email validation should be the project standard?"
    assert item.blob == blob_sha(text.encode()) and item.size == len(text.encode())


def test_defaults_and_types() -> None:
    item = parse_item("20261129-x.md", "hold", b"---\nkind: awi\ntarget_repo: r\ncommit: 1234567\nnote: yes\n---\nno heading\n")
    assert item.defects == []
    assert item.title == "no heading"  # the body's first line when there is no H1 (issue 26)
    assert item.commit == "1234567" and item.note == "True"  # YAML scalars meant as text
    assert item.urgency == "blocking" and item.source is None and item.awi_type == "normal"
    assert item.created is None and item.depends_on == []


def test_naive_created_is_taken_as_utc() -> None:
    item = parse_item("x.md", "inbox", b"---\nkind: awi\ntarget_repo: r\ncreated: 2026-11-29 05:12:00\n---\n")
    assert item.defects == [] and item.created == datetime(2026, 11, 29, 5, 12, tzinfo=UTC)


def test_bom_and_crlf() -> None:
    text = "\ufeff---\r\nkind: awi\r\ntarget_repo: r\r\n---\r\n# Title\r\n"
    item = parse_item("x.md", "inbox", text.encode())
    assert item.defects == [] and item.title == "Title" and item.text == text


def test_title_ignores_fenced_code() -> None:
    assert find_title("```\n# not a title\n```\n# Real\n") == "Real"
    assert find_title("## only h2\n") is None


def test_blob_sha_matches_git(tmp_path) -> None:
    data = b"---\nkind: awi\n---\nbody \xe2\x9c\x93\n"
    (tmp_path / "f").write_bytes(data)
    out = subprocess.run(["git", "hash-object", str(tmp_path / "f")], capture_output=True, text=True, check=True).stdout.strip()
    assert blob_sha(data) == out


def test_answered_and_comment_flags() -> None:
    q = parse_item("q.md", "inbox", f"---\nkind: uwi\ntarget_repo: r\n---\n{UWI_BODY}\n## ANSWER\n\n- 1: A\n".encode())
    assert q.answered
    q = parse_item("q.md", "inbox", f"---\nkind: uwi\ntarget_repo: r\n---\n{UWI_BODY}\n## 回答\n\n\n".encode())
    assert not q.answered  # an empty section is no answer
    a = parse_item("a.md", "inbox", f"---\nkind: awi\ntarget_repo: r\n---\n{AWI_BODY}\n## User   Comment\n\nhi\n".encode())
    assert a.has_comment
    a = parse_item("a.md", "inbox", f"---\nkind: awi\ntarget_repo: r\n---\n{AWI_BODY}\n## ユーザーコメント\n\nhi\n\n## Later\n".encode())
    assert not a.has_comment  # only as the trailing H2


def test_lint_warnings() -> None:
    a = parse_item("a.md", "inbox", f"---\nkind: awi\ntarget_repo: r\nsource: s\n---\n{AWI_BODY}".encode())
    assert a.warnings == ["missing bullet: 適用範囲"]  # required when source is set
    a = parse_item("a.md", "inbox", f"---\nkind: awi\ntarget_repo: r\n---\n{AWI_BODY}".encode())
    assert a.warnings == []
    p = parse_item("a.md", "inbox", b"---\nkind: awi\ntarget_repo: r\nplan_file: p.md\n---\n# plan\n")
    assert p.warnings == [] and p.awi_type == "plan"


# --- writing --------------------------------------------------------------------------

FM = (
    "# leading comment\n"
    "kind: awi   # trailing comment\n"
    "zeta: 1\n"
    "target_repo: acme/webapp\n"
    "depends_on:\n"
    "  - a.md\n"
    "  - b.md\n"
    "# between\n"
    "note: |\n"
    "  line one\n"
    "  line two\n"
    "alpha: {x: [1, 2]}\n"
)


def test_set_keys_rewrites_only_its_keys_in_place() -> None:
    out = set_keys(FM, {"depends_on": ["c.md"], "note": "short"})
    assert out.splitlines() == [
        "# leading comment",
        "kind: awi   # trailing comment",
        "zeta: 1",
        "target_repo: acme/webapp",
        "depends_on: [c.md]",
        "# between",
        "note: short",
        "alpha: {x: [1, 2]}",
    ]
    loaded = yaml.safe_load(out)
    assert list(loaded) == ["kind", "zeta", "target_repo", "depends_on", "note", "alpha"]


def test_set_keys_adds_new_keys_at_the_end_and_removes() -> None:
    out = set_keys(FM, {"commit": "a" * 40, "depends_on": None})
    assert out.endswith(f"alpha: {{x: [1, 2]}}\ncommit: {'a' * 40}\n")
    assert "depends_on" not in out and "# between\n" in out and "  - a.md" not in out


@pytest.mark.parametrize(
    "value",
    ["plain", "merged in #42: yes", "yes", "1234567", "null", "- dash", "'quoted'", 'say "hi"', "multi\nline", "tab\there", "  padded  ", "", "日本語"],
)
def test_set_keys_values_round_trip(value: str) -> None:
    out = set_keys("kind: awi\ntarget_repo: r\n", {"note": value})
    assert yaml.safe_load(out)["note"] == value


def test_set_keys_refuses_foreign_keys_and_unsafe_layouts() -> None:
    with pytest.raises(ValueError, match="not a key atk owns"):
        set_keys(FM, {"zeta": 2})
    with pytest.raises(ValueError):
        set_keys("kind: awi\nx: {a: 1,\nnote: 2}\n", {"note": "hi"})


def test_set_keys_keeps_crlf() -> None:
    out = set_keys("kind: awi\r\nnote: x\r\ntarget_repo: r\r\n", {"note": "y", "commit": "z"})
    assert out == "kind: awi\r\nnote: y\r\ntarget_repo: r\r\ncommit: z\r\n"


def test_with_frontmatter_and_new_file_text() -> None:
    text = new_file_text(
        {"urgency": "blocking", "kind": "uwi", "target_repo": "r", "created": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "depends_on": ["a.md"]},
        "# Q",
    )
    assert text == "---\nkind: uwi\ntarget_repo: r\ndepends_on: [a.md]\ncreated: 2026-01-02T03:04:05Z\nurgency: blocking\n---\n# Q\n"
    head, fm, body = split_frontmatter(text)
    assert with_frontmatter(head, fm, "kind: awi\n") + body == "---\nkind: awi\n---\n# Q\n"
    with pytest.raises(ValueError):
        with_frontmatter(head, "other: 1\n", "x: 2\n")


# --- validation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "errors"),
    [
        ({}, ["kind: required", "target_repo: required"]),
        ({"kind": "AWI", "target_repo": "r"}, ["kind: 'AWI' is not one of 'awi' or 'uwi'"]),
        ({"kind": "awi", "target_repo": None}, ["target_repo: must be text, got NoneType"]),
        ({"kind": "awi", "target_repo": "r", "depends_on": {"a": 1}}, ["depends_on: must be a list, got dict"]),
        ({"kind": "awi", "target_repo": "r", "depends_on": ["ok.md", 2, None]}, ["depends_on.1: must be text, got int", "depends_on.2: must be text, got NoneType"]),
        ({"kind": "awi", "target_repo": "r", "created": 5}, ["created: must be a date-time, got int"]),
        ({"kind": "awi", "target_repo": "r", "urgency": "blocking", "plan_file": 3}, ["plan_file: must be text, got int"]),
        ({"kind": "awi", "target_repo": "r", "cooldown_until": datetime(2026, 1, 1)}, ["cooldown_until: needs a timezone, e.g. 2026-11-30T09:00:00+09:00"]),
    ],
)
def test_validate_frontmatter_messages(data: dict, errors: list[str]) -> None:
    assert validate_frontmatter(data)[1] == errors


def test_validate_accepts_aware_times_and_text_scalars() -> None:
    jst = timezone(timedelta(hours=9))
    fm, errors = validate_frontmatter(
        {"kind": "uwi", "target_repo": "r", "cooldown_until": datetime(2026, 1, 1, tzinfo=jst), "source": 3, "commit": 1.5}
    )
    assert errors == [] and fm["source"] == "3" and fm["commit"] == "1.5"


# --- the fast frontmatter reader agrees with PyYAML -----------------------------------

KEYS = st.sampled_from(["kind", "target_repo", "depends_on", "note", "created", "x", "yes", "on", "null", "a_b", "k-1"])
SCALARS = st.one_of(
    st.sampled_from(
        [
            "awi", "uwi", "acme/webapp", "yes", "No", "off", "null", "~", "true", "1", "0x1f", "1_000", "1.5", ".inf",
            "2026-11-29T05:12:00Z", "2026-11-29T05:12:00+09:00", "2026-13-29T05:12:00Z", "2026-11-29", "12:30:00",
            "20261128-101500-pick-email-rule.md", "$(atk config get private_notes)/plans/2026/11/x.md", "a b  c",
            "=", "<<", "x:y", "1.md", "0x1f.md", "yes.md", "~.md", ".inf.md", "2026-11-29.md", "1_0.md", "x: y", "x #c", "'q'", '"q"', "[a, b]", "[]", "[ a.md ,b.md ]", "[a.md, [b]]", "[a.md,]",
            "{a: 1}", "- x", "merged in acme/api#9356", "a#b", "a #b", "a:b", "a:", "a: b", "a,b", "1:30", "a:#b", "!!str 1", "&a x", "*a", "|", ">", "%x", "@x", "`x", "été", "a\tb",
        ]
    ),
    st.text(alphabet="abcXYZ019 _-./:$()#[],'\"!&*{}", min_size=1, max_size=12),
)
LINES = st.one_of(
    st.tuples(KEYS, SCALARS).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    st.sampled_from(["", "# comment", "  indented: 1", "- item", "key:", "key:  spaced", "key :x", "dup: 1"]),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINES, max_size=8))
def test_fast_load_matches_pyyaml(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    fast = fast_load(text)
    if fast is None:
        return  # PyYAML takes it
    expected = yaml.load(text, Loader=yaml.CSafeLoader) or {}
    assert fast == expected
    assert [type(v) for v in fast.values()] == [type(v) for v in expected.values()]
    for k, v in fast.items():
        if isinstance(v, datetime):
            assert v.utcoffset() == expected[k].utcoffset()


def test_letter_first_scalars_resolve_as_pyyaml_does() -> None:
    """`_tag`'s table is PyYAML's: the same first characters, and for letters the same words."""
    from yaml.resolver import Resolver

    from atk_tui.itemfile.yamlread import _LETTER_WORDS, _RESOLVED_FIRST, _tag

    assert set(Resolver.yaml_implicit_resolvers) - {""} == _RESOLVED_FIRST
    words = [*_LETTER_WORDS, "yES", "Yess", "nul", "NULLs", "onion", "of", "Off.", "Tru", "nO", "kind", "été", "_x", "Ñ"]
    for w in [*words, *(w.swapcase() for w in words)]:
        assert _tag(w) == Resolver().resolve(yaml.ScalarNode, w, (True, False)), w


def test_fast_load_takes_the_common_shape() -> None:
    text = (
        "kind: awi\nsource: process-wi\ntarget_repo: acme/webapp\n"
        "plan_file: $(atk config get private_notes)/plans/2026/11/login.md\n"
        "depends_on: [20261128-101500-pick-email-rule.md, b.md]\ncreated: 2026-11-29T05:12:00Z\n"
    )
    assert fast_load(text) == yaml.safe_load(text)
    assert fast_load("kind: awi\nnote: 'quoted'\n") is None
    # an adopt note names a pull request: still the fast shape
    assert fast_load("note: merged in acme/api#9356, see x:y\n") == {"note": "merged in acme/api#9356, see x:y"}


# --- the cheap answer/comment pre-check agrees with the section scanner -----------------

BODY_LINES = st.sampled_from(
    [
        "# Title", "## 質問", "## 回答", "## ANSWER", "## answer ##", "##  Answer", "### 回答", "## Answers",
        "## ユーザーコメント", "## User comment", "## user\u3000comment", "## USER   COMMENT", "## Comment",
        "```", "~~~", "    ## 回答", "- 1: A", "text", "", "answer", "comment", "## anſwer", "## ﬀ",
    ]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(BODY_LINES, max_size=12), st.sampled_from(["awi", "uwi"]))
def test_flags_match_sections(lines: list[str], kind: str) -> None:
    body = "\n".join(lines) + "\n"
    item = parse_item("x.md", "inbox", f"---\nkind: {kind}\ntarget_repo: r\n---\n{body}".encode())
    if kind == "uwi":
        assert item.answered == sections.is_answered(body)
    else:
        assert item.has_comment == bool((sections.comment_text(body) or "").strip())
