"""The queue view kept for the next run (`Service.save_queue`): a moment after the first one is
shown (off the first frames' way), then, while the store keeps changing, at most once a minute
(a save is ~0.2 s of work), in a thread worker."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.timer import Timer

from atk_tui.domain.model import SHOWN
from atk_tui.service import QueueView, Service

#: seconds from the first queue shown to keeping it for the next run, and between two such
#: saves while the store keeps changing
SAVE_DELAY, RESAVE_DELAY = 2.0, 60.0


class ViewKeeper:
    """The view kept (`saved`: the last run's, read at start, then this run's) and the save
    waiting to run; `shown()` is the queue the app shows now."""

    def __init__(self, app: App, service: Service, shown: Callable[[], QueueView | None]) -> None:
        self.app, self.service, self.shown = app, service, shown
        self.saved: QueueView | None = None
        self._timer: Timer | None = None
        self._saved_once = False

    def read(self) -> QueueView | None:
        """The view the last run kept (in the loading thread): only what changed since is read
        and judged."""
        self.saved = self.service.saved_queue(SHOWN)
        return self.saved

    def changed(self, view: QueueView) -> None:
        """`view` is shown: kept a moment later, unless it is the one kept."""
        if view is not self.saved and self._timer is None:
            self._timer = self.app.set_timer(RESAVE_DELAY if self._saved_once else SAVE_DELAY, self._start)

    def _start(self) -> None:
        self.app.run_worker(self._save, name="_save_queue", thread=True, exclusive=True, group="save", exit_on_error=False)

    def _save(self) -> None:
        self._timer = None
        view, saved = self.shown(), self.saved
        if view is None or view is saved:
            return
        if saved is not None and view.loaded == saved.loaded and view.snapshot.states == saved.snapshot.states:
            self.saved = view  # loaded exactly as the saved view: nothing to write (its copy is let go)
        elif self.service.save_queue(view):
            self.saved = view
            self._saved_once = True
