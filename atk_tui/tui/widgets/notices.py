"""The notice strip: one line above the panes while agents have left notices for the user
(`atk agents notify`). Hidden when there are none; a click or `N` opens the notices. Over it,
while the store has defects, the store-defects strip (`show_store_defects`)."""

from __future__ import annotations

from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from atk_tui.domain.model import StoreDefect
from atk_tui.service.notices import Notice
from atk_tui.text.textsafe import safe_line


class NoticeStrip(Static):
    DEFAULT_CSS = """
    NoticeStrip { height: 1; background: $warning 40%; color: $text; padding: 0 1; display: none; }
    NoticeStrip.shown { display: block; }
    """

    class Opened(Message):
        """The user asked to read the notices."""

    def __init__(self, **kw) -> None:
        super().__init__("", **kw)
        self.notices: list[Notice] = []

    def show_notices(self, notices: list[Notice]) -> None:
        self.notices = list(notices)
        if not notices:
            self.remove_class("shown")
            self.update("")
            return
        n = len(notices)
        latest = notices[-1]
        text = Text(f"✉ {n} notice{'s' if n > 1 else ''} from agents", style="bold")
        text.append(f" · latest: {safe_line(latest.title)}")
        text.append(" · N to read", style="italic")
        self.update(text)
        self.add_class("shown")

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Opened())


def show_store_defects(screen: Screen, defects: list[StoreDefect]) -> None:
    """The first three of `defects` in a strip over `screen`'s notice strip (made by the first
    load that finds any), hidden when there are none."""
    found = screen.query("#store-defects")
    if not defects:
        if found:
            found.first().remove_class("shown")
        return
    lines = [f"store defect: {safe_line(d.path)}: {safe_line(d.message)}" for d in defects[:3]]
    if found:
        strip = found.first(Static)
    else:
        strip = Static(id="store-defects")
        screen.mount(strip, before=screen.query_one("#notices"))
    strip.update(Text("\n".join(lines)))
    strip.add_class("shown")
