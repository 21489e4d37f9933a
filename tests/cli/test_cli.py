"""The `atk` command line (SPEC §3, §5, §7, §8), mostly in process through `cli.run`.

Subprocesses only where a real process matters: the console script's exit code, and what
importing the CLI pulls in.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.clikit import ATK, Atk, awi, last_commit, seed, uwi
from support.storekit import AWI_BODY, SPEC_AGENT_FROM, SPEC_TARGET, UWI_BODY, git, tree_state

from atk_tui.cli.main import run
from atk_tui.domain.model import STATES

ROOT = Path(__file__).resolve().parents[2]

AGENT_FROM, TARGET = SPEC_AGENT_FROM, SPEC_TARGET


@pytest.fixture
def atk(store: Path, capsys: pytest.CaptureFixture[str]) -> Atk:
    return Atk(store, capsys)


# --- transitions through the CLI, as an agent -----------------------------------------


@pytest.mark.parametrize("op", sorted(TARGET))
def test_agent_transitions(atk: Atk, env_agent: None, op: str) -> None:
    names = {s: f"item-{s}.md" for s in STATES}
    seed(atk.store, {n: (s, awi()) for s, n in names.items()})
    for state, name in names.items():
        before = tree_state(atk.store)
        rc, out, err = atk("wi", op, name)
        if state in AGENT_FROM[op]:
            assert rc == 0, err
            assert (atk.store / "wi" / TARGET[op] / name).exists()
            assert last_commit(atk.store) == f"atk: {op} {name}|agent"
            assert out.startswith(f"{op} {name} (")
        elif op == "unhold" and state == "inbox":  # confirmation-and-uwi step 4: a no-op that says so
            assert rc == 0 and "already in inbox (not held): nothing to unhold, nothing committed" in out, err
            assert tree_state(atk.store) == before
        else:
            assert rc == 1, (state, out)
            assert re.search(rf"state conflict: {re.escape(name)} is (already )?in {state}\b", err), err
            assert tree_state(atk.store) == before


def test_agent_return_to_inbox_from_rejected_and_adopt_answered_uwi(atk: Atk, env_agent: None, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(atk.store, {"r.md": ("rejected", awi()), "q.md": ("inbox", uwi())})
    assert atk("wi", "return-to-inbox", "r.md")[0] == 1
    assert atk("wi", "return-to-inbox", "r.md", "--state=rejected")[0] == 0
    rc, _, err = atk("wi", "adopt", "q.md")
    assert rc == 1 and "answer" in err
    monkeypatch.delenv("CLAUDECODE")
    assert atk("wi", "answer", "q.md", "--choose", "A")[0] == 0
    monkeypatch.setenv("CLAUDECODE", "1")
    rc, _, err = atk("wi", "adopt", "q.md", "--note", "picked up", "--commit", "c" * 40)
    assert rc == 0, err
    assert last_commit(atk.store) == "atk: adopt q.md|agent"
    assert f"commit: {'c' * 40}\n" in (atk.store / "wi/adopted/q.md").read_text()


def test_start_processing_several_all_or_nothing_cli(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {"a.md": ("inbox", awi()), "b.md": ("inbox", awi()), "h.md": ("hold", awi())})
    before = tree_state(atk.store)
    rc, _, err = atk("wi", "start-processing", "a.md", "b.md", "h.md")
    assert rc == 1 and "state conflict: h.md is in hold" in err
    assert tree_state(atk.store) == before
    rc, out, _ = atk("wi", "start-processing", "a.md", "b.md")
    assert rc == 0 and out.startswith("start-processing 2 items")
    assert last_commit(atk.store) == "atk: start-processing 2 items|agent"


def test_user_moves_anything(atk: Atk) -> None:
    seed(atk.store, {"t.md": ("adopted", awi())})
    assert atk("wi", "hold", "t.md")[0] == 1  # hold is inbox -> hold for the person too (issue 39)
    assert atk("wi", "move", "t.md", "--to", "hold")[0] == 0  # the explicit any-state move
    assert atk("wi", "start-processing", "t.md")[0] == 0
    assert last_commit(atk.store) == "atk: start-processing t.md|user"


# --- user-only writes from an agent environment ----------------------------------------


@pytest.mark.parametrize("var", ["AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT"])
def test_every_agent_variable_makes_an_agent(atk: Atk, monkeypatch: pytest.MonkeyPatch, var: str) -> None:
    seed(atk.store, {"q.md": ("inbox", uwi())})
    monkeypatch.setenv(var, "1")
    rc, _, err = atk("wi", "answer", "q.md", "--choose", "A")
    assert rc == 2 and "user-only" in err
    monkeypatch.setenv(var, "")  # empty does not count
    assert atk("wi", "answer", "q.md", "--choose", "A")[0] == 0


def test_agent_user_only_writes_exit_2(atk: Atk, env_agent: None, tmp_path: Path) -> None:
    seed(atk.store, {"q.md": ("inbox", uwi()), "a.md": ("inbox", awi())})
    before = tree_state(atk.store)
    body = tmp_path / "body.md"
    cases = [
        ("wi", "answer", "q.md", "--choose", "A"),
        ("wi", "answer", "q.md", "--text", "x"),
        ("wi", "comment", "a.md", "looks fine"),
        ("wi", "add", "--target-repo", "r", "--source", "process-wi", "# t\n\n## 回答\n\nforged\n"),
        ("wi", "add", "--target-repo", "r", "--source", "process-wi", "# t\n\n## ユーザーコメント\n\nforged\n"),
        ("wi", "add", "--target-repo", "r", "# no source\n"),
        ("wi", "edit", "a.md", "# t\n\n## ユーザーコメント\n\nforged\n"),
        ("wi", "edit", "q.md", "# t\n\n## Answer\n\nforged\n"),
    ]
    for args in cases:
        rc, out, err = atk(*args)
        assert rc == 2, (args, err)
        assert out == ""
    body.write_text("# t\n\n## 回答\n\nforged\n")
    rc, _, err = atk("wi", "add", "--target-repo", "r", "--source", "s", "--body-file", str(body))
    assert rc == 2 and "## 回答" in err
    assert tree_state(atk.store) == before


def test_agent_edit_keeps_comment_section(atk: Atk, env_agent: None) -> None:
    body = AWI_BODY + "\n## ユーザーコメント\n\nkeep   this\tverbatim\n"
    seed(atk.store, {"a.md": ("inbox", awi(body=body))})
    rc, out, _ = atk("wi", "edit", "a.md", "# Rewritten by the agent\n")
    assert rc == 0
    text = (atk.store / "wi/inbox/a.md").read_text()
    assert text.endswith("# Rewritten by the agent\n\n## ユーザーコメント\n\nkeep   this\tverbatim\n")
    assert out == "a.md\n" + text


# --- list -----------------------------------------------------------------------------


def test_list_text_from_the_cached_listing_is_the_judged_one(atk: Atk) -> None:
    """`list --text` with JSON or a count is filtered from the cached judged listing (one file
    read per item): the same lines as made from the store, terminal items included; the
    filename, title, repo and body are searched, the frontmatter's other values are not."""
    seed(
        atk.store,
        {
            "zebra-name.md": ("inbox", awi()),
            "b.md": ("inbox", awi(repo="acme/zebra")),
            "c.md": ("hold", awi(body="# Gamma\n\nthe zebra is in the body\n")),
            "d.md": ("processing", awi(extra="note: zebra\n", body="# Delta\n")),
            "t.md": ("adopted", awi(body="# Done\n\nzebra\n")),
            "n.md": ("inbox", uwi(repo="acme/api")),
        },
    )
    cache = atk.store / ".git" / "atk-cache"
    for status in ("active", "all"):
        made = []
        for _ in range(2):  # made from the store (cache cleared), then from the cache
            rc, out, _ = atk("wi", "list", "--json", "--status", status, "--text", "ZEBRA")
            made.append(out)
            assert rc == 0
        assert made[0] == made[1]
        names = [json.loads(line)["filename"] for line in made[0].splitlines()]
        assert names == ["b.md", "zebra-name.md", "c.md"] + (["t.md"] if status == "all" else [])
        assert atk("wi", "list", "--count", "--status", status, "--text", "none")[1] == "0\n"  # no repo is not "None"
        import shutil

        shutil.rmtree(cache, ignore_errors=True)


