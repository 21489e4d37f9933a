"""`atk` in tests: in process through `cli.run` (`Atk`), the console script (`ATK`), and
item texts seeded straight into a store's folders."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from atk_tui.cli.main import run
from support.environ import patched_environ
from support.storekit import AWI_BODY, UWI_BODY, git

ATK = Path(sys.executable).with_name("atk")


class Atk:
    """`atk ... --store <store>` in process: (exit code, stdout, stderr)."""

    def __init__(self, store: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.store = store
        self.capsys = capsys

    def __call__(self, *args: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        try:
            rc = run([*args, "--store", str(self.store)])
        except SystemExit as exc:  # argparse's usage errors
            rc = exc.code if isinstance(exc.code, int) else 1
        out, err = self.capsys.readouterr()
        return rc, out, err


def seed(root: Path, files: dict[str, tuple[str, str]]) -> None:
    for name, (state, text) in files.items():
        (root / "wi" / state / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "seed")


def awi(repo: str = "acme/webapp", extra: str = "", body: str = AWI_BODY) -> str:
    return f"---\nkind: awi\ntarget_repo: {repo}\n{extra}---\n{body}"


def uwi(repo: str = "acme/webapp", extra: str = "", body: str = UWI_BODY) -> str:
    return f"---\nkind: uwi\ntarget_repo: {repo}\n{extra}---\n{body}"


def last_commit(root: Path) -> str:
    return git(root, "log", "-1", "--format=%s|%(trailers:key=Atk-Actor,valueonly)").strip()


class Clone(Atk):
    """`atk ... --store <clone>` in process as one side of a shared remote: the agent's clone
    (run with `CLAUDECODE=1`, an agent environment) or the person's (no agent variable)."""

    def __init__(self, store: Path, capsys: pytest.CaptureFixture[str], *, agent: bool) -> None:
        super().__init__(store, capsys)
        self.agent = agent

    def __call__(self, *args: str) -> tuple[int, str, str]:
        with patched_environ(CLAUDECODE="1" if self.agent else None):
            return super().__call__(*args)

    def shell(self, line: str) -> tuple[int, str, str]:
        """`line` through a real shell (`$(atk config get private_notes)` expands as it does for
        an agent), the console script on PATH, this clone as the configured store."""
        env = {**os.environ, "PATH": f"{ATK.parent}{os.pathsep}{os.environ.get('PATH', '')}",
               "ATK_PRIVATE_NOTES": str(self.store)}  # fmt: skip
        env.pop("CLAUDECODE", None)
        if self.agent:
            env["CLAUDECODE"] = "1"
        proc = subprocess.run(["bash", "-c", line], capture_output=True, text=True, env=env, check=False)
        return proc.returncode, proc.stdout, proc.stderr


def typed(line: str, *fill: tuple[str, str | Sequence[str]], then: Sequence[str] = ()) -> list[str]:
    """A seed's command line exactly as the seed writes it (`atk mq show ... --target-repo=
    --skip-pull`), its placeholders filled: each (placeholder, value) replaces the first
    occurrence of the placeholder, a flag written `--flag=` keeps its flag and gets the value
    after it, a list fills one placeholder with several words (`...`); `then`: words the seed
    leaves to the reader after the command (`atk wi show ` and the filename). Returns the
    words after `atk`."""
    text = line
    for placeholder, value in fill:
        assert placeholder in text, (placeholder, line)
        words = " ".join(shlex.quote(v) for v in value) if not isinstance(value, str) else shlex.quote(value)
        text = text.replace(placeholder, (placeholder if placeholder.endswith("=") else "") + words, 1)
    argv = shlex.split(text) + list(then)
    assert argv[0] == "atk", line
    return argv[1:]


#: what every write says (README "Say what was written"): exactly this one line
WRITE_LINE = re.compile(r"(?P<verb>[a-z-]+(?: commit)?) (?P<file>\S+(?: items| plans)?) \((?P<sha>[0-9a-f]{10})\)(?: pushed| not pushed: .+)")


def write_line(text: str) -> re.Match[str]:
    """The one write line in `text` (a command's stdout, or an add/edit's stderr beside its
    notes and warnings); fails unless exactly one line matches and it is the whole line."""
    found = [m for line in text.splitlines() if (m := WRITE_LINE.fullmatch(line))]
    assert len(found) == 1, text
    return found[0]
