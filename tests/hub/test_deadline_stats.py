"""`atk wi stats`: answered within the deadline, per urgency and per agent, with p50/p90 waits
(SPEC §16), on a scripted history (known commit times); the deadline is a question's own
`answer_by`, else its urgency's (blocking 30 min, next-review 1 day)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from support.clikit import Atk
from support.stats_history import ANSWER_A, NOW, T0, History, uwi

from atk_tui.service import Service
from atk_tui.store import init_store


def _q(title: str, *, urgency: str = "blocking", source: str | None = None, answer_by: str | None = None,
       answer: str = "") -> str:  # fmt: skip
    text = uwi(title, answer=answer).replace("urgency: blocking", f"urgency: {urgency}")
    extra = (f"source: {source}\n" if source else "") + (f"answer_by: {answer_by}\n" if answer_by else "")
    return text.replace("---\n#", f"{extra}---\n#", 1) if extra else text


@pytest.fixture
def history(tmp_path: Path) -> Path:
    root, _ = init_store(tmp_path / "store")
    h = History(root)
    h.write("inbox", "fast.md", _q("Fast", source="process-wi"))
    h.write("inbox", "slow.md", _q("Slow", source="process-wi"))
    h.write("inbox", "review.md", _q("Review", urgency="next-review", source="agent",
                                     answer_by=(T0 + timedelta(hours=1)).isoformat()))  # fmt: skip
    h.commit(T0, "atk: add fast.md, slow.md, review.md")
    h.write("inbox", "named.md", _q("Named", source="agent"))
    h.git("commit", "-q", "--no-verify", "-m", "atk: add named.md", "-m", "Atk-Actor: agent\nAtk-Agent: nightly-bot",
          when=T0 + timedelta(minutes=1))  # fmt: skip
    h.write("inbox", "fast.md", _q("Fast", source="process-wi", answer=ANSWER_A))
    h.commit(T0 + timedelta(minutes=10), "atk: answer fast.md")
    h.write("inbox", "slow.md", _q("Slow", source="process-wi", answer=ANSWER_A))
    h.write("inbox", "review.md", _q("Review", urgency="next-review", source="agent",
                                     answer_by=(T0 + timedelta(hours=1)).isoformat(), answer=ANSWER_A))  # fmt: skip
    h.commit(T0 + timedelta(hours=2), "atk: answer slow.md, review.md")
    return root


def test_answered_within_the_deadline_per_urgency_and_per_agent(history: Path) -> None:
    st = Service(history).wait_stats(since=None, now=NOW)
    rows = {(r.by, r.name): r for r in st.deadlines}
    blocking = rows["urgency", "blocking"]
    assert (blocking.answered, blocking.with_deadline, blocking.within) == (2, 2, 1)  # 10 min yes, 2 h no
    assert (blocking.p50, blocking.p90) == (timedelta(minutes=65), timedelta(hours=2))  # the median of two: their mean
    assert blocking.overdue_now == 1  # named.md: 30 min passed long ago
    review = rows["urgency", "next-review"]  # its own answer_by (1 h), not next-review's day
    assert (review.answered, review.within, review.p50) == (1, 0, timedelta(hours=2))
    assert rows["agent", "process-wi"].answered == 2 and rows["agent", "process-wi"].within == 1
    assert rows["agent", "nightly-bot"].overdue_now == 1 and rows["agent", "nightly-bot"].answered == 0  # the trailer names it
    answered = {w.filename: w for w in st.answered}
    assert answered["fast.md"].within_deadline is True and answered["slow.md"].within_deadline is False
    assert answered["review.md"].due == T0 + timedelta(hours=1)


def test_atk_wi_stats_says_it_and_json_carries_it(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    atk = Atk(history, capsys)
    rc, out, err = atk("wi", "stats", "--since", "all")
    assert rc == 0, err
    assert "answered within the deadline" in out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("urgency blocking"))
    assert "2 answered · 1/2 within" in line and "1 overdue now" in line
    rc, out, err = atk("wi", "stats", "--since", "all", "--json")
    record = json.loads(out)
    got = {(r["by"], r["name"]): r for r in record["deadlines"]}
    assert got["urgency", "blocking"]["within_deadline"] == 1
    assert got["urgency", "blocking"]["p90_wait_seconds"] == 7200
