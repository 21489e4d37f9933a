"""`atk mcp`: the queue served to MCP clients over stdio, always as an agent (SPEC §17).

- `schemas.py`  every tool's input schema, generated from the tables (`domain.fields` FIELDS,
                `domain.ops` transitions, the queues' vocabularies, `Writes.add`'s keywords)
- `ask.py`      a question's body rendered in the Markdown form `itemfile.questions` parses
- `tools.py`    the tools: each calls the service as the CLI's command does and returns the
                `--json` records (`service.records`); a refusal is `Refused` (the CLI's message
                and exit code). No MCP SDK here: `atk mcp --list-tools` and the docs read it
- `server.py`   the MCP SDK's low-level server over stdio: tools, `wait` with progress, resources

Only `atk mcp` imports this package (and the SDK through `server.py`): the CLI's start-up does not.
"""