def test_list_formats(atk: Atk, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(
        atk.store,
        {
            "a.md": ("inbox", awi(body="# Alpha\n\n- 反映内容: x\n")),
            "q.md": ("inbox", uwi()),
            "h.md": ("hold", awi(extra="depends_on: [q.md]\n")),
            "t.md": ("adopted", awi()),
        },
    )
    # user: text rows, one per item, tab separated, nothing shortened when piped
    rc, out, _ = atk("wi", "list")
    rows = [line.split("\t") for line in out.splitlines()]
    assert rc == 0 and [r[0] for r in rows] == ["a.md", "q.md", "h.md"]
    assert rows[0][:5] == ["a.md", "inbox", "AWI/normal", "acme/webapp", "Alpha"]
    assert rows[1][2:6] == ["UWI/blocking", "acme/webapp", "Which email validation should be the project standard?", "waiting"]
    assert atk("wi", "list", "--count")[1] == "3\n"
    assert atk("wi", "list", "--status", "all", "--count")[1] == "4\n"
    assert atk("wi", "list", "--status", "hold", "--count")[1] == "1\n"
    assert atk("wi", "list", "--kind", "uwi", "--count")[1] == "1\n"
    assert atk("wi", "list", "--text", "alpha", "--count")[1] == "1\n"
    assert atk("wi", "list", "--text", "RFC 5322", "--count")[1] == "1\n"  # body text too
    assert atk("wi", "list", "--status", "nope")[0] == 2
    # explicit --json as a user
    rc, out, _ = atk("wi", "list", "--json")
    objs = [json.loads(line) for line in out.splitlines()]
    assert [o["filename"] for o in objs] == ["a.md", "q.md", "h.md"]
    # agent: JSON Lines by default, --no-json for text, --count wins
    monkeypatch.setenv("CLAUDECODE", "1")
    rc, out, _ = atk("wi", "list")
    objs = [json.loads(line) for line in out.splitlines()]
    by = {o["filename"]: o for o in objs}
    assert by["q.md"]["status"] == "waiting" and by["q.md"]["answered"] is False
    assert by["q.md"]["blocks"] == {"direct": 1, "transitive": 1}
    assert by["h.md"]["state"] == "hold" and by["h.md"]["depends_on"] == ["q.md"]
    assert by["a.md"]["type"] == "normal" and by["a.md"]["ready"] is True
    assert "missing bullet: 反映先" in by["a.md"]["warnings"]
    rc, out, _ = atk("wi", "list", "--no-json")
    assert out.splitlines()[0].startswith("a.md\tinbox\t")
    assert atk("wi", "list", "--count")[1] == "3\n"
    assert atk("wi", "list", "--json", "--count")[0] == 2  # one or the other


def test_list_keeps_untrusted_text_whole_when_piped(atk: Atk) -> None:
    title = "Evil \x1b]52;c;aGk=\x07 title " + "x" * 300
    seed(atk.store, {"e.md": ("inbox", awi(repo="acme/" + "r" * 150, body=f"# {title}\n"))})
    rc, out, _ = atk("wi", "list")
    assert rc == 0
    assert out.split("\t")[3] == "acme/" + "r" * 150
    # piped: whole, not shortened, and escaped (a pipe into `less -R` must not replay OSC 52)
    assert out.split("\t")[4] == title.replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    rc, out, _ = atk("wi", "list", "--json")
    assert rc == 0
    assert json.loads(out)["title"] == title and "\x1b" not in out  # JSON escapes it


# --- add / edit / show ----------------------------------------------------------------


def test_add_prints_saved_item_filename_first(atk: Atk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rc, out, err = atk("wi", "add", "--target-repo", "acme/webapp", "# Fix the login bug\n\nDetails.")
    assert rc == 0, err
    name, _, text = out.partition("\n")
    assert re.fullmatch(r"\d{8}-\d{6}-fix-the-login-bug\.md", name)
    assert (atk.store / "wi/inbox" / name).read_text() == text
    assert text.endswith("---\n# Fix the login bug\n\nDetails.\n")
    assert last_commit(atk.store) == f"atk: add {name}|user"
    # --body-file, also from stdin
    f = tmp_path / "b.md"
    f.write_text(UWI_BODY)
    rc, out, _ = atk("wi", "add", "--target-repo", "r", "--kind", "uwi", "--urgency", "next-review", "--body-file", str(f))
    assert rc == 0 and out.split("\n", 1)[1].endswith(UWI_BODY)
    assert "urgency: next-review\n" in out
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("# From stdin\n"))
    rc, out, _ = atk("wi", "add", "--target-repo", "r", "--body-file", "-")
    assert rc == 0 and out.splitlines()[0].endswith("-from-stdin.md")


def test_add_body_once_only(atk: Atk, tmp_path: Path) -> None:
    f = tmp_path / "b.md"
    f.write_text("# t\n")
    before = tree_state(atk.store)
    assert atk("wi", "add", "--target-repo", "r", "--body-file", str(f), "# and message")[0] == 2
    assert atk("wi", "add", "--target-repo", "r")[0] == 2
    assert atk("wi", "add", "--target-repo", "r", "--body-file", str(tmp_path / "missing.md"))[0] == 2
    assert atk("wi", "add", "# no repo")[0] == 2
    rc, _, _err = atk("wi", "add", "--target-repo", "r", "--kind", "nope", "# t")
    assert rc == 2
    assert tree_state(atk.store) == before


def test_edit_prints_saved_item(atk: Atk, tmp_path: Path) -> None:
    seed(atk.store, {"a.md": ("inbox", awi())})
    rc, out, _ = atk("wi", "edit", "a.md", "# New text\n")
    assert rc == 0
    assert out == "a.md\n" + (atk.store / "wi/inbox/a.md").read_text()
    assert out.endswith("---\n# New text\n")
    f = tmp_path / "b.md"
    f.write_text("# From file\n")
    assert atk("wi", "edit", "a.md", "--body-file", str(f), "also")[0] == 2
    assert atk("wi", "edit", "a.md", "--body-file", str(f))[0] == 0
    assert last_commit(atk.store) == "atk: edit a.md|user"


def test_show(atk: Atk) -> None:
    seed(atk.store, {"a.md": ("inbox", awi()), "bad.md": ("inbox", "---\nkind: [\n---\n# b\n")})
    rc, out, _ = atk("wi", "show", "a.md")
    assert rc == 0 and out == awi()
    rc, out, _ = atk("wi", "show", "a.md", "--json")
    d = json.loads(out)
    assert d["body"] == AWI_BODY and d["status"] == "ready"
    rc, out, err = atk("wi", "show", "bad.md")
    assert rc == 0 and "defect: YAML error" in err
    assert atk("wi", "show", "missing.md")[0] == 1


# --- answer / comment -----------------------------------------------------------------


def test_answer_cli(atk: Atk, tmp_path: Path) -> None:
    two = UWI_BODY.replace("## 質問\n", "## 質問 1\n") + "\n## 質問 2\nWhere?\n\n- A) here\n- B) there\n"
    seed(atk.store, {"q.md": ("inbox", uwi()), "q2.md": ("inbox", uwi(body=two)), "a.md": ("inbox", awi()), "t.md": ("adopted", uwi())})
    before = tree_state(atk.store)
    for args, code in [
        (("q.md", "--choose", "D"), 2),  # no such option
        (("q.md", "--choose", "1=AB"), 2),
        (("q.md", "--choose", "x=A"), 2),
        (("q.md", "--choose", "2=A"), 2),  # no question 2
        (("q.md",), 2),  # nothing to say
        (("a.md", "--text", "x"), 1),  # an AWI
        (("t.md", "--choose", "A"), 1),  # terminal
        (("missing.md", "--choose", "A"), 1),
    ]:
        rc, _, err = atk("wi", "answer", *args)
        assert rc == code, (args, err)
    assert tree_state(atk.store) == before
    rc, out, _ = atk("wi", "answer", "q.md", "--choose", "b", "--text", "faster")
    assert rc == 0 and out.startswith("answer q.md (")
    assert (atk.store / "wi/inbox/q.md").read_text().endswith("## 回答\n\n- 1: B) Simple regex\n\nfaster\n")
    rc, _, err = atk("wi", "answer", "q.md", "--choose", "A")
    assert rc == 1 and "--replace" in err
    f = tmp_path / "ans.txt"
    f.write_text("from a file\n")
    assert atk("wi", "answer", "q.md", "--text-file", str(f), "--replace")[0] == 0
    assert (atk.store / "wi/inbox/q.md").read_text().endswith("## 回答\n\nfrom a file\n")
    assert atk("wi", "answer", "q.md", "--text", "a", "--text-file", str(f))[0] == 2
    rc, _, err = atk("wi", "answer", "q2.md", "--choose", "1=C", "--choose", "2=B")
    assert rc == 0, err
    text = (atk.store / "wi/inbox/q2.md").read_text()
    assert "- 1: C) Context-dependent" in text and "- 2: B) there" in text
    assert last_commit(atk.store) == "atk: answer q2.md|user"


def test_comment_cli(atk: Atk, tmp_path: Path) -> None:
    seed(atk.store, {"a.md": ("inbox", awi()), "q.md": ("inbox", uwi())})
    assert atk("wi", "comment", "a.md", "please split this")[0] == 0
    f = tmp_path / "c.txt"
    f.write_text("second thought\n")
    assert atk("wi", "comment", "a.md", "--text-file", str(f))[0] == 0
    text = (atk.store / "wi/inbox/a.md").read_text()
    assert text.startswith(awi()) and "please split this" in text and text.endswith("second thought\n")
    assert atk("wi", "comment", "q.md", "x")[0] == 1
    assert atk("wi", "comment", "a.md")[0] == 2


# --- paths, repos ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("wi", "hold", "../../etc/passwd"),
        ("wi", "unhold", "../hold/x.md"),
        ("wi", "rm", "wi/inbox/a.md"),
        ("wi", "edit", "a/b.md", "# x"),
        ("wi", "show", "../a.md"),
        ("wi", "answer", "../q.md", "--choose", "A"),
        ("wi", "comment", "/etc/passwd", "x"),
        ("wi", "start-processing", "a.md", "../b.md"),
        ("wi", "add", "--target-repo", "r", "--depends-on", "../x.md", "# t"),
        ("wi", "add", "--target-repo", "r", "--depends-on", "a.md/../../x.md", "# t"),
        ("wi", "set-dependencies", "a.md", "--depends-on", "../x.md"),
        ("wi", "set-dependencies", "a.md", "--depends-on", "sub/a.md"),
        ("wi", "convert-to-plan", "a.md", "--plan-file", "../../outside.md"),
        ("wi", "convert-to-plan", "a.md", "--plan-file", "/etc/passwd"),
    ],
)
def test_path_traversal_refused(atk: Atk, args: tuple[str, ...]) -> None:
    seed(atk.store, {"a.md": ("inbox", awi())})
    before = tree_state(atk.store)
    rc, _out, err = atk(*args)
    assert rc == 2, err
    assert tree_state(atk.store) == before


