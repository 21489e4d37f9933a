"""A warm `atk wi list`, answered before the command line is even imported.

`atk`'s entry point is `main` here. A plain listing (`atk [--store S] wi list [--status X]
[--kind K] [--target-repo R] [--text WORD] [--json | --count | --no-json] [--offset K] [--limit N] [--wide] [--skip-pull]
[--skip-push]`)
whose judged result is cached is printed from that one entry (`service.listing.serve`, or
its text rows: `served_records`): no argparse, no service, no git. Anything else, and every miss, runs `atk_tui.cli.main.main`
(which fills the cache).
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from atk_tui.host.config import ConfigError, is_agent_env, resolve_store

#: a valid `ATK_AGENT_ID` (service/holds.py says so once; this copy keeps the fast path lean)
_AGENT_ID = re.compile(r"[A-Za-z0-9._:@-]{1,64}")


_VALUED = {"--store": "store", "--status": "status", "--kind": "kind", "--target-repo": "only_repo",
           "--offset": "offset", "--limit": "limit", "--text": "text"}  # fmt: skip
_FLAGS = {"--json": "json", "--no-json": "no_json", "--count": "count", "--skip-pull": "skip_pull", "--skip-push": None,
          "--wide": "wide"}  # fmt: skip


def parse(argv: list[str]) -> dict[str, Any] | None:
    """The options of a plain `[--store S] wi list ...`, or None for anything else (the full
    command line then parses it, with its abbreviations, help and errors)."""
    opts: dict[str, Any] = {"store": None, "status": "active", "kind": None, "only_repo": None,
                            "json": False, "no_json": False, "count": False, "offset": None, "limit": None,
                            "skip_pull": False, "text": None, "wide": False}  # fmt: skip
    seen: set[str] = set()
    i, words = 0, []
    while i < len(argv):
        a = argv[i]
        name, eq, value = a.partition("=")
        if name in _VALUED:
            if not eq:
                if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                    return None
                value = argv[i + 1]
                i += 1
            if name in seen or not value:
                return None
            seen.add(name)
            opts[_VALUED[name]] = value
        elif a in _FLAGS and not eq:
            if _FLAGS[a]:
                opts[_FLAGS[a]] = True
        elif a.startswith("-"):
            return None
        else:
            words.append(a)
        i += 1
    if words != ["wi", "list"] or opts["json"] + opts["no_json"] + opts["count"] > 1:
        return None
    if opts["kind"] not in (None, "awi", "uwi"):
        return None
    for key, least in (("offset", 0), ("limit", 1)):
        value = opts.get(key)
        if value is not None and not (value.isascii() and value.isdigit() and int(value) >= least):
            return None  # the full command line says what it takes
    opts["page"] = (int(opts.pop("offset") or 0), int(v) if (v := opts.pop("limit")) is not None else None)
    return opts


def _said_stale(stale: str | None) -> None:
    if stale:
        from atk_tui.cli.output import say_err_line
        from atk_tui.service.reading import stale_message

        say_err_line(stale_message(stale))


def _text_rows(root: Any, opts: dict[str, Any], stale: str | None) -> bool:
    """A text listing (rows, aligned on a terminal) from the cached listing; False on a miss
    (nothing printed: the full command line makes it)."""
    from atk_tui.cli.output import print_rows, rows_into
    from atk_tui.service.listing import served_records

    rows: list[list[str]] = []
    notes = served_records(root, opts["status"], opts["kind"], opts["only_repo"], rows_into(rows), opts["page"], opts["text"])
    if notes is None:
        return False
    _said_stale(stale)  # (before a terminal's table; after rows printed as they came)
    print_rows(rows, opts["status"], notes, wide=opts["wide"])
    return True


def main() -> None:
    try:
        _main()
    except KeyboardInterrupt:  # Ctrl-C before the full command line took over: a read, nothing changed
        sys.stderr.write("atk: interrupted; nothing was changed\n")
        sys.exit(130)


def _main() -> None:
    opts = parse(sys.argv[1:])
    if opts is not None:
        import gc

        # a listing builds tens of thousands of objects and exits: the cycle collector's
        # passes over them (a tenth of a cold listing) find nothing to free
        gc.disable()
        try:
            root = resolve_store(opts["store"])
            as_json = opts["json"] or (is_agent_env() and not opts["no_json"])
            only_repo = opts["only_repo"]
            named = os.environ.get("ATK_AGENT_ID")
            if named and is_agent_env() and not _AGENT_ID.fullmatch(named):
                raise ValueError("a bad ATK_AGENT_ID: the full command line refuses it")
            if (root / ".git").is_dir():
                stale = None
                if not opts["skip_pull"]:  # a read brings in what the remote has (SPEC §15)
                    from atk_tui.service.reading import freshen_once

                    stale = freshen_once(root, keep=True).stale
                if as_json or opts["count"]:
                    from atk_tui.service.listing import serve

                    if serve(root, opts["status"], opts["kind"], only_repo, opts["count"], opts["page"], stale, opts["text"]):
                        _said_stale(stale)
                        sys.exit(0)
                elif _text_rows(root, opts, stale):
                    sys.exit(0)
        except (ConfigError, OSError, ValueError):
            pass  # the full command line says what is wrong
        except BrokenPipeError:
            os._exit(0)
    from atk_tui.cli.main import main as cli_main

    cli_main()
