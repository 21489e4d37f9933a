#!/usr/bin/env python3
"""Scale: 10,000 active + 50,000 terminal items, every figure of issue 14 beside its floor, in one run.

    python bench/scale.py [--quick] [--active N] [--terminal N] [--store DIR] [--keep] [--reps N]
                          [--no-tmux] [--only NAME,...] [--word WORD] [--json PATH]

`--quick` uses 2,000 active + 10,000 terminal items and fewer repetitions (a smoke run, not the
figures of the issue). `--store DIR` reuses a store made by `bench/gen_store.py --remote` (DIR is
its `store` folder; it gets commits; `bench/growth.py` runs this on copies of stores of several
sizes and prints the ratios side by side). Real terminal figures run the real binary in tmux and read
the screen with `capture-pane` every ~10 ms (their resolution). Every figure is printed beside the
floor measured in the same run, with the ratio and the issue's goal: absolute times drift with the
machine's load, ratios much less.

| figure | floor |
| --- | --- |
| dashboard first frame, warm (tmux) | an empty Textual app's first frame (tmux) |
| dashboard: every pane's rows and counts shown, warm (tmux; it ran before and kept its view) | the same |
| the same after 20 items were changed since that run | the same |
| dashboard cold (no cache): first frame, a progress count, all rows (tmux) | the same |
| a held key: 60 `down` at ~30 Hz, how long the screen trails the last key (tmux) | a bare 10,000-row `OptionList` with a detail pane, same keys: its detail updated on every key, and (a second floor) after the same rest delay as the dashboard |
| 300 `down` at once, then `?`: until the help shows (tmux) | the same bare app |
| `atk wi list --json` warm / cold (no cache) | a Python process that reads every active file and parses its frontmatter |
| `atk wi list --text WORD` (JSON and text rows), warm | a Python process that reads every active file and finds WORD in it, case-folded |
| `atk wi show F --skip-pull` (goal 0.15 s) | a Python process that reads F and writes it out; `python -c pass` |
| `atk wi show F` and `atk wi list --json` pulling, the remote unmoved (`bench/read_pull.py`) | the same read with `--skip-pull` |
| one transition commit (`svc.writes.transition_command`: hold/unhold, no pull/push), median of 10 | `git mv` + `git commit` |
| `atk wi list --json --status=all`, warm | `atk wi list --json` warm (goal: within 2x) |
| history screen of the terminal items: first rows (tmux, after `H`) | -- (goal 0.5 s) |
| 1,000-node graph, layout + first draw (in process) | -- (goal 0.2 s); a longest-path layering beside it |
| a change pushed from another clone shown on the dashboard (tmux) | -- (goal 10 s) |
| `atk wi stats --json --since all`, cold (no stats cache) / warm; 200 question events added first | `git log --name-status -- wi/` |
| peak memory (VmHWM of the dashboard; maxrss of `list --status=all`) | -- (goal 150 MiB) |
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

from procstat import hwm_mib  # noqa: E402  (bench/ is on the path from here)

BIN = Path(sys.executable).parent
AGENT_VARS = ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT")
SIZE = (160, 48)

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

EMPTY_APP = """
from textual.app import App
from textual.widgets import Static

class Empty(App):
    def compose(self):
        yield Static("FLOOR-READY")

Empty().run()
"""

SEARCH_FLOOR = r"""
import os, sys
root, word = sys.argv[1], sys.argv[2].casefold()
out = []
for state in ("inbox", "processing", "hold"):
    for e in os.scandir(os.path.join(root, "wi", state)):
        if e.name.startswith("."):
            continue
        with open(e.path, "rb") as fh:
            if word in fh.read().decode("utf-8", "replace").casefold():
                out.append(e.name)
sys.stdout.write("".join(n + "\n" for n in out))
"""

CAT_FLOOR = "import sys; sys.stdout.write(open(sys.argv[1], encoding='utf-8').read())"

# the floor of the key figures: 10,000 rows in an OptionList, a detail pane that follows the
# highlight, `?` opens a screen
OPTION_APP = """
from textual.app import App
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static

class Help(ModalScreen):
    BINDINGS = [("escape", "app.pop_screen", "")]
    def compose(self):
        yield Static("FLOOR-HELP")

