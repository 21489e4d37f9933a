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
    # the set-aside commit shows the item where it is now, not as deleted
    ref = set_aside(c["b"])[0].rsplit("/", 1)[1]
    said = ok(atk(c["b"], "wi", "conflicts", "show", ref)).stdout
    assert f"=== wi/processing/{x}: theirs (current: the item is now in wi/hold/) ===" in said, said


# -- 2. processing has an owner -----------------------------------------------------------


def _trailers(root: Path, rev: str = "HEAD") -> str:
    return git(root, "log", "-1", "--format=%s%n%(trailers)", rev)


def test_the_loop_never_hands_out_another_agents_processing_items(three, tmp_path: Path) -> None:
    c = three
    x, y = add_awi(c["a"], "Taken by C one", agent=None), add_awi(c["a"], "Taken by C two", agent=None)
    z = add_awi(c["a"], "Free for anyone", agent=None)
    ok(atk(c["c"], "wi", "start-processing", x, y, agent="agent-c"))
    seen = tmp_path / "seen.txt"
    out = ok(atk(c["b"], "wi", "process-loop", "--once", "--run", f"echo $ATK_READY_FILES > {seen}", agent="agent-b"))
    handed = seen.read_text().split()
    assert z in handed and x not in handed and y not in handed, (handed, out.stderr)
    # agent-c's own loop gets them back (a session of the agent that owns them)
    ok(atk(c["c"], "wi", "process-loop", "--once", "--run", f"echo $ATK_READY_FILES > {seen}", agent="agent-c"))
    assert {x, y} <= set(seen.read_text().split())


@pytest.mark.parametrize("op", ["adopt", "reject", "return-to-inbox"])
def test_another_agents_end_of_a_processing_item_is_refused_naming_the_owner(three, op: str) -> None:
    c = three
    x = add_awi(c["a"], "Processed by C", agent=None)
    ok(atk(c["c"], "wi", "start-processing", x, agent="agent-c"))
    out = atk(c["b"], "wi", op, x, agent="agent-b")
    assert out.returncode == 1, out
    said = out.stderr + out.stdout
    assert "agent agent-c" in said and "--take-over" in said and "the person" in said, said
    assert {shown(root, x)["state"] for root in c.values()} == {"processing"}
    # explicitly, it is done, and the commit says whose it was
    ok(atk(c["b"], "wi", op, x, "--take-over", agent="agent-b"))
    assert "Atk-Take-Over: agent-c" in _trailers(c["b"]) and "Atk-Agent: agent-b" in _trailers(c["b"])
    assert shown(c["a"], x)["state"] == {"adopt": "adopted", "reject": "rejected", "return-to-inbox": "inbox"}[op]


def test_take_over_never_takes_the_persons_hold(three) -> None:
    c = three
    f = add_awi(c["a"], "Held by the person", agent=None)
    ok(atk(c["a"], "wi", "hold", f))
    out = atk(c["b"], "wi", "unhold", f, "--take-over", agent="agent-b")
    assert out.returncode == 1 and "never takes the person's hold" in out.stderr, out
    assert {shown(root, f)["state"] for root in c.values()} == {"hold"}


def test_a_resumed_session_under_another_id_ends_with_the_original_back_in_inbox(three) -> None:
    """confirmation-and-uwi: the original is held while its question waits; the answer comes;
    the session that resumes has another ATK_AGENT_ID: its unhold is refused naming the way,
    which takes the hold over (recorded) and puts the original back in inbox everywhere."""
    c = three
    original = add_awi(c["b"], "The original work", agent="agent-b")
    ok(atk(c["b"], "wi", "hold", original, agent="agent-b"))
    uwi = ok(atk(c["b"], "wi", "add", "--kind", "uwi", "--target-repo", "acme/webapp", "--source", "confirmation-and-uwi",
                 f"# Which way for {original}?\n\n## 質問\nWhich?\n\n- A) this\n- B) that\n\n推奨: A\n",
                 agent="agent-b")).stdout.splitlines()[0].strip()  # fmt: skip
    ok(atk(c["a"], "wi", "answer", uwi, "--choose", "1=A"))
    resumed = "agent-b-resumed"
    ok(atk(c["b"], "wi", "show", uwi, agent=resumed))
    ok(atk(c["b"], "wi", "adopt", uwi, agent=resumed))
    refused = atk(c["b"], "wi", "unhold", original, agent=resumed)
    assert refused.returncode == 1 and f"atk wi unhold {original}" in refused.stderr and "--take-over" in refused.stderr
    ok(atk(c["b"], "wi", "unhold", original, "--take-over", agent=resumed))
    assert "Atk-Take-Over: agent-b" in _trailers(c["b"])
    assert {shown(root, original)["state"] for root in c.values()} == {"inbox"}


# -- 3. wait pulls before it decides an item does not exist ---------------------------------


