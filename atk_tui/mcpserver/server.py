"""`atk mcp`'s server: the MCP SDK's low-level `Server` over stdio, serving `tools.all_tools()`
(each run in a worker thread, one service call at a time), `wait` (bounded, with progress
notifications), and the items as resources (`atk://wi/{filename}`, `atk://mq/{filename}`, the
ready lists `atk://wi/ready`, `atk://mq/ready`).

A tool's result is its JSON (the `--json` records) as text and as structured content; a refusal is
a tool error (`isError`) whose text is the CLI's message and whose structured content says it
again with the CLI's exit code and the refusal code."""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

import anyio
import anyio.to_thread
import jsonschema
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from atk_tui.domain.errors import AtkError
from atk_tui.mcpserver import tools as T

#: what a client is told when it connects
INSTRUCTIONS = (
    "The atk work-item queue, as an agent. Tools are the agent verbs of `atk wi` (wi_*) and `atk mq` (mq_*), "
    "with the CLI's rules and messages; results are the `--json` records. To ask the person: `ask`, then `wait` "
    "(bounded: call it again while it says a question is still open). Answering and commenting are the person's."
)

URI_PREFIX = "atk://"
READY = "ready"


def _text(d: Any) -> str:
    return json.dumps(d, ensure_ascii=False, indent=1)


def ok_result(d: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=_text(d))], structured_content=d)


def error_result(message: str, exit_code: int, code: str = "", warnings: tuple[str, ...] = ()) -> types.CallToolResult:
    """A refusal as the CLI says it: its message (its warnings before it, as on stderr), its exit code."""
    lines = [f"warning: {w}" for w in warnings] + [message, f"(exit code {exit_code}{f', {code}' if code else ''})"]
    data = {"error": message, "exit_code": exit_code, "code": code, "warnings": list(warnings)}
    return types.CallToolResult(
        content=[types.TextContent(text="\n".join(lines))], structured_content=data, is_error=True
    )


