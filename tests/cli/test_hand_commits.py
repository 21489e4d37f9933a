"""The person's decisions through the back doors of `atk wi commit` and `conflicts apply`
(issue 25): an agent resolving a conflict that holds the user's answer, hand moves between
state folders committed by `commit` (judged by the one transition table), and the person's
own commit in a working tree agents also write to (listed, asked or `--yes`)."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest
from support.clikit import ATK, Atk, awi, seed, uwi
from support.storekit import clone, git, tree_state

from atk_tui.service import Service

ANSWER = "\n## 回答\n\n- 1: B)\n"


def agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDECODE", "1")


# -- conflicts apply by an agent ---------------------------------------------------------------


def set_aside_answer(tmp_path: Path, root: Path, remote: Path) -> str:
    """The person answers q.md here (not pushed yet); another clone answers it otherwise and
    pushes first; `atk wi commit` sets the person's answer aside. Returns its commit."""
    seed(root, {"q.md": ("inbox", uwi())})
    git(root, "push", "-q")
    other = clone(remote, tmp_path / "other")
    assert Service(root, actor="user", pull=False, push=False).answers.answer("q.md", choices={1: "A"}).ok
    mine = git(root, "rev-parse", "HEAD").strip()
    assert Service(other, actor="user").answers.answer("q.md", choices={1: "C"}).ok
    out = Service(root, actor="user").conflicts.commit_pending()
    assert out.code == "conflict", out.message
    return mine


@pytest.mark.parametrize("side", ["--theirs", "--mine"])
def test_agent_may_not_resolve_a_conflict_holding_the_users_answer(
    tmp_path: Path, remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    side: str,
) -> None:  # fmt: skip
    root, remote = remote_store
    mine = set_aside_answer(tmp_path, root, remote)
    before = tree_state(root)
    agent(monkeypatch)
    rc, _, err = Atk(root, capsys)("wi", "conflicts", "apply", mine[:10], side)
    assert rc == 2, err
    assert "user" in err and "dashboard" in err
    assert [c.commit for c in Service(root).conflicts.list()] == [mine]  # still there for the person
    assert tree_state(root) == before


