"""`N`: the agents' notices, to read and dismiss (dismissing is a user-only write)."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from atk_tui.domain.ages import age
from atk_tui.service.notices import Notice
from atk_tui.text.textsafe import safe_line, safe_text


class NoticesScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,N", "dismiss", "Close"),
        Binding("d,delete", "dismiss_notice", "Dismiss notice", id="dismiss_notice"),
        Binding("D", "dismiss_all", "Dismiss all", id="dismiss_all_notices"),
    ]

    DEFAULT_CSS = """
    NoticesScreen { align: center middle; }
    NoticesScreen > Horizontal { width: 95%; height: 85%; border: round $warning; background: $surface; }
    NoticesScreen OptionList, NoticesScreen OptionList:focus { width: 2fr; height: 1fr; border: none; border-right: vkey $panel-lighten-2; }
    NoticesScreen #notice-body { width: 3fr; height: 1fr; padding: 0 1; }
    """

    def __init__(self, notices: list[Notice]) -> None:
        super().__init__()
        self.notices = list(notices)

    def compose(self) -> ComposeResult:
        with Horizontal() as box:
            box.border_title = "Notices from agents"
            box.border_subtitle = "d dismiss · D dismiss all · Esc close"
            yield OptionList(id="notice-list")
            with VerticalScroll(id="notice-body"):
                yield Static("", id="notice-text")

    def on_mount(self) -> None:
        self.show(self.notices)
        self.query_one(OptionList).focus()

    def show(self, notices: list[Notice]) -> None:
        """(Re)fill the list, keeping the highlighted notice when it is still there."""
        ol = self.query_one(OptionList)
        keep = self.current.filename if self.current else None
        self.notices = list(notices)
        ol.clear_options()
        now = self.app.service.clock()
        for n in self.notices:
            when = age(n.created, now).rjust(3)
            ol.add_option(Option(Text(f"{when}  {safe_line(n.title)}"), id=n.filename))
        if not self.notices:
            self.query_one("#notice-text", Static).update(Text("No notices."))
            return
        names = [n.filename for n in self.notices]
        ol.highlighted = names.index(keep) if keep in names else len(names) - 1
        self._show_body()

    @property
    def current(self) -> Notice | None:
        try:
            ol = self.query_one(OptionList)
        except Exception:
            return None
        i = ol.highlighted
        return self.notices[i] if i is not None and 0 <= i < len(self.notices) else None

    def on_option_list_option_highlighted(self, _event: OptionList.OptionHighlighted) -> None:
        self._show_body()

    def _show_body(self) -> None:
        n = self.current
        if n is None:
            return
        head = Text(f"{n.filename}\nsource: {safe_line(n.source or '(none given)')}\n\n", style="dim")
        self.query_one("#notice-text", Static).update(head + Text(safe_text(n.body)))

    def action_dismiss_notice(self) -> None:
        if self.current is not None:
            self._dismiss([self.current.filename])

    def action_dismiss_all(self) -> None:
        if self.notices:
            self._dismiss([n.filename for n in self.notices])

    @work(thread=True, exclusive=True, group="notices", exit_on_error=False)
    def _dismiss(self, names: list[str]) -> None:
        app = self.app
        if app.read_only:
            app.call_from_thread(app.notify, f"read-only: {app.read_only_reason}", severity="warning", markup=False)
            return
        out = app.service.dismiss_notices(names)
        notices = app.service.notices()

        def done() -> None:
            app.commands.report(out, undoable=False)
            self.show(notices)

        app.call_from_thread(done)
