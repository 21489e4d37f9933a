#!/usr/bin/env python3
"""Write the README's screenshots (SVG) from the same app factory the CLI and the tests use.

    python scripts/screenshots.py [--out screenshots] [--size 120x36]

Each shot starts the app (`make_app`, headless `run_test`) on a fresh demo store created at a
fixed time, with a frozen clock, the `textual-dark` theme and the watcher off, so the pictures
only change when the UI does. It waits for the app to be idle (workers, debounce timers, layout)
rather than sleeping, then calls `App.save_screenshot`.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from rich.cells import cell_len
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.worker import WorkerCancelled, WorkerFailed

from atk_tui.demo import create_demo_store, demo_filenames
from atk_tui.tui.app import AtkApp, make_app
from atk_tui.tui.config import TuiConfig

NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
DEMO = demo_filenames(NOW)
STORE_LABEL = "~/notes"


async def settle(pilot: Pilot, max_rounds: int = 400) -> None:
    """Wait until no worker runs, no one-shot timer (a debounce) is pending and the screen has
    no layout or repaint left to do."""
    app = pilot.app
    quiet = 0
    for _ in range(max_rounds):
        # a write parked on its dialog (the answer form) waits for keys: not for it
        parked = isinstance(app.screen, ModalScreen)
        running = [w for w in app.workers if not w.is_finished and not (parked and w.group == "write")]
        try:
            await asyncio.gather(*(w.wait() for w in running))
        except (WorkerCancelled, WorkerFailed):
            pass
        await pilot.pause()
        screen = app.screen
        timers = [t for pump in (app, *app.screen_stack) for t in list(pump._timers)]
        pending_timer = any(
            t._repeat == 0 and t._task is not None and not t._task.done() and t._interval <= 1.0 for t in timers
        )
        pending_screen = screen._layout_required or screen._repaint_required or screen._dirty_widgets
        parked = isinstance(app.screen, ModalScreen)
        if pending_timer or pending_screen or any(not w.is_finished and not (parked and w.group == "write") for w in app.workers):
            quiet = 0
            await pilot.pause(0.02)
            continue
        quiet += 1
        if quiet >= 2:
            await pilot.wait_for_scheduled_animations()
            return
    raise RuntimeError("the app did not settle")


Step = Callable[[Pilot], Awaitable[None]]


def keys(*presses: str) -> Step:
    async def run(pilot: Pilot) -> None:
        for key in presses:
            await pilot.press(key)
            await settle(pilot)

    return run


def select(key: str, *then: str) -> Step:
    async def run(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, AtkApp)
        if not app.main.jump_to(DEMO[key]):
            raise RuntimeError(f"cannot select the demo item {key}")
        await settle(pilot)
        await keys(*then)(pilot)

    return run


SHOTS: dict[str, tuple[str, Step]] = {
    "main": ("The dashboard: needs you, inbox, processing, hold, detail", keys()),
    "needs-you": ("Needs you: unanswered questions by urgency and what they block", keys("n", "j")),
    "detail-uwi": ("A question with three parts, options and recommendations", select("md-multi")),
    "detail-blocked": ("A blocked request: why, and the chain it waits on", select("chain-2")),
    "filter": ("Filtering every pane as you type", keys("slash", *"session")),
    "history": ("History: adopted and rejected items with notes and commits", keys("H")),
    "help": ("Every key", keys("question_mark")),
    "graph": ("The dependency graph around the selected item", select("chain-2", "v")),
    "answer": ("Answering a question: options wrap, the choice marked ●", select("md-multi", "a")),
    "light": ("The light theme: every text at 4.5:1 or more", select("chain-uwi")),
}
THEMES = {"light": "textual-light"}  # a shot not named here is in textual-dark

#: Rich's SVG export gives each run of text a `textLength` of its characters, not its cells: a
#: CJK run (two cells a character) was squeezed into half its width. Each is set to its cells.
_TEXT = re.compile(r'(<text class="[^"]*" x="[0-9.]+" y="[0-9.]+" textLength=")([0-9.]+)("[^>]*>)(.*?)(</text>)')
CELL = 20 * 0.61  # the export's cell width (its font size times its aspect ratio)


def unsqueeze(svg: str) -> str:
    def fix(m: re.Match[str]) -> str:
        cells = cell_len(html.unescape(m.group(4)).replace("\xa0", " "))
        return f"{m.group(1)}{cells * CELL:g}{m.group(3)}{m.group(4)}{m.group(5)}"

    return _TEXT.sub(fix, svg)


async def shoot(name: str, step: Step, out: Path, size: tuple[int, int], workdir: Path) -> Path:
    base = workdir / name
    store = create_demo_store(base, NOW)
    app = make_app(
        store,
        theme=THEMES.get(name, "textual-dark"),
        clock=lambda: NOW,
        watch=False,
        actor="user",
        config=TuiConfig(),
        store_label=STORE_LABEL,
    )
    path = out / f"{name}.svg"
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for inp in app.query("Input"):
            inp.cursor_blink = False  # type: ignore[attr-defined]
        await step(pilot)
        await settle(pilot)
        path.write_text(unsqueeze(app.export_screenshot(title=app.title)), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "screenshots")
    ap.add_argument("--size", default="120x36", help="terminal size, WIDTHxHEIGHT")
    ap.add_argument("only", nargs="*", help=f"shots to take (default: all): {', '.join(SHOTS)}")
    args = ap.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    unknown = set(args.only) - set(SHOTS)
    if unknown:
        ap.error(f"unknown shot(s): {', '.join(sorted(unknown))}")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="atk-shots-") as tmp:
        for name, (caption, step) in SHOTS.items():
            if args.only and name not in args.only:
                continue
            path = asyncio.run(shoot(name, step, args.out, (width, height), Path(tmp)))
            print(f"{path}  {caption}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
