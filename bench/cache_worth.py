#!/usr/bin/env python3
"""Does each optional loader and cache earn its keep? Each on the measure it exists for, with it
and without it, in alternating runs of fresh processes on the same store (issue 27: keep one
only where it wins at least 20 %).

    python bench/cache_worth.py --store DIR [--runs N] [--only NAME,...]

DIR is a store made by `bench/gen_store.py` (its `store` folder). Each figure is the median of
`--runs` fresh processes (wall and CPU time), "without" made by switching the part off in the
process that measures (a patch of the function, never a flag of the product):

| part | measure | off |
| --- | --- | --- |
| fast-yaml | cold `atk wi list --json` (no cache) | `itemfile.items.fast_load` sends all to PyYAML |
| item-cache | the dashboard's load, no saved view (`Service.queue`) | the item cache empty, never saved |
| saved-view | the dashboard's load as it starts (`saved_queue`, then `queue(previous=)`) | no saved view |
| line-cache | `atk wi list --json --status=all` after one active item changed | the line cache empty, never saved |
| listing-cache | warm `atk wi list --json` | the judged listing never loaded |
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PRELUDE = r"""
import os, sys, time, resource
sys.argv = ["atk"] + ARGS
PATCH
t0 = time.perf_counter()
BODY
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_SELF); rc = resource.getrusage(resource.RUSAGE_CHILDREN)
print("\nRESULT", wall, ru.ru_utime + ru.ru_stime + rc.ru_utime + rc.ru_stime, file=sys.stderr)
"""

CLI_BODY = r"""
from atk_tui.cli.quicklist import main
try:
    main()
except SystemExit:
    pass
"""

QUEUE_BODY = r"""
from atk_tui.service import Service
svc = Service(STORE, pull=False, push=False)
saved = svc.saved_queue() if SAVED else None
view = svc.queue(previous=saved)
assert len(view.items) > 0
"""

PATCHES = {
    "fast-yaml": "import atk_tui.itemfile.items as it; it.fast_load = lambda text: None",
    "item-cache": (
        "import atk_tui.cache.caches as c\n"
        "c.ItemCache.load = lambda self: setattr(self, 'entries', {})\n"
        "c.ItemCache.save = lambda self, keep=None: None"
    ),
    "line-cache": (
        "import atk_tui.cache.caches as c\n"
        "c.LineCache.load = lambda self: setattr(self, 'entries', {})\n"
        "c.LineCache.save = lambda self, keep=None: None"
    ),
    "listing-cache": "import atk_tui.cache.caches as c; c.ListingCache.load = lambda self, *a, **k: None",
    "saved-view": "",
}


def cache_dir(store: Path) -> Path:
    return store / ".git" / "atk-cache"


def run(code: str, store: Path) -> tuple[float, float]:
    env = dict(os.environ, ATK_PRIVATE_NOTES=str(store))
    for var in ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT"):
        env.pop(var, None)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    for line in p.stderr.splitlines():
        if line.startswith("RESULT "):
            _, wall, cpu = line.split()
            return float(wall), float(cpu)
    raise SystemExit(f"the measured process failed:\n{p.stderr[-2000:]}")


def program(body: str, args: list[str], patch: str, store: Path, saved: bool = False) -> str:
    code = PRELUDE.replace("ARGS", repr(args)).replace("PATCH", patch).replace("BODY", body)
    return code.replace("STORE", repr(str(store))).replace("SAVED", repr(saved))


def touch_one(store: Path) -> None:
    inbox = store / "wi" / "inbox"
    name = sorted(os.listdir(inbox))[0]
    path = inbox / name
    path.write_text(path.read_text() + "\n")
    subprocess.run(["git", "-C", str(store), "commit", "-qam", "bench: one change"], check=True)


def measure(name: str, store: Path, runs: int) -> dict[str, object]:
    patch = PATCHES[name]
    on: list[tuple[float, float]] = []
    off: list[tuple[float, float]] = []
    list_args = ["wi", "list", "--json", "--skip-pull"]
    for i in range(runs):
        for side in ((0, 1) if i % 2 == 0 else (1, 0)):
            with_it = side == 0
            if name == "fast-yaml":
                shutil.rmtree(cache_dir(store), ignore_errors=True)
                code = program(CLI_BODY, list_args, "" if with_it else patch, store)
            elif name == "listing-cache":
                run(program(CLI_BODY, list_args, "", store), store)  # warm it
                code = program(CLI_BODY, list_args, "" if with_it else patch, store)
            elif name == "line-cache":
                all_args = [*list_args, "--status=all"]
                run(program(CLI_BODY, all_args, "", store), store)  # lines cached
                touch_one(store)
                code = program(CLI_BODY, all_args, "" if with_it else patch, store)
            elif name == "item-cache":
                run(program(QUEUE_BODY, [], "", store), store)  # items cached
                code = program(QUEUE_BODY, [], "" if with_it else patch, store)
            elif name == "saved-view":
                run(program(QUEUE_BODY + "\nsvc.save_queue(view)\n", [], "", store, saved=True), store)
                code = program(QUEUE_BODY, [], "", store, saved=with_it)
            else:
                raise SystemExit(f"unknown part {name}")
            (on if with_it else off).append(run(code, store))
    med = lambda xs, k: statistics.median(x[k] for x in xs)  # noqa: E731
    return {
        "part": name,
        "with_wall": med(on, 0), "without_wall": med(off, 0),
        "with_cpu": med(on, 1), "without_cpu": med(off, 1),
        "gain_wall": 1 - med(on, 0) / med(off, 0), "gain_cpu": 1 - med(on, 1) / med(off, 1),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", help="comma-separated parts: " + ", ".join(PATCHES))
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    names = a.only.split(",") if a.only else list(PATCHES)
    print(f"store {a.store}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start; {a.runs} runs each")
    rows = []
    for name in names:
        t = time.time()
        r = measure(name, a.store.resolve(), a.runs)
        rows.append(r)
        print(f"  {name}: done in {time.time() - t:.0f} s", file=sys.stderr)
    print()
    print("| part | with (wall / CPU) | without (wall / CPU) | gain wall | gain CPU | keep (>= 20 %) |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        keep = "yes" if max(r["gain_wall"], r["gain_cpu"]) >= 0.2 else "no"  # type: ignore[type-var]
        print(
            f"| {r['part']} | {r['with_wall'] * 1000:.0f} / {r['with_cpu'] * 1000:.0f} ms | "
            f"{r['without_wall'] * 1000:.0f} / {r['without_cpu'] * 1000:.0f} ms | {r['gain_wall']:+.0%} | "
            f"{r['gain_cpu']:+.0%} | {keep} |"
        )
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
