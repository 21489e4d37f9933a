"""The git store: one commit per operation, rollback, crash recovery, init (SPEC §3, §5, §9).

Real repositories in tmp_path; failures are provoked with real git hooks, crashes are
simulated by leaving the journal a killed writer would leave.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
from support.faults import hook
from support.storekit import AWI_BODY, UWI_BODY, Clock, add_item, git, tree_state

from atk_tui.domain.model import STATES
from atk_tui.service import Service
from atk_tui.store import (
    AtkError,
    GitStore,
    NotAStore,
    Transaction,
    init_store,
    item_path,
    lock_timeout,
)
from atk_tui.store.transaction import recover


def ncommits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").strip())


def write_journal(root: Path, head: str | None, files: dict[str, bytes | None], new_head: str | None = None) -> None:
    """The journal exactly as `Transaction` writes it before touching files."""
    data = {
        "head": head,
        "files": {rel: (base64.b64encode(b).decode() if b is not None else None) for rel, b in files.items()},
        "new_head": new_head,
    }
    (root / ".git" / "atk-journal.json").write_text(json.dumps(data))


# --- one commit per operation ---------------------------------------------------------


def test_every_operation_is_one_commit_with_subject_and_trailer(svc: Service) -> None:
    root = svc.root
    ops = []
    a = add_item(svc)
    ops.append(f"atk: add {a}")
    q = add_item(svc, body=UWI_BODY, kind="uwi")
    ops.append(f"atk: add {q}")
    for desc, run in [
        (f"atk: edit {a}", lambda: svc.writes.edit(a, AWI_BODY + "\nmore\n")),
        (f"atk: comment {a}", lambda: svc.answers.comment(a, "nice")),
        (f"atk: answer {q}", lambda: svc.answers.answer(q, choices={1: "A"})),
        (f"atk: set-dependencies {a}", lambda: svc.writes.set_dependencies(a, [q])),
        (f"atk: hold {a}", lambda: svc.writes.transition_command("hold", [a])),
        (f"atk: unhold {a}", lambda: svc.writes.unhold(a)),
        ("atk: start-processing 2 items", lambda: svc.writes.transition_command("start-processing", [a, q])),
        (f"atk: adopt {q}", lambda: svc.writes.transition_command("adopt", [q], note="ok")),
        (f"atk: reject {a}", lambda: svc.writes.transition_command("reject", [a])),
        (f"atk: return-to-inbox {a}", lambda: svc.writes.transition_command("return-to-inbox", [a], from_state="rejected")),
        (f"atk: convert-to-plan {a}", lambda: svc.writes.convert_to_plan(a, "$(atk config get private_notes)/plans/p.md")),
        (f"atk: rm {a}", lambda: svc.writes.rm(a)),
    ]:
        n = ncommits(root)
        out = run()
        assert out.ok, (desc, out.message)
        assert ncommits(root) == n + 1, desc
        ops.append(desc)
    log = git(root, "log", "--format=%s|%(trailers:key=Atk-Actor,valueonly,separator=%x2c)|%P", "-n", str(len(ops)))
    rows = [line.split("|") for line in log.strip().splitlines()]
    assert [r[0] for r in reversed(rows)] == ops
    assert all(r[1] == "user" for r in rows)
    assert all(len(r[2].split()) == 1 for r in rows)  # linear history, no merges
    body = git(root, "log", "-1", "--format=%B")
    assert body == f"atk: rm {a}\n\nAtk-Actor: user\n\n"
    # the work tree and index are clean after every write
    assert git(root, "status", "--porcelain") == ""


def test_commit_contains_only_the_operation(svc: Service) -> None:
    """Files staged by someone else are not swept into an atk commit, and stay staged."""
    a = add_item(svc)
    other = svc.root / "plans" / "draft.md"
    other.write_text("draft\n")
    git(svc.root, "add", "plans/draft.md")
    assert svc.writes.transition_command("hold", [a]).ok
    changed = git(svc.root, "show", "--no-renames", "--name-only", "--format=", "HEAD").split()
    assert sorted(changed) == sorted([f"wi/hold/{a}", f"wi/inbox/{a}"])
    assert "A  plans/draft.md" in git(svc.root, "status", "--porcelain")


# --- rollback when the commit fails ----------------------------------------------------


@pytest.mark.parametrize("op", ["hold", "start-processing", "edit", "answer", "comment", "add", "rm", "set-dependencies"])
def test_failed_commit_leaves_tree_index_and_head(svc: Service, op: str) -> None:
    a = add_item(svc)
    b = add_item(svc)
    q = add_item(svc, body=UWI_BODY, kind="uwi")
    hook(svc.root, "pre-commit", "echo 'policy says no' >&2\nexit 1\n")
    before = tree_state(svc.root)
    out = {
        "hold": lambda: svc.writes.transition_command("hold", [a]),
        "start-processing": lambda: svc.writes.transition_command("start-processing", [a, b]),
        "edit": lambda: svc.writes.edit(a, "# Changed\n"),
        "answer": lambda: svc.answers.answer(q, choices={1: "B"}, text="because"),
        "comment": lambda: svc.answers.comment(a, "hello"),
        "add": lambda: svc.writes.add(kind="awi", target_repo="acme/webapp", body="# New\n"),
        "rm": lambda: svc.writes.rm(b),
        "set-dependencies": lambda: svc.writes.set_dependencies(a, [b]),
    }[op]()
    assert not out.ok
    assert "pre-commit" in out.message and "policy says no" in out.message
    assert tree_state(svc.root) == before
    assert not (svc.root / ".git" / "atk-journal.json").exists()
    assert not list((svc.root / "wi").rglob(".atk-*"))


def test_rollback_keeps_uncommitted_edits_unstaged(svc: Service) -> None:
    """A failed write must not stage the user's own uncommitted changes."""
    a = add_item(svc)
    path = svc.root / "wi/inbox" / a
    path.write_text(path.read_text() + "\nhand edit, not committed\n")
    hook(svc.root, "pre-commit", "exit 1\n")
    before = tree_state(svc.root)
    assert not svc.writes.transition_command("hold", [a]).ok
    assert tree_state(svc.root) == before
    assert git(svc.root, "status", "--porcelain") == f" M wi/inbox/{a}\n"


