"""SPEC §11 (issue 9): partial answers, refusal codes, base checks, commit of renames,
set-aside conflicts, edit keeping user-only sections, crash recovery, plan files, urgency."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.clikit import Atk, awi, seed, uwi
from support.storekit import UWI_BODY, clone, git

from atk_tui.itemfile import questions
from atk_tui.service import Service

TWO_Q = """# Test layout

## 質問 1
Which framework?

- A) pytest
- B) unittest

推奨: A

## 質問 2
Where do tests live?

- A) next to the code
- B) tests/ at the top
"""


@pytest.fixture
def atk(store: Path, capsys: pytest.CaptureFixture[str]) -> Atk:
    return Atk(store, capsys)


def body_of(root: Path, state: str, name: str) -> str:
    return (root / "wi" / state / name).read_text()


# --- partial answers (SPEC §11) --------------------------------------------------------


def test_answer_progress_pure() -> None:
    body = TWO_Q + "\n## 回答\n\n- 1: A) pytest\n"
    p = questions.answer_progress(body)
    assert p.answered == {1: "A"} and p.missing == (2,) and not p.complete
    p = questions.answer_progress(TWO_Q + "\n## 回答\n\n- 1: A) pytest\n- 2: other — see notes\n\nshared dir\n")
    assert p.answered == {1: "A", 2: "other"} and p.complete
    assert questions.answer_progress(TWO_Q).missing == (1, 2)
    # free text alone answers a single question ("other")
    assert questions.answer_progress(UWI_BODY + "\n## 回答\n\nneither, use a library\n").complete


def test_partial_answer_refused_then_saved_with_partial_and_still_blocks(atk: Atk) -> None:
    seed(atk.store, {"q.md": ("inbox", uwi(body=TWO_Q)), "w.md": ("inbox", awi(extra="depends_on: [q.md]\n"))})
    before = git(atk.store, "rev-parse", "HEAD")
    rc, _, err = atk("wi", "answer", "q.md", "--choose", "1=A")
    assert rc == 1 and "question 2" in err and "--partial" in err
    assert git(atk.store, "rev-parse", "HEAD") == before
    svc = Service(atk.store, actor="user")
    out = svc.answers.answer("q.md", choices={1: "A"})
    assert not out.ok and out.code == "partial"
    assert atk("wi", "answer", "q.md", "--choose", "1=A", "--partial")[0] == 0
    item = svc.read("q.md")
    assert item.answer_partial and not item.answered
    view = svc.queue()
    assert view.judgements["w.md"].ready is False  # a partial answer still blocks
    assert "partially answered" in view.judgements["w.md"].reasons[0].message
    assert "q.md" in view.needs_you
    # completing it with "other" (and text) answers it
    rc, _, err = atk("wi", "answer", "q.md", "--choose", "1=A", "--choose", "2=other", "--text", "both", "--replace")
    assert rc == 0, err
    assert "- 2: other — see notes" in body_of(atk.store, "inbox", "q.md")
    item = svc.read("q.md")
    assert item.answered and not item.answer_partial
    assert svc.queue().judgements["w.md"].ready
    # clearing a choice: re-answer without question 2 -> refused unless --partial
    assert atk("wi", "answer", "q.md", "--choose", "1=B", "--replace")[0] == 1
    assert atk("wi", "answer", "q.md", "--choose", "1=B", "--replace", "--partial")[0] == 0
    assert svc.read("q.md").answer_partial
    rc, out, _ = atk("wi", "show", "q.md", "--json")
    assert '"answer_partial": true' in out


def test_answer_base_changed_refused(store: Path) -> None:
    seed(store, {"q.md": ("inbox", uwi())})
    svc = Service(store, actor="user")
    base = svc.read_bytes("q.md")
    (store / "wi/inbox/q.md").write_text(uwi(body=UWI_BODY.replace("- A) Strict", "- A) Lenient")))
    git(store, "commit", "-qam", "agent reorders")
    head = git(store, "rev-parse", "HEAD")
    out = svc.answers.answer("q.md", choices={1: "A"}, base=base)
    assert not out.ok and out.code == "changed"
    assert git(store, "rev-parse", "HEAD") == head
    out = svc.answers.comment("q.md", "x", base=base)
    assert not out.ok and out.code == "changed"


def test_refusal_codes(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(store, {"q.md": ("inbox", uwi()), "p.md": ("processing", awi())})
    svc = Service(store, actor="user")
    assert svc.answers.answer("nope.md", choices={1: "A"}).code == "missing"
    assert Service(store, actor="agent").writes.transition_command("hold", ["p.md"]).code == "state"
    assert Service(store, actor="agent").answers.answer("q.md", choices={1: "A"}).code == "user-only"
    assert svc.answers.answer("q.md", choices={1: "Z"}).code == "invalid"


# --- atk wi commit: renames, no false "pushed", set-aside conflicts (SPEC §11) ------------


def test_commit_both_sides_of_staged_rename(
    remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, remote = remote_store
    seed(root, {"x.md": ("inbox", awi())})
    git(root, "push", "-q")
    git(root, "mv", "wi/inbox/x.md", "wi/hold/x.md")
    a = Atk(root, capsys)
    rc, _, err = a("wi", "commit", "--yes")
    assert rc == 0, err
    tree = git(remote, "ls-tree", "-r", "--name-only", "main")
    assert "wi/hold/x.md" in tree and "wi/inbox/x.md" not in tree
    assert git(root, "status", "--porcelain") == ""


def test_commit_nothing_to_push_is_not_pushed(
    remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = remote_store
    rc, out, _ = Atk(root, capsys)("wi", "commit")
    assert rc == 0 and "nothing to push" in out and "pushed" not in out.replace("nothing to push", "")


def _shared(tmp_path: Path, root: Path, remote: Path, text: str) -> Path:
    """`x.md` in our inbox, pushed, and another clone of the remote (returned)."""
    seed(root, {"x.md": ("inbox", text)})
    git(root, "push", "-q")
    return clone(remote, tmp_path / "other")


def _diverge(tmp_path: Path, root: Path, remote: Path) -> tuple[Path, str]:
    """The same item edited on two clones; the other clone pushes first; ours is unpushed."""
    other = _shared(tmp_path, root, remote, awi())
    out = Service(root, actor="user", pull=False, push=False).writes.edit("x.md", "# mine\n\nmy text\n")
    assert out.ok
    assert Service(other, actor="user").writes.edit("x.md", "# theirs\n\ntheir text\n").ok
    return other, git(root, "rev-parse", "HEAD").strip()


def test_commit_sets_aside_conflict_exit_1_and_names_it(
    tmp_path: Path, remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, remote = remote_store
    _, mine = _diverge(tmp_path, root, remote)
    rc, out, err = Atk(root, capsys)("wi", "commit")
    assert rc == 1
    assert mine[:10] in out and f"refs/atk/conflicts/{mine}" in out and "atk wi conflicts" in out
    assert "pushed" not in out.replace("not pushed", "")
    svc = Service(root, actor="user")
    found = svc.conflicts.list()
    assert [c.commit for c in found] == [mine] and found[0].files == ("wi/inbox/x.md",)
    assert svc.status()["conflicts"] == 1
    [(path, m, t)] = svc.conflicts.versions(mine[:10])
    assert path == "wi/inbox/x.md" and b"my text" in m and b"their text" in t
    rc, out, _ = Atk(root, capsys)("wi", "conflicts")
    assert rc == 0 and mine in out
    rc, out, _ = Atk(root, capsys)("wi", "conflicts", "show", mine)
    assert "my text" in out and "their text" in out
    rc, out, err = Atk(root, capsys)("wi", "conflicts", "apply", mine, "--mine")
    assert rc == 0, err
    # one line saying what was written: the new commit's SHA once, and that it was pushed (issue 26)
    assert out.count("\n") == 1 and out.rstrip().endswith(") pushed"), out
    assert re.findall(r"\(([0-9a-f]{10})\)", out) == [git(root, "rev-parse", "--short=10", "HEAD").strip()], out
    assert "my text" in git(remote, "show", "main:wi/inbox/x.md")
    assert svc.conflicts.list() == [] and svc.status()["conflicts"] == 0


def test_conflict_apply_theirs_drops_ref(tmp_path: Path, remote_store: tuple[Path, Path]) -> None:
    root, remote = remote_store
    _, mine = _diverge(tmp_path, root, remote)
    svc = Service(root, actor="user")
    assert not svc.conflicts.commit_pending().ok
    head = git(root, "rev-parse", "HEAD")
    out = svc.conflicts.resolve(f"refs/atk/conflicts/{mine}", "theirs")
    assert out.ok and svc.conflicts.list() == []
    assert git(root, "rev-parse", "HEAD") == head and "their text" in body_of(root, "inbox", "x.md")


# --- crash recovery never looks saved and never discards later edits --------------------

KILL = """
import os, sys
from atk_tui import store
from atk_tui.service import Service
store.Transaction.commit = lambda *a, **k: os._exit(9)  # killed between the file write and the commit
Service(sys.argv[1], actor="user").answers.answer("q.md", choices={1: "B"})
"""


def _killed_answer(root: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", KILL, str(root)], capture_output=True, text=True, check=False)
    assert proc.returncode == 9, proc.stderr
    assert "- 1: B)" in body_of(root, "inbox", "q.md")  # half done: written, not committed
    assert (root / ".git/atk-journal.json").exists()


def test_killed_answer_then_user_edit_then_commit_keeps_both(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed(store, {"q.md": ("inbox", uwi())})
    _killed_answer(store)
    path = store / "wi/inbox/q.md"
    path.write_text(path.read_text() + "\nMy later note.\n")
    rc, out, err = Atk(store, capsys)("wi", "commit", "--yes")
    assert rc == 0 and "committed 1 file" in out, (out, err)
    committed = git(store, "show", "HEAD:wi/inbox/q.md")
    assert "- 1: B)" in committed and "My later note." in committed
    assert git(store, "status", "--porcelain") == ""


def test_killed_answer_alone_does_not_look_saved(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed(store, {"q.md": ("inbox", uwi())})
    before = git(store, "show", "HEAD:wi/inbox/q.md")
    _killed_answer(store)
    svc = Service(store, actor="user")
    view = svc.queue()  # the next look at the queue rolls the half-done write back
    assert not view.items["q.md"].answered
    assert body_of(store, "inbox", "q.md") == before
    rc, out, _ = Atk(store, capsys)("wi", "commit")
    assert rc == 0 and "nothing to commit" in out


def test_killed_move_then_edit_goes_back_with_the_edit(store: Path) -> None:
    import subprocess
    import sys

    seed(store, {"x.md": ("inbox", awi())})
    script = KILL.replace('.answers.answer("q.md", choices={1: "B"})', '.writes.transition_command("hold", ["x.md"])')
    assert subprocess.run([sys.executable, "-c", script, str(store)], check=False).returncode == 9
    moved = store / "wi/hold/x.md"
    moved.write_text(moved.read_text() + "\nedited after the crash\n")
    Service(store, actor="user").queue()
    assert not moved.exists()
    assert "edited after the crash" in body_of(store, "inbox", "x.md")


# --- item 6: plan files, urgency, reject, refusals, rm warning, --whole-file -------------


def test_plan_file_absolute_inside_store_is_stored_portable(atk: Atk, tmp_path: Path) -> None:
    seed(atk.store, {"a.md": ("inbox", awi())})
    (atk.store / "plans/2026/11").mkdir(parents=True)
    (atk.store / "plans/2026/11/login.md").write_text("# plan\n")
    rc, _, err = atk("wi", "convert-to-plan", "a.md", "--plan-file", f"{atk.store}/plans/2026/11/login.md")
    assert rc == 0, err
    assert "plan_file: $(atk config get private_notes)/plans/2026/11/login.md\n" in body_of(atk.store, "inbox", "a.md")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# plan\n")
    head = git(atk.store, "rev-parse", "HEAD")
    rc, _, err = atk("wi", "convert-to-plan", "a.md", "--plan-file", str(outside))
    assert rc == 2 and "outside the store" in err and "atk plans commit" in err
    assert git(atk.store, "rev-parse", "HEAD") == head
    rc, out, err = atk("wi", "add", "--target-repo", "r", "--plan-file", f"{atk.store}/plans/2026/11/login.md", "# p\n")
    assert rc == 0, err
    assert "plan_file: $(atk config get private_notes)/plans/2026/11/login.md" in out


CHECKPOINT = """# Pick a test layout