class Bare(App):
    BINDINGS = [("question_mark", "help", "")]
    CSS = "OptionList { width: 3fr; height: 1fr; } #detail { width: 2fr; height: 1fr; border: round $accent; }"
    def compose(self):
        with Horizontal():
            yield OptionList(*[f"row {i} item title acme/webapp" for i in range(10000)])
            yield Static("detail row 0", id="detail")
    def on_mount(self):
        self.query_one(OptionList).focus()
    def on_option_list_option_highlighted(self, event):
        index = event.option_index
        show = lambda: self.query_one("#detail", Static).update(f"detail row {index}")
        if REST <= 0:
            show()
            return
        # the same debounce as the dashboard: the detail follows once the cursor has rested
        if getattr(self, "_rest", None) is not None:
            self._rest.stop()
        self._rest = self.set_timer(REST, show)
    def action_help(self):
        self.push_screen(Help())

Bare().run()
"""
#: the bare app's detail updates on every key (REST = 0) or, as the dashboard's, after the cursor rests
OPTION_APP_REST = "REST = {rest}\n"


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(argv, capture_output=True, env=env, cwd=cwd, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:4]} failed: {proc.stderr.decode(errors='replace')[-800:]}")
    return proc


def run_rss(argv: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """Wall seconds, peak resident MiB and stdout of one child process."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"{argv[:4]} exited {proc.returncode}")
        out.seek(0)
        return wall, usage.ru_maxrss / 1024, out.read()


# -- the command line ---------------------------------------------------------------------------


def bench_list(root: Path, env: dict[str, str], reps: int) -> dict[str, float]:
    atk = str(BIN / "atk")
    cache = root / ".git" / "atk-cache"
    argv = [atk, "wi", "list", "--json", "--store", str(root)]
    colds, warms = [], []
    for _ in range(reps):
        shutil.rmtree(cache, ignore_errors=True)
        colds.append(timed(lambda: run(argv, env)))
        warms.append(timed(lambda: run(argv, env)))
    rows = len(run(argv, env).stdout.splitlines())
    floor = [timed(lambda: run([sys.executable, "-c", READ_PARSE_FLOOR, str(root)], env)) for _ in range(reps)]
    all_argv = [*argv, "--status=all"]
    all_cold, all_warm, rss = [], [], 0.0
    for _ in range(max(1, reps - 1)):
        shutil.rmtree(cache, ignore_errors=True)
        wall, mib, _ = run_rss(all_argv, env)
        all_cold.append(wall)
        rss = max(rss, mib)
        wall, mib, out = run_rss(all_argv, env)
        all_warm.append(wall)
        rss = max(rss, mib)
    # leave a warm cache behind for the dashboard figures
    run(argv, env)
    return {
        "cold": min(colds), "warm": min(warms), "floor": min(floor), "rows": rows,
        "all_cold": min(all_cold), "all_warm": min(all_warm), "all_rows": out.count(b"\n"), "all_rss": rss,
    }  # fmt: skip


def best(argv: list[str], env: dict[str, str], reps: int) -> float:
    """Least wall seconds of `reps` runs, after one run that warms the caches."""
    run(argv, env)
    return min(timed(lambda: run(argv, env)) for _ in range(reps))


def valid_inbox(root: Path) -> str:
    """The first inbox item without defects (what `show` and the pulling read show)."""
    from atk_tui.service import Service

    svc = Service(root, actor="user", pull=False, push=False)
    names = sorted(p.name for p in (root / "wi" / "inbox").iterdir() if not p.name.startswith("."))
    return next(n for n in names if not svc.read(n, "inbox").defects)


def bench_search(root: Path, env: dict[str, str], reps: int, word: str) -> dict[str, float]:
    """`atk wi list --text WORD`, JSON and text rows (stdout a pipe), warm, beside a process
    that reads every active file and tests WORD in its case-folded text."""
    argv = [str(BIN / "atk"), "wi", "list", "--text", word, "--store", str(root), "--skip-pull"]
    floor = [sys.executable, "-c", SEARCH_FLOOR, str(root), word]
    return {
        "json": best([*argv, "--json"], env, reps), "text": best(argv, env, reps), "floor": best(floor, env, reps),
        "rows": len(run([*argv, "--json"], env).stdout.splitlines()), "floor_rows": len(run(floor, env).stdout.splitlines()),
    }  # fmt: skip