def test_commit_msg_hook_failure_rolls_back(svc: Service) -> None:
    a = add_item(svc)
    hook(svc.root, "commit-msg", 'grep -q "Atk-Actor: user" "$1" || exit 0\necho no >&2\nexit 1\n')
    before = tree_state(svc.root)
    out = svc.writes.transition_command("hold", [a])
    assert not out.ok and "commit-msg" in out.message
    assert tree_state(svc.root) == before


def test_hooks_path_is_honoured(svc: Service) -> None:
    a = add_item(svc)
    hooks = svc.root.parent / "myhooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 1\n")
    (hooks / "pre-commit").chmod(0o755)
    git(svc.root, "config", "core.hooksPath", str(hooks))
    assert not Service(svc.root, clock=svc.clock).writes.transition_command("hold", [a]).ok
    git(svc.root, "config", "--unset", "core.hooksPath")
    assert Service(svc.root, clock=svc.clock).writes.transition_command("hold", [a]).ok


def test_post_commit_hook_failure_does_not_undo(svc: Service) -> None:
    a = add_item(svc)
    hook(svc.root, "post-commit", "exit 3\n")
    n = ncommits(svc.root)
    assert svc.writes.transition_command("hold", [a]).ok
    assert ncommits(svc.root) == n + 1


# --- crash recovery -------------------------------------------------------------------


def test_journal_of_half_done_move_is_rolled_back(svc: Service) -> None:
    a, b, c = add_item(svc), add_item(svc), add_item(svc)
    head = git(svc.root, "rev-parse", "HEAD").strip()
    before = tree_state(svc.root)
    # a killed `start-processing a b`: a already moved, b not yet
    a_bytes = (svc.root / "wi/inbox" / a).read_bytes()
    b_bytes = (svc.root / "wi/inbox" / b).read_bytes()
    write_journal(
        svc.root,
        head,
        {f"wi/inbox/{a}": a_bytes, f"wi/processing/{a}": None, f"wi/inbox/{b}": b_bytes, f"wi/processing/{b}": None},
    )
    os.rename(svc.root / "wi/inbox" / a, svc.root / "wi/processing" / a)
    (svc.root / ".git" / "atk-index.tmp").write_bytes(b"half-written index")
    # the next write recovers first, then does its own work
    out = svc.writes.transition_command("hold", [c])
    assert out.ok, out.message
    assert (svc.root / "wi/inbox" / a).read_bytes() == a_bytes
    assert not (svc.root / "wi/processing" / a).exists()
    assert not (svc.root / ".git" / "atk-journal.json").exists()
    assert git(svc.root, "rev-parse", "HEAD~1").strip() == before["head"]
    assert git(svc.root, "status", "--porcelain") == ""
    after = tree_state(svc.root)
    moved = {k: v for k, v in before["files"].items() if k != f"wi/inbox/{c}"}
    moved[f"wi/hold/{c}"] = before["files"][f"wi/inbox/{c}"]
    assert after["files"] == moved


