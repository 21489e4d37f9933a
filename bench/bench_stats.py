#!/usr/bin/env python3
"""The cost of the wait statistics at scale (issue 16), beside the warm `atk wi list` it is
compared with (goal: warm stats ≤ 2× the warm active list).

    python bench/bench_stats.py [--active 10000] [--terminal 50000]

Generates a store (bench/gen_store.py: one commit holding every item), then a history of 200
question events on top (answers, moves, removals, new questions, dependency changes: one commit
each), and times, each the best of 3 runs of the real binary:

- `atk wi list --json` warm (the floor of this figure);
- `atk wi stats --json --since all` cold (no `.git/atk-stats.json`: the whole history is read,
  every item version parsed once);
- the same warm (HEAD unchanged: the cache is read, nothing else);
- the same after one new commit (the cache plus one commit read incrementally).
Prints a table and peak memory of the stats process.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen_store import generate_store


def run(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, env=env, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:4]} failed: {proc.stderr.decode(errors='replace')[-800:]}")
    return time.perf_counter() - t0


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def add_history(root: Path, commits: int, seed: int = 1) -> None:
    """`commits` commits of question events: answer an open UWI, file a new one, remove one."""
    rng = random.Random(seed)
    inbox = root / "wi" / "inbox"
    uwis = [p for p in sorted(inbox.iterdir()) if p.suffix == ".md" and "kind: uwi" in p.read_text(errors="replace")[:400]]
    for n in range(commits):
        op = rng.random()
        if op < 0.5 and uwis:
            p = uwis.pop(rng.randrange(len(uwis)))
            p.write_text(p.read_text() + "\n## 回答\n\n- 1: A) yes\n", encoding="utf-8")
            git(root, "add", str(p))
        elif op < 0.8:
            p = inbox / f"2026-11-30-bench-question-{n}.md"
            p.write_text(
                "---\nkind: uwi\ntarget_repo: acme/webapp\nurgency: blocking\n---\n# Bench question\n\n"
                "## 質問\nWhich?\n\n- A) yes\n- B) no\n\n推奨: A)\n",
                encoding="utf-8",
            )
            git(root, "add", str(p))
            uwis.append(p)
        elif uwis:
            p = uwis.pop(rng.randrange(len(uwis)))
            git(root, "rm", "-q", str(p))
        else:
            continue
        git(root, "commit", "-q", "--no-verify", "-m", f"atk: bench event {n}", "-m", "Atk-Actor: user")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--active", type=int, default=10000)
    ap.add_argument("--terminal", type=int, default=50000)
    ap.add_argument("--events", type=int, default=200)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="atk-bench-stats-"))
    root = generate_store(tmp, args.active, args.terminal, seed=1)
    add_history(root, args.events)
    env = {**os.environ, "ATK_PRIVATE_NOTES": str(root)}
    for key in ("CLAUDECODE", "AI_AGENT", "CODEX_CI", "CURSOR_AGENT", "PYTHONDONTWRITEBYTECODE"):
        env.pop(key, None)
    # this checkout's code (not whichever `atk` is installed), both figures started the same way
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    atk = [sys.executable, "-m", "atk_tui.cli"]
    lst = [*atk, "wi", "list", "--json", "--store", str(root)]
    st = [*atk, "wi", "stats", "--json", "--since", "all", "--store", str(root)]
    cache = root / ".git" / "atk-stats.json"
    run(lst, env)
    warm_list = min(run(lst, env) for _ in range(3))
    colds = []
    for _ in range(3):
        cache.unlink(missing_ok=True)
        colds.append(run(st, env))
    warm = min(run(st, env) for _ in range(3))
    incr = []
    for n in range(3):
        p = root / "wi" / "inbox" / f"2026-11-30-bench-late-{n}.md"
        p.write_text("---\nkind: awi\ntarget_repo: acme/webapp\n---\n# late\n", encoding="utf-8")
        git(root, "add", str(p))
        git(root, "commit", "-q", "--no-verify", "-m", "atk: add late", "-m", "Atk-Actor: agent")
        incr.append(run(st, env))
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"store: {args.active} active + {args.terminal} terminal items, {args.events} question events on top")
    print(f"{'figure':<44} {'seconds':>8} {'× warm list':>12}")
    for name, value in (
        ("atk wi list --json, warm (floor)", warm_list),
        ("atk wi stats --json, cold (no cache)", min(colds)),
        ("atk wi stats --json, warm", warm),
        ("atk wi stats --json, after one new commit", min(incr)),
    ):
        print(f"{name:<44} {value:>8.3f} {value / warm_list:>11.2f}×")
    print(f"peak RSS of any child process: {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
