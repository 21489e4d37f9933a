"""Writers at the same time, a held lock, and a shared remote (SPEC §9).

Real processes where a real process matters (two writers, the console script's exit code),
real clones of one bare remote for push/rebase.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from filelock import FileLock
from support.storekit import AWI_BODY, Clock, add_item, clone, git, make_remote_pair, tree_state

from atk_tui.cli import main as cli
from atk_tui.service import Service

ATK = Path(sys.executable).with_name("atk")


def ncommits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").strip())


def subjects(root: Path, n: int) -> list[str]:
    return git(root, "log", f"-n{n}", "--format=%s").splitlines()


def worker(script: str, store: Path, *args: str) -> subprocess.Popen[str]:
    """A Python process running `script` against the store through the CLI entry point
    (`store` and `args` are in `sys.argv[1:]`)."""
    code = "import sys\nfrom atk_tui.cli.main import run\nstore = sys.argv[1]\n" + textwrap.dedent(script)
    return subprocess.Popen(
        [sys.executable, "-c", code, str(store), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, ATK_LOCK_TIMEOUT="60"),
    )


def finish(procs: list[subprocess.Popen[str]]) -> None:
    for p in procs:
        _out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err


# --- two processes --------------------------------------------------------------------


def test_two_processes_adding_lose_nothing(store: Path) -> None:
    n0 = ncommits(store)
    script = """
        for i in range(10):
            rc = run(["wi", "add", "--store", store, "--target-repo", "acme/webapp", "# Same title\\n\\nbody {i}"])
            assert rc == 0, rc
    """
    finish([worker(script, store), worker(script, store)])
    names = sorted(p.name for p in (store / "wi" / "inbox").iterdir() if p.suffix == ".md")
    assert len(names) == 20  # collisions in the same second got -2, -3, ... inside the lock
    assert ncommits(store) == n0 + 20
    assert sorted(s.removeprefix("atk: add ") for s in subjects(store, 20)) == names
    assert git(store, "status", "--porcelain") == ""
    assert git(store, "fsck", "--no-progress") == ""


def test_two_processes_holding_different_items(svc: Service) -> None:
    a, b = add_item(svc), add_item(svc)
    n0 = ncommits(svc.root)
    script = """
        name = sys.argv[2]
        for i in range(10):
            assert run(["wi", "hold" if i % 2 == 0 else "unhold", name, "--store", store]) == 0
    """
    procs = [worker(script, svc.root, name) for name in (a, b)]
    finish(procs)
    assert ncommits(svc.root) == n0 + 20
    assert (svc.root / "wi/inbox" / a).exists() and (svc.root / "wi/inbox" / b).exists()
    log = subjects(svc.root, 20)
    assert sorted(log) == sorted([f"atk: {op} {n}" for n in (a, b) for op in ["hold", "unhold"] * 5])
    assert git(svc.root, "status", "--porcelain") == ""


# --- the lock -------------------------------------------------------------------------


def test_held_lock_means_store_busy(svc: Service) -> None:
    a = add_item(svc)
    before = tree_state(svc.root)
    svc.store.lock_timeout = 0.2
    with FileLock(str(svc.root / ".git" / "atk.lock")):
        out = svc.writes.transition_command("hold", [a])
    assert not out.ok and out.exit_code == 1
    assert out.message.startswith("store busy")
    assert tree_state(svc.root) == before
    assert svc.writes.transition_command("hold", [a]).ok  # released: works again


def test_held_lock_cli_exit_code(svc: Service, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    a = add_item(svc)
    monkeypatch.setenv("ATK_LOCK_TIMEOUT", "0.2")
    with FileLock(str(svc.root / ".git" / "atk.lock")):
        assert cli.run(["wi", "hold", a, "--store", str(svc.root)]) == 1
        assert "store busy" in capsys.readouterr().err
        # the console script, as a real process
        proc = subprocess.run(
            [str(ATK), "wi", "add", "--store", str(svc.root), "--target-repo", "r", "# x"],
            capture_output=True, text=True, env=dict(os.environ, ATK_LOCK_TIMEOUT="0.2"), check=False,
        )
    assert proc.returncode == 1
    assert "store busy" in proc.stderr


# --- a shared remote ------------------------------------------------------------------


def remote_head(remote: Path) -> str:
    return git(remote, "rev-parse", "main").strip()


def test_write_pushes(remote_store: tuple[Path, Path], clock: Clock) -> None:
    root, remote = remote_store
    svc = Service(root, clock=clock, actor="user")
    out = svc.writes.add(kind="awi", target_repo="r", body=AWI_BODY)
    assert out.ok and out.pushed is True and not out.warnings
    assert remote_head(remote) == out.commit
    out = Service(root, clock=clock, push=False).writes.transition_command("hold", [out.files[0]])
    assert out.ok and out.pushed is None
    assert svc.store.remote.unpushed() == 1


def test_rejected_push_is_rebased_and_lands(tmp_path: Path, clock: Clock) -> None:
    a_root, remote = make_remote_pair(tmp_path)
    b_root = clone(remote, tmp_path / "b")
    a = Service(a_root, clock=clock, actor="user")
    b = Service(b_root, clock=clock, actor="agent", pull=False)  # --skip-pull: B does not see A's push
    x = a.writes.add(kind="awi", target_repo="r", body="# From A\n")
    assert x.ok and x.pushed
    y = b.writes.add(kind="awi", target_repo="r", body="# From B\n", source="process-wi")
    assert y.ok, y.message
    assert y.pushed is True and not y.warnings  # rejected once, rebased onto A's commit, pushed
    assert remote_head(remote) == git(b_root, "rev-parse", "HEAD").strip()
    assert git(b_root, "log", "-2", "--format=%s").splitlines() == [f"atk: add {y.files[0]}", f"atk: add {x.files[0]}"]
    # A's next write pulls first; both clones converge
    n = a.writes.transition_command("hold", [x.files[0]])
    assert n.ok and n.pushed
    git(b_root, "pull", "-q", "--rebase")
    assert git(a_root, "rev-parse", "HEAD") == git(b_root, "rev-parse", "HEAD") == git(remote, "rev-parse", "main")
    assert sorted(p.name for p in (a_root / "wi/inbox").glob("*.md")) == sorted(p.name for p in (b_root / "wi/inbox").glob("*.md"))
    assert git(a_root, "status", "--porcelain") == git(b_root, "status", "--porcelain") == ""


def test_write_pulls_first(tmp_path: Path, clock: Clock) -> None:
    a_root, remote = make_remote_pair(tmp_path)
    b_root = clone(remote, tmp_path / "b")
    a = Service(a_root, clock=clock)
    x = add_item(a)
    b = Service(b_root, clock=clock)
    out = b.writes.transition_command("hold", [x])  # B has never seen x: the pull before the write brings it
    assert out.ok and out.pushed, out.message
    assert remote_head(remote) == git(b_root, "rev-parse", "HEAD").strip()


def test_rebase_conflict_keeps_local_commit_then_commit_pushes(
    tmp_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    a_root, remote = make_remote_pair(tmp_path)
    a = Service(a_root, clock=clock, actor="user")
    item = add_item(a)
    b_root = clone(remote, tmp_path / "b")
    original = (a_root / "wi/inbox" / item).read_text()
    # both sides change the same body differently; B does not pull first
    assert a.writes.edit(item, "# Title A\n\nalpha\n").ok
    b = Service(b_root, clock=clock, actor="user", pull=False)
    before_b = git(b_root, "rev-parse", "HEAD").strip()
    out = b.writes.edit(item, "# Title B\n\nbeta\n")
    assert out.ok, out.message  # the commit stands locally
    assert out.pushed is False
    assert any("atk wi commit" in w and "unpushed" in w for w in out.warnings), out.warnings
    assert git(b_root, "rev-parse", "HEAD~1").strip() == before_b
    assert "beta" in (b_root / "wi/inbox" / item).read_text()
    assert not (b_root / ".git" / "rebase-merge").exists() and not (b_root / ".git" / "rebase-apply").exists()
    assert git(b_root, "status", "--porcelain") == ""
    assert b.store.remote.unpushed() == 1
    assert b.status()["unpushed"] == 1
    # a later write on B still cannot push, and says so
    out = b.writes.transition_command("hold", [item])
    assert out.ok and out.pushed is False
    assert any("2 unpushed commits" in w for w in out.warnings), out.warnings
    assert b.writes.unhold(item).ok
    assert b.store.remote.unpushed() == 3
    capsys.readouterr()
    # resolved on the other side: A puts the original text back
    assert a.writes.save_text(item, original).ok
    assert cli.run(["wi", "commit", "--store", str(b_root)]) == 0
    assert "pushed" in capsys.readouterr().out
    assert b.store.remote.unpushed() == 0
    assert remote_head(remote) == git(b_root, "rev-parse", "HEAD").strip()
    git(a_root, "pull", "-q", "--rebase")
    assert "beta" in (a_root / "wi/inbox" / item).read_text()
    assert git(a_root, "rev-parse", "HEAD") == git(b_root, "rev-parse", "HEAD")


def test_commit_command_commits_hand_edits_and_pushes(
    remote_store: tuple[Path, Path], clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    root, remote = remote_store
    svc = Service(root, clock=clock)
    name = add_item(svc)
    path = root / "wi/inbox" / name
    path.write_text(path.read_text() + "\nedited by hand\n")
    (root / "wi/inbox/handmade.md").write_text("---\nkind: awi\ntarget_repo: r\n---\n# by hand\n")
    assert cli.run(["wi", "commit", "--yes", "--store", str(root)]) == 0
    assert "committed 2 files" in (got := capsys.readouterr().out) and "pushed" in got
    assert git(root, "status", "--porcelain") == ""
    assert git(root, "log", "-1", "--format=%s|%(trailers:key=Atk-Actor,valueonly)").strip() == "atk: commit 2 files|user"
    assert remote_head(remote) == git(root, "rev-parse", "HEAD").strip()
    assert cli.run(["wi", "commit", "--store", str(root)]) == 0  # nothing pending: still fine


def test_commit_without_remote(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["wi", "commit", "--store", str(store)]) == 0
    assert "nothing to commit; no remote is configured" in capsys.readouterr().out


def test_unreachable_remote_warns_but_commits(remote_store: tuple[Path, Path], clock: Clock) -> None:
    root, remote = remote_store
    svc = Service(root, clock=clock)
    name = add_item(svc)
    remote.rename(remote.with_name("gone.git"))
    out = svc.writes.transition_command("hold", [name])
    assert out.ok and out.pushed is False
    assert any("could not pull" in w for w in out.warnings)
    assert any("atk wi commit" in w for w in out.warnings)
    assert (root / "wi/hold" / name).exists()