def test_journal_of_half_written_edit_and_add_is_rolled_back(svc: Service) -> None:
    a = add_item(svc)
    before = tree_state(svc.root)
    path = svc.root / "wi/inbox" / a
    write_journal(svc.root, before["head"], {f"wi/inbox/{a}": path.read_bytes(), "wi/inbox/new.md": None})
    path.write_text("---\nkind: awi\ntarget_repo: x\n---\n# half\n")
    (svc.root / "wi/inbox/new.md").write_text("partial")
    store = GitStore(svc.root)
    with store.locked():
        pass  # taking the lock is enough to recover
    assert tree_state(svc.root) == before


def test_journal_after_commit_landed_keeps_the_commit(svc: Service) -> None:
    """Killed after HEAD moved but before the index caught up: the commit stands."""
    a = add_item(svc)
    old_head = git(svc.root, "rev-parse", "HEAD").strip()
    content = (svc.root / "wi/inbox" / a).read_bytes()
    # make the commit with plumbing, as Transaction.commit does, and stop before the index
    env = dict(os.environ, GIT_INDEX_FILE=str(svc.root / ".git" / "tmp-index"))
    git_env = {"env": env}
    import subprocess

    subprocess.run(["git", "read-tree", "HEAD"], cwd=svc.root, check=True, **git_env)
    os.rename(svc.root / "wi/inbox" / a, svc.root / "wi/hold" / a)
    subprocess.run(["git", "update-index", "--add", "--remove", f"wi/inbox/{a}", f"wi/hold/{a}"], cwd=svc.root, check=True, **git_env)
    tree = subprocess.run(["git", "write-tree"], cwd=svc.root, check=True, capture_output=True, text=True, **git_env).stdout.strip()
    new = subprocess.run(
        ["git", "commit-tree", tree, "-p", old_head, "-m", f"atk: hold {a}\n\nAtk-Actor: user"],
        cwd=svc.root, check=True, capture_output=True, text=True,
    ).stdout.strip()
    git(svc.root, "update-ref", "HEAD", new)
    write_journal(svc.root, old_head, {f"wi/inbox/{a}": content, f"wi/hold/{a}": None}, new_head=new)
    assert recover(GitStore(svc.root))
    assert git(svc.root, "rev-parse", "HEAD").strip() == new
    assert (svc.root / "wi/hold" / a).read_bytes() == content
    assert git(svc.root, "status", "--porcelain") == ""


def test_journal_with_new_head_not_yet_in_place_is_rolled_back(svc: Service) -> None:
    a = add_item(svc)
    before = tree_state(svc.root)
    content = (svc.root / "wi/inbox" / a).read_bytes()
    write_journal(svc.root, before["head"], {f"wi/inbox/{a}": content, f"wi/hold/{a}": None}, new_head="1" * 40)
    os.rename(svc.root / "wi/inbox" / a, svc.root / "wi/hold" / a)
    assert recover(GitStore(svc.root))
    assert tree_state(svc.root) == before


def test_recovery_never_resets_someone_elses_head(svc: Service) -> None:
    a = add_item(svc)
    old = git(svc.root, "rev-parse", "HEAD").strip()
    content = (svc.root / "wi/inbox" / a).read_bytes()
    write_journal(svc.root, old, {f"wi/hold/{a}": None})
    (svc.root / "plans/x.md").write_text("x\n")
    git(svc.root, "add", "plans/x.md")
    git(svc.root, "commit", "-q", "-m", "someone else")
    theirs = git(svc.root, "rev-parse", "HEAD").strip()
    assert recover(GitStore(svc.root))
    assert git(svc.root, "rev-parse", "HEAD").strip() == theirs
    assert (svc.root / "wi/inbox" / a).read_bytes() == content


@pytest.mark.parametrize(
    "journal",
    [
        "not json at all",
        '{"head": null}',
        '{"head": null, "files": ["wi/inbox/a.md"], "new_head": null}',
        '{"head": null, "files": {"../../outside.md": "eA=="}, "new_head": null}',
        '{"head": null, "files": {"/tmp/abs.md": "eA=="}, "new_head": null}',
        '{"head": null, "files": {".git/config": "eA=="}, "new_head": null}',
        '{"head": null, "files": {"wi/inbox/a.md": "***not base64***"}, "new_head": null}',
    ],
)
def test_bad_journal_is_discarded_without_writing(svc: Service, journal: str) -> None:
    a = add_item(svc)
    (svc.root / ".git" / "atk-journal.json").write_text(journal)
    before = tree_state(svc.root)
    config = (svc.root / ".git" / "config").read_bytes()
    assert not recover(GitStore(svc.root))
    assert not (svc.root / ".git" / "atk-journal.json").exists()
    assert tree_state(svc.root) == before
    assert (svc.root / ".git" / "config").read_bytes() == config
    assert not (svc.root.parent.parent / "outside.md").exists()
    assert svc.writes.transition_command("hold", [a]).ok


