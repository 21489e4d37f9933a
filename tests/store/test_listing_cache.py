"""The judged-listing cache (`atk wi list`): a warm listing is never stale.

The property test interleaves external git operations (commit, checkout of a file, rebase),
manual edits and atk writes, and after each compares the listing the cache serves with one
computed from scratch (no item cache, no listing cache)."""

from __future__ import annotations

import itertools
import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.listingkit import age, items_in, listing, make_store, rewrite_in_place, settle
from support.storekit import AWI_BODY, add_item, git

from atk_tui.cache import caches as cache_mod
from atk_tui.service import Service


def save(lc: cache_mod.ListingCache, sig: cache_mod.Signature | None, meta: list, lines: list[str], **kw: object) -> bool:
    """A listing kept as `atk wi list` keeps the one it made: `writer()`, a line at a time, `close`."""
    w = lc.writer()
    assert w is not None
    for line in lines:
        w.add(line)
    return w.close(sig, meta, **kw)  # type: ignore[arg-type]


LISTINGS = (
    ["wi", "list", "--json"],
    ["wi", "list", "--json", "--status=all"],
    ["wi", "list", "--json", "--status=ready"],
    ["wi", "list", "--count", "--status=blocked"],
    ["wi", "list", "--json", "--kind", "uwi", "--target-repo", "acme/api"],
    # the item files read while git and find take the signature (`ListingCache.load`'s meanwhile)
    ["wi", "list", "--json", "--status=all", "--text", "edited"],
    ["wi", "list", "--count", "--text", "use 1"],
)


def any_item(root: Path, k: int, states: tuple[str, ...] = ("inbox", "processing", "hold")) -> tuple[str, str] | None:
    found = [(s, n) for s in states for n in items_in(root, s)]
    return found[k % len(found)] if found else None


# -- the operations --------------------------------------------------------------------------


def op_atk_write(root: Path, svc: Service, k: int) -> None:
    pick = any_item(root, k)
    if pick is None:
        add_item(svc)
        return
    state, name = pick
    choice = k % 5
    if choice == 0:
        svc.writes.transition_command("hold" if state == "inbox" else "unhold", [name])
    elif choice == 1:
        svc.writes.set_dependencies(name, [])
    elif choice == 2:
        svc.writes.edit(name, f"# Edited {k}\n\nnew body {k}\n")
    elif choice == 3:
        if state == "inbox":
            svc.writes.transition_command("start-processing", [name])
        elif state == "processing":
            svc.writes.transition_command("adopt", [name], note=f"done {k}")
    else:
        add_item(svc, body=AWI_BODY.replace("Use one", f"Use {k}"), depends_on=[name])


def op_manual_edit(root: Path, svc: Service, k: int) -> None:
    pick = any_item(root, k, ("inbox", "processing", "hold", "adopted", "rejected"))
    if pick is None:
        return
    state, name = pick
    path = root / "wi" / state / name
    text = path.read_text()
    choice = k % 5
    if choice == 0:  # same size, different bytes: only the mtime tells
        path.write_text(text.replace("# ", "# X", 1).replace("\n\n", "\n", 1) if "\n\n" in text else text)
    elif choice == 1:  # a cooldown in the future: blocked
        path.write_text(text.replace("---\n", f"---\ncooldown_until: {(datetime.now(UTC) + timedelta(days=3)).isoformat()}\n", 1))
    elif choice == 2:  # moved by hand
        dest = "hold" if state != "hold" else "inbox"
        os.rename(path, root / "wi" / dest / name)
    elif choice == 3:  # broken by hand
        path.write_text("no frontmatter at all\n")
    else:  # removed by hand
        path.unlink()


