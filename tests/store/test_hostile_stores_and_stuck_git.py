"""Issue 10 (SPEC §14): hostile stores and stuck git. Time limits on every child process, the
interrupt a quitting dashboard uses, git-state guards before a write, locks removed only when
no process holds them, and nothing read through a symbolic link that leaves the store.

Hangs are provoked with real sleeping hooks and remotes; a test whose fix is missing would
wait for the full sleep (an hour), so each write runs in a thread joined with a generous bound
that only guards against that hang."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest
from support.faults import diverged, hook, kill_pidfile, retitle
from support.storekit import AWI_BODY, add_item, git, make_remote_pair, tree_state

from atk_tui.host.config import git_limits
from atk_tui.service import Outcome, Service
from atk_tui.store import AtkError, GitStore
from atk_tui.store.gitstate import unmerged_paths
from atk_tui.store.transaction import recover

HANG = 3600  # what a stuck child sleeps: far longer than any test may take
GUARD = 120.0  # a write that is not done by then hung


def in_thread(fn) -> tuple[threading.Thread, list]:
    box: list = []
    t = threading.Thread(target=lambda: box.append(fn()), daemon=True)
    t.start()
    return t, box


def finish(t: threading.Thread, box: list):
    t.join(GUARD)
    assert not t.is_alive(), "the write hung on its child process"
    return box[0]


def wait_file(path: Path) -> None:
    import time

    for _ in range(int(GUARD * 20)):
        if path.exists():
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


# --- time limits ----------------------------------------------------------------------


def test_limits_come_from_the_config_file() -> None:
    assert git_limits({}) == {"timeout": 30.0, "push_timeout": 30.0, "hook_timeout": 30.0, "pull_timeout": 5.0}
    got = git_limits({"git": {"timeout": 5, "push_timeout": 7.5, "hook_timeout": -1}})
    assert got == {"timeout": 5.0, "push_timeout": 7.5, "hook_timeout": 5.0, "pull_timeout": 5.0}
    assert git_limits({"git": "nonsense"})["timeout"] == 30.0
    assert git_limits({"git": {"timeout": True}})["timeout"] == 30.0


def test_limits_are_read_from_the_users_config(store: Path) -> None:
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "atk" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text("[git]\ntimeout = 4\nhook_timeout = 2\n")
    s = GitStore(store)
    assert (s.limit("timeout"), s.limit("push_timeout"), s.limit("hook_timeout")) == (4.0, 4.0, 2.0)


def test_a_sleeping_pre_commit_hook_is_stopped_and_the_write_rolled_back(svc: Service, tmp_path: Path) -> None:
    a = add_item(svc)
    before = tree_state(svc.root)
    hook(svc.root, "pre-commit", f"sleep {HANG}\n")
    svc.store.limits = {"timeout": 30.0, "push_timeout": 30.0, "hook_timeout": 1.0}
    out: Outcome = finish(*in_thread(lambda: svc.writes.transition_command("hold", [a])))
    assert not out.ok
    assert "pre-commit hook did not finish within 1 s" in out.message
    assert "hook_timeout" in out.message  # says what to do
    assert tree_state(svc.root) == before
    assert not (svc.root / ".git" / "atk-journal.json").exists()


def test_a_hook_leaving_a_background_child_does_not_keep_the_write_waiting(svc: Service, tmp_path: Path) -> None:
    a = add_item(svc)
    pidfile = tmp_path / "bg.pid"
    # the child keeps the hook's stdout/stderr open; reading a pipe to its end would wait
    hook(svc.root, "pre-commit", f"sleep {HANG} &\necho $! > {pidfile}\necho checked\nexit 0\n")
    svc.store.limits = {"timeout": 30.0, "push_timeout": 30.0, "hook_timeout": float(HANG)}
    try:
        out: Outcome = finish(*in_thread(lambda: svc.writes.transition_command("hold", [a])))
    finally:
        kill_pidfile(pidfile)
    assert out.ok, out.message
    assert svc.store.locate(a) == "hold"


def test_interrupt_stops_a_stuck_write_which_rolls_back(svc: Service, tmp_path: Path) -> None:
    a = add_item(svc)
    before = tree_state(svc.root)
    started = tmp_path / "started"
    hook(svc.root, "pre-commit", f"touch {started}\nsleep {HANG}\n")
    svc.store.limits = {"timeout": 30.0, "push_timeout": 30.0, "hook_timeout": float(HANG)}
    t, box = in_thread(lambda: svc.writes.transition_command("hold", [a]))
    wait_file(started)
    assert svc.interrupt() >= 1
    out: Outcome = finish(t, box)
    assert not out.ok
    assert "interrupted" in out.message
    assert tree_state(svc.root) == before
    # the next write runs normally (the interrupt does not outlive the write it stopped)
    (svc.root / ".git" / "hooks" / "pre-commit").unlink()
    assert svc.writes.transition_command("hold", [a]).ok


def _hanging_remote(tmp_path: Path, which: str) -> tuple[Path, Path]:
    """A store whose remote's upload-pack (fetch/pull) or receive-pack (push) never answers."""
    root, remote = make_remote_pair(tmp_path)
    script = tmp_path / f"hang-{which}"
    script.write_text(f"#!/bin/sh\ntouch {tmp_path}/remote-called\nexec sleep {HANG}\n")
    script.chmod(0o755)
    git(root, "config", f"remote.origin.{which}", str(script))
    return root, remote


