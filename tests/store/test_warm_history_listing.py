"""A warm `atk wi list --status=all` proves the terminal folders unchanged by git's word
(`core.storesig`: `git diff-files`, plus a stat of what git does not vouch for), not by a
stat of each of their files. Every change to a terminal file git's proof must see: after
each, the listing the cache serves equals one computed from scratch, and where the test
says so the cache answered (so the path was exercised)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.listingkit import items_in, listing, make_store, rewrite_in_place, settle
from support.storekit import AWI_BODY, add_item, git

from atk_tui.cache.caches import ListingCache
from atk_tui.domain.model import STATES, TERMINAL
from atk_tui.store import storesig

ALL = ["wi", "list", "--json", "--status=all"]
ADOPTED = ["wi", "list", "--json", "--status=adopted"]


def history_store(tmp: Path) -> Path:
    """`make_store` with two adopted items and a rejected one, all committed; settled."""
    root, svc = make_store(tmp)
    for n, verdict in enumerate(("adopt", "adopt", "reject")):
        name = add_item(svc, body=AWI_BODY.replace("Use one", f"Use history {n}"), target_repo="acme/api")
        assert svc.writes.transition_command("start-processing", [name]).ok
        assert svc.writes.transition_command(verdict, [name], note=f"done {n}").ok
    settle(root)
    return root


def header(root: Path, argv: list[str] = ALL) -> dict:
    states = [s for s in STATES] if "--status=all" in argv else ["adopted"]
    path = ListingCache(root, states, STATES, tuple(TERMINAL)).path
    return json.loads(path.read_bytes().rsplit(b"\n", 1)[1])


def agrees(root: Path, capsys, monkeypatch, argv: list[str] = ALL) -> bool:
    """The listing (served or made) equals one from scratch; True when it was served."""
    cached, hit = listing(root, argv, capsys, monkeypatch, scratch=False)
    fresh, _ = listing(root, argv, capsys, monkeypatch, scratch=True)
    assert cached == fresh
    return hit


def warm(root: Path, capsys, monkeypatch, argv: list[str] = ALL) -> None:
    """The listing made, saved, then served."""
    listing(root, argv, capsys, monkeypatch, scratch=False)
    assert agrees(root, capsys, monkeypatch, argv)


def test_a_warm_history_listing_stats_no_terminal_file(tmp_path: Path, capsys, monkeypatch) -> None:
    root = history_store(tmp_path)
    listing(root, ALL, capsys, monkeypatch, scratch=False)
    assert header(root)["unvouched"] == []  # every terminal file is tracked and clean: git vouches for all
    listed: list[list[str]] = []
    real = storesig._find_stats
    monkeypatch.setattr(storesig, "_find_stats", lambda r, dirs: listed.append(dirs) or real(r, dirs))
    assert agrees(root, capsys, monkeypatch)
    assert listed and not any(d in dirs for dirs in listed for d in ("wi/adopted", "wi/rejected"))


@pytest.mark.parametrize("argv", [ALL, ADOPTED])
def test_a_tracked_file_rewritten_in_place_with_its_mtime_set_back(tmp_path: Path, capsys, monkeypatch, argv) -> None:
    root = history_store(tmp_path)
    warm(root, capsys, monkeypatch, argv)
    path = root / "wi" / "adopted" / items_in(root, "adopted")[0]
    text = path.read_text()
    rewrite_in_place(path, text.replace("Use history", "Use HISTORY"))
    assert path.stat().st_size == len(text.encode())
    assert not agrees(root, capsys, monkeypatch, argv)
    assert "Use HISTORY" in listing(root, argv, capsys, monkeypatch, scratch=False)[0]


def test_an_untracked_terminal_file_rewritten_in_place(tmp_path: Path, capsys, monkeypatch) -> None:
    root = history_store(tmp_path)
    loose = root / "wi" / "rejected" / "20260102-000000-loose.md"
    loose.write_text("---\nkind: awi\ntarget_repo: acme/api\n---\n# Loose one\n\nbody\n")
    settle(root)
    warm(root, capsys, monkeypatch)
    assert header(root)["unvouched"] == ["wi/rejected/20260102-000000-loose.md"]
    rewrite_in_place(loose, loose.read_text().replace("Loose one", "Loose two"))
    assert not agrees(root, capsys, monkeypatch)
    settle(root)
    warm(root, capsys, monkeypatch)  # and saved again, with it
    assert "Loose two" in listing(root, ALL, capsys, monkeypatch, scratch=False)[0]


@pytest.mark.parametrize("how", ["checkout", "in place"])
def test_a_dirty_file_reverted_to_the_index_version(tmp_path: Path, capsys, monkeypatch, how: str) -> None:
    """Saved while the file differed from the index (so it is stat-ed), then put back as the
    index has it: git now says clean, and the listing must still change."""
    root = history_store(tmp_path)
    rel = f"wi/adopted/{items_in(root, 'adopted')[0]}"
    path = root / rel
    original = path.read_text()
    path.write_text(original.replace("Use history", "Use EDITED!"))
    settle(root)
    warm(root, capsys, monkeypatch)
    assert header(root)["unvouched"] == [rel]
    if how == "checkout":
        git(root, "checkout", "-q", "--", rel)
    else:
        rewrite_in_place(path, original)
    assert not agrees(root, capsys, monkeypatch)
    settle(root)
    assert not agrees(root, capsys, monkeypatch)
    assert agrees(root, capsys, monkeypatch)


@pytest.mark.parametrize("how", ["reset --hard", "checkout of a file", "checkout of a branch"])
def test_git_changes_terminal_files(tmp_path: Path, capsys, monkeypatch, how: str) -> None:
    root = history_store(tmp_path)
    rel = f"wi/rejected/{items_in(root, 'rejected')[0]}"
    git(root, "branch", "before")
    path = root / rel
    path.write_text(path.read_text().replace("Use history", "Use LATER"))
    git(root, "commit", "-q", "-am", "a later version")
    settle(root)
    warm(root, capsys, monkeypatch)
    if how == "reset --hard":
        git(root, "reset", "-q", "--hard", "HEAD~1")
    elif how == "checkout of a file":
        git(root, "checkout", "-q", "HEAD~1", "--", rel)
    else:
        git(root, "checkout", "-q", "before")
    assert not agrees(root, capsys, monkeypatch)
    settle(root)
    assert not agrees(root, capsys, monkeypatch)
    assert agrees(root, capsys, monkeypatch)
    assert "Use LATER" not in listing(root, ALL, capsys, monkeypatch, scratch=False)[0]


@pytest.mark.parametrize("change", ["added", "removed", "renamed", "assume-unchanged", "skip-worktree"])
def test_files_added_removed_or_hidden_from_git(tmp_path: Path, capsys, monkeypatch, change: str) -> None:
    root = history_store(tmp_path)
    name = items_in(root, "adopted")[0]
    rel = f"wi/adopted/{name}"
    path = root / rel
    if change in ("assume-unchanged", "skip-worktree"):
        git(root, "update-index", f"--{change}", rel)  # git would not look at it: it is stat-ed
        settle(root)
    warm(root, capsys, monkeypatch)
    if change == "added":
        (root / "wi" / "adopted" / "20260103-000000-new.md").write_text("---\nkind: uwi\n---\n# New\n\nbody\n")
    elif change == "removed":
        path.unlink()
    elif change == "renamed":
        path.rename(root / "wi" / "rejected" / name)
    else:
        rewrite_in_place(path, path.read_text().replace("Use history", "Use HIDDEN!"))
    assert not agrees(root, capsys, monkeypatch)
    settle(root)
    assert not agrees(root, capsys, monkeypatch)
    assert agrees(root, capsys, monkeypatch)


@pytest.mark.parametrize("git_is", ["missing", "failing"])
def test_without_git_the_terminal_folders_are_stat_ed(tmp_path: Path, capsys, monkeypatch, git_is: str) -> None:
    """No git (or git failing): saved with a stat of every terminal file, and served by it."""
    root = history_store(tmp_path)
    monkeypatch.setattr(storesig, "_GIT", ("/nonexistent/git",) if git_is == "missing" else ("false",))
    warm(root, capsys, monkeypatch)
    assert header(root)["unvouched"] is None
    path = root / "wi" / "adopted" / items_in(root, "adopted")[0]
    rewrite_in_place(path, path.read_text().replace("Use history", "Use NO-GIT!"))
    assert not agrees(root, capsys, monkeypatch)


def test_a_listing_git_vouched_for_is_a_miss_when_git_fails(tmp_path: Path, capsys, monkeypatch) -> None:
    """Never a hit on the stat of the folders alone: without git's word the listing is made again."""
    root = history_store(tmp_path)
    warm(root, capsys, monkeypatch)
    assert header(root)["unvouched"] == []
    monkeypatch.setattr(storesig, "_GIT", ("false",))
    path = root / "wi" / "adopted" / items_in(root, "adopted")[0]
    rewrite_in_place(path, path.read_text().replace("Use history", "Use NO-GIT!"))
    assert not agrees(root, capsys, monkeypatch)
    assert agrees(root, capsys, monkeypatch)  # saved again, by stat: served by stat


