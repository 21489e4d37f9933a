"""Issue 25, the independent check: new variants of each class of break, beyond the cases
its fixes were built for. Caches that decided a commit or a hold (the index memo, the
holders cache), answers complete by an invisible or an impossible choice, an uncommitted
answer that `wait` and `show` believed, an agent resolving a conflict that is not an
agent's, hand commits across queues or closing a question from processing, messages that
were tracebacks or let a path make a line of its own. Real stores, the real `atk`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest
from support.clikit import ATK, Atk, awi, seed, uwi
from support.forge import atk_run, forge_holders
from support.storekit import clone, git, tree_state

from atk_tui.itemfile import questions
from atk_tui.itemfile.items import parse_item
from atk_tui.service import Service
from atk_tui.store.files import _stat_key

AGENT = {"CLAUDECODE": "1"}
ANSWER = "\n## 回答\n\n- 1: A) Strict RFC 5322\n"


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def as_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDECODE", "1")


# -- caches that decided what is committed or who holds an item --------------------------------


def test_a_forged_index_memo_cannot_smuggle_a_staged_answer_into_a_write(store: Path) -> None:
    """`.git/atk-index-state.json` said "the index holds HEAD's tree and nothing else": a write
    then started from the real index as it was, staged changes and all. An agent stages a hand
    answer, forges the memo for the index as it is now, and runs an innocent `hold`."""
    seed(store, {"q.md": ("inbox", uwi()), "a.md": ("inbox", awi())})
    svc = Service(store, actor="user", pull=False, push=False)
    assert svc.writes.transition_command("hold", ["a.md"]).ok and svc.writes.unhold("a.md").ok  # a write of ours leaves the memo
    path = store / "wi/inbox/q.md"
    path.write_text(path.read_text() + ANSWER)
    git(store, "add", "wi/inbox/q.md")
    memo = {"index": list(_stat_key(store / ".git/index")), "tree": git(store, "rev-parse", "HEAD^{tree}").strip()}
    (store / ".git/atk-index-state.json").write_text(json.dumps(memo))
    out = atk_run("wi", "hold", "a.md", "--store", str(store), "--skip-pull", "--skip-push", env=AGENT)
    assert out.returncode == 0, out.stderr
    assert git(store, "show", "--no-renames", "--name-only", "--format=", "HEAD").split() == ["wi/hold/a.md", "wi/inbox/a.md"]
    assert "## 回答" not in git(store, "show", "HEAD:wi/inbox/q.md")
    assert "## 回答" in git(store, "show", ":wi/inbox/q.md")  # still staged, as the agent left it


def test_a_forged_holders_cache_does_not_hand_the_persons_hold_to_an_agent(store: Path) -> None:
    seed(store, {"a.md": ("inbox", awi())})
    assert Service(store, actor="user", pull=False, push=False).writes.transition_command("hold", ["a.md"]).ok
    atk_run("wi", "list", "--json", "--store", str(store), "--skip-pull")  # a listing fills the cache

    def an_agent_holds_it(data: dict) -> None:
        assert data["holders"], data
        for row in data["holders"].values():
            row[2], row[3] = "agent", None  # "an unnamed agent holds it"

    forge_holders(store, an_agent_holds_it)
    before = head(store)
    out = atk_run("wi", "unhold", "a.md", "--store", str(store), "--skip-pull", "--skip-push", env=AGENT)
    assert out.returncode == 1 and "held by the user" in out.stderr, out.stderr
    assert head(store) == before


# -- answers: complete only with a choice among the options, "other" with words ----------------

ONE_Q = "# T\n\n## 質問\nWhich?\n\n- A) Fixed -- simple\n- B) Exponential -- kind\n"
TWO_Q = "# T\n\n## 質問\n\n1. First?\n\n- A) a\n- B) b\n\n2. Second?\n\n- A) a\n- B) b\n"
INCOMPLETE = {
    "letter-not-an-option": (ONE_Q, "- 1: Z)\n"),
    "bare-letter-not-an-option": (ONE_Q, "- 1: Z\n"),
    "second-letter-not-an-option": (TWO_Q, "- 1: A\n- 2: C) c\n"),
    "zero-width-choice": (ONE_Q, "- 1: \u200b\n"),
    "invisible-choice": (TWO_Q, "- 1: A\n- 2: \u200b\u200c\u2060\ufeff\u00ad\n"),
    "hangul-filler-choice": (ONE_Q, "- 1: \u3164\n"),
    "braille-blank-choice": (ONE_Q, "- 1: \u2800\n"),
    "punctuation-choice": (ONE_Q, "- 1: -\n"),
    "zero-width-text": (ONE_Q, "\u200b\n"),
    "other-with-zero-width-notes": (ONE_Q, "- 1: other — see notes\n\n\u200b\u2060\n"),
    "zero-width-before-a-letter": (ONE_Q, "- 1: \u200bZ\n"),
}


@pytest.mark.parametrize("case", INCOMPLETE, ids=str)
def test_an_impossible_or_invisible_choice_answers_nothing(case: str) -> None:
    body, answer = INCOMPLETE[case]
    text = body + "\n## 回答\n\n" + answer
    assert not questions.answer_progress(text).complete
    item = parse_item("20260101-000000-q.md", "inbox", ("---\nkind: uwi\ntarget_repo: r\n---\n" + text).encode())
    assert not item.answered


@pytest.mark.parametrize(
    "answer", ["- 1: B) Exponential\n", "- 1: use whatever the library does\n", "- 1: 指数バックオフ\n", "- 1: 👍\n",
               "- 1: other — see notes\n\nneither: a fixed delay with jitter\n", "- 1: \u200bB\n"],
)  # fmt: skip
def test_a_real_choice_or_own_words_still_answer(answer: str) -> None:
    assert questions.answer_progress(ONE_Q + "\n## 回答\n\n" + answer).complete


def test_a_choice_on_a_question_without_options_is_its_answer() -> None:
    body = "# T\n\n## 質問\nHow many retries?\n"
    assert questions.answer_progress(body + "\n## 回答\n\n- 1: Z\n").complete


def test_choose_other_with_invisible_text_is_refused(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed(store, {"q.md": ("inbox", uwi())})
    rc, _, err = Atk(store, capsys)("wi", "answer", "q.md", "--choose", "1=other", "--text", "\u200b\u2060", "--skip-pull")
    assert rc == 1 and "no text" in err, err
    assert "## 回答" not in (store / "wi/inbox/q.md").read_text()


# -- an answer counts only once committed: wait and show -----------------------------------------


def test_wait_does_not_take_an_uncommitted_hand_answer(store: Path) -> None:
    seed(store, {"q.md": ("inbox", uwi())})
    (store / "wi/inbox/q.md").write_text(uwi() + ANSWER)  # an agent's hand answer, never committed
    out = atk_run("wi", "wait", "q.md", "--timeout", "0.2", "--store", str(store), "--skip-pull", env=AGENT)
    assert out.returncode == 1 and "still waiting" in out.stderr, (out.stdout, out.stderr)
    shown = json.loads(atk_run("wi", "show", "q.md", "--json", "--store", str(store), "--skip-pull", env=AGENT).stdout)
    assert shown["answered"] is False and shown["status"] == "waiting"
    assert Service(store, actor="user", pull=False, push=False).conflicts.commit_pending().ok  # the person commits it
    out = atk_run("wi", "wait", "q.md", "--timeout", "5", "--store", str(store), "--skip-pull", env=AGENT)
    assert out.returncode == 0, out.stderr


# -- conflicts: only an agent's own set-aside commit is an agent's to resolve ---------------------


def _set_aside(tmp_path: Path, remote_store: tuple[Path, Path], mine, theirs) -> tuple[Path, str]:
    root, remote = remote_store
    seed(root, {"q.md": ("inbox", uwi()), "a.md": ("inbox", awi())})
    git(root, "push", "-q")
    other = clone(remote, tmp_path / "other")
    mine(root)
    theirs(other)
    assert Service(root, actor="user").conflicts.commit_pending().code == "conflict"
    [c] = Service(root).conflicts.list()
    return root, c.commit


def test_agent_may_not_drop_the_persons_hand_commit_set_aside(
    tmp_path: Path, remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person's own `git mv` + `git commit` (no Atk-Actor trailer: made outside atk) of a
    hold conflicts with an agent's start-processing on the remote: it is the person's."""

    def mine(root: Path) -> None:
        git(root, "mv", "wi/inbox/a.md", "wi/hold/a.md")
        git(root, "commit", "-q", "-m", "hold a by hand")

    root, sha = _set_aside(tmp_path, remote_store, mine, lambda o: Service(o, actor="agent").writes.transition_command("start-processing", ["a.md"]))
    as_agent(monkeypatch)
    before = tree_state(root)
    rc, _, err = Atk(root, capsys)("wi", "conflicts", "apply", sha[:10], "--theirs")
    assert rc == 2 and "user" in err, err
    assert [c.commit for c in Service(root).conflicts.list()] == [sha] and tree_state(root) == before