@pytest.mark.parametrize(
    ("which", "limits", "said"),
    [
        ("uploadpack", (1.0, 1.0), "did not answer within 1 s"),  # the pull before a write (issue 39)
        ("receivepack", (30.0, 1.0), "git push timed out after 1 s; the commit is kept locally"),
    ],
    ids=["pull", "push"],
)
def test_a_remote_that_never_answers_times_out_and_the_commit_is_kept(
    tmp_path: Path, which: str, limits: tuple[float, float], said: str
) -> None:
    root, _ = _hanging_remote(tmp_path, which)
    svc = Service(root, actor="user")
    svc.store.limits = {"timeout": limits[0], "push_timeout": limits[1], "hook_timeout": 30.0}
    out: Outcome = finish(*in_thread(lambda: svc.writes.add(kind="awi", target_repo="acme/webapp", body=AWI_BODY)))
    assert (tmp_path / "remote-called").exists()
    assert out.ok, out.message
    text = "\n".join(out.warnings)
    assert said in text
    assert "atk wi commit" in text
    assert svc.store.remote.unpushed() == 1


def test_interrupt_stops_a_hanging_push(tmp_path: Path) -> None:
    root, _ = _hanging_remote(tmp_path, "receivepack")
    svc = Service(root, actor="user")
    svc.store.limits = {"timeout": 30.0, "push_timeout": float(HANG), "hook_timeout": 30.0}
    t, box = in_thread(lambda: svc.writes.add(kind="awi", target_repo="acme/webapp", body=AWI_BODY))
    wait_file(tmp_path / "remote-called")
    svc.interrupt()
    out: Outcome = finish(t, box)
    assert out.ok  # the commit was made before the push; only the push was stopped
    assert any("interrupted" in w and "atk wi commit" in w for w in out.warnings), out.warnings
    assert svc.store.remote.unpushed() == 1


# --- nothing read through a symbolic link ------------------------------------------------


def _commit_all(root: Path, msg: str = "test: hostile entry") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", msg)