def op_git(root: Path, svc: Service, k: int) -> None:
    choice = k % 3
    if choice == 0:  # commit whatever the work tree has
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", f"external {k}")
    elif choice == 1:  # checkout of one file from an earlier commit (or the index)
        pick = any_item(root, k, ("inbox", "processing", "hold", "adopted", "rejected"))
        if pick is not None:
            rel = f"wi/{pick[0]}/{pick[1]}"
            if git(root, "log", "-n", "1", "--format=%H", "HEAD~1", "--", rel, check=False).strip():
                git(root, "checkout", "-q", "HEAD~1", "--", rel, check=False)
            else:
                git(root, "checkout", "-q", "--", rel, check=False)
    else:  # rebase: main's last commit replayed on a side commit that adds an item
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", f"before rebase {k}")
        side = f"side{k}-{next(_SIDES)}"  # the same k may come twice in one example
        git(root, "checkout", "-q", "-b", side, "HEAD~1")
        (root / "wi" / "inbox" / f"20260101-000000-{side}.md").write_text(
            f"---\nkind: awi\ntarget_repo: acme/api\n---\n# Side {k}\n\nbody\n"
        )
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"side {k}")
        git(root, "checkout", "-q", "main")
        if not git(root, "rebase", "-q", side, check=False) or (root / ".git" / "rebase-merge").exists():
            git(root, "rebase", "--abort", check=False)


def op_history(root: Path, svc: Service, k: int) -> None:
    """The history's files touched outside atk: what git's proof of the terminal folders
    (`core.storesig`) must see."""
    pick = any_item(root, k, ("adopted", "rejected"))
    choice = k % 5
    if choice == 0 or pick is None:  # an item adopted or rejected by atk
        name = add_item(svc, body=AWI_BODY.replace("Use one", f"Use {k} {next(_SIDES)}"))
        svc.writes.transition_command("start-processing", [name])
        svc.writes.transition_command("adopt" if k % 2 else "reject", [name], note=f"done {k}")
        return
    path = root / "wi" / pick[0] / pick[1]
    if choice == 1:  # rewritten in place, same size, its mtime set back: only the change time tells
        text = path.read_text()
        rewrite_in_place(path, text.replace("# ", "#X", 1) if "# " in text else text.upper())
    elif choice == 2:  # a file git does not track
        (root / "wi" / "adopted" / f"20260102-000000-loose{k}-{next(_SIDES)}.md").write_text(
            f"---\nkind: awi\ntarget_repo: acme/api\n---\n# Loose {k}\n\nbody\n"
        )
    elif choice == 3:  # git looks at the work tree: its records match the files again (the clean proof)
        settle(root)
    else:  # git told not to look at one
        git(root, "update-index", "--assume-unchanged", f"wi/{pick[0]}/{pick[1]}", check=False)


_SIDES = itertools.count()
OPS = {"atk": op_atk_write, "edit": op_manual_edit, "git": op_git, "history": op_history}


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 50), st.booleans()), min_size=3, max_size=8))
@example(steps=[("atk", 0, False), ("git", 8, False), ("git", 8, False)])  # the same rebase twice (found in CI)
# git's proof: a rejected item, a loose (untracked) file, that file rewritten in place, the
# index refreshed (a clean proof), a tracked file rewritten in place, one hidden from git
@example(steps=[("history", 0, True), ("history", 2, True), ("history", 6, False), ("history", 3, False),
                ("history", 1, False), ("history", 4, True), ("history", 11, True)])  # fmt: skip
