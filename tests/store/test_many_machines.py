"""One store, many machines (SPEC §15): reads bring in what the remote has, cheaply and
bounded in time, never rewriting local work; `atk wi wait` returns when the person answers.

Every test runs real clones of one bare remote, reached as a file path and, where the
transport matters, through `git daemon` on 127.0.0.1. The CLI runs as the console script
(the warm `atk wi list` path included), an agent's clone with CLAUDECODE=1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.remotes import SilentRemote, bare_with_clones, git_daemon, point_at
from support.storekit import UWI_BODY, git

ATK = str(Path(sys.executable).with_name("atk"))


def atk(root: Path, *args: str, agent: bool = False, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "ATK_READ_WINDOW": "0", **env}
    if agent:
        full["CLAUDECODE"] = "1"
    return subprocess.run([ATK, *args, "--store", str(root)], capture_output=True, text=True, env=full, timeout=timeout)


def add_uwi(root: Path) -> str:
    out = atk(root, "wi", "add", "--kind", "uwi", "--target-repo", "acme/webapp", "--source", "add-uwi", UWI_BODY, agent=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()[0].strip()


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture(params=["file", "git-daemon"])
def clones(request: pytest.FixtureRequest, tmp_path: Path):
    """(remote, {"a": the person's clone, "b": an agent's clone}) over a file remote and
    over git:// from a real `git daemon`."""
    remote, cl = bare_with_clones(tmp_path)
    if request.param == "file":
        yield remote, cl
        return
    with git_daemon(tmp_path) as url:
        point_at(cl, f"{url}/{remote.name}")
        yield remote, cl


def test_an_answer_made_on_one_clone_is_read_on_the_other(clones) -> None:
    _, c = clones
    uwi = add_uwi(c["b"])  # the agent files its question and pushes
    assert atk(c["a"], "wi", "answer", uwi, "--choose", "1=A", "--text", "go strict").returncode == 0
    # the agent polls with plain reads, as confirmation-and-uwi says
    shown = atk(c["b"], "wi", "show", uwi, agent=True)
    assert shown.returncode == 0, shown.stderr
    assert "go strict" in shown.stdout and "## 回答" in shown.stdout
    listed = [json.loads(line) for line in atk(c["b"], "wi", "list", agent=True).stdout.splitlines()]
    assert [(r["filename"], r["answered"]) for r in listed] == [(uwi, True)]
    assert "stale" not in listed[0]
    assert head(c["a"]) == head(c["b"])


def test_skip_pull_reads_only_the_local_copy(clones) -> None:
    _, c = clones
    uwi = add_uwi(c["b"])
    atk(c["a"], "wi", "answer", uwi, "--choose", "1=B")
    shown = atk(c["b"], "wi", "show", uwi, "--skip-pull", agent=True)
    assert shown.returncode == 0 and "## 回答" not in shown.stdout
    assert head(c["a"]) != head(c["b"])


def test_the_warm_listing_sees_a_new_item_from_another_clone(clones) -> None:
    _, c = clones
    first = add_uwi(c["a"])
    atk(c["b"], "wi", "list", "--json")  # fills b's listing cache
    atk(c["b"], "wi", "list", "--json")  # ... and answers from it
    second = add_uwi(c["a"])
    names = [json.loads(line)["filename"] for line in atk(c["b"], "wi", "list", "--json").stdout.splitlines()]
    assert sorted(names) == sorted([first, second])
    assert atk(c["b"], "wi", "list", "--count").stdout.strip() == "2"


def test_every_read_command_pulls(tmp_path: Path) -> None:
    _, c = bare_with_clones(tmp_path)
    uwi = add_uwi(c["b"])
    cases = [
        ("wi", "log", uwi, "--json"),
        ("wi", "stats", "--json"),
        ("mq", "list", "--json"),
        ("agents", "notices", "--json"),
        ("wi", "conflicts"),
    ]
    for args in cases:
        before = head(c["b"])
        made = atk(c["a"], "agents", "notify", "--source", "process-wi", f"note for {args[1]}", agent=True)
        assert made.returncode == 0, made.stderr
        out = atk(c["b"], *args, agent=True)
        assert out.returncode == 0, (args, out.stderr)
        assert head(c["b"]) == head(c["a"]) != before, args


