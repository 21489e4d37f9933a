"""`RestTimer`: run a callback once a burst of key presses has stopped.

A held arrow key repeats ~30 times a second. Work that follows the cursor (the detail pane)
waits until the cursor rests: a timer per key press (`set_timer` then `stop`) would start and
cancel an asyncio task per key; this is one interval timer for the screen's life, paused while
nothing waits, and a key press only notes the time.
"""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic

from textual.message_pump import MessagePump
from textual.timer import Timer


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
