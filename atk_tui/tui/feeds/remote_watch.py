"""The dashboard's look at the remote (SPEC §11): a pushed change shows within seconds.

`RemoteWatch` runs, in the app's thread workers, `ls-remote` on the upstream every
`[tui] remote_check_interval` s (a pull when it moved) and a pull every `pull_interval` s,
both only once the store is known to have an upstream (asking git that runs git: after the
first frame). Each outcome goes back to the app's `_synced` on the UI thread; a worker about
to run git first waits while the person moves through the list.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import App
from textual.timer import Timer
from textual.worker import Worker

from atk_tui.service import Service
from atk_tui.tui.config import TuiConfig


class RemoteWatch:
    """See the module docstring. `synced(error, warnings)` takes each outcome, `counts()`
    reads git's counts again after a pull; `paused()` is true while an edit session runs;
    `last_move()` is when the cursor last moved (time.monotonic)."""

    def __init__(
        self,
        app: App,
        service: Service,
        config: TuiConfig,
        *,
        synced: Callable[..., None],
        counts: Callable[[], object],
        paused: Callable[[], bool],
        last_move: Callable[[], float],
    ) -> None:
        self.app, self.service, self.config = app, service, config
        self.synced, self.counts, self.paused, self.last_move = synced, counts, paused, last_move
        #: the periodic pull and remote check, once the store is known to have an upstream
        self.pull_timer: Timer | None = None
        self.remote_timer: Timer | None = None

    def _run(self, work: Callable[[], None], group: str, name: str) -> Worker:
        return self.app.run_worker(work, name=name, thread=True, exclusive=True, group=group, exit_on_error=False)

    def start_later(self) -> Worker:
        """Asking git for the upstream runs git: off the UI thread, after the first frame."""
        return self._run(self._start, "remote", "check_remote_later")

    def _start(self) -> None:
        app, cfg = self.app, self.config
        if not self.service.upstream():
            return
        if cfg.pull_interval > 0:
            self.pull_timer = app.call_from_thread(app.set_interval, cfg.pull_interval, self.pull)
        if cfg.remote_check_interval > 0:
            self.remote_timer = app.call_from_thread(app.set_interval, cfg.remote_check_interval, self.check)

    def wait_for_rest(self, rest: float = 1.0, longest: float = 10.0) -> None:
        """In a worker about to run git: wait while the person moves through the list (a key
        held down), at most `longest` s. git's processes share the machine's cores with the
        drawing: a look at the remote in the middle of a held key made the screen trail it
        by 60 ms more (bench/scale.py, 10,000 items, 2 cores)."""
        waited = 0.0
        while time.monotonic() - self.last_move() < rest and waited < longest:
            time.sleep(0.1)
            waited += 0.1

    def check(self) -> Worker:
        """`ls-remote` the upstream, pull when it moved."""
        return self._run(self._check, "remote", "check_remote")

    def _check(self) -> None:
        app = self.app
        self.wait_for_rest()
        if self.paused():
            return
        look = self.service.look_at_remote()
        if look.error:
            app.call_from_thread(self.synced, look.error)
        elif look.moved:
            app.call_from_thread(self.pull)
        else:  # the remote has nothing new: this clone is in step with it
            app.call_from_thread(self.synced, "")

    def pull(self) -> Worker:
        return self._run(self._pull, "pull", "pull")

    def _pull(self) -> None:
        app = self.app
        self.wait_for_rest()
        out = self.service.pull(lock_timeout=2)
        if not out.ok:
            app.call_from_thread(self.synced, out.message)
            return
        problem = next((w for w in out.warnings if "could not pull" in w or "not pulling" in w), "")
        app.call_from_thread(self.synced, problem, [w for w in out.warnings if w != problem])
        app.call_from_thread(self.counts)
