"""`atk wi process-loop` (SPEC §13) against a real store, with a fake agent script that
records what it was started for: ready items only (never hold or blocked ones), N at a time,
a crashing run survived, SIGINT/SIGTERM leave no lock and no half-started session."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock
from support.clikit import ATK, awi, seed, uwi
from support.storekit import AWI_BODY, Clock, add_item, clone, make_remote_pair

from atk_tui.service import Service
from atk_tui.service.reading.loop import read_status

AGENT = """\
import json, os, sys, time
rec = {"files": os.environ["ATK_READY_FILES"].split(), "repo": os.environ["ATK_TARGET_REPO"],
       "store": os.environ["ATK_PRIVATE_NOTES"], "pid": os.getpid(),
       "processing": os.environ.get("ATK_READY_PROCESSING_FILES", "-").split(),
       "inbox": os.environ.get("ATK_READY_INBOX_FILES", "-").split()}
run = os.path.join(sys.argv[1], "running")
os.makedirs(run, exist_ok=True)
open(os.path.join(run, str(os.getpid())), "w").close()
rec["running_at_start"] = len(os.listdir(run))
with open(os.path.join(sys.argv[1], "records.jsonl"), "a") as fh:
    fh.write(json.dumps(rec) + "\\n")
print("working on", *rec["files"])
time.sleep(float(os.environ.get("FAKE_SLEEP", "0.6")))
os.unlink(os.path.join(run, str(os.getpid())))
crash = os.path.join(sys.argv[1], "crash-" + rec["repo"].replace("/", "_"))
if os.path.exists(crash):
    print("boom")
    sys.exit(3)
