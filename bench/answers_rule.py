#!/usr/bin/env python3
"""What the ready list's committed-answers rule (issue 38) costs a listing: an answered
question counts only once its answer is committed, checked against the blob names of its
folder at HEAD (one `git ls-tree`), remembered per HEAD and blob for the dashboard's next look.

    python bench/gen_store.py --active 10000 --terminal 2000 --out /tmp/b10k
    python bench/answers_rule.py /tmp/b10k/store

Measured on the 10k store (458 answered questions, a 7,323-item inbox), a loaded 2-core box:
the rule cold 17-32 ms (the `REV:PATH` lookup it replaced: 1.5 s), remembered ~1 ms; a cold
`Service.queue()` there takes 600-1,300 ms.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from atk_tui.domain.model import ACTIVE
from atk_tui.service import Service
from atk_tui.service.reading.fromfiles import committed_answers_only


def main(root: Path) -> None:
    items, _, _ = Service(root).load_items(ACTIVE)
    cold: list[float] = []
    again = 0.0
    for _ in range(7):
        svc = Service(root)
        listed = dict(items)
        start = time.perf_counter()
        committed_answers_only(svc, listed)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        committed_answers_only(svc, listed)
        again = time.perf_counter() - start
    answered = sum(1 for i in items.values() if i.is_question and i.answered)
    print(
        f"the rule, cold: median {statistics.median(cold) * 1000:.1f} ms, min {min(cold) * 1000:.1f} ms; "
        f"remembered: {again * 1000:.2f} ms; answered questions: {answered}"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