def test_target_repo_guard_cli(atk: Atk) -> None:
    seed(atk.store, {"a.md": ("inbox", awi("acme/webapp")), "b.md": ("inbox", awi("acme/api"))})
    before = tree_state(atk.store)
    for args in (("wi", "hold", "a.md"), ("wi", "show", "a.md"), ("wi", "edit", "a.md", "# x"), ("wi", "rm", "a.md")):
        rc, _, err = atk(*args, "--target-repo", "acme/api")
        assert rc == 1 and "acme/webapp" in err
    assert tree_state(atk.store) == before
    assert atk("wi", "list", "--target-repo", "acme/api", "--count")[1] == "1\n"
    assert atk("wi", "hold", "b.md", "--target-repo", "acme/api")[0] == 0


def test_unknown_item_and_usage(atk: Atk) -> None:
    assert atk("wi", "hold", "nope.md")[0] == 1
    with pytest.raises(SystemExit) as err:
        run(["wi", "frobnicate"])
    assert err.value.code == 2


# --- init / config --------------------------------------------------------------------


def test_init_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "notes"
    assert run(["init", str(target)]) == 0
    assert "initialised store at" in capsys.readouterr().out
    before = tree_state(target)
    assert run(["init", str(target)]) == 0
    assert capsys.readouterr().out == f"{target} is already a store; nothing changed\n"
    assert tree_state(target) == before


