#!/usr/bin/env python3
"""Growth: `bench/scale.py` on stores of 1k, 10k and 30k active items, every figure's ratio to its
floor side by side, and how its time grows with the store.

    python bench/growth.py [--sizes 1000,10000,30000] [--stores DIR] [--no-tmux]
                           [--only NAME,...] [--reps N] [--word WORD] [--out DIR]
    python bench/growth.py --from-json DIR

For each size N, `STORES/sN` (a `store` and its `remote.git`, made by `gen_store.py --remote` on
the first run: N active + min(5N, 50,000) terminal items; STORES defaults to ~/.cache/atk-bench) is
copied to a temporary folder (the store's origin pointed at the copy's remote.git), scale.py runs
on the copy and writes `OUT/scale-N.json`, and the copy is deleted. Then one table: each figure's
ratio to its floor and its time at every size, and its growth: (time at the largest / time at the
smallest) / (largest / smallest size), ~1.0 or below is linear or better. `--from-json DIR` prints
that table again from the JSON files of an earlier run.

With `backlog` (Backlog.md) on PATH, atk is also timed beside it on the same items at every size
(`bench/backlog_vs.py`; `--only` without `backlog` leaves it out); without it this is said and skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import backlog_vs  # noqa: E402  (bench/ is on the path from here)


def label(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def machine() -> dict[str, Any]:
    return {"nproc": os.cpu_count(), "arch": platform.machine(), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "load_start": os.getloadavg()}  # fmt: skip


def run_size(n: int, stores: Path, out: Path, args: argparse.Namespace, scale_only: str | None) -> None:
    src = stores / f"s{n}"
    if not (src / "store").is_dir():  # made once, kept for the next run (the copies get the commits)
        from gen_store import generate_store

        terminal = min(5 * n, 50_000)
        print(f"making {src}: {n} active + {terminal} terminal items (once; kept for the next run)", flush=True)
        generate_store(src, n, terminal, seed=1, remote=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"atk-growth-{n}-"))
    try:
        subprocess.run(["cp", "-a", str(src), str(tmp)], check=True)
        copy = tmp / src.name
        if (copy / "remote.git").is_dir():
            subprocess.run(["git", "-C", str(copy / "store"), "remote", "set-url", "origin", str(copy / "remote.git")], check=True)
        # a copy's files have new inodes and change times: git's index no longer vouches for
        # them, as it does in a clone (checkout) and after atk's own writes; refreshed as
        # `git status` would, or the archive's signature falls back to a stat of 50,000 files
        subprocess.run(["git", "-C", str(copy / "store"), "update-index", "-q", "--refresh"], check=False)
        time.sleep(2.1)  # an index written just now is racy: no listing is kept until it is 2 s old
        argv = [sys.executable, str(BENCH / "scale.py"), "--store", str(copy / "store"), "--json", str(out / f"scale-{n}.json"),
                "--word", args.word]  # fmt: skip
        argv += ["--no-tmux"] * args.no_tmux + (["--only", scale_only] if scale_only else [])
        argv += ["--reps", str(args.reps)] if args.reps else []
        print(f"\n## {label(n)} active items: {' '.join(argv[1:])}", flush=True)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # atk starts from its .pyc
        subprocess.run(argv, check=True, env=env)
        if backlog_vs.available() and (args.only is None or "backlog" in args.only.split(",")):
            try:
                rows = backlog_vs.side_by_side(copy / "store", tmp, args.reps or 3, args.word)
                (out / f"backlog-{n}.json").write_text(json.dumps(rows, indent=2))
            except Exception as exc:  # the side-by-side is an extra: its failure is said, the figures stay
                print(f"Backlog.md side-by-side at {label(n)} failed: {str(exc)[:800]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fmt_ms(v: float) -> str:
    return "-" if v != v else f"{v * 1000:.0f} ms"


def print_table(out: Path) -> None:
    info = json.loads((out / "machine.json").read_text()) if (out / "machine.json").exists() else {}
    runs = sorted((int(p.stem.split("-")[1]), json.loads(p.read_text())["table"]) for p in out.glob("scale-*.json"))
    if not runs:
        raise SystemExit(f"no scale-*.json in {out}")
    sizes = [n for n, _ in runs]
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for n, table in runs:
        for r in table:
            row = rows.setdefault((r["figure"], r["floor"]), {"goal": r["goal"], "s": {}, "ratio": {}})
            row["s"][n], row["ratio"][n] = float(r["s"]), float(r["ratio"])
    print()
    if info:
        ls, le = info.get("load_start") or [], info.get("load_end") or []
        print(f"machine: {info['nproc']} CPUs, {info['arch']}, Python {info['python']}; {info['date']}; "
              f"load average (1/5/15 min) {' '.join(f'{x:.2f}' for x in ls)} at start, "
              f"{' '.join(f'{x:.2f}' for x in le) or '?'} at end")  # fmt: skip
    print(f"growth = (time at {label(sizes[-1])} / time at {label(sizes[0])}) / ({sizes[-1]} / {sizes[0]}): "
          "~1.0 or below is linear or better\n")  # fmt: skip
    head = ["figure", "floor", "goal", *(f"ratio@{label(n)}" for n in sizes), *(f"time@{label(n)}" for n in sizes), "growth"]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join(["---"] * 3 + ["---:"] * (len(head) - 3)) + " |")
    lo, hi = sizes[0], sizes[-1]
    for (figure, floor), row in rows.items():
        s, ratio = row["s"], row["ratio"]
        if all(v != v for v in s.values()):
            continue  # a phase left out (--only) or failed at every size
        grow = float("nan")
        if hi > lo and s.get(lo, 0) == s.get(lo, 0) and s.get(lo, 0) > 0 and s.get(hi) == s.get(hi):
            grow = (s[hi] / s[lo]) / (hi / lo)
        cells = [figure, floor, row["goal"]]
        cells += ["-" if ratio.get(n, float("nan")) != ratio.get(n, float("nan")) else f"{ratio[n]:.2f}" for n in sizes]
        cells += [fmt_ms(s.get(n, float("nan"))) for n in sizes]
        cells.append("-" if grow != grow else f"{grow:.2f}")
        print("| " + " | ".join(cells) + " |")
    backlog = sorted((int(p.stem.split("-")[1]), p) for p in out.glob("backlog-*.json"))
    for n, p in backlog:
        backlog_vs.print_rows(f"atk vs Backlog.md, {label(n)} active items", json.loads(p.read_text()))
    if not backlog and not backlog_vs.available():
        print(f"\n{backlog_vs.SKIPPED}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,30000", help="active items per store")
    ap.add_argument("--stores", type=Path, default=Path.home() / ".cache" / "atk-bench",
                    help="the folder holding s1000/, s10000/, ... (each made by gen_store.py when missing: "
                    "N active + min(5N, 50,000) terminal items)")  # fmt: skip
    ap.add_argument("--no-tmux", action="store_true")
    ap.add_argument("--only", help="scale.py's phases (and `backlog` for the Backlog.md side-by-side)")
    ap.add_argument("--reps", type=int, help="scale.py --reps")
    ap.add_argument("--word", default="staging", help="what the search figures look for")
    ap.add_argument("--out", type=Path, help="where scale-N.json go (default: a new temporary folder, kept)")
    ap.add_argument("--from-json", type=Path, metavar="DIR", help="only print the table from DIR/scale-*.json")
    args = ap.parse_args(argv)
    if args.from_json:
        print_table(args.from_json)
        return 0
    out = args.out or Path(tempfile.mkdtemp(prefix="atk-growth-out-"))
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob("scale-*.json"), *out.glob("backlog-*.json")]:
        old.unlink()
    info = machine()
    (out / "machine.json").write_text(json.dumps(info))
    print(f"machine: {info['nproc']} CPUs, {info['arch']}, Python {info['python']}; {info['date']}; "
          f"load average {info['load_start'][0]:.2f} at start; results in {out}", flush=True)  # fmt: skip
    if not backlog_vs.available():
        print(backlog_vs.SKIPPED, flush=True)
    scale_only = (",".join(p for p in args.only.split(",") if p != "backlog") or "none") if args.only else None
    for n in sorted(int(x) for x in args.sizes.split(",")):
        run_size(n, args.stores, out, args, scale_only)
    info["load_end"] = os.getloadavg()
    (out / "machine.json").write_text(json.dumps(info))
    print_table(out)
    print(f"\n(print again: python bench/growth.py --from-json {out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
