"""The `/` filter's input: Enter is handled here, in the order the keys were typed.

A plain `Input` submits when Enter has bubbled up to the app's bindings, and the screen then
moves the focus: keys typed right behind the Enter (a fast typist's Space) were by then already
routed to the input and landed in the filter text. Here the screen's `on_submit` runs as the
input reads the Enter (it applies the filter and moves the focus at once), and any key routed
here after the focus left is sent back to the app, which gives it to the focused pane.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.widgets import Input


class FilterInput(Input):
    def __init__(self, *, on_submit: Callable[[str], None], placeholder: str = "", id: str | None = None) -> None:
        super().__init__(placeholder=placeholder, id=id)
        self._on_submit = on_submit

    async def _on_key(self, event: events.Key) -> None:
        if self.screen.focused is not self:
            # typed behind an Enter (or Esc) that moved the focus away: it is the pane's key
            event.stop()
            event.prevent_default()
            self.app.post_message(events.Key(event.key, event.character).set_sender(self.app))
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self._on_submit(self.value)
