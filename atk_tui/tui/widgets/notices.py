"""The notice strip: one line above the panes while agents have left notices for the user
(`atk agents notify`). Hidden when there are none; a click or `N` opens the notices."""

from __future__ import annotations

from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.widgets import Static

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
