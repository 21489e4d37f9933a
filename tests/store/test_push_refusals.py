"""A push the remote refuses (issue 15 item 6): git's own reason is kept, and a refusal by a
hook is not retried with rebases (only a push behind the remote is)."""

from __future__ import annotations

from pathlib import Path

from support.storekit import Clock, add_item, clone, git

from atk_tui.cli.main import run
from atk_tui.service import Service
from atk_tui.store import push_behind_remote, push_failure_reason

HOOK_REJECTION = """\
remote: rejected by policy hook
To /tmp/x/store-remote.git
 ! [remote rejected] main -> main (pre-receive hook declined)
error: failed to push some refs to '/tmp/x/store-remote.git'
"""

BEHIND = """\
To /tmp/x/store-remote.git
 ! [rejected]        main -> main (fetch first)
error: failed to push some refs to '/tmp/x/store-remote.git'
hint: Updates were rejected because the remote contains work that you do not
hint: have locally.
"""


def test_the_reason_keeps_the_remote_s_words_and_the_refusal() -> None:
    reason = push_failure_reason(HOOK_REJECTION)
    assert "rejected by policy hook" in reason
    assert "pre-receive hook declined" in reason
    assert not push_behind_remote(HOOK_REJECTION)
    assert push_behind_remote(BEHIND)
    assert "fetch first" in push_failure_reason(BEHIND)


def policy_hook(remote: Path) -> Path:
    """A pre-receive hook that refuses every push and counts how often it was asked."""
    count = remote / "hook-calls"
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\necho x >> '{count}'\necho 'rejected by policy hook' >&2\nexit 1\n")
    hook.chmod(0o755)
    return count


def test_a_hook_rejection_keeps_git_s_reason_and_is_not_retried(remote_store: tuple[Path, Path]) -> None:
    root, remote = remote_store
    svc = Service(root, clock=Clock(), actor="user")
    count = policy_hook(remote)
    out = svc.writes.add(kind="awi", target_repo="acme/webapp", body="# t\n\nbody\n")
    assert out.ok and out.pushed is False
    assert any("rejected by policy hook" in w for w in out.warnings), out.warnings
    assert any("pre-receive hook declined" in w for w in out.warnings), out.warnings
    assert count.read_text().count("x") == 1  # one push, no rebase-and-retry
    assert git(root, "rev-list", "--count", "@{u}..HEAD").strip() == "1"  # kept locally


def test_atk_wi_commit_reports_the_hook_s_reason(remote_store: tuple[Path, Path], capsys) -> None:
    root, remote = remote_store
    add_item(Service(root, clock=Clock(), actor="user", push=False))
    count = policy_hook(remote)
    assert run(["wi", "commit", "--store", str(root)]) == 1
    err = capsys.readouterr().err
    assert "rejected by policy hook" in err, err
    assert count.read_text().count("x") == 1


def test_a_push_behind_the_remote_is_still_rebased_and_retried(remote_store: tuple[Path, Path], tmp_path: Path) -> None:
    root, remote = remote_store
    other = Service(clone(remote, tmp_path / "other"), clock=Clock(), actor="user")
    add_item(other, body="# from elsewhere\n\nbody\n")
    svc = Service(root, clock=Clock(), actor="user", pull=False)  # no pull first: the push is behind
    out = svc.writes.add(kind="awi", target_repo="acme/webapp", body="# mine\n\nbody\n")
    assert out.ok and out.pushed is True, (out.message, out.warnings)
    assert git(root, "rev-list", "--count", "@{u}..HEAD").strip() == "0"


def test_a_push_that_lost_the_race_for_the_ref_is_retried_a_hook_refusal_is_not() -> None:
    """Two clones pushing at once: git's receive-pack refuses the loser with `[remote rejected]
    ... (failed to update ref)` / `cannot lock ref ... but expected ...` (the soak saw it on
    every transport): pulling and pushing again can help, as for `(fetch first)`."""
    from atk_tui.store import push_behind_remote

    raced = (
        "error: cannot lock ref 'refs/heads/main': is at 1111 but expected 2222\n"
        "To /tmp/remote.git\n ! [remote rejected] main -> main (failed to update ref)\n"
        "error: failed to push some refs to '/tmp/remote.git'"
    )
    assert push_behind_remote(raced)
    assert push_behind_remote(" ! [remote rejected] main -> main (failed to update ref)")
    assert not push_behind_remote(" ! [remote rejected] main -> main (pre-receive hook declined)")
    assert push_behind_remote(" ! [rejected]        main -> main (fetch first)")