def bench_show(root: Path, env: dict[str, str], reps: int) -> dict[str, float]:
    """`atk wi show --skip-pull F` of a valid inbox item beside a Python process that prints F,
    and beside `python -c pass` (the interpreter's start)."""
    name = valid_inbox(root)
    path = str(root / "wi" / "inbox" / name)
    n = max(5, 2 * reps)
    return {
        "show": best([str(BIN / "atk"), "wi", "show", "--skip-pull", "--store", str(root), name], env, n),
        "cat": best([sys.executable, "-c", CAT_FLOOR, path], env, n), "bare": best([sys.executable, "-c", "pass"], env, n),
    }  # fmt: skip


def bench_pull(root: Path, reps: int) -> dict[str, float]:
    """A read that pulls (ATK_READ_WINDOW=0: the remote is asked every time; it has not moved)
    against the same read with --skip-pull: `bench/read_pull.py`'s interleaved medians."""
    from read_pull import pair

    name, out = valid_inbox(root), {}
    for key, cmd in (("show", ("wi", "show", name)), ("list", ("wi", "list", "--json"))):
        try:
            out[key], out[f"{key}_floor"] = pair(root, cmd, max(5, 3 * reps))
        except SystemExit as exc:  # read_pull exits on a failed command
            raise RuntimeError(str(exc)) from None
    return out


def bench_transition(root: Path, env: dict[str, str]) -> dict[str, float]:
    from atk_tui.service import Service

    svc = Service(root, actor="user", pull=False, push=False)
    inbox = sorted(p.name for p in (root / "wi" / "inbox").iterdir() if not p.name.startswith("."))
    target = next(n for n in inbox if not svc.read(n, "inbox").defects)
    times = []
    for i in range(10):
        op = "hold" if i % 2 == 0 else "unhold"
        t0 = time.perf_counter()
        out = svc.writes.transition_command(op, [target])
        times.append(time.perf_counter() - t0)
        if not out.ok:
            raise RuntimeError(f"{op} failed: {out.message}")
    floor = []
    other = next(n for n in inbox if n != target)
    for i in range(10):
        src, dst = ("inbox", "hold") if i % 2 == 0 else ("hold", "inbox")

        def mv_commit(src: str = src, dst: str = dst) -> None:
            run(["git", "mv", f"wi/{src}/{other}", f"wi/{dst}/{other}"], env, cwd=root)
            run(["git", "commit", "-q", "-m", f"floor: {src} -> {dst}"], env, cwd=root)

        floor.append(timed(mv_commit))
    return {"service": statistics.median(times), "floor": statistics.median(floor)}


# -- the wait statistics (issue 16) ----------------------------------------------------------


def add_question_history(root: Path, env: dict[str, str], commits: int, seed: int = 1) -> None:
    """`commits` commits of question events, one each: answer an open UWI, file a new one, or
    remove one (what `atk wi stats` reads back from the history)."""
    import random

    rng = random.Random(seed)
    inbox = root / "wi" / "inbox"
    uwis = [p for p in sorted(inbox.iterdir()) if p.suffix == ".md" and "kind: uwi" in p.read_text(errors="replace")[:400]]
    for n in range(commits):
        op = rng.random()
        if op < 0.5 and uwis:
            p = uwis.pop(rng.randrange(len(uwis)))
            p.write_text(p.read_text() + "\n## 回答\n\n- 1: A) yes\n", encoding="utf-8")
            run(["git", "add", str(p)], env, cwd=root)
        elif op < 0.8:
            p = inbox / f"2026-11-30-bench-question-{n}.md"
            p.write_text("---\nkind: uwi\ntarget_repo: acme/webapp\nurgency: blocking\n---\n# Bench question\n\n"
                         "## 質問\nWhich?\n\n- A) yes\n- B) no\n\n推奨: A)\n", encoding="utf-8")  # fmt: skip
            run(["git", "add", str(p)], env, cwd=root)
            uwis.append(p)
        elif uwis:
            run(["git", "rm", "-q", str(uwis.pop(rng.randrange(len(uwis))))], env, cwd=root)
        else:
            continue
        run(["git", "commit", "-q", "--no-verify", "-m", f"atk: bench event {n}", "-m", "Atk-Actor: user"], env, cwd=root)


