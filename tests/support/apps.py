"""The app under test, and waiting for it (one `settle` for every test folder).

Every app comes from `make_app` with a frozen clock, an explicit theme, no user config, a fixed
store label (the status line shows it instead of the tmp path) and, unless a test says
otherwise, no watcher. `settle` uses public APIs only (`Worker.wait`, `pilot.pause`,
`pilot.wait_for_scheduled_animations`): it waits for the workers, then for a quiet spell longer
than the dashboard's longest debounce, never a fixed sleep per test.
"""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from atk_tui.demo import demo_filenames
from atk_tui.tui.app import AtkApp, make_app
from atk_tui.tui.config import TuiConfig
from support.clock import NOW, frozen_clock

DEMO = demo_filenames(NOW)  # demo key -> filename (see atk_tui/demo.py)
STORE_LABEL = "~/notes"
THEME = "textual-dark"
#: seconds without a running worker before the app counts as settled: longer than the longest
#: debounce (the detail pane renders Markdown 0.15 s after the cursor rests)
QUIET = 0.2
QUIET_STEP = 0.05


def build_app(root: Path, **kw: Any) -> AtkApp:
    kw.setdefault("theme", THEME)
    kw.setdefault("clock", frozen_clock)
    kw.setdefault("watch", False)
    kw.setdefault("actor", "user")
    kw.setdefault("config", TuiConfig())
    kw.setdefault("store_label", STORE_LABEL)
    # Pilot presses keys faster than anyone reads a screen: keys after a dialog closes are not
    # dropped (`AtkApp.dialog_key_grace`) unless a test asks for the person's grace
    grace = kw.pop("dialog_key_grace", 0.0)
    app = make_app(root, **kw)
    app.dialog_key_grace = grace
    return app