def test_cached_listing_equals_a_listing_from_scratch(
    steps: list[tuple[str, int, bool]], tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    root, svc = make_store(tmp_path_factory.mktemp("lc"))
    age(root)
    for argv in LISTINGS:
        listing(root, argv, capsys, monkeypatch, scratch=False)  # fill the caches
    hits = 0
    for name, k, aged in steps:
        OPS[name](root, svc, k)
        if aged:
            age(root)  # otherwise the change is seconds old: racy, so nothing is saved
        for argv in LISTINGS:
            cached, hit = listing(root, argv, capsys, monkeypatch, scratch=False)
            again, hit2 = listing(root, argv, capsys, monkeypatch, scratch=False)
            fresh, _ = listing(root, argv, capsys, monkeypatch, scratch=True)
            assert cached == fresh, (name, k, argv)
            assert again == fresh, (name, k, argv)
            hits += hit + hit2
    # the second listing of an aged store is served from the cache: the test exercised it
    if any(aged for _, _, aged in steps):
        assert hits > 0


def test_a_warm_listing_reads_the_cache_without_the_service(tmp_path: Path, capsys, monkeypatch) -> None:
    root, _svc = make_store(tmp_path)
    age(root)
    first, hit = listing(root, ["wi", "list", "--json"], capsys, monkeypatch, scratch=False)
    assert not hit and first.count("\n") == 4
    with monkeypatch.context() as m:
        import atk_tui.service as service_mod

        def no_service(*_a: object, **_k: object) -> None:
            raise AssertionError("a warm listing built a Service")

        m.setattr(service_mod, "Service", no_service)
        second, hit = listing(root, ["wi", "list", "--json"], capsys, monkeypatch, scratch=False)
    assert hit and second == first


def test_a_racy_listing_is_not_saved(tmp_path: Path, capsys, monkeypatch) -> None:
    """Files written just now could change again without changing their stat: not cached."""
    root, _svc = make_store(tmp_path)
    listing(root, ["wi", "list", "--json"], capsys, monkeypatch, scratch=False)
    _, hit = listing(root, ["wi", "list", "--json"], capsys, monkeypatch, scratch=False)
    assert not hit
    assert not list((root / ".git" / "atk-cache").glob("list-*"))


def test_a_cooldown_that_lifts_ends_the_cached_listing(tmp_path: Path) -> None:
    root, _svc = make_store(tmp_path)
    age(root)
    lc = cache_mod.ListingCache(root, ["inbox"], ("inbox", "processing", "hold", "adopted", "rejected"))
    sig = lc.signature()
    assert save(lc, sig, [["inbox", "awi", "acme/api", True]], ["{}"], until=1000.0, plans={}, taken_ns=time.time_ns())
    assert lc.load(999.0, lambda v: []) is not None
    assert lc.load(1000.0, lambda v: []) is None


def test_a_plan_file_that_appears_ends_the_cached_listing(tmp_path: Path) -> None:
    root, _svc = make_store(tmp_path)
    age(root)
    lc = cache_mod.ListingCache(root, ["inbox"], ("inbox", "processing", "hold", "adopted", "rejected"))
    plan = "$(atk config get private_notes)/plans/2026/11/p.md"
    assert save(lc, lc.signature(), [], [], until=None, plans={plan: True}, taken_ns=time.time_ns())
    from atk_tui.host.config import plan_files_missing

    assert lc.load(0.0, lambda v: plan_files_missing(root, v)) is not None
    (root / "plans" / "2026" / "11").mkdir(parents=True)
    (root / "plans" / "2026" / "11" / "p.md").write_text("plan\n")
    assert lc.load(0.0, lambda v: plan_files_missing(root, v)) is None


def test_what_is_made_of_the_meta_while_the_signature_is_taken_counts_only_on_a_hit(tmp_path: Path) -> None:
    """`load(meanwhile=...)`: what `--text` makes of the listing (reading every item's file)
    is made while git and find take the signature, and given only when the listing is
    still the store's."""
    root, _svc = make_store(tmp_path)
    age(root)
    lc = cache_mod.ListingCache(root, ["inbox"], ("inbox", "processing", "hold", "adopted", "rejected"))
    assert save(lc, lc.signature(), [["inbox", "awi", "r", True]], ['{"a":1}'], until=None, plans={}, taken_ns=time.time_ns())
    seen: list[bytes] = []

    def made(meta: bytes) -> str:
        seen.append(meta)
        return "made"

    hit = lc.load(0.0, lambda v: [], made)
    assert hit is not None and hit[0] == "made" and b"".join(hit[1]) == b'{"a":1}'
    assert [json.loads(m) for m in seen] == [[["inbox", "awi", "r", True]]]
    add_item(_svc)  # the store changed: the cached listing, and what was made of it, are no answer
    assert lc.load(0.0, lambda v: [], made) is None


def test_a_process_started_beside_a_listing_is_not_held_up_by_its_output(tmp_path: Path) -> None:
    """git and `find` write to a file, not a pipe: a megabyte of output does not stop them
    until the listing reads it (they finish while it checks its cache)."""
    from atk_tui.store.storesig import Child

    child = Child(["sh", "-c", "head -c 1000000 /dev/zero; exit 0"], str(tmp_path), dict(os.environ))
    assert child.p.wait(timeout=30) == 0  # through a pipe it would wait for a reader past 64 KiB
    assert child.output() == bytes(1_000_000)
    failed = Child(["sh", "-c", "echo partial; exit 3"], str(tmp_path), dict(os.environ))
    assert failed.output() is None


def test_a_damaged_listing_file_is_a_miss(tmp_path: Path) -> None:
    root, _svc = make_store(tmp_path)
    age(root)
    lc = cache_mod.ListingCache(root, ["inbox"], ("inbox", "processing", "hold", "adopted", "rejected"))
    assert save(lc, lc.signature(), [["inbox", "awi", "r", True]], ['{"a":1}'], until=None, plans={}, taken_ns=time.time_ns())
    raw = lc.path.read_bytes()
    lc.path.write_bytes(raw[:-2] + b"2}")
    assert lc.load(0.0, lambda v: []) is None


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["wi", "list"], {"status": "active", "store": None}),
        (["--store", "/s", "wi", "list", "--json", "--status=all"], {"store": "/s", "status": "all", "json": True}),
        (["wi", "list", "--kind", "uwi", "--target-repo=acme/api", "--count", "--skip-pull"], {"kind": "uwi", "only_repo": "acme/api", "count": True}),
        (["wi", "list", "--text", "x"], {"text": "x"}),  # filtered from the cached listing, one read per item
        (["wi", "list", "--stat", "all"], None),  # an abbreviation: argparse decides
        (["wi", "list", "--json", "--count"], None),  # an error argparse reports
        (["wi", "show", "a.md"], None),
        (["wi", "list", "--kind", "x"], None),
        (["wi", "list", "-h"], None),
        (["wi", "list", "--json", "--offset", "2", "--limit=3"], {"page": (2, 3)}),
        (["wi", "list", "--json"], {"page": (0, None)}),
        (["wi", "list", "--limit", "0"], None),  # an error argparse reports
        (["wi", "list", "--offset=-1"], None),
    ],
)
def test_the_quick_entry_takes_only_plain_listings(argv: list[str], expected: dict | None) -> None:
    from atk_tui.cli.quicklist import parse

    got = parse(argv)
    if expected is None:
        assert got is None
    else:
        assert got is not None and {k: got[k] for k in expected} == expected