def bench_stats(root: Path, env: dict[str, str], reps: int, events: int = 200) -> dict[str, float]:
    """`atk wi stats --json --since all`: cold (no `.git/atk-cache/stats.cache`: the whole history
    read, every item version parsed once) and warm (HEAD unchanged: the cache read), beside
    `git log --name-status` of `wi/` (the least reading the history takes). A store with
    fewer than `events` commits gets that many question events first (they are kept)."""
    count = int(run(["git", "rev-list", "--count", "HEAD"], env, cwd=root).stdout or 0)
    if count < events:
        add_question_history(root, env, events)
    argv = [str(BIN / "atk"), "wi", "stats", "--json", "--since", "all", "--store", str(root)]
    cache = root / ".git" / "atk-cache" / "stats.cache"
    colds, rss = [], 0.0
    for _ in range(reps):
        cache.unlink(missing_ok=True)
        wall, mib, _ = run_rss(argv, env)
        colds.append(wall)
        rss = max(rss, mib)
    warms = [timed(lambda: run(argv, env)) for _ in range(reps)]
    floor = [timed(lambda: run(["git", "log", "--name-status", "--format=%H %ct", "--", "wi/"], env, cwd=root))
             for _ in range(reps)]  # fmt: skip
    return {"cold": min(colds), "warm": min(warms), "floor": min(floor), "rss": rss}


# -- the graph ------------------------------------------------------------------------------


def bench_graph(reps: int) -> dict[str, float]:
    from bench_graph import dependency_graph

    from atk_tui.graph import layout_graph

    nodes, edges = dependency_graph(1000)
    times = [timed(lambda: layout_graph(nodes, edges)) for _ in range(reps)]
    floor = [timed(lambda: longest_path_layers([n.id for n in nodes], edges)) for _ in range(reps)]
    return {"layout": statistics.median(times), "floor": statistics.median(floor), "nodes": len(nodes), "edges": len(edges)}


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
    while queue:
        nxt = []
        for n in queue:
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


# -- the real terminal -------------------------------------------------------------------------


def _unsynced(screen: str) -> str:
    return re.sub(r" · synced [^·\n]*?(?= ·| *$)", "", screen, flags=re.M)


class Pane:
    """One tmux server running one command in one pane (exec'd: the pane's pid is the app)."""

    def __init__(self, command: str, env: dict[str, str], tmp: Path) -> None:
        self.sock = f"atk-scale-{os.getpid()}-{time.monotonic_ns() % 10**9}"
        self.env = {k: v for k, v in env.items() if k not in (*AGENT_VARS, "TMUX")}
        self.env.update(TERM="xterm-256color", TMUX_TMPDIR=str(tmp))
        self.command = command
        self.pid = 0
        self.t0 = 0.0

    def tmux(self, *args: str) -> str:
        proc = subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null", *args], capture_output=True, text=True,
                              env=self.env, timeout=30, errors="replace")  # fmt: skip
        return proc.stdout

    def start(self) -> None:
        self.t0 = time.perf_counter()
        self.tmux("new-session", "-d", "-s", "b", "-x", str(SIZE[0]), "-y", str(SIZE[1]), f"exec {self.command}")
        self.pid = int(self.tmux("display-message", "-p", "-t", "b", "#{pane_pid}").strip() or 0)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "b")

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "b", *keys)

    def wait(self, ok: Callable[[str], bool], timeout: float = 120, since: float | None = None) -> float:
        """Seconds from `since` (default: the start) until the screen satisfies `ok`."""
        t0 = self.t0 if since is None else since
        while True:
            screen = self.screen()
            now = time.perf_counter()
            if ok(screen):
                return now - t0
            if now - t0 > timeout:
                raise RuntimeError(f"timed out after {timeout} s; the screen was:\n{screen}")
            time.sleep(0.01)

    def settle(self, since: float, quiet: float = 1.5, timeout: float = 60) -> float:
        """Seconds from `since` until the screen last changed (it then stays unchanged `quiet` s).
        The status line's "synced …" is not a change: the background sync (every few seconds,
        on a store with a remote) redraws it whether keys were pressed or not."""
        last, changed = _unsynced(self.screen()), time.perf_counter()
        deadline = changed + timeout
        while time.perf_counter() < deadline:
            time.sleep(0.01)
            screen = _unsynced(self.screen())
            now = time.perf_counter()
            if screen != last:
                last, changed = screen, now
            elif now - changed >= quiet:
                break
        return max(changed - since, 0.0)

    def hwm_mib(self) -> float:
        return hwm_mib(self.pid)

    def close(self) -> None:
        self.tmux("kill-server")


