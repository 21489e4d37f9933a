#!/usr/bin/env python3
"""From an agent's question pushed on one clone to the notification at the receiver (issue 40),
and what `atk hub` costs while nothing happens.

    python bench/hub_latency.py [--runs 20] [--poll SECONDS] [--idle 60]

A bare remote with two clones: the person's, which `atk hub` follows (a real process, the
answer page on 127.0.0.1 too), and an agent's. The notification target is a local HTTP receiver
standing in for an ntfy server (`ntfy://127.0.0.1:PORT/topic`, tests/support/hubkit.py): what
apprise publishes is what ntfy.sh would get. Each run: a random pause (so the question lands
at any point of the hub's poll), then the agent's `atk wi add` (committed and pushed); the
figure is from that command's exit to the receiver having the notification. p50/p95 over the
runs at the default settings (poll 5 s); goal: p95 <= 5 s on a local remote.

Idle: with nothing filed, for `--idle` seconds, the hub's CPU time (its own and its git
children's, from /proc) per minute, and its looks at the remote per minute (each one `git
ls-remote`; a fetch only when the remote moved: counted from the remote-tracking branch's reflog).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support.hubkit import (  # noqa: E402
    HubProcess,
    NtfyReceiver,
    file_question,
    hub_env,
    read_status,
    wait_until,
    write_notify_config,
)
from support.storekit import clone, make_remote_pair  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` and of its waited-for children (git), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def fetches(root: Path) -> int:
    """Fetches that moved the remote-tracking branch so far (its reflog's entries)."""
    import subprocess

    out = subprocess.run(["git", "reflog", "--format=%H", "refs/remotes/origin/main"], cwd=root, capture_output=True,
                         text=True, check=False).stdout  # fmt: skip
    return len(out.split())


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * len(s) + 0.5) - 1))
    return s[k]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--poll", type=float, default=None, help="[notify] poll (default: the hub's default, 5 s)")
    ap.add_argument("--idle", type=float, default=60.0, help="seconds of idle measured (0: skip)")
    args = ap.parse_args()
    for k, v in {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
                 "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}.items():  # fmt: skip
        os.environ.setdefault(k, v)
    with tempfile.TemporaryDirectory(prefix="atk-hub-bench-") as t:
        tmp = Path(t)
        root, remote = make_remote_pair(tmp)
        agent = clone(remote, tmp / "agent")
        home = tmp / "home"
        env, agent_env = hub_env(home), hub_env(home, agent=True)
        rx = NtfyReceiver()
        notify: dict = {"urls": [rx.url("bench")]}
        if args.poll is not None:
            notify["poll"] = args.poll
        write_notify_config(home / "config", notify)
        hub = HubProcess(root, env, ("--port", "0")).start()
        hub.wait_for_line("looking every")
        poll = args.poll or 5.0
        waits: list[float] = []
        adds: list[float] = []
        try:
            for n in range(args.runs):
                time.sleep(random.uniform(0, poll))
                before = len(rx.received())
                t0 = time.time()
                file_question(agent_env, agent, title=f"Bench question {n}")
                pushed = time.time()
                got = wait_until(lambda b=before: len(rx.received()) > b and rx.received()[b], 60, f"notification {n}")
                waits.append(got.at - pushed)
                adds.append(pushed - t0)
                print(f"run {n + 1:>2}: notified {got.at - pushed:5.2f} s after the push (the add took {pushed - t0:4.2f} s)")
            print()
            print(f"question pushed -> notification received, {len(waits)} runs, poll {poll:g} s:")
            print(f"  p50 {statistics.median(waits):.2f} s · p95 {pct(waits, 95):.2f} s · max {max(waits):.2f} s "
                  f"(goal p95 <= 5 s)")  # fmt: skip
            print(f"  (the agent's atk wi add itself: p50 {statistics.median(adds):.2f} s)")
            if args.idle > 0:
                assert hub.proc is not None
                time.sleep(poll * 2)  # everything from the runs sent
                fetches0 = fetches(root)
                looks0 = read_status(env, root).get("looks", 0)
                cpu0, w0 = cpu_seconds(hub.proc.pid), time.monotonic()
                time.sleep(args.idle)
                cpu1, w1 = cpu_seconds(hub.proc.pid), time.monotonic()
                looks1 = read_status(env, root).get("looks", 0)
                minutes = (w1 - w0) / 60
                print()
                print(f"idle for {w1 - w0:.0f} s:")
                print(f"  CPU {(cpu1 - cpu0) / minutes:.2f} s per minute ({100 * (cpu1 - cpu0) / (w1 - w0):.1f} % of one core),"
                      " the hub and its git children")  # fmt: skip
                print(f"  looks at the remote (git ls-remote) {(looks1 - looks0) / minutes:.1f} per minute, "
                      f"fetches {(fetches(root) - fetches0) / minutes:.1f} per minute")
        finally:
            hub.stop()
            rx.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
