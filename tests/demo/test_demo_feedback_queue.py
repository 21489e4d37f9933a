"""`atk-tui --demo`'s feedback queue (issue 12): a few feedback items, a plan-type one, an
unanswered TBD blocking two of them, one in editing, one in planning; all written through
the service, pushed, and judged like any other queue."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.storekit import git

from atk_tui.demo import create_demo_store
from atk_tui.service import Service

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_demo_store(tmp_path_factory.mktemp("demo-mq"), NOW, feedback_queue=True)


def test_the_feedback_queue_of_the_demo(demo: Path) -> None:
    svc = Service(demo, clock=lambda: NOW, actor="user", queue="mq")
    items, view = svc.list(["inbox", "processing", "editing", "hold", "planning"])
    by_title = {i.title.split(" (")[0]: i for i in items}
    tone = by_title["Which tone should error messages take"]
    assert tone.kind == "tbd" and not tone.answered and tone.urgency == "blocking"
    blocked = [i for i in items if tone.filename in i.depends_on]
    assert len(blocked) == 2 and all(view.judgements[i.filename].status == "blocked" for i in blocked)
    assert view.blocks[tone.filename] == (2, 2)
    assert tone.filename in view.needs_you  # with the wi UWIs
    plan = by_title["Retry failed webhook deliveries with exponential backoff"]
    assert plan.awi_type == "plan" and plan.state == "processing" and view.judgements[plan.filename].ready
    assert [i.state for i in items if i.state in ("editing", "planning")] == ["editing", "planning"]
    after = by_title["Drop internal refactors from CHANGELOG.md"]
    assert view.judgements[after.filename].ready  # its TBD is answered
    cross = by_title["Document the new rate-limit headers in the public API guide"]
    assert cross.depends_on and (demo / "wi/adopted" / cross.depends_on[0]).exists()
    assert view.judgements[cross.filename].ready


def test_written_through_the_service_and_pushed(demo: Path) -> None:
    log = git(demo, "log", "--format=%s|%(trailers:key=Atk-Actor,valueonly)", "-n", "20").split("\n")
    subjects = [line for line in log if line]
    assert any(s.startswith("atk: start-editing ") and s.endswith("|user") for s in subjects)
    assert any(s.startswith("atk: answer ") and s.endswith("|user") for s in subjects)
    assert any(s.startswith("atk: add ") and s.endswith("|agent") for s in subjects)
    assert git(demo, "status", "--porcelain") == ""
    assert git(demo, "rev-parse", "HEAD") == git(demo, "rev-parse", "origin/main")
