"""The key bar: one widget drawing one line, instead of Textual's `Footer` (a widget per key).

Textual's `Footer` recomposes itself (about 16 key widgets torn down, mounted and styled) on
every focus change and every `refresh_bindings()`, and its widgets take part in every layout.
The dashboard refreshes its bindings on each cursor move (what may be done depends on the
selected item), so that footer was most of the cost of a key press. This one keeps the look
(key in the theme's footer-key colour, description, disabled keys dimmed, the command palette
key on the right) and redraws its single line only when what it shows changes. A click on a
key presses it, as with Textual's footer.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from atk_tui.tui.display.present import monochrome

PINNED = ("help", "quit")  # actions always shown, whatever the width
PINNED_ORDER = {"Help": 0, "Quit": 1}


class KeyFooter(Widget, can_focus=False):
    COMPONENT_CLASSES = {"key-footer--key", "key-footer--description", "key-footer--separator"}

    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
        .key-footer--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
        .key-footer--description { color: $footer-description-foreground; background: $footer-description-background; }
        .key-footer--separator { color: $foreground 20%; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: tuple = ()
        self._spans: list[tuple[int, int, str]] = []  # x from, x to, key: for clicks

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.call_after_refresh(self._bindings_changed, self.screen)  # once the screen is built

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _entries(self, screen: Screen) -> tuple:
        """(key, key display, description, enabled) per action shown, first binding wins;
        the pinned ones (`? Help`, `q Quit`) apart: they are drawn at the right, never cut."""
        seen: set[str] = set()
        out = []
        pinned = []
        palette = None
        for key, (_node, binding, enabled, _tooltip) in screen.active_bindings.items():
            if key == self.app.COMMAND_PALETTE_BINDING and self.app.ENABLE_COMMAND_PALETTE:
                palette = (key, self.app.get_key_display(binding), "palette", enabled)
                continue
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            entry = (key, self.app.get_key_display(binding), binding.description, enabled)
            (pinned if binding.action in PINNED else out).append(entry)
        pinned.sort(key=lambda e: PINNED_ORDER.get(e[2], 9))
        return (tuple(out), palette, tuple(pinned))

    def _bindings_changed(self, screen: Screen) -> None:
        if screen is not self.screen:
            return
        entries = self._entries(screen)
        if entries != self._shown:
            self._shown = entries
            self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        if y != 0:
            return Strip.blank(width, base)
        key_style = self.get_component_rich_style("key-footer--key")
        desc_style = self.get_component_rich_style("key-footer--description")
        sep_style = self.get_component_rich_style("key-footer--separator")
        entries, palette, pinned = self._shown or ((), None, ())
        disabled = "dim strike" if monochrome() else "dim"  # NO_COLOR sends no dim (display/no_color.py)
        line = Text(no_wrap=True, end="")
        spans: list[tuple[int, int, str]] = []
        right = Text(no_wrap=True, end="")
        right_spans: list[tuple[int, int, str]] = []  # x relative to the right part
        if pinned:
            right.append("▏", style=sep_style)
        for key, display, desc, enabled in pinned:
            start = right.cell_len
            right.append(f" {display} ", style=key_style)
            right.append(f"{desc} ", style=desc_style)
            if not enabled:
                right.stylize(disabled, start)
            right_spans.append((start, right.cell_len, key))
        if palette is not None:
            key, display, desc, _enabled = palette
            start = right.cell_len
            right.append("▏", style=sep_style)
            right.append(display, style=key_style)
            right.append(f" {desc} ", style=desc_style)
            right_spans.append((start, right.cell_len, key))
        room = max(width - right.cell_len, 0)
        for key, display, desc, enabled in entries:
            item = Text(no_wrap=True, end="")
            item.append(f" {display} ", style=key_style)
            item.append(f"{desc} " if desc else "", style=desc_style)
            if not enabled:
                item.stylize(disabled)
            if line.cell_len + item.cell_len > room:
                continue  # a shorter one further on may still fit
            spans.append((line.cell_len, line.cell_len + item.cell_len, key))
            line.append_text(item)
        line.append(" " * max(room - line.cell_len, 0))
        spans.extend((room + a, room + b, key) for a, b, key in right_spans)
        line.append_text(right)
        line.truncate(width, pad=True)
        self._spans = spans
        return Strip(list(line.render(self.app.console)), width).apply_style(base)

    async def _on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                event.stop()
                self.app.simulate_key(key)
                return


QuietFooter = KeyFooter  # the name this widget had first (screens/graph.py imports it)