def _uwi(root: Path, agent: str) -> str:
    body = "# Which validator?\n\n## 質問\nWhich one?\n\n- A) strict\n- B) loose\n\n推奨: A\n"
    out = ok(atk(root, "wi", "add", "--kind", "uwi", "--target-repo", "acme/webapp", "--source", "add-uwi", body, agent=agent))
    return out.stdout.splitlines()[0].strip()


def test_wait_on_a_clone_that_has_not_pulled_the_question_finds_it(three) -> None:
    c = three
    uwi = _uwi(c["b"], "agent-b")
    ok(atk(c["a"], "wi", "answer", uwi, "--choose", "1=A", "--text", "strict it is"))
    out = atk(c["c"], "wi", "wait", uwi, "--timeout", "30", agent="agent-c", ATK_READ_WINDOW="600")
    assert out.returncode == 0, out
    assert "strict it is" in out.stdout


def test_wait_times_out_with_1_and_a_missing_item_has_its_own_code(three) -> None:
    c = three
    uwi = _uwi(c["b"], "agent-b")
    out = atk(c["c"], "wi", "wait", uwi, "--timeout", "0.5", agent="agent-c")
    assert out.returncode == 1 and f"still waiting for an answer to {uwi}" in out.stderr, out
    gone = "20261205-000000-never-filed.md"
    out = atk(c["c"], "wi", "wait", gone, "--timeout", "5", agent="agent-c")
    assert out.returncode == 3, out
    assert f"no such item: {gone}" in out.stderr and "nor on the remote" in out.stderr


# -- 5. a write is bounded like a read when the remote hangs --------------------------------


def test_a_write_whose_remote_hangs_commits_locally_and_says_so(tmp_path: Path) -> None:
    from support.remotes import SilentRemote

    _remote, c = bare_with_clones(tmp_path)
    f = add_awi(c["b"], "Work while the remote hangs", agent="agent-b")
    url = git(c["b"], "remote", "get-url", "origin").strip()
    silent = SilentRemote()
    try:
        git(c["b"], "remote", "set-url", "origin", silent.url)
        out = atk(c["b"], "wi", "hold", f, agent="agent-b", ATK_PULL_TIMEOUT="1", timeout=60)
    finally:
        silent.close()
    assert out.returncode == 0, out
    said = out.stdout + out.stderr
    assert "did not answer within 1 s" in said and "kept locally" in said and "atk wi commit" in said, said
    assert (c["b"] / "wi" / "hold" / f).exists()
    assert git(c["b"], "rev-list", "--count", "@{u}..HEAD").strip() == "1"
    git(c["b"], "remote", "set-url", "origin", url)
    ok(atk(c["b"], "wi", "commit", agent="agent-b"))
    assert shown(c["a"], f)["state"] == "hold"


def test_the_write_pull_limit_comes_from_the_environment_then_the_config_file(monkeypatch: pytest.MonkeyPatch) -> None:
    from atk_tui.host.config import git_limits

    monkeypatch.delenv("ATK_PULL_TIMEOUT", raising=False)
    assert git_limits({})["pull_timeout"] == 5.0
    assert git_limits({"git": {"timeout": 2}})["pull_timeout"] == 2.0  # never longer than the fetch limit
    assert git_limits({"git": {"pull_timeout": 8}})["pull_timeout"] == 8.0
    monkeypatch.setenv("ATK_PULL_TIMEOUT", "1.5")
    assert git_limits({"git": {"pull_timeout": 8}})["pull_timeout"] == 1.5
    monkeypatch.setenv("ATK_PULL_TIMEOUT", "nonsense")
    assert git_limits({})["pull_timeout"] == 5.0


# -- 4. the verbs keep their meaning for the person too -------------------------------------


def test_hold_is_inbox_to_hold_for_the_person_too_and_move_is_the_explicit_way(tmp_path: Path) -> None:
    _remote, c = bare_with_clones(tmp_path)
    f = add_awi(c["b"], "Done already", agent="agent-b")
    ok(atk(c["b"], "wi", "start-processing", f, agent="agent-b"))
    ok(atk(c["b"], "wi", "adopt", f, "--note", "shipped", agent="agent-b"))
    out = atk(c["a"], "wi", "hold", f)
    assert out.returncode == 1, out
    assert "hold expects inbox" in out.stderr and f"atk wi move {f} --to hold" in out.stderr, out.stderr
    assert shown(c["b"], f)["state"] == "adopted" and shown(c["b"], f)["note"] == "shipped"
    assert "inbox -> hold" in atk(c["a"], "wi", "hold", "--help").stdout
    # an agent never makes the free move
    refused = atk(c["b"], "wi", "move", f, "--to", "inbox", agent="agent-b")
    assert refused.returncode == 2 and "user-only" in refused.stderr, refused
    # the person's explicit move says what it does and clears what adopt wrote
    moved = ok(atk(c["a"], "wi", "move", f, "--to", "hold"))
    assert "cleared the note 'shipped'" in moved.stdout + moved.stderr
    rec = shown(c["b"], f)
    assert rec["state"] == "hold" and rec.get("note") is None


