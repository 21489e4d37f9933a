#!/usr/bin/env python3
"""The dashboard's refresh after one item changed: `Service.queue()` from scratch against
`Service.queue(previous=last)` (core/rejudge.py), on a generated 10,000-active store.

    python bench/bench_rejudge.py [--active 10000] [--terminal 50000] [--reps 7] [--store DIR]

Each repetition edits one item's frontmatter by hand (its `depends_on`, as an editor or a pull
would), then times the refresh from the last view and a full `queue()` (warm item cache: what
the dashboard did before), and checks both give the same judgements, dependents and blocks
counts. Also timed: a refresh when nothing changed (the floor: listing the folders' lstat,
one lstat per active file, the plan folders' signature, the names compared). Wall and CPU
seconds, medians; the machine's load first (a busy 2-core box slows everything).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_graph import print_machine_load
from gen_store import generate_store

from atk_tui.domain.model import ACTIVE
from atk_tui.service import QueueView, Service

STATES = ACTIVE | {"planning"}  # what the dashboard loads


def timed(fn) -> tuple[float, float, QueueView]:  # type: ignore[no-untyped-def]
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def same(a: QueueView, b: QueueView) -> bool:
    return (
        a.judgements == b.judgements
        and a.dependents == b.dependents
        and a.blocks == b.blocks
        and a.needs_you == b.needs_you
    )


def touch(root: Path, k: int) -> str:
    """Edit the k-th inbox item's depends_on by hand; its name."""
    inbox = sorted((root / "wi" / "inbox").glob("*.md"))
    path, dep = inbox[(k * 37) % len(inbox)], inbox[(k * 37 + 11) % len(inbox)]
    text = path.read_text()
    end = text.index("\n---\n", 4)
    fm = re.sub(r"(?m)^depends_on:.*\n", "", text[4:end] + "\n")
    path.write_text(f"---\n{fm}depends_on: [{dep.name}]{text[end:]}")
    return path.name


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--active", type=int, default=10_000)
    ap.add_argument("--terminal", type=int, default=50_000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--store", type=Path, help="use this store (gen_store.py's `store` folder); edited in place")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="atk-rejudge-") as tmp:
        root = args.store
        if root is None:
            print(f"generating {args.active:,} active + {args.terminal:,} terminal items…", flush=True)
            root = generate_store(Path(tmp), args.active, args.terminal, seed=1)
            time.sleep(2.5)  # older than the racy window: unchanged files are then kept
        svc = Service(root, actor="user", pull=False, push=False)
        svc.queue(STATES)  # the item cache, written on a cold start
        last = svc.queue(STATES)
        print_machine_load()
        idle_w, idle_c, full_w, full_c, inc_w, inc_c = [], [], [], [], [], []
        judged = []
        for k in range(args.reps):
            w, c, view = timed(lambda: svc.queue(STATES, previous=last))  # noqa: B023
            idle_w.append(w)
            idle_c.append(c)
            last = view
            touch(root, k)
            w, c, view = timed(lambda: svc.queue(STATES, previous=last))  # noqa: B023
            inc_w.append(w)
            inc_c.append(c)
            judged.append(sum(1 for n, j in view.judgements.items() if last.judgements.get(n) is not j))
            fw, fc, fresh = timed(lambda: svc.queue(STATES))
            full_w.append(fw)
            full_c.append(fc)
            if not same(view, fresh):
                print("MISMATCH: the refresh differs from a full queue()", file=sys.stderr)
                return 1
            last = view
    n = len(last.items)
    med = statistics.median
    print(f"{n:,} items loaded (active + planning), {args.reps} repetitions, medians (wall / CPU):")
    print(f"  queue() from scratch (warm item cache)      {med(full_w) * 1000:7.1f} ms / {med(full_c) * 1000:7.1f} ms")
    print(f"  queue(previous=) after one item edited     {med(inc_w) * 1000:7.1f} ms / {med(inc_c) * 1000:7.1f} ms"
          f"   ({med(judged):.0f} judgements made anew: the item, its dependents, cooldowns counting down)")  # fmt: skip
    print(
        f"  queue(previous=) with nothing changed      {med(idle_w) * 1000:7.1f} ms / {med(idle_c) * 1000:7.1f} ms   (floor)"
    )
    print(f"  ratio full / incremental: {med(full_w) / med(inc_w):.1f}x wall, {med(full_c) / med(inc_c):.1f}x CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
