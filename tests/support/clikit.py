"""`atk` in tests: in process through `cli.run` (`Atk`), the console script (`ATK`), and
item texts seeded straight into a store's folders."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from atk_tui.cli.main import run
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
