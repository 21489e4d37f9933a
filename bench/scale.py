#!/usr/bin/env python3
"""Scale: 10,000 active + 50,000 terminal items, every figure beside its floor, in one run.

    python bench/scale.py [--active N] [--terminal N] [--seed N] [--out DIR] [--no-tmux] [--json PATH]

Measured (wall time, this machine) and the floor each is compared with, measured in the same run:

| figure | floor |
| --- | --- |
| `atk wi list --json` cold (no item cache) | a Python process that reads every active file and parses its frontmatter with the same YAML loader |
| `atk wi list --json` warm (cache filled) | the same floor |
| one transition's commit latency through `Service` (pull/push off), median of 10 | `git mv` + `git commit -q`, median of 10, same store |
| dashboard first frame in tmux (`atk-tui --store`) | an empty Textual app's first frame in tmux |
| dashboard: all rows shown (`Inbox N` with the queue loaded) | the same floor |
| layout of the whole active dependency graph (`build_graph` + `layout_graph`) | a longest-path layering of the same graph in plain Python |

The ratio is figure / floor: how much the product costs on top of the least the work needs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
for p in (ROOT, BENCH):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

BIN = Path(sys.executable).parent

READ_PARSE_FLOOR = r"""
import os, re, sys, yaml
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
root = sys.argv[1]
close = re.compile(r"^---[ \t]*\r?\n", re.M)
n = 0
for state in ("inbox", "processing", "hold"):
    d = os.path.join(root, "wi", state)
    for e in os.scandir(d):
        if e.name.startswith("."):
            continue
        with open(e.path, "rb") as fh:
            text = fh.read().decode("utf-8", "replace")
        if text.startswith("---"):
            m = close.search(text, 4)
            if m:
                try:
                    yaml.load(text[4 : m.start()], Loader=Loader)
                except yaml.YAMLError:
                    pass  # the generated store has defective files too
        n += 1
print(n)
"""

EMPTY_APP = r"""
from textual.app import App
from textual.widgets import Static

class Empty(App):
    def compose(self):
        yield Static("FLOOR-READY")

