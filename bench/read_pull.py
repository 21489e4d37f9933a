#!/usr/bin/env python3
"""What a read's pull costs (SPEC §15), beside its floor in the same run.

    python bench/read_pull.py [--active N] [--runs N] [--transport file|daemon]

A generated store (N active items, `gen_store`) is pushed to a bare remote and cloned twice:
A (the person) and B (an agent, CLAUDECODE=1). Measured on B, interleaved run by run:

* `atk wi show F` and the warm `atk wi list --json`, pulling (ATK_READ_WINDOW=0: the remote is
  asked every time; it has not moved), against the same read with `--skip-pull` (the floor):
  the ratio of the medians, goal <= 1.3.
* polling: `atk wi show F` every 0.25 s for 10 s at the default window: how many times the
  remote was asked (an upload-pack wrapper counts them), against the window's bound.
* `atk wi wait F` on B, the person answering on A: seconds from the answer's commit being
  pushed to the waiter printing it (goal <= 2 s on a local remote).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from gen_store import generate_store  # noqa: E402

ATK = str(Path(sys.executable).with_name("atk"))
UWI = """# Which cache should the importer use?

## 質問
Which one?

- A) Redis -- shared
- B) In-process -- simple

推奨: A) shared
"""


def run(root: Path, *args: str, **env: str) -> float:
    full = {**os.environ, "CLAUDECODE": "1", **env}
    t = time.perf_counter()
    proc = subprocess.run([ATK, *args, "--store", str(root)], capture_output=True, text=True, env=full)
    took = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"atk {' '.join(args)} failed: {proc.stderr}")
    return took


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def pair(root: Path, args: tuple[str, ...], runs: int) -> tuple[float, float]:
    """(median with the pull, median with --skip-pull), interleaved."""
    pulled, floor = [], []
    run(root, *args)
    run(root, *args, "--skip-pull")
    for _ in range(runs):
        pulled.append(run(root, *args, ATK_READ_WINDOW="0"))
        floor.append(run(root, *args, "--skip-pull"))
    return statistics.median(pulled), statistics.median(floor)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--active", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--transport", choices=["file", "daemon"], default="file")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="atk-read-pull-") as tmp_s:
        tmp = Path(tmp_s)
        generate_store(tmp, args.active, 0, seed=1, remote=True)
        remote = tmp / "remote.git"
        a = tmp / "store"
        b = tmp / "b"
        subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
        daemon = None
        if args.transport == "daemon":
            from support.remotes import git_daemon

            daemon = git_daemon(tmp)
            url = daemon.__enter__()
            for root in (a, b):
                git(root, "remote", "set-url", "origin", f"{url}/remote.git")
        try:
            env = {**os.environ, "CLAUDECODE": "1"}
            made = subprocess.run(
                [ATK, "wi", "add", "--kind", "uwi", "--target-repo", "acme/webapp", "--source", "add-uwi", UWI,
                 "--store", str(b)], capture_output=True, text=True, env=env, check=True,
            )  # fmt: skip
            uwi = made.stdout.splitlines()[0].strip()
            run(b, "wi", "list", "--json")  # the listing cache, warm
            rows = []
            for label, cmd in (("atk wi show F", ("wi", "show", uwi)), ("atk wi list --json, warm", ("wi", "list", "--json"))):
                with_pull, floor = pair(b, cmd, args.runs)
                rows.append((label, with_pull, floor))
            # polling at the default window: how often the remote is asked
            log = tmp / "asked.log"
            wrapper = tmp / "upload-pack"
            wrapper.write_text(f'#!/bin/sh\necho asked >> {log}\nexec git-upload-pack "$@"\n')
            wrapper.chmod(0o755)
            polls, asked = 0, 0
            if args.transport == "file":
                git(b, "config", "remote.origin.uploadpack", str(wrapper))
                end = time.monotonic() + 10
                while time.monotonic() < end:
                    subprocess.run([ATK, "wi", "show", uwi, "--store", str(b)], capture_output=True, env=env)
                    polls += 1
                    time.sleep(0.25)
                asked = log.read_text().count("asked") if log.exists() else 0
                git(b, "config", "--unset", "remote.origin.uploadpack")
            # wait: the person answers on A
            git(a, "pull", "-q")
            waiter = subprocess.Popen([ATK, "wi", "wait", uwi, "--timeout", "60", "--store", str(b)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
            time.sleep(1.5)  # the waiter is polling
            user_env = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "AI_AGENT", "CODEX_CI", "CURSOR_AGENT")}
            subprocess.run([ATK, "wi", "answer", uwi, "--choose", "1=A", "--store", str(a)],
                           check=True, capture_output=True, env=user_env)  # fmt: skip
            answered = time.perf_counter()
            waiter.communicate(timeout=60)
            seen = time.perf_counter() - answered
        finally:
            if daemon is not None:
                daemon.__exit__(None, None, None)
    print(f"read pull, {args.active} active items, {args.transport} remote, {args.runs} interleaved runs (medians)")
    print(f"{'read':<28} {'pulling':>9} {'--skip-pull':>12} {'ratio':>6}  goal")
    for label, with_pull, floor in rows:
        print(f"{label:<28} {with_pull * 1000:>7.0f}ms {floor * 1000:>10.0f}ms {with_pull / floor:>6.2f}  <= 1.3")
    if polls:
        window = 2.0
        print(f"polling `atk wi show` every 0.25 s for 10 s: {polls} reads, the remote asked {asked} times "
              f"(bound: one per {window:g} s window = {int(10 / window) + 1})")  # fmt: skip
    print(f"`atk wi wait` saw the person's answer {seen:.2f} s after `atk wi answer` returned (goal <= 2 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
