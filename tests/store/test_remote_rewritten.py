"""A remote force-pushed back after the person's answer was pushed (issue 25): the next
write, `atk wi commit` and the dashboard's periodic pull keep the answer, push it again and
say loudly that the remote was rewritten. Real git: a bare remote and clones."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.storekit import UWI_BODY, Clock, add_item, clone, git, make_remote_pair, rewind_remote

from atk_tui.cli import main as cli
from atk_tui.service import Service
from atk_tui.store import REWRITTEN, is_alarm


def answered_and_pushed(tmp_path: Path) -> tuple[Path, Path, Service, str, str, str, str]:
    """The person's clone with a UWI and an AWI; the answer is pushed. Returns (root, remote,
    service, uwi, awi, the commit before the answer, the answer's commit)."""
    root, remote = make_remote_pair(tmp_path)
    svc = Service(root, actor="user", clock=Clock())
    uwi = add_item(svc, UWI_BODY, kind="uwi")
    awi = add_item(svc)
    base = git(root, "rev-parse", "HEAD").strip()
    out = svc.answers.answer(uwi, choices={1: "A"})
    assert out.ok and out.pushed, out.message
    answer = git(root, "rev-parse", "HEAD").strip()
    assert git(remote, "rev-parse", "main").strip() == answer
    return root, remote, svc, uwi, awi, base, answer


def on_remote(remote: Path, uwi: str) -> str:
    return git(remote, "show", f"main:wi/inbox/{uwi}", check=False)


def loud(warnings: tuple[str, ...] | list[str], commit: str) -> list[str]:
    return [w for w in warnings if is_alarm(w) and commit[:10] in w]


@pytest.mark.parametrize("how", ["force-push", "update-ref"])
def test_next_write_keeps_the_answer_re_pushes_it_and_warns(tmp_path: Path, how: str) -> None:
    root, remote, svc, uwi, awi, base, answer = answered_and_pushed(tmp_path)
    rewind_remote(remote, base, how, tmp_path / "third")
    assert "## 回答" not in on_remote(remote, uwi)
    out = svc.writes.transition_command("hold", [awi])
    assert out.ok and out.pushed, out.message
    assert loud(out.warnings, answer), out.warnings
    assert Service(root).read(uwi).answered  # the tree
    assert git(root, "merge-base", "--is-ancestor", answer, "HEAD", check=False) == ""  # the branch
    assert "## 回答" in on_remote(remote, uwi)  # the remote
    assert git(remote, "rev-parse", "main").strip() == git(root, "rev-parse", "HEAD").strip()


def test_the_record_catches_a_rewrite_another_fetch_already_saw(tmp_path: Path) -> None:
    """A plain `git fetch` (or a read's fast-forward pull) moved origin/main back first: the
    remote-tracking ref no longer shows what was pushed, the clone's own record does."""
    root, remote, svc, uwi, awi, base, answer = answered_and_pushed(tmp_path)
    rewind_remote(remote, base, "update-ref")
    git(root, "fetch", "-q")
    assert git(root, "rev-parse", "@{u}").strip() == base
    out = svc.writes.transition_command("hold", [awi])
    assert out.ok and loud(out.warnings, answer), out.warnings
    assert "## 回答" in on_remote(remote, uwi)


def test_a_remote_rewritten_to_other_history_gets_the_answer_on_top(tmp_path: Path) -> None:
    _root, remote, svc, uwi, awi, base, answer = answered_and_pushed(tmp_path)
    third = clone(remote, tmp_path / "third")
    git(third, "reset", "-q", "--hard", base)
    (third / "plans").mkdir(exist_ok=True)
    (third / "plans" / "theirs.md").write_text("their plan\n")
    git(third, "add", "-A")
    git(third, "commit", "-q", "-m", "their rewrite")
    git(third, "push", "-q", "--force")
    out = svc.writes.transition_command("hold", [awi])
    assert out.ok and out.pushed and loud(out.warnings, answer), out.warnings
    assert "## 回答" in on_remote(remote, uwi)
    assert git(remote, "show", "main:plans/theirs.md") == "their plan\n"  # theirs kept too


def test_cli_write_says_it_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, remote, _, uwi, awi, base, answer = answered_and_pushed(tmp_path)
    rewind_remote(remote, base, "force-push", tmp_path / "third")
    assert cli.run(["wi", "hold", awi, "--store", str(root)]) == 0
    err = capsys.readouterr().err
    assert f"warning: {REWRITTEN}" in err and answer[:10] in err and "pushed again" in err
    assert "## 回答" in on_remote(remote, uwi)


