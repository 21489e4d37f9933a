"""The parsed-item cache (atk_tui/cache/caches.py) as the listing uses it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.storekit import AWI_BODY, UWI_BODY, add_item, git

import atk_tui.service.reading.reads as service_mod  # load_items parses here
from atk_tui.cache import files
from atk_tui.cache.caches import ItemCache, cache_key
from atk_tui.cli.output import item_json
from atk_tui.domain.model import ACTIVE, STATES
from atk_tui.service import Service

CACHE = Path(".git") / "atk-cache" / "items-active.cache"


def snapshot(svc: Service, states: tuple[str, ...] = tuple(s for s in STATES if s in ACTIVE)) -> list[dict]:
    items, view = svc.list(states)
    return [item_json(i, view.judgements.get(i.filename), view.blocks.get(i.filename)) for i in items]


@pytest.fixture
def populated(svc: Service) -> Service:
    a = add_item(svc)
    q = add_item(svc, body=UWI_BODY, kind="uwi", urgency="next-review")
    add_item(svc, body="# Depends\n", depends_on=[q])
    assert svc.answers.comment(a, "a comment").ok
    assert svc.writes.transition_command("hold", [a]).ok
    seed = svc.root / "wi" / "inbox"
    (seed / "broken.md").write_text("---\nkind: [\n---\n# b\n")
    (seed / "cool.md").write_text("---\nkind: awi\ntarget_repo: r\ncooldown_until: 2026-12-01T09:00:00+09:00\n---\n# c\n")
    git(svc.root, "add", "-A")
    git(svc.root, "commit", "-q", "-m", "more")
    return svc


class Counter:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.names: list[str] = []
        real = service_mod.parse_item

        def counting(filename, state, data, **kw):
            self.names.append(filename)
            return real(filename, state, data, **kw)

        monkeypatch.setattr(service_mod, "parse_item", counting)


def test_listing_twice_gives_equal_results(populated: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    root = populated.root
    (root / CACHE).unlink(missing_ok=True)
    cold = snapshot(populated)
    assert (root / CACHE).exists()
    counter = Counter(monkeypatch)
    warm = snapshot(populated)
    assert warm == cold
    assert counter.names == []  # everything came from the cache
    uncached = snapshot(Service(root, clock=populated.clock, use_cache=False))
    assert uncached == cold


def test_cache_entries_are_keyed_by_blob_and_name(populated: Service) -> None:
    snapshot(populated)
    cache = ItemCache(populated.root / ".git", "active")
    cache.load()
    blobs = git(populated.root, "ls-files", "-s", "wi/inbox", "wi/hold").splitlines()
    expected = {cache_key(line.split()[1], line.split("\t")[1].rsplit("/", 1)[1]) for line in blobs if ".gitkeep" not in line}
    assert set(cache.entries) == expected


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\xff garbage \x80",
        b"",
        b"{}",
        b'{"version": 5}\n{}',
        b'000000000002\n{}\n{"code": "other code", "key": null, "size": 2, "crc32": 2745614147}',
        b'000000000002\n{}\n{"code": "%s", "key": null, "size": 2, "crc32": 0}' % files.code_stamp().encode(),
        b'000000000009\n{}\n{"code"',
        b"[" * 100_000,
    ],
)
def test_corrupt_cache_is_rebuilt_silently(populated: Service, content: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    good = snapshot(populated)
    path = populated.root / CACHE
    path.write_bytes(content)
    assert snapshot(populated) == good
    assert capsys.readouterr().err == ""
    cache = ItemCache(populated.root / ".git", "active")
    cache.load()
    assert len(cache.entries) == len(good)


def test_valid_json_with_wrong_types_is_rebuilt(populated: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    good = snapshot(populated)
    path = populated.root / CACHE
    _header, payload = files.read(populated.root / ".git", "items-active")
    entries = json.loads(bytes(payload))
    for rec in entries.values():
        rec[0] = "not a list"  # defects
        rec[2] = 12  # title
        rec[8] = [1, 2]  # depends_on
    tampered = json.dumps(entries).encode()
    raw = path.read_bytes()
    path.write_bytes(raw.replace(bytes(payload), tampered[: len(payload)].ljust(len(payload)), 1))  # checksum fails
    counter = Counter(monkeypatch)
    assert snapshot(populated) == good
    assert len(counter.names) == len(good)  # all re-parsed
    # records of the wrong shape under a valid checksum are dropped one by one
    entries = {k: ["short"] for k in entries}
    assert files.write(populated.root / ".git", "items-active", [json.dumps(entries).encode()])
    assert snapshot(populated) == good


def test_worktree_change_without_commit_is_listed_fresh(populated: Service) -> None:
    snapshot(populated)
    name = next(p.name for p in (populated.root / "wi/inbox").glob("*-depends.md"))
    path = populated.root / "wi/inbox" / name
    path.write_text(path.read_text().replace("# Depends", "# Depends, edited by hand"))
    items, _ = populated.list()
    assert next(i for i in items if i.filename == name).title == "Depends, edited by hand"
    # an untracked file too
    (populated.root / "wi/inbox/new-by-hand.md").write_text("---\nkind: awi\ntarget_repo: r\n---\n# Hand made\n")
    items, _ = populated.list()
    assert next(i for i in items if i.filename == "new-by-hand.md").title == "Hand made"
    # and a staged-but-uncommitted change (index and work tree agree)
    git(populated.root, "add", "-A")
    path.write_text(path.read_text().replace("edited by hand", "edited twice"))
    items, _ = populated.list()
    assert next(i for i in items if i.filename == name).title == "Depends, edited twice"


def test_moved_item_is_not_reparsed(populated: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot(populated)
    name = next(p.name for p in (populated.root / "wi/inbox").glob("*-depends.md"))
    blob = git(populated.root, "ls-files", "-s", f"wi/inbox/{name}").split()[1]
    assert populated.writes.transition_command("start-processing", [name]).ok
    counter = Counter(monkeypatch)
    items, _view = populated.list()
    assert counter.names == []
    moved = next(i for i in items if i.filename == name)
    assert moved.state == "processing" and moved.blob == blob and not moved.complete
    cache = ItemCache(populated.root / ".git", "active")
    cache.load()
    assert cache_key(blob, name) in cache.entries


def test_edited_item_is_reparsed_and_old_entry_dropped(populated: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot(populated)
    name = next(p.name for p in (populated.root / "wi/inbox").glob("*-depends.md"))
    old_blob = git(populated.root, "ls-files", "-s", f"wi/inbox/{name}").split()[1]
    assert populated.writes.edit(name, "# Depends, rewritten\n").ok
    counter = Counter(monkeypatch)
    items, _ = populated.list()
    assert counter.names == [name]
    assert next(i for i in items if i.filename == name).title == "Depends, rewritten"
    cache = ItemCache(populated.root / ".git", "active")
    cache.load()
    assert cache_key(old_blob, name) not in cache.entries


def test_renamed_copy_is_parsed_under_its_own_name(svc: Service) -> None:
    """The same bytes under another name: the parse depends on the name (bad-name defect,
    title from the file stem), so the cache must not hand back the other name's result."""
    text = "---\nkind: awi\ntarget_repo: r\n---\n"  # no body: the title is the file stem
    (svc.root / "wi/inbox/good-name.md").write_text(text)
    git(svc.root, "add", "-A")
    git(svc.root, "commit", "-q", "-m", "one")
    assert [i.title for i in svc.list()[0]] == ["good-name"]
    git(svc.root, "mv", "wi/inbox/good-name.md", "wi/inbox/bad name.md")
    git(svc.root, "commit", "-q", "-m", "rename")
    (item,) = svc.list()[0]
    assert item.title == "bad name" and any("bad filename" in d for d in item.defects)
    git(svc.root, "mv", "wi/inbox/bad name.md", "wi/inbox/fixed.md")
    git(svc.root, "commit", "-q", "-m", "rename back")
    (item,) = svc.list()[0]
    assert item.title == "fixed" and item.defects == []