def test_agent_may_not_resolve_a_conflict_whose_current_version_holds_the_answer(
    tmp_path: Path, remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent's edit of the question conflicts with the person's answer on the remote: the
    current version holds the answer, so resolving it is the person's (either side)."""

    def mine(root: Path) -> None:
        svc = Service(root, actor="agent", pull=False, push=False)
        assert svc.writes.edit("q.md", svc.read("q.md").body + "\n## 補足\n\nmore context\n").ok

    root, sha = _set_aside(
        tmp_path, remote_store, mine, lambda o: Service(o, actor="user").answers.answer("q.md", choices={1: "B"})
    )
    as_agent(monkeypatch)
    for side in ("--theirs", "--mine"):
        rc, _, err = Atk(root, capsys)("wi", "conflicts", "apply", sha[:10], side)
        assert rc == 2 and "user" in err, (side, err)
    assert [c.commit for c in Service(root).conflicts.list()] == [sha]


# -- hand commits: what `commit` carries, judged as the verbs judge it ----------------------------


def _agent_commit(root: Path) -> subprocess.CompletedProcess[str]:
    return atk_run("wi", "commit", "--store", str(root), "--skip-pull", "--skip-push", env=AGENT)


def test_agent_hand_copy_into_the_other_queue_is_refused(store: Path) -> None:
    seed(store, {"q.md": ("inbox", uwi())})
    (store / "mq/inbox").mkdir(parents=True, exist_ok=True)
    (store / "mq/inbox/q.md").write_text((store / "wi/inbox/q.md").read_text())
    before = head(store)
    out = _agent_commit(store)
    assert out.returncode == 1 and "two" in out.stderr and "Nothing was committed" in out.stderr, out.stderr
    assert head(store) == before


def test_agent_hand_move_between_queues_is_refused(store: Path) -> None:
    seed(store, {"q.md": ("inbox", uwi())})
    (store / "mq/inbox").mkdir(parents=True, exist_ok=True)
    git(store, "mv", "wi/inbox/q.md", "mq/inbox/q.md")
    before = head(store)
    out = _agent_commit(store)
    assert out.returncode == 2 and "between queues" in out.stderr, out.stderr
    assert head(store) == before and (store / "mq/inbox/q.md").exists()


def test_agent_hand_adopt_from_processing_needs_the_users_answer_as_the_verb_does(store: Path) -> None:
    """A question in processing whose answer an agent committed by hand (git commit, no
    trailer): `atk wi adopt` refuses (the answer is not the user's); so must `commit`."""
    seed(store, {"q.md": ("processing", uwi())})
    (store / "wi/processing/q.md").write_text(uwi() + ANSWER)
    git(store, "commit", "-qam", "an answer by hand\n\nAtk-Actor: agent")
    verb = atk_run("wi", "adopt", "q.md", "--store", str(store), "--skip-pull", "--skip-push", env=AGENT)
    assert verb.returncode == 2, verb.stderr
    git(store, "mv", "wi/processing/q.md", "wi/adopted/q.md")
    before = head(store)
    out = _agent_commit(store)
    assert out.returncode == 2 and "not written by the user" in out.stderr, out.stderr
    assert head(store) == before


# -- messages, not tracebacks; a path cannot make a line of its own ------------------------------

BAD = "x.md\natk: a fake line\tafter a tab"


@pytest.mark.parametrize(
    "args",
    [
        ("wi", "add", "--kind", "awi", "--target-repo", "r", "--body-file", f"/nonexistent/{BAD}"),
        ("wi", "comment", "a.md", "--text-file", f"/nonexistent/{BAD}"),
        ("wi", "edit", "a.md", "--whole-file", f"/nonexistent/{BAD}"),
        ("plans", "commit", f"/nonexistent/{BAD}"),
    ],
    ids=["body-file", "text-file", "whole-file", "plans-commit"],
)
def test_a_path_in_an_error_cannot_fake_a_line(store: Path, args: tuple[str, ...]) -> None:
    seed(store, {"a.md": ("inbox", awi())})
    out = atk_run(*args, "--store", str(store), "--skip-pull", "--skip-push")
    assert out.returncode == 2
    lines = out.stderr.splitlines()
    assert lines and not [x for x in lines[1:] if x.startswith("atk:")] and "\t" not in out.stderr, out.stderr


def test_a_bad_store_path_is_a_message(tmp_path: Path) -> None:
    long = str(tmp_path / ("a" * 300))
    for args in (("wi", "list", "--store", long), ("init", long), ("wi", "list", "--store", f"/nonexistent/{BAD}")):
        out = atk_run(*args)
        assert out.returncode in (1, 2) and "Traceback" not in out.stderr, out.stderr
        lines = out.stderr.splitlines()
        assert len([x for x in lines if x.startswith("atk:")]) == 1 and "\t" not in out.stderr, out.stderr


def test_init_on_a_store_that_lost_a_state_folder_puts_it_back(store: Path) -> None:
    import shutil

    shutil.rmtree(store / "wi/hold")
    out = atk_run("init", str(store))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert (store / "wi/hold").is_dir()
    out = atk_run("init", str(store))
    assert out.returncode == 0 and "already a store" in out.stdout, out.stdout


@pytest.mark.parametrize("what", ["fifo", "wait"])
def test_ctrl_c_is_a_message_not_a_traceback(store: Path, tmp_path: Path, what: str) -> None:
    """A read from a FIFO whose writer never closes it, and `wait`, end with Ctrl-C: one
    line saying so, exit 130, nothing written."""
    seed(store, {"q.md": ("inbox", uwi())})
    before = head(store)
    fifo = tmp_path / "body"
    os.mkfifo(fifo)
    if what == "fifo":
        args = ["wi", "add", "--kind", "awi", "--target-repo", "r", "--body-file", str(fifo)]
    else:
        args = ["wi", "wait", "q.md"]
    proc = subprocess.Popen(
        [str(ATK), *args, "--store", str(store), "--skip-pull"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    writer = None
    try:
        if what == "fifo":
            writer = os.open(fifo, os.O_WRONLY)  # atk has it open: it is reading now
            os.write(writer, b"# a body that never ends\n")
        else:
            _wait_for_child_sleep(proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if writer is not None:
            os.close(writer)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert err.strip().splitlines() == ["atk: interrupted; nothing was changed"], err
    assert head(store) == before


def _wait_for_child_sleep(proc: subprocess.Popen) -> None:
    """Until `atk wi wait` has looked once and sleeps (its process state is S with no CPU
    use by Python's start-up): bounded, no fixed sleep."""
    import time

    deadline = time.monotonic() + 60
    stat = Path(f"/proc/{proc.pid}/stat")
    last = None
    while time.monotonic() < deadline:
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            break
        ticks = int(fields[11]) + int(fields[12])  # utime + stime
        if fields[0] == "S" and ticks == last and ticks > 0:
            return
        last = ticks
        threading.Event().wait(0.2)
    raise AssertionError("atk wi wait never settled")
