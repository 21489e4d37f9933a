"""The seeds' command lines (SPEC §13, issue 13), typed as the seeds type them, in and out of
an agent environment: global options anywhere, short filenames, bulk show, derived --status,
edit --plan-file, set-cooldown, set-urgency, plans commit, agents notify/notices/dismiss."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.clikit import ATK, Atk, awi, last_commit, seed, uwi
from support.storekit import git, tree_state

from atk_tui.cli import run


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
