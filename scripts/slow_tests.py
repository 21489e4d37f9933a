"""Write tests/slow_tests.txt: the tests the quick loop (`pytest -m "not e2e and not slow"`) leaves
out, from the `--durations` report of a run (docs/development.md#the-tests).

    .venv/bin/python -m pytest -m "not e2e" -q -p no:cacheprovider --durations=0 --durations-min=0.2 > run.txt
    .venv/bin/python scripts/slow_tests.py run.txt [more.txt ...] [--over SECONDS]

A test is slow when its setup, call and teardown together took `--over` seconds or more (default
1.0). tests/conftest.py marks every test the file names `slow`; a test the file does not name (a
new one, or one renamed since) is in the quick loop until the file is written again.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"^(\d+(?:\.\d+)?)s (?:setup|call|teardown) +(\S+)$")


def durations(reports: list[Path]) -> dict[str, float]:
    total: dict[str, float] = defaultdict(float)
    for report in reports:
        for line in report.read_text(encoding="utf-8", errors="replace").splitlines():
            m = LINE.match(line.strip())
            if m:
                total[m.group(2)] += float(m.group(1))
    return dict(total)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+", type=Path, help="pytest output with a --durations report")
    parser.add_argument("--over", type=float, default=1.0, help="seconds from which a test is slow (default 1.0)")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "slow_tests.txt")
    args = parser.parse_args()
    times = durations(args.reports)
    slow = sorted(n for n, s in times.items() if s >= args.over)
    kept = sum(s for s in times.values() if s < args.over)
    header = [
        "# The tests `pytest -m \"not e2e and not slow\"` leaves out: each took "
        f"{args.over:g} s or more (setup + call + teardown).",
        "# Written by scripts/slow_tests.py from a --durations report; tests/conftest.py reads it.",
    ]
    args.out.write_text("\n".join([*header, *slow]) + "\n", encoding="utf-8")
    print(f"{len(slow)} slow tests ({sum(times[n] for n in slow):.0f} s) written to {args.out}; "
          f"the rest reported {kept:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