def test_the_person_still_resolves_it(
    tmp_path: Path, remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, remote = remote_store
    mine = set_aside_answer(tmp_path, root, remote)
    rc, _, err = Atk(root, capsys)("wi", "conflicts", "apply", mine[:10], "--mine")
    assert rc == 0, err
    assert Service(root).conflicts.list() == []


def test_agent_resolves_an_agents_own_conflict(
    tmp_path: Path, remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, remote = remote_store
    seed(root, {"x.md": ("inbox", awi())})
    git(root, "push", "-q")
    other = clone(remote, tmp_path / "other")
    assert Service(root, actor="agent", pull=False, push=False).writes.edit("x.md", "# mine\n\nmy text\n").ok
    assert Service(other, actor="agent").writes.edit("x.md", "# theirs\n\ntheir text\n").ok
    assert Service(root, actor="agent").conflicts.commit_pending().code == "conflict"
    agent(monkeypatch)
    [c] = Service(root).conflicts.list()
    rc, _, err = Atk(root, capsys)("wi", "conflicts", "apply", c.commit[:10], "--theirs")
    assert rc == 0, err


# -- hand moves through commit ------------------------------------------------------------------

MQ_ITEM = "---\nkind: feedback\ntarget_repo: acme/webapp\n---\n# make it faster\n\nbody\n"

#: (queue, item's state, where the hand move takes it, the agent's exit code)
HAND_MOVES = [
    ("wi", "hold", "processing", 1),  # no transition at all (start-processing takes inbox)
    ("wi", "adopted", "inbox", 2),  # user-only: out of a terminal state
    ("wi", "inbox", "adopted", 1),  # adopt takes processing
    ("mq", "inbox", "editing", 2),  # the user's edit session
]


def seeded_move(root: Path, queue: str, src: str, dst: str) -> None:
    (root / queue / src).mkdir(parents=True, exist_ok=True)
    (root / queue / src / "f.md").write_text(MQ_ITEM if queue == "mq" else awi())
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "seed")
    (root / queue / dst).mkdir(parents=True, exist_ok=True)
    git(root, "mv", f"{queue}/{src}/f.md", f"{queue}/{dst}/f.md")


@pytest.mark.parametrize(("queue", "src", "dst", "code"), HAND_MOVES, ids=[f"{q}-{s}-{d}" for q, s, d, _ in HAND_MOVES])
def test_agent_hand_move_is_refused_and_left_as_it_was(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, queue: str, src: str, dst: str,
    code: int,
) -> None:  # fmt: skip
    seeded_move(store, queue, src, dst)
    before = tree_state(store)
    status = git(store, "status", "--porcelain")
    agent(monkeypatch)
    rc, _, err = Atk(store, capsys)(queue, "commit")
    assert rc == code, err
    assert f"{queue}/{src}/f.md -> {queue}/{dst}/f.md" in err and "Nothing was committed" in err
    assert tree_state(store) == before and git(store, "status", "--porcelain") == status


@pytest.mark.parametrize(("queue", "src", "dst", "code"), HAND_MOVES, ids=[f"{q}-{s}-{d}" for q, s, d, _ in HAND_MOVES])
def test_the_user_moves_anything_anywhere_by_hand(
    store: Path, capsys: pytest.CaptureFixture[str], queue: str, src: str, dst: str, code: int
) -> None:
    seeded_move(store, queue, src, dst)
    rc, out, err = Atk(store, capsys)(queue, "commit", "--yes")
    assert rc == 0, err
    assert f"move {queue}/{src}/f.md -> {queue}/{dst}/f.md" in out
    tree = git(store, "ls-tree", "-r", "--name-only", "HEAD")
    assert f"{queue}/{dst}/f.md" in tree and f"{queue}/{src}/f.md" not in tree
    assert git(store, "log", "-1", "--format=%(trailers:key=Atk-Actor,valueonly)").strip() == "user"


def test_agent_hand_move_the_verbs_allow_is_committed(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded_move(store, "wi", "inbox", "processing")
    agent(monkeypatch)
    rc, _, err = Atk(store, capsys)("wi", "commit")
    assert rc == 0, err
    assert "wi/processing/f.md" in git(store, "ls-tree", "-r", "--name-only", "HEAD")


def test_hand_removal_outside_inbox_and_hold_and_a_hand_add_into_hold(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store, {"a.md": ("adopted", awi())})
    (store / "wi/adopted/a.md").unlink()
    agent(monkeypatch)
    rc, _, err = Atk(store, capsys)("wi", "commit")
    assert rc == 1 and "rm takes" in err, err
    git(store, "checkout", "HEAD", "--", "wi/adopted/a.md")
    (store / "wi/hold/new.md").write_text(awi(extra="source: hand\n"))
    rc, _, err = Atk(store, capsys)("wi", "commit")
    assert rc == 1 and "not straight into hold" in err, err
    assert git(store, "log", "-1", "--format=%s").strip() == "seed"


def test_agent_hand_edit_of_a_terminal_item_and_a_hand_copy(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store, {"a.md": ("adopted", awi(extra="note: done\n")), "i.md": ("inbox", awi())})
    path = store / "wi/adopted/a.md"
    path.write_text(path.read_text().replace("note: done", "note: not done after all"))
    agent(monkeypatch)
    rc, _, err = Atk(store, capsys)("wi", "commit")
    assert rc == 1 and "read-only" in err, err
    git(store, "checkout", "HEAD", "--", "wi/adopted/a.md")
    (store / "wi/adopted/i.md").write_bytes((store / "wi/inbox/i.md").read_bytes())
    monkeypatch.delenv("CLAUDECODE")
    rc, _, err = Atk(store, capsys)("wi", "commit", "--yes")
    assert rc == 1 and "two states" in err, err
    assert git(store, "log", "-1", "--format=%s").strip() == "seed"


# -- the person's commit in a shared working tree ---------------------------------------------


def agents_hand_answer(root: Path) -> Path:
    seed(root, {"q.md": ("inbox", uwi())})
    path = root / "wi/inbox/q.md"
    path.write_text(path.read_text() + ANSWER)  # an agent wrote it, uncommitted
    return path


def test_the_persons_commit_without_yes_and_no_tty_exits_2_listing_it(store: Path) -> None:
    agents_hand_answer(store)
    proc = subprocess.run([str(ATK), "wi", "commit", "--store", str(store)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "edit wi/inbox/q.md" in proc.stdout and "adds the user-only section '## 回答'" in proc.stdout
    assert "--yes" in proc.stderr
    assert git(store, "log", "-1", "--format=%s").strip() == "seed"  # nothing committed
    assert "## 回答" not in git(store, "show", "HEAD:wi/inbox/q.md")
    assert "## 回答" in (store / "wi/inbox/q.md").read_text()  # the tree left as it was


def test_the_persons_commit_with_yes_commits_it(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agents_hand_answer(store)
    rc, out, err = Atk(store, capsys)("wi", "commit", "--yes")
    assert rc == 0, err
    assert "## 回答" in out and "committed 1 file" in out
    assert "## 回答" in git(store, "show", "HEAD:wi/inbox/q.md")


def test_the_persons_commit_asks_on_a_terminal(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    agents_hand_answer(store)
    monkeypatch.setattr("sys.stdin", Terminal("n\n"))
    rc, out, err = Atk(store, capsys)("wi", "commit")
    assert rc == 1 and "[y/N]" in err and "## 回答" in out
    assert git(store, "log", "-1", "--format=%s").strip() == "seed"
    monkeypatch.setattr("sys.stdin", Terminal("y\n"))
    rc, _, err = Atk(store, capsys)("wi", "commit")
    assert rc == 0, err
    assert "## 回答" in git(store, "show", "HEAD:wi/inbox/q.md")


def test_the_list_names_moves_into_terminal_states_and_what_changed_since(store: Path) -> None:
    seed(store, {"x.md": ("processing", awi())})
    git(store, "mv", "wi/processing/x.md", "wi/adopted/x.md")
    svc = Service(store, actor="user")
    [change] = svc.conflicts.pending_changes()
    assert change.kind == "move" and "into adopted" in change.describe()
    (store / "wi/adopted/x.md").write_text(awi(body="# changed after the look\n"))
    out = svc.conflicts.commit_pending(confirmed=[change])
    assert not out.ok and out.code == "changed", out.message
    assert git(store, "log", "-1", "--format=%s").strip() == "seed"


def test_agent_may_not_resolve_a_conflict_whose_commit_carries_an_answer_under_any_trailer(
    tmp_path: Path, remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only an `Atk-Actor: user` commit: any set-aside commit whose version of an item
    changes a user-only section is the person's to resolve."""
    root, remote = remote_store
    seed(root, {"q.md": ("inbox", uwi())})
    git(root, "push", "-q")
    other = clone(remote, tmp_path / "other")
    path = root / "wi/inbox/q.md"
    path.write_text(path.read_text() + ANSWER)
    git(root, "commit", "-q", "-am", "hand answer\n\nAtk-Actor: agent")
    theirs = other / "wi/inbox/q.md"
    theirs.write_text(theirs.read_text() + "\n## 回答\n\n- 1: C)\n")
    git(other, "commit", "-q", "-am", "their answer")
    git(other, "push", "-q")
    assert Service(root, actor="user").conflicts.commit_pending().code == "conflict"
    [c] = Service(root).conflicts.list()
    agent(monkeypatch)
    rc, _, err = Atk(root, capsys)("wi", "conflicts", "apply", c.commit[:10], "--theirs")
    assert rc == 2 and "## 回答" in err, err
    assert Service(root).conflicts.list() == [c]
