"""Issue #6: hostile input. Hypothesis over item files, question bodies and configs (CI size,
derandomized), and a corpus of broken or malicious files committed into a store and run
through `atk wi list` (JSON, piped text, a pty) and the real dashboard in tmux; and (issue 25)
what a web page the person visits could send to `atk-tui --serve` (`SERVE_ATTACKS`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from support.faults import DECISION_ATTACKS, ROUND3_ATTACKS, SCENARIOS
from support.fuzz import (
    UNLISTED,
    build_hostile_store,
    check_config,
    check_dashboard,
    check_item,
    check_list_outputs,
    check_questions,
    config_files,
    hostile_corpus,
    item_files,
    question_bodies,
)
from support.serve import SERVE_ATTACKS, run_attack, serving
from support.tools import need_tool

from atk_tui.store import init_store

CI = settings(max_examples=300, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))


@CI
@given(item_files())
def test_item_parsing_never_raises(fx: tuple[str, bytes]) -> None:
    check_item(*fx)


@CI
@given(question_bodies())
def test_question_parsing_never_raises(body: str) -> None:
    check_questions(body)


@CI
@given(config_files())
def test_config_loading_never_raises(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        check_config(Path(d), data)


def test_corpus_has_twenty_kinds(tmp_path: Path) -> None:
    cases = hostile_corpus(tmp_path / "PWNED")
    assert len({c.kind for c in cases}) >= 20


def test_corpus_covers_issue_10(tmp_path: Path) -> None:
    kinds = {c.kind for c in hostile_corpus(tmp_path / "PWNED")}
    assert {
        "symlink-relative-out-of-store", "symlinked-state-folder", "symlinked-plan-file", "conflict-markers",
        "osc-in-frontmatter-key", "markup-close-tags-title", "uwi-10000-questions",
    } <= kinds  # fmt: skip


def test_corpus_covers_issue_25(tmp_path: Path) -> None:
    kinds = {c.kind for c in hostile_corpus(tmp_path / "PWNED")}
    assert {
        "newline-tab-in-filename", "uwi-empty-choice-line", "uwi-other-without-text", "uwi-complete-answer",
        "cooldown-past-year-9999", "duplicate-keys", "duplicate-nested-key",
        # the independent check's variants
        "uwi-letter-not-an-option", "uwi-zero-width-answer", "uwi-other-with-invisible-notes", "duplicate-key-quoted",
        "duplicate-key-escaped",
    } <= kinds  # fmt: skip


def test_corpus_answers_count_only_when_complete() -> None:
    for case in hostile_corpus(Path("/nonexistent/PWNED")):
        if case.answered is not None:
            assert check_item(case.filename, case.data).answered is case.answered, case.kind


# a symbolic link is a store-level defect, checked through `atk wi list` below
@pytest.mark.parametrize(
    "case", [c for c in hostile_corpus(Path("/nonexistent/PWNED")) if c.special not in UNLISTED], ids=lambda c: c.kind
)
def test_corpus_file_parses_with_its_defect(case) -> None:
    item = check_item(case.filename, case.data)
    if case.defect is not None and case.special != "two-states":
        assert item.defects, case.kind
        assert any(case.defect in d for d in item.defects), item.defects


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("hostile")
    root, cases = build_hostile_store(tmp)
    return tmp, root, cases


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT")}
    env["XDG_CONFIG_HOME"] = str(tmp / "xdg")
    return env


def test_atk_wi_list_on_hostile_store(hostile_store) -> None:
    tmp, root, cases = hostile_store
    result = check_list_outputs(root, cases, _env(tmp))
    assert result["problems"] == []
    assert result["json_rows"] >= len([c for c in cases if c.special not in UNLISTED])
    assert not (tmp / "PWNED").exists(), "a YAML tag executed code"


@pytest.mark.e2e
def test_dashboard_on_hostile_store(hostile_store) -> None:
    need_tool("tmux")
    tmp, root, cases = hostile_store
    result = check_dashboard(root, cases, _env(tmp), tmp)
    assert result["problems"] == []


@pytest.fixture(scope="module")
def served_store(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("serve")
    root, _ = init_store(tmp / "notes")
    with serving(root, env=_env(tmp)) as served:
        yield served


@pytest.mark.parametrize("attack", SERVE_ATTACKS, ids=lambda a: a.name)
def test_serve_refuses_what_a_web_page_could_send(served_store, attack) -> None:
    assert run_attack(served_store, attack, other_port=served_store.port + 1) is None


@pytest.mark.parametrize("name", DECISION_ATTACKS)
def test_the_persons_decisions_hold(name: str, tmp_path: Path) -> None:
    """Issue 25, short form: a rewritten remote, an agent's `conflicts apply`, hand moves
    through `commit`, the person's commit in a shared tree (the fault library's scenarios)."""
    assert SCENARIOS[name](tmp_path)


@pytest.mark.parametrize("name", ROUND3_ATTACKS)
def test_round3_attacks_hold(name: str, tmp_path: Path) -> None:
    """Issue 38, short form: an agent's hand commit pushed by atk, its own conflict ref, named
    pipes in `.git`, gh flooding (the fault library's scenarios)."""
    assert SCENARIOS[name](tmp_path)