def test_active_listing_does_not_touch_terminal_cache(populated: Service) -> None:
    snapshot(populated)
    assert not (populated.root / ".git" / "atk-cache" / "items-terminal.cache").exists()
    name = add_item(populated)
    assert populated.writes.transition_command("start-processing", [name]).ok and populated.writes.transition_command("adopt", [name]).ok
    items, _ = populated.list(["adopted"])
    assert [i.filename for i in items] == [name]
    assert (populated.root / ".git" / "atk-cache" / "items-terminal.cache").exists()


def test_cached_items_do_not_share_lists_with_the_cache(populated: Service) -> None:
    snapshot(populated)
    items, _ = populated.list()
    for item in items:
        item.defects.append("mutated")
        item.depends_on.append("mutated.md")
    assert all("mutated" not in i.defects for i in populated.list()[0])


def test_unwritable_cache_dir_is_not_an_error(populated: Service) -> None:
    cache_dir = populated.root / ".git" / "atk-cache"
    if cache_dir.exists():
        for p in cache_dir.iterdir():
            p.unlink()
        cache_dir.rmdir()
    cache_dir.write_text("a file where the folder should be")
    good = snapshot(Service(populated.root, clock=populated.clock, use_cache=False))
    assert snapshot(populated) == good


def test_old_versions_are_removed(populated: Service) -> None:
    cache_dir = populated.root / ".git" / "atk-cache"
    cache_dir.mkdir(exist_ok=True)
    (cache_dir / "active-v1.json").write_text("{}")
    (cache_dir / CACHE.name).unlink(missing_ok=True)
    snapshot(populated)
    assert sorted(os.listdir(cache_dir)) == [CACHE.name]


def test_non_utf8_names_round_trip(svc: Service) -> None:
    odd = os.fsencode(svc.root / "wi" / "inbox") + b"/caf\xe9.md"
    with open(odd, "wb") as fh:
        fh.write(f"---\nkind: awi\ntarget_repo: r\n---\n{AWI_BODY}".encode())
    git(svc.root, "add", "-A")
    git(svc.root, "commit", "-q", "-m", "odd")
    first = snapshot(svc)
    assert (svc.root / CACHE).exists()
    assert snapshot(svc) == first
    assert first[0]["filename"] == "caf\udce9.md"