# --- layout, init, paths --------------------------------------------------------------


def test_init_creates_store_with_one_commit(tmp_path: Path) -> None:
    root, created = init_store(tmp_path / "new")
    assert created
    for state in STATES:
        assert (root / "wi" / state / ".gitkeep").is_file()
    assert (root / "plans").is_dir()
    assert ncommits(root) == 1
    assert git(root, "log", "-1", "--format=%s|%(trailers:key=Atk-Actor,valueonly)").strip() == "atk: init store|user"


def test_init_existing_store_changes_nothing(store: Path) -> None:
    before = tree_state(store)
    root, created = init_store(store)
    assert (root, created) == (store, False)
    assert tree_state(store) == before


def test_init_existing_repository_adds_layout(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README.md").write_text("notes\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "first")
    root, created = init_store(repo)
    assert created and ncommits(root) == 2
    assert git(root, "status", "--porcelain") == ""


def test_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(NotAStore, match="atk init"):
        GitStore(tmp_path)


@pytest.mark.parametrize("name", ["../x.md", "a/b.md", "..", "/etc/passwd", "x.txt", ".hidden.md", "a\\b.md", ""])
def test_item_path_refuses_anything_that_could_leave_the_store(name: str) -> None:
    with pytest.raises(AtkError) as err:
        item_path("inbox", name)
    assert err.value.exit_code == 2
    with pytest.raises(AtkError):
        item_path("../inbox", "a.md")


def test_lock_timeout_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATK_LOCK_TIMEOUT", raising=False)
    assert lock_timeout() == 10.0
    monkeypatch.setenv("ATK_LOCK_TIMEOUT", "0.25")
    assert lock_timeout() == 0.25
    monkeypatch.setenv("ATK_LOCK_TIMEOUT", "soon")
    assert lock_timeout() == 10.0


def test_transaction_refuses_to_overwrite_on_move(svc: Service) -> None:
    a = add_item(svc)
    (svc.root / "wi/hold" / a).write_text("someone else's file\n")
    store = GitStore(svc.root)
    with pytest.raises(AtkError, match="already exists"), store.writing("atk: test", "user", pull=False, push=False) as tx:
        assert isinstance(tx, Transaction)
        tx.move(f"wi/inbox/{a}", f"wi/hold/{a}")
    assert (svc.root / "wi/hold" / a).read_text() == "someone else's file\n"
    assert (svc.root / "wi/inbox" / a).exists()


def test_non_utf8_file_names_do_not_break_git_calls(svc: Service, clock: Clock) -> None:
    a = add_item(svc)
    odd = os.fsencode(svc.root / "wi" / "inbox") + b"/\xff\xfe.md"
    with open(odd, "wb") as fh:
        fh.write(b"---\nkind: awi\ntarget_repo: r\n---\n# t\n")
    git(svc.root, "add", "-A")
    git(svc.root, "commit", "-q", "-m", "odd name")
    items, view = svc.list()
    names = [i.filename for i in items]
    assert a in names and "\udcff\udcfe.md" in names
    assert any("breaks the item filename pattern" in d.message for d in view.store_defects)
    assert svc.writes.transition_command("hold", [a]).ok
    assert git(svc.root, "status", "--porcelain") == ""


def test_head_matches_git_in_every_ref_layout(svc: Service, tmp_path: Path) -> None:
    add_item(svc)
    store = GitStore(svc.root)

    def rev() -> str | None:
        return git(svc.root, "rev-parse", "-q", "--verify", "HEAD^{commit}", check=False).strip() or None

    assert store.head() == rev() is not None  # loose ref
    git(svc.root, "pack-refs", "--all")
    assert store.head() == rev()  # packed ref
    git(svc.root, "checkout", "-q", "--detach")
    assert store.head() == rev()  # detached
    git(svc.root, "checkout", "-q", "--orphan", "fresh")
    assert store.head() is None and rev() is None  # unborn
    assert store.head_and_tree() == (None, None)
