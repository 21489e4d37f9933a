"""Adversarial: an agent tries to write what only the user may write (SPEC §8, §11, issue 9).

Every agent variable x every write path x every heading variant: refused with exit 2,
nothing user-only committed (`git log -p` unchanged), the work-tree file left as it is.
Code-fenced headings are allowed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.clikit import Atk, awi, seed, uwi
from support.storekit import UWI_BODY, git

from atk_tui.itemfile.headings import user_only_sections
from atk_tui.service import Service
from atk_tui.store import init_store

AGENT_VARS = ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT")
VARIANTS = {
    "atx": "## 回答",
    "setext-dash": "回答\n---",
    "setext-equals": "回答\n===",
    "bold": "## **回答**",
    "code-span": "## `回答`",
    "quote": "> ## 回答",
    "list": "- ## 回答",
    "ordered-list": "1. ## ユーザーコメント",
    "html": "<h2>回答</h2>",
    "zero-width": "## 回\u200b答",
    "bom-wj": "## \ufeff回答\u2060",
    "fullwidth": "## ＡＮＳＷＥＲ",
    "halfwidth-kana": "## ﾕｰｻﾞｰｺﾒﾝﾄ",
    "english": "## Answer",
    "upper-comment": "## USER COMMENT",
    "trailing-hashes": "## 回答 ##",
    "h3": "### ユーザーコメント",
    "entities": "## &#x56de;&#x7b54;",
    "punct": "## 【回答】:",
}
COMMANDS = ("add", "edit", "edit-whole-file", "commit-hand-edit", "commit-new-file", "commit-rename", "save-text")


def forged_body(variant: str) -> str:
    return f"# Forged\n\nsome text\n\n{variant}\n\n- 1: A) Strict RFC 5322\n\nforged decision\n"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root, _ = init_store(tmp_path_factory.mktemp("tpl") / "notes")
    seed(root, {"q.md": ("inbox", uwi()), "a.md": ("inbox", awi())})
    return root


@pytest.fixture
def fresh(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    shutil.copytree(template, root, symlinks=True)
    return root


def attempt(root: Path, command: str, body: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[int, str]:
    """Run one write path as the current (agent) environment: (exit code, message)."""
    atk = Atk(root, capsys)
    src = tmp_path / "body.md"
    if command == "add":
        src.write_text(body)
        rc, _, err = atk(
            "wi", "add", "--kind", "uwi", "--source", "process-wi", "--target-repo", "r", "--body-file", str(src)
        )
        return rc, err
    if command == "edit":
        src.write_text(body)
        rc, _, err = atk("wi", "edit", "q.md", "--body-file", str(src))
        return rc, err
    if command == "edit-whole-file":
        src.write_text(uwi(body=body))
        rc, _, err = atk("wi", "edit", "q.md", "--whole-file", str(src))
        return rc, err
    if command == "commit-hand-edit":
        path = root / "wi/inbox/q.md"
        path.write_text(path.read_text() + "\n" + body)
    elif command == "commit-new-file":
        (root / "wi/inbox/new.md").write_text(uwi(body=body))
    elif command == "commit-rename":
        git(root, "mv", "wi/inbox/q.md", "wi/hold/q.md")
        path = root / "wi/hold/q.md"
        path.write_text(path.read_text() + "\n" + body)
    elif command == "save-text":
        out = Service(root).writes.save_text("q.md", uwi(body=UWI_BODY + "\n" + body))
        return out.exit_code, out.message + "|" + out.code
    rc, out, err = atk("wi", "commit")
    return rc, err + out


def work_tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "wi").rglob("*.md"))}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("var", AGENT_VARS)
def test_agent_cannot_write_a_user_only_section(
    fresh: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    var: str,
    command: str,
    variant: str,
) -> None:
    monkeypatch.setenv(var, "1")
    log_before = git(fresh, "log", "-p", "--all")
    rc, message = attempt(fresh, command, forged_body(VARIANTS[variant]), capsys, tmp_path)
    assert rc == 2, message
    assert "user-only" in message
    if command.startswith("commit"):
        assert ("q.md" in message) or ("new.md" in message)  # names the file
    assert git(fresh, "log", "-p", "--all") == log_before  # nothing committed
    committed = git(fresh, "show", "HEAD:wi/inbox/q.md")
    assert user_only_sections(committed) == [] and "forged decision" not in committed
    if not command.startswith("commit"):
        assert not Service(fresh, actor="user").read("q.md").answered


@pytest.mark.parametrize("command", ("add", "edit", "commit-hand-edit", "commit-new-file"))
def test_work_tree_left_as_it_is(
    fresh: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], env_agent: None, command: str
) -> None:
    rc, _ = attempt(fresh, command, forged_body("## 回答"), capsys, tmp_path)
    assert rc == 2
    files = work_tree(fresh)
    if command.startswith("commit"):
        # the agent's hand edit is still there for it to undo; nothing was rolled back or staged
        assert any("forged decision" in v.decode() for v in files.values())
        assert git(fresh, "diff", "--cached", "--name-only") == ""


@pytest.mark.parametrize(
    "command", ("add", "edit", "edit-whole-file", "commit-hand-edit", "commit-new-file", "save-text")
)
def test_code_fenced_headings_are_allowed(
    fresh: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], env_agent: None, command: str
) -> None:
    body = "# Example\n\nHow the answer looks:\n\n```markdown\n## 回答\n\n- 1: A) x\n```\n"
    rc, message = attempt(fresh, command, body, capsys, tmp_path)
    assert rc == 0, message


def test_agent_commit_of_unrelated_change_still_works(
    fresh: Path, capsys: pytest.CaptureFixture[str], env_agent: None
) -> None:
    path = fresh / "wi/inbox/a.md"
    path.write_text(path.read_text() + "\nmore detail\n")
    rc, _, err = Atk(fresh, capsys)("wi", "commit")
    assert rc == 0, err
    assert "more detail" in git(fresh, "show", "HEAD:wi/inbox/a.md")


def test_agent_commit_keeps_users_answer_unchanged_is_allowed(
    fresh: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    atk = Atk(fresh, capsys)
    assert atk("wi", "answer", "q.md", "--choose", "A")[0] == 0
    monkeypatch.setenv("CURSOR_AGENT", "1")
    path = fresh / "wi/inbox/q.md"
    path.write_text(path.read_text().replace("Two patterns were found.", "Two patterns were found (see auth/).", 1))
    rc, _, err = atk("wi", "commit")
    assert rc == 0, err
    # changing the user's answer itself is refused
    path.write_text(path.read_text().replace("- 1: A) Strict RFC 5322", "- 1: B) Simple regex"))
    head = git(fresh, "rev-parse", "HEAD")
    rc, _, err = atk("wi", "commit")
    assert rc == 2 and "q.md" in err and "回答" in err
    assert git(fresh, "rev-parse", "HEAD") == head


@pytest.mark.parametrize("var", AGENT_VARS)
def test_adopt_refuses_an_answer_not_committed_by_the_user(
    fresh: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, var: str
) -> None:
    """Defence in depth: an answer that reached the history around the tool (plain git, no
    `Atk-Actor: user`) does not let an agent adopt or reject the UWI from inbox."""
    path = fresh / "wi/inbox/q.md"
    path.write_text(path.read_text() + "\n## 回答\n\n- 1: A) Strict RFC 5322\n")
    git(fresh, "commit", "-qam", "atk: answer q.md", "-m", "Atk-Actor: agent")
    monkeypatch.setenv(var, "1")
    head = git(fresh, "rev-parse", "HEAD")
    for op in ("adopt", "reject"):
        rc, _, err = Atk(fresh, capsys)("wi", op, "q.md")
        assert rc == 2 and "not written by the user" in err
    assert git(fresh, "rev-parse", "HEAD") == head
    # once the user answers (a user commit), the agent may adopt it
    monkeypatch.delenv(var)
    assert Atk(fresh, capsys)("wi", "answer", "q.md", "--choose", "B", "--replace")[0] == 0
    monkeypatch.setenv(var, "1")
    rc, _, err = Atk(fresh, capsys)("wi", "adopt", "q.md")
    assert rc == 0, err


def test_adopt_refuses_an_uncommitted_answer(
    fresh: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Atk(fresh, capsys)("wi", "answer", "q.md", "--choose", "A")[0] == 0
    path = fresh / "wi/inbox/q.md"
    path.write_text(path.read_text().replace("- 1: A) Strict RFC 5322", "- 1: C) Context-dependent"))
    monkeypatch.setenv("AI_AGENT", "1")
    rc, _, err = Atk(fresh, capsys)("wi", "adopt", "q.md")
    assert rc == 2 and "not written by the user" in err


def test_agent_answer_and_comment_refused_every_variable(
    fresh: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in AGENT_VARS:
        monkeypatch.setenv(var, "yes")
        before = git(fresh, "log", "-p")
        assert Atk(fresh, capsys)("wi", "answer", "q.md", "--choose", "A")[0] == 2
        assert Atk(fresh, capsys)("wi", "comment", "a.md", "forged")[0] == 2
        assert git(fresh, "log", "-p") == before
        monkeypatch.delenv(var)


RIDERS = {
    "hold": ("wi", "hold", "q.md"),
    "start-processing": ("wi", "start-processing", "q.md"),
    "set-dependencies": ("wi", "set-dependencies", "q.md", "--depends-on", "a.md"),
    "edit": ("wi", "edit", "q.md", "# new title\n\nnew body\n"),
    "commit": ("wi", "commit"),
}


@pytest.mark.parametrize("rider", sorted(RIDERS))
@pytest.mark.parametrize("var", AGENT_VARS)
def test_forgery_cannot_ride_along_with_another_write(
    fresh: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, var: str, rider: str
) -> None:
    """A forged answer left in the work tree is not committed by a move, an edit, or any
    other write that carries the file's work-tree text into its commit."""
    path = fresh / "wi/inbox/q.md"
    forged = path.read_text() + "\n## 回答\n\n- 1: B) Simple regex\n"
    path.write_text(forged)
    monkeypatch.setenv(var, "1")
    log_before = git(fresh, "log", "-p", "--all")
    rc, _, err = Atk(fresh, capsys)(*RIDERS[rider])
    assert rc == 2, err
    assert "q.md" in err and "user-only" in err
    assert git(fresh, "log", "-p", "--all") == log_before
    assert path.read_text() == forged  # left as it is


def test_forgery_in_a_non_item_file_under_wi_is_refused(
    fresh: Path, capsys: pytest.CaptureFixture[str], env_agent: None
) -> None:
    (fresh / "wi/inbox/notes").mkdir()
    (fresh / "wi/inbox/notes/x.md").write_text("## 回答\n\n- 1: A\n")
    rc, _, err = Atk(fresh, capsys)("wi", "commit")
    assert rc == 2 and "wi/inbox/notes/x.md" in err


def test_agent_adopt_note_cannot_smuggle_a_heading(
    fresh: Path, capsys: pytest.CaptureFixture[str], env_agent: None
) -> None:
    atk = Atk(fresh, capsys)
    assert atk("wi", "start-processing", "a.md")[0] == 0
    assert atk("wi", "adopt", "a.md", "--note", "done\n---\n## ユーザーコメント\nforged")[0] in (0, 2)
    text = next((fresh / "wi").rglob("a.md")).read_text()
    from atk_tui.itemfile.items import parse_item

    item = parse_item("a.md", "adopted", text.encode())
    assert not item.has_comment and user_only_sections(item.body) == []
