#!/usr/bin/env python3
"""Issue 43's speed table: the dashboard against the floors the issue names, in a real terminal.

Usage: python bench/tui_floors.py --store DIR [--runs N] [--size WxH] [--presses N] [--hz F]

`DIR` is a store made by `bench/gen_store.py` (10,000 active + 50,000 archived items by
default: `python bench/gen_store.py --out D` makes `D/store`). Every figure is taken in tmux
(`bench_tui.Pane`: the program exec'd in a pane, the screen read with `capture-pane` every
~10 ms, so each figure carries that resolution and includes tmux starting the process), the
dashboard and its floor one after the other in the same run, `--runs` times:

* held `down`: focus the inbox, wait until the program is idle, then `--presses` presses of
  `down` at `--hz` (~30 Hz, as a held key repeats), then `?`. The figure is how far the screen
  trails: from sending `?` to the screen showing the help (`Keys`). Floor: a bare Textual
  `OptionList` of 10,000 rows with a `Static` that follows the highlight and a `Footer`, given
  the same keys (its `?` writes into the `Static`).
* first frame: from launching the pane to the pane no longer blank. Floor: a Textual app with
  one `Static` (an app with nothing in it draws nothing tmux can tell from blank).
* every pane's rows and counts shown: from launching the pane to the titles of Needs you,
  Inbox, Processing and Hold carrying their counts (the counts and the rows are set in the same
  refresh), warm (the dashboard's cache kept from the run before). Floor: the same first frame.

Prints each run, then the ratios against the goals (held <= 1.5x, first frame <= 1.5x, rows
<= 2.5x). The machine's load average is printed with them: on a shared machine the ratios mean
more than the times.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_tui import BIN, Pane, poll

GOALS = {"held": 1.5, "first": 1.5, "rows": 2.5}

FLOOR_LIST = """\
from textual.app import App
from textual.binding import Binding
from textual.widgets import Footer, OptionList, Static


class Floor(App):
    BINDINGS = [Binding("question_mark", "help", "Help")]
    CSS = "OptionList { height: 1fr; } #detail { height: 8; }"

    def compose(self):
        yield OptionList(*[f"item {i:05d} a title of about the length titles have here" for i in range(10000)])
        yield Static("detail", id="detail")
        yield Footer()

    def on_option_list_option_highlighted(self, event):
        self.query_one("#detail", Static).update(f"detail of {event.option.prompt}")

    def action_help(self):
        self.query_one("#detail", Static).update("Keys shown")


Floor().run()
"""

FLOOR_FIRST = """\
from textual.app import App
from textual.widgets import Static


class Floor(App):
    def compose(self):
        yield Static("Inbox 1")


Floor().run()
"""


def counts(store: Path) -> dict[str, int]:
    return {s: sum(1 for p in (store / "wi" / s).glob("*.md")) for s in ("inbox", "processing", "hold")}


def held(command: str, size: tuple[int, int], ready: str, focus: list[str], shown: str, presses: int, hz: float) -> float:
    """Seconds from sending `?` (after `presses` downs at `hz`) to `shown` on the screen."""
    pane = Pane(command, size)
    try:
        t0 = pane.start()
        poll(pane, t0, lambda s: re.search(ready, s) is not None)
        for key in focus:
            pane.send(key)
        pane.wait_idle(quiet=0.8)
        gap = 1.0 / hz
        nxt = time.monotonic()
        for _ in range(presses):
            pane.send("Down")
            nxt += gap
            time.sleep(max(0.0, nxt - time.monotonic()))
        t1 = time.monotonic()
        pane.send("?")
        return poll(pane, t1, lambda s: shown in s, timeout=60)
    finally:
        pane.close()


def launch(command: str, size: tuple[int, int], done: list[re.Pattern[str]]) -> tuple[float, float]:
    """(first frame, `done` all on the screen), seconds from launching the pane."""
    pane = Pane(command, size)
    try:
        t0 = pane.start()
        first = poll(pane, t0, lambda s: bool(s.strip()))
        rows = poll(pane, t0, lambda s: all(p.search(s) for p in done))
        return first, rows
    finally:
        pane.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True, help="a store made by gen_store.py (DIR/store or the store itself)")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--size", default="120x36")
    ap.add_argument("--presses", type=int, default=60)
    ap.add_argument("--hz", type=float, default=30.0)
    ap.add_argument("--bin", default=str(BIN), help="the dashboard's command (default: this venv's atk-tui)")
    args = ap.parse_args(argv)
    store = args.store / "store" if (args.store / "store" / "wi").is_dir() else args.store
    w, h = (int(x) for x in args.size.split("x"))
    size = (w, h)
    n = counts(store)
    titles = [re.compile(r"Needs you \d+")] + [
        re.compile(rf"\b{name} {n[s]:,}\b|\b{name} {n[s]}\b") for name, s in (("Inbox", "inbox"), ("Processing", "processing"), ("Hold", "hold"))
    ]
    tmp = Path(tempfile.mkdtemp(prefix="atk-floors-"))
    (tmp / "floor_list.py").write_text(FLOOR_LIST)
    (tmp / "floor_first.py").write_text(FLOOR_FIRST)
    app_cmd = f"{args.bin} --store {store}"
    print(f"store {store}: {n} active in the panes; terminal {args.size}; {args.presses} downs at {args.hz:g} Hz")
    print(f"load average before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} on {os.cpu_count()} cores")
    launch(app_cmd, size, titles)  # a warm cache, as every later start has
    rows: dict[str, list[float]] = {k: [] for k in ("held", "held_floor", "first", "first_floor", "rows")}
    for run in range(args.runs):
        f_first, _ = launch(f"{sys.executable} {tmp / 'floor_first.py'}", size, [re.compile("Inbox 1")])
        a_first, a_rows = launch(app_cmd, size, titles)
        h_floor = held(f"{sys.executable} {tmp / 'floor_list.py'}", size, r"item 00000", [], "Keys shown", args.presses, args.hz)
        h_app = held(app_cmd, size, r"Inbox \d", ["Tab"], "Keys", args.presses, args.hz)
        for k, v in (("held", h_app), ("held_floor", h_floor), ("first", a_first), ("first_floor", f_first), ("rows", a_rows)):
            rows[k].append(v)
        print(
            f"run {run + 1}: held {h_app * 1000:.0f} ms vs {h_floor * 1000:.0f} ms; first frame {a_first * 1000:.0f} ms vs "
            f"{f_first * 1000:.0f} ms; rows and counts {a_rows * 1000:.0f} ms (load {os.getloadavg()[0]:.2f})"
        )
    print("\n| path | floor | dashboard | ratio | goal |\n| --- | --- | --- | --- | --- |")
    for label, key, floor_key, goal in (
        ("held down, screen trails by", "held", "held_floor", GOALS["held"]),
        ("first frame", "first", "first_floor", GOALS["first"]),
        ("every pane's rows and counts", "rows", "first_floor", GOALS["rows"]),
    ):
        ratios = [a / f for a, f in zip(rows[key], rows[floor_key], strict=True) if f > 0]
        ms = lambda xs: "–".join(f"{x * 1000:.0f}" for x in (min(xs), max(xs)))  # noqa: E731
        print(
            f"| {label} | {ms(rows[floor_key])} ms | {ms(rows[key])} ms | "
            f"{min(ratios):.1f}–{max(ratios):.1f}× (median {statistics.median(ratios):.1f}×) | ≤ {goal}× |"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