def test_a_symlinked_item_is_a_defect_and_never_read(svc: Service, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:SECRET\n")
    (svc.root / "wi" / "inbox" / "pw.md").symlink_to(secret)
    _commit_all(svc.root)
    items, view = svc.list()
    assert "pw.md" not in {i.filename for i in items}
    assert any(d.path == "wi/inbox/pw.md" and "symbolic link" in d.message for d in view.store_defects)
    with pytest.raises(AtkError) as exc:
        svc.show("pw.md")
    assert "symbolic link" in exc.value.message and "SECRET" not in exc.value.message
    out = svc.writes.transition_command("hold", ["pw.md"])
    assert not out.ok and "symbolic link" in out.message
    assert secret.read_text() == "root:x:0:0:SECRET\n"


def test_a_symlinked_state_folder_is_a_defect_never_listed_nor_written_through(svc: Service, tmp_path: Path) -> None:
    a = add_item(svc)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "planted.md").write_text(f"---\nkind: awi\n---\n{AWI_BODY}")
    hold = svc.root / "wi" / "hold"
    git(svc.root, "rm", "-q", "-r", "wi/hold")
    hold.symlink_to(outside)
    _commit_all(svc.root)
    items, view = svc.list(["inbox", "hold"])
    assert [i.filename for i in items] == [a]
    assert any(d.path == "wi/hold" and "symbolic link" in d.message for d in view.store_defects)
    with pytest.raises(AtkError) as exc:
        svc.show("planted.md")
    assert "wi/hold: a symbolic link, never read" in exc.value.message
    out = svc.writes.transition_command("hold", [a])
    assert not out.ok
    assert "wi/hold is a symbolic link" in out.message and "mkdir" in out.message
    assert sorted(p.name for p in outside.iterdir()) == ["planted.md"]
    assert svc.store.locate(a) == "inbox"


def test_atk_files_in_git_dir_are_never_followed(svc: Service, tmp_path: Path) -> None:
    a = add_item(svc)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    g = svc.root / ".git"
    for name in ("atk.lock", "ATK_COMMIT_MSG", "atk-journal.tmp", "atk-index-state.json", "atk-index.tmp"):
        (g / name).unlink(missing_ok=True)
        (g / name).symlink_to(victim)
    cache = g / "atk-cache"
    import shutil

    shutil.rmtree(cache, ignore_errors=True)
    outside_cache = tmp_path / "cache"
    outside_cache.mkdir()
    cache.symlink_to(outside_cache)
    assert svc.writes.transition_command("hold", [a]).ok
    items, _ = svc.list(["hold"])
    assert [i.filename for i in items] == [a]
    assert victim.read_text() == "keep me"
    assert list(outside_cache.iterdir()) == []


def test_a_symlinked_journal_is_not_read(svc: Service, tmp_path: Path) -> None:
    a = add_item(svc)
    fake = tmp_path / "journal.json"
    import base64
    import json

    fake.write_text(json.dumps({"head": None, "files": {f"wi/inbox/{a}": base64.b64encode(b"PWNED").decode()}}))
    (svc.root / ".git" / "atk-journal.json").symlink_to(fake)
    assert recover(svc.store) is False
    assert b"PWNED" not in (svc.root / "wi" / "inbox" / a).read_bytes()


def test_an_item_over_the_size_limit_is_defective_without_being_read_whole(svc: Service) -> None:
    import tracemalloc

    from atk_tui.itemfile.items import MAX_ITEM_BYTES

    big = svc.root / "wi" / "inbox" / "big.md"
    big.write_bytes(b"---\nkind: awi\n---\n# Big\n" + b"x" * (MAX_ITEM_BYTES * 3))
    with big.open("r+b") as fh:
        fh.truncate(64 * MAX_ITEM_BYTES)  # 64 MiB (sparse): reading it whole would stall the app
    tracemalloc.start()
    try:
        items, view = svc.list()
        shown = svc.show("big.md")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * MAX_ITEM_BYTES, f"{peak / MAX_ITEM_BYTES:.0f} MiB allocated: the file was read whole"
    item = next(i for i in items if i.filename == "big.md")
    assert any("file too large (67.1 MB" in d for d in item.defects), item.defects
    assert view.judgements["big.md"].status == "defective"
    assert shown.size == big.stat().st_size
    assert any("file too large" in d for d in shown.defects)


