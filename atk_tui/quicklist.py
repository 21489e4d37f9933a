"""A warm `atk wi list`, answered before the command line is even imported.

`atk`'s entry point is `main` here. A plain listing (`atk [--store S] wi list [--status X]
[--kind K] [--target-repo R] [--json | --count | --no-json] [--skip-pull] [--skip-push]`)
whose judged result is cached (`core.cache.ListingCache`: the store is as it was) is printed
from that one file: no argparse, no service, no git. Anything else, and every miss, runs
`atk_tui.cli.main` (which fills the cache). The rule for which states a `--status` lists and
how a cached listing is filtered lives here, and the full command line uses it too.
"""

from __future__ import annotations

import os
import sys
from datetime import UTC
from pathlib import Path
from typing import Any

from .core.config import ConfigError, is_agent_env, plan_files_missing, resolve_store
from .core.model import ACTIVE, PROCESSABLE, STATES, TERMINAL

DERIVED = ("ready", "blocked")  # --status values judged per item (SPEC §6): processable items only


def states_for(status: str) -> list[str] | None:
    """The states a `--status` value lists, in STATES order; None for a value it does not know."""
    if status == "active":
        wanted = ACTIVE
    elif status == "processable" or status in DERIVED:
        wanted = PROCESSABLE
    elif status == "all":
        wanted = frozenset(STATES)
    elif status in STATES:
        wanted = frozenset([status])
    else:
        return None
    return [s for s in STATES if s in wanted]


def listing_cache(root: Path, status: str) -> Any:
    from .core.cache import ListingCache

    states = states_for(status)
    return None if states is None else ListingCache(root, states, STATES, tuple(TERMINAL))


def mark_cooldowns(line: str, judgement: Any, now: Any) -> str:
    """A listing line to cache, with the "(in 3h 12m)" of each cooldown reason (the one part
    of a judged line that changes with the clock) replaced by a marker the cache fills in
    when the line is printed (`ListingCache.load`)."""
    from .core.cache import cooldown_marker
    from .core.readiness import format_duration

    at = line.find('"reasons": [')
    if at < 0:
        return line
    head, tail = line[:at], line[at:]
    for r in judgement.reasons:
        if r.code == "cooldown" and r.until is not None:
            until = r.until if r.until.tzinfo is not None else r.until.replace(tzinfo=UTC)  # as judged
            left = f"(in {format_duration((until - now).total_seconds())})"
            if r.message.endswith(left):
                tail = tail.replace(r.message, r.message[: -len(left)] + f"(in {cooldown_marker(until.timestamp())})", 1)
    return head + tail


def print_listing(status: str, kind: str | None, only_repo: str | None, count: bool,
                  meta: list[list[Any]] | bytes, lines: list[str] | bytes) -> None:  # fmt: skip
    """Filter a judged listing (`meta[i]` = state, kind, target_repo, ready of line i) and
    print it. `meta` and `lines` may be as cached (`ListingCache.load`)."""
    want_ready = status == "ready" if status in DERIVED else None
    filtered = bool(kind or only_repo or want_ready is not None)
    if isinstance(lines, bytes):
        if not (filtered or count):
            if lines:
                sys.stdout.flush()
                sys.stdout.buffer.write(lines + b"\n")
                sys.stdout.buffer.flush()
            return
        lines = lines.decode("utf-8").split("\n") if lines else []
    if filtered:
        if isinstance(meta, bytes):
            import json

            meta = json.loads(meta)
        lines = [
            line for m, line in zip(meta, lines, strict=True)
            if (not kind or m[1] == kind) and (not only_repo or m[2] == only_repo)
            and (want_ready is None or m[3] == want_ready)
        ]  # fmt: skip
    if count:
        sys.stdout.write(f"{len(lines)}\n")
    elif lines:
        sys.stdout.write("\n".join(lines) + "\n")  # the lines are safe and plain UTF-8 already
    sys.stdout.flush()


def serve(root: Path, status: str, kind: str | None, only_repo: str | None, as_json: bool, count: bool) -> bool:
    """Print the cached listing when it is still the store's; False when the full listing
    must run (no cache, a change, text output)."""
    if not (as_json or count) or (sys.stdout.encoding or "").lower().replace("-", "") != "utf8":
        return False  # the full listing escapes what this stream cannot encode
    cache = listing_cache(root, status)
    if cache is None:
        return False
    import time

    hit = cache.load(time.time(), lambda values: plan_files_missing(root, values))
    if hit is None:
        return False
    print_listing(status, kind, only_repo, count, *hit)
    return True


_VALUED = {"--store": "store", "--status": "status", "--kind": "kind", "--target-repo": "only_repo"}
_FLAGS = {"--json": "json", "--no-json": "no_json", "--count": "count", "--skip-pull": None, "--skip-push": None}


def parse(argv: list[str]) -> dict[str, Any] | None:
    """The options of a plain `[--store S] wi list ...`, or None for anything else (the full
    command line then parses it, with its abbreviations, help and errors)."""
    opts: dict[str, Any] = {"store": None, "status": "active", "kind": None, "only_repo": None,
                            "json": False, "no_json": False, "count": False}  # fmt: skip
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
    return opts


def main() -> None:
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
            if (root / ".git").is_dir() and serve(root, opts["status"], opts["kind"], only_repo, as_json, opts["count"]):
                sys.exit(0)
        except (ConfigError, OSError, ValueError):
            pass  # the full command line says what is wrong
        except BrokenPipeError:
            os._exit(0)
    from .cli import main as cli_main

    cli_main()