AWAITING_USER_INPUT
---
Urgency: next-review
Context: two layouts exist
Decision needed: Where do tests live?
Options:
A) next to the code -- short imports
B) tests/ at the top -- clean tree
Recommendation: B
---
"""


def test_checkpoint_urgency_used_and_written_by_add(atk: Atk, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(atk.store, {"c.md": ("inbox", uwi(body=CHECKPOINT))})
    svc = Service(atk.store, actor="user")
    assert svc.read("c.md").urgency == "next-review"
    out = svc.writes.add(kind="uwi", target_repo="r", body=CHECKPOINT)
    assert out.ok
    assert "urgency: next-review\n" in body_of(atk.store, "inbox", out.files[0])


def test_agent_rejects_answered_inbox_uwi_but_not_unanswered(atk: Atk, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(atk.store, {"q.md": ("inbox", uwi()), "u.md": ("inbox", uwi())})
    assert atk("wi", "answer", "q.md", "--choose", "B")[0] == 0
    monkeypatch.setenv("CODEX_CI", "1")
    rc, _, err = atk("wi", "reject", "u.md")
    assert rc == 1 and "not answered yet" in err
    rc, _, err = atk("wi", "reject", "q.md", "--note", "superseded")
    assert rc == 0, err
    assert (atk.store / "wi/rejected/q.md").exists()


def test_refusal_says_what_to_do(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {"p.md": ("processing", awi()), "h.md": ("hold", awi())})
    rc, _, err = atk("wi", "hold", "p.md")
    assert rc == 1 and "return-to-inbox p.md" in err
    rc, _, err = atk("wi", "start-processing", "h.md")
    assert rc == 1 and "unhold" in err


def test_rm_warns_about_dependents(atk: Atk) -> None:
    seed(atk.store, {"base.md": ("inbox", awi()), "top.md": ("inbox", awi(extra="depends_on: [base.md]\n"))})
    rc, _, err = atk("wi", "rm", "base.md")
    assert rc == 0 and "top.md" in err and "set-dependencies" in err
    out = Service(atk.store, actor="user").writes.rm("top.md")
    assert out.ok and out.warnings == ()


def test_whole_file_repairs_a_defective_item(atk: Atk, tmp_path: Path) -> None:
    seed(atk.store, {"d.md": ("inbox", "---\nkind: what\ntarget_repo: r\n---\n# broken\n")})
    rc, _, err = atk("wi", "hold", "d.md")
    assert rc == 1 and "--whole-file" in err
    fixed = tmp_path / "fixed.md"
    fixed.write_text("---\nkind: awi\ntarget_repo: r\n---\n# fixed\n")
    rc, _, err = atk("wi", "edit", "d.md", "--whole-file", str(fixed))
    assert rc == 0, err
    assert body_of(atk.store, "inbox", "d.md") == fixed.read_text()
    assert atk("wi", "hold", "d.md")[0] == 0


def test_move_with_note_against_changed_base_refused(store: Path) -> None:
    seed(store, {"p.md": ("processing", awi())})
    svc = Service(store, actor="user")
    base = svc.read_bytes("p.md")
    (store / "wi/processing/p.md").write_text(awi(body="# changed meanwhile\n"))
    git(store, "commit", "-qam", "agent edit")
    out = svc.writes.move(["p.md"], "adopted", note="looks good", base=base)
    assert not out.ok and out.code == "changed"
    assert (store / "wi/processing/p.md").exists()
    assert svc.writes.move(["p.md"], "adopted", note="ok", base=svc.read_bytes("p.md")).ok


def test_checkpoint_urgency_without_options(store: Path) -> None:
    body = "# Need a call\n\nAWAITING_USER_INPUT\n---\nUrgency: informational\nContext: nothing to pick from\n---\n"
    seed(store, {"c.md": ("inbox", uwi(body=body))})
    assert Service(store, actor="user").read("c.md").urgency == "informational"


def test_conflict_apply_mine_for_a_move_keeps_one_copy(tmp_path: Path, remote_store: tuple[Path, Path]) -> None:
    root, remote = remote_store
    other = _shared(tmp_path, root, remote, awi())
    assert Service(root, actor="user", pull=False, push=False).writes.transition_command("hold", ["x.md"]).ok
    assert Service(other, actor="user").writes.transition_command("start-processing", ["x.md"]).ok
    svc = Service(root, actor="user")
    out = svc.conflicts.commit_pending()
    assert not out.ok and out.code == "conflict"
    [c] = svc.conflicts.list()
    assert set(c.files) == {"wi/inbox/x.md", "wi/hold/x.md"}
    assert svc.conflicts.resolve(c.commit, "mine").ok
    tree = git(remote, "ls-tree", "-r", "--name-only", "main")
    assert "wi/hold/x.md" in tree and "wi/processing/x.md" not in tree and "wi/inbox/x.md" not in tree


def test_agent_undo_cannot_remove_the_users_answer(store: Path) -> None:
    seed(store, {"q.md": ("inbox", uwi())})
    out = Service(store, actor="user").answers.answer("q.md", choices={1: "A"})
    assert out.ok
    head = git(store, "rev-parse", "HEAD")
    undo = Service(store, actor="agent").writes.undo(out.commit)
    assert not undo.ok and undo.code == "user-only"
    assert git(store, "rev-parse", "HEAD") == head


def test_agent_add_refusal_code(store: Path) -> None:
    out = Service(store, actor="agent").writes.add(kind="uwi", target_repo="r", body="# q\n\n## 回答\n\nx\n", source="s")
    assert not out.ok and out.exit_code == 2 and out.code == "user-only"


def test_agent_edit_keeps_comment_that_is_not_the_last_h2(atk: Atk, monkeypatch: pytest.MonkeyPatch) -> None:
    body = "# T\n\n- 反映内容: x\n\n## ユーザーコメント\n\nPlease keep the old regex.\n\n## 追記\n\nagent notes\n"
    seed(atk.store, {"a.md": ("inbox", awi(body=body))})
    monkeypatch.setenv("CLAUDECODE", "1")
    rc, _, err = atk("wi", "edit", "a.md", "# T\n\n- 反映内容: y\n\n## 追記\n\nnew notes\n")
    assert rc == 0, err
    text = git(atk.store, "show", "HEAD:wi/inbox/a.md")
    assert "Please keep the old regex." in text and "new notes" in text and "agent notes" not in text
    assert text.rstrip().endswith("Please keep the old regex.")


def test_agent_commits_a_plain_rename_of_an_answered_uwi(atk: Atk, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(atk.store, {"q.md": ("inbox", uwi())})
    assert atk("wi", "answer", "q.md", "--choose", "A")[0] == 0
    monkeypatch.setenv("AI_AGENT", "1")
    git(atk.store, "mv", "wi/inbox/q.md", "wi/hold/q.md")
    rc, _, err = atk("wi", "commit")
    assert rc == 0, err
    assert "wi/hold/q.md" in git(atk.store, "ls-tree", "-r", "--name-only", "HEAD")
    assert "wi/inbox/q.md" not in git(atk.store, "ls-tree", "-r", "--name-only", "HEAD")


def test_agent_cannot_apply_a_set_aside_forgery(tmp_path: Path, remote_store: tuple[Path, Path]) -> None:
    """A set-aside commit that would write a user-only section is refused for an agent."""
    root, remote = remote_store
    other = _shared(tmp_path, root, remote, uwi())
    path = root / "wi/inbox/x.md"
    # both sides change the same section (## 背景) differently: a conflict no merge resolves (issue
    # 39 merges changes to different parts)
    forged = path.read_text().replace("Two patterns were found.", "Three patterns were found.")
    path.write_text(forged + "\n## 回答\n\n- 1: A) Strict RFC 5322\n")
    git(root, "commit", "-qam", "forged")  # around the tool
    edited = UWI_BODY.replace("Two patterns were found.", "Four patterns were found.")
    assert Service(other, actor="user").writes.edit("x.md", edited + "\n## 補足\n\nmore context\n").ok
    svc = Service(root, actor="user")
    assert svc.conflicts.commit_pending().code == "conflict"
    [c] = svc.conflicts.list()
    out = Service(root, actor="agent").conflicts.resolve(c.commit, "mine")
    assert not out.ok and out.code == "user-only" and out.exit_code == 2
    assert svc.conflicts.list() != []  # still there for the user


def test_commit_when_store_busy_is_an_outcome(store: Path) -> None:
    from filelock import FileLock

    svc = Service(store, actor="user")
    svc.store.lock_timeout = 0
    with FileLock(str(store / ".git" / "atk.lock")):
        out = svc.conflicts.commit_pending()
    assert not out.ok and out.code == "busy"


def test_text_alone_answers_one_question_not_several(store: Path) -> None:
    assert questions.answer_progress(TWO_Q + "\n## 回答\n\nboth A\n").missing == (1, 2)
    seed(store, {"q.md": ("inbox", uwi(body=TWO_Q))})
    svc = Service(store, actor="user")
    out = svc.answers.answer("q.md", text="both A")
    assert not out.ok and out.code == "partial"
    assert svc.answers.answer("q.md", choices={1: "other", 2: "other"}, text="both A").ok
    assert svc.read("q.md").answered