"""


def wait_for(check: Callable[[], object], what: str, timeout: float = 30) -> object:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def agent(tmp_path: Path) -> tuple[str, Path]:
    work = tmp_path / "agent"
    work.mkdir()
    script = work / "agent.py"
    script.write_text(AGENT)
    return f"{sys.executable} {script} {work}", work


def records(work: Path) -> list[dict]:
    path = work / "records.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def journal(store: Path) -> list[dict]:
    path = store / ".git/atk-loop/sessions.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def loop(store: Path, cmd: str, *args: str, env: dict | None = None, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [str(ATK), "wi", "process-loop", "--run", cmd, "--store", str(store), *args],
        env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw,
    )


def seed_queue(store: Path) -> None:
    seed(store, {
        "one.md": ("inbox", awi("acme/one")),
        "two.md": ("inbox", awi("acme/two")),
        "two-busy.md": ("processing", awi("acme/two")),
        "three.md": ("inbox", awi("acme/three")),
        "held.md": ("hold", awi("acme/one")),
        "waits.md": ("inbox", awi("acme/one", extra="depends_on: [q.md]\n")),
        "q.md": ("inbox", uwi("acme/one")),
        "later.md": ("inbox", awi("acme/four", extra="cooldown_until: 2999-01-01T00:00:00Z\n")),
    })


def test_once_starts_ready_work_only_n_at_a_time(store: Path, agent: tuple[str, Path]) -> None:
    cmd, work = agent
    seed_queue(store)
    (work / "crash-acme_one").touch()  # one session crashes; the others still run
    proc = loop(store, cmd, "--once", "--max-parallel", "2", env={"CLAUDECODE": "1"})
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    recs = records(work)
    by_repo = {r["repo"]: sorted(r["files"]) for r in recs}
    assert by_repo == {"acme/one": ["one.md"], "acme/three": ["three.md"], "acme/two": ["two-busy.md", "two.md"]}
    # SPEC §13: ATK_READY_FILES is every ready file; each state's set has its own variable (issue 26)
    by_state = {r["repo"]: (r["processing"], r["inbox"]) for r in recs}
    assert by_state == {
        "acme/one": ([], ["one.md"]),
        "acme/three": ([], ["three.md"]),
        "acme/two": (["two-busy.md"], ["two.md"]),
    }
    handed_out = {f for r in recs for f in r["files"]}
    assert not handed_out & {"held.md", "waits.md", "q.md", "later.md"}  # hold, blocked, cooldown
    assert all(r["store"] == str(store) for r in recs)
    assert max(r["running_at_start"] for r in recs) <= 2
    events = journal(store)
    starts = {e["id"]: e for e in events if e["event"] == "start"}
    ends = {e["id"]: e for e in events if e["event"] == "end"}
    assert starts.keys() == ends.keys() and len(starts) == 3
    codes = {e["repo"]: e["exit_code"] for e in ends.values()}
    assert codes == {"acme/one": 3, "acme/two": 0, "acme/three": 0}
    assert "boom" in next(e for e in ends.values() if e["repo"] == "acme/one")["tail"]
    logs = list((store / ".git/atk-loop/sessions").glob("*.log"))
    assert len(logs) == 3 and any("working on one.md" in p.read_text() for p in logs)
    assert not (store / ".git/atk-loop/state.json").exists()
    assert not (store / ".git/atk-loop/loop.lock").exists()


def test_once_honours_target_repo(store: Path, agent: tuple[str, Path]) -> None:
    cmd, work = agent
    seed_queue(store)
    proc = loop(store, cmd, "--once", "--queue", "wi", "--target-repo=acme/two", env={"FAKE_SLEEP": "0"})
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert [(r["repo"], sorted(r["files"])) for r in records(work)] == [("acme/two", ["two-busy.md", "two.md"])]


def test_resident_loop_picks_up_new_work_and_survives_a_crash(store: Path, agent: tuple[str, Path]) -> None:
    cmd, work = agent
    seed(store, {"a.md": ("inbox", awi("acme/one"))})
    (work / "crash-acme_one").touch()
    proc = loop(store, cmd, "--interval", "0.1", env={"FAKE_SLEEP": "0.1"})
    try:
        wait_for(lambda: any(e["event"] == "end" for e in journal(store)), "the first session to end")
        assert wait_for(lambda: read_status(store / ".git"), "the loop's state")["last_exit"] == 3
        time.sleep(1)  # ten more turns of the loop (interval 0.1 s): none restarts the crash
        # the crash is not restarted in a loop: the same files at the same store state wait
        assert len(records(work)) == 1 and proc.poll() is None
        (work / "crash-acme_one").unlink()
        svc = Service(store, clock=Clock(), actor="agent")
        added = add_item(svc, AWI_BODY, target_repo="acme/one", source="test")
        # the new work is handed out with the crashed one (a tick may land inside the write,
        # after its temporary file changed the folder and before the item is there: then a.md
        # runs alone first, and both once the item is in)
        both = sorted(["a.md", added])
        wait_for(lambda: any(sorted(r["files"]) == both for r in records(work)), "a session for the new work")
        assert all(sorted(r["files"]) in (["a.md"], both) for r in records(work))
        ends = lambda: [e for e in journal(store) if e["event"] == "end"]  # noqa: E731
        wait_for(lambda: len(ends()) == len(records(work)), "the sessions to end")
        assert [e["exit_code"] for e in ends()][1:] == [0] * (len(ends()) - 1)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert read_status(store / ".git") is None


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_cleanly(store: Path, agent: tuple[str, Path], sig: signal.Signals) -> None:
    cmd, work = agent
    seed(store, {"a.md": ("inbox", awi("acme/one")), "b.md": ("inbox", awi("acme/two"))})
    proc = loop(store, cmd, "--max-parallel", "2", env={"FAKE_SLEEP": "120"})
    wait_for(lambda: len(records(work)) == 2, "two sessions")
    status = read_status(store / ".git")
    assert status is not None and len(status["running"]) == 2
    children = [r["pid"] for r in records(work)]
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    for pid in children:
        assert not os.path.exists(f"/proc/{pid}") or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
    events = journal(store)
    starts = [e for e in events if e["event"] == "start"]
    ends = [e for e in events if e["event"] == "end"]
    assert len(starts) == 2 and {e["id"] for e in ends} == {e["id"] for e in starts}
    assert all(e["stopped"] for e in ends)
    assert not (store / ".git/atk-loop/state.json").exists()
    assert not (store / ".git/atk-loop/loop.lock").exists()
    assert read_status(store / ".git") is None
    with FileLock(str(store / ".git/atk.lock"), timeout=0):  # the store lock is free
        pass


def test_one_loop_per_store_and_bad_options(store: Path, agent: tuple[str, Path]) -> None:
    cmd, work = agent
    seed(store, {"a.md": ("inbox", awi("acme/one"))})
    first = loop(store, cmd, env={"FAKE_SLEEP": "120"})
    try:
        wait_for(lambda: records(work), "the first loop's session")
        second = subprocess.run([str(ATK), "wi", "process-loop", "--run", cmd, "--store", str(store), "--once"],
                                capture_output=True, text=True, check=False, timeout=30)
        assert second.returncode == 1 and "already running" in second.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)
    bad = subprocess.run([str(ATK), "wi", "process-loop", "--run", cmd, "--max-parallel", "0", "--store", str(store)],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "--max-parallel" in bad.stderr
    missing = subprocess.run([str(ATK), "wi", "process-loop", "--store", str(store)], capture_output=True, text=True, check=False)
    assert missing.returncode == 2 and "--run" in missing.stderr


def test_resident_loop_pulls_work_filed_elsewhere(tmp_path: Path, agent: tuple[str, Path]) -> None:
    cmd, work = agent
    store, remote = make_remote_pair(tmp_path)
    other = clone(remote, tmp_path / "other")
    proc = loop(store, cmd, "--interval", "0.1", "--pull-interval", "0.2", env={"FAKE_SLEEP": "0.1"})
    try:
        wait_for(lambda: read_status(store / ".git"), "the loop to start")
        elsewhere = Service(other, clock=Clock(), actor="agent")
        name = add_item(elsewhere, AWI_BODY, target_repo="acme/far", source="test")
        wait_for(lambda: records(work), "a session for the pulled work")
        assert records(work)[0]["files"] == [name]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    assert proc.returncode == 0


def test_loop_status_through_the_service(store: Path) -> None:
    svc = Service(store)
    assert svc.loop_status() is None
    d = store / ".git/atk-loop"
    d.mkdir()
    (d / "state.json").write_text(json.dumps({"pid": os.getpid(), "running": [{"id": "s1", "files": ["a.md"]}], "last_exit": 0}))
    assert svc.loop_status()["running"][0]["id"] == "s1"
    dead = subprocess.Popen(["true"])
    dead.wait()
    (d / "state.json").write_text(json.dumps({"pid": dead.pid, "running": []}))
    assert svc.loop_status() is None  # left by a loop that died: not running


def test_each_queue_loop_starts_its_own_ready_work(store: Path, agent: tuple[str, Path]) -> None:
    """`--queue mq` hands out ready feedback items (planning, editing and hold never); the wi
    loop never hands out mq items. A feedback item waiting on a wi UWI is blocked."""
    cmd, work = agent
    seed(store, {"w.md": ("inbox", awi("acme/one")), "q.md": ("inbox", uwi("acme/one"))})
    feedback = "---\nkind: feedback\ntarget_repo: acme/one\n{}---\n# Feedback\n"
    for state, name, extra in (("inbox", "f.md", ""), ("editing", "fe.md", ""), ("planning", "fp.md", ""),
                               ("hold", "fh.md", ""), ("inbox", "fq.md", "depends_on: [q.md]\n")):
        (store / "mq" / state / name).write_text(feedback.format(extra))
    subprocess.run(["git", "add", "-A"], cwd=store, check=True)
    subprocess.run(["git", "commit", "-qm", "mq"], cwd=store, check=True)
    proc = loop(store, cmd, "--once", "--queue", "mq", env={"FAKE_SLEEP": "0"})
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert [sorted(r["files"]) for r in records(work)] == [["f.md"]]
    (work / "records.jsonl").unlink()
    proc = loop(store, cmd, "--once", env={"FAKE_SLEEP": "0"})
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert [sorted(r["files"]) for r in records(work)] == [["w.md"]]
