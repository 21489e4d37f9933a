"""A cold start parses part of the items in another process (`cache.twocores`): the view is
the one parsing them all here gives, item for item, and a process that fails costs nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.storekit import FROZEN, Clock

from atk_tui.cache.caches import to_record
from atk_tui.domain.model import SHOWN
from atk_tui.cache import twocores
from atk_tui.service import QueueView, Service


def _split_always(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every cold load of more than one item gives half of them to another process; returns
    the sizes of the parts handed over, and -1 for each part it did not give back."""
    handed: list[int] = []
    real, real_take = twocores.Parsed.__init__, twocores.Parsed.take

    def spy(self: twocores.Parsed, root: str, work: list) -> None:
        handed.append(len(work))
        real(self, root, work)

    def take(self: twocores.Parsed) -> list | None:
        got = real_take(self)
        if got is None:
            handed.append(-1)
        return got

    monkeypatch.setattr(twocores.Parsed, "take", take)

    monkeypatch.setattr(twocores, "MIN_ITEMS", 2)
    monkeypatch.setattr(twocores, "START_ITEMS", 0)
    monkeypatch.setattr(twocores.Parsed, "__init__", spy)
    return handed


def _defects_and_oddities(store: Path) -> None:
    """Items a record must carry faithfully: defective ones, a huge one, an unreadable one."""
    inbox = store / "wi" / "inbox"
    (inbox / "20261101-000000-no-frontmatter.md").write_text("# just a body\n")
    (inbox / "20261101-000001-bad-yaml.md").write_text("---\nkind: [unclosed\n---\n# Bad YAML\n")
    (inbox / "20261101-000002-not-utf8.md").write_bytes(b"---\nkind: awi\ntarget_repo: acme/api\n---\n# caf\xe9\n")
    (inbox / "20261101-000003-huge.md").write_text("---\nkind: awi\ntarget_repo: acme/api\n---\n# Huge\n" + "x" * (1 << 21))
    (inbox / "20261101-000004-日本語.md").write_text("---\nkind: awi\ntarget_repo: acme/api\n---\n# 日本語のタイトル\n")
    locked = inbox / "20261101-000005-unreadable.md"
    locked.write_text("---\nkind: awi\n---\n# Unreadable\n")
    locked.chmod(0)


def _same(view: QueueView, here: QueueView) -> None:
    assert list(view.items) == list(here.items)
    for name, item in view.items.items():
        assert to_record(item) == to_record(here.items[name]), name
        assert (item.blob, item.state, item.queue) == (here.items[name].blob, here.items[name].state, here.items[name].queue)
    assert view.judgements == here.judgements
    assert view.blocks == here.blocks and view.needs_you == here.needs_you


def test_items_parsed_by_the_other_process_are_the_ones_parsed_here(mq_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _defects_and_oddities(mq_store)
    clock = Clock(FROZEN)
    here = Service(mq_store, clock=clock, pull=False, push=False, use_cache=False).queue(SHOWN)
    handed = _split_always(monkeypatch)
    cold = Service(mq_store, clock=clock, pull=False, push=False)
    view = cold.queue(SHOWN)
    assert handed and -1 not in handed and sum(handed) >= len(here.items) // 2 - 2  # the wi queue's half, the mq queue's
    _same(view, here)
    # what it cached is what a listing of the same store reads back, warm
    _same(Service(mq_store, clock=clock, pull=False, push=False).queue(SHOWN), here)


@pytest.mark.parametrize("command", [["/bin/false"], [sys.executable, "-c", "print('[true, \"x\", []]')"], [sys.executable, "-c", "import time; time.sleep(60)"]])
def test_a_failing_other_process_costs_nothing(demo_store: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    """It fails, says something else, or hangs: the items are parsed here, the view the same."""
    clock = Clock(FROZEN)
    here = Service(demo_store, clock=clock, pull=False, push=False, use_cache=False).queue(SHOWN)
    handed = _split_always(monkeypatch)
    monkeypatch.setattr(twocores, "WAIT_S", 1.0)
    real_popen = twocores.subprocess.Popen
    monkeypatch.setattr(twocores.subprocess, "Popen", lambda argv, **kw: real_popen(command, **kw))
    view = Service(demo_store, clock=clock, pull=False, push=False).queue(SHOWN)
    assert handed[-1] == -1  # not given back: parsed here
    _same(view, here)


def test_the_share_leaves_the_other_process_fewer_items_and_none_on_one_core() -> None:
    assert twocores.share(twocores.MIN_ITEMS - 1, cores=2) == 0
    assert twocores.share(30_000, cores=1) == 0
    n = 30_000
    beside = twocores.share(n, cores=2)
    assert 0 < beside < n - beside