# --- git-state guards ---------------------------------------------------------------


def test_a_write_during_a_rebase_is_refused_and_the_marker_file_is_defective(svc: Service) -> None:
    a = add_item(svc)
    b = add_item(svc)
    diverged(svc.root, a, "rebase")
    assert (svc.root / ".git" / "rebase-merge").exists()
    before = tree_state(svc.root)
    out = svc.writes.transition_command("hold", [b])
    assert not out.ok and out.exit_code == 1
    assert "middle of a rebase" in out.message and "rebase --continue" in out.message and "--abort" in out.message
    assert tree_state(svc.root) == before
    items, view = svc.list()
    marked = next(i for i in items if i.filename == a)
    assert view.judgements[a].status == "defective"
    assert "conflict markers" in marked.defects[0]
    git(svc.root, "rebase", "--abort")
    assert svc.writes.transition_command("hold", [b]).ok


@pytest.mark.parametrize("op", ["merge", "cherry-pick"])
def test_a_write_during_a_merge_or_cherry_pick_is_refused(svc: Service, op: str) -> None:
    a = add_item(svc)
    b = add_item(svc)
    diverged(svc.root, a, op)
    out = svc.writes.transition_command("hold", [b])
    assert not out.ok
    assert f"middle of a {op}" in out.message and f"{op} --abort" in out.message
    assert svc.store.locate(b) == "inbox"


def test_unmerged_paths_refuse_a_write(svc: Service) -> None:
    a = add_item(svc)
    b = add_item(svc)
    root = svc.root
    diverged(root, a, "merge")
    # the merge state removed by hand: only the conflict in the index is left
    for name in ("MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"):
        (root / ".git" / name).unlink(missing_ok=True)
    assert unmerged_paths(svc.store) == [f"wi/inbox/{a}"]
    out = svc.writes.transition_command("hold", [b])
    assert not out.ok and "unresolved conflicts" in out.message and f"wi/inbox/{a}" in out.message


def test_a_write_on_a_detached_head_is_refused(svc: Service) -> None:
    a = add_item(svc)
    git(svc.root, "checkout", "-q", "--detach")
    out = svc.writes.transition_command("hold", [a])
    assert not out.ok
    assert "detached" in out.message and "switch" in out.message
    assert svc.store.locate(a) == "inbox"


def _retitled_on_the_remote(tmp_path: Path, n: int = 1) -> tuple[Path, Service, list[str]]:
    """A store with `n` items, pushed; another clone then changed the first one's title and
    pushed it. Ours has not pulled yet."""
    from support.storekit import clone

    root, remote = make_remote_pair(tmp_path)
    svc = Service(root, actor="user")
    names = [add_item(svc) for _ in range(n)]
    other = clone(remote, tmp_path / "other")
    retitle(other / "wi" / "inbox" / names[0], "Remote", commit=True)
    git(other, "push", "-q")
    return root, svc, names


def test_a_rebase_left_by_a_writer_killed_during_its_pull_is_aborted_by_the_next_writer(tmp_path: Path) -> None:
    root, _svc, (a,) = _retitled_on_the_remote(tmp_path)
    mine = root / "wi" / "inbox" / a
    retitle(mine, "Local", commit=True)
    local_head = git(root, "rev-parse", "HEAD").strip()
    # what a writer killed during `git pull --rebase` leaves: its marker and a stopped rebase
    (root / ".git" / "atk-pulling").write_text("99999")
    proc = subprocess.run(["git", "pull", "--rebase"], cwd=root, capture_output=True, text=True)
    assert proc.returncode != 0 and (root / ".git" / "rebase-merge").exists()
    b = Service(root, actor="user", pull=False, push=False)
    with b.store.locked():
        pass
    assert not (root / ".git" / "rebase-merge").exists()
    assert not (root / ".git" / "atk-pulling").exists()
    assert git(root, "rev-parse", "HEAD").strip() == local_head
    assert "# Local: Use one" in mine.read_text()