def test_the_quick_entry_prints_the_cached_listing(tmp_path: Path, capsys, monkeypatch) -> None:
    from atk_tui.cli import quicklist

    root, _svc = make_store(tmp_path)
    age(root)
    first, _ = listing(root, ["wi", "list", "--json", "--kind", "awi"], capsys, monkeypatch, scratch=False)
    monkeypatch.setattr("sys.argv", ["atk", "--store", str(root), "wi", "list", "--json", "--kind", "awi"])
    import atk_tui.cli.main

    monkeypatch.setattr(atk_tui.cli.main, "main", lambda: pytest.fail("the cached listing was not used"))
    with pytest.raises(SystemExit) as exit_:
        quicklist.main()
    assert exit_.value.code == 0
    assert capsys.readouterr().out == first and first.count("\n") == 3


@pytest.mark.parametrize("extra", [[], ["--text", "acme"], ["--status=all", "--offset", "1", "--limit", "2"]])
def test_the_quick_entry_prints_a_cached_text_listing_as_the_command_line_does(tmp_path: Path, capsys, monkeypatch,
                                                                                extra: list[str]) -> None:  # fmt: skip
    """Text rows (what the person's `atk wi list` prints) come from the cached listing too,
    without the command line: the same rows, and the same notes, as its full listing."""
    from atk_tui.cli import quicklist

    root, _svc = make_store(tmp_path)
    (root / "wi" / "inbox" / "bad name.md").write_text("no frontmatter\n")  # a store defect: a note on stderr
    age(root)
    argv = ["wi", "list", "--no-json", *extra]
    made, hit = listing(root, argv, capsys, monkeypatch, scratch=True)
    assert not hit and made.count("\n") >= 2 and "\t" in made
    listing(root, argv, capsys, monkeypatch, scratch=False)  # fills the cache
    monkeypatch.setattr("sys.argv", ["atk", "--store", str(root), *argv])
    import atk_tui.cli.main

    monkeypatch.setattr(atk_tui.cli.main, "main", lambda: pytest.fail("the cached listing was not used"))
    with pytest.raises(SystemExit) as exit_:
        quicklist.main()
    assert exit_.value.code == 0
    out, err = capsys.readouterr()
    assert out == made
    assert "store defect" in err and "bad name.md" in err


