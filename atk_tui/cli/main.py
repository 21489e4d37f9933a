"""`atk`: the command line agents and scripts use (SPEC §3, §5, §7, §8).

`run` parses the command line (`cli.parser`), answers what needs no store, finds the store,
brings in what the remote has before a read (SPEC §15), and runs the command the parser named
(`args.run(svc, args)`) on one `Service`. Exit codes: 0 success; 1 refused or failed (state
conflict, validation, store busy, git); 2 usage error, or a user-only write attempted from an
agent environment. This package never imports Textual.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from atk_tui.cli import output
from atk_tui.cli.output import say_err, say_err_line
from atk_tui.domain.errors import AtkError
from atk_tui.host.config import ConfigError, is_agent_env, resolve_store


def freshen_for_read(root: Path, args: argparse.Namespace) -> str | None:
    """Before a read (a command the parser marks `reads`): the remote's commits brought in
    (SPEC §15), unless --skip-pull. Returns why the copy may be stale (said once on stderr),
    None when it is current."""
    if args.skip_pull or not getattr(args, "reads", False) or getattr(args, "action", None) == "apply":
        return None
    if not (root / ".git").is_dir():
        return None
    from atk_tui.service.reading.freshen import freshen_once, stale_message

    found = freshen_once(root)
    if found.stale:
        say_err_line(stale_message(found.stale))
    args.stale = found.stale
    return found.stale


def run(argv: Sequence[str] | None = None) -> int:
    from atk_tui.cli.parser import build_parser, parse_args

    output.SERVICE = None
    args = parse_args(argv)
    try:
        if not args.needs_store:  # init, config, completion, schema: their usage errors need the whole parser
            return args.run(build_parser(), args)
        root = resolve_store(args.store)
        if is_agent_env():
            from atk_tui.service.core.holds import agent_id_from_env

            agent_id_from_env()  # a bad ATK_AGENT_ID refuses every command (exit 2), reads too
        stale = freshen_for_read(root, args)
        from atk_tui import cli
        from atk_tui.cli.commands import cmd_list

        if args.run is cmd_list and args.cmd == "wi" and cli.cached_list(root, args, stale):
            return 0
        from atk_tui.service import Service

        queue = "mq" if args.cmd == "mq" or getattr(args, "queue", None) == "mq" else "wi"
        if args.cmd == "elsewhere":
            queue = None  # the active items of both queues name the repositories
        svc = Service(root, only_repo=args.only_repo, pull=not args.skip_pull, push=not args.skip_push, queue=queue)
        svc.set_lock_wait_listener(lambda msg: msg and say_err_line(msg))  # a write is not silent for 10 s
        output.SERVICE = svc
        if args.item_names:
            from atk_tui.cli.commands import resolve_arguments

            resolve_arguments(svc, args)
        return args.run(svc, args)
    except (AtkError, ConfigError) as exc:
        say_err(str(exc))
        return getattr(exc, "exit_code", 1)
    except BrokenPipeError:
        os._exit(0)


def _exit_on_signal(signum: int, _frame: object) -> None:
    # SystemExit unwinds like an error: the write rolls back and its child processes (a
    # stuck hook, a git push) are killed with their process groups instead of outliving atk
    raise SystemExit(128 + signum)


def _interrupted() -> str:
    """What Ctrl-C stopped: a write not committed yet rolls back (nothing changed); one whose
    commit was made (its push stopped) keeps it."""
    svc = output.SERVICE
    if svc is not None and svc.store.made_commit:
        return "interrupted; the commit is made but maybe not pushed (`atk wi commit` pushes it)"
    return "interrupted; nothing was changed"


def main() -> None:
    import signal

    from atk_tui.host.procs import deferred_while_starting

    # Ctrl-C too: a signal that comes while a child (git, a hook) starts unwinds once the
    # child is known, so that it is killed with atk rather than left running
    for sig, handler in ((signal.SIGTERM, _exit_on_signal), (signal.SIGHUP, _exit_on_signal), (signal.SIGINT, signal.default_int_handler)):
        try:
            signal.signal(sig, deferred_while_starting(handler))
        except (ValueError, OSError):  # not the main thread, or no such signal here
            pass
    try:
        code = run()
    except KeyboardInterrupt:  # Ctrl-C: a message, not a traceback (a write under way rolled back)
        say_err(_interrupted())
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    main()