# -- 6. the agent skills' command forms: each works as written or names the step -------------


def test_the_seed_forms_name_what_to_do(tmp_path: Path) -> None:
    _remote, c = bare_with_clones(tmp_path)
    b = c["b"]
    body = tmp_path / "body.md"
    body.write_text("# Fix the login copy\n\n- 反映内容: shorter\n- 反映先: acme/webapp\n- 完成条件: done\n")
    out = atk(b, "wi", "add", "--body-file", str(body), agent="agent-b")
    assert out.returncode == 2 and "--target-repo" in out.stderr and "--source" in out.stderr, out
    # set-dependencies --depends-on that drops earlier dependencies says so, naming them and --add
    f = add_awi(b, "Depends on things", agent="agent-b")
    u1, u2, u3 = (add_awi(b, f"Prerequisite {i}", agent="agent-b") for i in (1, 2, 3))
    ok(atk(b, "wi", "set-dependencies", f, "--depends-on", u1, "--depends-on", u2, agent="agent-b"))
    out = ok(atk(b, "wi", "set-dependencies", f, "--depends-on", u3, agent="agent-b"))
    assert f"dropped 2 earlier dependencies of {f}: {u1}, {u2}" in out.stderr and "--add" in out.stderr, out.stderr
    # a rejected item's return-to-inbox refusal gives the whole command that fixes it
    x = add_awi(b, "Rejected one", agent="agent-b")
    ok(atk(b, "wi", "start-processing", x, agent="agent-b"))
    ok(atk(b, "wi", "reject", x, "--note", "not now", agent="agent-b"))
    out = atk(b, "wi", "return-to-inbox", x, agent="agent-b")
    assert out.returncode == 1 and f"run `atk wi return-to-inbox {x} --state=rejected`" in out.stderr, out.stderr
    assert "first" not in out.stderr


def test_mq_adopt_with_skip_push_names_atk_mq_commit(tmp_path: Path) -> None:
    _remote, c = bare_with_clones(tmp_path)
    b = c["b"]
    made = ok(atk(b, "mq", "add", "--target-repo", "acme/webapp", "--source", "process-feedbacks",
                  "# Shorten the copy\n\n- 反映内容: x\n- 反映先: acme/webapp\n- 完成条件: y\n", agent="agent-b"))  # fmt: skip
    m = made.stdout.splitlines()[0].strip()
    ok(atk(b, "mq", "start-processing", m, agent="agent-b"))
    out = ok(atk(b, "mq", "adopt", m, "--skip-push", agent="agent-b"))
    said = out.stdout + out.stderr
    assert "`atk mq commit`" in said and "atk wi commit" not in said, said


def test_a_refused_connection_is_reported_with_gits_whole_reason(tmp_path: Path) -> None:
    import socket

    _remote, c = bare_with_clones(tmp_path)
    f = add_awi(c["b"], "Nobody listens", agent="agent-b")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: connections to it are refused
    git(c["b"], "remote", "set-url", "origin", f"git://127.0.0.1:{port}/store.git")
    read = atk(c["b"], "wi", "show", f, agent="agent-b")
    assert read.returncode == 0 and "Connection refused" in read.stderr, read.stderr
    write = ok(atk(c["b"], "wi", "hold", f, agent="agent-b"))
    assert "Connection refused" in write.stderr, write.stderr


def test_a_plan_still_in_the_writing_agents_plans_folder_is_said_not_yet_committed(tmp_path: Path) -> None:
    _remote, c = bare_with_clones(tmp_path)
    plans = tmp_path / "b-plans"
    plans.mkdir()
    (plans / "login.md").write_text("# Plan: login\n")
    cfg = tmp_path / "b-config"
    (cfg / "atk").mkdir(parents=True)
    (cfg / "atk" / "config.toml").write_text(f'plans_root = "{plans}"\n')
    plan = "$(atk config get private_notes)/plans/2026/11/login.md"
    made = ok(atk(c["b"], "wi", "add", "--kind", "awi", "--target-repo", "acme/webapp", "--source", "plan-and-add-awi",
                  "--plan-file", plan, "# Login\n\n- 反映内容: x\n- 反映先: acme/webapp\n- 完成条件: y\n",
                  agent="agent-b", XDG_CONFIG_HOME=str(cfg)))  # fmt: skip
    f = made.stdout.splitlines()[0].strip()
    rec = shown(c["a"], f)  # another machine: the plan is in b's plans folder only
    said = " ".join(rec["reasons"])
    assert "not yet committed" in said and "atk plans commit" in said, rec["reasons"]
