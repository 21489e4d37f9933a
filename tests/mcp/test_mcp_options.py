"""`atk mcp`'s own options, on a store with no remote: `--source` on what it adds and notifies,
the agent id from `ATK_AGENT_ID`, an agent even when started outside an agent environment, a bad
id refused before serving, and the planning path of the feedback queue (`mq_add` with
`state: planning`, `mq_finish_planning`)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.mcpkit import ATK, McpAgent, server_env
from support.storekit import AWI_BODY, git

from atk_tui.service.notices import NOTICES_DIR
from atk_tui.store import init_store


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, McpAgent]]:
    tmp = tmp_path_factory.mktemp("mcp-local")
    root, _ = init_store(tmp / "store")
    home = tmp / "home"
    home.mkdir()
    env = server_env(home, ATK_AGENT_ID="from-env-7")
    with McpAgent(root, home, args=("--source", "agent-toolkit:process-wi"), env=env) as agent:
        yield root, agent


def test_it_adds_as_an_agent_with_its_source_and_id(local: tuple[Path, McpAgent]) -> None:
    root, agent = local
    out = agent.ok("wi_add", {"body": AWI_BODY, "target_repo": "acme/webapp"})
    assert out["records"][0]["source"] == "process-wi"  # a plugin-qualified source is stored bare
    assert out["message"].endswith("not pushed: no remote (no upstream branch is configured)")
    trailers = git(
        root,
        "log",
        "-1",
        "--format=%(trailers:key=Atk-Actor,valueonly,separator=)/%(trailers:key=Atk-Agent,valueonly,separator=)",
    )
    assert trailers.strip() == "agent/from-env-7"
    note = agent.ok("notify", {"message": "done for today"})
    (name,) = note["files"]
    assert "source: process-wi" in (root / NOTICES_DIR / name).read_text(encoding="utf-8")
    assert git(root, "log", "-1", "--format=%s").strip() == f"atk: notify {name}"


def test_the_feedback_queues_planning_path(local: tuple[Path, McpAgent]) -> None:
    _, agent = local
    p = agent.ok("mq_add", {"body": "# Planned: one validator\n", "target_repo": "acme/webapp", "state": "planning"})
    (name,) = p["files"]
    assert p["records"][0]["state"] == "planning"
    assert name not in {r["filename"] for r in agent.ok("mq_list")["records"]}  # planning: seen only by name
    assert name in {r["filename"] for r in agent.ok("mq_list", {"status": "planning"})["records"]}
    plan = "$(atk config get private_notes)/plans/2026/12/one-validator.md"
    done = agent.ok("mq_finish_planning", {"filenames": [name], "plan_file": plan})["records"][0]
    assert (done["state"], done["plan_file"], done["type"]) == ("inbox", plan, "plan")


def test_a_bad_agent_id_is_refused_before_serving(tmp_path: Path) -> None:
    root, _ = init_store(tmp_path / "store")
    proc = subprocess.run([str(ATK), "--store", str(root), "mcp", "--agent-id", "not valid!"], capture_output=True, text=True,
                          env=server_env(tmp_path), stdin=subprocess.DEVNULL, timeout=60, check=False)  # fmt: skip
    assert proc.returncode == 2 and "ATK_AGENT_ID" in proc.stderr and proc.stdout == ""
