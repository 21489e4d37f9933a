"""A cold start's parsing on the machine's other core.

A listing or a dashboard with no cache parses every active file (30,000 of them: ~3 s of one
core, most of it parsing). `parse_beside` hands the second part of that work to a new Python
process (`python -m atk_tui.cache.twocores`) while the caller parses the first; the process
parses with the same code (`read_item_file`) and sends each item back as the item cache's
record (`to_record`), which the caller makes an item of as a cached one is
(`from_record`). The split leaves the process fewer items than the caller: it starts Python
first (~0.1 s here).

Only a speed-up: a process that cannot start, fails, is killed or says anything unexpected
is worth nothing, and the caller parses those items itself (`Parsed.take` returns None). Below
`MIN_ITEMS`, or on one core, there is no process at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: fewer items than this are parsed in the caller alone (a second Python's start would cost
#: more than half their parsing)
MIN_ITEMS = 3000
#: what the other process's start is worth in items parsed (its share is smaller by this)
START_ITEMS = 1500
#: the longest the caller waits for the other process once its own part is done, in seconds
WAIT_S = 120.0

Work = tuple[str, str, str, str]  # (path under the store root, filename, state, queue)


def share(n: int, cores: int | None = None) -> int:
    """How many of `n` items the other process parses: 0 below `MIN_ITEMS` or on one core."""
    if n < MIN_ITEMS or (cores if cores is not None else len(os.sched_getaffinity(0))) < 2:
        return 0
    return max((n - START_ITEMS) // 2, 0)


class Parsed:
    """The other process's part (`parse_beside`): `take()` once the caller's part is done."""

    def __init__(self, root: str, work: Sequence[Work]) -> None:
        self.n = len(work)
        self.out: list[bytes] = []
        self.proc: subprocess.Popen[bytes] | None = None
        package_parent = str(Path(__file__).resolve().parent.parent.parent)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p))
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "atk_tui.cache.twocores"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, close_fds=True,
            )  # fmt: skip
        except (OSError, ValueError):
            return
        order = json.dumps([root, list(work)]).encode("ascii")
        self.threads = [
            threading.Thread(target=self._send, args=(order,), daemon=True),
            threading.Thread(target=self._read, daemon=True),
        ]
        for t in self.threads:
            t.start()

    def _send(self, order: bytes) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            with self.proc.stdin:
                self.proc.stdin.write(order)
        except (OSError, ValueError):
            pass

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        try:
            with self.proc.stdout:
                self.out = self.proc.stdout.read().split(b"\n")
        except (OSError, ValueError):
            self.out = []

    def take(self) -> list[tuple[bool, str, list[Any]]] | None:
        """(read whole, blob, record) of every item of the part, in its order; None when the
        process did not parse them all (the caller parses them)."""
        proc = self.proc
        if proc is None:
            return None
        try:
            for t in self.threads:
                t.join(WAIT_S)
            if any(t.is_alive() for t in self.threads) or proc.wait(5) != 0:
                raise ValueError("the other process did not finish")
            lines = self.out
            if len(lines) != self.n + 1 or lines[-1] != b"":
                raise ValueError("the other process said something else")
            got = [json.loads(line) for line in lines[:-1]]
            if not all(type(g) is list and len(g) == 3 and type(g[0]) is bool and type(g[1]) is str and type(g[2]) is list for g in got):
                raise ValueError("the other process said something else")
            return got
        except (ValueError, subprocess.TimeoutExpired, OSError, RecursionError):
            proc.kill()
            proc.wait()
            return None


def parse_beside(root: str, work: Sequence[Work]) -> Parsed:
    """Start parsing `work` in another process; `take()` its items when yours are done."""
    return Parsed(root, work)


def main() -> int:
    """The other process: an order (root, work) on stdin, one line per item on stdout."""
    from atk_tui.cache.caches import to_record
    from atk_tui.itemfile.items import read_item_file

    root, work = json.loads(sys.stdin.buffer.read())
    out = sys.stdout.buffer
    lines: list[bytes] = []
    for rel, name, state, queue in work:
        item, whole = read_item_file(root, rel, name, state, queue)
        lines.append(json.dumps([whole, item.blob, to_record(item)], separators=(",", ":")).encode("ascii"))
        if len(lines) >= 500:
            out.write(b"\n".join(lines) + b"\n")
            lines = []
    if lines:
        out.write(b"\n".join(lines) + b"\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
