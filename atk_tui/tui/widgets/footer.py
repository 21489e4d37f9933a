"""A `Footer` that is rebuilt only when what it shows changes.

Textual's `Footer` recomposes (about 15 key widgets torn down, mounted and styled) on every
focus change and every `refresh_bindings()`. The dashboard refreshes bindings on each cursor
move (the transitions allowed depend on the selected item), so moving through a list rebuilt
the footer on every key: most of a key press's cost. This footer compares what it would show
(keys, descriptions, enabled state) with what it shows and skips identical rebuilds.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class QuietFooter(Footer):
    _shown: tuple | None = None

    def _signature(self, screen: Screen) -> tuple:
        return tuple(
            (key, b.action, b.description, b.key_display, enabled, tooltip)
            for key, (_node, b, enabled, tooltip) in screen.active_bindings.items()
            if b.show or key == self.app.COMMAND_PALETTE_BINDING
        )

    def bindings_changed(self, screen: Screen) -> None:
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            signature = self._signature(screen)
            if signature == self._shown:
                self._bindings_ready = True
                return
            self._shown = signature
        super().bindings_changed(screen)
