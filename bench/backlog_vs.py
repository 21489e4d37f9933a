#!/usr/bin/env python3
"""atk beside Backlog.md on the same items, when Backlog.md's `backlog` binary is on PATH.

    python bench/backlog_vs.py --store DIR [--reps N] [--word WORD]

The store's active items (wi/inbox, processing, hold) are written as Backlog.md tasks
(`backlog/tasks/task-N - Title.md`, the same titles and bodies; inbox and hold -> "To Do",
processing -> "In Progress") in a project made by `backlog init`, then each command is timed
beside atk's (least of `reps` runs after a warm-up; the atk store gets a commit per state change,
hold then unhold: the item ends where it was):

| Backlog.md | atk |
| --- | --- |
| `backlog task list --plain` | `atk wi list` |
| `backlog task view N --plain` | `atk wi show F` |
| `backlog task edit N -s "In Progress"` (and back to "To Do") | `atk wi hold F` (and `unhold`) |
| `backlog search WORD --plain` | `atk wi list --text WORD` |
| `backlog board` until its first task shows (tmux) | `atk-tui` until every pane's rows and counts show, warm (tmux) |
| maxrss of `backlog task list --plain` | maxrss of `atk wi list --status=all` |

atk runs with `--skip-pull --skip-push` (Backlog.md asks no remote either) and stdout a pipe.
`growth.py` calls `side_by_side` for each store size.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
AGENT_VARS = ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT")
SKIPPED = "Backlog.md: `backlog` not on PATH; side-by-side skipped (install with `npm i -g backlog.md`)"
STATUS = {"inbox": "To Do", "processing": "In Progress", "hold": "To Do"}


def available() -> bool:
    return shutil.which("backlog") is not None


def measure(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> tuple[float, float, bytes]:
    """Wall seconds, peak resident MiB and stdout of one run; a non-zero exit raises."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        timer = threading.Timer(timeout, proc.kill)  # os.wait4 has no timeout
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if not timer.is_alive():
            raise TimeoutError(f"{argv[:4]} still running after {timeout:g} s")
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{argv[:5]} exited {proc.returncode}: {err.read().decode(errors='replace')[-600:]}")
        out.seek(0)
        return wall, usage.ru_maxrss / 1024, out.read()


def best(argv: list[str], cwd: Path, env: dict[str, str], reps: int) -> float:
    measure(argv, cwd, env)
    return min(measure(argv, cwd, env)[0] for _ in range(reps))


def write_tasks(store: Path, tasks: Path) -> dict[str, str]:
    """One Backlog.md task per active atk item; returns {atk file name: task number}."""
    tasks.mkdir(parents=True, exist_ok=True)
    ids: dict[str, str] = {}
    n = 0
    for state in ("inbox", "processing", "hold"):
        for path in sorted((store / "wi" / state).iterdir()):
            if path.name.startswith(".") or path.suffix != ".md":
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            front, body = "", text
            if text.startswith("---\n") and "\n---\n" in text[3:]:
                front, body = text[4:].split("\n---\n", 1)
            m = re.search(r"^# (.+)$", body, re.M)
            title = m.group(1).strip() if m else path.stem
            if m:
                body = body[: m.start()] + body[m.end() :]
            repo = re.search(r"^target_repo:\s*(\S+)", front, re.M)
            labels = [repo.group(1).split("/")[-1]] if repo else []
            if state == "hold":
                labels.append("hold")
            n += 1
            ids[path.name] = str(n)
            slug = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-")[:60] or "task"
            (tasks / f"task-{n} - {slug}.md").write_text(
                f"---\nid: task-{n}\ntitle: {json.dumps(title, ensure_ascii=False)}\nstatus: {STATUS[state]}\n"
                f"assignee: []\ncreated_date: '2026-01-01 10:00'\nlabels: {json.dumps(labels)}\ndependencies: []\n---\n\n"
                f"## Description\n\n<!-- SECTION:DESCRIPTION:BEGIN -->\n{body.strip()}\n<!-- SECTION:DESCRIPTION:END -->\n",
                encoding="utf-8",
            )  # fmt: skip
    return ids


