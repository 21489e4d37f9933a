"""`atk mcp` in tests: the console script started as a real subprocess and talked to with the MCP
SDK's own stdio client (`mcp.Client`), from synchronous tests: the client runs on an event loop
in a thread of its own (anyio's blocking portal), so one server can serve a whole module.

    with McpAgent(store, agent_id="w1") as agent:
        rec = agent.ok("wi_add", {"body": "...", "target_repo": "acme/webapp"})
        res = agent.call("wi_hold", {"filename": "x"})   # a CallToolResult (is_error, content)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters

ATK = Path(sys.executable).with_name("atk")

#: the agent id the tests' servers run with (`--agent-id`)
AGENT_ID = "mcp-worker-1"

#: the variables that make a process an agent's (host.config.AGENT_ENV_VARS): none is passed on
AGENT_VARS = ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT", "ATK_AGENT_ID", "ATK_LOOP_SESSION")


def server_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment `atk mcp` is started with: this one without agent variables or a store,
    its own config home, no `gh`."""
    env = {k: v for k, v in os.environ.items() if k not in AGENT_VARS and k != "ATK_PRIVATE_NOTES"}
    env.update(XDG_CONFIG_HOME=str(home / ".config"), ATK_GH=str(home / "no-gh"), **extra)
    return env


class McpAgent:
    """One `atk --store STORE mcp ARGS…` and a connected SDK client."""

    def __init__(
        self, store: Path, home: Path, *, args: tuple[str, ...] = (), env: dict[str, str] | None = None
    ) -> None:
        self.params = StdioServerParameters(
            command=str(ATK), args=["--store", str(store), "mcp", *args], env=env or server_env(home)
        )
        self._stack = ExitStack()
        self.portal: Any = None
        self.client: Client | None = None

    def __enter__(self) -> McpAgent:
        self.portal = self._stack.enter_context(start_blocking_portal())
        self.client = self._stack.enter_context(self.portal.wrap_async_context_manager(Client(self.params, cache=None)))
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    # -- calls ------------------------------------------------------------------------------------

    def call(self, name: str, args: dict[str, Any] | None = None, progress: Callable[..., Any] | None = None) -> Any:
        """The tool's `CallToolResult`."""
        return self.portal.call(self._call, name, args or {}, progress)

    async def _call(self, name: str, args: dict[str, Any], progress: Any) -> Any:
        assert self.client is not None
        return await self.client.call_tool(name, args, progress_callback=progress)

    def start(self, name: str, args: dict[str, Any], progress: Callable[..., Any] | None = None) -> Future:
        """The call started, not waited for (a `wait` while the person answers elsewhere)."""
        return self.portal.start_task_soon(self._call, name, args, progress)

    def ok(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """A call that must succeed: its structured result."""
        res = self.call(name, args)
        assert not res.is_error, f"{name} refused: {res.content[0].text}"
        return res.structured_content

    def refused(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """A call that must be refused: {error, exit_code, code, warnings} and the text shown."""
        res = self.call(name, args)
        assert res.is_error, f"{name} was not refused: {res.structured_content}"
        return {**(res.structured_content or {}), "text": res.content[0].text}

    def tools(self) -> list[Any]:
        return self.portal.call(self._tools)

    async def _tools(self) -> list[Any]:
        assert self.client is not None
        return (await self.client.list_tools()).tools

    def resources(self) -> list[Any]:
        return self.portal.call(self._resources)

    async def _resources(self) -> list[Any]:
        assert self.client is not None
        return (await self.client.list_resources()).resources

    def templates(self) -> list[Any]:
        return self.portal.call(self._templates)

    async def _templates(self) -> list[Any]:
        assert self.client is not None
        return (await self.client.list_resource_templates()).resource_templates

    def read(self, uri: str) -> str:
        return self.portal.call(self._read, uri)

    async def _read(self, uri: str) -> str:
        assert self.client is not None
        return (await self.client.read_resource(uri)).contents[0].text


@dataclass
class World:
    """A bare remote, the agent's clone (the server's store), the person's clone and the server."""

    remote: Path
    store: Path  # the agent's clone: `atk mcp --store` serves it
    person_root: Path
    home: Path
    agent: McpAgent

    def person(self, queue: str | None = "wi") -> Any:
        """The person's `atk` on their own clone (the user actor; pulls before, pushes after)."""
        from atk_tui.service import Service

        return Service(self.person_root, actor="user", queue=queue)
