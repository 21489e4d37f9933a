"""The seeds' command lines (SPEC §13, issue 13), typed as the seeds type them, in and out of
an agent environment: global options anywhere, short filenames, bulk show, derived --status,
edit --plan-file, set-cooldown, set-urgency, plans commit, agents notify/notices/dismiss."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.clikit import ATK, Atk, Clone, awi, last_commit, seed, typed, uwi, write_line
from support.environ import patched_environ
from support.storekit import AWI_BODY, clone, git, make_remote_pair, tree_state

from atk_tui.cli.main import run


@pytest.fixture
def atk(store: Path, capsys: pytest.CaptureFixture[str]) -> Atk:
    return Atk(store, capsys)


def bare(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`atk ARGS` exactly as given (no --store appended)."""
    capsys.readouterr()
    try:
        rc = run(list(args))
    except SystemExit as exc:
        rc = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return rc, out, err


# --- global options, names, --version ---------------------------------------------------


def test_store_before_or_after_the_subcommand(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed(store, {"a.md": ("inbox", awi())})
    for args in (["--store", str(store), "wi", "list"], ["wi", "list", "--store", str(store)],
                 [f"--store={store}", "wi", "list", "--skip-pull"]):
        rc, out, err = bare(capsys, *args)
        assert rc == 0, (args, err)
        assert out.startswith("a.md\tinbox"), args


def test_target_repo_before_the_subcommand(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed(store, {"a.md": ("inbox", awi("acme/one")), "b.md": ("inbox", awi("acme/two"))})
    rc, out, _ = bare(capsys, "--store", str(store), "--target-repo", "acme/two", "wi", "list")
    assert rc == 0 and out.splitlines() == [out.splitlines()[0]] and out.startswith("b.md")


def test_version_on_both_binaries() -> None:
    for prog in ("atk", "atk-tui"):
        proc = subprocess.run([str(Path(sys.executable).with_name(prog)), "--version"], capture_output=True, text=True, check=False)
        assert proc.returncode == 0
        assert proc.stdout.startswith(f"{prog} 0.") , proc.stdout


def test_filename_without_md_and_by_unique_prefix(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {
        "20261129-051200-login-rule.md": ("inbox", awi()),
        "20261129-051300-logout-rule.md": ("inbox", awi()),
    })
    rc, _out, err = atk("wi", "hold", "20261129-051200-login-rule")
    assert rc == 0, err
    assert last_commit(atk.store) == "atk: hold 20261129-051200-login-rule.md|agent"
    assert atk("wi", "unhold", "login")[0] == 0  # a unique prefix of the slug
    assert (atk.store / "wi/inbox/20261129-051200-login-rule.md").exists()
    before = tree_state(atk.store)
    rc, _, err = atk("wi", "hold", "log")
    assert rc == 1
    assert "2 items" in err and "20261129-051200-login-rule.md" in err and "20261129-051300-logout-rule.md" in err
    assert tree_state(atk.store) == before
    rc, _, err = atk("wi", "hold", "nothing-like-it")
    assert rc == 1 and "no item named nothing-like-it.md" in err
    rc, _, err = atk("wi", "rm", "20261129-051200-login.md")  # a whole name is never a prefix
    assert rc == 1 and "no item named 20261129-051200-login.md" in err
    assert tree_state(atk.store) == before
    # --depends-on goes through the same resolver
    assert atk("wi", "set-dependencies", "logout", "--depends-on", "login")[0] == 0
    assert "depends_on: [20261129-051200-login-rule.md]" in (atk.store / "wi/inbox/20261129-051300-logout-rule.md").read_text()


# --- bulk show, derived status ------------------------------------------------------------


def test_show_several_files(atk: Atk, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(atk.store, {"a.md": ("inbox", awi()), "q.md": ("hold", uwi())})
    rc, out, _ = atk("wi", "show", "a", "q.md")
    assert rc == 0 and "==> wi/inbox/a.md <==" in out and "==> wi/hold/q.md <==" in out and "kind: uwi" in out
    rc, out, _ = atk("wi", "show", "a", "--json")
    assert rc == 0 and json.loads(out)["filename"] == "a.md"
    monkeypatch.setenv("CLAUDECODE", "1")
    rc, out, _ = atk("wi", "show", "a.md", "q.md", "--target-repo=acme/webapp", "--skip-pull", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert rc == 0 and [r["filename"] for r in rows] == ["a.md", "q.md"]
    assert rows[1]["state"] == "hold" and "## 質問" in rows[1]["body"]
    rc, out, _ = atk("wi", "show", "a.md")  # one file: the text, as before
    assert rc == 0 and out.startswith("---\nkind: awi")
    rc, out, err = atk("wi", "show", "a.md", "missing.md")
    assert rc == 1 and out == "" and "no item named missing.md" in err


def test_status_ready_and_blocked(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {
        "ready.md": ("inbox", awi()),
        "dep.md": ("inbox", awi(extra="depends_on: [q.md]\n")),
        "q.md": ("inbox", uwi()),
        "held.md": ("hold", awi()),
        "busy.md": ("processing", awi()),
    })
    rc, out, _ = atk("wi", "list", "--status=ready")
    assert rc == 0 and sorted(json.loads(r)["filename"] for r in out.splitlines()) == ["busy.md", "ready.md"]
    rc, out, _ = atk("wi", "list", "--status=blocked", "--no-json")
    names = sorted(line.split("\t")[0] for line in out.splitlines())
    assert names == ["dep.md", "q.md"]  # hold is never ready, nor listed as blocked work
    rc, out, _ = atk("wi", "list", "--status", "blocked", "--count")
    assert out.strip() == "2"
    rc, _, err = atk("wi", "list", "--status=soon")
    assert rc == 2 and "ready, blocked" in err


# --- edit --plan-file, set-cooldown, set-urgency ---------------------------------------


PLAN = "$(atk config get private_notes)/plans/2026/11/login.md"


def test_edit_plan_file(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {"a.md": ("inbox", awi()), "q.md": ("inbox", uwi())})
    rc, out, err = atk("wi", "edit", "a", "--plan-file", PLAN)
    assert rc == 0, err
    assert out.startswith("a.md\n") and f"plan_file: {PLAN}" in out
    assert last_commit(atk.store) == "atk: convert-to-plan a.md|agent"
    rc, out, err = atk("wi", "edit", "a", "--plan-file", PLAN)
    assert rc == 1 and "nothing to change" in err
    rc, out, err = atk("wi", "edit", "a", "# New body\n", "--plan-file", PLAN)
    assert rc == 0 and last_commit(atk.store) == "atk: edit a.md|agent"  # plan set already: the body only
    before = tree_state(atk.store)
    rc, _, err = atk("wi", "edit", "q", "--plan-file", PLAN)
    assert rc == 1 and "only an AWI" in err
    rc, _, err = atk("wi", "edit", "a", "--plan-file", "/etc/passwd")
    assert rc == 2 and "outside the store" in err
    assert tree_state(atk.store) == before


def test_edit_plan_file_with_a_body(atk: Atk) -> None:
    seed(atk.store, {"a.md": ("hold", awi())})
    rc, _out, err = atk("wi", "edit", "a.md", "# Planned now\n", "--plan-file", PLAN)
    assert rc == 0, err
    text = (atk.store / "wi/hold/a.md").read_text()
    assert f"plan_file: {PLAN}" in text and "# Planned now" in text


def test_set_cooldown(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {"a.md": ("inbox", awi()), "t.md": ("adopted", awi())})
    rc, _, err = atk("wi", "set-cooldown", "a", "--until", "2026-12-24T09:00:00+09:00")
    assert rc == 0, err
    assert "cooldown_until: 2026-12-24T09:00:00+09:00\n" in (atk.store / "wi/inbox/a.md").read_text()
    assert last_commit(atk.store) == "atk: set-cooldown a.md|agent"
    rc, out, _ = atk("wi", "list", "--status=blocked")
    assert json.loads(out)["status"] == "cooldown"
    assert atk("wi", "set-cooldown", "a", "--until", "2h")[0] == 0
    assert atk("wi", "set-cooldown", "a", "--clear")[0] == 0
    assert "cooldown_until" not in (atk.store / "wi/inbox/a.md").read_text()
    before = tree_state(atk.store)
    for args, code, words in (
        (["a", "--clear"], 1, "has no cooldown"),
        (["a", "--until", "2026-12-24T09:00:00"], 2, "no timezone"),
        (["a", "--until", "tomorrow"], 2, "duration"),
        (["a"], 2, "required"),
        (["t", "--until", "1h"], 1, "terminal"),
    ):
        rc, _, err = atk("wi", "set-cooldown", *args)
        assert rc == code and words in err, (args, err)
    assert tree_state(atk.store) == before


def test_set_urgency(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {"a.md": ("inbox", awi()), "q.md": ("inbox", uwi())})
    rc, _, err = atk("wi", "set-urgency", "q", "informational")
    assert rc == 0, err
    assert "urgency: informational\n" in (atk.store / "wi/inbox/q.md").read_text()
    assert last_commit(atk.store) == "atk: set-urgency q.md|agent"
    rc, _, err = atk("wi", "set-urgency", "a", "blocking")
    assert rc == 1 and "UWI" in err
    rc, _, err = atk("wi", "set-urgency", "q", "whenever")
    assert rc == 2


def test_help_lists_the_new_commands(capsys: pytest.CaptureFixture[str]) -> None:
    for args, words in ((["--help"], ["plans", "agents", "--version"]),
                        (["wi", "--help"], ["set-cooldown", "set-urgency", "process-loop"]),
                        (["agents", "--help"], ["notify", "notices", "dismiss"]),
                        (["plans", "commit", "--help"], ["--plans-root"])):
        rc, out, _ = bare(capsys, *args)
        assert rc == 0 and all(w in out for w in words), args


# --- plans commit ---------------------------------------------------------------------


@pytest.fixture
def plans_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The planning work root, set through the config file's plans_root."""
    root = tmp_path / "claude-plans"
    root.mkdir()
    cfg = Path(__import__("os").environ["XDG_CONFIG_HOME"]) / "atk" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'plans_root = "{root}"\n')
    return root


def test_plans_commit_moves_plan_and_companions(atk: Atk, plans_dir: Path, env_agent: None) -> None:
    (plans_dir / "login.md").write_text("# Plan: login\n")
    (plans_dir / "login.review.md").write_text("review notes\n")
    (plans_dir / "login-v2.md").write_text("another plan\n")
    seed(atk.store, {"a.md": ("inbox", awi(extra=f"plan_file: {PLAN}\n"))})
    # wi-standards: the portable value names the plan in the planning work root too (before commit)
    rc, out, _ = atk("wi", "list", "--status=ready")
    assert json.loads(out)["filename"] == "a.md"
    rc, out, err = atk("plans", "commit", str(plans_dir / "login.md"))
    assert rc == 0, err
    assert PLAN in out  # the month comes from the item that names the plan
    assert (atk.store / "plans/2026/11/login.md").read_text() == "# Plan: login\n"
    assert (atk.store / "plans/2026/11/login.review.md").exists()
    assert not (plans_dir / "login.md").exists() and not (plans_dir / "login.review.md").exists()
    assert (plans_dir / "login-v2.md").exists()  # not the same stem
    assert last_commit(atk.store) == "atk: plans commit login.md|agent"
    assert git(atk.store, "status", "--porcelain").strip() == ""
    rc, out, _ = atk("wi", "list", "--status=ready")
    assert json.loads(out)["filename"] == "a.md"  # the portable value now resolves


def test_plans_commit_refusals(atk: Atk, plans_dir: Path, tmp_path: Path) -> None:
    (plans_dir / "login.md").write_text("# Plan\n")
    assert atk("plans", "commit", "login.md")[0] == 0  # relative to the planning root
    stored = next((atk.store / "plans").rglob("login.md"))
    (plans_dir / "login.md").write_text("# A newer plan with the same name\n")
    before = tree_state(atk.store)
    rc, _, err = atk("plans", "commit", "login.md")
    assert rc == 1 and "already stored" in err and "not overwritten" in err
    assert stored.read_text() == "# Plan\n" and (plans_dir / "login.md").exists()
    outside = tmp_path / "elsewhere.md"
    outside.write_text("x")
    rc, _, err = atk("plans", "commit", str(outside))
    assert rc == 2 and "planning work root" in err and "plans_root" in err
    rc, _, err = atk("plans", "commit", "nope.md")
    assert rc == 2 and "no plan file" in err
    assert tree_state(atk.store) == before


def test_config_get_plans_root(plans_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = bare(capsys, "config", "get", "plans_root")
    assert rc == 0 and out.strip() == str(plans_dir)


def test_plans_root_option_and_month_now(atk: Atk, tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "x.md").write_text("# X\n")
    rc, out, err = atk("plans", "commit", "x.md", "--plans-root", str(root))
    assert rc == 0, err
    stored = list((atk.store / "plans").rglob("x.md"))
    assert len(stored) == 1 and f"{stored[0].relative_to(atk.store)}" in out


# --- agents notify / notices / dismiss -------------------------------------------------


def test_agent_notifies_and_lists(atk: Atk, env_agent: None, tmp_path: Path) -> None:
    body = tmp_path / "notice.md"
    body.write_text("# Decision pending on login\n\nSee q.md. \x1b]52;c;AAAA\x07\n")
    rc, out, err = atk("agents", "notify", f"--body-file={body}", "--source", "process-wi")
    assert rc == 0, err
    name = out.split()[1]
    assert (atk.store / "notices" / name).exists()
    assert last_commit(atk.store) == f"atk: notify {name}|agent"
    assert atk("agents", "notify", "--body-file", str(body))[0] == 0  # the spaced form too
    rc, out, _ = atk("agents", "notices")
    rows = [json.loads(line) for line in out.splitlines()]
    assert rc == 0 and len(rows) == 2 and rows[0]["title"] == "Decision pending on login"
    assert rows[0]["source"] == "process-wi"
    before = tree_state(atk.store)
    rc, _, err = atk("agents", "dismiss", name)
    assert rc == 2 and "user-only" in err
    assert tree_state(atk.store) == before
    rc, _, err = atk("agents", "notify", "--body-file", str(tmp_path / "missing.md"))
    assert rc == 2 and "cannot read" in err


def test_user_lists_text_and_dismisses(atk: Atk) -> None:
    assert atk("agents", "notify", "# Hello\x1b[2J there")[0] == 0
    rc, out, _ = atk("agents", "notices")
    assert rc == 0 and "\x1b" not in out and "\\x1b[2J" in out
    name = out.split("\t")[0]
    rc, out, err = atk("agents", "dismiss", "hello")
    assert rc == 0, err
    assert not (atk.store / "notices" / name).exists()
    assert last_commit(atk.store) == f"atk: dismiss {name}|user"
    rc, _, err = atk("agents", "dismiss", "hello")
    assert rc == 1 and "no notice named" in err
    rc, _, err = atk("agents", "notify", "  ")
    assert rc == 2 and "empty" in err


def test_console_script_notify_from_an_agent(store: Path, tmp_path: Path) -> None:
    body = tmp_path / "n.md"
    body.write_text("# Please look at the login question\n")
    env = {**__import__("os").environ, "CLAUDECODE": "1"}
    proc = subprocess.run([str(ATK), "--store", str(store), "agents", "notify", f"--body-file={body}"],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([str(ATK), "agents", "notices", "--store", str(store)], capture_output=True, text=True, env=env, check=False)
    assert json.loads(proc.stdout)["title"] == "Please look at the login question"


@pytest.mark.parametrize("agent_env", [False, True])
def test_meta_commands_for_either_actor(atk: Atk, monkeypatch: pytest.MonkeyPatch, agent_env: bool) -> None:
    if agent_env:
        monkeypatch.setenv("CODEX_CI", "1")
    actor = "agent" if agent_env else "user"
    seed(atk.store, {"a.md": ("hold", awi()), "q.md": ("processing", uwi())})
    assert atk("wi", "set-cooldown", "a", "--until", "2099-12-01T00:00:00Z")[0] == 0
    assert last_commit(atk.store) == f"atk: set-cooldown a.md|{actor}"
    assert atk("wi", "set-urgency", "q", "next-review")[0] == 0
    assert last_commit(atk.store) == f"atk: set-urgency q.md|{actor}"
    assert atk("wi", "edit", "a", "--plan-file", PLAN)[0] == 0
    assert last_commit(atk.store) == f"atk: convert-to-plan a.md|{actor}"
    rc, out, _ = atk("wi", "show", "a", "q")  # text for either actor (process-feedbacks: JSON Lines is list's)
    assert rc == 0 and "==> wi/processing/q.md <==" in out and '"filename"' not in out


# --- issue 26: the seeds' commands, verbatim, round 2 -----------------------------------

CHECKPOINT = """AWAITING_USER_INPUT
---
Context: While implementing the login endpoint, I found two email validation
patterns in the codebase.
Decision needed: Which email validation approach should be the project standard?
Options:
  A) Strict RFC 5322 -- rejects fewer valid addresses, more complex to maintain
  B) Simple regex -- faster, but may accept malformed addresses
Recommendation: A) Strict RFC 5322, applied everywhere for consistency
---
"""


def test_unhold_of_an_original_waiting_in_inbox_is_a_no_op_that_says_so(atk: Atk, env_agent: None) -> None:
    """confirmation-and-uwi step 4 on the wi-standards path: the original waited in inbox."""
    seed(
        atk.store,
        {
            "orig.md": ("inbox", awi(extra="depends_on: [q.md, dep.md]\n")),
            "q.md": ("adopted", uwi()),
            "dep.md": ("inbox", awi()),
        },
    )
    before = tree_state(atk.store)
    rc, out, err = atk("wi", "unhold", "orig.md")  # `atk wi unhold <元項目ファイル名>`
    assert rc == 0, err
    assert "orig.md is already in inbox (not held): nothing to unhold, nothing committed" in out
    assert "it is blocked" in out and "dep.md" in out  # blocked by what
    assert tree_state(atk.store) == before
    git(atk.store, "mv", "wi/inbox/dep.md", "wi/adopted/dep.md")
    git(atk.store, "commit", "-qm", "dep done")
    rc, out, _ = atk("wi", "unhold", "orig")
    assert rc == 0 and out.rstrip().endswith("nothing committed; it is ready"), out
    seed(atk.store, {"held.md": ("hold", awi())})
    rc, out, _ = atk("wi", "unhold", "held.md")  # a real unhold still moves and commits
    assert rc == 0 and out.startswith("unhold held.md (") and last_commit(atk.store) == "atk: unhold held.md|agent"


def test_refusals_name_the_step_the_seeds_prescribe(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {"busy.md": ("processing", awi()), "held.md": ("hold", awi())})
    rc, _, err = atk("wi", "hold", "busy.md")
    assert rc == 1 and "then hold it" not in err
    assert "set-dependencies busy.md --add" in err and "return-to-inbox busy.md" in err and "not held" in err
    rc, _, err = atk("wi", "start-processing", "held.md")
    assert rc == 1 and "atk wi unhold held.md" in err and "edit" in err
    rc, _, err = atk("wi", "adopt", "held.md")
    assert rc == 1 and "atk wi unhold held.md" in err
    rc, _, err = atk("wi", "unhold", "busy.md")
    assert rc == 1 and "not held" in err
    seed(atk.store, {"done.md": ("adopted", awi()), "no.md": ("rejected", awi())})
    rc, _, err = atk("wi", "rm", "busy.md")
    assert rc == 1 and "adopt or reject" in err and "return-to-inbox busy.md" in err
    rc, _, err = atk("wi", "edit", "no.md", "# x\n")
    assert rc == 1 and "atk wi return-to-inbox no.md --state=rejected" in err
    rc, _, err = atk("wi", "edit", "done.md", "# x\n")
    assert rc == 1 and "new work is a new item" in err and "return it to inbox" not in err
    rc, _, err = atk("wi", "set-dependencies", "held.md", "--add", "busy.md")
    assert rc == 1 and "atk wi unhold held.md" in err
    rc, _, err = atk("wi", "add", "--target-repo=acme/webapp", AWI_BODY)  # no --source
    assert rc == 2 and "--source=add-awi" in err and "`agent`" in err


def test_mq_unhold_of_an_inbox_item_is_a_no_op(atk: Atk, env_agent: None) -> None:
    rc, out, err = atk("mq", "add", "--target-repo=acme/web", "--source=process-feedbacks", "# Feedback\n\nbody\n")
    assert rc == 0, err
    name = out.splitlines()[0]
    before = tree_state(atk.store)
    rc, out, err = atk("mq", "unhold", name, "--target-repo=acme/web")
    assert rc == 0 and "nothing committed; it is ready" in out, err
    assert tree_state(atk.store) == before


def test_set_dependencies_add_and_remove(atk: Atk, env_agent: None) -> None:
    seed(
        atk.store,
        {
            "f.md": ("inbox", awi(extra="depends_on: [k.md, keep.md]\n")),
            "g.md": ("inbox", uwi()),
            "h.md": ("inbox", awi()),
            "k.md": ("inbox", awi()),
            "keep.md": ("inbox", awi()),
            "up.md": ("inbox", awi(extra="depends_on: [f.md]\n")),
        },
    )
    # wi-standards: 既存依存を保持してUWIを`depends_on`へ加え
    rc, out, err = atk("wi", "set-dependencies", "f.md", "--add", "g.md", "--add", "h", "--remove", "k.md")
    assert rc == 0, err
    assert "depends_on: [keep.md, g.md, h.md]\n" in (atk.store / "wi/inbox/f.md").read_text()
    assert last_commit(atk.store) == "atk: set-dependencies f.md|agent" and out.startswith("set-dependencies f.md (")
    before = tree_state(atk.store)
    rc, out, err = atk("wi", "set-dependencies", "f.md", "--add", "g.md")  # there already: a no-op, exit 0
    assert rc == 0 and "already depends on g.md" in out and "nothing committed" in out, err
    for args, code, words in (
        (["--add", "nope.md"], 1, "no item named nope.md"),
        (["--add", "f.md"], 1, "cannot depend on itself"),
        (["--add", "up.md"], 1, "f.md -> up.md -> f.md"),
        (["--depends-on", "g.md", "--add", "h.md"], 2, "one or the other"),
    ):
        rc, _, err = atk("wi", "set-dependencies", "f.md", *args)
        assert rc == code and words in err, (args, err)
    assert tree_state(atk.store) == before
    # the seed's replace form stays: `atk wi set-dependencies <filename> --depends-on <filename>`
    assert atk("wi", "set-dependencies", "f.md", "--depends-on", "g.md")[0] == 0
    assert "depends_on: [g.md]\n" in (atk.store / "wi/inbox/f.md").read_text()


def test_a_body_file_with_its_own_frontmatter_is_merged(atk: Atk, env_agent: None, tmp_path: Path) -> None:
    body = tmp_path / "body.md"
    body.write_text(
        "---\ntarget_repo: acme/webapp\nreviewed_by: lane-2   # kept as written\n"
        "labels: [copy, legal]\n---\n# Shorten the signup copy\n\n- 反映内容: x\n"
    )
    # wi-standards 投入と取得 4: `atk wi add --body-file <path>`
    rc, out, err = atk("wi", "add", "--body-file", str(body), "--source=add-awi", "--target-repo=acme/webapp")
    assert rc == 0, err
    name = out.splitlines()[0]
    text = (atk.store / "wi/inbox" / name).read_text()
    fm, rest = text.split("---\n")[1], text.split("---\n", 2)[2]
    assert "reviewed_by: lane-2   # kept as written\nlabels: [copy, legal]\n" in fm
    assert fm.startswith("kind: awi\nsource: add-awi\ntarget_repo: acme/webapp\n")
    assert rest.startswith("# Shorten the signup copy") and rest.count("---") == 0  # no second block in the body
    before = tree_state(atk.store)
    body.write_text("---\ntarget_repo: acme/other\n---\n# X\n")  # a flag and a key that disagree
    rc, _, err = atk("wi", "add", "--body-file", str(body), "--source=add-awi", "--target-repo=acme/webapp")
    assert rc == 2 and "disagree" in err
    body.write_text("---\nkind: uwi\n---\n# X?\n")
    rc, _, err = atk(
        "wi", "add", "--body-file", str(body), "--source=add-awi", "--target-repo=acme/webapp", "--kind", "awi"
    )
    assert rc == 2 and "disagree" in err
    body.write_text("---\ncreated: 2026-01-01T00:00:00Z\n---\n# X\n")
    rc, _, err = atk("wi", "add", "--body-file", str(body), "--source=add-awi", "--target-repo=acme/webapp")
    assert rc == 2 and "atk writes itself" in err
    assert tree_state(atk.store) == before
    # edit: the non-reserved keys written in, the reserved ones only as stored
    body.write_text("---\nreviewed_by: lane-3\nowner: me\nsource: add-awi\n---\n# Shorten it more\n")
    assert atk("wi", "hold", name)[0] == 0
    rc, out, err = atk("wi", "edit", name, "--body-file", str(body))
    assert rc == 0, err
    text = (atk.store / "wi/hold" / name).read_text()
    assert "reviewed_by: lane-3\nlabels: [copy, legal]\n" in text and "owner: me\n---\n# Shorten it more\n" in text
    body.write_text("---\ndepends_on: [x.md]\n---\n# Again\n")
    rc, _, err = atk("wi", "edit", name, "--body-file", str(body))
    assert rc == 2 and "set-dependencies" in err
    # and the feedback queue's add
    body.write_text("---\nteam: copy\n---\n# Feedback with a key\n")
    rc, out, err = atk("mq", "add", "--target-repo=acme/web", "--source=process-feedbacks", "--body-file", str(body))
    assert rc == 0, err
    assert "team: copy\n---\n# Feedback with a key\n" in (atk.store / "mq/inbox" / out.splitlines()[0]).read_text()


def test_show_of_several_files_is_text_for_an_agent(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {"a.md": ("inbox", awi()), "q.md": ("hold", uwi())})
    # wi-standards 8: `atk wi show <filename> --target-repo=<repo> --skip-pull`, several at once
    rc, out, err = atk("wi", "show", "a.md", "q.md", "--target-repo=acme/webapp", "--skip-pull")
    assert rc == 0, err
    assert (
        out.startswith("==> wi/inbox/a.md <==\n---\nkind: awi\n") and "\n==> wi/hold/q.md <==\n---\nkind: uwi\n" in out
    )
    rc, out, _ = atk("wi", "show", "a.md", "q.md", "--json")
    assert [json.loads(line)["filename"] for line in out.splitlines()] == ["a.md", "q.md"]


def test_a_plan_still_in_the_planning_root_is_not_missing(atk: Atk, plans_dir: Path, env_agent: None) -> None:
    (plans_dir / "login.md").write_text("# Plan: login\n")
    # wi-standards: `$(atk config get private_notes)/plans/yyyy/MM/<メイン計画ファイル名>` before `atk plans commit`
    rc, out, err = atk(
        "wi",
        "add",
        "# Login rule\n\nplanned\n",
        "--source=plan-and-add-awi",
        "--target-repo=acme/webapp",
        "--plan-file",
        PLAN,
    )
    assert rc == 0, err
    name = out.splitlines()[0]
    assert "plan file missing" not in err and "warning" not in err
    assert "in the planning work root" in err and str(plans_dir / "login.md") in err
    rc, out, _ = atk("wi", "list", "--status=ready")
    assert json.loads(out)["filename"] == name
    rc, out, _ = atk("wi", "show", name, "--json")
    assert json.loads(out)["plan_file_at"] == "planning root"
    # the warm listing follows the planning root too (the plan removed there, then written again)
    (plans_dir / "login.md").rename(plans_dir / "away.md")
    assert atk("wi", "list", "--status=ready")[1] == ""
    (plans_dir / "away.md").rename(plans_dir / "login.md")
    assert json.loads(atk("wi", "list", "--status=ready")[1])["filename"] == name
    assert atk("plans", "commit", str(plans_dir / "login.md"))[0] == 0
    rc, out, _ = atk("wi", "show", name, "--json")
    assert json.loads(out)["plan_file_at"] == "store" and json.loads(out)["ready"] is True
    (atk.store / "plans/2026/11/login.md").unlink()  # in neither place: now it is missing
    rc, out, _ = atk("wi", "list", "--status=blocked")
    assert (
        "plan file missing" in json.loads(out)["reasons"][0] and "planning work root" in json.loads(out)["reasons"][0]
    )


def test_a_plugin_qualified_source_is_stored_bare(atk: Atk, env_agent: None) -> None:
    rc, out, err = atk("wi", "add", "--source=agent-toolkit:add-awi", "--target-repo=acme/webapp", AWI_BODY)
    assert rc == 0, err
    assert "source: add-awi\n" in (atk.store / "wi/inbox" / out.splitlines()[0]).read_text()
    assert "'add-awi'" in err and "plugin" in err
    before = tree_state(atk.store)
    rc, _, err = atk("wi", "add", "--source=Add AWI please", "--target-repo=acme/webapp", AWI_BODY)
    assert rc == 2 and "is not a source" in err and "add-awi" in err and "plan-and-add-awi" in err and "`agent`" in err
    assert tree_state(atk.store) == before


def test_notify_body_file_must_be_absolute(
    atk: Atk, env_agent: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "n.md").write_text("# Decision pending\n")
    monkeypatch.chdir(tmp_path)
    before = tree_state(atk.store)
    rc, _, err = atk("agents", "notify", "--body-file=n.md")
    assert rc == 2 and "absolute path" in err and str(tmp_path / "n.md") in err
    assert tree_state(atk.store) == before
    rc, out, err = atk("agents", "notify", f"--body-file={tmp_path / 'n.md'}")  # `--body-file=<絶対パス>`
    assert rc == 0 and out.startswith("notified ") and " not pushed: no remote" in out, err


def test_titles_without_an_h1(atk: Atk, env_agent: None) -> None:
    rc, out, err = atk("wi", "add", "--kind", "uwi", "--source=process-wi", "--target-repo=acme/webapp", CHECKPOINT)
    assert rc == 0, err
    name = out.splitlines()[0]
    assert (
        name.endswith("-decision-needed-which-email-validation-approach-should-be-the-pro.md")
        or "-decision-needed-which-email-validation" in name
    ), name
    rc, out, _ = atk("wi", "list")
    assert (
        json.loads(out)["title"] == "Decision needed: Which email validation approach should be the project standard?"
    )
    rc, out, err = atk("wi", "add", "--source=agent", "--target-repo=acme/webapp", "Bump the copyright year")
    assert rc == 0, err
    assert out.splitlines()[0].endswith("-bump-the-copyright-year.md")
    rows = [json.loads(line) for line in atk("wi", "list")[1].splitlines()]
    assert "Bump the copyright year" in [r["title"] for r in rows]


def test_every_write_says_what_it_wrote(
    remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str], env_agent: None
) -> None:
    root, _bare = remote_store
    atk = Atk(root, capsys)
    rc, out, err = atk("wi", "add", "--source=add-awi", "--target-repo=acme/webapp", AGENT_AWI)
    name = out.splitlines()[0]
    sha = git(root, "rev-parse", "--short=10", "HEAD").strip()
    assert rc == 0 and err == f"added {name} ({sha}) pushed\n", err  # stdout: the saved item
    assert atk("wi", "hold", name)[0] == 0
    rc, out, err = atk("wi", "edit", name, "# Use one validator\n\nbody\n", "--skip-push")
    sha = git(root, "rev-parse", "--short=10", "HEAD").strip()
    assert rc == 0 and out.startswith(f"{name}\n---\n")
    assert err == f"saved {name} ({sha}) not pushed: --skip-push (run `atk wi commit` to push it)\n", err
    rc, out, err = atk("wi", "unhold", name)
    sha = git(root, "rev-parse", "--short=10", "HEAD").strip()
    assert rc == 0 and out == f"unhold {name} ({sha}) pushed\n" and err == "", err


def test_config_with_no_arguments_prints_every_key(
    store: Path, capsys: pytest.CaptureFixture[str], plans_dir: Path
) -> None:
    rc, out, err = bare(capsys, "config", "--store", str(store))
    assert rc == 0, err
    lines = dict(line.split(" = ", 1) for line in out.splitlines())
    assert lines["private_notes"] == f'"{store}"  # --store'
    assert lines["plans_root"].startswith(f'"{plans_dir}"  # config file ')
    assert lines["git.timeout"] == "30  # default (30 s)"
    assert lines["git.read_window"] == "2  # default (2 s)" and lines["git.read_timeout"] == "3  # default (3 s)"
    with patched_environ(ATK_READ_WINDOW="0"):  # what every read of atk obeys, from where it comes
        rc, out, err = bare(capsys, "config", "--store", str(store))
    assert "git.read_window = 0  # $ATK_READ_WINDOW\n" in out
    rc, out, _ = bare(capsys, "config", "get", "private_notes", "--store", str(store))
    assert rc == 0 and out.strip() == str(store)


def test_set_cooldown_in_the_past_is_refused(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {"a.md": ("inbox", awi())})
    before = tree_state(atk.store)
    rc, _, err = atk("wi", "set-cooldown", "a", "--until", "2020-01-01T09:00:00+09:00")
    assert rc == 2 and "not in the future" in err and "--clear" in err
    assert tree_state(atk.store) == before


#: a normal AWI as an agent files it (with `適用範囲`, required when `source` is set)
AGENT_AWI = AWI_BODY.replace("- メリット:", "- 適用範囲: every form that validates an address\n- メリット:")

QUESTIONS_2 = """# Two decisions

## 質問 1
Which framework?

- A) Jest -- already used
- B) Vitest -- faster

## 質問 2
Where do tests live?

- A) Colocated -- matches signup
- B) Top-level -- matches API
"""


def test_a_second_partial_answer_adds_to_the_first(atk: Atk) -> None:
    seed(atk.store, {"q.md": ("inbox", uwi(body=QUESTIONS_2))})
    rc, _, err = atk("wi", "answer", "q", "--choose", "1=A", "--partial")
    assert rc == 0, err
    rc, out, err = atk("wi", "answer", "q", "--choose", "2=B", "--text", "tests beside the API")
    assert rc == 0, err
    text = (atk.store / "wi/inbox/q.md").read_text()
    assert "- 1: A) Jest" in text and "- 2: B) Top-level" in text and "tests beside the API" in text
    rc, out, _ = atk("wi", "show", "q", "--json")
    assert json.loads(out)["answered"] is True
    rc, _, err = atk("wi", "answer", "q", "--choose", "2=A")  # complete now: replacing needs --replace
    assert rc == 1 and "--replace" in err
    seed(atk.store, {"r.md": ("inbox", uwi(body=QUESTIONS_2))})
    assert atk("wi", "answer", "r", "--choose", "1=A", "--partial")[0] == 0
    rc, _, err = atk("wi", "answer", "r", "--choose", "1=B", "--partial")  # a different choice for question 1
    assert rc == 1 and "--replace" in err and "question 1 of r.md is answered already in its partial answer" in err


def test_an_agent_editing_an_inbox_item_is_told_the_order(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {"a.md": ("inbox", awi()), "h.md": ("hold", awi())})
    rc, _, err = atk("wi", "edit", "a", "# Changed in place\n\nbody\n")
    assert rc == 0 and "hold → edit → unhold" in err and "atk wi hold a.md" in err
    rc, _, err = atk("wi", "edit", "h", "# Changed while held\n\nbody\n")
    assert rc == 0 and "warning" not in err, err


# --- confirmation-and-uwi on two clones of one remote ----------------------------------------


def test_confirmation_and_uwi_replayed_on_two_clones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's clone and the person's clone of one bare remote: the agent files a UWI and
    adds it to the original's depends_on (wi-standards: the original stays in inbox, blocked),
    the person answers, the agent reads the answer, adopts the UWI and unholds the original
    (confirmation-and-uwi 回答後の状態遷移 1-4), every command as the seeds type it."""
    agent_root, remote = make_remote_pair(tmp_path, "agent")
    person_root = clone(remote, tmp_path / "person")
    agent, person = Atk(agent_root, capsys), Atk(person_root, capsys)
    monkeypatch.setenv("CLAUDECODE", "1")
    body = tmp_path / "orig.md"
    body.write_text(AGENT_AWI)
    rc, out, err = agent("wi", "add", "--body-file", str(body), "--source=process-wi", "--target-repo=acme/webapp")
    assert rc == 0 and "pushed" in err, err
    orig = out.splitlines()[0]
    assert agent("wi", "start-processing", orig)[0] == 0
    # the UWI, then its dependency added to the existing ones, then back to inbox (blocked)
    rc, out, err = agent("wi", "add", "--kind=uwi", "--source=process-wi", "--target-repo=acme/webapp", CHECKPOINT)
    assert rc == 0, err
    q = out.splitlines()[0]
    rc, out, err = agent("wi", "set-dependencies", orig, "--add", q)
    assert rc == 0 and out.rstrip().endswith(" pushed"), (out, err)
    rc, out, err = agent("wi", "return-to-inbox", orig)
    assert rc == 0, err
    rc, out, _ = agent("wi", "list", "--status=blocked")
    assert orig in [json.loads(line)["filename"] for line in out.splitlines()]
    # the person, on the other clone, answers
    monkeypatch.delenv("CLAUDECODE")
    rc, out, err = person("wi", "answer", q, "--choose", "A")
    assert rc == 0 and out.rstrip().endswith(" pushed"), (out, err)
    monkeypatch.setenv("CLAUDECODE", "1")
    # 1. `atk wi show ` reads the question and the answer: a read pulls (SPEC §15); the window
    # of the agent's last look (its `list` a moment ago) is set to 0 here, as a poll minutes later
    monkeypatch.setenv("ATK_READ_WINDOW", "0")
    rc, out, err = agent("wi", "show", q)
    assert rc == 0 and "Decision needed:" in out and "- 1: A) Strict RFC 5322" in out, err
    # 3. `atk wi adopt ` closes the answered UWI (from inbox): the write pulls the answer first
    rc, out, err = agent("wi", "adopt", q)
    assert rc == 0 and out.startswith(f"adopt {q} (") and out.rstrip().endswith(" pushed"), (out, err)
    rc, out, err = agent("wi", "show", q)
    assert rc == 0 and out.startswith("---\nkind: uwi") and "- 1: A) Strict RFC 5322" in out, err
    # 4. `atk wi unhold <元項目ファイル名>`: the original waited in inbox; a no-op that says it is ready
    before = git(agent_root, "rev-parse", "HEAD")
    rc, out, err = agent("wi", "unhold", orig)
    assert rc == 0 and "nothing to unhold, nothing committed; it is ready" in out, (out, err)
    assert git(agent_root, "rev-parse", "HEAD") == before
    rc, out, _ = agent("wi", "list", "--status=ready")
    assert [json.loads(line)["filename"] for line in out.splitlines()] == [orig]
    # both clones end as the remote is (the person's once it has pulled)
    git(person_root, "pull", "-q")
    for root in (agent_root, person_root):
        assert git(root, "rev-parse", "HEAD") == git(remote, "rev-parse", "main")


def test_unhold_judges_after_the_pull(tmp_path: Path, capsys: pytest.CaptureFixture[str], env_agent: None) -> None:
    """Held on another clone, still in inbox in this one: `unhold` pulls first, then unholds."""
    here, remote = make_remote_pair(tmp_path, "here")
    there = clone(remote, tmp_path / "there")
    rc, out, err = Atk(here, capsys)("wi", "add", "--source=add-awi", "--target-repo=acme/webapp", AGENT_AWI)
    assert rc == 0, err
    name = out.splitlines()[0]
    git(there, "pull", "-q")
    assert Atk(there, capsys)("wi", "hold", name)[0] == 0
    rc, out, err = Atk(here, capsys)("wi", "unhold", name)
    assert rc == 0 and out.startswith(f"unhold {name} (") and out.rstrip().endswith(" pushed"), (out, err)
    assert (here / "wi/inbox" / name).exists() and last_commit(here) == f"atk: unhold {name}|agent"


# --- each seed's command sequence, replayed verbatim on two clones of one remote ----------------
#
# The seed's command line is the first argument of `typed` exactly as the seed writes it; the
# placeholders it leaves are filled, nothing else changes. The agent's clone runs with
# CLAUDECODE=1, the person's without; a read asks the remote every time (a poll minutes later).

REPO = "acme/webapp"


def _two_clones(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[Clone, Clone, Path]:
    monkeypatch.setenv("ATK_READ_WINDOW", "0")
    agent_root, remote = make_remote_pair(tmp_path, "agent")
    person_root = clone(remote, tmp_path / "person")
    return Clone(agent_root, capsys, agent=True), Clone(person_root, capsys, agent=False), remote


def _head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def _listed(clone_: Clone, queue: str, *flags: str) -> dict[str, dict]:
    rc, out, err = clone_(queue, "list", "--json", *flags)
    assert rc == 0, err
    return {r["filename"]: r for r in map(json.loads, out.splitlines())}


def test_wi_standards_replayed_on_two_clones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, plans_dir: Path
) -> None:
    """wi-standards in its order: add --body-file (its own frontmatter merged), hold → edit →
    unhold, show --target-repo --skip-pull, set-dependencies (and the same set again: a no-op),
    start-processing → reject → return-to-inbox --state=rejected → rm, a portable plan_file before
    and after `atk plans commit`, convert-to-plan, adopt with --skip-push then `atk wi commit`,
    process-loop picking up what the person filed; each write says exactly its one line."""
    agent, person, remote = _two_clones(tmp_path, capsys, monkeypatch)
    # 投入と取得 9: `atk config get private_notes` (through a shell, as an agent runs it)
    rc, out, err = agent.shell("atk config get private_notes")
    assert rc == 0 and out == f"{agent.store}\n", err
    # 投入と取得 4: `atk wi add --body-file <path>`; 8: the non-reserved frontmatter is kept
    body = tmp_path / "awi.md"
    body.write_text("---\nreviewed_by: lane-1\n---\n" + AGENT_AWI)
    rc, out, err = agent(*typed("atk wi add --body-file <path>", ("<path>", str(body))), "--source=add-awi", f"--target-repo={REPO}")
    assert rc == 0 and write_line(err)["verb"] == "added" and err.rstrip().endswith(" pushed"), err
    name = out.splitlines()[0]
    assert "source: add-awi\ntarget_repo: acme/webapp\n" in out and "reviewed_by: lane-1\n---\n# Use one" in out
    assert name in _listed(person, "wi")  # the person's read brings it in
    # 状態と依存: `atk wi hold` → `atk wi edit` → `atk wi unhold`, the person seeing the hold meanwhile
    rc, out, err = agent(*typed("atk wi hold", then=[name]))
    assert rc == 0 and write_line(out)["verb"] == "hold", err
    assert _listed(person, "wi")[name]["state"] == "hold"
    body.write_text(AGENT_AWI.replace("# Use one email validator everywhere", "# Use one email validator, tests first"))
    rc, out, err = agent(*typed("atk wi edit", then=[name, "--body-file", str(body)]))
    assert rc == 0 and write_line(err)["verb"] == "saved" and "warning" not in err, err
    assert "reviewed_by: lane-1\n" in out  # a body without frontmatter keeps the stored keys
    rc, out, err = agent(*typed("atk wi unhold", then=[name]))
    assert rc == 0 and write_line(out)["verb"] == "unhold", err
    # 投入と取得 8: `atk wi show <filename> --target-repo=<repo> --skip-pull`: the saved text
    rc, out, err = agent(*typed("atk wi show <filename> --target-repo=<repo> --skip-pull", ("<filename>", name), ("<repo>", REPO)))
    assert rc == 0 and out.startswith("---\nkind: awi\n") and "# Use one email validator, tests first" in out, err
    # `atk wi set-dependencies <filename> --depends-on <filename>`; the same set again changes nothing
    rc, out, err = agent("wi", "add", "--source=agent", f"--target-repo={REPO}", "Prepare the shared validator module")
    dep = out.splitlines()[0]
    line = "atk wi set-dependencies <filename> --depends-on <filename>"
    rc, out, err = agent(*typed(line, ("<filename>", name), ("<filename>", dep)))
    assert rc == 0 and write_line(out)["verb"] == "set-dependencies", err
    before = _head(agent.store)
    rc, out, err = agent(*typed(line, ("<filename>", name), ("<filename>", dep)))
    assert rc == 0 and out == f"{name} depends on exactly [{dep}] already: nothing to change, nothing committed\n", err
    assert _head(agent.store) == before
    # an item filed by mistake: start-processing → reject → `atk wi return-to-inbox --state=rejected` → `atk wi rm`
    rc, out, err = agent("wi", "add", "--source=agent", f"--target-repo={REPO}", "Bump the copyright year")
    extra = out.splitlines()[0]
    for words in (typed("atk wi start-processing", then=[extra]), typed("atk wi reject", then=[extra, "--note=a duplicate"])):
        rc, out, err = agent(*words)
        assert rc == 0 and write_line(out), err
    rc, out, err = agent(*typed("atk wi return-to-inbox --state=rejected", then=[extra]))
    assert rc == 0 and write_line(out)["verb"] == "return-to-inbox", (out, err)
    assert f"atk: note: return-to-inbox {extra}: cleared the note 'a duplicate'" in err
    rc, out, err = agent(*typed("atk wi rm", then=[extra]))
    assert rc == 0 and write_line(out)["verb"] == "rm", err
    # 型と計画: `plan_file` is `$(atk config get private_notes)/plans/yyyy/MM/<メイン計画ファイル名>`, written
    # while the plan is still in the planning work root; `atk wi edit --plan-file` in the hold order
    (plans_dir / "login.md").write_text("# Plan: login\n")
    assert agent("wi", "hold", name)[0] == 0
    rc, out, err = agent.shell(f'atk wi edit {name} --plan-file "$(atk config get private_notes)/plans/2026/12/login.md"')
    assert rc == 0 and "plan_file: $(atk config get private_notes)/plans/2026/12/login.md\n" in out, err
    assert "in the planning work root" in err and "plan file missing" not in err
    assert agent("wi", "unhold", name)[0] == 0
    rc, out, err = agent("wi", "show", name, "--json")
    assert json.loads(out)["plan_file_at"] == "planning root" and json.loads(out)["ready"] is False  # dep is open
    rc, out, err = agent(*typed("atk plans commit", then=[str(plans_dir / "login.md")]))
    assert rc == 0 and write_line(out)["verb"] == "stored", err
    assert out.splitlines()[1] == "$(atk config get private_notes)/plans/2026/12/login.md"
    rc, out, err = person("wi", "show", name, "--json")  # the other clone: the same value, the plan pulled
    assert json.loads(out)["plan_file_at"] == "store"
    rc, out, err = agent.shell(f"atk wi convert-to-plan {dep} --plan-file '$(atk config get private_notes)/plans/2026/12/login.md'")
    assert rc == 0 and write_line(out)["verb"] == "convert-to-plan", err
    # the picker takes both, the lane adopts them; --skip-push, then `atk wi commit` pushes
    rc, out, err = agent(*typed("atk wi start-processing", then=[dep, name]))
    assert rc == 0 and write_line(out)["file"] == "2 items", err
    sha = _head(agent.store)
    for f in (dep, name):
        rc, out, err = agent(*typed("atk wi adopt", then=[f, "--note=merged", f"--commit={sha}", "--skip-push"]))
        assert rc == 0 and write_line(out).group(0).endswith("not pushed: --skip-push (run `atk wi commit` to push it)"), err
    rc, out, err = agent(*typed("atk wi commit"))
    assert rc == 0 and out == "pushed 2 earlier commits\n", (out, err)
    assert _head(agent.store) == git(remote, "rev-parse", "main").strip()
    states = _listed(person, "wi", "--status=all")
    assert (states[name]["state"], states[dep]["state"]) == ("adopted", "adopted")
    # 状態と依存: the resident `atk wi process-loop` picks up what the person filed on their clone
    rc, out, err = person("wi", "add", f"--target-repo={REPO}", AWI_BODY)
    filed = out.splitlines()[0]
    seen = tmp_path / "session.env"
    rc, out, err = agent.shell(f"atk wi process-loop --run 'env | grep ^ATK_READY > {seen}' --once")
    assert rc == 0, err
    env = dict(line.split("=", 1) for line in seen.read_text().splitlines())
    assert env == {"ATK_READY_FILES": filed, "ATK_READY_INBOX_FILES": filed, "ATK_READY_PROCESSING_FILES": ""}


TBD_BODY = """# feedbacks-planner could not start: retry?

## 質問
How should the batch go on?

- A) Retry -- start the planner again with the same plan
- B) Stop -- keep the items waiting

推奨: A) Retry
"""


def test_process_feedbacks_replayed_on_two_clones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """process-feedbacks in its order on the agent's clone, feedback filed and a TBD answered on the
    person's: list --status=active, bulk and single show --skip-pull (text), set-dependencies
    --depends-on= (again: a no-op; none: clears), start-processing of the batch, a technical
    failure parked behind a TBD (the person answers it), the planning path, convert-to-plan,
    adopt/reject one by one with --skip-push on all but the last, process-loop over mq."""
    agent, person, remote = _two_clones(tmp_path, capsys, monkeypatch)
    repo = "/home/dev/src/webapp"  # 1. 対象リポジトリの絶対パス
    names = []
    for title in ("Export buttons are hard to find", "Export runs twice", "Export has no progress"):
        rc, out, err = person("mq", "add", f"--target-repo={repo}", f"# {title}\n\n- 反映内容: fix it\n")
        assert rc == 0 and write_line(err)["verb"] == "added", err
        names.append(out.splitlines()[0])
    a, b, c = sorted(names)
    # 1.1 `atk mq list --status=active --target-repo=` (JSON Lines: an agent environment)
    rc, out, err = agent(*typed("atk mq list --status=active --target-repo=", ("--target-repo=", repo)))
    assert rc == 0 and [json.loads(r)["filename"] for r in out.splitlines()] == [a, b, c], err
    # 1.2 / 2: `atk mq show ... --target-repo= --skip-pull` once for several, text with a line per file
    rc, out, err = agent(*typed("atk mq show ... --target-repo= --skip-pull", ("...", [a, b, c]), ("--target-repo=", repo)))
    assert rc == 0, err
    assert out.startswith(f"==> mq/inbox/{a} <==\n---\nkind: feedback\n") and f"\n\n==> mq/inbox/{c} <==\n---\n" in out
    assert '"filename"' not in out
    rc, out, err = agent(*typed("atk mq show --target-repo= --skip-pull", ("--target-repo=", repo), then=[b]))
    assert rc == 0 and out == (agent.store / "mq/inbox" / b).read_text(), err
    # 1.4 `atk mq set-dependencies --depends-on= ... --target-repo=`; the same set again; none clears
    line = "atk mq set-dependencies --depends-on= ... --target-repo="
    rc, out, err = agent(*typed(line, ("--depends-on=", a), ("...", [c]), ("--target-repo=", repo)))
    assert rc == 0 and write_line(out)["file"] == c, err
    before = _head(agent.store)
    rc, out, err = agent(*typed(line, ("--depends-on=", a), ("...", [c]), ("--target-repo=", repo)))
    assert rc == 0 and "nothing to change, nothing committed" in out and _head(agent.store) == before, (out, err)
    rc, out, err = agent(*typed(line, ("--depends-on=", ""), ("...", [c]), ("--target-repo=", repo)))  # an empty set typed as `--depends-on=`
    assert rc == 2 and f"give no --depends-on (process-feedbacks: `set-dependencies {c}` alone clears them)" in err
    rc, out, err = agent(*typed("atk mq set-dependencies ... --target-repo=", ("...", [c]), ("--target-repo=", repo)))
    assert rc == 0 and write_line(out)["verb"] == "set-dependencies", err
    rc, out, err = agent(*typed("atk mq set-dependencies ... --target-repo=", ("...", [c]), ("--target-repo=", repo)))
    assert rc == 0 and out == f"{c} has no dependencies already: nothing to change, nothing committed\n", err
    # 1.7 `atk mq start-processing ... --target-repo=`, the batch in filename order, once
    rc, out, err = agent(*typed("atk mq start-processing ... --target-repo=", ("...", [a, b, c]), ("--target-repo=", repo)))
    assert rc == 0 and write_line(out)["file"] == "3 items", err
    # 2. a technical failure of c: a TBD, c depends on it (the others kept), back to inbox, blocked
    rc, out, err = agent("mq", "add", "--kind=tbd", "--source=process-feedbacks", f"--target-repo={repo}", TBD_BODY)
    assert rc == 0, err
    tbd = out.splitlines()[0]
    rc, out, err = agent("mq", "set-dependencies", c, "--add", tbd, f"--target-repo={repo}")
    assert rc == 0 and write_line(out), err
    rc, out, err = agent(*typed("atk mq return-to-inbox", then=[c, f"--target-repo={repo}"]))
    assert rc == 0 and write_line(out), err
    assert _listed(agent, "mq", "--status=blocked")[c]["reasons"] == [f"waiting on {tbd} (inbox, unanswered)"]
    # the person answers the TBD on their clone; `atk mq show --target-repo=` reads it on the agent's
    rc, out, err = person("mq", "answer", tbd, "--choose", "A")
    assert rc == 0 and write_line(out)["verb"] == "answer", err
    rc, out, err = agent(*typed("atk mq show --target-repo=", ("--target-repo=", repo)), tbd)
    assert rc == 0 and "## 回答\n\n- 1: A) Retry" in out, err
    rc, out, err = agent("mq", "adopt", tbd, "--note=the person chose to retry", f"--target-repo={repo}")
    assert rc == 0 and write_line(out)["verb"] == "adopt", err
    assert c in _listed(agent, "mq", "--status=ready")
    rc, out, err = agent("mq", "unhold", c, f"--target-repo={repo}")  # it waited in inbox: a no-op
    assert rc == 0 and out.rstrip().endswith("nothing committed; it is ready"), err
    # the planning path: add --state=planning, --status=planning, finish-planning F... --plan-file=
    plan = "$(atk config get private_notes)/plans/2026/12/export.md"
    (agent.store / "plans/2026/12").mkdir(parents=True)
    (agent.store / "plans/2026/12/export.md").write_text("# Plan: export\n")
    git(agent.store, "add", "plans")
    git(agent.store, "commit", "-qm", "plan")
    rc, out, err = agent("mq", "add", "--state=planning", "--source=plan-and-add-feedback", f"--target-repo={repo}", "# Export as CSV\n")
    planned = out.splitlines()[0]
    assert rc == 0 and list(_listed(agent, "mq", "--status=planning")) == [planned], err
    assert planned not in _listed(agent, "mq", "--status=active")
    rc, out, err = agent("mq", "finish-planning", planned, f"--plan-file={plan}", f"--target-repo={repo}")
    assert rc == 0 and write_line(out)["verb"] == "finish-planning", err
    # 4. `atk mq convert-to-plan` records the planner's plan on a normal feedback item
    rc, out, err = agent(*typed("atk mq convert-to-plan", then=[a, f"--plan-file={plan}", f"--target-repo={repo}"]))
    assert rc == 0 and write_line(out)["verb"] == "convert-to-plan", err
    # 5. one by one in filename order: `atk mq adopt --note=<反映概要> --commit=<完全長SHA>`, `atk mq reject`,
    # --skip-push on all but the last, which pushes them all
    sha = _head(agent.store)
    adopt = "atk mq adopt --note=<反映概要> --commit=<完全長SHA>"
    rc, out, err = agent(*typed(adopt, ("<反映概要>", "moved the buttons up"), ("<完全長SHA>", sha), then=[a, "--skip-push"]))
    assert rc == 0 and "not pushed: --skip-push" in write_line(out).group(0), err
    rc, out, err = agent(*typed("atk mq reject", then=[b, "--note=not wanted: the export runs once", "--skip-push"]))
    assert rc == 0 and "not pushed: --skip-push" in write_line(out).group(0), err
    pushed_before = git(remote, "rev-parse", "main").strip()
    assert pushed_before != _head(agent.store)
    rc, out, err = agent(*typed(adopt, ("<反映概要>", "progress bar added"), ("<完全長SHA>", sha), then=[planned]))
    assert rc == 1 and f"`atk mq start-processing {planned}` first" in err  # planned went to inbox
    assert agent("mq", "start-processing", planned, f"--target-repo={repo}")[0] == 0
    rc, out, err = agent(*typed(adopt, ("<反映概要>", "CSV export added"), ("<完全長SHA>", sha), then=[planned]))
    assert rc == 0 and write_line(out).group(0).endswith(" pushed"), err
    assert _head(agent.store) == git(remote, "rev-parse", "main").strip()
    states = {f: r["state"] for f, r in _listed(person, "mq", "--status=all").items()}
    assert (states[a], states[b], states[planned], states[tbd], states[c]) == ("adopted", "rejected", "adopted", "adopted", "inbox")
    # 3. `process-loop` starts a session for what is ready: c, in inbox
    seen = tmp_path / "session.env"
    rc, out, err = agent.shell(f"atk wi process-loop --queue mq --run 'env | grep ^ATK_READY > {seen}' --once")
    assert rc == 0, err
    env = dict(line.split("=", 1) for line in seen.read_text().splitlines())
    assert env == {"ATK_READY_FILES": c, "ATK_READY_INBOX_FILES": c, "ATK_READY_PROCESSING_FILES": ""}


def test_confirmation_and_uwi_hold_notify_and_reject_replayed_on_two_clones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """confirmation-and-uwi's other branches: its `atk wi hold` of the original being processed
    (wi-standards wins, SPEC §11: refused, naming the steps that replace it, which the agent then
    types), a delegate's `atk agents notify --body-file=<絶対パス>` read on the person's clone, an
    answer that turns the question down closed with `reject` (step 3), and step 4's unhold."""
    agent, person, remote = _two_clones(tmp_path, capsys, monkeypatch)
    rc, out, err = agent("wi", "add", "--source=process-wi", f"--target-repo={REPO}", AGENT_AWI)
    orig = out.splitlines()[0]
    assert agent("wi", "start-processing", orig)[0] == 0
    rc, out, err = agent("wi", "add", "--kind=uwi", "--source=process-wi", f"--target-repo={REPO}", CHECKPOINT)
    q = out.splitlines()[0]
    # 確認経路: `atk wi hold` of the original: not a hold (wi-standards), and the refusal says what is
    before = _head(agent.store)
    rc, out, err = agent(*typed("atk wi hold", then=[orig]))
    assert rc == 1 and "then hold it" not in err and _head(agent.store) == before
    steps = [f"atk wi set-dependencies {orig} --add {q}", f"atk wi return-to-inbox {orig}"]
    assert all(f"`{step.replace(q, '<question filename>')}`" in err for step in steps), err
    for step in steps:  # typed as the refusal names them
        rc, out, err = agent(*typed(step))
        assert rc == 0 and write_line(out), err
    assert _listed(agent, "wi", "--status=blocked")[orig]["reasons"] == [f"waiting on {q} (inbox, unanswered)"]
    # 確認経路: the delegate's notice, `--body-file=<絶対パス>`; the person reads it on their clone
    notice = tmp_path / "notice.md"
    notice.write_text(f"# Decision pending: the email validator\n\nSee {q}.\n")
    rc, out, err = agent(*typed("atk agents notify --body-file=<絶対パス>", ("<絶対パス>", str(notice))))
    assert rc == 0 and write_line(out)["verb"] == "notified", err
    rc, out, err = person("agents", "notices")
    assert rc == 0 and out.rstrip().endswith("Decision pending: the email validator"), err
    # the person turns the question down; 1. `atk wi show ` reads it, 3. `reject` closes it
    rc, out, err = person("wi", "answer", q, "--choose", "other", "--text", "Neither: keep both validators for now")
    assert rc == 0 and write_line(out)["verb"] == "answer", err
    rc, out, err = agent(*typed("atk wi show ", then=[q]))
    assert rc == 0 and "Neither: keep both validators for now" in out, err
    rc, out, err = agent("wi", "reject", q, "--note=the person kept both validators")
    assert rc == 0 and write_line(out)["verb"] == "reject", err
    # 4. `atk wi unhold <元項目ファイル名>`: it waited in inbox; now ready, nothing committed
    before = _head(agent.store)
    rc, out, err = agent(*typed("atk wi unhold <元項目ファイル名>", ("<元項目ファイル名>", orig)))
    assert rc == 0 and out == f"{orig} is already in inbox (not held): nothing to unhold, nothing committed; it is ready\n"
    assert _head(agent.store) == before == git(remote, "rev-parse", "main").strip()


# --- the audit's findings, one test each ------------------------------------------------------


def test_set_dependencies_to_the_set_it_has_is_a_no_op(atk: Atk, env_agent: None) -> None:
    """process-feedbacks 1.4 makes every item's depends_on equal to the derived set on every run:
    the set it has already (or none, with none) is no failure."""
    seed(atk.store, {"f.md": ("inbox", awi(extra="depends_on: [g.md]\n")), "g.md": ("inbox", awi()), "h.md": ("inbox", awi())})
    before = tree_state(atk.store)
    rc, out, err = atk("wi", "set-dependencies", "f.md", "--depends-on=g.md")
    assert rc == 0 and out == "f.md depends on exactly [g.md] already: nothing to change, nothing committed\n", err
    rc, out, err = atk("wi", "set-dependencies", "h.md")
    assert rc == 0 and out == "h.md has no dependencies already: nothing to change, nothing committed\n", err
    rc, _, err = atk("wi", "set-dependencies", "f.md", "--depends-on=")  # the seed's `--depends-on=` of an empty set
    assert rc == 2 and "give no --depends-on" in err and "`set-dependencies f.md` alone clears them" in err
    rc, _, err = atk("wi", "set-dependencies", "f.md", "--depends-on=g.md", "--depends-on=nope.md")
    assert rc == 1 and "no item named nope.md" in err  # a set with a missing one is refused as before
    assert tree_state(atk.store) == before


def test_a_write_line_is_only_verb_file_sha_and_push(
    atk: Atk, env_agent: None, plans_dir: Path
) -> None:
    """What else a write has to say goes on its own `atk: note:` line, never inside the one line."""
    seed(atk.store, {"r.md": ("rejected", awi(extra="note: a duplicate\n")), "f.md": ("inbox", awi(extra="depends_on: [g.md]\n")),
                     "g.md": ("inbox", awi()), "h.md": ("inbox", awi())})  # fmt: skip
    rc, out, err = atk("wi", "return-to-inbox", "r.md", "--state=rejected")
    assert rc == 0 and write_line(out).group(0) == out.rstrip() and out.startswith("return-to-inbox r.md ("), out
    assert "atk: note: return-to-inbox r.md: cleared the note 'a duplicate', left from rejected; git history keeps it" in err
    rc, out, err = atk("wi", "set-dependencies", "f.md", "--add", "g.md", "--add", "h.md")
    assert rc == 0 and out.startswith("set-dependencies f.md (") and write_line(out).group(0) == out.rstrip(), out
    assert "atk: note: set-dependencies f.md: f.md already depends on g.md" in err
    (plans_dir / "login.md").write_text("# Plan\n")
    (plans_dir / "login.review.md").write_text("notes\n")
    rc, out, err = atk("plans", "commit", "login.md")
    assert rc == 0 and write_line(out)["verb"] == "stored" and out.splitlines()[0].startswith("stored login.md ("), out
    assert "atk: note: stored login.md: with the same-stem file login.review.md" in err


def _seed_mq(root: Path, files: dict[str, str]) -> None:
    for name, state in files.items():
        (root / "mq" / state / name).write_text(f"---\nkind: feedback\ntarget_repo: {REPO}\n---\n# {name}\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "seed mq")


def test_refusals_never_name_a_command_that_does_not_exist(atk: Atk, env_agent: None) -> None:
    """An adopted item is done (no `return-to-inbox --state=adopted`: the command takes processing or
    rejected); an item being edited or planned says so for every command that meets it."""
    seed(atk.store, {"done.md": ("adopted", awi()), "busy.md": ("processing", awi())})
    _seed_mq(atk.store, {"e.md": "editing", "p.md": "planning", "m.md": "adopted"})
    for queue, name, ops in (("wi", "done.md", ("hold", "start-processing", "reject", "return-to-inbox")),
                             ("mq", "m.md", ("hold", "start-processing", "reject"))):  # fmt: skip
        for op in ops:
            rc, _, err = atk(queue, op, name)
            assert rc == 1 and "--state=adopted" not in err and f"new work is a new item (`atk {queue} add`)" in err, (op, err)
    for op, extra in (("set-dependencies", ["--add", "m.md"]), ("rm", []), ("unhold", [])):
        rc, _, err = atk("mq", op, "e.md", *extra)
        assert rc == 1 and "the user is editing it in the dashboard" in err, (op, err)
    for op in ("set-dependencies", "rm"):
        rc, _, err = atk("mq", op, "p.md")
        assert rc == 1 and "`atk mq finish-planning p.md --plan-file=P`" in err, (op, err)
    rc, _, err = atk("wi", "return-to-inbox", "busy.md", "--state=rejected")
    assert rc == 1 and "`atk wi return-to-inbox busy.md`, without --state" in err
    rc, _, err = atk("wi", "unhold", "busy.md")
    assert rc == 1 and "its work goes on in processing" in err
    rc, out, _ = bare(atk.capsys, "mq", "show", "--help")
    assert "'==> mq/inbox/F.md <=='" in out.replace("\n", " ") and "wi/inbox" not in out


def test_answering_a_closed_question_names_the_way_back(atk: Atk) -> None:
    seed(atk.store, {"qa.md": ("adopted", uwi()), "qr.md": ("rejected", uwi())})
    rc, _, err = atk("wi", "answer", "qa.md", "--choose", "A")
    assert rc == 1 and "move it to inbox in the dashboard" in err and "--state=adopted" not in err
    rc, _, err = atk("wi", "answer", "qr.md", "--choose", "A")
    assert rc == 1 and "`atk wi return-to-inbox qr.md --state=rejected`" in err


def test_set_dependencies_add_keeps_what_another_clone_added(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """wi-standards: 既存依存を保持してUWIを`depends_on`へ加え — the dependency the person added on
    their clone a moment ago is kept by the agent's `--add` from its older copy (read in the lock,
    after the pull), where re-sending the list it last read would have dropped it."""
    agent, person, remote = _two_clones(tmp_path, capsys, monkeypatch)
    names = {}
    for key, args in (("orig", ["--source=process-wi", AGENT_AWI]), ("x", ["--source=agent", "Prepare the validator module"]),
                      ("q", ["--kind=uwi", "--source=process-wi", CHECKPOINT])):  # fmt: skip
        rc, out, err = agent("wi", "add", f"--target-repo={REPO}", *args)
        names[key] = out.splitlines()[0]
    rc, out, err = person("wi", "set-dependencies", names["orig"], "--add", names["x"])  # the person's, on their clone
    assert rc == 0 and write_line(out), err
    assert git(agent.store, "rev-parse", "HEAD") != git(remote, "rev-parse", "main")  # the agent's copy is behind
    rc, out, err = agent("wi", "set-dependencies", names["orig"], "--add", names["q"])
    assert rc == 0 and write_line(out).group(0).endswith(" pushed"), err
    text = (agent.store / "wi/inbox" / names["orig"]).read_text()
    assert f"depends_on: [{names['x']}, {names['q']}]\n" in text


def test_mq_edit_merges_a_body_files_frontmatter(atk: Atk, env_agent: None, tmp_path: Path) -> None:
    """wi-standards 8 checks non-reserved frontmatter: `atk mq edit --body-file` writes a body's own
    keys in (hold → edit → unhold), and refuses a reserved one that differs, naming why."""
    body = tmp_path / "b.md"
    body.write_text("---\nkind: tbd\nbatch: b-42\n---\n# Which order?\n\n## 質問\nWhich first?\n\n- A) x -- y\n- B) z -- w\n")
    rc, out, err = atk("mq", "add", "--source=process-feedbacks", f"--target-repo={REPO}", f"--body-file={body}")
    assert rc == 0 and "kind: tbd\n" in out and "batch: b-42\n---\n# Which order?" in out, err
    name = out.splitlines()[0]
    assert atk("mq", "hold", name)[0] == 0
    body.write_text(body.read_text().replace("b-42", "b-43").replace("Which order?", "Which order, then?"))
    rc, out, err = atk("mq", "edit", name, f"--body-file={body}")
    assert rc == 0 and "batch: b-43\n---\n# Which order, then?" in out and out.count("---\n") == 2, err
    before = tree_state(atk.store)
    body.write_text("---\nkind: feedback\n---\n# Now a feedback\n")
    rc, _, err = atk("mq", "edit", name, f"--body-file={body}")
    assert rc == 2 and "the kind is fixed once an item is added" in err
    assert tree_state(atk.store) == before
    assert atk("mq", "unhold", name)[0] == 0


def test_plans_commit_typed_bare_as_wi_standards_writes_it(atk: Atk, plans_dir: Path, env_agent: None) -> None:
    """Issue 39: `atk plans commit` with no path moves the plans this store's items name that
    are still under the planning root; with none, it says what to give (exit 2)."""
    rc, _, err = atk("plans", "commit")
    assert rc == 2 and "atk plans commit PATH" in err, err
    (plans_dir / "login.md").write_text("# Plan: login\n")
    (plans_dir / "unrelated.md").write_text("not named by any item\n")
    seed(atk.store, {"a.md": ("inbox", awi(extra=f"plan_file: {PLAN}\n"))})
    rc, _out, err = atk("plans", "commit")
    assert rc == 0, err
    assert (atk.store / "plans/2026/11/login.md").read_text() == "# Plan: login\n"
    assert (plans_dir / "unrelated.md").exists()
