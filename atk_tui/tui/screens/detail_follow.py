"""The detail pane following the dashboard's selection, off the key path.

A held arrow key repeats ~30 times a second. The detail pane waits until the cursor rests
(`RestTimer`): a timer per key press (`set_timer`, then `stop` on the next key) would start and
cancel an asyncio task per key; this is one interval timer for the screen's life, paused while
nothing waits, and a key press only notes the time. Once the cursor rests, the item's full text
is read and its Markdown rendered to lines at the pane's width in a thread worker (a few
milliseconds; an item read and rendered before shows at once), and the pane changes once, with
all of it: a layout and a frame, not a plain preview first and its Markdown a frame later.
"""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic
from typing import Any, Protocol

from rich.console import ConsoleOptions, RenderableType
from textual.message_pump import MessagePump
from textual.timer import Timer
from textual.worker import get_current_worker

from atk_tui.domain.model import Item
from atk_tui.service import QueueView
from atk_tui.service.core.holds import Holder, is_held_state
from atk_tui.tui.widgets.detail import DetailPane, prepare_body


class Followed(Protocol):
    """What the follower asks of the triage screen (which imports this module)."""

    selected: str | None
    full_items: dict[str, Item]
    bodies: dict[str, str]

    @property
    def app(self) -> Any: ...
    @property
    def view(self) -> QueueView | None: ...
    def nothing_selected(self) -> str: ...
    def query_one(self, selector: Any, expect_type: Any = None) -> Any: ...
    def run_worker(self, work: Any, *args: Any, **kw: Any) -> Any: ...
    def set_interval(self, interval: float, callback: Any, *, name: str | None = None) -> Timer: ...

#: a body longer than this is shown as plain text before its Markdown rendering is ready
SLOW_MARKDOWN_LINES = 200


class RestTimer:
    """`poke()` on each cursor move; `callback` runs once no move came for `delay` seconds
    (between `delay` and 1.25 x `delay` after the last one: the timer ticks every `delay / 4`)."""

    def __init__(self, owner: MessagePump | Followed, delay: float, callback: Callable[[], object]) -> None:
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
            self._timer = self.owner.set_interval(self.delay / 4, self._tick, name="rest")
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

    def __init__(self, screen: Followed, delay: float) -> None:
        self.screen = screen
        self.rest = RestTimer(screen, delay, lambda: self.follow(screen.selected, immediate=True))
        #: who holds a held item (SPEC §15), by filename: (the HEAD it was found at, holder)
        self.holders: dict[str, tuple[str | None, Holder | None]] = {}

    def _holder(self, item: Item) -> tuple[bool, Holder | None]:
        """(known, holder) of a held item at the view's HEAD; (True, None) for one not held."""
        if not is_held_state(item.queue, item.state):
            return True, None
        view = self.screen.view
        got = self.holders.get(item.filename)
        if got is None or view is None or got[0] != view.head:
            return False, None
        return True, got[1]

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
        detail = screen.query_one(DetailPane)
        if full is not None and detail.rendered_body(full) is not None and self._holder(full)[0]:
            self.show(full)  # all of it is known: shown now
            return
        # read and rendered in a thread (a few milliseconds), then shown in one go: one change of
        # the pane, not a plain preview first and its Markdown a frame later
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
            holder=self._holder(item)[1],
        )

    def _load(self, key: str, item: Item | None, options: ConsoleOptions | None) -> None:
        """In a thread: the item's full text (unless loaded) and its Markdown, rendered."""
        app = self.screen.app
        try:
            if item is None:
                item = app.service.read(key)
        except Exception as exc:
            app.call_from_thread(self._unreadable, key, f"cannot read {key}: {exc}")
            return
        if not self._holder(item)[0]:
            head = self.screen.view.head if self.screen.view is not None else None
            try:
                found = app.service.held_by([item]).get(item.filename)
            except Exception:  # who holds it is extra: the item shows without it
                found = None
            self.holders[item.filename] = (head, found)
        if item.body.count("\n") > SLOW_MARKDOWN_LINES:  # rendering it takes a while: the rest first
            app.call_from_thread(self._loaded, item, None)
        body = None if get_current_worker().is_cancelled else prepare_body(item, app.console, options)
        app.call_from_thread(self._loaded, item, body)

    def _unreadable(self, key: str, message: str) -> None:
        view = self.screen.view
        if self.screen.selected == key and view is not None and key in view.items:
            self.show(view.items[key])  # what the listing knows
        self.screen.app.report_error(message)

    def _loaded(self, item: Item, body: RenderableType | None) -> None:
        screen = self.screen
        screen.full_items[item.filename] = item
        screen.bodies[item.filename] = item.body
        if screen.selected != item.filename or self.rest.pending:
            return
        detail = screen.query_one(DetailPane)
        if detail.item is item:
            if body is not None:
                detail.set_body(item, body)  # shown already: only its body changes
        else:
            self.show(item, body)