def test_the_time_left_of_a_cooldown_is_the_time_of_the_listing(tmp_path: Path) -> None:
    """"(in 3h 12m)" is the one part of a judged line that changes with the clock: the cache
    keeps a marker there and fills it when it prints."""
    root, _svc = make_store(tmp_path)
    age(root)
    lc = cache_mod.ListingCache(root, ["inbox"], ("inbox", "processing", "hold", "adopted", "rejected"))
    line = f'{{"reasons": ["cooldown until 1970-01-02 00:00 +00:00 (in {cache_mod.cooldown_marker(86400.0)})"]}}'
    assert save(lc, lc.signature(), [["inbox", "awi", "r", False]], [line], until=86400.0, plans={}, taken_ns=time.time_ns())
    _, at_0 = lc.load(0.0, lambda v: [])
    _, at_1h = lc.load(3600.0, lambda v: [])
    assert b"".join(at_0) == b'{"reasons": ["cooldown until 1970-01-02 00:00 +00:00 (in 1d 0h)"]}'
    assert b"".join(at_1h) == b'{"reasons": ["cooldown until 1970-01-02 00:00 +00:00 (in 23h 0m)"]}'


def test_terminal_lines_are_cached_for_good(tmp_path: Path, capsys, monkeypatch) -> None:
    """`--status=all` parses an adopted item once: later listings (the judged listing gone
    stale) print its cached line, the same line a listing from scratch prints."""
    root, svc = make_store(tmp_path)
    first = items_in(root, "inbox")[0]
    assert svc.writes.transition_command("start-processing", [first]).ok and svc.writes.transition_command("adopt", [first], note="merged in acme/api#9").ok
    age(root)
    argv = ["wi", "list", "--json", "--status=all"]
    before, _ = listing(root, argv, capsys, monkeypatch, scratch=False)
    assert f'"filename": "{first}", "state": "adopted"' in before
    from atk_tui.service.reading import reads

    parsed: list[str] = []
    real = reads.parse_item
    monkeypatch.setattr(reads, "parse_item", lambda name, state, *a, **k: parsed.append(state) or real(name, state, *a, **k))
    for stale in (root / ".git" / "atk-cache").glob("list-*"):
        stale.unlink()
    cached, hit = listing(root, argv, capsys, monkeypatch, scratch=False)
    assert not hit and "adopted" not in parsed  # the judged listing was gone; the line was not
    fresh, _ = listing(root, argv, capsys, monkeypatch, scratch=True)
    assert cached == before == fresh


