"""A write's git processes (issue 45, point 6): one look at the index refuses unresolved
conflicts and learns what the index holds; one `git config` gives the identity and where the
hooks are. What that knowledge must never hide, in one long-lived process (the dashboard's):
a change staged after a write, a conflict left after a write, a hooks folder configured after
a write. Real repositories, real hooks.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from support.faults import diverged, hook
from support.storekit import add_item, git

from atk_tui.service import Outcome, Service


def traced(
    svc: Service, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, write: Callable[[Service], Outcome]
) -> list[str]:
    """The git commands `write()` runs (GIT_TRACE's `built-in:` lines), the write's outcome checked ok."""
    trace = tmp_path / "git.trace"
    trace.unlink(missing_ok=True)
    monkeypatch.setenv("GIT_TRACE", str(trace))
    fresh = Service(svc.root, clock=svc.clock, actor="user")  # reads the environment anew
    fresh.push_on_write = fresh.pull_on_write = False
    out = write(fresh)
    monkeypatch.delenv("GIT_TRACE")
    assert out.ok, out.message
    lines = trace.read_text().splitlines() if trace.exists() else []
    return [line.split("built-in: ", 1)[1] for line in lines if "built-in: " in line]


def test_a_transition_runs_one_look_at_the_index_and_one_config(
    svc: Service, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    a = add_item(svc)
    ran = traced(svc, monkeypatch, tmp_path, lambda s: s.writes.transition_command("hold", [a]))
    names = [cmd.split()[1] for cmd in ran]
    assert "ls-files" not in names  # the look's write-tree refuses conflicts
    assert names.count("config") == 1  # identity and core.hooksPath together
    assert names.count("write-tree") == 2  # the look, and the commit's tree
    assert len(ran) <= 8, ran
    assert git(svc.root, "status", "--porcelain") == ""
    assert git(svc.root, "show", "--name-only", "--format=", "HEAD").split() == [f"wi/hold/{a}"]


def test_a_change_staged_after_a_write_is_not_swept_into_the_next(svc: Service) -> None:
    a, b = add_item(svc), add_item(svc)
    assert svc.writes.transition_command("hold", [a]).ok  # this process now knows the tree its index holds
    other = svc.root / "plans" / "draft.md"
    other.parent.mkdir(exist_ok=True)
    other.write_text("draft\n")
    git(svc.root, "add", "plans/draft.md")
    assert svc.writes.transition_command("hold", [b]).ok
    changed = git(svc.root, "show", "--no-renames", "--name-only", "--format=", "HEAD").split()
    assert sorted(changed) == sorted([f"wi/hold/{b}", f"wi/inbox/{b}"])
    assert "A  plans/draft.md" in git(svc.root, "status", "--porcelain")


def test_a_conflict_left_after_a_write_refuses_the_next(svc: Service) -> None:
    a, b, c = add_item(svc), add_item(svc), add_item(svc)
    assert svc.writes.transition_command("hold", [c]).ok
    diverged(svc.root, a, "merge")
    for name in ("MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"):
        (svc.root / ".git" / name).unlink(missing_ok=True)  # only the conflict in the index left
    head = git(svc.root, "rev-parse", "HEAD")
    out = svc.writes.transition_command("hold", [b])
    assert not out.ok and "unresolved conflicts" in out.message and f"wi/inbox/{a}" in out.message
    assert git(svc.root, "rev-parse", "HEAD") == head
    assert svc.store.locate(b) == "inbox"
    assert not (svc.root / ".git" / "atk-index.tmp").exists()


def test_a_hooks_folder_configured_after_a_write_is_honoured(svc: Service) -> None:
    a, b = add_item(svc), add_item(svc)
    assert svc.writes.transition_command("hold", [a]).ok  # the identity and the hooks folder were asked once
    hooks = svc.root.parent / "myhooks"
    hooks.mkdir()
    (hooks / "commit-msg").write_text('#!/bin/sh\necho "no commit $(head -1 "$1")" >&2\nexit 1\n')
    (hooks / "commit-msg").chmod(0o755)
    git(svc.root, "config", "core.hooksPath", str(hooks))
    out = svc.writes.transition_command("hold", [b])
    assert not out.ok and "commit-msg" in out.message and f"no commit atk: hold {b}" in out.message
    assert svc.store.locate(b) == "inbox"


def test_the_hooks_of_a_store_run_as_git_commit_runs_them(svc: Service, tmp_path: Path) -> None:
    """pre-commit, commit-msg and post-commit: each runs once per write, in order, with the
    message file for commit-msg, as `git commit` runs them on the same store."""
    log = tmp_path / "hooks.log"
    hook(svc.root, "pre-commit", f'echo pre-commit >> "{log}"\n')
    hook(svc.root, "commit-msg", f'echo "commit-msg $(head -1 "$1")" >> "{log}"\n')
    hook(svc.root, "post-commit", f'echo post-commit >> "{log}"\n')
    a = add_item(svc)
    log.unlink(missing_ok=True)
    assert svc.writes.transition_command("hold", [a]).ok
    ours = log.read_text().splitlines()
    log.unlink()
    other = svc.root / "plans" / "x.md"
    other.parent.mkdir(exist_ok=True)
    other.write_text("x\n")
    subprocess.run(["git", "add", "plans/x.md"], cwd=svc.root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", f"atk: hold {a}"], cwd=svc.root, check=True)
    assert ours == log.read_text().splitlines() == ["pre-commit", f"commit-msg atk: hold {a}", "post-commit"]