Empty().run()
"""


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(argv, capture_output=True, env=env, cwd=cwd, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {proc.stderr.decode(errors='replace')[-800:]}")
    return proc


def git(root: Path, *args: str, env: dict[str, str]) -> str:
    return run(["git", *args], env, cwd=root).stdout.decode()


# -- the figures -----------------------------------------------------------------------------


def bench_list(root: Path, env: dict[str, str]) -> dict[str, float]:
    atk = str(BIN / "atk")
    cache = root / ".git" / "atk-cache"
    argv = [atk, "wi", "list", "--json", "--store", str(root)]
    colds, warms = [], []
    for _ in range(3):
        shutil.rmtree(cache, ignore_errors=True)
        colds.append(timed(lambda: run(argv, env)))
        warms.append(timed(lambda: run(argv, env)))
    rows = len(run(argv, env).stdout.splitlines())
    floor = [timed(lambda: run([sys.executable, "-c", READ_PARSE_FLOOR, str(root)], env)) for _ in range(3)]
    return {"cold": min(colds), "warm": min(warms), "floor": min(floor), "rows": rows}


def bench_transition(root: Path, env: dict[str, str]) -> dict[str, float]:
    from atk_tui.core.service import Service

    svc = Service(root, actor="user", pull=False, push=False)
    inbox = sorted(p.name for p in (root / "wi" / "inbox").iterdir() if not p.name.startswith("."))
    target = next(n for n in inbox if not svc.read(n, "inbox").defects)
    times = []
    for i in range(10):
        op = svc.hold if i % 2 == 0 else svc.unhold
        t0 = time.perf_counter()
        out = op(target)
        times.append(time.perf_counter() - t0)
        if not out.ok:
            raise RuntimeError(f"{op.__name__} failed: {out.message}")
    floor = []
    other = next(n for n in inbox if n != target)
    for i in range(10):
        src, dst = ("inbox", "hold") if i % 2 == 0 else ("hold", "inbox")

        def mv_commit(src: str = src, dst: str = dst) -> None:
            run(["git", "mv", f"wi/{src}/{other}", f"wi/{dst}/{other}"], env, cwd=root)
            run(["git", "commit", "-q", "-m", f"floor: {src} -> {dst}"], env, cwd=root)

        floor.append(timed(mv_commit))
    return {"service": statistics.median(times), "floor": statistics.median(floor)}


def bench_graph(root: Path) -> dict[str, float]:
    from atk_tui.core.graph_layout import layout_graph
    from atk_tui.core.service import Service
    from atk_tui.tui.screens.graph import build_graph

    view = Service(root, actor="user").queue()
    times, layout = [], None
    model = None
    for _ in range(3):
        t0 = time.perf_counter()
        model = build_graph(view, None, whole=True, show_terminal=False)
        layout = layout_graph(model.nodes, model.edges)
        times.append(time.perf_counter() - t0)
    assert model is not None and layout is not None
    floor = [timed(lambda: longest_path_layers([n.id for n in model.nodes], model.edges)) for _ in range(3)]
    return {
        "layout": statistics.median(times),
        "floor": statistics.median(floor),
        "nodes": len(model.nodes),
        "edges": len(model.edges),
        "layers": len(layout.layers),
    }


def longest_path_layers(ids: list[str], edges: list[tuple[str, str]]) -> list[list[str]]:
    """The least a layered layout does: layer every node by its longest path (cycles cut)."""
    succ: dict[str, list[str]] = {i: [] for i in ids}
    indeg = dict.fromkeys(ids, 0)
    for a, b in edges:
        if a in succ and b in indeg and a != b:
            succ[a].append(b)
            indeg[b] += 1
    layer = dict.fromkeys(ids, 0)
    queue = [i for i in ids if indeg[i] == 0]
    seen = 0
    while queue:
        nxt = []
        for n in queue:
            seen += 1
            for m in succ[n]:
                layer[m] = max(layer[m], layer[n] + 1)
                indeg[m] -= 1
                if indeg[m] == 0:
                    nxt.append(m)
        queue = nxt
    out: dict[int, list[str]] = {}
    for n, k in layer.items():
        out.setdefault(k, []).append(n)
    return [sorted(v) for _, v in sorted(out.items())]


def bench_dashboard(root: Path, env: dict[str, str], tmp: Path, inbox_count: int) -> dict[str, float] | None:
    tmux = shutil.which("tmux")
    if tmux is None:
        return None
    sock = f"atk-scale-{os.getpid()}"
    conf = tmp / "tmux.conf"
    conf.write_text("set -g remain-on-exit on\n")
    tenv = dict(env, TERM="xterm-256color")

    def t(*args: str) -> str:
        return subprocess.run([tmux, "-L", sock, "-f", str(conf), *args], capture_output=True, text=True, env=tenv,
                              timeout=30, errors="replace").stdout  # fmt: skip

    def session(cmd: str, first: Callable[[str], bool], done: Callable[[str], bool]) -> tuple[float, float]:
        t("kill-session", "-t", "scale")
        t0 = time.perf_counter()
        t("new-session", "-d", "-s", "scale", "-x", "200", "-y", "50", cmd)
        t_first = t_done = None
        deadline = t0 + 180
        while time.perf_counter() < deadline:
            screen = t("capture-pane", "-p", "-t", "scale")
            now = time.perf_counter() - t0
            if t_first is None and first(screen):
                t_first = now
            if done(screen):
                t_done = now
                break
            time.sleep(0.01)
        t("kill-session", "-t", "scale")
        if t_first is None or t_done is None:
            raise RuntimeError(f"the pane never showed what was expected: {screen[-600:]}")
        return t_first, t_done

    try:
        floor = [session(f"{sys.executable} -c '{EMPTY_APP}'", lambda s: "FLOOR-READY" in s, lambda s: "FLOOR-READY" in s)[0]
                 for _ in range(3)]  # fmt: skip
        want = re.compile(rf"Inbox {inbox_count}\b")
        runs = [
            session(
                f"{BIN / 'atk-tui'} --store {root}",
                lambda s: bool(s.strip()),
                lambda s: bool(want.search(s)) and "Loading" not in s,
            )
            for _ in range(3)
        ]
    finally:
        t("kill-server")
    return {
        "first_frame": statistics.median(r[0] for r in runs),
        "all_rows": statistics.median(r[1] for r in runs),
        "floor": statistics.median(floor),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--active", type=int, default=10_000)
    ap.add_argument("--terminal", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, help="make the store in DIR (kept)")
    ap.add_argument("--no-tmux", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    from gen_store import generate_store

    tmp = Path(tempfile.mkdtemp(prefix="atk-scale-", dir=args.out))
    env = {k: v for k, v in os.environ.items() if k not in ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT")}
    env.update(XDG_CONFIG_HOME=str(tmp / "xdg"), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="scale",
               GIT_AUTHOR_EMAIL="scale@atk.invalid", GIT_COMMITTER_NAME="scale", GIT_COMMITTER_EMAIL="scale@atk.invalid")  # fmt: skip
    os.environ.update(env)
    res: dict[str, object] = {}
    try:
        t0 = time.perf_counter()
        root = generate_store(tmp / "gen", args.active, args.terminal, args.seed)
        res["generate_s"] = time.perf_counter() - t0
        inbox_count = sum(1 for p in (root / "wi" / "inbox").iterdir() if not p.name.startswith("."))
        print(f"store: {args.active} active + {args.terminal} terminal items generated in {res['generate_s']:.1f} s")
        lst = bench_list(root, env)
        res["list"] = lst
        print(f"  list: {lst['rows']} rows")
        gr = bench_graph(root)
        res["graph"] = gr
        print(f"  graph: {gr['nodes']} nodes, {gr['edges']} edges, {gr['layers']} layers")
        dash = None if args.no_tmux else bench_dashboard(root, env, tmp, inbox_count)
        res["dashboard"] = dash
        tr = bench_transition(root, env)  # last: it adds commits
        res["transition"] = tr
    finally:
        if args.out is None:
            shutil.rmtree(tmp, ignore_errors=True)
    rows = [
        ("atk wi list --json, cold", lst["cold"], "read + parse every active file", lst["floor"]),
        ("atk wi list --json, warm", lst["warm"], "read + parse every active file", lst["floor"]),
        ("transition commit (Service, median of 10)", tr["service"], "git mv + git commit (median of 10)", tr["floor"]),
    ]
    if dash:
        rows += [
            ("dashboard: first frame (tmux)", dash["first_frame"], "empty Textual app, first frame", dash["floor"]),
            ("dashboard: all rows shown (tmux)", dash["all_rows"], "empty Textual app, first frame", dash["floor"]),
        ]
    rows.append(("graph layout, whole active graph", gr["layout"], "longest-path layering, same graph", gr["floor"]))
    print()
    print(f"| {'figure':44} | {'time':>10} | {'floor':36} | {'floor time':>10} | {'ratio':>6} |")
    print(f"| {'-' * 44} | {'-' * 9}: | {'-' * 36} | {'-' * 9}: | {'-' * 5}: |")
    for name, v, fname, f in rows:
        print(f"| {name:44} | {v * 1000:7.0f} ms | {fname:36} | {f * 1000:7.0f} ms | {v / f:6.2f} |")
    res["table"] = [{"figure": n, "s": v, "floor": fn, "floor_s": f, "ratio": v / f} for n, v, fn, f in rows]
    if args.json:
        args.json.write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