def keep_view(root: Path, tui: str, env: dict[str, str], tmp: Path, shown: Callable[[str], bool]) -> None:
    """Run the dashboard once, until it kept its view (`Service.save_queue`, a moment after its
    rows show): the next start is warm. Without it a start judges the whole queue again."""
    views = root / ".git" / "atk-cache"
    for old in views.glob("view-*.cache"):
        old.unlink()
    pane = Pane(tui, env, tmp)
    try:
        pane.start()
        pane.wait(shown)
        deadline = time.perf_counter() + 30
        while not any(views.glob("view-*.cache")) and time.perf_counter() < deadline:
            time.sleep(0.05)
    finally:
        pane.close()


def pane_counts(root: Path) -> dict[str, int]:
    """The items each dashboard pane counts (its title shows it)."""
    return {s: sum(1 for p in (root / "wi" / s).iterdir() if p.suffix == ".md") for s in ("inbox", "processing", "hold")}


def counts_shown(counts: dict[str, int]) -> Callable[[str], bool]:
    titles = [re.compile(rf"\b{name} {counts[s]}\b") for name, s in (("Inbox", "inbox"), ("Processing", "processing"), ("Hold", "hold"))]
    return lambda s: all(t.search(s) for t in titles) and "Loading" not in s


PROGRESS = re.compile(r"parsed [\d,]+ / [\d,]+")


def bench_dashboard(root: Path, env: dict[str, str], tmp: Path, counts: dict[str, int], reps: int,
                    res: dict[str, float]) -> dict[str, float]:  # fmt: skip
    """Fills `res` as it goes (a failure keeps what was measured)."""
    tui = f"{BIN / 'atk-tui'} --store {root}"
    empty = tmp / "empty_app.py"
    empty.write_text(EMPTY_APP)
    bare = tmp / "bare_app.py"
    bare.write_text(OPTION_APP_REST.format(rest=0) + OPTION_APP)
    from atk_tui.tui.screens.main import DETAIL_DELAY

    rested = tmp / "bare_rest_app.py"
    rested.write_text(OPTION_APP_REST.format(rest=DETAIL_DELAY) + OPTION_APP)

    floors = []
    for _ in range(reps):
        pane = Pane(f"{sys.executable} {empty}", env, tmp)
        try:
            pane.start()
            floors.append(pane.wait(lambda s: "FLOOR-READY" in s))
        finally:
            pane.close()
    res["floor_frame"] = statistics.median(floors)

    shown = counts_shown(counts)
    keep_view(root, tui, env, tmp, shown)
    firsts, alls, hwm = [], [], 0.0
    for _ in range(reps):
        pane = Pane(tui, env, tmp)
        try:
            pane.start()
            firsts.append(pane.wait(lambda s: bool(s.strip())))
            alls.append(pane.wait(shown))
            hwm = max(hwm, pane.hwm_mib())
        finally:
            pane.close()
    res["first_frame"] = statistics.median(firsts)
    res["all_rows"] = statistics.median(alls)

    # the usual start: agents changed a few items since the dashboard last ran (20 edited in place)
    changed = sorted((root / "wi" / "inbox").iterdir())[:20]
    for path in changed:
        path.write_bytes(path.read_bytes() + b"\n")
    time.sleep(2.2)  # older than the racy window (a file changed within it is read again anyway)
    pane = Pane(tui, env, tmp)
    try:
        pane.start()
        res["changed_rows"] = pane.wait(shown)
    finally:
        pane.close()
        for path in changed:
            path.write_bytes(path.read_bytes()[:-1])

    # cold: no cache at all
    shutil.rmtree(root / ".git" / "atk-cache", ignore_errors=True)
    pane = Pane(tui, env, tmp)
    try:
        pane.start()
        res["cold_first"] = pane.wait(lambda s: bool(s.strip()))
        progress: list[float] = []

        def cold_done(s: str) -> bool:
            if not progress and PROGRESS.search(s):
                progress.append(time.perf_counter() - pane.t0)
            return shown(s)

        res["cold_rows"] = pane.wait(cold_done)
        res["cold_progress"] = progress[0] if progress else float("nan")
        hwm = max(hwm, pane.hwm_mib())
    finally:
        pane.close()

    # keys: the dashboard and the bare OptionList, a held key and a burst then `?`
    for label, command, ready, helped in (
        ("", tui, shown, lambda s: "Esc to close" in s),
        ("floor_", f"{sys.executable} {bare}", lambda s: "detail row 0" in s, lambda s: "FLOOR-HELP" in s),
        ("rest_floor_", f"{sys.executable} {rested}", lambda s: "detail row 0" in s, lambda s: "FLOOR-HELP" in s),
    ):
        trails, bursts = [], []
        for _ in range(reps):
            pane = Pane(command, env, tmp)
            try:
                pane.start()
                pane.wait(ready)
                pane.settle(time.perf_counter(), quiet=1.0)
                for _ in range(60):  # a held key: ~30 Hz
                    pane.send("Down")
                    time.sleep(0.033)
                last = time.perf_counter()
                trails.append(pane.settle(last))
                t0 = time.perf_counter()
                pane.send(*(["Down"] * 300), "?")
                bursts.append(pane.wait(helped, since=t0, timeout=60))
            finally:
                pane.close()
        res[f"{label}trail"] = statistics.median(trails)
        res[f"{label}burst"] = statistics.median(bursts)
    res["hwm"] = hwm
    return res


