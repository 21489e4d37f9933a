"""Write the key tables of docs/configuration.md from the configuration model
(atk_tui/host/settings.py), between its `<!-- keys: NAME -->` and `<!-- /keys -->` markers.

    .venv/bin/python scripts/config_docs.py          # write them
    .venv/bin/python scripts/config_docs.py --check  # exit 1 when the doc differs from the model

tests/docs/test_docs_facts.py runs the same check.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from atk_tui.host.settings import render_doc

DOC = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether the doc is up to date")
    args = parser.parse_args(argv)
    text = DOC.read_text(encoding="utf-8")
    new = render_doc(text)
    if new == text:
        return 0
    if args.check:
        print(f"{DOC} differs from the configuration model: run scripts/config_docs.py", file=sys.stderr)
        return 1
    DOC.write_text(new, encoding="utf-8")
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
