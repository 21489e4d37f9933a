"""Many machines, round 2 (issue 39), on two and three clones of one bare remote reached as a
file path and through a real `git daemon` on 127.0.0.1: the person on A, agents on B and C,
every command typed as the agent skills write it.

1. what two sides changed in different parts of one item is merged, not set aside."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.machines import add_awi, atk, ok, set_aside, shown, where
from support.remotes import bare_with_clones, git_daemon, point_at
from support.storekit import git


@pytest.fixture(params=["file", "git-daemon"])
def three(request: pytest.FixtureRequest, tmp_path: Path):
    """{"a": the person's clone, "b": agent-b's, "c": agent-c's} over a file remote, or
    over git:// from `git daemon`."""
    remote, cl = bare_with_clones(tmp_path, ("a", "b", "c"))
    if request.param == "file":
        yield cl
        return
    with git_daemon(tmp_path) as url:
        point_at(cl, f"{url}/{remote.name}")
        yield cl


def _everywhere(c: dict[str, Path], filename: str) -> list[dict]:
    return [shown(root, filename) for root in c.values()]


# -- 1. merge, don't set aside ------------------------------------------------------------


def test_two_agents_adding_a_dependency_at_once_keep_both(three) -> None:
    c = three
    x = add_awi(c["a"], "The item both depend-edit", agent=None)
    u1, u2 = add_awi(c["a"], "First prerequisite", agent=None), add_awi(c["a"], "Second prerequisite", agent=None)
    for name in ("b", "c"):
        ok(atk(c[name], "wi", "list", agent=f"agent-{name}"))
    # C's write is made before B's push reaches it (it pulled first, then could not push)
    ok(atk(c["c"], "wi", "set-dependencies", x, "--add", u2, "--skip-push", agent="agent-c"))
    ok(atk(c["b"], "wi", "set-dependencies", x, "--add", u1, agent="agent-b"))
    out = ok(atk(c["c"], "wi", "commit", agent="agent-c"))
    assert "set aside" not in out.stderr and "merged" in out.stderr, out.stderr
    assert set_aside(c["c"]) == []
    for rec in _everywhere(c, x):
        assert sorted(rec["depends_on"]) == sorted([u1, u2]), rec


def test_a_write_whose_pull_meets_the_other_addition_merges_it(three) -> None:
    """The same race met by the pull before the next write (not `atk wi commit`)."""
    c = three
    x = add_awi(c["a"], "The item", agent=None)
    u1, u2, u3 = (add_awi(c["a"], f"Prerequisite {i}", agent=None) for i in (1, 2, 3))
    ok(atk(c["b"], "wi", "set-dependencies", x, "--add", u1, agent="agent-b"))
    ok(atk(c["c"], "wi", "list", agent="agent-c"))
    git(c["c"], "fetch", "-q")  # not merged yet: c's next write pulls it
    # c works offline for a moment: its commit stays local
    ok(atk(c["c"], "wi", "set-dependencies", x, "--add", u2, "--skip-pull", "--skip-push", agent="agent-c"))
    ok(atk(c["b"], "wi", "set-dependencies", x, "--remove", u1, "--add", u3, agent="agent-b"))
    out = ok(atk(c["c"], "wi", "hold", u2, agent="agent-c"))  # any write: its pull merges
    assert "could not pull" not in out.stderr and "kept locally" not in out.stderr, out.stderr
    assert set_aside(c["c"]) == []
    for rec in _everywhere(c, x):
        assert sorted(rec["depends_on"]) == sorted([u2, u3]), rec  # b's removal and both additions


def test_the_persons_comment_and_an_agents_hold_edit_unhold_both_live(three) -> None:
    c = three
    f = add_awi(c["a"], "Tidy the validators", agent=None)
    ok(atk(c["b"], "wi", "list", agent="agent-b"))
    # the person comments on A; the commit waits locally while B works on the item
    ok(atk(c["a"], "wi", "comment", f, "please keep the old regex for now", "--skip-push"))
    ok(atk(c["b"], "wi", "hold", f, agent="agent-b"))
    body = "# Tidy the validators\n\n- 反映内容: one validator, strict\n- 反映先: acme/webapp\n- 完成条件: every form\n"
    ok(atk(c["b"], "wi", "edit", f, body, agent="agent-b"))
    ok(atk(c["b"], "wi", "unhold", f, agent="agent-b"))
    out = ok(atk(c["a"], "wi", "commit"))
    assert "set aside" not in out.stderr, out.stderr
    assert set_aside(c["a"]) == []
    for root in c.values():
        rec = shown(root, f)
        assert rec["state"] == "inbox", rec
        assert "one validator, strict" in rec["body"] and "please keep the old regex" in rec["body"], rec["body"]
        assert where(root, f) == "inbox"


def test_the_agents_edit_replayed_over_the_persons_comment_keeps_it(three) -> None:
    """The other order: the agent's hold, edit and unhold wait locally while the person's
    comment is pushed; the agent's `atk wi commit` replays them over it."""
    c = three
    f = add_awi(c["a"], "Tidy the validators", agent=None)
    ok(atk(c["b"], "wi", "list", agent="agent-b"))
    ok(atk(c["b"], "wi", "hold", f, "--skip-push", agent="agent-b"))
    body = "# Tidy the validators\n\n- 反映内容: one validator, strict\n- 反映先: acme/webapp\n- 完成条件: every form\n"
    ok(atk(c["b"], "wi", "edit", f, body, "--skip-push", "--skip-pull", agent="agent-b"))
    ok(atk(c["b"], "wi", "unhold", f, "--skip-push", "--skip-pull", agent="agent-b"))
    ok(atk(c["a"], "wi", "comment", f, "please keep the old regex for now"))
    out = ok(atk(c["b"], "wi", "commit", agent="agent-b"))
    assert "set aside" not in out.stderr, out.stderr
    for root in c.values():
        rec = shown(root, f)
        assert rec["state"] == "inbox"
        assert "one validator, strict" in rec["body"] and "please keep the old regex" in rec["body"], rec["body"]


def test_the_same_part_changed_differently_is_still_set_aside(three) -> None:
    c = three
    x = add_awi(c["a"], "Contested", agent=None)
    ok(atk(c["b"], "wi", "list", agent="agent-b"))
    ok(atk(c["b"], "wi", "start-processing", x, "--skip-push", agent="agent-b"))
    ok(atk(c["c"], "wi", "hold", x, agent="agent-c"))
    out = atk(c["b"], "wi", "commit", agent="agent-b")
    assert out.returncode == 1 and "conflicts with a change made on the remote" in out.stdout, out
    assert len(set_aside(c["b"])) == 1
    assert {shown(root, x)["state"] for root in c.values()} == {"hold"}
