"""Issue 38, point 1: an agent environment's atk never pushes a user-only change it did not
make through atk (a plain `git commit` of a trimmed answer, a forged answer, a hand move into
a state only the user moves to, the person's held item moved): the push is refused naming the
commits, nothing is rewritten, and the person's next push carries them."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.clikit import Atk, awi, seed, uwi
from support.storekit import add_item, clone, git

from atk_tui.service import Service

ANSWER = "\n## 回答\n\n- 1: B)\n"


@pytest.fixture
def pair(tmp_path: Path, remote_store: tuple[Path, Path]) -> tuple[Path, Path, Path]:
    """(the person's clone, the agent's clone, the bare remote), q.md answered by the person
    and pushed, x.md an AWI."""
    person, remote = remote_store
    seed(person, {"q.md": ("inbox", uwi()), "x.md": ("inbox", awi())})
    git(person, "push", "-q")
    assert Service(person, actor="user").answers.answer("q.md", choices={1: "B"}).ok
    agent = clone(remote, tmp_path / "agent")
    return person, agent, remote


def remote_text(remote: Path, path: str) -> str:
    return git(remote, "show", f"main:{path}", check=False)


def test_an_agents_hand_trimmed_answer_is_not_pushed_by_atk_commit(
    pair: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _person, agent, remote = pair
    path = agent / "wi/inbox/q.md"
    path.write_text(path.read_text().split("## 回答")[0])
    git(agent, "commit", "-qam", "tidy")
    sha = git(agent, "rev-parse", "HEAD").strip()
    monkeypatch.setenv("AI_AGENT", "1")
    rc, out, err = Atk(agent, capsys)("wi", "commit")
    assert rc == 1, out + err
    assert sha[:10] in err and "tidy" in err and "## 回答" in err
    assert "## 回答" in remote_text(remote, "wi/inbox/q.md")  # the remote keeps the answer
    assert git(agent, "rev-parse", "HEAD").strip() == sha  # nothing rewritten


def test_a_forged_answer_with_a_user_trailer_rides_along_with_no_write(
    tmp_path: Path, remote_store: tuple[Path, Path]
) -> None:
    person, remote = remote_store
    seed(person, {"q.md": ("inbox", uwi())})
    git(person, "push", "-q")
    agent = clone(remote, tmp_path / "agent")
    path = agent / "wi/inbox/q.md"
    path.write_text(path.read_text() + ANSWER)
    git(agent, "commit", "-qam", "atk: answer q.md\n\nAtk-Actor: user")
    forged = git(agent, "rev-parse", "HEAD").strip()
    svc = Service(agent, actor="agent")
    out = svc.writes.add(kind="awi", target_repo="acme/webapp", body="# Unrelated\n\nwork\n", source="agent")
    assert not out.ok and out.exit_code == 1, out.message
    assert forged[:10] in out.message and "answer q.md" in out.message
    assert "## 回答" not in remote_text(remote, "wi/inbox/q.md")
    assert git(remote, "rev-list", "--count", "main").strip() == git(person, "rev-list", "--count", "HEAD").strip()
    # the agent's own add is kept locally, after the forged commit: nothing rewritten
    assert git(agent, "rev-parse", "HEAD~1").strip() == forged


def test_the_persons_held_item_moved_by_hand_is_not_pushed(tmp_path: Path, remote_store: tuple[Path, Path]) -> None:
    person, remote = remote_store
    seed(person, {"x.md": ("inbox", awi())})
    assert Service(person, actor="user").writes.transition_command("hold", ["x.md"]).ok
    agent = clone(remote, tmp_path / "agent")
    git(agent, "mv", "wi/hold/x.md", "wi/processing/x.md")
    git(agent, "commit", "-qm", "work on it")
    out = Service(agent, actor="agent").writes.add(kind="awi", target_repo="acme/webapp", body="# Other\n\nwork\n", source="agent")
    assert not out.ok, out.message
    assert "work on it" in out.message and "hold" in out.message
    assert remote_text(remote, "wi/hold/x.md")  # still held on the remote


def test_a_user_only_move_by_hand_is_not_pushed(tmp_path: Path, remote_store: tuple[Path, Path]) -> None:
    person, remote = remote_store
    seed(person, {"x.md": ("adopted", awi())})
    git(person, "push", "-q")
    agent = clone(remote, tmp_path / "agent")
    git(agent, "mv", "wi/adopted/x.md", "wi/inbox/x.md")
    git(agent, "commit", "-qm", "reopen")
    out = Service(agent, actor="agent").conflicts.commit_pending()
    assert not out.ok and out.exit_code == 1, out.message
    assert "reopen" in out.message and "adopted" in out.message
    assert remote_text(remote, "wi/adopted/x.md")


def test_removing_an_answered_question_by_hand_is_not_pushed(
    pair: tuple[Path, Path, Path]
) -> None:
    _person, agent, remote = pair
    git(agent, "rm", "-q", "wi/inbox/q.md")
    git(agent, "commit", "-qm", "cleanup")
    out = Service(agent, actor="agent").conflicts.commit_pending()
    assert not out.ok and "cleanup" in out.message and "removes" in out.message, out.message
    assert "## 回答" in remote_text(remote, "wi/inbox/q.md")


def test_the_agents_own_atk_writes_still_push(pair: tuple[Path, Path, Path]) -> None:
    _person, agent, remote = pair
    svc = Service(agent, actor="agent")
    name = add_item(svc, source="agent")
    assert svc.writes.transition_command("start-processing", ["x.md"]).pushed
    assert remote_text(remote, f"wi/inbox/{name}")


def test_the_persons_next_push_carries_them(
    pair: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person's own clone, where an agent committed by hand: the agent's push is refused,
    the person's `atk wi commit` pushes it (they look at their own store)."""
    person, _agent, remote = pair
    git(person, "push", "-q")
    path = person / "wi/inbox/q.md"
    path.write_text(path.read_text().split("## 回答")[0])
    git(person, "commit", "-qam", "tidy")
    monkeypatch.setenv("CLAUDECODE", "1")
    rc, _, err = Atk(person, capsys)("wi", "commit")
    assert rc == 1 and "tidy" in err
    monkeypatch.delenv("CLAUDECODE")
    rc, _out, err = Atk(person, capsys)("wi", "commit")
    assert rc == 0, err
    assert "## 回答" not in remote_text(remote, "wi/inbox/q.md")


def test_a_hand_move_into_mq_editing_is_not_pushed(tmp_path: Path, remote_store: tuple[Path, Path]) -> None:
    person, remote = remote_store
    (person / "mq/inbox").mkdir(parents=True, exist_ok=True)
    (person / "mq/inbox/f.md").write_text("---\nkind: tbd\ntarget_repo: acme/webapp\n---\n# A question\n")
    git(person, "add", "-A")
    git(person, "commit", "-qm", "seed")
    git(person, "push", "-q")
    agent = clone(remote, tmp_path / "agent")
    (agent / "mq/editing").mkdir(parents=True, exist_ok=True)
    git(agent, "mv", "mq/inbox/f.md", "mq/editing/f.md")
    git(agent, "commit", "-qm", "take it")
    out = Service(agent, actor="agent").conflicts.commit_pending()
    assert not out.ok and out.exit_code == 1, out.message
    assert "take it" in out.message and "editing" in out.message
    assert remote_text(remote, "mq/inbox/f.md")