def test_a_dead_remote_costs_a_warning_not_the_answer(tmp_path: Path) -> None:
    _, c = bare_with_clones(tmp_path)
    uwi = add_uwi(c["b"])
    git(c["b"], "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    shown = atk(c["b"], "wi", "show", uwi, "--json", agent=True)
    assert shown.returncode == 0
    assert shown.stderr.count("may be stale") == 1 and "gone.git" in shown.stderr
    assert json.loads(shown.stdout)["stale"].startswith("could not reach the remote")
    for args in (("wi", "list"), ("wi", "list", "--json"), ("wi", "list", "--count")):
        for _ in range(2):  # cold, then from the listing cache
            out = atk(c["b"], *args, agent=True)
            assert out.returncode == 0 and out.stderr.count("may be stale") == 1, (args, out.stderr)
            if "--count" in args:
                assert out.stdout.strip() == "1"
            else:
                records = [json.loads(line) for line in out.stdout.splitlines()]
                assert [r["filename"] for r in records] == [uwi]
                assert all("could not reach the remote" in r["stale"] for r in records)


def test_a_remote_that_never_answers_is_given_up_on(tmp_path: Path) -> None:
    _, c = bare_with_clones(tmp_path)
    uwi = add_uwi(c["b"])
    silent = SilentRemote()
    try:
        git(c["b"], "remote", "set-url", "origin", silent.url)
        out = atk(c["b"], "wi", "show", uwi, agent=True, ATK_READ_TIMEOUT="1", timeout=60)
    finally:
        silent.close()
    assert out.returncode == 0 and "Which email validation" in out.stdout
    assert "the remote did not answer within 1 s" in out.stderr


def test_the_freshness_window_bounds_what_polling_costs_the_remote(tmp_path: Path) -> None:
    """Reads within the window ask the remote once; with a window of 0, every time."""
    _, c = bare_with_clones(tmp_path)
    uwi = add_uwi(c["b"])
    log = tmp_path / "asked.log"
    wrapper = tmp_path / "upload-pack"
    wrapper.write_text(f"#!/bin/sh\necho asked >> {log}\nexec git-upload-pack \"$@\"\n")
    wrapper.chmod(0o755)
    git(c["b"], "config", "remote.origin.uploadpack", str(wrapper))
    for _ in range(5):
        assert atk(c["b"], "wi", "show", uwi, agent=True, ATK_READ_WINDOW="600").returncode == 0
    assert log.read_text().count("asked") == 1
    for _ in range(3):
        assert atk(c["b"], "wi", "show", uwi, agent=True, ATK_READ_WINDOW="0").returncode == 0
    assert log.read_text().count("asked") == 4


def test_a_read_fetches_only_when_the_remote_moved(tmp_path: Path) -> None:
    _, c = bare_with_clones(tmp_path)
    uwi = add_uwi(c["b"])
    fetched = tmp_path / "fetch.log"
    atk(c["b"], "wi", "show", uwi, agent=True)
    env = {"GIT_TRACE": str(fetched)}
    atk(c["b"], "wi", "show", uwi, agent=True, **env)
    trace = fetched.read_text()
    assert "ls-remote" in trace and " fetch" not in trace


def test_a_read_keeps_uncommitted_work_and_says_why_it_did_not_pull(tmp_path: Path) -> None:
    _, c = bare_with_clones(tmp_path)
    uwi = add_uwi(c["a"])
    atk(c["b"], "wi", "list")
    mine = c["b"] / "wi" / "inbox" / uwi
    text = mine.read_text() + "\nmy unsaved note\n"
    mine.write_text(text)
    assert atk(c["a"], "wi", "answer", uwi, "--choose", "1=A").returncode == 0
    out = atk(c["b"], "wi", "show", uwi, agent=True)
    assert out.returncode == 0 and "uncommitted changes" in out.stderr
    assert mine.read_text() == text
    assert not (c["b"] / ".git" / "rebase-merge").exists() and not (c["b"] / ".git" / "MERGE_HEAD").exists()


def test_a_read_never_rebases_unpushed_commits(tmp_path: Path) -> None:
    _, c = bare_with_clones(tmp_path)
    uwi = add_uwi(c["a"])
    atk(c["b"], "wi", "list")
    assert atk(c["b"], "wi", "hold", uwi, "--skip-push", agent=True).returncode == 0
    local = head(c["b"])
    assert atk(c["a"], "wi", "add", "--kind", "awi", "--target-repo", "acme/webapp", "# Another").returncode == 0
    out = atk(c["b"], "wi", "list", "--json", agent=True)
    assert out.returncode == 0 and "a read never rebases" in out.stderr
    assert head(c["b"]) == local  # no rebase, no merge commit
    assert git(c["b"], "rev-list", "--count", "--merges", "HEAD").strip() == "0"
    assert all("stale" in json.loads(line) for line in out.stdout.splitlines())
    # the next write brings both sides together and pushes
    assert atk(c["b"], "wi", "commit", agent=True).returncode == 0
    assert atk(c["b"], "wi", "list", "--count").stdout.strip() == "2"


def test_a_read_does_not_pull_into_a_rebase_in_progress(tmp_path: Path) -> None:
    _, c = bare_with_clones(tmp_path)
    uwi = add_uwi(c["a"])
    atk(c["b"], "wi", "list")
    (c["b"] / ".git" / "rebase-merge").mkdir()
    atk(c["a"], "wi", "answer", uwi, "--choose", "1=A")
    before = head(c["b"])
    out = atk(c["b"], "wi", "show", uwi, agent=True)
    assert out.returncode == 0 and "rebase" in out.stderr
    assert head(c["b"]) == before


def test_wait_returns_when_the_person_answers_on_another_clone(clones) -> None:
    _, c = clones
    uwi = add_uwi(c["b"])
    env = {**os.environ, "CLAUDECODE": "1"}
    waiter = subprocess.Popen(
        [ATK, "wi", "wait", uwi, "--timeout", "120", "--store", str(c["b"])],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert atk(c["a"], "wi", "answer", uwi, "--choose", "1=C", "--text", "by context").returncode == 0
        out, err = waiter.communicate(timeout=120)
    finally:
        waiter.kill()
    assert waiter.returncode == 0, err
    assert "by context" in out and "## 回答" in out


def test_wait_gives_up_naming_what_is_still_open(tmp_path: Path) -> None:
    _, c = bare_with_clones(tmp_path)
    uwi = add_uwi(c["b"])
    out = atk(c["b"], "wi", "wait", uwi, "--timeout", "0.2", agent=True)
    assert out.returncode == 1 and f"still waiting for an answer to {uwi}" in out.stderr
    assert out.stdout == ""


def test_wait_refuses_what_is_not_a_question(tmp_path: Path) -> None:
    _, c = bare_with_clones(tmp_path)
    made = atk(c["b"], "wi", "add", "--kind", "awi", "--target-repo", "acme/webapp", "--source", "add-awi", "# Do it", agent=True)
    awi = made.stdout.splitlines()[0].strip()
    out = atk(c["b"], "wi", "wait", awi, "--timeout", "1", agent=True)
    assert out.returncode == 2 and "not a UWI" in out.stderr


def test_process_loop_sees_work_filed_on_another_clone(tmp_path: Path) -> None:
    _, c = bare_with_clones(tmp_path)
    atk(c["b"], "wi", "list")
    made = atk(c["a"], "wi", "add", "--kind", "awi", "--target-repo", "acme/webapp", "--source", "add-awi", "# Ship it", agent=True)
    awi = made.stdout.splitlines()[0].strip()
    seen = tmp_path / "seen.txt"
    out = atk(c["b"], "wi", "process-loop", "--once", "--run", f"echo $ATK_READY_FILES > {seen}", agent=True)
    assert out.returncode == 0, out.stderr
    assert awi in seen.read_text()


def test_the_read_limits_come_from_the_environment_then_the_config_file(monkeypatch: pytest.MonkeyPatch) -> None:
    from atk_tui.store.freshen import read_limits

    monkeypatch.delenv("ATK_READ_WINDOW", raising=False)
    monkeypatch.delenv("ATK_READ_TIMEOUT", raising=False)
    assert read_limits({}) == (2.0, 3.0)
    assert read_limits({"git": {"read_window": 0, "read_timeout": 1.5}}) == (0.0, 1.5)
    assert read_limits({"git": {"read_window": -1, "read_timeout": 0, "x": True}}) == (2.0, 3.0)
    monkeypatch.setenv("ATK_READ_WINDOW", "7")
    monkeypatch.setenv("ATK_READ_TIMEOUT", "nonsense")
    assert read_limits({"git": {"read_timeout": 4}}) == (7.0, 4.0)


def test_a_fetch_another_read_made_first_is_not_a_failure(tmp_path: Path) -> None:
    """Reads on one clone run side by side (agents of one clone, the loop's sessions, the
    dashboard): when this read's fetch fails because another process's fetch of the same tip
    got there first (git: "cannot lock ref … but expected …"), the read carries on from what
    that fetch brought, without a stale warning. Here the fetch fails outright just after
    another process fetched the tip: the same case, made deterministic."""
    _, c = bare_with_clones(tmp_path)
    uwi = add_uwi(c["b"])
    atk(c["a"], "wi", "list")
    assert atk(c["a"], "wi", "answer", uwi, "--choose", "1=A", "--text", "raced").returncode == 0
    count = tmp_path / "calls"
    # the second upload-pack (this read's fetch, after its ls-remote) lets another process
    # fetch the same tip into this clone, then fails this one
    wrapper = tmp_path / "upload-pack"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'echo x >> "{count}"\n'
        f'if [ "$(wc -l < "{count}")" -eq 2 ]; then git -C "{c["b"]}" fetch -q origin; exit 1; fi\n'
        'exec git-upload-pack "$@"\n'
    )
    wrapper.chmod(0o755)
    git(c["b"], "config", "remote.origin.uploadpack", str(wrapper))
    shown = atk(c["b"], "wi", "show", uwi, agent=True)
    assert count.read_text().count("x") == 3  # ls-remote, the fetch, the other process's fetch
    assert shown.returncode == 0 and "may be stale" not in shown.stderr, shown.stderr
    assert "raced" in shown.stdout
    assert head(c["b"]) == head(c["a"])
