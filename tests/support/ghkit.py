"""A fake `gh` first on the PATH (`fake_gh.py`), with recorded `--json` output, for the tests of
the Elsewhere view and `atk elsewhere` (issue 31). No test reaches the network: without this
fixture `ATK_GH` names a program that does not exist (tests/conftest.py), so gh is "not
installed" for every other test.

`afkkit_runs.json` (gh_recorded/) was written by hand after gh's documented `--json` fields
(api/query_builder.go in cli/cli): two repositories, `acme/web` with one issue of each waiting
label (a stop report on each, an in-progress issue still at work, an in-review issue with its PR
and one without), a ready queue with priority labels and a stacked issue; `acme/api` with a ready
queue without any priority label.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "gh_recorded" / "afkkit_runs.json"
#: what the recorded scenario shows: the waiting rows (repo#number: label) and each ready queue's order
WAITING = {"acme/web#12": "needs-planning", "acme/web#15": "blocked", "acme/web#18": "in-progress",
           "acme/web#30": "in-review", "acme/web#22": "in-review"}  # fmt: skip
READY_ORDER = {"acme/web": [42, 45, 40, 44, 41], "acme/api": [8, 7]}
#: the commands that only read (what every call must be)
READS = (("issue", "list"), ("issue", "view"), ("pr", "list"), ("pr", "view"))


def recorded() -> dict[str, Any]:
    return json.loads(RECORDED.read_text(encoding="utf-8"))["responses"]


class FakeGh:
    """`gh` on the PATH for this test: `scenario(...)` sets what it answers, `calls()` what it was
    asked, `release()` lets a `gate`d answer go."""

    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.dir = tmp / "fake-gh"
        (self.dir / "bin").mkdir(parents=True)
        launcher = self.dir / "bin" / "gh"
        launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{HERE / "fake_gh.py"}" "$@"\n', encoding="utf-8")
        launcher.chmod(0o755)
        self.gate = self.dir / "released"
        monkeypatch.setenv("ATK_FAKE_GH_DIR", str(self.dir))
        monkeypatch.setenv("PATH", f"{self.dir / 'bin'}:{os.environ['PATH']}")
        monkeypatch.delenv("ATK_GH", raising=False)  # gh is found on the PATH, as for a person
        self.scenario()

    def scenario(self, responses: dict[str, Any] | None = None, *, mode: str = "ok", gated: bool = False,
                 failures: dict[str, str] | None = None, message: str | None = None, raw: dict[str, str] | None = None) -> None:  # fmt: skip
        doc: dict[str, Any] = {"responses": recorded() if responses is None else responses, "mode": mode}
        if gated:
            doc["gate"] = str(self.gate)
        if failures:
            doc["failures"] = failures
        if message:
            doc["message"] = message
        if raw:
            doc["raw"] = raw
        (self.dir / "scenario.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")

    def release(self) -> None:
        self.gate.touch()

    def calls(self) -> list[list[str]]:
        path = self.dir / "calls.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def pids(self) -> list[int]:
        path = self.dir / "pids"
        return [int(n) for n in path.read_text(encoding="utf-8").split()] if path.exists() else []

    @staticmethod
    def running(pid: int) -> bool:
        """Whether the process `pid` still runs (a zombie does not)."""
        try:
            state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        return state != "Z"

    def reset_calls(self) -> None:
        (self.dir / "calls.jsonl").unlink(missing_ok=True)

    def only_reads(self) -> bool:
        """Every call was a read (list or view; `--web` is a view)."""
        return all(tuple(c[:2]) in READS for c in self.calls())


@pytest.fixture
def fake_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGh:
    return FakeGh(tmp_path, monkeypatch)


def seed_repos(svc: Any, repos: tuple[str, ...] = ("acme/web", "acme/api", "local-notes")) -> list[str]:
    """One active item per `target_repo` (`local-notes` names no GitHub repository)."""
    from support.storekit import add_item

    return [add_item(svc, target_repo=repo) for repo in repos]


def write_config(text: str) -> Path:
    """`$XDG_CONFIG_HOME/atk/config.toml` with `text` (the tests' own config folder)."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "atk" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