def recording(app: AtkApp) -> AtkApp:
    """Record every notification (`app.notes`: message, severity) and every worker that
    failed (`app.worker_errors`: the app reports them as toasts; `settle` raises them)."""
    notes: list[tuple[str, str]] = []
    errors: list[BaseException] = []
    notify, report = app.notify, app.report_worker_error

    def recording_notify(message: str, *args: Any, **kw: Any) -> None:
        notes.append((str(message), kw.get("severity", "information")))
        notify(message, *args, **kw)

    def recording_report(event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            errors.append(event.worker.error)
        report(event)

    app.notify = recording_notify  # type: ignore[method-assign]
    app.report_worker_error = recording_report  # type: ignore[method-assign]
    app.notes = notes  # type: ignore[attr-defined]
    app.worker_errors = errors  # type: ignore[attr-defined]
    return app


def _busy(app: AtkApp) -> list[Worker]:
    """Running workers, except a write parked on a dialog (push_screen_wait waits for keys)."""
    modal = isinstance(app.screen, ModalScreen)
    return [w for w in app.workers if not w.is_finished and not (modal and w.group == "write")]


async def settle(pilot: Pilot, *, limit: int = 3000) -> None:
    """Wait until the app is idle: workers done (or parked on a dialog) and `QUIET` seconds
    without one, so debounce timers have fired. Bounded: fails rather than hangs."""
    app = pilot.app
    quiet = 0.0
    for _ in range(limit):
        errors = getattr(app, "worker_errors", [])
        if errors:
            raise AssertionError(f"a worker failed: {errors[0]!r}") from errors[0]
        busy = _busy(app)
        if busy:
            quiet = 0.0
            unparked = [w for w in busy if w.group != "write"]
            if unparked:  # exclusive workers get cancelled by their successors: fine here
                await asyncio.gather(*(w.wait() for w in unparked), return_exceptions=True)
            await pilot.pause(0.01 if not unparked else None)
            continue
        if quiet >= QUIET:
            await pilot.wait_for_scheduled_animations()
            return
        await pilot.pause(QUIET_STEP)
        quiet += QUIET_STEP
    raise AssertionError("the app did not settle")


@asynccontextmanager
async def running(app: AtkApp | Path, size: tuple[int, int] = (120, 36)) -> AsyncIterator[tuple[AtkApp, Pilot]]:
    """The app (or `build_app(root)`) running headless at `size`, settled: `(app, pilot)`."""
    if not isinstance(app, AtkApp):
        app = build_app(app)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        yield app, pilot


async def press(pilot: Pilot, *keys: str) -> None:
    """Press keys one by one, letting the app settle after each."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def wait_for_screen(pilot: Pilot, name: str, *, rounds: int = 200) -> None:
    """Wait until the active screen is the class `name` (for a screen opened while a worker
    waits on it, where `settle` would wait forever)."""
    for _ in range(rounds):
        await pilot.pause(0.02)
        if type(pilot.app.screen).__name__ == name:
            return
    raise AssertionError(f"{name} never opened")


async def wait_until(pilot: Pilot, ready: Any, what: str, *, rounds: int = 1500) -> None:
    """Poll `ready()` between frames until it is true (for what a worker the test holds on
    purpose does, where `settle` would wait for that worker). Bounded: fails naming `what`."""
    for _ in range(rounds):
        if ready():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def rendered_lines(app: AtkApp) -> Iterator[tuple[Widget, int, Strip]]:
    """Every shown widget of the current screen (toasts and modals included) rendered through
    its public line API, `Widget.render_lines`: `(widget, the screen row of the line, the line)`.
    What reaches the terminal is composed of exactly these lines."""
    screen = app.screen
    for widget in [screen, *screen.walk_children(with_self=False)]:
        if not widget.display:
            continue
        w, h = widget.outer_size
        if not w or not h:
            continue
        top = widget.region.y
        for y, strip in enumerate(widget.render_lines(Region(0, 0, w, h))):
            yield widget, top + y, strip


_LINE = re.compile(r'<text class="[^"]*" x="([0-9.]+)" y="[0-9.]+" textLength="[0-9.]+" clip-path="url\(#[^)]*-line-(\d+)\)">(.*?)</text>')


async def wait_for_text(pilot: Pilot, text: str, *, rounds: int = 400) -> str:
    """The screen once `text` is on it: for what Textual fills in on its own schedule (the
    command palette gathers its providers' hits in the background). Returns the last screen
    either way; the caller asserts."""
    shown = screen_text(pilot.app)
    for _ in range(rounds):
        if text in shown:
            break
        await pilot.pause(0.05)
        shown = screen_text(pilot.app)
    return shown


def screen_text(app: AtkApp) -> str:
    """What the terminal shows, as plain text, one line per row (from `App.export_screenshot`,
    which leaves blank cells out: they are put back from each piece's x position)."""
    svg = app.export_screenshot()
    pieces: dict[int, list[tuple[float, str]]] = {}
    for x, line, text in _LINE.findall(svg):
        pieces.setdefault(int(line), []).append((float(x), html.unescape(text).replace("\xa0", " ")))
    width, height = app.size
    cell = _cell_width(svg)
    lines = []
    for row in range(height):
        out, col = [], 0
        for x, text in sorted(pieces.get(row, [])):
            start = round(x / cell)
            if start > col:
                out.append(" " * (start - col))
                col = start
            out.append(text)
            col += cell_len(text)
        out.append(" " * max(width - col, 0))
        lines.append("".join(out))
    return "\n".join(lines)


def region_text(app: AtkApp, region: Region) -> str:
    """The screen's text inside `region` (e.g. a widget's `region`), counted in cells: a wide
    (CJK) character takes two."""
    out = []
    for line in screen_text(app).splitlines()[region.y : region.bottom]:
        col, kept = 0, []
        for ch in line:
            if region.x <= col < region.right:
                kept.append(ch)
            col += cell_len(ch)
        out.append("".join(kept))
    return "\n".join(out)


def _cell_width(svg: str) -> float:
    """Pixels per terminal cell in the screenshot."""
    for m in re.finditer(r'textLength="([0-9.]+)"[^>]*>([^<]+)</text>', svg):
        text = html.unescape(m[2])
        if text.isascii():
            return float(m[1]) / len(text)
    return 12.2


def make_recorded(root: Path, **kw: Any) -> AtkApp:
    return recording(build_app(root, **kw))


__all__ = ["DEMO", "NOW", "STORE_LABEL", "THEME", "build_app", "make_recorded", "press", "recording", "screen_text", "settle", "wait_until"]
