"""`atk`, the agent-facing command line.

`cached_list` is here, in the package both ways into a listing import anyway (the entry,
`quicklist`, and the full command line, `main`): the one place a cached `atk wi list` is
printed from."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def cached_list(root: Path, args: Any, stale: str | None = None, say_stale: bool = False) -> bool:
    """`atk wi list` printed from the cached judged listing when the store is as it was (no
    service, no git): JSON Lines (or a count) as they are cached, text rows from them. False
    when the listing must be made (nothing printed). `stale`: why this clone may be behind
    the remote, said on stderr (`say_stale`: after JSON, before a text table) unless the
    caller said it."""
    from atk_tui.host.config import is_agent_env
    from atk_tui.service.reading.listing import serve

    page = (args.offset, args.limit)
    if args.count or args.json or (is_agent_env() and not args.no_json):
        if serve(root, args.status, args.kind, args.only_repo, args.count, page, stale, args.text) is None:
            return False
        if say_stale:
            _say_stale(stale)
        return True
    from atk_tui.cli.output import print_rows, rows_into

    rows: list[list[str]] = []
    notes = serve(root, args.status, args.kind, args.only_repo, False, page, text=args.text, into=rows_into(rows))
    if notes is None:
        return False
    if say_stale:
        _say_stale(stale)
    print_rows(rows, args.status, notes, wide=getattr(args, "wide", False))
    return True


def _say_stale(stale: str | None) -> None:
    if stale:
        from atk_tui.cli.output import say_err_line
        from atk_tui.service.reading.freshen import stale_message

        say_err_line(stale_message(stale))
