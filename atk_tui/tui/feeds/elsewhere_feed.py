"""The dashboard's last look at GitHub (issue 31): what waits for the person elsewhere.

`ElsewhereFeed` keeps the app's `Elsewhere` (the service's `elsewhere`, `service/elsewhere/view.py`)
and publishes it on `signal` to the Elsewhere screen and the needs-you pane's title. Nothing here
waits on GitHub in the UI thread, and nothing runs before the first rows are drawn: `start()`
(called once the first queue is shown) reads the cache in a worker (the rows of the last run,
with their age) and then looks at GitHub in a worker with gh's time limits; again every
`[elsewhere] interval` seconds and on `u` in the screen. One look at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from textual.app import App
from textual.signal import Signal

from atk_tui.domain.model import ACTIVE
from atk_tui.service import QueueView, Service

if TYPE_CHECKING:
    from atk_tui.service.elsewhere.afkkit import Elsewhere, Settings

#: the worker group of the looks (quitting does not wait for it: `stop()` kills gh)
GROUP = "elsewhere"


class ElsewhereFeed:
    def __init__(self, app: App, service: Service, shown: Callable[[], QueueView | None], *, auto: bool = True) -> None:
        self.app, self.service, self.shown = app, service, shown  # shown: the queue shown now
        #: look at GitHub by itself (at start and on the interval); off: only on `u` (the demo)
        self.auto = auto
        self.found: Elsewhere | None = None
        self.settings: Settings | None = None
        self.looking = False
        self.started = False
        self.signal: Signal[Elsewhere | None] = Signal(app, "elsewhere")

    @property
    def waiting(self) -> int:
        """How many issues and PRs wait for the person (the header's count)."""
        return len(self.found.waiting) if self.found is not None else 0

    def start(self) -> None:
        """Once, after the first rows are drawn: the cached rows, then a look."""
        if self.started:
            return
        self.started = True
        self.app.run_worker(self._read_cache, thread=True, group=GROUP, exit_on_error=False)

    def _read_cache(self) -> None:
        service = self.service
        settings, cached = service.elsewhere.settings(), service.elsewhere.cached()
        self.app.call_from_thread(self._started, settings, cached)

    def _started(self, settings: Settings, cached: Elsewhere | None) -> None:
        self.settings = settings
        for error in settings.errors:
            self.app.notify(error, severity="warning", timeout=8)
        if cached is not None and self.found is None:
            self._show(cached)
        if self.auto and settings.interval > 0:
            self.app.set_interval(settings.interval, self.look)
            self.look()

    def look(self) -> bool:
        """A look at GitHub in a worker; False when one is under way already."""
        if self.looking:
            return False
        self.looking = True
        view = self.shown()
        repos = None if view is None else {i.target_repo for i in view.items.values() if i.target_repo and i.state in ACTIVE}
        self.signal.publish(self.found)  # "looking…"
        self.app.run_worker(lambda: self._look(repos), thread=True, group=GROUP, exit_on_error=False)
        return True

    def _look(self, repos: set[str] | None) -> None:
        service = self.service
        try:
            found = service.elsewhere.refresh(repos, settings=self.settings)
        except Exception as exc:  # the store or the cache, never gh (the service says gh's problems)
            from atk_tui.service.elsewhere.afkkit import Elsewhere

            found = replace(self.found or Elsewhere(), problem=f"could not look: {exc}", problem_kind="failed")
        self.app.call_from_thread(self._looked, found)

    def _looked(self, found: Elsewhere) -> None:
        self.looking = False
        self._show(found)

    def _show(self, found: Elsewhere) -> None:
        self.found = found
        self.signal.publish(found)  # (the Elsewhere screen, and the needs-you pane's title)

    def stop(self) -> None:
        """Quitting: every gh still running is killed (its worker then ends at once)."""
        self.service.elsewhere.interrupt()