def test_an_autostash_conflict_is_reported_and_nothing_is_lost(tmp_path: Path) -> None:
    root, svc, (a, b) = _retitled_on_the_remote(tmp_path, 2)
    mine = root / "wi" / "inbox" / a
    retitle(mine, "My uncommitted")
    out = svc.writes.transition_command("hold", [b])
    assert not out.ok
    assert "conflict with your uncommitted edits" in out.message and "stash" in out.message
    assert f"wi/inbox/{a}" in out.message
    stash = git(root, "stash", "list")
    kept = git(root, "stash", "show", "-p", "stash@{0}") if stash else mine.read_text()
    assert "My uncommitted" in kept
    assert svc.store.locate(b) == "inbox"


# --- locks: removed only when no process holds them ------------------------------------


def test_a_live_index_lock_held_by_a_process_is_never_removed(svc: Service, tmp_path: Path) -> None:
    import sys
    import time

    a = add_item(svc)
    lock = svc.root / ".git" / "index.lock"
    ready = tmp_path / "ready"
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import time,pathlib; f=open({str(lock)!r},'w'); pathlib.Path({str(ready)!r}).touch(); time.sleep({HANG})"]
    )
    try:
        wait_file(ready)
        old = time.time() - 600  # old: an age rule would take it for a dead process's lock
        os.utime(lock, (old, old))
        svc.store.lock_timeout = 1  # how long a writer waits for the holder (10 s by default)
        out = svc.writes.transition_command("hold", [a])
        assert lock.exists(), "atk removed a lock a live process holds"
        assert not out.ok
        assert "another git process is using the store" in out.message
        assert svc.store.locate(a) == "inbox"
    finally:
        holder.kill()
        holder.wait()
    lock.unlink()
    assert svc.writes.transition_command("hold", [a]).ok


def test_a_lock_no_process_holds_is_removed_whatever_its_age(svc: Service) -> None:
    a = add_item(svc)
    lock = svc.root / ".git" / "index.lock"
    lock.write_text("")  # fresh, and nobody's: a git process killed a moment ago
    out = svc.writes.transition_command("hold", [a])
    assert out.ok, out.message
    assert not lock.exists()


def test_a_running_git_commit_keeps_its_index_lock(svc: Service, tmp_path: Path) -> None:
    """`git commit` closes index.lock once written but holds it while its hooks run."""
    a = add_item(svc)
    b = add_item(svc)
    started, release = tmp_path / "started", tmp_path / "release"
    # only the user's commit waits in the hook (atk runs the same hook for its own commit)
    hook(svc.root, "pre-commit", f'[ -n "$HOLD" ] || exit 0\ntouch {started}\nwhile [ ! -e {release} ]; do sleep 0.1; done\n')
    p = svc.root / "wi" / "inbox" / a
    p.write_text(p.read_text() + "\nmanual edit\n")
    user = subprocess.Popen(["git", "commit", "-q", "-a", "-m", "manual"], cwd=svc.root, env={**os.environ, "HOLD": "1"})
    try:
        wait_file(started)
        old = time.time() - 600  # old: an age rule would take it for a dead process's lock
        os.utime(svc.root / ".git" / "index.lock", (old, old))
        svc.store.lock_timeout = 1
        out = svc.writes.transition_command("hold", [b])
        assert (svc.root / ".git" / "index.lock").exists()
    finally:
        release.touch()
        user.wait(GUARD)
    assert user.returncode == 0, "the user's git commit broke"
    assert "manual" in git(svc.root, "log", "-1", "--format=%s")
    assert not out.ok


