"""A write's waits, shown as they happen: the store lock it waits for (`LockWait`) and the slow
step it runs, a git hook (`Activity`), posted from the writing thread by the service's
listeners; `Spinner` turns a step that runs longer than `SPINNER_DELAY` into a spinner with
the hook's name in the status line."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.message import Message
from textual.timer import Timer

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPINNER_DELAY = 0.3  # seconds a step runs before the spinner shows (a quick hook shows nothing)


class LockWait(Message):
    """A write started (text) or stopped (None) waiting for the store lock."""

    def __init__(self, text: str | None) -> None:
        super().__init__()
        self.text = text


class Activity(Message):
    """A write started (what) or ended (None) a slow step: a git hook."""

    def __init__(self, what: str | None) -> None:
        super().__init__()
        self.what = what


class Spinner:
    """The slow step a write runs (`what`), and the spinner's `frame` once it ran
    `SPINNER_DELAY` ("" before, and when no step runs); `changed` is called on every frame."""

    def __init__(self, app: App, changed: Callable[[], None]) -> None:
        self.app, self.changed = app, changed
        self.what: str | None = None
        self.frame = ""
        self._timer: Timer | None = None

    def show(self, what: str | None) -> None:
        self.what = what
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.frame = ""
        if what:
            frames = iter(range(1 << 30))
            self._timer = timer = self.app.set_interval(0.1, lambda: self._spin(next(frames)), pause=True)
            self.app.set_timer(SPINNER_DELAY, timer.resume)

    def _spin(self, frame: int) -> None:
        self.frame = SPINNER[frame % len(SPINNER)]
        self.changed()