def side_by_side(store: Path, work: Path, reps: int = 3, word: str = "staging") -> list[dict[str, Any]]:
    """Rows {figure, atk, backlog, unit, ratio, note}; `store` gets commits (its items end where they were)."""
    env = {k: v for k, v in os.environ.items() if k not in AGENT_VARS}
    env.setdefault("GIT_AUTHOR_NAME", "bench")
    env.setdefault("GIT_AUTHOR_EMAIL", "bench@atk.invalid")
    env.setdefault("GIT_COMMITTER_NAME", "bench")
    env.setdefault("GIT_COMMITTER_EMAIL", "bench@atk.invalid")
    proj = work / "backlog-project"
    proj.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True, env=env)
    measure(["backlog", "init", "atk-bench", "--defaults"], proj, env, timeout=120)
    folder = next((proj / d for d in ("backlog", ".backlog") if (proj / d).is_dir()), proj / "backlog")
    ids = write_tasks(store, folder / "tasks")
    from scale import valid_inbox  # the first inbox item without defects

    name = valid_inbox(store)
    num = ids[name]
    time.sleep(2.1)  # the store older than the racy window, as a person's is: atk keeps its listing then
    atk = [str(BIN / "atk"), "wi"]
    opts = ["--store", str(store), "--skip-pull"]
    nan = float("nan")
    rows: list[dict[str, Any]] = []

    def row(figure: str, a: float, b: float, note: str = "", unit: str = "s") -> None:
        ratio = a / b if b == b and b > 0 else nan
        rows.append({"figure": figure, "atk": a, "backlog": b, "unit": unit, "ratio": ratio, "note": note})

    row("list", best([*atk, "list", *opts], proj, env, reps), best(["backlog", "task", "list", "--plain"], proj, env, reps))
    row("show one item", best([*atk, "show", *opts, name], proj, env, reps),
        best(["backlog", "task", "view", num, "--plain"], proj, env, reps))  # fmt: skip
    a_times, b_times = [], []
    for _ in range(reps):
        a_times += [measure([*atk, "hold", *opts, "--skip-push", name], proj, env)[0],
                    measure([*atk, "unhold", *opts, "--skip-push", name], proj, env)[0]]  # fmt: skip
        b_times += [measure(["backlog", "task", "edit", num, "-s", "In Progress"], proj, env)[0],
                    measure(["backlog", "task", "edit", num, "-s", "To Do"], proj, env)[0]]  # fmt: skip
    row("state change (atk hold/unhold; backlog edit -s)", min(a_times), min(b_times))
    row(f"search {word!r}", best([*atk, "list", "--text", word, *opts], proj, env, reps),
        best(["backlog", "search", word, "--plain"], proj, env, reps))  # fmt: skip
    if shutil.which("tmux"):
        a, b = boards(store, proj, env, work, reps)
        row("board, first rows (tmux; atk: every pane's rows and counts, warm)", a, b)
    else:
        row("board, first rows", nan, nan, "tmux not on PATH: the boards are timed in a real terminal; skipped")
    row("peak memory, maxrss (atk list --status=all; backlog task list)",
        measure([*atk, "list", "--status=all", *opts], proj, env)[1],
        measure(["backlog", "task", "list", "--plain"], proj, env)[1], unit="MiB")  # fmt: skip
    return rows


def boards(store: Path, proj: Path, env: dict[str, str], work: Path, reps: int) -> tuple[float, float]:
    """Median seconds from start to first rows in a real terminal (tmux, `scale.Pane`): atk's
    dashboard until every pane's rows and counts show, its view kept by a run before (as
    `scale.py`'s warm figure); `backlog board` until its first task shows."""
    import statistics

    from scale import Pane, counts_shown, keep_view, pane_counts

    shown = counts_shown(pane_counts(store))
    tui = f"{BIN / 'atk-tui'} --store {shlex.quote(str(store))}"
    keep_view(store, tui, env, work, shown)
    medians = []
    for command, ok in ((tui, shown), (f"env -C {shlex.quote(str(proj))} backlog board", lambda s: "TASK-1 " in s)):
        times = []
        for _ in range(reps):
            pane = Pane(command, env, work)
            try:
                pane.start()
                times.append(pane.wait(ok, timeout=120))
            finally:
                pane.close()
        medians.append(statistics.median(times))
    return medians[0], medians[1]


def print_rows(title: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{title}\n")
    w = max(len(str(r["figure"])) for r in rows)
    print(f"| {'figure':{w}} | {'atk':>10} | {'Backlog.md':>10} | {'atk/backlog':>11} |")
    print(f"| {'-' * w} | {'-' * 9}: | {'-' * 9}: | {'-' * 10}: |")
    for r in rows:
        cells = [f"{'-':>10}" if v != v else f"{v:6.0f} MiB" if r["unit"] == "MiB" else f"{v * 1000:7.0f} ms"
                 for v in (r["atk"], r["backlog"])]  # fmt: skip
        ratio = f"{r['ratio']:.2f}" if r["ratio"] == r["ratio"] else "-"
        print(f"| {r['figure']!s:{w}} | {cells[0]} | {cells[1]} | {ratio:>11} |")
    for r in rows:
        if r["note"]:
            print(f"  {r['figure']}: {r['note']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True, help="an atk store (it gets commits, undone again)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--word", default="staging")
    args = ap.parse_args(argv)
    if not available():
        print(SKIPPED)
        return 0
    with tempfile.TemporaryDirectory(prefix="atk-backlog-") as tmp:
        print_rows(f"atk vs Backlog.md, {args.store}", side_by_side(args.store.resolve(), Path(tmp), args.reps, args.word))
    return 0


if __name__ == "__main__":
    sys.exit(main())
