#!/usr/bin/env python3
"""What a committed transition costs, beside git's own cost of the same move (issue 45, point 6).

    python bench/transition_cost.py [--active 10000] [--terminal 50000] [--runs 9] [--store DIR] [--batch N]

A store made by `gen_store` (or `--store DIR`, an existing store: its inbox items are moved to
hold, one per run). Interleaved run by run (A B A B ...), each on an item of its own:

* A: `atk wi hold F --skip-pull --skip-push` (the person's hold: lock, guards, commit);
* B: `git mv wi/inbox/G wi/hold/G` + `git commit -q -m ...` (git's own move and commit).

With `--batch N` (N > 1) each side moves N items at once: A is the person's `atk wi move F...
--to hold` (the dashboard's move of marked items), B is `git mv` of N files and one commit.

Python's bytecode is compiled once by the warm-up pair (in a temporary PYTHONPYCACHEPREFIX), as
an installed atk has it. Each figure is a whole process (or two for B) from start to exit: wall seconds and CPU seconds
(user + sys of the process and its children). Printed: min, median, max of each, the ratio
A/B pair by pair (min, median, max), and the git processes one transition starts (counted
with GIT_TRACE). Goal: median ratio <= 1.0.

Measured (issue 45, point 6; 10,000 active + 50,000 archived items, a 2-core machine, 9-15 pairs;
`--atk` runs another tree's atk in the same way):

    before (10 git processes)               wall ratio 1.49 / 1.64   CPU ratio 1.29 / 1.28   (median)
    8 git processes                         wall ratio 1.31 / 1.57   CPU ratio 1.21 / 1.22
    own flock, twins matched in one pass    wall ratio 1.49 / 1.56   CPU ratio 1.15 / 1.22
    (a quiet machine; the same run, the previous and this atk against git pair by pair: 1.22 and
    1.17 CPU; filelock's import, measured after the CLI's and service's own: 17-25 ms CPU)

Where atk's time goes now (one hold, quiet machine): the interpreter (~20 ms) and the imports of
the CLI and the service (~56 ms); the eight git processes (~92 ms: `update-index` and
`write-tree`, each reading and rewriting a 68,000-entry index, most of it); the case-twin look
over every state folder (~35 ms, ~27 of them the kernel listing 60,000 names: never a cache,
since the rule refuses work); the rest (~20 ms) the lock, the journal, the item's parse and the
index copy. git's own pair spends its extra time refreshing the whole index (an lstat per
entry), which atk never does; what atk spends instead is a Python process. filelock's import
(version 4) was replaced by an flock of the same file (atk_tui/host/flock.py).
pygit2, measured in the same store, costs more: 55 ms to import, 42 ms to read the index, 60 ms
to write the tree.

Measured and not taken (2026-12-06, the same store; this run's medians: atk 292 ms CPU, git 242,
ratio 1.18): the second `write-tree` (60-73 ms, 37 of them rewriting and hashing the 8 MB index)
could give way to trees built from HEAD's (`cat-file --batch`, about 8 ms; parsed and rebuilt in
Python, about 13; the index's blob ids, `ls-files -s`, about 10; written by `mktree --batch`,
about 30, or by hand at zlib level 1, about 6). At best about 30 ms less, and with a record
of the clean index kept across processes (the look's `write-tree`, about 11 ms) about 1.03: not
1.0, at the price of git's object writing done again in Python, a second commit path (a
pre-commit hook may stage files, so it needs `write-tree`) and a record a write would rest on.

A batch (2026-12-06, medians of 7 pairs, the previous atk and this one on copies of the same
store, two runs): ten items 537-547 -> 291-329 ms (ratio 2.90-3.17 -> 1.62-1.77 wall,
2.22-2.51 -> 1.22-1.35 CPU), forty 1,584-1,621 -> 348-437 ms (7.87-8.82 -> 1.93-2.12 wall,
6.31-6.99 -> 1.42-1.63 CPU), once the case-twin look lists every state folder once for the
whole batch (it listed them once an item). Measured and not taken the same day: a
split index (`core.splitIndex`; each hold 309-339 ms against 258-270 plain, two runs each);
index format 4 (no change in `update-index` or `write-tree`); `index.skipHash` needs git 2.40.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gen_store import generate_store  # noqa: E402

from atk_tui.itemfile.items import parse_item  # noqa: E402

ATK = str(Path(sys.executable).with_name("atk"))


def timed(cmds: list[list[str]], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Run `cmds` one after the other (each must succeed): (wall s, CPU s of the children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    for cmd in cmds:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr or proc.stdout}")
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def git_processes(cmd: list[str], store: Path, env: dict[str, str]) -> list[str]:
    """The git commands one transition (`cmd`) runs (GIT_TRACE's `built-in:` lines)."""
    with tempfile.NamedTemporaryFile("r", suffix=".trace") as trace:
        timed([cmd], store, {**env, "GIT_TRACE": trace.name})
        lines = trace.read().splitlines()
    return [line.split("built-in: ", 1)[1] for line in lines if "built-in: " in line]


def spread(values: list[float], scale: float = 1000.0, fmt: str = "{:.0f}") -> str:
    return " / ".join(fmt.format(v * scale) for v in (min(values), statistics.median(values), max(values)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--active", type=int, default=10000)
    ap.add_argument("--terminal", type=int, default=50000)
    ap.add_argument("--runs", type=int, default=9, help="pairs counted (after one warm-up pair)")
    ap.add_argument("--store", type=Path, help="an existing store to use (its inbox items move to hold)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=1,
                    help="items a transition moves: above 1, `atk wi move F... --to hold` against `git mv F... wi/hold/`")  # fmt: skip
    ap.add_argument("--atk", default=ATK, help="the atk command to time (another version's, to compare)")
    args = ap.parse_args()
    atk = args.atk

    tmp = None
    if args.store is None:
        tmp = tempfile.TemporaryDirectory(prefix="atk-transition-")
        generate_store(Path(tmp.name), args.active, args.terminal, args.seed)
        store = Path(tmp.name) / "store"
    else:
        store = args.store.resolve()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "ATK_", "CLAUDECODE"))}
    env.update(ATK_PRIVATE_NOTES=str(store), ATK_READ_WINDOW="0")
    # as installed: the modules' bytecode compiled once (by the warm-up), kept out of the tree
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    pycache = tempfile.TemporaryDirectory(prefix="atk-pycache-")
    env["PYTHONPYCACHEPREFIX"] = pycache.name
    inbox = sorted(p.name for p in (store / "wi" / "inbox").iterdir() if p.name.endswith(".md"))
    if args.batch > 1:  # the generated store's defective files (1 %) would refuse a whole batch
        inbox = [n for n in inbox if not parse_item(n, "inbox", (store / "wi" / "inbox" / n).read_bytes()).defects]
    needed = 2 * (args.runs + 1) * args.batch + 1
    if len(inbox) < needed:
        raise SystemExit(f"{store}: {len(inbox)} inbox items, {needed} needed")
    names = iter(inbox)

    def batch() -> list[str]:
        return [next(names) for _ in range(args.batch)]

    def atk_move(files: list[str]) -> list[str]:
        if len(files) == 1:
            return [atk, "wi", "hold", files[0], "--skip-pull", "--skip-push"]
        return [atk, "wi", "move", *files, "--to", "hold", "--skip-pull", "--skip-push"]

    procs = git_processes(atk_move([next(names)]), store, env)
    atk_wall: list[float] = []
    atk_cpu: list[float] = []
    git_wall: list[float] = []
    git_cpu: list[float] = []
    for run in range(args.runs + 1):
        wa, ca = timed([atk_move(batch())], store, env)
        b = batch()
        wb, cb = timed(
            [["git", "mv", *(f"wi/inbox/{n}" for n in b), "wi/hold/"], ["git", "commit", "-q", "-m", f"hold {b[0]}"]],
            store,
            env,
        )
        if run == 0:
            continue  # warm-up
        atk_wall.append(wa)
        atk_cpu.append(ca)
        git_wall.append(wb)
        git_cpu.append(cb)

    wall_ratio = [a / b for a, b in zip(atk_wall, git_wall, strict=True)]
    cpu_ratio = [a / b for a, b in zip(atk_cpu, git_cpu, strict=True)]
    files = sum(1 for _ in (store / "wi").rglob("*.md"))
    print(f"store: {store} ({files} item files), {args.runs} pairs after one warm-up, interleaved")
    print("figure                                       min / median / max")
    what = "atk wi hold" if args.batch == 1 else f"atk wi move of {args.batch}"
    print(f"{what + ' --skip-pull --skip-push, wall ms':45s} {spread(atk_wall)}")
    print(f"git mv + git commit, wall ms                  {spread(git_wall)}")
    print(f"ratio atk / git, wall (pair by pair)          {spread(wall_ratio, 1, '{:.2f}')}")
    print(f"atk, CPU ms (user + sys, with children)       {spread(atk_cpu)}")
    print(f"git mv + git commit, CPU ms                   {spread(git_cpu)}")
    print(f"ratio atk / git, CPU (pair by pair)           {spread(cpu_ratio, 1, '{:.2f}')}")
    print(f"git processes of one transition: {len(procs)}")
    for line in procs:
        print(f"  {line}")
    pycache.cleanup()
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
