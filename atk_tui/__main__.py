"""`atk-tui`: the dashboard. `atk-tui --demo` opens it on a fresh demo store."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="atk-tui", description="Triage dashboard for an atk work-item store.")
    p.add_argument("--store", help="the store (default: $ATK_PRIVATE_NOTES or private_notes in the config file)")
    p.add_argument("--demo", action="store_true", help="create a realistic demo store in a temporary directory and open it")
    p.add_argument("--theme", help="a Textual theme name (overrides the config file)")
    p.add_argument("--read-only", action="store_true", help="open without allowing writes")
    from .cli import VersionAction

    p.add_argument("--version", action=VersionAction)
    return p


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    from .core.config import ConfigError, resolve_store

    if args.demo:
        from .demo import demo_main

        root = demo_main()
        print(f"atk-tui: demo store at {root}", file=sys.stderr)
    else:
        try:
            root = resolve_store(args.store)
        except ConfigError as exc:
            print(f"atk-tui: {exc}\nTo try it on a sample store: atk-tui --demo", file=sys.stderr)
            sys.exit(2)
    from .core.errors import AtkError
    from .tui.app import make_app

    try:
        app = make_app(root, theme=args.theme, read_only=args.read_only)
    except AtkError as exc:
        print(f"atk-tui: {exc}", file=sys.stderr)
        sys.exit(2)
    app.run()
    sys.exit(app.return_code or 0)


if __name__ == "__main__":
    main()
