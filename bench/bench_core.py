"""Time the core paths on a large store: listing (cold and warm) and one transition.

Usage: python bench/bench_core.py [--active N] [--terminal N] [--store DIR] [--keep] [--runs N]

Makes a store with `bench/gen_store.py` (10,000 active + 50,000 terminal items by default;
`--active/--terminal` shrink it, `--store DIR` reuses one made earlier) and prints, as
medians:

* `atk wi list --json` wall time as a subprocess, cold (no cache: `.git/atk-cache` deleted
  before each run) and warm (cache present), median of `--runs` (5);
* one transition's latency through `Service` (hold/unhold alternating, pull/push off),
  median of 10;
* the floors measured in the same run, to read the numbers against: a bare interpreter
  start, reading and parsing every active file without the cache (in process), and
  `git mv` + `git commit` of one file.

Targets (issue #2): list <= 0.3 s warm, <= 1.0 s cold; transition <= 0.15 s median.

Each line also shows the CPU time (user + system, this process and its children) beside the
wall time: on a loaded machine the wall time mostly measures the queue for a core, the CPU
time still measures the work.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gen_store import generate_store

from atk_tui.core.items import parse_item
from atk_tui.core.model import ACTIVE
from atk_tui.core.service import Service

TARGETS = {"list_warm": 0.3, "list_cold": 1.0, "transition": 0.15}


def atk_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("atk")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "atk_tui.cli"]


def env_for_subprocess() -> dict[str, str]:
    env = dict(os.environ)
    for var in ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT"):
        env.pop(var, None)
    return env


class Timer:
    """Wall and CPU time (self + waited-for children) of a block."""

    def __enter__(self) -> Timer:
        self.t = time.perf_counter()
        self.c = self._cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.t
        self.cpu = self._cpu() - self.c

    @staticmethod
    def _cpu() -> float:
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def median(timers: list[Timer]) -> tuple[float, float]:
    return statistics.median(t.wall for t in timers), statistics.median(t.cpu for t in timers)


def timed_run(cmd: list[str], env: dict[str, str]) -> Timer:
    with Timer() as t:
        proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.decode(errors='replace')}")
    return t


def bench_list(store: Path, runs: int) -> tuple[tuple[float, float], tuple[float, float], int]:
    env = env_for_subprocess()
    cmd = [*atk_cmd(), "wi", "list", "--json", "--store", str(store), "--skip-pull"]
    cache = store / ".git" / "atk-cache"
    cold = []
    for _ in range(runs):
        shutil.rmtree(cache, ignore_errors=True)
        cold.append(timed_run(cmd, env))
    timed_run(cmd, env)  # make sure the cache is written
    warm = [timed_run(cmd, env) for _ in range(runs)]
    out = subprocess.run(cmd, env=env, capture_output=True, check=True).stdout
    return median(cold), median(warm), out.count(b"\n")


def bench_transition(store: Path, runs: int) -> tuple[float, float]:
    svc = Service(store, actor="user", pull=False, push=False)
    items, _ = svc.list(["inbox"])
    name = next(i.filename for i in items if not i.defects)
    times = []
    for k in range(runs):
        with Timer() as t:
            out = svc.hold(name) if k % 2 == 0 else svc.unhold(name)
        times.append(t)
        if not out.ok:
            raise RuntimeError(out.message)
    if runs % 2:
        svc.unhold(name)
    return median(times)


def floor_interpreter(runs: int) -> tuple[float, float]:
    return median([timed_run([sys.executable, "-c", "pass"], os.environ.copy()) for _ in range(runs)])


def floor_parse(store: Path) -> tuple[tuple[float, float], int]:
    """Read and parse every active file, no cache, no git: the least a cold list must do."""
    n = 0
    with Timer() as t:
        for state in sorted(ACTIVE):
            folder = store / "wi" / state
            for entry in os.scandir(folder):
                if entry.name.startswith(".") or not entry.is_file(follow_symlinks=False):
                    continue
                with open(entry.path, "rb") as fh:
                    parse_item(entry.name, state, fh.read())
                n += 1
    return (t.wall, t.cpu), n


def floor_git_commit(store: Path, runs: int) -> tuple[float, float]:
    """`git mv` + `git commit` of one file: what any git-backed transition costs."""
    name = next(p.name for p in sorted((store / "wi" / "hold").iterdir()) if not p.name.startswith("."))
    here, there = "hold", "inbox"
    times = []
    for _ in range(runs):
        with Timer() as t:
            subprocess.run(["git", "mv", f"wi/{here}/{name}", f"wi/{there}/{name}"], cwd=store, check=True)
            subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "bench: mv"], cwd=store, check=True)
        times.append(t)
        here, there = there, here
    if here != "hold":
        subprocess.run(["git", "mv", f"wi/{here}/{name}", f"wi/hold/{name}"], cwd=store, check=True)
        subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "bench: mv back"], cwd=store, check=True)
    return median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--active", type=int, default=10_000)
    ap.add_argument("--terminal", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--store", type=Path, help="use this store (made by gen_store.py) instead of making one")
    ap.add_argument("--keep", action="store_true", help="keep the generated store and print where it is")
    ap.add_argument("--runs", type=int, default=5, help="runs per list median (default 5)")
    ap.add_argument("--transitions", type=int, default=10, help="transitions for the median (default 10)")
    args = ap.parse_args(argv)

    tmp = None
    if args.store:
        store = args.store.resolve()
    else:
        tmp = Path(tempfile.mkdtemp(prefix="atk-bench-"))
        t = time.perf_counter()
        store = generate_store(tmp, args.active, args.terminal, args.seed)
        print(f"generated {args.active} active + {args.terminal} terminal items in {time.perf_counter() - t:.1f} s")
    try:
        subprocess.run(["git", "config", "user.name", "atk bench"], cwd=store, check=True)
        subprocess.run(["git", "config", "user.email", "bench@atk.invalid"], cwd=store, check=True)
        cpus = os.cpu_count()
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"store: {store}  ({cpus} CPUs, load average {load:.2f})")

        interp = floor_interpreter(args.runs)
        parse_s, n_active = floor_parse(store)
        cold, warm, listed = bench_list(store, args.runs)
        trans = bench_transition(store, args.transitions)
        git_commit = floor_git_commit(store, args.transitions)

        def row(label: str, value: tuple[float, float], key: str | None = None) -> None:
            wall, cpu = value
            verdict = ""
            if key:
                verdict = "ok" if wall <= TARGETS[key] else f"MISSED (target {TARGETS[key]:.2f} s)"
            print(f"{label:44} {wall:8.3f}s {cpu:8.3f}s  {verdict}")

        print()
        print(f"{'measure (median)':44} {'wall':>9} {'cpu':>9}")
        row("atk wi list --json, warm cache", warm, "list_warm")
        row("atk wi list --json, cold (no cache)", cold, "list_cold")
        row("transition (hold/unhold via Service)", trans, "transition")
        print("floors:")
        row("  python -c pass", interp)
        row(f"  read + parse {n_active} active files", parse_s)
        row("  git mv + git commit of one file", git_commit)
        print(f"(listed {listed} items)")
    finally:
        if tmp is not None:
            if args.keep:
                print(f"kept {tmp}")
            else:
                shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