def test_a_pull_never_aborts_a_rebase_someone_else_started(tmp_path: Path) -> None:
    root, _ = make_remote_pair(tmp_path)
    svc = Service(root, actor="user")
    a = add_item(svc)
    diverged(root, a, "rebase")
    warnings = svc.pull(lock_timeout=2).warnings
    assert (root / ".git" / "rebase-merge").exists(), "the user's rebase was aborted"
    assert any("not pulling" in w and "rebase" in w for w in warnings), warnings


def test_entries_that_are_no_regular_file_are_defects_and_never_opened(svc: Service) -> None:
    inbox = svc.root / "wi" / "inbox"
    os.mkfifo(inbox / "pipe.md")  # opening it for reading would block the listing for ever
    (inbox / "folder.md").mkdir()
    items, view = svc.list()
    assert not {"pipe.md", "folder.md"} & {i.filename for i in items}
    found = {d.path: d.message for d in view.store_defects}
    assert "not a regular file" in found["wi/inbox/pipe.md"]
    assert "not a regular file" in found["wi/inbox/folder.md"]
    with pytest.raises(AtkError):
        svc.show("pipe.md")
    with pytest.raises(AtkError) as exc:  # even asked for by state, it is never opened for good
        svc.read("pipe.md", "inbox")
    assert "not a regular file" in exc.value.message


def test_a_write_during_git_am_is_refused(svc: Service) -> None:
    a = add_item(svc)
    (svc.root / ".git" / "rebase-apply").mkdir()
    (svc.root / ".git" / "rebase-apply" / "applying").touch()
    out = svc.writes.transition_command("hold", [a])
    assert not out.ok and "git am" in out.message and "am --abort" in out.message


def test_a_rebase_the_user_started_after_a_killed_pull_is_left_to_them(svc: Service) -> None:
    a = add_item(svc)
    b = add_item(svc)
    marker = svc.root / ".git" / "atk-pulling"
    marker.write_text("99999")  # a writer killed during a pull that left no rebase
    old = time.time() - 3600
    os.utime(marker, (old, old))
    diverged(svc.root, a, "rebase")  # the user's own rebase, an hour later
    out = svc.writes.transition_command("hold", [b])
    assert (svc.root / ".git" / "rebase-merge").exists(), "the user's rebase was aborted"
    assert not out.ok and "middle of a rebase" in out.message
    assert not marker.exists()


def test_a_sleeping_post_commit_hook_is_stopped_and_the_commit_kept(svc: Service) -> None:
    a = add_item(svc)
    hook(svc.root, "post-commit", f"sleep {HANG}\n")
    svc.store.limits = {"timeout": 30.0, "push_timeout": 30.0, "hook_timeout": 1.0}
    out: Outcome = finish(*in_thread(lambda: svc.writes.transition_command("hold", [a])))
    assert out.ok, out.message
    assert svc.store.locate(a) == "hold"
    assert f"atk: hold {a}" in git(svc.root, "log", "-1", "--format=%s")


def test_a_time_limit_kills_the_childs_whole_process_group(tmp_path: Path) -> None:
    from atk_tui.host.procs import Children, ChildTimeout, holders

    pidfile = tmp_path / "grandchild.pid"
    try:
        with pytest.raises(ChildTimeout):
            Children().run(["sh", "-c", f"sleep {HANG} & echo $! > {pidfile}; wait"], cwd=tmp_path, timeout=1)
        pid = int(pidfile.read_text())

        def state() -> str:
            try:
                os.kill(pid, 0)
                return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
            except (ProcessLookupError, FileNotFoundError):
                return "gone"

        # SIGKILL is delivered asynchronously: a loaded machine may still show the
        # grandchild running for a moment; a survivor stays "S" (sleeping) for good.
        for _ in range(200):
            if state() in ("gone", "Z"):
                break
            time.sleep(0.05)
        assert state() in ("gone", "Z"), "the grandchild outlived the time limit"
    finally:
        kill_pidfile(pidfile)
    # and a file's holders are found through /proc
    f = tmp_path / "held"
    with open(f, "w"):
        assert os.getpid() in holders(f)
    assert holders(f) == []
