"""Paths that keep the big store fast: a cold load's progress, the history's names, the
remote check that pulls only when the upstream moved."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.storekit import AWI_BODY, add_item, clone, git, make_remote_pair

from atk_tui.service import Service
from atk_tui.service import reads as service_mod


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


def test_terminal_names_are_newest_first_without_parsing(svc: Service) -> None:
    names = [add_item(svc, body=AWI_BODY.replace("Use one", f"Use {k}")) for k in range(3)]
    for n in names[:2]:
        assert svc.start_processing([n]).ok
    assert svc.adopt(names[0]).ok
    assert svc.reject(names[1]).ok
    (svc.root / "wi" / "adopted" / names[0]).write_text("not an item at all")  # never parsed here
    listed, where = svc.terminal_names()
    assert listed == [(names[1], "rejected"), (names[0], "adopted")]
    assert where[names[2]] == "inbox"


def test_remote_moved_only_when_another_clone_pushed(tmp_path: Path) -> None:
    root, remote = make_remote_pair(tmp_path)
    svc = Service(root, actor="user")
    assert svc.look_at_remote().moved is False
    other = clone(remote, tmp_path / "other")
    osvc = Service(other, actor="user")
    add_item(osvc)  # pushes
    assert svc.look_at_remote().moved is True
    svc.pull_now()
    assert svc.look_at_remote().moved is False
    assert any((root / "wi" / "inbox").glob("*.md"))


def test_remote_moved_is_false_without_an_upstream(svc: Service) -> None:
    assert svc.upstream() is None
    assert svc.look_at_remote().moved is False


def test_remote_moved_is_false_when_the_remote_is_gone(tmp_path: Path) -> None:
    root, _remote = make_remote_pair(tmp_path)
    git(root, "remote", "set-url", "origin", str(tmp_path / "nowhere.git"))
    assert Service(root, actor="user").look_at_remote().moved is False


def test_the_history_names_cache_follows_every_move(svc: Service) -> None:
    """The history's names come from a cache keyed by the state folders: an adopt, a move by
    hand, an item removed or added by hand each show at once (as a fresh listing does)."""
    import os
    import time

    def aged() -> None:  # the folders' times in the past: the names get cached
        past = time.time() - 30
        for q in ("wi", "mq"):
            for d in [svc.root / q, *(p for p in (svc.root / q).iterdir() if p.is_dir())] if (svc.root / q).is_dir() else []:
                os.utime(d, (past, past))

    def fresh() -> tuple[list[tuple[str, str]], dict[str, str]]:
        return Service(svc.root, actor="user", pull=False, push=False, use_cache=False).terminal_names()

    a, b = add_item(svc), add_item(svc, body=AWI_BODY.replace("Use one", "Use two"))
    for step in (
        lambda: svc.start_processing([a]),
        lambda: svc.adopt(a, note="done"),
        lambda: os.rename(svc.root / "wi" / "adopted" / a, svc.root / "wi" / "rejected" / a),
        lambda: (svc.root / "wi" / "adopted" / "20260101-000000-by-hand.md").write_text("---\nkind: awi\n---\n# x\n"),
        lambda: (svc.root / "wi" / "rejected" / a).unlink(),
        lambda: svc.reject(b, note="no"),
    ):
        aged()
        assert svc.terminal_names() == fresh()  # cached now (aged)
        assert svc.cached_terminal_names() == fresh()  # what the history's first frame shows
        step()
        assert svc.cached_terminal_names() is None  # a folder changed: the cache does not answer
        assert svc.terminal_names() == fresh()
    assert any((svc.store.git_dir / "atk-cache").glob("history-names.cache"))  # the cache was used
    assert [n for n, _ in svc.terminal_names()[0]] == sorted([b, "20260101-000000-by-hand.md"], reverse=True)
