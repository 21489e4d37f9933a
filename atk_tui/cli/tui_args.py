"""`atk-tui`'s arguments (here, beside `atk`'s, so one completion generator serves both)."""

from __future__ import annotations

import argparse


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="atk-tui", description="Triage dashboard for an atk work-item store.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit codes (as atk's):\n"
        "  0  the dashboard was quit\n"
        "  1  no store, or the path is not one; the port is in use (--serve)\n"
        "  2  usage error\n"
        "  130  interrupted (Ctrl-C)\n"
        "\n"
        "examples:\n"
        "  atk-tui --demo                 # look around a demo store (deleted on exit; --keep keeps it)\n"
        "  atk-tui --store ~/notes        # the dashboard on a store (else $ATK_PRIVATE_NOTES)\n"
        "  atk-tui --serve --port 8000    # the dashboard in a web browser: open the address it prints",
    )
    p.add_argument("--store", help="the store (default: $ATK_PRIVATE_NOTES or private_notes in the config file)")
    p.add_argument(
        "--demo",
        action="store_true",
        help="create a realistic demo store in a temporary directory and open it (deleted on exit unless --keep)",
    )
    p.add_argument("--keep", action="store_true", help="with --demo: keep the demo store on exit (its path is printed)")
    p.add_argument("--theme", help="a Textual theme name (overrides the config file)")
    p.add_argument("--read-only", action="store_true", help="open without allowing writes")
    p.add_argument(
        "--serve",
        action="store_true",
        help="serve the dashboard to a web browser (textual-serve) instead of drawing it here; "
        "each browser tab runs its own dashboard on the same store; editing there uses the in-app editor. "
        "Open the address it prints (http://127.0.0.1:8000/?token=...): the token is new at every start "
        "(or $ATK_SERVE_TOKEN, 32+ characters, for scripts) and is kept in a cookie after the first load; "
        "requests from pages of other sites (their Origin), under other host names (DNS rebinding) "
        "or without the token are refused and logged on stderr",
    )
    p.add_argument("--host", help="with --serve: the address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="with --serve: the port (default 8000)")
    from atk_tui.version import VersionAction

    p.add_argument("--version", action=VersionAction)
    return p
