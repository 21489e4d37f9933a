"""Keys typed as a dialog closes (issue 43: Esc on a comment, then "redis" opened the editor
and raised three questions): meant for what was on screen before, they are dropped, and said
once. The app asks `KeyGuard` for each key it reads."""

from __future__ import annotations

from collections.abc import Callable
from weakref import WeakKeyDictionary

from textual import events
from textual.app import App
from textual.screen import Screen

from atk_tui.tui.textual_compat import event_clock

#: seconds between two keys of one burst: keys typed within this of a dialog closing (or of a
#: question opening), and the rest of their burst, were meant for what was on screen before and
#: are dropped (a person types 5-10 keys a second; no one reads a new screen that fast)
DIALOG_KEY_GRACE = 0.4
#: keys that act on nothing: moving the cursor still works in such a burst
HARMLESS_KEYS = frozenset({"up", "down", "left", "right", "pageup", "pagedown", "home", "end", "j", "k", "ctrl+c"})


class KeyGuard:
    """When the last dialog closed, which screen each key was typed at, and whether the
    person was told that keys were dropped."""

    def __init__(self, app: App, grace: Callable[[], float] = lambda: DIALOG_KEY_GRACE) -> None:
        self.app = app
        self.grace = grace  # seconds: `DIALOG_KEY_GRACE`, or 0 (tests that press keys faster than anyone reads)
        self._since = float("-inf")  # when the last dialog closed, or the last key dropped after it
        self._dropped = 0
        self._typed_at: WeakKeyDictionary[events.Key, Screen] = WeakKeyDictionary()

    def dialog_changed(self) -> None:
        """A dialog or sub-screen closed, or a one-key question opened: a burst starts now."""
        self._since = event_clock()
        self._dropped = 0

    def typed(self, event: events.Key) -> bool:
        """A key read by the app: False when it is dropped (a key of the burst typed as a dialog
        closed), else True, with the screen it was typed at noted."""
        if event.time - self._since <= self.grace() and event.key not in HARMLESS_KEYS:
            self._since = max(self._since, event.time)  # the burst goes on
            self._said_dropped()
            return False
        self._typed_at[event] = self.app.screen
        return True

    def came_back(self, event: events.Key) -> bool:
        """A key back from the screen it was sent to (none of its widgets took it), to look up
        the app's and the screen's bindings: False when that screen has closed meanwhile (the
        key was queued behind the Esc that closed it): the bindings now are another screen's,
        and the key was never meant for them."""
        typed_at = self._typed_at.get(event, self.app.screen)
        if typed_at is not self.app.screen and event.key not in HARMLESS_KEYS:
            self._said_dropped()
            return False
        return True

    def _said_dropped(self) -> None:
        self._dropped += 1
        if self._dropped == 1:
            self.app.notify("Keys typed as the dialog closed were ignored", timeout=3, markup=False)
