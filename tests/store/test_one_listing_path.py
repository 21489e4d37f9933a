"""`atk wi list` is made one way and read from its cache one way (issue 45, point 2): the
entry (`cli.quicklist`) and the full command line print a cached listing through
`cli.cached_list`; an out-of-date listing looks at the store twice (the signature its cache
check took, and the one taken again before it is kept), not once per way in; `--status`
means the same states for the CLI, `atk mcp` and the cache (`service.reading.listing.states_for`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.listingkit import age, listing, make_store

from atk_tui.cache import caches as cache_mod
from atk_tui.domain.queues import MQ, WI
from atk_tui.service.reading.listing import states_for

STATUSES = ("active", "processable", "ready", "blocked", "all", "inbox", "processing", "hold", "editing",
            "planning", "adopted", "rejected", "nonsense")  # fmt: skip


@pytest.mark.parametrize("status", STATUSES)
def test_one_rule_for_what_a_status_lists(status: str) -> None:
    assert states_for(status) == states_for(status, WI)
    wi, mq = states_for(status, WI), states_for(status, MQ)
    if status == "nonsense":
        assert wi is None and mq is None
    elif status == "all":
        assert wi == list(WI.states) and "planning" not in (mq or [])  # planning only by name (SPEC §12)
    elif status == "planning":
        assert wi is None and mq == ["planning"]
    else:
        assert mq is not None and set(mq) <= set(MQ.states)


def _entry(root: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    from atk_tui.cli import quicklist

    monkeypatch.setattr(sys, "argv", ["atk", "--store", str(root), *argv])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        quicklist.main()
    assert exit_.value.code in (0, None)
    return capsys.readouterr().out


def test_an_out_of_date_listing_looks_at_the_store_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    root, _svc = make_store(tmp_path)
    age(root)
    argv = ["wi", "list", "--json", "--skip-pull"]
    _entry(root, argv, monkeypatch, capsys)  # made and kept
    inbox = root / "wi" / "inbox"
    name = sorted(p.name for p in inbox.glob("*.md"))[0]
    (inbox / name).write_text((inbox / name).read_text() + "\nchanged by hand\n")
    age(root)
    taken: list[object] = []
    real = cache_mod.PendingSignature

    def counted(*a: object, **k: object) -> object:
        taken.append(a)
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(cache_mod, "PendingSignature", counted)
    out = _entry(root, argv, monkeypatch, capsys)  # out of date: checked, made, kept
    assert len(taken) == 2, taken
    made, hit = listing(root, argv, capsys, monkeypatch, scratch=True)
    assert out == made and not hit
    taken.clear()
    again = _entry(root, argv, monkeypatch, capsys)  # kept: served from the cache, one look
    assert again == made and len(taken) == 1


def test_the_watchers_answer_is_the_stamp_a_listings_signature_starts_with(tmp_path: Path) -> None:
    """One answer to "has the store changed": the dashboard's watcher, the hub and process-loop
    compare `store_stamp`, the part of a listing's signature before its files' stat."""
    import hashlib

    from support.storekit import add_item, git

    from atk_tui.service.reading.watch import WATCHED, store_signature
    from atk_tui.store.storesig import _stamp_into, store_stamp

    root, svc = make_store(tmp_path)
    first = store_signature(root)
    assert store_signature(root) == first  # nothing changed
    h = hashlib.blake2b(digest_size=20)
    _stamp_into(h, str(root), list(WATCHED))
    assert first[0] == h.hexdigest() == store_stamp(root, WATCHED)[0]
    (root / "wi" / "inbox" / "20261201-000000-by-hand.md").write_text("---\nkind: awi\n---\n# by hand\n")
    by_hand = store_signature(root)
    assert by_hand != first
    git(root, "add", "-A")
    staged = store_signature(root)
    assert staged != by_hand  # the index
    git(root, "commit", "-qm", "by hand")
    assert store_signature(root) != staged  # the commit
    add_item(svc, target_repo="acme/api")
    assert store_signature(root) != staged