@pytest.mark.parametrize("argv", [["wi", "list", "--json", "--status=all"], ["wi", "list", "--json", "--status=all", "--kind", "awi"]])
def test_a_page_is_a_slice_of_the_listing(tmp_path: Path, capsys, monkeypatch, argv: list[str]) -> None:
    """`--offset K --limit N` prints lines K+1..K+N of the same listing: made from the store,
    from the cache and from scratch alike; `--count` counts them all."""
    root, svc = make_store(tmp_path)
    first = items_in(root, "inbox")[0]
    assert svc.writes.transition_command("start-processing", [first]).ok and svc.writes.transition_command("adopt", [first]).ok
    age(root)
    whole, _ = listing(root, argv, capsys, monkeypatch, scratch=True)
    lines = whole.splitlines(keepends=True)
    assert len(lines) >= 3
    for offset, limit in ((0, 1), (1, 2), (2, None), (len(lines) - 1, 5), (len(lines), 1)):
        paged = [*argv, "--offset", str(offset)] + ([] if limit is None else ["--limit", str(limit)])
        want = "".join(lines[offset:] if limit is None else lines[offset : offset + limit])
        for scratch in (True, False, False):  # from scratch; made (and cached); from the cache
            assert listing(root, paged, capsys, monkeypatch, scratch=scratch)[0] == want, (offset, limit, scratch)
    count_argv = [a if a != "--json" else "--count" for a in argv]
    counted, _ = listing(root, [*count_argv, "--limit", "1"], capsys, monkeypatch, scratch=False)
    assert counted == f"{len(lines)}\n"


@given(
    st.lists(st.text(alphabet=st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=12), max_size=12),
    st.lists(st.integers(min_value=0, max_value=200), max_size=3),
    st.integers(min_value=1, max_value=7),
)
@settings(max_examples=300, deadline=None)
def test_a_cached_listing_read_in_chunks_gives_the_lines_it_holds(lines: list[str], cuts: list[int], chunk: int) -> None:
    """A cached listing's lines are decoded a chunk at a time (`_lines_of`), across the parts
    it is served in (a part may end or start anywhere, multi-byte characters split too): the
    same lines as the whole text split, and none for an empty listing."""
    from atk_tui.service.reading import listing as listing_mod

    raw = "\n".join(lines).encode("utf-8")
    at = sorted({min(c, len(raw)) for c in cuts})
    parts = tuple(memoryview(raw)[a:b] for a, b in zip([0, *at], [*at, len(raw)], strict=True))
    old = listing_mod.CHUNK
    listing_mod.CHUNK = chunk
    try:
        got = list(listing_mod._lines_of(parts))
    finally:
        listing_mod.CHUNK = old
    assert got == (raw.split(b"\n") if raw else [])


def test_a_cold_listing_writes_its_terminal_lines_as_it_goes_and_leaves_nothing_when_it_fails(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """With no line cache, `--status=all` writes the archived items' lines as they come (none
    held): the next listing reads them back; a listing that fails half-way leaves no file."""
    from atk_tui.service.reading import reads

    root, svc = make_store(tmp_path)
    for name in items_in(root, "inbox")[:2]:
        assert svc.writes.transition_command("start-processing", [name]).ok and svc.writes.transition_command("adopt", [name], note="merged").ok
    age(root)
    argv = ["wi", "list", "--json", "--status=all"]
    cache = root / ".git" / "atk-cache"
    real = reads.Reads.terminal_stream

    def failing(self, states):
        for n, got in enumerate(real(self, states)):
            if n == 1:
                raise OSError("the disk went away")
            yield got

    with monkeypatch.context() as m:
        m.setattr(reads.Reads, "terminal_stream", failing)
        with pytest.raises(OSError):
            listing(root, argv, capsys, monkeypatch, scratch=False)
    assert not list(cache.glob("*.tmp")) and not (cache / "lines.cache").exists()
    first, _ = listing(root, argv, capsys, monkeypatch, scratch=False)
    assert cache_mod.files.read(root / ".git", "lines", check_key=False) is not None  # written whole
    for stale in cache.glob("list-*"):
        stale.unlink()
    parsed: list[str] = []
    real_parse = reads.parse_item
    monkeypatch.setattr(reads, "parse_item", lambda name, state, *a, **k: parsed.append(state) or real_parse(name, state, *a, **k))
    again, hit = listing(root, argv, capsys, monkeypatch, scratch=False)
    assert not hit and "adopted" not in parsed and again == first
    assert again == listing(root, argv, capsys, monkeypatch, scratch=True)[0]
