"""`atk elsewhere list` (issue 31): the Elsewhere view's rows for agents and scripts, through a
fake `gh` on the PATH (support/ghkit.py). JSON Lines in an agent environment, exit codes 0/1/2."""

from __future__ import annotations

import json

import pytest
from support.clikit import Atk
from support.ghkit import READY_ORDER, WAITING, FakeGh, seed_repos

from atk_tui.service import Service
from atk_tui.service.elsewhere.afkkit import HOW_TO_INSTALL, HOW_TO_LOG_IN, ORDER_BY_AGE


@pytest.fixture
def atk(svc: Service, capsys: pytest.CaptureFixture[str]) -> Atk:
    seed_repos(svc)
    return Atk(svc.root, capsys)


def records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def test_json_lines_in_an_agent_environment(atk: Atk, fake_gh: FakeGh, env_agent: None) -> None:
    rc, out, err = atk("elsewhere", "list")
    assert rc == 0, err
    got = records(out)
    assert {f"{r['repo']}#{r['number']}": r["label"] for r in got} == WAITING
    pr = next(r for r in got if r["number"] == 30)
    assert (pr["kind"], pr["issue"], pr["url"]) == ("pr", 21, "https://github.com/acme/web/pull/30")
    assert {r["as_of"] for r in got} != {None} and all("problem" not in r for r in got)
    assert set(got[0]) >= {"repo", "number", "kind", "label", "title", "url", "since", "reason", "waited_seconds"}
    assert err == "atk: left out (not OWNER/REPO): local-notes\n"
    assert fake_gh.only_reads()


def test_text_rows_when_piped(atk: Atk, fake_gh: FakeGh) -> None:
    rc, out, _ = atk("elsewhere", "list")
    assert rc == 0
    lines = [line.split("\t") for line in out.splitlines()]
    assert [(c[0], c[1], c[2]) for c in lines][:2] == [("acme/web", "#12", "needs-planning"), ("acme/web", "#15", "blocked")]
    assert lines[2][5] == "Stopped: the test gate failed after the fix round"


def test_the_ready_queue_in_run_order(atk: Atk, fake_gh: FakeGh) -> None:
    rc, out, _ = atk("elsewhere", "list", "--ready", "--json")
    assert rc == 0
    got = records(out)
    order: dict[str, list[int]] = {}
    for r in got:
        if r["order"]:
            order.setdefault(r["repo"], []).append(r["number"])
    assert order == READY_ORDER
    assert {r["rule"] for r in got if r["repo"] == "acme/api"} == {ORDER_BY_AGE}
    stacked = next(r for r in got if r["number"] == 43)
    assert stacked["order"] is None and stacked["skipped"].startswith("stacked")
    rc, text, _ = atk("elsewhere", "list", "--ready")
    assert text.splitlines()[0].split("\t")[:4] == ["acme/api", "1", "#8", "-"]


def test_logged_out_without_a_last_look_fails_with_one_line(atk: Atk, fake_gh: FakeGh) -> None:
    fake_gh.scenario(mode="logged-out")
    rc, out, err = atk("elsewhere", "list")
    assert (rc, out) == (1, "")
    assert err.splitlines()[-1] == f"atk: never looked · {HOW_TO_LOG_IN}"
    assert "Traceback" not in err


def test_logged_out_after_a_look_answers_from_it_and_says_why(atk: Atk, fake_gh: FakeGh) -> None:
    assert atk("elsewhere", "list")[0] == 0
    fake_gh.scenario(mode="logged-out")
    rc, out, err = atk("elsewhere", "list", "--json")
    assert rc == 0 and {r["problem"] for r in records(out)} == {HOW_TO_LOG_IN}
    assert f"as of just now · {HOW_TO_LOG_IN}" in err


def test_cached_asks_no_gh(atk: Atk, fake_gh: FakeGh) -> None:
    rc, _, err = atk("elsewhere", "list", "--cached")
    assert rc == 1 and "never looked at GitHub from this store" in err and fake_gh.calls() == []
    atk("elsewhere", "list")
    fake_gh.reset_calls()
    rc, out, err = atk("elsewhere", "list", "--cached", "--json")
    assert rc == 0 and len(records(out)) == len(WAITING) and fake_gh.calls() == []
    assert "as of just now" in err


def test_no_gh_is_one_line_and_exit_1(atk: Atk) -> None:
    rc, out, err = atk("elsewhere", "list")  # ATK_GH names no program (tests/conftest.py)
    assert (rc, out) == (1, "")
    assert err.splitlines()[-1] == f"atk: never looked · {HOW_TO_INSTALL}"


def test_target_repo_narrows_the_look(atk: Atk, fake_gh: FakeGh) -> None:
    rc, out, _ = atk("elsewhere", "list", "--target-repo", "acme/api", "--json")
    assert rc == 0 and out == ""
    assert {c[2] for c in fake_gh.calls()} == {"--repo=acme/api"}


def test_usage_errors_exit_2(atk: Atk) -> None:
    assert atk("elsewhere", "list", "--json", "--no-json")[0] == 2
    assert atk("elsewhere")[0] == 2
