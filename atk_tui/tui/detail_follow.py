"""The detail pane following the dashboard's selection, off the key path.

A held arrow key repeats ~30 times a second. The detail pane waits until the cursor rests
(`RestTimer`): a timer per key press (`set_timer`, then `stop` on the next key) would start and
cancel an asyncio task per key; this is one interval timer for the screen's life, paused while
nothing waits, and a key press only notes the time. Once the cursor rests, the item shows at once
from what is loaded (`DetailPane.show`, content only); its full text and its Markdown, rendered to
lines at the pane's width, follow from a thread worker and are swapped in.
"""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic
from typing import TYPE_CHECKING

from rich.console import ConsoleOptions, RenderableType
from textual.message_pump import MessagePump
from textual.timer import Timer
from textual.worker import get_current_worker

from ..core.model import Item
from .widgets.detail import DetailPane, prepare_body

if TYPE_CHECKING:
    from .screens.main import MainScreen


class RestTimer:
    """`poke()` on each cursor move; `callback` runs once no move came for `delay` seconds
    (between `delay` and 1.5 x `delay` after the last one: the timer ticks every `delay / 2`)."""

    def __init__(self, owner: MessagePump, delay: float, callback: Callable[[], object]) -> None:
        self.owner = owner
        self.delay = delay
        self.callback = callback
        self._timer: Timer | None = None
        self._last = 0.0
        self._armed = False

    def poke(self) -> None:
        self._last = monotonic()
        if self._armed:
            return
        self._armed = True
        if self._timer is None:  # made on first use: the owner is running by then
            self._timer = self.owner.set_interval(self.delay / 2, self._tick, name="rest")
        else:
            self._timer.resume()

    def cancel(self) -> None:
        """Nothing waits any more (the work was done at once)."""
        if self._armed:
            self._armed = False
            if self._timer is not None:
                self._timer.pause()

    @property
    def pending(self) -> bool:
        return self._armed

    def _tick(self) -> None:
        if not self._armed:
            return
        if monotonic() - self._last < self.delay:
            return
        self.cancel()
        self.callback()


class DetailFollower:
    """The main screen's detail pane, following `screen.selected`; see the module docstring."""

    def __init__(self, screen: MainScreen, delay: float) -> None:
        self.screen = screen
        self.rest = RestTimer(screen, delay, lambda: self.follow(screen.selected, immediate=True))

    def follow(self, key: str | None, immediate: bool = False) -> None:
        """`key` was selected: shown once the cursor rests, or now (`immediate`: a refresh, a
        jump, a filter)."""
        screen, view = self.screen, self.screen.view
        if key is None or view is None or key not in view.items:
            self.rest.cancel()
            screen.query_one(DetailPane).clear(screen.nothing_selected() if view else "Loading…")
            return
        if not immediate:
            self.rest.poke()
            return
        self.rest.cancel()
        full = screen.full_items.get(key)
        self.show(full or view.items[key])
        detail = screen.query_one(DetailPane)
        if full is None or detail.rendered_body(full) is None:
            options = detail.body_options()
            screen.run_worker(
                lambda: self._load(key, full, options), thread=True, exclusive=True, group="detail", exit_on_error=False
            )

    def show(self, item: Item, body: RenderableType | None = None) -> None:
        view = self.screen.view
        assert view is not None
        self.screen.query_one(DetailPane).show(
            item,
            view.judgements.get(item.filename),
            now=view.now,
            items=view.items,
            states=view.snapshot.states,
            judgements=view.judgements,
            dependents=view.dependents.get(item.filename, []),
            blocks=view.blocks.get(item.filename),
            body=body,
        )

    def _load(self, key: str, item: Item | None, options: ConsoleOptions | None) -> None:
        """In a thread: the item's full text (unless loaded) and its Markdown, rendered."""
        app = self.screen.app
        try:
            if item is None:
                item = app.service.read(key)
        except Exception as exc:
            app.call_from_thread(app.report_error, f"cannot read {key}: {exc}")
            return
        body = None if get_current_worker().is_cancelled else prepare_body(item, app.console, options)
        app.call_from_thread(self._loaded, item, body)

    def _loaded(self, item: Item, body: RenderableType | None) -> None:
        screen = self.screen
        screen.full_items[item.filename] = item
        screen.bodies[item.filename] = item.body
        if screen.selected != item.filename or self.rest.pending:
            return
        detail = screen.query_one(DetailPane)
        if detail.item is item and body is not None:
            detail.set_body(item, body)  # shown already: only its body changes
        else:
            self.show(item, body)
