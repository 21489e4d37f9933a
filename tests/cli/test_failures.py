"""How `atk` and `atk-tui` fail (issue 44): one exit code per kind of failure, the same for
both binaries and as docs/agent-guide.md's table says; `atk init` in a code repository; the
hint for a path that is no store; `--serve` on a busy port; the demo store removed when the
terminal closes (SIGHUP) or the process is told to stop (SIGTERM)."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.storekit import git

BIN = Path(sys.executable).parent
ATK, TUI = str(BIN / "atk"), str(BIN / "atk-tui")
ROOT = Path(__file__).resolve().parents[2]


def run(*argv: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, env=env, cwd=cwd, timeout=120, stdin=subprocess.DEVNULL)


# --- one code per kind ---------------------------------------------------------------------


def documented_codes() -> dict[str, str]:
    text = (ROOT / "docs" / "agent-guide.md").read_text(encoding="utf-8")
    body = text.split("\n## Exit codes\n", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| (\d+) \| (.+) \|$", body, re.MULTILINE))


def test_the_agent_guide_and_help_document_the_same_codes() -> None:
    codes = documented_codes()
    assert set(codes) == {"0", "1", "2", "3", "130"}, codes  # 3: wait's no such item (issue 39)
    assert "no store" in codes["1"] and "port" in codes["1"] and "usage" in codes["2"]
    helptext = run(ATK, "--help").stdout
    for code in codes:
        assert re.search(rf"^  {code} ", helptext, re.MULTILINE), f"atk --help does not say what exit {code} is"
    assert "exit codes" in run(TUI, "--help").stdout


@pytest.mark.parametrize("where", ["nonexistent", "empty-file", "other-files"])
def test_a_missing_store_is_exit_1_for_every_command_of_both_binaries(tmp_path: Path, where: str) -> None:
    path = tmp_path / where
    if where == "empty-file":
        path.write_text("")
    elif where == "other-files":
        path.mkdir()
        (path / "notes.txt").write_text("x")
    for argv in ([ATK, "wi", "list"], [ATK, "wi", "show", "x"], [ATK, "mq", "list"], [TUI], [TUI, "--serve", "--port", "1"]):
        proc = run(*argv, "--store", str(path))
        assert proc.returncode == 1, (argv, proc.returncode, proc.stderr)
        assert "is not an atk store" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_no_store_configured_is_exit_1_too(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ATK_PRIVATE_NOTES"}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "cfg"), HOME=str(tmp_path))
    assert {run(*argv, env=env).returncode for argv in ([ATK, "wi", "list"], [ATK, "wi", "hold", "x"], [TUI])} == {1}


def test_usage_errors_are_exit_2_for_both(store: Path) -> None:
    assert run(ATK, "wi", "list", "--bogus", "--store", str(store)).returncode == 2
    assert run(ATK, "wi", "hold").returncode == 2
    assert run(TUI, "--bogus").returncode == 2
    assert run(TUI, "--port", "9").returncode == 2


def test_a_refusal_is_exit_1(store: Path) -> None:
    proc = run(ATK, "wi", "hold", "no-such-item", "--store", str(store))
    assert proc.returncode == 1, proc.stderr


# --- which hint for a path that is no store ------------------------------------------------


def test_a_folder_of_other_files_is_not_told_to_run_atk_init_on_it(tmp_path: Path) -> None:
    (tmp_path / "photo.jpg").write_text("x")
    err = run(ATK, "--store", str(tmp_path), "wi", "list").stderr
    assert f"atk init {tmp_path}" not in err and "folder of other files" in err and "atk init ~/notes" in err


def test_a_code_repository_is_named_as_one(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "setup.py").write_text("x")
    err = run(ATK, "--store", str(tmp_path), "wi", "list").stderr
    assert "git repository of other files" in err and f"atk init --force {tmp_path}" in err


def test_an_empty_or_missing_folder_is_told_atk_init(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for name in ("empty", "missing"):
        err = run(ATK, "--store", str(tmp_path / name), "wi", "list").stderr
        assert f"atk init {tmp_path / name}" in err, err


# --- atk init in a code repository ----------------------------------------------------------


def test_init_refuses_a_git_repository_with_other_files_unless_forced(tmp_path: Path) -> None:
    repo = tmp_path / "webapp"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README.md").write_text("# webapp\n")
    (repo / "src").mkdir()
    proc = run(ATK, "init", str(repo))
    assert proc.returncode == 1
    assert "git repository that holds other files (README.md, src)" in proc.stderr
    assert "atk init --force" in proc.stderr
    assert sorted(os.listdir(repo)) == [".git", "README.md", "src"], "refused, yet it changed something"
    assert git(repo, "rev-list", "--all").strip() == ""
    proc = run(ATK, "init", "--force", str(repo))
    assert proc.returncode == 0, proc.stderr
    assert (repo / "wi" / "inbox").is_dir() and (repo / "mq" / "planning").is_dir()
    assert git(repo, "log", "--format=%s").strip() == "atk: init store"


def test_init_still_takes_a_new_an_empty_or_a_bare_git_init_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "fresh").mkdir()
    git(tmp_path / "fresh", "init", "-q")
    for name in ("new", "empty", "fresh"):
        proc = run(ATK, "init", str(tmp_path / name))
        assert proc.returncode == 0 and "initialised store" in proc.stdout, (name, proc.stderr)
    proc = run(ATK, "init", str(tmp_path / "fresh"))
    assert proc.returncode == 0 and "already a store" in proc.stdout


def test_init_help_describes_path_and_what_it_makes() -> None:
    out = run(ATK, "init", "--help").stdout
    assert re.search(r"^  path +\S", out, re.MULTILINE), "path has no description"
    assert "five" not in out
    for word in ("inbox", "processing", "hold", "adopted", "rejected", "editing", "planning", "plans/", "--force"):
        assert word in out, word


# --- --serve on a busy port ----------------------------------------------------------------


def test_serve_on_a_busy_port_says_so_in_one_line(store: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = run(TUI, "--serve", "--store", str(store), "--port", str(port))
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"port {port}" in lines[0] and "already in use" in lines[0] and "--port" in lines[0]


# --- the demo store goes with the terminal --------------------------------------------------


def _demo_dirs(tmp: Path) -> list[Path]:
    return [p for p in tmp.iterdir() if p.name.startswith("atk-demo-")]


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
def test_the_demo_store_is_removed_when_the_terminal_closes(tmp_path: Path, sig: int) -> None:
    """The real dashboard on a pseudo-terminal: once it has drawn, the terminal hangs up (or
    a kill arrives); the demo store and its remote are gone after it exits."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "TERM": "xterm-256color"}
    master, slave = pty.openpty()
    proc = subprocess.Popen([TUI, "--demo"], stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True,
                            start_new_session=True)  # fmt: skip
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline and not (b"demo store at" in seen and b"inbox" in seen.split(b"demo store at", 1)[1]):
            if select.select([master], [], [], 0.5)[0]:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
            assert proc.poll() is None, seen[-2000:]
        assert _demo_dirs(tmp), "no demo store was made"
        proc.send_signal(sig)
        while proc.poll() is None and time.monotonic() < deadline:
            if select.select([master], [], [], 0.2)[0]:
                try:
                    os.read(master, 65536)
                except OSError:
                    pass
        assert proc.poll() is not None, "atk-tui did not exit"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert _demo_dirs(tmp) == [], "the demo store was left behind"
