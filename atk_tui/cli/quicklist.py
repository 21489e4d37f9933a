"""`atk`'s entry point (`main`): a warm `atk wi list` before the command line is imported.

A listing is made one way (`service.reading.listing.write_listing`, from the store, kept in the cache
as it is printed) and printed from the cache one way (`cli.cached_list`). `main` reads a plain
`atk [--store S] wi list [--status X] [--kind K] [--target-repo R] [--text WORD] [--json |
--count | --no-json] [--offset K] [--limit N] [--wide] [--skip-pull] [--skip-push]` into the
names the full command line gives them (`parse`) and asks `cached_list` before argparse, the
service or git is loaded. Anything else, and a miss, runs `atk_tui.cli.main.main`, which
makes the listing (a miss is not looked for twice: `cache.caches.ListingCache.load`).
"""

from __future__ import annotations

import os
import re
import sys
from types import SimpleNamespace
from typing import Any

from atk_tui.cli import cached_list
from atk_tui.host.config import ConfigError, is_agent_env, resolve_store

#: a valid `ATK_AGENT_ID` (service/core/holds.py says so once; this copy keeps the fast path lean)
_AGENT_ID = re.compile(r"[A-Za-z0-9._:@-]{1,64}")

#: `atk wi list`'s options (`cli.items`, `cli.parser.global_options`) -> the full parser's names
_VALUED = {"--store": "store", "--status": "status", "--kind": "kind", "--target-repo": "only_repo",
           "--offset": "offset", "--limit": "limit", "--text": "text"}  # fmt: skip
_FLAGS = {"--json": "json", "--no-json": "no_json", "--count": "count", "--skip-pull": "skip_pull",
          "--skip-push": "skip_push", "--wide": "wide"}  # fmt: skip
#: the least value of a number option (the full parser's `_number`)
_LEAST = {"offset": 0, "limit": 1}

class ListArgs(SimpleNamespace):
    """A plain listing's command line, named as the full parser names it (`args.status`, …);
    `args["status"]` reads the same."""

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    @property
    def page(self) -> tuple[int, int | None]:
        return self.offset, self.limit


def parse(argv: list[str]) -> ListArgs | None:
    """A plain `[--store S] wi list ...`, or None for anything else (the full command line then
    parses it, with its abbreviations, help and errors)."""
    args = ListArgs(cmd="wi", store=None, status="active", kind=None, only_repo=None, text=None, offset=0, limit=None,
                    **dict.fromkeys(_FLAGS.values(), False))  # fmt: skip
    seen: set[str] = set()
    words: list[str] = []
    rest = iter(argv)
    for a in rest:
        name, eq, value = a.partition("=")
        if name in _VALUED:
            value = value if eq else next(rest, "-")
            if (value.startswith("-") and not eq) or name in seen or not value:
                return None
            seen.add(name)
            dest = _VALUED[name]
            if dest in _LEAST:
                if not (value.isascii() and value.isdigit() and int(value) >= _LEAST[dest]):
                    return None  # the full command line says what it takes
                value = int(value)  # type: ignore[assignment]
            setattr(args, dest, value)
        elif a in _FLAGS:
            setattr(args, _FLAGS[a], True)
        elif a.startswith("-"):
            return None
        else:
            words.append(a)
    if words != ["wi", "list"] or args.json + args.no_json + args.count > 1 or args.kind not in (None, "awi", "uwi"):
        return None
    return args


def main() -> None:
    try:
        _main()
    except KeyboardInterrupt:  # Ctrl-C before the full command line took over: a read, nothing changed
        sys.stderr.write("atk: interrupted; nothing was changed\n")
        sys.exit(130)


def _main() -> None:
    args = parse(sys.argv[1:])
    if args is not None:
        import gc

        # a listing builds tens of thousands of objects and exits: the cycle collector's
        # passes over them (a tenth of a cold listing) find nothing to free
        gc.disable()
        try:
            root = resolve_store(args.store)
            named = os.environ.get("ATK_AGENT_ID")
            if named and is_agent_env() and not _AGENT_ID.fullmatch(named):
                raise ValueError("a bad ATK_AGENT_ID: the full command line refuses it")
            if (root / ".git").is_dir():
                stale = None
                if not args.skip_pull:  # a read brings in what the remote has (SPEC §15)
                    from atk_tui.service.reading.freshen import freshen_once

                    stale = freshen_once(root, keep=True).stale
                if cached_list(root, args, stale, say_stale=True):
                    sys.exit(0)
        except (ConfigError, OSError, ValueError):
            pass  # the full command line says what is wrong
        except BrokenPipeError:
            os._exit(0)
    from atk_tui.cli.main import main as cli_main

    cli_main()