class AtkMcp:
    """The server's state: the agent, the tools by name, one lock for the service's work."""

    def __init__(self, agent: T.Agent) -> None:
        self.agent = agent
        self.tools = {t.name: t for t in T.all_tools()}
        self.lock = threading.Lock()

    def _locked(self, fn: Any, *args: Any) -> Any:
        with self.lock:
            return fn(*args)

    async def work(self, fn: Any, *args: Any) -> Any:
        """A service call in a worker thread, one at a time (the store's own lock is between processes)."""
        return await anyio.to_thread.run_sync(self._locked, fn, *args)

    # -- tools ------------------------------------------------------------------------------------

    async def list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[self.tool_of(t) for t in self.tools.values()])

    @staticmethod
    def tool_of(t: T.Tool) -> types.Tool:
        notes = types.ToolAnnotations(
            read_only_hint=t.read_only, destructive_hint=t.name.endswith("_rm"), open_world_hint=False
        )
        return types.Tool(name=t.name, description=t.description, input_schema=t.schema, annotations=notes)

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = self.tools.get(params.name)
        args = dict(params.arguments or {})
        if tool is None:
            why = (
                " (answering and commenting are the person's: user-only writes are not tools)"
                if params.name.endswith(("_answer", "_comment"))
                else ""
            )
            return error_result(f"no tool named {params.name}{why}", 2, "usage")
        try:
            jsonschema.validate(args, tool.schema)
        except jsonschema.ValidationError as exc:
            where = ".".join(str(p) for p in exc.absolute_path)
            return error_result(f"{tool.name}: {where + ': ' if where else ''}{exc.message}", 2, "usage")
        try:
            if tool.waits:
                return ok_result(await self.wait(ctx, args))
            assert tool.run is not None
            return ok_result(await self.work(tool.run, self.agent, args))
        except T.Refused as exc:
            return error_result(exc.message, exc.exit_code, exc.code, exc.warnings)
        except AtkError as exc:
            r = T.refused_by(exc)
            return error_result(r.message, r.exit_code, r.code)
        except (
            Exception
        ) as exc:  # a bug, not a refusal: said as a tool error, its traceback on stderr (the client's log)
            import traceback

            traceback.print_exc(file=sys.stderr)
            return error_result(f"{tool.name} failed: {type(exc).__name__}: {exc}", 1, "internal")

    async def wait(self, ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
        """`atk wi wait --timeout`, bounded (SPEC §17): a look at the remote about once a second
        (backing off while it does not answer), progress notified after each look."""
        from atk_tui.service.records import WAIT_MAX_STEP, WAIT_STEP, still_waiting

        timeout = min(float(args.get("timeout") or T.WAIT_DEFAULT), T.WAIT_MAX)
        start = time.monotonic()
        svc, names = await self.work(T.wait_names, self.agent, args["filenames"])
        step = WAIT_STEP
        while True:
            stale, open_ = await self.work(T.wait_look, self.agent, svc, names)
            step = min(step * 2, WAIT_MAX_STEP) if stale else WAIT_STEP
            elapsed = time.monotonic() - start
            if not open_:
                answers = await self.work(T.wait_answers, svc, names, stale)
                return {"answered": True, "still_open": [], "records": answers, "waited": round(elapsed, 3)}
            said = f"{len(open_)} of {len(names)} still open after {elapsed:.0f} s"
            await _progress(ctx, min(elapsed, timeout), timeout, said)
            left = timeout - elapsed
            if left <= 0:
                return {
                    "answered": False,
                    "still_open": open_,
                    "message": f"{still_waiting(open_, timeout)}: call wait again",
                    "stale": stale,
                    "waited": round(elapsed, 3),
                }
            await anyio.sleep(min(step, left))

    # -- resources --------------------------------------------------------------------------------

    async def list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=await self.work(self._resources))

    def _resources(self) -> list[types.Resource]:
        from atk_tui.domain.queues import QUEUES

        self.agent.freshen()
        out = []
        for q in QUEUES:
            out.append(types.Resource(uri=f"{URI_PREFIX}{q.name}/{READY}", name=f"{q.name}: ready",
                                      description=f"what an agent can pick up now in {q.name} (`atk {q.name} list --status=ready`, JSON Lines)",
                                      mime_type="application/jsonl"))  # fmt: skip
            items, _ = self.agent.service(q.name).list(sorted(q.active))
            out += [types.Resource(uri=f"{URI_PREFIX}{q.name}/{i.filename}", name=i.filename, title=i.title,
                                   description=f"{q.name}/{i.state}: {i.kind}", mime_type="text/markdown")
                    for i in items]  # fmt: skip
        return out

    async def list_templates(self, ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(uri_template=f"{URI_PREFIX}{q}/{{filename}}", name=f"{q} item",
                                   description=f"an item of {q} (any state): its text", mime_type="text/markdown")
            for q in ("wi", "mq")
        ])  # fmt: skip

    async def read_resource(self, ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            text, mime = await self.work(self._read, uri)
        except (AtkError, T.Refused) as exc:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=types.INVALID_PARAMS, message=getattr(exc, "message", str(exc))) from None
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, text=text, mime_type=mime)])

    def _read(self, uri: str) -> tuple[str, str]:
        rest = uri[len(URI_PREFIX) :] if uri.startswith(URI_PREFIX) else ""
        queue, _, name = rest.partition("/")
        tools = {t.name: t for t in T.all_tools()}
        if queue not in ("wi", "mq") or not name:
            raise T.Refused(
                f"no such resource: {uri} (atk://wi/FILENAME, atk://mq/FILENAME, atk://wi/ready, atk://mq/ready)", 2
            )
        if name == READY:
            run = tools[f"{queue}_list"].run
            assert run is not None
            recs = run(self.agent, {"status": "ready"})["records"]
            return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), "application/jsonl"
        self.agent.freshen()
        svc = self.agent.service(queue)
        from atk_tui.service.resolve import resolve_name

        return svc.show(resolve_name(svc.store, name, svc.queues)).text, "text/markdown"


async def _progress(ctx: Any, progress: float, total: float, message: str) -> None:
    try:
        await ctx.session.report_progress(progress, total, message)
    except Exception:  # a client that went away or asked for none: waiting goes on
        pass


def make_server(agent: T.Agent) -> Server[Any]:
    from atk_tui.version import version_text

    app = AtkMcp(agent)
    return Server(
        "atk",
        version=version_text("atk").rpartition(" ")[2],
        title="atk work items",
        instructions=INSTRUCTIONS,
        on_list_tools=app.list_tools,
        on_call_tool=app.call_tool,
        on_list_resources=app.list_resources,
        on_list_resource_templates=app.list_templates,
        on_read_resource=app.read_resource,
    )


def serve(agent: T.Agent) -> None:
    """Serve over stdin/stdout until the client closes them."""
    server = make_server(agent)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