def test_atk_wi_commit_re_pushes_and_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, remote, _, uwi, _, base, answer = answered_and_pushed(tmp_path)
    rewind_remote(remote, base, "force-push", tmp_path / "third")
    assert cli.run(["wi", "commit", "--store", str(root)]) == 0
    out, err = capsys.readouterr()
    assert REWRITTEN in err and answer[:10] in err, err
    assert "pushed again 1 commit" in out
    assert "## 回答" in on_remote(remote, uwi)


def test_the_dashboard_s_periodic_pull_pushes_it_back(tmp_path: Path) -> None:
    root, remote, _, uwi, _, base, answer = answered_and_pushed(tmp_path)
    rewind_remote(remote, base, "update-ref")
    out = Service(root, actor="user").pull()
    assert out.ok and loud(out.warnings, answer), out.warnings
    assert "## 回答" in on_remote(remote, uwi)
    assert Service(root).read(uwi).answered


def test_a_remote_that_only_moved_on_says_nothing(tmp_path: Path) -> None:
    _root, remote, svc, _, awi, _, _ = answered_and_pushed(tmp_path)
    other = clone(remote, tmp_path / "other")
    assert Service(other, actor="user").writes.transition_command("hold", [awi]).ok
    out = svc.pull()
    assert out.ok and not [w for w in out.warnings if is_alarm(w)], out.warnings


def test_what_the_person_dropped_themselves_is_not_brought_back(tmp_path: Path) -> None:
    """The person resets their own branch and force-pushes it: nothing on their branch was
    dropped, so the next write brings nothing back and says nothing."""
    root, remote, svc, uwi, awi, base, _ = answered_and_pushed(tmp_path)
    git(root, "reset", "-q", "--hard", base)
    git(root, "push", "-q", "--force")
    out = svc.writes.transition_command("hold", [awi])
    assert out.ok and not [w for w in out.warnings if is_alarm(w)], out.warnings
    assert "## 回答" not in on_remote(remote, uwi)


def test_a_rewrite_that_conflicts_sets_the_answer_aside_for_the_person(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The remote is rewritten to another answer of the same question: the person's answer
    is not dropped but set aside (refs/atk/conflicts), and an agent may not discard it."""
    root, remote, _, uwi, _, base, answer = answered_and_pushed(tmp_path)
    third = clone(remote, tmp_path / "third")
    git(third, "reset", "-q", "--hard", base)
    assert Service(third, actor="user", pull=False, push=False).answers.answer(uwi, choices={1: "C"}).ok
    git(third, "push", "-q", "--force")
    assert cli.run(["wi", "commit", "--store", str(root)]) == 1
    out, err = capsys.readouterr()
    assert REWRITTEN in err and answer[:10] in out and "atk wi conflicts" in out
    [kept] = Service(root).conflicts.list()
    assert kept.commit == answer
    monkeypatch.setenv("CLAUDECODE", "1")
    assert cli.run(["wi", "conflicts", "apply", answer[:10], "--theirs", "--store", str(root)]) == 2
    assert [c.commit for c in Service(root).conflicts.list()] == [answer]


@pytest.mark.parametrize("by_hand", ["pull --rebase", "fetch + reset --hard"])
def test_an_answer_a_hand_pull_dropped_after_a_rewrite_is_set_aside_and_said(tmp_path: Path, by_hand: str) -> None:
    """The remote is rewound under the pushed answer and someone in the person's store runs
    git by hand first (`git pull --rebase`, whose fork-point drops a commit the remote-tracking
    ref once had; or a fetch and a reset): the answer is on neither the remote nor the branch.
    atk's next write cannot tell a mistake from a wish, so it neither drops it silently nor
    puts it back: it sets it aside for the person and says so loudly (issue 25 audit)."""
    root, remote, svc, uwi, awi, base, answer = answered_and_pushed(tmp_path)
    rewind_remote(remote, base, "update-ref")
    if by_hand == "pull --rebase":
        git(root, "pull", "-q", "--rebase")
    else:
        git(root, "fetch", "-q")
        git(root, "reset", "-q", "--hard", "origin/main")
    assert "## 回答" not in (root / "wi/inbox" / uwi).read_text()  # gone from the branch
    out = svc.writes.transition_command("hold", [awi])
    assert out.ok, out.message
    [said] = loud(out.warnings, answer)
    assert "no longer on your branch either" in said and "`atk wi conflicts`" in said, said
    assert [c.commit for c in Service(root).conflicts.list()] == [answer]
    assert Service(root).conflicts.user_content(answer)  # the person's to resolve
    assert not loud(svc.writes.unhold(awi).warnings, answer)  # said once
    assert Service(root, actor="user").conflicts.resolve(answer, "mine").ok
    assert Service(root).read(uwi).answered
