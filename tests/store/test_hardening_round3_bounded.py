"""Issue 38, point 5: every file atk reads under `.git`, the config file and the store is
opened only if it is a regular file, without blocking: a named pipe planted at any of them
must not hang a command (each runs as a real process with a time limit that would catch it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.clikit import ATK, seed, uwi
from support.storekit import git

from atk_tui.cache import files
from atk_tui.host.regular import NotRegular, read_regular

COMMANDS = (
    ("wi", "list"),
    ("wi", "list", "--status", "ready", "--json"),
    ("wi", "show", "q.md"),
    ("wi", "answer", "q.md", "--choose", "1=A"),
    ("wi", "hold", "q.md"),
    ("elsewhere", "list"),
)


def run_atk(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # a blocked open would hang past this limit: TimeoutExpired fails the test
    return subprocess.run([str(ATK), *args, "--store", str(store)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "ATK_FRESHEN_WINDOW": "0"}, check=False)  # fmt: skip


def fifo(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    os.mkfifo(path)


@pytest.mark.parametrize(
    "where",
    [
        "atk-cache/items-active",
        "atk-remote-seen.json",
        "atk-shown.json",
        "atk-remote-pushed",
        "config",
    ],
)
def test_a_named_pipe_hangs_no_command(tmp_path: Path, remote_store: tuple[Path, Path], where: str) -> None:
    store, _remote = remote_store
    seed(store, {"q.md": ("inbox", uwi())})
    git(store, "push", "-q")
    assert run_atk(store, "wi", "list").returncode == 0  # the caches made first
    assert run_atk(store, "wi", "show", "q.md").returncode == 0
    if where == "config":
        target = Path(os.environ["XDG_CONFIG_HOME"]) / "atk" / "config.toml"
    elif where == "atk-cache/items-active":
        target = files.path_of(store / ".git", "items-active")
        assert target.exists()
    else:
        target = store / ".git" / where
    fifo(target)
    for args in COMMANDS:
        proc = run_atk(store, *args)
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
        if where == "config":  # read by what needs it: then a clear refusal
            assert proc.returncode == 0 or "not a regular file" in proc.stderr, (args, proc.stderr)
        elif args[:2] == ("wi", "list"):
            assert proc.returncode == 0, (args, proc.stderr)


def test_read_regular_refuses_a_pipe_and_a_device_without_blocking(tmp_path: Path) -> None:
    pipe = tmp_path / "p"
    os.mkfifo(pipe)
    with pytest.raises(NotRegular):
        read_regular(pipe)
    with pytest.raises(NotRegular):
        read_regular("/dev/zero", follow=True)
    (tmp_path / "f").write_bytes(b"x" * 10)
    assert read_regular(tmp_path / "f", 4) == b"xxxx"
    (tmp_path / "link").symlink_to(tmp_path / "f")
    with pytest.raises(OSError):
        read_regular(tmp_path / "link")
    assert read_regular(tmp_path / "link", follow=True) == b"x" * 10


# -- gh's output: a size limit and a depth limit ---------------------------------------------------


def _fake_gh(tmp_path: Path, body: str) -> str:
    script = tmp_path / "gh"
    script.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    script.chmod(0o755)
    return str(script)


def test_an_endless_gh_stream_is_cut_at_the_limit_and_gh_killed(tmp_path: Path) -> None:
    from atk_tui.host.procs import Children
    from atk_tui.service.elsewhere.afkkit import GH_MAX_OUTPUT, Gh, GhProblem

    marker = tmp_path / "pid"
    program = _fake_gh(tmp_path, f"import os\nopen({str(marker)!r}, 'w').write(str(os.getpid()))\n"
                                 "chunk = b'x' * 65536\nwhile True:\n    sys.stdout.buffer.write(chunk)")  # fmt: skip
    gh = Gh(Children(), timeout=120, cwd=tmp_path, program=program)
    with pytest.raises(GhProblem) as got:
        gh.json(["issue", "list"])
    assert f"more than {GH_MAX_OUTPUT >> 20} MiB" in got.value.message
    pid = int(marker.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed (and reaped) with its process group


@pytest.mark.parametrize("depth", [200_000, 100])
def test_deep_gh_json_is_refused_with_a_message(tmp_path: Path, depth: int) -> None:
    from atk_tui.host.procs import Children
    from atk_tui.service.elsewhere.afkkit import Gh, GhProblem

    program = _fake_gh(tmp_path, f"sys.stdout.write('[' * {depth} + ']' * {depth})")
    gh = Gh(Children(), timeout=60, cwd=tmp_path, program=program)
    with pytest.raises(GhProblem) as got:
        gh.json(["issue", "list"])
    assert "nested deeper" in got.value.message
    ok = Gh(Children(), timeout=60, cwd=tmp_path, program=_fake_gh(tmp_path, "print('[{\"number\": 1}]')"))
    assert ok.json(["issue", "list"]) == [{"number": 1}]
