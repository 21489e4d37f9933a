"""The dashboard and the hub (issue 40): overdue questions first in the needs-you list, marked;
the footer says whether a hub runs for this store and its last failure (read from the hub's
state directory through the service)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from support.actions_support import make, started
from support.clock import NOW
from textual.widgets import Static

from atk_tui.domain.model import Item
from atk_tui.hub.paths import state_dir
from atk_tui.hub.state import RunLock, write_json
from atk_tui.service.history.deadlines import deadline, is_overdue, overdue_first
from atk_tui.store import init_store

Q = "---\nkind: uwi\ntarget_repo: acme/webapp\nurgency: {urgency}\ncreated: {created}\n{extra}---\n# {title}\n\n## 質問\nWhich?\n\n- A) one\n- B) two\n\n推奨: A)\n"


def _item(name: str, urgency: str, created, answer_by=None) -> Item:
    return Item(name, "inbox", kind="uwi", urgency=urgency, created=created, answer_by=answer_by)


def test_a_deadline_is_its_own_answer_by_else_its_urgencys() -> None:
    defaults = {"blocking": timedelta(minutes=30), "next-review": timedelta(days=1), "informational": None}
    blocking = _item("a.md", "blocking", NOW - timedelta(minutes=31))
    assert deadline(blocking, defaults) == NOW - timedelta(minutes=1) and is_overdue(blocking, NOW, defaults)
    fresh = _item("b.md", "blocking", NOW - timedelta(minutes=29))
    assert not is_overdue(fresh, NOW, defaults)
    own = _item("c.md", "next-review", NOW - timedelta(minutes=5), answer_by=NOW - timedelta(minutes=1))
    assert is_overdue(own, NOW, defaults)  # its own answer_by, not next-review's day
    fyi = _item("d.md", "informational", NOW - timedelta(days=30))
    assert deadline(fyi, defaults) is None and not is_overdue(fyi, NOW, defaults)
    answered = _item("e.md", "blocking", NOW - timedelta(days=1))
    answered.answered = True
    assert not is_overdue(answered, NOW, defaults)
    order = overdue_first([fresh, fyi, blocking, own], NOW, defaults)
    assert [i.filename for i in order] == ["a.md", "c.md", "b.md", "d.md"]  # each part keeps its order


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    root, _ = init_store(tmp_path / "notes")
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    files = {
        "20261101-000001-fresh.md": Q.format(urgency="blocking", created=(NOW - timedelta(minutes=10)).strftime(stamp),
                                            extra="", title="Fresh blocking"),
        "20261101-000002-late.md": Q.format(urgency="next-review", created=(NOW - timedelta(hours=1)).strftime(stamp),
                                           extra=f"answer_by: {(NOW - timedelta(minutes=1)).strftime(stamp)}\n",
                                           title="Late review"),
    }  # fmt: skip
    for name, text in files.items():
        (root / "wi" / "inbox" / name).write_text(text)
    import subprocess

    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "seed"], cwd=root, check=True)
    return root


async def test_overdue_questions_come_first_marked_and_the_footer_names_the_hub(store: Path) -> None:
    app = make(store)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        needs = app.main.query_one("#needs")
        keys = [r.key for r in needs.rows]
        # blocking comes before next-review, but the overdue one comes first
        assert keys == ["20261101-000002-late.md", "20261101-000001-fresh.md"]
        assert needs.rows[0].cells[2].plain.startswith("overdue · Late review")
        assert "overdue" not in needs.rows[1].cells[2].plain
        assert "hub" not in str(app.main.query_one("#status", Static).content)  # no hub ever ran here
    # a hub runs for this store (its lock held) and a target failed
    where = state_dir(store)
    lock = RunLock(where)
    assert lock.acquire() is None
    try:
        write_json(where / "status.json", {"pid": 1, "targets": [{"name": "ntfy://127.0.0.1:9/atk", "failing": True,
                                                                  "reason": "HTTP 500: internal error"}]})  # fmt: skip
        app = make(store)
        async with app.run_test(size=(160, 48)) as pilot:
            await started(pilot)
            status = str(app.main.query_one("#status", Static).content)
            assert "hub running · ntfy://127.0.0.1:9/atk failing: HTTP 500" in status
    finally:
        lock.release()
    app = make(store)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        assert "hub not running" in str(app.main.query_one("#status", Static).content)
