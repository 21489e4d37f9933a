"""`--version` for `atk` and `atk-tui`: a module of its own, so that `atk-tui` (which parses
its arguments before anything else) does not import the CLI to offer it."""

from __future__ import annotations

import argparse
import sys
from typing import Any


class VersionAction(argparse.Action):
    """`--version`, looked up only when asked (importlib.metadata is slow to import)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kw: Any) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option_string: str | None = None) -> None:
        sys.stdout.write(version_text(parser.prog) + "\n")
        parser.exit()


def version_text(prog: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{prog} {version('atk-tui')}"
    except PackageNotFoundError:
        return f"{prog} (version unknown: not installed)"
