"""Hardening round 3 (issue 38): what an agent's own git, a crafted conflict, a named pipe or
a flood of output could still do. Each test fails without its fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.clikit import ATK, Atk, awi, seed, uwi
from support.storekit import clone, git

from atk_tui.host.config import is_agent_env
from atk_tui.service import Service

ANSWER = "\n## 回答\n\n- 1: B)\n"


# -- 3. agent identity ---------------------------------------------------------------------------


@pytest.mark.parametrize("var", ["ATK_AGENT_ID", "ATK_LOOP_SESSION"])
def test_an_agent_id_or_a_loop_session_marks_an_agent(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, var: str
) -> None:
    seed(store, {"q.md": ("inbox", uwi())})
    monkeypatch.setenv(var, "worker-2")
    assert is_agent_env()
    assert Service(store).actor == "agent"
    rc, _, err = Atk(store, capsys)("wi", "answer", "q.md", "--choose", "1=A")
    assert rc == 2, err
    assert "user-only" in err or "agent" in err
    assert "## 回答" not in (store / "wi/inbox/q.md").read_text()


def test_an_empty_agent_id_is_no_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATK_AGENT_ID", "")
    assert not is_agent_env()


def test_the_loop_starts_its_sessions_as_agents(store: Path, tmp_path: Path) -> None:
    seed(store, {"one.md": ("inbox", awi("acme/one"))})
    out = tmp_path / "env.json"
    script = tmp_path / "agent.py"
    script.write_text(
        "import json, os, sys\n"
        "keys = ('AI_AGENT', 'ATK_LOOP_SESSION')\n"
        f"json.dump({{k: os.environ.get(k) for k in keys}}, open({str(out)!r}, 'w'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("AI_AGENT", "CLAUDECODE")}
    proc = subprocess.run(
        [str(ATK), "wi", "process-loop", "--run", f"{sys.executable} {script}", "--store", str(store), "--once"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(out.read_text())
    assert seen["AI_AGENT"] == "1"
    assert seen["ATK_LOOP_SESSION"]


# -- 2. rm -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [("q.md", uwi() + ANSWER), ("x.md", awi() + "\n## ユーザーコメント\n\nkeep the old API\n")],
)
def test_an_agent_may_not_rm_an_item_holding_the_persons_section(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str, text: str
) -> None:
    seed(store, {name: ("inbox", text)})
    monkeypatch.setenv("AI_AGENT", "1")
    rc, _, err = Atk(store, capsys)("wi", "rm", name)
    assert rc == 2, err
    assert "user-only" in err or "agents may not remove" in err
    assert (store / "wi/inbox" / name).exists()
    # trimmed by hand first: the committed section still counts
    path = store / "wi/inbox" / name
    path.write_text(text.split("\n## ")[0] + "\n")
    rc, _, err = Atk(store, capsys)("wi", "rm", name)
    assert rc == 2, err
    monkeypatch.delenv("AI_AGENT")
    git(store, "checkout", "--", ".")
    rc, _, err = Atk(store, capsys)("wi", "rm", name)
    assert rc == 0, err  # the person removes it


# -- 1. answers count only from the store ------------------------------------------------------


def test_an_uncommitted_answer_makes_nothing_ready_not_even_for_the_person(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(store, {"q.md": ("inbox", uwi()), "x.md": ("inbox", awi(extra="depends_on: [q.md]\n"))})
    atk = Atk(store, capsys)
    path = store / "wi/inbox/q.md"
    path.write_text(path.read_text() + ANSWER)  # typed in, not committed
    for _ in range(2):  # cold, then from the listing cache
        rc, out, _ = atk("wi", "list", "--status", "ready", "--json")
        assert rc == 0
        assert "x.md" not in out
    svc = Service(store)
    view = svc.queue()
    assert not view.judgements["x.md"].ready
    assert not view.items["q.md"].answered
    git(store, "commit", "-qam", "answer")  # the person's own commit: now it counts
    rc, out, _ = atk("wi", "list", "--status", "ready", "--json")
    assert "x.md" in out
    again = svc.queue(previous=view)  # the dashboard's next look, the file unchanged
    assert again.judgements["x.md"].ready and again.items["q.md"].answered


def test_an_agents_unpushed_answer_counts_nowhere_for_it(
    tmp_path: Path, remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    person, remote = remote_store
    seed(person, {"q.md": ("inbox", uwi()), "x.md": ("inbox", awi(extra="depends_on: [q.md]\n"))})
    git(person, "push", "-q")
    agent = clone(remote, tmp_path / "agent")
    path = agent / "wi/inbox/q.md"
    path.write_text(path.read_text() + ANSWER)
    git(agent, "commit", "-qam", "atk: answer q.md\n\nAtk-Actor: user")  # forged, never pushed
    monkeypatch.setenv("AI_AGENT", "1")
    atk = Atk(agent, capsys)
    rc, out, err = atk("wi", "wait", "q.md", "--timeout", "0")
    assert rc == 1, out + err
    rc, out, _ = atk("wi", "show", "q.md", "--json")
    assert json.loads(out.splitlines()[0])["answered"] is False
    judged = Service(agent).judge_from_files(["x.md"])  # what the loop's hand-out asks
    assert not judged["x.md"][1].ready
    # the person's answer, pushed: now it counts for the agent too
    git(agent, "reset", "-q", "--hard", "@{u}")
    assert Service(person, actor="user").answers.answer("q.md", choices={1: "B"}).ok
    rc, out, err = atk("wi", "wait", "q.md", "--timeout", "5")
    assert rc == 0, out + err


# -- 2. start-processing judges readiness itself ---------------------------------------------------


def test_an_agent_may_not_start_blocked_work_even_when_the_listing_lies(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from support.forge import forge_listing

    seed(store, {"q.md": ("inbox", uwi()), "x.md": ("inbox", awi(extra="depends_on: [q.md]\n"))})
    atk = Atk(store, capsys)
    rc, out, _ = atk("wi", "list", "--status", "ready", "--json")
    assert "x.md" not in out
    forge_listing(store, lambda raw: raw.replace(b'"blocked"', b'"ready"').replace(b"false", b"true"))
    monkeypatch.setenv("AI_AGENT", "1")
    rc, out, err = atk("wi", "start-processing", "x.md")
    assert rc == 1, out + err
    assert "blocked" in err and "q.md" in err
    assert (store / "wi/inbox/x.md").exists()
    rc, _, err = atk("wi", "start-processing", "q.md")  # unblocked work still starts
    assert rc == 0, err


# -- 2. conflicts apply judges the transitions it replays ------------------------------------------


def test_an_agents_own_conflict_ref_cannot_reopen_or_remove(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store, {"y.md": ("adopted", awi()), "z.md": ("rejected", awi()), "w.md": ("inbox", awi())})
    head = git(store, "rev-parse", "HEAD").strip()
    git(store, "mv", "wi/adopted/y.md", "wi/inbox/y.md")
    git(store, "rm", "-q", "wi/rejected/z.md")
    git(store, "commit", "-qm", "atk: tidy\n\nAtk-Actor: agent")
    crafted = git(store, "rev-parse", "HEAD").strip()
    git(store, "update-ref", f"refs/atk/conflicts/{crafted}", crafted)
    git(store, "reset", "-q", "--hard", head)
    monkeypatch.setenv("AI_AGENT", "1")
    rc, out, err = Atk(store, capsys)("wi", "conflicts", "apply", crafted[:10], "--mine")
    assert rc == 2, out + err
    assert "y.md" in err and "adopted" in err and "z.md" in err
    assert (store / "wi/adopted/y.md").exists() and (store / "wi/rejected/z.md").exists()
    assert git(store, "rev-parse", "HEAD").strip() == head
    assert git(store, "for-each-ref", "refs/atk/conflicts/").strip()  # kept for the person


def test_an_agents_own_conflict_ref_may_replay_agent_moves(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store, {"w.md": ("inbox", awi())})
    head = git(store, "rev-parse", "HEAD").strip()
    git(store, "mv", "wi/inbox/w.md", "wi/processing/w.md")
    git(store, "commit", "-qm", "atk: start-processing w.md\n\nAtk-Actor: agent")
    crafted = git(store, "rev-parse", "HEAD").strip()
    git(store, "update-ref", f"refs/atk/conflicts/{crafted}", crafted)
    git(store, "reset", "-q", "--hard", head)
    monkeypatch.setenv("AI_AGENT", "1")
    rc, out, err = Atk(store, capsys)("wi", "conflicts", "apply", crafted[:10], "--mine")
    assert rc == 0, out + err
    assert (store / "wi/processing/w.md").exists()


# -- 4. fail closed on what the person read --------------------------------------------------------


def _asked_then_changed(tmp_path: Path, person: Path, remote: Path, capsys: pytest.CaptureFixture[str]) -> Atk:
    """q.md asked and read by the person; then its options change on the remote and an
    agent's read in the person's clone pulls the new version in."""
    seed(person, {"q.md": ("inbox", uwi())})
    git(person, "push", "-q")
    atk = Atk(person, capsys)
    assert atk("wi", "show", "q.md")[0] == 0  # the person reads version 1
    other = clone(remote, tmp_path / "other")
    path = other / "wi/inbox/q.md"
    path.write_text(path.read_text().replace("Strict RFC 5322", "Drop validation entirely"))
    git(other, "commit", "-qam", "reword the question")
    git(other, "push", "-q")
    git(person, "pull", "-q", "--rebase")  # an agent's read (or its plain git) moves the local copy on
    assert "Drop validation" in (person / "wi/inbox/q.md").read_text()
    return atk


def test_no_record_of_what_the_person_read_refuses_their_answer(
    tmp_path: Path, remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    person, remote = remote_store
    atk = _asked_then_changed(tmp_path, person, remote, capsys)
    (person / ".git/atk-shown.json").unlink()
    rc, out, err = atk("wi", "answer", "q.md", "--choose", "1=A")
    assert rc == 1, out + err
    assert "not saved" in err and "again" in err
    assert "Drop validation entirely" in out  # the question shown, as it is now
    assert "## 回答" not in (person / "wi/inbox/q.md").read_text()
    rc, out, err = atk("wi", "answer", "q.md", "--choose", "1=A")  # read now: re-run
    assert rc == 0, out + err


def test_a_record_that_is_no_version_of_the_question_refuses_the_answer(
    tmp_path: Path, remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    person, remote = remote_store
    atk = _asked_then_changed(tmp_path, person, remote, capsys)
    (person / ".git/atk-shown.json").write_text(json.dumps({"q.md": "# Anything\n\n- A) yes\n"}))
    rc, out, err = atk("wi", "answer", "q.md", "--choose", "1=A")
    assert rc == 1 and "no version" in err, out + err
    assert "## 回答" not in (person / "wi/inbox/q.md").read_text()


def test_the_record_of_version_one_still_refuses_version_two(
    tmp_path: Path, remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    person, remote = remote_store
    atk = _asked_then_changed(tmp_path, person, remote, capsys)
    rc, out, err = atk("wi", "answer", "q.md", "--choose", "1=A")
    assert rc == 1 and "changed since you read it" in err, out + err


# -- 5. conflict listing in proportion to what is shown --------------------------------------------


def test_twenty_thousand_conflict_refs_list_a_page_with_a_warning(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(store, {"x.md": ("inbox", awi())})
    head = git(store, "rev-parse", "HEAD").strip()
    refs = "".join(f"create refs/atk/conflicts/{n:040x} {head}\n" for n in range(20_000))
    subprocess.run(["git", "update-ref", "--stdin"], cwd=store, input=refs, text=True, check=True)
    rc, out, err = Atk(store, capsys)("wi", "conflicts")
    assert rc == 0, err
    lines = out.splitlines()
    assert len(lines) == 200
    assert lines[0].startswith("refs/atk/conflicts/") and lines[0].endswith("wi/inbox/x.md")
    assert "19800 more" in err and "--limit 20000" in err
    rc, out, err = Atk(store, capsys)("wi", "conflicts", "--limit", "5")
    assert len(out.splitlines()) == 5 and "19995 more" in err
    assert Service(store).conflicts.count() == 20_000
    assert Service(store).sync_status().conflicts == 20_000


# -- 5. case twins ---------------------------------------------------------------------------------


def test_case_twins_are_defective_and_never_acted_on(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store, {"task.md": ("hold", awi()), "Task.md": ("inbox", awi()), "other.md": ("inbox", awi())})
    atk = Atk(store, capsys)
    rc, out, _ = atk("wi", "list", "--status", "ready", "--json")
    assert rc == 0 and "other.md" in out and "Task.md" not in out and "task.md" not in out
    view = Service(store).queue()
    for name, other in (("task.md", "Task.md"), ("Task.md", "task.md")):
        assert any(other in d and "only in case" in d for d in view.items[name].defects), view.items[name].defects
    monkeypatch.setenv("AI_AGENT", "1")
    rc, _, err = atk("wi", "start-processing", "Task.md")
    assert rc != 0 and "only in case" in err, err
    assert (store / "wi/inbox/Task.md").exists()
    monkeypatch.delenv("AI_AGENT")
    rc, _, err = atk("wi", "unhold", "task.md")  # the person too: repair first
    assert rc != 0 and "only in case" in err, err


def test_a_write_finds_case_twins_in_every_folder_and_nothing_else(store: Path) -> None:
    seed(store, {"task.md": ("inbox", awi()), "TASK.md": ("adopted", awi()), "mytask.md": ("inbox", awi()),
                 "task.md.md": ("hold", awi()), "Task.md": ("rejected", awi())})  # fmt: skip
    (store / "wi/rejected/caf\u00e9-task.md").write_text(awi())  # not ASCII: matched name by name
    (store / "wi/hold/T\u0410SK.md").write_text(awi())  # a Cyrillic A: another name, not a twin
    look = Service(store).core.case_twins

    def twins(name: str) -> list[str]:
        return look([name])[name]

    assert twins("task.md") == ["TASK.md", "Task.md"]
    assert twins("TASK.md") == ["Task.md", "task.md"]
    assert twins("mytask.md") == [] and twins("new.md") == []
    assert twins("MYTASK.md") == ["mytask.md"]
    names = ["task.md", "mytask.md", "new.md", "MYTASK.md", "TASK.md", "caf\u00e9-task.md"]
    assert look(names) == {name: twins(name) for name in names}  # a batch's one look answers as each


def test_a_batch_is_refused_whole_when_one_of_its_items_has_a_case_twin(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(store, {"a.md": ("inbox", awi()), "b.md": ("inbox", awi()), "c.md": ("inbox", awi()), "B.md": ("adopted", awi())})
    head = git(store, "rev-parse", "HEAD")
    rc, _, err = Atk(store, capsys)("wi", "move", "a.md", "b.md", "c.md", "--to", "hold")
    assert rc != 0 and "1 of 3 items" in err and "b.md is defective" in err and "only in case" in err, err
    assert "a.md is" not in err and "c.md is" not in err, err  # the batch's look names only the twin
    assert git(store, "rev-parse", "HEAD") == head
    assert all((store / "wi/inbox" / n).exists() for n in ("a.md", "b.md", "c.md"))
    rc, _, err = Atk(store, capsys)("wi", "move", "a.md", "c.md", "--to", "hold")
    assert rc == 0, err
    assert (store / "wi/hold/a.md").exists() and (store / "wi/hold/c.md").exists()


def test_a_hand_added_case_twin_is_not_committed(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed(store, {"task.md": ("hold", awi())})
    (store / "wi/inbox/TASK.md").write_text(awi())
    git(store, "add", "wi/inbox/TASK.md")
    rc, _, err = Atk(store, capsys)("wi", "commit", "--yes")
    assert rc != 0 and "only in case" in err, err
    assert "TASK.md" not in git(store, "ls-tree", "-r", "--name-only", "HEAD")
