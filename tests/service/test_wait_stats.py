"""Wait statistics from the store's history (issue 16): exact waits, medians and blocked counts
on a scripted history (commit times set through GIT_AUTHOR_DATE / GIT_COMMITTER_DATE), including
re-answered, partially answered, returned-to-inbox and removed questions; the incremental cache
agrees with a from-scratch read after new commits and after a rewritten history."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from support.stats_history import ANSWER_A, ANSWER_B, NOW, T0, History, awi, scripted_store, uwi

from atk_tui.service import Service
from atk_tui.service.history import stats
from atk_tui.store import init_store


@pytest.fixture
def store(tmp_path: Path) -> tuple[Path, History]:
    return scripted_store(tmp_path)


def _stats(root: Path, since: datetime | None = T0) -> stats.WaitStats:
    return Service(root).wait_stats(since=since, now=NOW)


def _by_name(ws: list[stats.QuestionWait]) -> dict[str, stats.QuestionWait]:
    return {w.filename: w for w in ws}


def test_exact_waits_and_blocked_counts(store) -> None:
    root, _ = store
    st = _stats(root)
    answered = _by_name(st.answered)
    assert [w.filename for w in st.answered] == ["q5.md", "q1.md", "q4.md"]  # in answer order
    assert answered["q5.md"].wait == timedelta(hours=1)  # returned to inbox later: still answered at +1 h
    assert answered["q1.md"].wait == timedelta(hours=5)  # re-answered at +6 h: the first answer counts
    assert answered["q4.md"].wait == timedelta(days=1)  # the partial answer did not end the wait
    assert (answered["q1.md"].blocked_direct, answered["q1.md"].blocked_all) == (1, 2)  # a1, and a2 through it
    assert [w.filename for w in st.open] == ["q2.md"]
    q2 = st.open[0]
    assert q2.wait == NOW - (T0 + timedelta(hours=2)) and q2.status == "open"
    assert (q2.blocked_direct, q2.blocked_all) == (1, 1)
    assert [(w.filename, w.wait) for w in st.removed] == [("q3.md", timedelta(hours=1))]


def test_median_percentile_longest_and_per_day(store) -> None:
    root, _ = store
    st = _stats(root)
    assert st.median == timedelta(hours=5)  # of 1 h, 5 h, 1 d
    assert st.p90 == timedelta(days=1)  # nearest rank: the 3rd of 3
    assert [w.filename for w in st.longest] == ["q2.md", "q4.md", "q1.md", "q5.md"]
    assert st.per_day == [
        (date(2026, 11, 1), 2),
        (date(2026, 11, 2), 0),
        (date(2026, 11, 3), 0),
        (date(2026, 11, 4), 1),
        (date(2026, 11, 5), 0),
    ]
    later = _stats(root, since=T0 + timedelta(days=2))  # only q4 answered in the period
    assert [w.filename for w in later.answered] == ["q4.md"] and later.median == timedelta(days=1)
    assert later.removed == []


def test_items_waiting_on_questions_and_headline(store) -> None:
    root, _ = store
    st = _stats(root)
    waited = {i.filename: i.waited for i in st.items}
    assert waited == {"a1.md": timedelta(hours=5), "a3.md": NOW - (T0 + timedelta(hours=2))}
    assert st.headline() == "1 question waiting · oldest 3 d 22 h · answering q2.md unblocks 1 item"
    data = st.to_json()
    assert data["median_wait_seconds"] == 5 * 3600 and data["open"][0]["blocked_direct"] == 1
    json.dumps(data)  # serialisable


def test_the_cache_is_incremental_and_never_stale(store) -> None:
    root, h = store
    _stats(root)
    cache = root / ".git" / "atk-cache" / "stats.cache"
    assert cache.exists()
    # a new commit: read incrementally, same result as from scratch
    h.write("inbox", "q2.md", uwi("Q two", answer=ANSWER_A))
    h.commit(T0 + timedelta(days=3, hours=12), "atk: answer q2.md")
    warm = _stats(root).to_json()
    cache.unlink()
    cold = _stats(root).to_json()
    assert warm == cold
    assert _by_name(_stats(root).answered)["q2.md"].wait == timedelta(days=3, hours=10)
    # history rewritten under the cache (a reset, then a different commit): read again
    h.git("reset", "-q", "--hard", "HEAD~1")
    h.write("inbox", "q2.md", uwi("Q two", answer=ANSWER_B))
    h.commit(T0 + timedelta(days=3, hours=20), "atk: answer q2.md differently")
    warm = _stats(root).to_json()
    cache.unlink()
    assert warm == _stats(root).to_json()
    assert _by_name(_stats(root).answered)["q2.md"].wait == timedelta(days=3, hours=18)
    # a damaged cache is rebuilt, not trusted
    cache.write_text("{not json", encoding="utf-8")
    assert _stats(root).to_json() == warm


def test_a_dependency_dropped_before_the_answer_stops_counting(store) -> None:
    root, h = store
    h.write("inbox", "a3.md", awi("A three", []))
    h.commit(T0 + timedelta(days=3, hours=1), "atk: set-dependencies a3.md")
    st = _stats(root)
    assert (st.open[0].blocked_direct, st.open[0].blocked_all) == (0, 0)
    waited = {i.filename: i.waited for i in st.items}
    assert waited["a3.md"] == timedelta(days=2, hours=23)  # +2 h → +3 d 1 h


def test_the_services_own_answer_commit_ends_the_wait(tmp_path: Path) -> None:
    from support.storekit import UWI_BODY, add_item

    root, _ = init_store(tmp_path / "s")
    svc = Service(root)
    name = add_item(svc, body=UWI_BODY, kind="uwi", urgency="blocking")
    assert [w.filename for w in svc.wait_stats().open] == [name]
    out = Service(root, actor="user").answers.answer(name, choices={1: "A"}, text="")
    assert out.ok, out.message
    st = svc.wait_stats()
    assert st.open == [] and [w.filename for w in st.answered] == [name]


def test_parse_since() -> None:
    assert stats.parse_since("7d", now=NOW) == NOW - timedelta(days=7)
    assert stats.parse_since("2026-11-02", now=NOW) == datetime(2026, 11, 2, tzinfo=UTC)
    assert stats.parse_since("all", now=NOW) is None
    with pytest.raises(Exception, match="--since takes"):
        stats.parse_since("yesterday", now=NOW)


def test_cli_stats_text_and_json(store, capsys, monkeypatch) -> None:
    from atk_tui.cli.main import run

    root, _ = store
    monkeypatch.delenv("CLAUDECODE", raising=False)
    assert run(["--store", str(root), "wi", "stats", "--since", "all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [q["filename"] for q in data["answered"]] == ["q5.md", "q1.md", "q4.md"]
    assert run(["--store", str(root), "wi", "stats", "--since", "all"]) == 0
    out = capsys.readouterr().out
    assert "1 question waiting" in out and "q2.md" in out and "median wait 5 h" in out
    assert run(["--store", str(root), "wi", "stats", "--since", "soon"]) == 2
