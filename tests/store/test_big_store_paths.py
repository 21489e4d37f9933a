"""Paths that keep the big store fast: a cold load's progress, the remote check that pulls
only when the upstream moved."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.storekit import AWI_BODY, add_item, clone, git, make_remote_pair

from atk_tui.service import Service
from atk_tui.service.reading import loading as service_mod


def test_a_cold_queue_reports_its_progress(svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    for k in range(5):
        add_item(svc, body=AWI_BODY.replace("Use one", f"Use {k}"))
    monkeypatch.setattr(service_mod, "PROGRESS_EVERY", 2)
    seen: list[tuple[int, int]] = []
    cold = Service(svc.root, clock=svc.clock, use_cache=False)
    view = cold.queue(progress=lambda done, total: seen.append((done, total)))
    assert len(view.items) == 5
    assert seen and all(total == 5 and 0 < done < 5 for done, total in seen)
    # warm: nothing is parsed, so nothing to report
    seen.clear()
    svc.queue(progress=lambda done, total: seen.append((done, total)))
    svc.queue(progress=lambda done, total: seen.append((done, total)))
    assert len(seen) <= 2  # only the first call may still parse (its cache was just written)


def test_remote_moved_only_when_another_clone_pushed(tmp_path: Path) -> None:
    root, remote = make_remote_pair(tmp_path)
    svc = Service(root, actor="user")
    assert svc.look_at_remote().moved is False
    other = clone(remote, tmp_path / "other")
    osvc = Service(other, actor="user")
    add_item(osvc)  # pushes
    assert svc.look_at_remote().moved is True
    assert svc.pull().ok
    assert svc.look_at_remote().moved is False
    assert any((root / "wi" / "inbox").glob("*.md"))


def test_remote_moved_is_false_without_an_upstream(svc: Service) -> None:
    assert svc.upstream() is None
    assert svc.look_at_remote().moved is False


def test_remote_moved_is_false_when_the_remote_is_gone(tmp_path: Path) -> None:
    root, _remote = make_remote_pair(tmp_path)
    git(root, "remote", "set-url", "origin", str(tmp_path / "nowhere.git"))
    assert Service(root, actor="user").look_at_remote().moved is False