def test_config_get_resolution_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "atk" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('private_notes = "~/from-config"\n')
    monkeypatch.setenv("HOME", str(tmp_path))
    assert run(["config", "get", "private_notes"]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'from-config'}\n"
    monkeypatch.setenv("ATK_PRIVATE_NOTES", str(tmp_path / "from-env"))
    assert run(["config", "get", "private_notes"]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'from-env'}\n"
    monkeypatch.chdir(tmp_path)
    assert run(["config", "get", "private_notes", "--store", "rel/path"]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'rel' / 'path'}\n"


def test_no_store_configured(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["config", "get", "private_notes"], ["wi", "list"]):
        assert run(args) == 1
        err = capsys.readouterr().err
        assert "no store configured" in err
        assert "--store" in err and "ATK_PRIVATE_NOTES" in err and "config.toml" in err and "atk init" in err


def test_bad_config_file(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "atk" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text("private_notes = [unclosed\n")
    assert run(["wi", "list"]) == 1
    assert "not valid TOML" in capsys.readouterr().err


def test_not_a_store_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["wi", "list", "--store", str(tmp_path)]) == 1
    assert "atk init" in capsys.readouterr().err


# --- real processes -------------------------------------------------------------------


def test_console_script_exit_codes(store: Path) -> None:
    (store / "wi/inbox/q.md").write_text(uwi())
    git(store, "add", "-A")
    git(store, "commit", "-q", "-m", "seed")
    env = dict(os.environ, CLAUDECODE="1")
    proc = subprocess.run([str(ATK), "wi", "answer", "q.md", "--choose", "A", "--store", str(store)], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 2 and "user-only" in proc.stderr
    proc = subprocess.run([str(ATK), "wi", "list", "--store", str(store)], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0 and json.loads(proc.stdout)["filename"] == "q.md"


# --- issue 10: nothing a terminal would act on, piped or not ---------------------------

HOSTILE = "A\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07B\x1b]2;owned\x07C\x1b[2J\x9b31m\x7f\u202eD\u2066E\x90dcs\x9c"
RAW_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_show_piped_escapes_the_body(atk: Atk) -> None:
    seed(atk.store, {"h.md": ("inbox", awi(body=f"# Title {HOSTILE}\n\nBody {HOSTILE}\n"))})
    rc, out, err = atk("wi", "show", "h.md")  # capsys: stdout is not a TTY
    assert rc == 0, err
    assert not RAW_UNSAFE.search(out), out
    assert "\\x1b]52;c;" in out and "\\u202e" in out and "\\x9b" in out


def test_json_never_emits_raw_control_characters(atk: Atk) -> None:
    seed(atk.store, {"h.md": ("inbox", awi(body=f"# Title {HOSTILE}\n\nBody {HOSTILE}\n"))})
    for args in (("wi", "show", "h.md", "--json"), ("wi", "list", "--json")):
        rc, out, _ = atk(*args)
        assert rc == 0
        assert not RAW_UNSAFE.search(out), (args, out)
        d = json.loads(out.splitlines()[0])
        assert d["title"] == f"Title {HOSTILE}"  # \u escapes: the same text once decoded


def test_errors_quoting_store_names_are_escaped(atk: Atk) -> None:
    evil = "x\x1b]2;owned\x07\u202e.md"
    (atk.store / "wi" / "inbox" / evil).write_text(awi())
    rc, out, err = atk("wi", "list")
    assert rc == 0 and not RAW_UNSAFE.search(out), out
    assert "store defect" in err and not RAW_UNSAFE.search(err), err
    rc, _, err = atk("wi", "show", evil)
    assert rc == 2 and not RAW_UNSAFE.search(err), err


def test_show_refuses_a_symlinked_item(atk: Atk, tmp_path: Path) -> None:
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:SECRET\n")
    (atk.store / "wi" / "inbox" / "pw.md").symlink_to(secret)
    rc, out, err = atk("wi", "show", "pw.md")
    assert rc == 1
    assert "SECRET" not in out + err
    assert "symbolic link" in err
    rc, out, _ = atk("wi", "list", "--json")
    assert rc == 0 and "SECRET" not in out and "pw.md" not in out
    rc, out, err = atk("wi", "list")
    assert rc == 0 and "SECRET" not in out
    assert "store defect: wi/inbox/pw.md: is a symbolic link" in err


def test_usage_errors_quoting_arguments_are_escaped(atk: Atk) -> None:
    rc, _, err = atk("wi", "list", "x\x1b]2;owned\x07\u202e")
    assert rc == 2 and "unrecognized arguments" in err
    assert not RAW_UNSAFE.search(err), err


def test_no_store_is_one_exit_code_for_both_binaries_and_the_demo_hint_only_then(tmp_path: Path) -> None:
    """Issue 17: `atk` and `atk-tui` exit 1 with no store; after a broken config file the
    dashboard does not suggest `--demo` (beside the point there)."""
    env = {k: v for k, v in os.environ.items() if k != "ATK_PRIVATE_NOTES"}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "cfg")
    env["HOME"] = str(tmp_path)
    atk = [sys.executable, "-m", "atk_tui.cli.main", "wi", "list"]
    tui = [sys.executable, "-m", "atk_tui"]
    a = subprocess.run(atk, env=env, capture_output=True, text=True, timeout=60)
    t = subprocess.run(tui, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert a.returncode == t.returncode == 1, (a.stderr, t.stderr)
    assert "no store configured" in t.stderr and "atk-tui --demo" in t.stderr
    cfg = tmp_path / "cfg" / "atk" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text("private_notes = [oops\n", encoding="utf-8")
    t = subprocess.run(tui, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert t.returncode == 1 and "not valid TOML" in t.stderr and "--demo" not in t.stderr


def test_init_says_how_to_point_atk_at_the_new_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["init", str(tmp_path / "notes")]) == 0
    out = capsys.readouterr().out
    assert f"export ATK_PRIVATE_NOTES={tmp_path / 'notes'}" in out
    assert "private_notes = " in out and "config.toml" in out