def bench_history(root: Path, env: dict[str, str], tmp: Path, counts: dict[str, int], reps: int) -> dict[str, float]:
    """Seconds from `H` on a warm dashboard to the history's first rows (adopted/rejected
    rows drawn), best of `reps`, and the dashboard's peak memory after it."""
    firsts, hwm = [], 0.0
    for _ in range(reps):
        pane = Pane(f"{BIN / 'atk-tui'} --store {root}", env, tmp)
        try:
            pane.start()
            pane.wait(counts_shown(counts))
            pane.settle(time.perf_counter(), quiet=1.0)
            t0 = time.perf_counter()
            pane.send("H")
            firsts.append(pane.wait(
                lambda s: bool(re.search(r"(adopted|rejected)\s", s.split("History:", 1)[-1].split("\n", 1)[-1]))
                and "Loading" not in s, since=t0, timeout=120))  # fmt: skip
            pane.settle(time.perf_counter(), quiet=1.0)
            hwm = max(hwm, pane.hwm_mib())
        finally:
            pane.close()
    return {"first": min(firsts), "hwm": hwm}


def bench_remote(root: Path, env: dict[str, str], tmp: Path, counts: dict[str, int]) -> float | None:
    """Seconds from another clone's push to the dashboard showing the new item's count."""
    remote = root.parent / "remote.git"
    if not remote.is_dir():
        return None
    run(["git", "push", "-q", "origin", "HEAD"], env, cwd=root)  # the bench's own commits
    other = tmp / "other"
    shutil.rmtree(other, ignore_errors=True)
    run(["git", "clone", "-q", str(remote), str(other)], env)
    pane = Pane(f"{BIN / 'atk-tui'} --store {root}", env, tmp)
    try:
        pane.start()
        pane.wait(counts_shown(counts))
        time.sleep(1.0)
        run([str(BIN / "atk"), "wi", "add", "--store", str(other), "--target-repo", "acme/webapp", "--skip-pull",
             "# a change from another clone\n\nbody"], env)  # fmt: skip
        t0 = time.perf_counter()
        want = dict(counts, inbox=counts["inbox"] + 1)
        return pane.wait(counts_shown(want), since=t0, timeout=120)
    finally:
        pane.close()


