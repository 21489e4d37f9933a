"""Needs you, elsewhere (issue 31): afkkit's escalations, reviews and ready queue read through a
fake `gh` on the PATH (support/ghkit.py: recorded `--json` output, logged out, rate limited,
failing, held past its time limit). Real stores; no test reaches the network."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.ghkit import READY_ORDER, WAITING, FakeGh, recorded, seed_repos, write_config

from atk_tui.service import Service
from atk_tui.service.elsewhere import afkkit as elsewhere
from atk_tui.service.elsewhere.afkkit import (
    HOW_TO_INSTALL,
    HOW_TO_LOG_IN,
    ORDER_BY_AGE,
    ORDER_BY_PRIORITY,
    Elsewhere,
    first_line,
    github_repo,
    is_stop_report,
    priority_of,
    run_order,
)


@pytest.fixture
def looked(svc: Service, fake_gh: FakeGh) -> Elsewhere:
    """The recorded runs, looked at once."""
    seed_repos(svc)
    return svc.elsewhere.refresh()


def rows(found: Elsewhere) -> dict[str, str]:
    return {w.key: w.label for w in found.waiting}


def views(gh: FakeGh) -> list[str]:
    return [c[2] for c in gh.calls() if c[:2] == ["issue", "view"]]


# -- the rows ----------------------------------------------------------------------------------


def test_the_rows_are_what_waits_for_the_person(looked: Elsewhere, fake_gh: FakeGh) -> None:
    assert rows(looked) == WAITING  # #19 is in progress with no stop report: a run is at work
    by = {w.key: w for w in looked.waiting}
    assert by["acme/web#12"].reason == "afkkit: escalated to needs-planning (spec gate)"
    assert "1. Okta or Google Workspace" in by["acme/web#12"].comment
    assert by["acme/web#12"].since == datetime(2026, 11, 27, 9, 0, 2, tzinfo=UTC)  # the stop report, not the label
    assert by["acme/web#15"].reason.startswith("Blocked by #9: afkkit stopped before starting")
    assert by["acme/web#18"].reason == "Stopped: the test gate failed after the fix round"
    assert by["acme/web#18"].comment_url == "https://github.com/acme/web/issues/18#issuecomment-2590"
    pr = by["acme/web#30"]
    assert (pr.kind, pr.issue, pr.url) == ("pr", 21, "https://github.com/acme/web/pull/30")
    assert by["acme/web#22"].kind == "issue" and "no open PR" in by["acme/web#22"].reason
    assert looked.skipped == ["local-notes"] and looked.repos == ["acme/api", "acme/web"]
    assert looked.problem == "" and looked.repo_errors == {}
    assert fake_gh.only_reads()
    assert all("--json" in c for c in fake_gh.calls())


def test_the_ready_queue_in_afkkits_run_order(looked: Elsewhere) -> None:
    queues = {q.repo: q for q in looked.ready}
    assert {r: [i.number for i in q.issues if i.order] for r, q in queues.items()} == READY_ORDER
    web, api = queues["acme/web"], queues["acme/api"]
    assert [i.order for i in web.issues if i.order] == [1, 2, 3, 4, 5]
    assert web.by_priority and web.rule == ORDER_BY_PRIORITY
    assert not api.by_priority and api.rule == ORDER_BY_AGE  # said: no priority labels, by age
    stacked = [i for i in web.issues if i.number == 43]
    assert stacked[0].order is None and stacked[0].skipped.startswith("stacked")
    assert (web.open_prs, api.open_prs) == (2, 0)


def test_run_order_ties_and_unrated() -> None:
    def rec(n: int, updated: str, *labels: str) -> dict:
        return {"number": n, "title": f"t{n}", "updatedAt": updated, "labels": [{"name": x} for x in ("ready", *labels)]}

    queue = run_order("o/r", [
        rec(1, "2026-11-03T00:00:00Z"), rec(2, "2026-11-02T00:00:00Z", "P1"), rec(3, "2026-11-01T00:00:00Z", "priority/high"),
        rec(4, "2026-11-04T00:00:00Z", "P0"), rec(5, "garbage", "P1"),
    ])  # fmt: skip
    assert [i.number for i in queue.issues] == [4, 3, 2, 5, 1]  # a time gh did not give: last of its level
    only_age = run_order("o/r", [rec(1, "2026-11-03T00:00:00Z"), rec(2, "2026-11-01T00:00:00Z")])
    assert [i.number for i in only_age.issues] == [2, 1] and not only_age.by_priority


def test_a_second_look_reads_only_the_issues_that_changed(looked: Elsewhere, svc: Service, fake_gh: FakeGh) -> None:
    assert sorted(views(fake_gh)) == ["12", "15", "18", "19"]
    fake_gh.reset_calls()
    again = svc.elsewhere.refresh()
    assert rows(again) == WAITING and views(fake_gh) == []  # nothing changed: no comment read again
    data = recorded()
    data["issue list acme/web in-progress"][1]["updatedAt"] = "2026-11-29T11:00:00Z"  # #19: a new comment
    data["issue view acme/web 19"]["comments"].append({
        "author": {"login": "mika"}, "body": "Escalated: `pnpm build` failed (exit code 2).", "createdAt": "2026-11-29T11:00:00Z",
        "url": "https://github.com/acme/web/issues/19#issuecomment-2611",
    })  # fmt: skip
    fake_gh.scenario(data)
    fake_gh.reset_calls()
    third = svc.elsewhere.refresh()
    assert views(fake_gh) == ["19"]
    assert rows(third) == {**WAITING, "acme/web#19": "in-progress"}
    assert [w.reason for w in third.waiting if w.number == 19] == ["Escalated: pnpm build failed (exit code 2)."]


# -- offline, logged out, rate limited, slow, failing ---------------------------------------------


def test_the_cache_answers_offline_with_its_age(looked: Elsewhere, svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    cached = svc.elsewhere.cached()
    assert cached is not None and rows(cached) == WAITING
    from atk_tui.cache import files

    assert files.path_of(svc.store.git_dir, elsewhere.CACHE_NAME).is_file()
    svc.clock.now += timedelta(hours=2)
    assert cached.age(svc.clock()) == "as of 2h ago"
    monkeypatch.setenv("ATK_GH", "/nonexistent/gh")  # gh uninstalled since
    found = svc.elsewhere.refresh()
    assert found.problem == HOW_TO_INSTALL and found.problem_kind == "missing"
    assert rows(found) == WAITING and found.fetched == looked.fetched  # the last rows, as old as they are
    assert "install it (https://cli.github.com), then run `gh auth login`" in found.summary(svc.clock())


def test_no_gh_and_no_cache_is_one_line_never_an_exception(svc: Service) -> None:
    seed_repos(svc)
    found = svc.elsewhere.refresh()  # tests/conftest.py: ATK_GH names no program
    assert found.problem == HOW_TO_INSTALL and found.waiting == [] and found.fetched is None
    assert found.summary(svc.clock()) == f"never looked · {HOW_TO_INSTALL}"


def test_logged_out_says_what_to_run(looked: Elsewhere, svc: Service, fake_gh: FakeGh) -> None:
    fake_gh.scenario(mode="logged-out")
    found = svc.elsewhere.refresh()
    assert found.problem == HOW_TO_LOG_IN == "gh is not logged in to GitHub: run `gh auth login`"
    assert found.problem_kind == "auth" and rows(found) == WAITING
    fake_gh.scenario()
    assert svc.elsewhere.refresh().problem == ""  # logged in again: the line goes


def test_a_rate_limit_backs_off_and_says_so(looked: Elsewhere, svc: Service, fake_gh: FakeGh) -> None:
    fake_gh.scenario(mode="rate-limit")
    found = svc.elsewhere.refresh()
    assert found.problem_kind == "rate" and "rate limit" in found.problem and "next look in 5m" in found.problem
    assert found.backoff_until == svc.clock() + timedelta(minutes=5) and rows(found) == WAITING
    fake_gh.reset_calls()
    svc.clock.now += timedelta(minutes=2)
    waiting = svc.elsewhere.refresh()
    assert fake_gh.calls() == []  # backing off: GitHub is not asked
    assert "backing off, next look in 3m" in waiting.problem
    svc.clock.now += timedelta(minutes=4)
    again = svc.elsewhere.refresh()  # asked again, limited again: twice as long
    assert fake_gh.calls() and "next look in 10m" in again.problem
    svc.clock.now += timedelta(minutes=11)
    fake_gh.scenario()
    ok = svc.elsewhere.refresh()
    assert ok.problem == "" and ok.backoff == 0 and ok.backoff_until is None and rows(ok) == WAITING


def test_a_gh_that_does_not_answer_is_stopped_at_its_time_limit(svc: Service, fake_gh: FakeGh) -> None:
    seed_repos(svc, ("acme/web",))
    write_config("[elsewhere]\ntimeout = 0.5\n")
    fake_gh.scenario(gated=True)  # never released: every gh call would wait a minute
    found = svc.elsewhere.refresh()
    assert found.repo_errors == {"acme/web": "gh did not answer within 0.5 s (`gh issue list`)"}
    assert found.waiting == []


def test_a_repository_that_fails_keeps_its_last_rows(looked: Elsewhere, svc: Service, fake_gh: FakeGh) -> None:
    gone = "GraphQL: Could not resolve to a Repository with the name 'acme/web'. (repository)"
    fake_gh.scenario(failures={"issue list acme/web needs-planning": gone})
    found = svc.elsewhere.refresh()
    assert found.repo_errors == {"acme/web": gone}
    assert rows(found) == WAITING  # its last rows are kept, said stale by the error
    assert {q.repo for q in found.ready} == {"acme/api", "acme/web"}


def test_gh_output_is_parsed_defensively(svc: Service, fake_gh: FakeGh) -> None:
    seed_repos(svc, ("acme/web",))
    hostile = "\x1b]52;c;aGVsbG8=\x07Steal the clipboard\u202e"
    fake_gh.scenario({
        "issue list acme/web needs-planning": [
            {"number": True, "title": "a bool is no number"}, {"number": "12", "title": "nor a string"}, "not a record",
            {"number": 5, "title": hostile, "labels": "ready", "updatedAt": "yesterday", "url": "javascript:alert(1)"},
        ],
        "issue view acme/web 5": {"comments": [{"body": 42}, {"body": "Escalated: see below", "createdAt": 7, "url": "https://x/\x1b"}]},
        "issue list acme/web ready": [{"number": 9, "title": ["a list"], "labels": [{"name": 3}, "x"], "updatedAt": None}],
    })  # fmt: skip
    found = svc.elsewhere.refresh()
    assert [(w.number, w.title, w.reason) for w in found.waiting] == [(5, hostile, "Escalated: see below")]
    w = found.waiting[0]
    assert w.url == "https://github.com/acme/web/issues/5" and w.comment_url == "" and w.since is None
    assert [(i.number, i.title, i.order) for i in found.ready[0].issues] == [(9, "", 1)]
    fake_gh.scenario({}, raw={"issue list acme/web blocked": '{"not": "a list"}'})
    assert svc.elsewhere.refresh().repo_errors == {"acme/web": "gh printed JSON that is not a list"}
    fake_gh.scenario({}, raw={"pr list acme/web": "Welcome to GitHub CLI!\x1b[31m\n"})
    assert svc.elsewhere.refresh().repo_errors == {"acme/web": "gh printed no JSON for `gh pr list`: Welcome to GitHub CLI!\x1b[31m"}


def test_what_is_not_a_github_repository_is_left_out(svc: Service, fake_gh: FakeGh) -> None:
    assert [github_repo(v) for v in ("acme/web", "https://github.com/acme/web.git", "git@github.com:acme/web.git",
            "github.com/acme/web", "ghe.example.com/acme/web")] == ["acme/web"] * 4 + ["ghe.example.com/acme/web"]  # fmt: skip
    assert [github_repo(v) for v in ("local-notes", "/home/me/proj", "-R/x", "acme/web/extra/parts", "acme/..", "", None)] == [None] * 7
    seed_repos(svc, ("acme/web", "/home/me/proj"))
    write_config('[elsewhere]\nrepos = ["acme/docs", "not a repo"]\n')
    assert svc.elsewhere.repos() == (["acme/docs", "acme/web"], ["/home/me/proj"])
    assert svc.elsewhere.settings().errors == ("config: [elsewhere] repos: 'not a repo' is not OWNER/REPO; left out",)
    only = Service(svc.root, clock=svc.clock, only_repo="acme/api")
    assert only.elsewhere.repos() == (["acme/api"], [])


def test_settings_and_their_errors() -> None:
    s = elsewhere.settings({"elsewhere": {"repos": ["a/b"], "interval": 0, "timeout": 3}})
    assert (s.repos, s.interval, s.timeout, s.errors) == (("a/b",), 0.0, 3.0, ())
    bad = elsewhere.settings({"elsewhere": {"repos": "a/b", "interval": -1, "timeout": 0, "colour": 1}})
    assert (bad.repos, bad.interval, bad.timeout) == ((), 300.0, 20.0)
    assert len(bad.errors) == 4 and "unknown [elsewhere] setting(s): colour; settings: repos, interval, timeout" in bad.errors[-1]


# -- the rules read from afkkit's comments --------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "stop"),
    [
        ("**afkkit: escalated to needs-planning** (spec gate)", True),
        ("Stopped: `pnpm test` failed", True),
        ("`gitkit prepare` failed with exit code 127", True),
        ("Blocked by #9 (open)", True),
        ("Remaining blockers: B1, B2", True),
        ("仕様ゲートで停止しました。未解決の質問:", True),
        ("エスカレーション: ブロッカー B1 が残っています", True),
        ("Working on it in the afkkit run: phase 1 of 3 is committed.", False),
        ("LGTM, merging after CI", False),
        ("no blockers so far", False),
    ],
)
def test_what_a_stop_report_is(body: str, stop: bool) -> None:
    assert is_stop_report(body) is stop


def test_priority_labels_and_first_lines() -> None:
    assert priority_of(["bug", "priority: high", "P0"]) == (0, "P0")
    assert priority_of(["critical"]) == (0, "critical") and priority_of(["high-priority"]) == (1, "high-priority")
    assert priority_of(["priority/low", "enhancement"]) == (3, "priority/low") and priority_of(["bug", "P9"]) is None
    assert first_line("\n\n## **Stopped:** the `gate` failed\n\nmore") == "Stopped: the gate failed"
    assert first_line("```\ncode\n```") == "code"
    assert len(first_line("x" * 500)) == 200


def test_open_in_the_browser_is_a_gh_view_web(svc: Service, fake_gh: FakeGh) -> None:
    assert svc.elsewhere.open("acme/web", 12, "issue").ok
    assert svc.elsewhere.open("acme/web", 30, "pr").ok
    assert fake_gh.calls() == [["issue", "view", "12", "--repo=acme/web", "--web"], ["pr", "view", "30", "--repo=acme/web", "--web"]]
    refused = svc.elsewhere.open("--exec=x", 1, "issue")
    assert not refused.ok and len(fake_gh.calls()) == 2
    fake_gh.scenario(mode="logged-out")
    out = svc.elsewhere.open("acme/web", 12, "issue")
    assert not out.ok and out.message == HOW_TO_LOG_IN


def test_the_fake_gh_refuses_writes(fake_gh: FakeGh, svc: Service) -> None:
    """The guard the other tests lean on: a write would be seen (and refused)."""
    from atk_tui.service.elsewhere.afkkit import Gh, GhProblem

    gh = Gh(svc.elsewhere.gh_children(), timeout=10, cwd=svc.root)
    with pytest.raises(GhProblem):
        gh.run(["issue", "edit", "12", "--repo=acme/web", "--add-label=ready"])
    assert not fake_gh.only_reads()


def test_the_cache_file_is_data_only(looked: Elsewhere, svc: Service) -> None:
    """The last look is one entry of the one cache format (cache/files.py): data, checked on
    every read; a damaged or a broken record is no look at all, never a crash."""
    from atk_tui.cache import files

    git_dir = svc.store.git_dir
    got = files.read(git_dir, elsewhere.CACHE_NAME)
    assert got is not None
    doc = json.loads(bytes(got[1]))
    assert doc["fetched"] == svc.clock().isoformat() and len(doc["waiting"]) == len(WAITING)
    path = files.path_of(git_dir, elsewhere.CACHE_NAME)
    path.write_bytes(path.read_bytes().replace(b'"waiting"', b'"waitinG"', 1))  # damaged: the CRC says so
    assert svc.elsewhere.cached() is None
    assert files.write(git_dir, elsewhere.CACHE_NAME, [b"{not json"])
    assert svc.elsewhere.cached() is None
    assert files.write(git_dir, elsewhere.CACHE_NAME, [json.dumps({"waiting": [{"repo": "a/b"}]}).encode()])  # a broken record
    assert svc.elsewhere.cached() is None
    Path(path).unlink()
    assert svc.elsewhere.cached() is None