def test_no_signature_when_the_index_changes_while_git_reads_it(tmp_path: Path) -> None:
    """git vouched against the index it read: the digest must name that one."""
    root = history_store(tmp_path)
    lc = ListingCache(root, list(STATES), STATES, tuple(TERMINAL))
    assert lc.signature(unvouched=[]) is not None
    pending = lc.begin_signature()
    assert pending is not None
    os.utime(root / ".git" / "index")  # the index rewritten meanwhile (a `git add` would)
    assert pending.finish([], with_newest=False) is None


def test_too_many_unvouched_paths_fall_back_to_stat(tmp_path: Path, monkeypatch) -> None:
    root = history_store(tmp_path)
    for n in range(3):
        (root / "wi" / "adopted" / f"20260104-00000{n}-loose.md").write_text("---\nkind: awi\n---\n# L\n")
    lc = ListingCache(root, list(STATES), STATES, tuple(TERMINAL))
    assert lc.signature()[2] == sorted(f"wi/adopted/20260104-00000{n}-loose.md" for n in range(3))
    monkeypatch.setattr(storesig, "MAX_UNVOUCHED", 2)
    assert lc.signature()[2] is None


def test_an_earlier_format_s_listing_is_removed_when_one_is_saved(tmp_path: Path, capsys, monkeypatch) -> None:
    root = history_store(tmp_path)
    lc = ListingCache(root, list(STATES), STATES, tuple(TERMINAL))
    lc.path.parent.mkdir(exist_ok=True)
    old = lc.path.with_name("list-inbox-processing-hold-adopted-rejected-v8")
    other = lc.path.with_name("list-inbox.cache")  # another listing of this format: kept
    old.write_bytes(b"x")
    other.write_bytes(b"x")
    warm(root, capsys, monkeypatch)
    assert lc.path.exists() and not old.exists() and other.exists()


@pytest.mark.parametrize("config", [("core.trustctime", "false"), ("core.checkStat", "minimal")])
def test_the_user_s_git_configuration_does_not_hide_a_change(tmp_path: Path, capsys, monkeypatch, config) -> None:
    """git told to trust less of a file's stat would miss a file rewritten in place: neither
    the listing's proof nor the terminal lines' blobs (`index_blobs_async`) ask it so."""
    root = history_store(tmp_path)
    git(root, "config", *config)
    settle(root)
    warm(root, capsys, monkeypatch)
    path = root / "wi" / "adopted" / items_in(root, "adopted")[0]
    rewrite_in_place(path, path.read_text().replace("Use history", "Use CONFIG!"))
    assert not agrees(root, capsys, monkeypatch)