# -- the table --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="2,000 + 10,000 items, fewer repetitions")
    ap.add_argument("--active", type=int)
    ap.add_argument("--terminal", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--store", type=Path, help="reuse this store (the `store` folder made by gen_store.py --remote)")
    ap.add_argument("--keep", action="store_true", help="keep the generated store")
    ap.add_argument("--no-tmux", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--only", help="comma-separated phases: list, search, show, pull, graph, dashboard, history, "
                    "remote, transition, stats")  # fmt: skip
    ap.add_argument("--reps", type=int, help="repetitions of each figure (default 3, 2 with --quick)")
    ap.add_argument("--word", default="staging", help="what `search` looks for (in ~7%% of the generated titles)")
    args = ap.parse_args(argv)
    active = args.active or (2_000 if args.quick else 10_000)
    terminal = args.terminal or (10_000 if args.quick else 50_000)
    reps = args.reps or (2 if args.quick else 3)
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("warning: PYTHONDONTWRITEBYTECODE is set: every atk start compiles its modules again")

    tmp = Path(tempfile.mkdtemp(prefix="atk-scale-"))
    env = {k: v for k, v in os.environ.items() if k not in AGENT_VARS}
    env.update(XDG_CONFIG_HOME=str(tmp / "xdg"), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="scale",
               GIT_AUTHOR_EMAIL="scale@atk.invalid", GIT_COMMITTER_NAME="scale", GIT_COMMITTER_EMAIL="scale@atk.invalid")  # fmt: skip
    os.environ.update(env)
    for var in AGENT_VARS:
        os.environ.pop(var, None)
    res: dict[str, object] = {}
    tmux = not args.no_tmux and shutil.which("tmux") is not None
    try:
        if args.store:
            root = args.store.resolve()
        else:
            from gen_store import generate_store

            t0 = time.perf_counter()
            root = generate_store(tmp / "gen", active, terminal, args.seed, remote=True)
            print(f"store: {active} active + {terminal} terminal items generated in {time.perf_counter() - t0:.1f} s")
        counts = pane_counts(root)
        print(f"panes: {counts}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start", flush=True)
        only = set(args.only.split(",")) if args.only else None

        def phase(name: str, fn: Callable[[], object], default: object) -> object:
            """One figure's measurement; a failure is reported and the others still run."""
            if only is not None and name not in only:
                res[name] = default
                return default
            try:
                res[name] = out = fn()
            except Exception as exc:
                print(f"  {name} failed: {str(exc)[:2000]}", flush=True)
                res[name] = out = default
            print(f"  {name}: done ({os.getloadavg()[0]:.1f} load)", flush=True)
            return out

        keys = ("cold", "warm", "floor", "rows", "all_cold", "all_warm", "all_rows", "all_rss")
        lst = phase("list", lambda: bench_list(root, env, reps), dict.fromkeys(keys, float("nan")))
        nans = lambda *keys: dict.fromkeys(keys, float("nan"))  # noqa: E731
        srch = phase("search", lambda: bench_search(root, env, reps, args.word), nans("json", "text", "floor", "rows", "floor_rows"))
        show = phase("show", lambda: bench_show(root, env, reps), nans("show", "cat", "bare"))
        pull = phase("pull", lambda: bench_pull(root, reps), nans("show", "show_floor", "list", "list_floor"))
        gr = phase("graph", lambda: bench_graph(reps + 2), {"layout": float("nan"), "floor": float("nan")})
        dash_res: dict[str, float] = {}
        dash = phase("dashboard", lambda: bench_dashboard(root, env, tmp, counts, reps, dash_res), dash_res) if tmux else None
        hist = phase("history", lambda: bench_history(root, env, tmp, counts, reps), None) if tmux else None
        remote = phase("remote", lambda: bench_remote(root, env, tmp, counts), None) if tmux else None
        tr = phase("transition", lambda: bench_transition(root, env), {"service": float("nan"), "floor": float("nan")})
        # last: its question events add and remove inbox items (the panes' counts above)
        stats = phase("stats", lambda: bench_stats(root, env, reps), dict.fromkeys(("cold", "warm", "floor", "rss"), float("nan")))
    finally:
        if args.keep and not args.store:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    nan = float("nan")
    rows: list[tuple[str, float, str, float, str]] = []  # figure, s, floor, floor s, goal (ratio or "<= N s")
    if dash:
        dash = {k: dash.get(k, nan) for k in ("floor_frame", "first_frame", "all_rows", "changed_rows", "cold_first", "cold_progress", "cold_rows",
                                              "trail", "floor_trail", "rest_floor_trail", "burst", "floor_burst", "hwm")}  # fmt: skip
        ff = dash["floor_frame"]
        rows += [
            ("dashboard first frame, warm (tmux)", dash["first_frame"], "empty Textual app, first frame", ff, "1.5x"),
            ("dashboard: every pane's rows + counts, warm", dash["all_rows"], "empty Textual app, first frame", ff, "2.5x"),
            ("the same, 20 items changed since the last run", dash["changed_rows"], "empty Textual app, first frame", ff, "-"),
            ("dashboard cold: first frame", dash["cold_first"], "empty Textual app, first frame", ff, "1.5x"),
            ("dashboard cold: progress count shown", dash["cold_progress"], "empty Textual app, first frame", ff, "-"),
            ("dashboard cold: every pane's rows", dash["cold_rows"], "empty Textual app, first frame", ff, "-"),
            ("held key, 60 down @30 Hz: screen trails by", dash["trail"], "bare 10k OptionList + detail", dash["floor_trail"], "1.5x"),
            ("held key, the same", dash["trail"], "bare app, detail after the same rest", dash["rest_floor_trail"], "1.5x"),
            ("300 down at once, then ?", dash["burst"], "bare 10k OptionList + detail", dash["floor_burst"], "1.2x"),
        ]
    rows += [
        ("atk wi list --json, warm", lst["warm"], "read + parse every active file", lst["floor"], "0.4x"),
        ("atk wi list --json, cold (no cache)", lst["cold"], "read + parse every active file", lst["floor"], "1.3x"),
        (f"atk wi list --text {args.word} --json, warm", srch["json"], "read every active file, find the word", srch["floor"], "1.5x"),
        (f"atk wi list --text {args.word} (text rows), warm", srch["text"], "read every active file, find the word", srch["floor"], "1.5x"),
        ("atk wi show F --skip-pull", show["show"], "python: read F, write it out", show["cat"], "<= 0.15 s"),
        ("atk wi show F --skip-pull", show["show"], "python -c pass", show["bare"], "-"),
        ("a read that pulls (remote unmoved): wi show F", pull["show"], "the same with --skip-pull", pull["show_floor"], "1.3x"),
        ("a read that pulls (remote unmoved): wi list", pull["list"], "the same with --skip-pull", pull["list_floor"], "1.3x"),
        ("transition commit (hold/unhold, median 10)", tr["service"], "git mv + git commit (median 10)", tr["floor"], "0.9x"),
        ("atk wi list --json --status=all, warm", lst["all_warm"], "atk wi list --json, warm", lst["warm"], "2x"),
        ("atk wi list --json --status=all, cold", lst["all_cold"], "atk wi list --json, warm", lst["warm"], "-"),
    ]
    if hist:
        rows.append(("history screen: first rows (after H)", hist["first"], "-", nan, "<= 0.5 s"))
    rows.append(("1,000-node graph: layout + first draw", gr["layout"], "longest-path layering, same graph", gr["floor"], "<= 0.2 s"))
    rows += [
        ("atk wi stats --json, cold (no stats cache)", stats["cold"], "git log --name-status -- wi/", stats["floor"], "-"),
        ("atk wi stats --json, warm", stats["warm"], "git log --name-status -- wi/", stats["floor"], "-"),
    ]
    if remote is not None:
        rows.append(("a change pushed from another clone shown", remote, "-", nan, "<= 10 s"))
    if srch["rows"] == srch["rows"]:
        print(f"search {args.word!r}: {srch['rows']} items listed; the floor found it in {srch['floor_rows']} files (front matter too)")
    w1, w2 = max(len(r[0]) for r in rows), max(len(r[2]) for r in rows)
    print()
    print(f"| {'figure':{w1}} | {'time':>10} | {'floor':{w2}} | {'floor time':>10} | {'ratio':>6} | {'goal':>9} |")
    print(f"| {'-' * w1} | {'-' * 9}: | {'-' * w2} | {'-' * 9}: | {'-' * 5}: | {'-' * 8}: |")
    table = []
    for name, v, fname, f, goal in rows:
        ratio = v / f if f == f and f > 0 else nan
        fs = f"{f * 1000:7.0f} ms" if f == f else f"{'-':>10}"
        rs = f"{ratio:6.2f}" if ratio == ratio else f"{'-':>6}"
        vs = f"{v * 1000:7.0f} ms" if v == v else f"{'none':>10}"
        print(f"| {name:{w1}} | {vs} | {fname:{w2}} | {fs} | {rs} | {goal:>9} |")
        table.append({"figure": name, "s": v, "floor": fname, "floor_s": f, "ratio": ratio, "goal": goal})
    print()
    if dash:
        print(f"peak memory: dashboard VmHWM {dash['hwm']:.0f} MiB (rows, keys), "
              f"{hist['hwm'] if hist else nan:.0f} MiB (history shown); "
              f"`list --status=all` maxrss {lst['all_rss']:.0f} MiB; goal <= 150 MiB")  # fmt: skip
    else:
        print(f"peak memory: `list --status=all` maxrss {lst['all_rss']:.0f} MiB; goal <= 150 MiB")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    res["table"] = table
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
