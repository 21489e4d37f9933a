"""Helpers for the dashboard tests (imported by conftest.py and the test modules).

Every app here comes from `make_app` with a frozen clock, an explicit theme, no user config, a fixed
store label (the status line shows it instead of the tmp path) and, unless a test says otherwise,
no watcher. `settle` waits for the app to be idle: no running workers and no pending one-shot timers
(the detail pane debounces its loads and the filter debounces keystrokes), never a fixed sleep.
"""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from atk_tui.demo import demo_filenames
from atk_tui.tui.app import AtkApp, make_app
from atk_tui.tui.config import TuiConfig

NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
DEMO = demo_filenames(NOW)  # demo key -> filename (see atk_tui/demo.py)
STORE_LABEL = "~/notes"
THEME = "textual-dark"


def frozen_clock() -> datetime:
    return NOW


def build_app(root: Path, **kw: Any) -> AtkApp:
    kw.setdefault("theme", THEME)
    kw.setdefault("clock", frozen_clock)
    kw.setdefault("watch", False)
    kw.setdefault("actor", "user")
    kw.setdefault("config", TuiConfig())
    kw.setdefault("store_label", STORE_LABEL)
    return make_app(root, **kw)


def _pending_timers(app: AtkApp) -> bool:
    """A one-shot timer of the app or a screen that has not fired yet (debounces)."""
    pumps = [app, *app.screen_stack]
    for pump in pumps:
        for timer in list(pump._timers):
            task = timer._task
            if timer._repeat == 0 and task is not None and not task.done() and timer._interval <= 1.0:
                return True
    return False


def _screen_pending(app: AtkApp) -> bool:
    """The current screen has a layout, repaint or recompose still to do."""
    screen = app.screen
    return bool(
        screen._layout_required
        or screen._scroll_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
    )


async def settle(pilot: Pilot, max_rounds: int = 400) -> None:
    """Wait until the app is idle: workers done, debounce timers fired, messages processed."""
    app = pilot.app
    quiet = 0
    for _ in range(max_rounds):
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:  # an exclusive worker replaced by a newer one
            pass
        await pilot.pause()
        busy = _pending_timers(app) or any(not w.is_finished for w in app.workers) or _screen_pending(app)
        if busy:
            quiet = 0
            await pilot.pause(0.02)
            continue
        quiet += 1
        if quiet >= 2:
            await pilot.wait_for_scheduled_animations()
            return
    raise AssertionError("the app did not settle")


async def press(pilot: Pilot, *keys: str) -> None:
    """Press keys one by one, letting the app settle after each."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def screen_text(app: AtkApp) -> str:
    """What the terminal shows, as plain text."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def keys_of_pane(app: AtkApp, name: str) -> list[str]:
    """The filenames listed in a pane (`needs`, `inbox`, `processing`, `hold`), top to bottom."""
    from atk_tui.tui.widgets.item_list import ItemList

    return [row.key for row in app.main.query_one(f"#{name}", ItemList).rows]
