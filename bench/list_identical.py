#!/usr/bin/env python3
"""Do two versions of atk list the same? Byte-compares `atk wi/mq list` outputs (cold: no cache;
then warm) and the item cache files a cold listing leaves, between a git revision and the
working tree, on the same stores at the same frozen clock.

    python bench/list_identical.py [--base REV] [--quick] [--store DIR ...]

`--base` (default `main`) is extracted with `git archive` and run from there; the working
tree is run as it is. Without `--store`, a demo store (`atk_tui.demo`, with its feedback
queue) is made in a temporary folder. `--quick`: the main listings only (a 60,000-item store
takes minutes otherwise). Prints one line per listing and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CASES = [
    ["wi", "list", "--json"], ["wi", "list", "--json", "--status=all"], ["wi", "list", "--count"],
    ["wi", "list", "--no-json"], ["wi", "list", "--json", "--status=blocked"],
    ["wi", "list", "--json", "--status=ready"], ["wi", "list", "--json", "--status=hold"],
    ["wi", "list", "--json", "--status=processable"], ["wi", "list", "--json", "--kind", "uwi"],
    ["wi", "list", "--json", "--offset", "5", "--limit", "10"], ["wi", "list", "--json", "--text", "a"],
    ["wi", "list", "--json", "--status=adopted"], ["mq", "list", "--json"], ["mq", "list", "--json", "--status=all"],
]  # fmt: skip
QUICK = 5

#: run one listing at the clock in $LIST_IDENTICAL_NOW (the same judgement for both versions)
RUNNER = """
import os, sys
from datetime import datetime
now = datetime.fromisoformat(os.environ["LIST_IDENTICAL_NOW"])
from atk_tui.service.core import base
base.ServiceBase.__init__.__kwdefaults__["clock"] = lambda: now
sys.argv = ["atk", *sys.argv[1:]]
from atk_tui.cli.quicklist import main
main()
"""


def run(tree: Path, store: Path, argv: list[str], now: str, cold: bool) -> tuple[tuple[int, bytes, bytes], dict[str, bytes]]:
    """((exit code, stdout, stderr), the item cache files after a cold run) of one listing."""
    cache = store / ".git" / "atk-cache"
    if cold:
        shutil.rmtree(cache, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), LIST_IDENTICAL_NOW=now)
    proc = subprocess.run([sys.executable, "-c", RUNNER, *argv, "--store", str(store)],
                          capture_output=True, env=env, cwd=tempfile.gettempdir())  # fmt: skip
    files = {}
    if cold and cache.is_dir():
        files = {f.name: f.read_bytes() for f in sorted(cache.iterdir()) if f.name.startswith(("active-", "terminal-", "mq-"))}
    return (proc.returncode, proc.stdout, proc.stderr), files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="main")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--store", type=Path, action="append", default=[])
    args = ap.parse_args(argv)
    now = datetime.now(UTC).replace(second=0, microsecond=0).isoformat()
    cases = CASES[:QUICK] if args.quick else CASES
    bad = 0
    with tempfile.TemporaryDirectory(prefix="list-identical-") as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        archive = subprocess.run(["git", "archive", args.base, "atk_tui"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
        stores = args.store
        if not stores:
            sys.path.insert(0, str(ROOT))
            from atk_tui.demo import create_demo_store

            stores = [create_demo_store(Path(tmp) / "demo", feedback_queue=True)]
        for store in stores:
            for case in cases:
                a, fa = run(base, store, case, now, cold=True)
                b, fb = run(ROOT, store, case, now, cold=True)
                warm_a = run(base, store, case, now, cold=False)[0]  # on base's own cache
                run(ROOT, store, case, now, cold=True)
                warm_b = run(ROOT, store, case, now, cold=False)[0]
                lines = a[1].count(b"\n")
                for what, x, y in (("cold", (a, fa), (b, fb)), ("warm", warm_a, warm_b)):
                    same = x == y
                    bad += not same
                    print(f"{'same' if same else 'DIFF'}  {what}  {' '.join(case):48s} {lines:6d} lines  {store}")
    print("all the same" if not bad else f"{bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
