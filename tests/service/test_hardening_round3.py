"""Hardening round 3 (issue 38): what an agent's own git, a crafted conflict, a named pipe or
a flood of output could still do. Each test fails without its fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.clikit import ATK, Atk, awi, seed, uwi
from support.storekit import clone, git  # noqa: F401  (used below)

from atk_tui.host.config import is_agent_env
from atk_tui.service import Service

ANSWER = "\n## 回答\n\n- 1: B)\n"


# -- 3. agent identity ---------------------------------------------------------------------------


@pytest.mark.parametrize("var", ["ATK_AGENT_ID", "ATK_LOOP_SESSION"])
def test_an_agent_id_or_a_loop_session_marks_an_agent(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, var: str
) -> None:
    seed(store, {"q.md": ("inbox", uwi())})
    monkeypatch.setenv(var, "worker-2")
    assert is_agent_env()
    assert Service(store).actor == "agent"
    rc, _, err = Atk(store, capsys)("wi", "answer", "q.md", "--choose", "1=A")
    assert rc == 2, err
    assert "user-only" in err or "agent" in err
    assert "## 回答" not in (store / "wi/inbox/q.md").read_text()


def test_an_empty_agent_id_is_no_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATK_AGENT_ID", "")
    assert not is_agent_env()


def test_the_loop_starts_its_sessions_as_agents(store: Path, tmp_path: Path) -> None:
    seed(store, {"one.md": ("inbox", awi("acme/one"))})
    out = tmp_path / "env.json"
    script = tmp_path / "agent.py"
    script.write_text(
        "import json, os, sys\n"
        "keys = ('AI_AGENT', 'ATK_LOOP_SESSION')\n"
        f"json.dump({{k: os.environ.get(k) for k in keys}}, open({str(out)!r}, 'w'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("AI_AGENT", "CLAUDECODE")}
    proc = subprocess.run(
        [str(ATK), "wi", "process-loop", "--run", f"{sys.executable} {script}", "--store", str(store), "--once"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(out.read_text())
    assert seen["AI_AGENT"] == "1"
    assert seen["ATK_LOOP_SESSION"]


# -- 2. rm -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [("q.md", uwi() + ANSWER), ("x.md", awi() + "\n## ユーザーコメント\n\nkeep the old API\n")],
)
def test_an_agent_may_not_rm_an_item_holding_the_persons_section(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str, text: str
) -> None:
    seed(store, {name: ("inbox", text)})
    monkeypatch.setenv("AI_AGENT", "1")
    rc, _, err = Atk(store, capsys)("wi", "rm", name)
    assert rc == 2, err
    assert "user-only" in err or "agents may not remove" in err
    assert (store / "wi/inbox" / name).exists()
    # trimmed by hand first: the committed section still counts
    path = store / "wi/inbox" / name
    path.write_text(text.split("\n## ")[0] + "\n")
    rc, _, err = Atk(store, capsys)("wi", "rm", name)
    assert rc == 2, err
    monkeypatch.delenv("AI_AGENT")
    git(store, "checkout", "--", ".")
    rc, _, err = Atk(store, capsys)("wi", "rm", name)
    assert rc == 0, err  # the person removes it
