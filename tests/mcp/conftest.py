"""One `atk mcp` per test module: a bare remote, the agent's clone (the server's store) and the
person's clone (a `Service` as the user, in this process), every write pushed to the remote."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.mcpkit import AGENT_ID, McpAgent, World
from support.storekit import clone, make_remote_pair


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("mcp")
    store, remote = make_remote_pair(tmp, "agent")
    person = clone(remote, tmp / "person")
    home = tmp / "home"
    home.mkdir()
    with McpAgent(store, home, args=("--agent-id", AGENT_ID)) as agent:
        yield World(remote, store, person, home, agent)
