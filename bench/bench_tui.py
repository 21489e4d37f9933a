#!/usr/bin/env python3
"""Time the dashboard on a large store: start-up in a real terminal, key-to-frame latency, memory.

Usage: python bench/bench_tui.py [--active N] [--terminal N] [--store DIR] [--keep] [--runs N]
                                 [--presses N] [--size WxH] [--skip-terminal] [--skip-keys]

Makes a store with `bench/gen_store.py` (10,000 active + 50,000 terminal items by default;
`--active/--terminal` shrink it, `--store DIR` reuses one) and prints:

* In a real terminal (`atk-tui --store S` exec'd in a tmux pane, `--runs` times each, medians):
  time from launching the pane to the *first frame* (the pane is no longer blank) and to *all
  rows shown* (the pane titles show the inbox/processing/hold counts of the store: the titles
  and the rows are set in the same refresh), cold (`.git/atk-cache` deleted first) and warm.
  Times are read by polling `tmux capture-pane` every ~10 ms, so they carry that resolution
  and include tmux starting the process. The app's CPU time (user+system, from /proc) at the
  moment all rows showed is printed beside the wall time: on a loaded machine the wall time
  mostly measures the wait for a core, the CPU time still measures the work.
* Peak memory: VmHWM (peak resident set) of that process from /proc, when the rows are shown
  and again after `/` has made it read every active body for the filter.
* In process (`App.run_test`, headless), over `--presses` presses each: the time from posting a
  key event to the end of the frame that shows its effect, for `down` in the inbox, `tab`
  between panes and a keystroke in the filter. The frame is taken at `App._display`, where
  this bench also builds the terminal update (`render_segments`) that a real terminal would
  be sent, so only the write itself is missing. Keys are paced like a held key (30 ms), with
  every 4th gap 250 ms so the detail pane's debounced load and Markdown rendering also run
  between presses and can delay the next key. The filter is applied 0.12 s after the last
  keystroke (debounce): the echo frame and the frame with the narrowed panes are both shown.
* Floors measured in the same run, to read the numbers against: a bare Textual app (one
  Static) in the same tmux set-up, the bare interpreter start, and `down` in a bare Textual
  `DataTable` with a `Footer`, measured like the dashboard's keys.

Targets (issue #3): first frame <= 0.4 s; all rows <= 0.8 s warm, <= 1.6 s cold; key->frame
p99 <= 30 ms; peak memory <= 150 MiB.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gen_store import generate_store
from procstat import hwm_mib

BIN = Path(sys.executable).with_name("atk-tui")
CLK_TCK = os.sysconf("SC_CLK_TCK")
AGENT_VARS = ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT")
TARGETS = {"first": 0.4, "warm": 0.8, "cold": 1.6, "p99": 30.0, "mem": 150.0}


# -- a process in a tmux pane ---------------------------------------------------------------


class Pane:
    """One tmux server with one pane running `command` (exec'd: the pane's pid is the app)."""

    def __init__(self, command: str, size: tuple[int, int]) -> None:
        self.sock = f"atk-bench-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.env = {k: v for k, v in os.environ.items() if k not in (*AGENT_VARS, "TMUX")}
        self.env["TERM"] = "xterm-256color"
        self.env["TMUX_TMPDIR"] = tempfile.mkdtemp(prefix="atk-bench-tmux-")  # the socket, removed in close()
        self.command = command
        self.size = size
        self.pid = 0

    def tmux(self, *args: str) -> str:
        proc = subprocess.run(
            ["tmux", "-L", self.sock, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            env=self.env,
            check=False,
        )
        return proc.stdout

    def start(self) -> float:
        t0 = time.monotonic()
        w, h = self.size
        self.tmux("new-session", "-d", "-s", "b", "-x", str(w), "-y", str(h), f"exec {self.command}")
        self.pid = int(self.tmux("display-message", "-p", "-t", "b", "#{pane_pid}").strip() or 0)
        return t0

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "b")

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "b", *keys)

    def cpu(self) -> float:
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def hwm_mib(self) -> float:
        return hwm_mib(self.pid)

    def wait_idle(self, quiet: float = 0.6, timeout: float = 60) -> None:
        """Until the process has used no CPU for `quiet` seconds."""
        deadline = time.monotonic() + timeout
        last, since = self.cpu(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = self.cpu()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return

    def alive(self) -> bool:
        return Path(f"/proc/{self.pid}").exists()

    def close(self) -> None:
        self.tmux("kill-server")
        shutil.rmtree(self.env["TMUX_TMPDIR"], ignore_errors=True)


@dataclass
class StartRun:
    first: float
    rows: float
    cpu_rows: float
    hwm_rows: float
    hwm_filter: float


def poll(pane: Pane, t0: float, ok: Callable[[str], bool], timeout: float = 120) -> float:
    while True:
        screen = pane.screen()
        t = time.monotonic() - t0
        if ok(screen):
            return t
        if t > timeout:
            raise RuntimeError(f"timed out; the screen was:\n{screen}")
        time.sleep(0.01)


def start_run(store: Path, counts: dict[str, int], size: tuple[int, int], cold: bool) -> StartRun:
    if cold:
        shutil.rmtree(store / ".git" / "atk-cache", ignore_errors=True)
    titles = [
        re.compile(rf"\b{name} {n}\b")
        for name, n in (("Inbox", counts["inbox"]), ("Processing", counts["processing"]), ("Hold", counts["hold"]))
    ]
    pane = Pane(f"{BIN} --store {store}", size)
    try:
        t0 = pane.start()
        first = poll(pane, t0, lambda s: bool(s.strip()))
        rows = poll(pane, t0, lambda s: all(t.search(s) for t in titles))
        cpu_rows = pane.cpu()
        pane.wait_idle()
        hwm_rows = pane.hwm_mib()
        pane.send("/")
        poll(pane, t0, lambda s: "filter:" in s or "Esc clears" in s)
        pane.send("-l", "zq")
        pane.wait_idle(quiet=1.0)  # every active body read, the filter applied
        hwm_filter = pane.hwm_mib()
        pane.send("Escape")
        pane.send("q")
        deadline = time.monotonic() + 20
        while pane.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        return StartRun(first, rows, cpu_rows, hwm_rows, hwm_filter)
    finally:
        pane.close()


def floor_first_frame(size: tuple[int, int], tmp: Path) -> float:
    app = tmp / "floor_app.py"
    app.write_text(
        "from textual.app import App\nfrom textual.widgets import Static\n"
        "class Floor(App):\n    def compose(self):\n        yield Static('Inbox 1')\n"
        "Floor().run()\n"
    )
    pane = Pane(f"{sys.executable} {app}", size)
    try:
        t0 = pane.start()
        return poll(pane, t0, lambda s: "Inbox 1" in s)
    finally:
        pane.close()


def interpreter_start() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - t0


# -- key to frame, in process -----------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


async def key_latencies(store: Path, presses: int, size: tuple[int, int]) -> dict[str, list[tuple[float, float]]]:
    from textual import events
    from textual.widgets import Input

    from atk_tui.tui.app import make_app
    from atk_tui.tui.config import TuiConfig
    from atk_tui.tui.widgets.item_list import ItemList

    app = make_app(store, theme="textual-dark", watch=False, actor="user", config=TuiConfig())
    frames: list[tuple[float, float, list[bool]]] = []  # wall, UI-thread CPU, conditions
    conditions: list[Callable[[], bool]] = []
    frame_event = asyncio.Event()
    original_display = app._display

    def display(screen, renderable):  # the frame: built as for a terminal, then handed on
        if renderable is not None and hasattr(renderable, "render_segments"):
            renderable.render_segments(app.console)
            frames.append((time.perf_counter(), time.thread_time(), [c() for c in conditions]))
            frame_event.set()
        return original_display(screen, renderable)

    app._display = display  # type: ignore[method-assign]

    async def measure(
        key: str, char: str | None, *done: Callable[[], bool], timeout: float = 5.0
    ) -> list[tuple[float, float]]:
        """Post one key; for each condition, (wall ms, UI-thread CPU ms) until the first frame
        drawn with it true."""
        frames.clear()
        conditions[:] = done
        t0, c0 = time.perf_counter(), time.thread_time()
        app.post_message(events.Key(key, char))
        deadline = t0 + timeout
        while True:
            found = [next(((t, c) for t, c, flags in frames if flags[i]), None) for i in range(len(done))]
            if all(f is not None for f in found):
                conditions.clear()
                return [((t - t0) * 1000, (c - c0) * 1000) for t, c in found]  # type: ignore[misc]
            frame_event.clear()
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                focused = app.focused.id if app.focused is not None else None
                raise RuntimeError(f"no frame showed the effect of {key!r} ({len(frames)} frames; focus on {focused})")
            try:
                await asyncio.wait_for(frame_event.wait(), remaining)
            except TimeoutError:
                pass

    results: dict[str, list[tuple[float, float]]] = {"down": [], "tab": [], "filter-echo": [], "filter-applied": []}
    gaps = (0.03, 0.03, 0.03, 0.25)
    async with app.run_test(size=size) as pilot:
        main = app.main
        for _ in range(1200):  # until the queue is shown
            await pilot.pause(0.05)
            if main.view is not None and main.query_one("#inbox", ItemList).rows:
                break
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)

        inbox = main.query_one("#inbox", ItemList)
        step = 1  # down, and back up from the bottom of a short list
        for i in range(presses):
            if not 0 <= inbox.cursor + step < len(inbox.rows):
                step = -step
            key, target = ("down" if step > 0 else "up"), inbox.cursor + step
            (ms,) = await measure(key, None, lambda t=target: inbox.cursor == t and main.selected == inbox.current_key)
            results["down"].append(ms)
            await asyncio.sleep(gaps[i % len(gaps)])

        for i in range(presses):  # Tab goes needs, inbox, processing, hold, then the detail (issue 43)
            before = app.focused
            (ms,) = await measure("tab", "\t", lambda b=before: app.focused is not b and app.focused is not None)
            results["tab"].append(ms)
            await asyncio.sleep(gaps[i % len(gaps)])

        await pilot.press("1", "slash")
        filt = main.query_one("#filter", Input)
        filt.cursor_blink = False
        await app.workers.wait_for_complete()  # every active body read (the filter searches them)
        await pilot.pause(0.3)
        applied = [0]
        original_refresh = main.refresh_rows

        def refresh_rows() -> None:
            original_refresh()
            applied[0] += 1

        main.refresh_rows = refresh_rows  # type: ignore[method-assign]
        word = "session"  # typed, then erased, again and again
        cycle = [(c, c) for c in word] + [("backspace", None)] * len(word)
        typed = ""
        for i in range(presses):
            key, char = cycle[i % len(cycle)]
            typed = typed[:-1] if char is None else typed + char
            before = applied[0]
            echo, done = await measure(
                key,
                char,
                lambda e=typed: filt.value == e,
                lambda e=typed, b=before: applied[0] > b and main.filter_text == e.strip(),
            )
            results["filter-echo"].append(echo)
            results["filter-applied"].append(done)
            await asyncio.sleep(0.03)
    return results


async def floor_key_latency(presses: int, size: tuple[int, int]) -> list[tuple[float, float]]:
    """The same measurement of `down` on a bare Textual `DataTable` (1,000 rows) and `Footer`:
    what any Textual app pays here for a key press and a frame."""
    from textual import events
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable, Footer

    class Floor(App):
        def compose(self) -> ComposeResult:
            yield DataTable()
            yield Footer()

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_columns("badge", "title", "repo")
            for i in range(1000):
                table.add_row("ready", f"item number {i}", "acme/webapp")
            table.focus()

    app = Floor()
    frames: list[tuple[float, float]] = []
    original_display = app._display

    def display(screen, renderable):
        if renderable is not None and hasattr(renderable, "render_segments"):
            renderable.render_segments(app.console)
            frames.append((time.perf_counter(), time.thread_time()))
        return original_display(screen, renderable)

    app._display = display  # type: ignore[method-assign]
    out = []
    gaps = (0.03, 0.03, 0.03, 0.25)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.5)
        for i in range(presses):
            frames.clear()
            t0, c0 = time.perf_counter(), time.thread_time()
            app.post_message(events.Key("down", None))
            while not frames:
                await asyncio.sleep(0.001)
            out.append(((frames[0][0] - t0) * 1000, (frames[0][1] - c0) * 1000))
            await asyncio.sleep(gaps[i % len(gaps)])
    return out


# -- main ---------------------------------------------------------------------------------------


def fmt(label: str, value: float, target: float | None, unit: str = "s", extra: str = "") -> str:
    shown = f"{value * 1000:.0f} ms" if unit == "s" else f"{value:.1f} {unit}"
    mark = ""
    if target is not None:
        ok = value <= target
        tshown = f"{target * 1000:.0f} ms" if unit == "s" else f"{target:g} {unit}"
        mark = f"  target <= {tshown}  {'ok' if ok else 'MISSED'}"
    return f"  {label:<34} {shown:>10}{mark}{('  ' + extra) if extra else ''}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--active", type=int, default=10000)
    ap.add_argument("--terminal", type=int, default=50000)
    ap.add_argument("--store", type=Path, help="use this store (made earlier by gen_store.py)")
    ap.add_argument("--keep", action="store_true", help="keep the generated store (its path is printed)")
    ap.add_argument("--runs", type=int, default=3, help="terminal runs each, cold and warm (median)")
    ap.add_argument("--presses", type=int, default=200)
    ap.add_argument("--size", default="160x48", help="terminal size WxH")
    ap.add_argument("--skip-terminal", action="store_true")
    ap.add_argument("--skip-keys", action="store_true")
    args = ap.parse_args(argv)
    size = tuple(int(v) for v in args.size.lower().split("x"))
    assert len(size) == 2
    if shutil.which("tmux") is None and not args.skip_terminal:
        ap.error("tmux is needed for the terminal measurements (or --skip-terminal)")
    for var in AGENT_VARS:
        os.environ.pop(var, None)

    tmp = Path(tempfile.mkdtemp(prefix="atk-bench-tui-"))
    try:
        if args.store:
            store = args.store.resolve()
        else:
            t = time.perf_counter()
            store = generate_store(tmp / "gen", args.active, args.terminal, seed=1)
            print(
                f"store: {store} ({args.active} active + {args.terminal} terminal, made in {time.perf_counter() - t:.1f} s)"
            )
        counts = {
            s: sum(1 for p in (store / "wi" / s).iterdir() if p.suffix == ".md")
            for s in ("inbox", "processing", "hold")
        }
        print(
            f"panes: inbox {counts['inbox']}, processing {counts['processing']}, hold {counts['hold']}; terminal {args.size}; "
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start"
        )

        failed = False
        if not args.skip_terminal:
            floor = statistics.median(floor_first_frame(size, tmp) for _ in range(args.runs))
            interp = statistics.median(interpreter_start() for _ in range(5))
            runs: dict[str, list[StartRun]] = {"cold": [], "warm": []}
            for _ in range(args.runs):
                runs["cold"].append(start_run(store, counts, size, cold=True))
                runs["warm"].append(start_run(store, counts, size, cold=False))
            print("\nreal terminal (tmux), median of", args.runs, "runs:")
            print(fmt("floor: bare interpreter start", interp, None))
            print(fmt("floor: bare Textual app, 1st frame", floor, None))
            for kind in ("warm", "cold"):
                r = runs[kind]
                first = statistics.median(x.first for x in r)
                rows = statistics.median(x.rows for x in r)
                cpu = statistics.median(x.cpu_rows for x in r)
                print(fmt(f"{kind}: first frame", first, TARGETS["first"]))
                print(fmt(f"{kind}: all rows shown", rows, TARGETS[kind], extra=f"(app CPU by then {cpu:.2f} s)"))
                failed |= first > TARGETS["first"] or rows > TARGETS[kind]
            hwm_rows = max(x.hwm_rows for r in runs.values() for x in r)
            hwm_filter = max(x.hwm_filter for r in runs.values() for x in r)
            print(fmt("peak memory, rows shown", hwm_rows, TARGETS["mem"], unit="MiB"))
            print(fmt("peak memory, all bodies read", hwm_filter, TARGETS["mem"], unit="MiB"))
            failed |= hwm_filter > TARGETS["mem"]

        if not args.skip_keys:
            lat = asyncio.run(key_latencies(store, args.presses, size))
            lat["floor: DataTable"] = asyncio.run(floor_key_latency(args.presses, size))
            print(
                f"\nkey -> frame in process (headless run_test, frame built for a terminal), {args.presses} presses each:"
            )
            print("  (wall: what the user waits; cpu: the UI thread's own CPU time for it, which a loaded")
            print("   machine does not inflate)")
            for name, values in lat.items():
                wall = [w for w, _ in values]
                cpu = [c for _, c in values]
                p50, p99 = percentile(wall, 50), percentile(wall, 99)
                line = (
                    f"  {name:<17} wall p50 {p50:6.1f} p99 {p99:6.1f} max {max(wall):6.1f} ms"
                    f" | cpu p50 {percentile(cpu, 50):6.1f} p99 {percentile(cpu, 99):6.1f} ms"
                )
                if name == "filter-applied":
                    line += "  (includes the 120 ms filter debounce)"
                elif name.startswith("floor"):
                    line += "  (a bare DataTable + Footer, `down`)"
                else:
                    line += f"  target p99 <= {TARGETS['p99']:g} ms {'ok' if p99 <= TARGETS['p99'] else 'MISSED'}"
                    failed |= p99 > TARGETS["p99"]
                print(line)
        print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
        if args.keep and not args.store:
            print(f"kept: {store}")
        return 1 if failed else 0
    finally:
        if not (args.keep and not args.store):
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
