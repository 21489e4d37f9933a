"""`atk-tui`: the dashboard. `atk-tui --demo` opens it on a fresh demo store."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def _say(text: str, *more: str) -> None:
    """A line on stderr (and `more` lines of our own), through the one sanitiser: an error may
    quote a store path or a filename from a hostile store (a raw newline would fake a line, an
    escape would act)."""
    from atk_tui.text.textsafe import safe_line

    print("\n".join(["atk-tui: " + safe_line(text), *more]), file=sys.stderr, flush=True)



def main(argv: Sequence[str] | None = None) -> None:
    from atk_tui.cli.tui_args import build_parser

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.keep and not args.demo:
        parser.error("--keep goes with --demo (it keeps the demo store on exit)")
    if not args.serve and (args.host is not None or args.port is not None):
        parser.error("--host and --port go with --serve (atk-tui --serve --host H --port N)")
    from atk_tui.host.config import ConfigError, NoStoreConfigured, resolve_store

    demo_dir: Path | None = None
    if args.demo:
        from atk_tui.demo import demo_main

        root = demo_main()
        demo_dir = root.parent
        _exit_on_hangup()  # closing the terminal (SIGHUP) or a kill (SIGTERM) still removes the demo store
        _say(f"demo store at {root}")
    else:
        try:
            root = resolve_store(args.store)
        except ConfigError as exc:
            # exit 1 as `atk` does; the demo hint only where there is no store at all (not after
            # a broken config file, where it would be beside the point)
            hint = ["To try it on a sample store: atk-tui --demo"] if isinstance(exc, NoStoreConfigured) else []
            _say(f"{exc}", *hint)
            sys.exit(1)
    try:
        code = _serve(root, args) if args.serve else _run(root, args)
    finally:
        if demo_dir is not None:
            _end_demo(demo_dir, root, keep=args.keep)
    sys.exit(code)


_RUNNING: list = []  # the dashboard while it runs (`_run`), for `_exit_on_hangup`'s handler


def _exit_on_hangup() -> None:
    """SIGHUP and SIGTERM end the process as an exception would (128 + the signal), so the
    `finally` that removes the demo store runs; while the dashboard runs they ask it to exit
    (exit code 128 + the signal) and the same `finally` runs after it."""
    import asyncio
    import signal

    def stop(signum: int, _frame: object) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None and _RUNNING:
            # the dashboard runs: asked to exit through its loop (a SystemExit raised inside the
            # loop could leave it waiting on its input thread, the demo store never removed)
            app = _RUNNING[0]
            loop.call_soon_threadsafe(lambda: app.exit(return_code=128 + signum))
            return
        raise SystemExit(128 + signum)

    for sig in (signal.SIGHUP, signal.SIGTERM):
        try:
            signal.signal(sig, stop)
        except (ValueError, OSError):  # not the main thread
            pass


def _run(root: Path, args: argparse.Namespace) -> int:
    from atk_tui.tui.startup import pause_gc

    pause_gc()  # until the first frame: what start-up makes is never garbage (tui/startup.py)
    from atk_tui.domain.errors import AtkError
    from atk_tui.tui.app import make_app

    try:
        # the demo's repositories are made up: it does not look at GitHub by itself (`u` in `E` does)
        app = make_app(root, theme=args.theme, read_only=args.read_only, look_elsewhere=not args.demo)
    except AtkError as exc:  # not a store: exit 1, as `atk` (docs/agent-guide.md#exit-codes)
        _say(f"{exc}")
        return 1
    _RUNNING.append(app)
    try:
        app.run()
    finally:
        _RUNNING.clear()
    return app.return_code or 0


def serve_command(root: Path, args: argparse.Namespace) -> str:
    """The command textual-serve starts for each browser session: this dashboard on `root`."""
    import shlex

    argv = [sys.executable, "-m", "atk_tui", "--store", str(root)]
    if args.theme:
        argv += ["--theme", args.theme]
    if args.read_only:
        argv.append("--read-only")
    return shlex.join(argv)


def _serve(root: Path, args: argparse.Namespace) -> int:
    from atk_tui.domain.errors import AtkError
    from atk_tui.store import GitStore

    try:
        GitStore(root)  # refuse a path that is not a store before listening
    except AtkError as exc:
        _say(f"{exc}")
        return 1
    from atk_tui.tui.serve import TokenError, make_token, serve

    try:
        token = make_token()
    except TokenError as exc:  # a bad $ATK_SERVE_TOKEN: a bad value, a usage error (2)
        _say(f"{exc}")
        return 2

    def announce(guard) -> None:
        _say(f"serving {root}; open {guard.url} (Ctrl+C stops)")

    host = "127.0.0.1" if args.host is None else args.host
    port = 8000 if args.port is None else args.port
    try:
        serve(serve_command(root, args), host=host, port=port, title="atk-tui", announce=announce, token=token)
    except OSError as exc:  # the port is taken, the address is not this machine's: one line, no traceback
        import errno

        if exc.errno == errno.EADDRINUSE:
            _say(f"port {port} on {host} is already in use (another atk-tui --serve?); pick another: --port N")
        else:
            _say(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
        return 1
    return 0


def _end_demo(demo_dir: Path, root: Path, *, keep: bool) -> None:
    """The demo store (and its bare remote) is deleted on exit; with --keep, say where it is."""
    if keep:
        _say(f"demo store kept at {root} (open it again: atk-tui --store {root})")
        return
    import shutil

    shutil.rmtree(demo_dir, ignore_errors=True)
    if demo_dir.exists():
        _say(f"could not delete the demo store at {demo_dir}; remove it by hand")


if __name__ == "__main__":
    main()
