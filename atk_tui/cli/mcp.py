"""`atk mcp`: the queue served to MCP clients (Claude Code, Codex, Cursor …) over stdio, always as
an agent (SPEC §17; docs/mcp.md). The server is `atk_tui.mcpserver`; the MCP SDK is imported only
when this command runs, never on the way to any other command."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

HELP = "serve the queue to MCP clients over stdio, as an agent (see docs/mcp.md)"


def add_mcp_parser(sub: Any, common: argparse.ArgumentParser, epilog: str) -> None:
    p = sub.add_parser(
        "mcp", parents=[common], help=HELP, description=HELP + ".", epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    p.add_argument("--agent-id", metavar="ID", help="the agent's own name on its commits (default: $ATK_AGENT_ID)")
    p.add_argument(
        "--source", default="agent", help="the source recorded on what it adds and notifies (default: agent)"
    )
    p.add_argument(
        "--list-tools", action="store_true", help="print the tools as a Markdown table and exit (no store needed)"
    )
    p.set_defaults(run=cmd_mcp, needs_store=False)


def cmd_mcp(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from atk_tui.cli.output import say_err_line, write_text
    from atk_tui.domain.sources import normalise_source
    from atk_tui.host.config import AGENT_ENV_VARS, is_agent_env, resolve_store
    from atk_tui.mcpserver import tools

    if args.list_tools:
        write_text(sys.stdout, tools.tool_table(tools.all_tools()))
        return 0
    if args.agent_id is not None:
        os.environ["ATK_AGENT_ID"] = args.agent_id
    if not is_agent_env():  # always an agent: whatever a tool reaches judges by the environment too
        os.environ[AGENT_ENV_VARS[0]] = "atk-mcp"
    from atk_tui.service.core.holds import agent_id_from_env

    agent_id_from_env()  # a bad id refuses here (exit 2), before a client connects
    source, said = normalise_source(args.source)
    if said:
        say_err_line(f"warning: {said}")
    agent = tools.Agent(resolve_store(args.store), source or "agent", pull=not args.skip_pull, push=not args.skip_push)
    from atk_tui.mcpserver.server import serve

    serve(agent)
    return 0
