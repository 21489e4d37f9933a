"""`S`: stuck work — processing for days, answered questions nobody picked up. Enter jumps."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from atk_tui.service.history import stuck as stuck_rules
from atk_tui.service.history.stuck import Stuck, stuck_items
from atk_tui.text.textsafe import safe_line


class StuckScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape,q,S", "dismiss_none", "Close")]

    DEFAULT_CSS = """
    StuckScreen { align: center middle; }
    StuckScreen > Vertical { width: 100; max-width: 95%; height: 70%; border: round $warning; background: $surface; }
    StuckScreen OptionList, StuckScreen OptionList:focus { height: 1fr; border: none; }
    StuckScreen #stuck-empty { padding: 1 2; color: $text-muted; }
    """

    def __init__(self, view) -> None:
        super().__init__()
        self.view = view
        self.found: list[Stuck] = []

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = f"Stuck: processing or answered and untouched for {stuck_rules.STUCK_AFTER.days}+ days"
            box.border_subtitle = "Enter jump · Esc close"
            yield Static("Looking…", id="stuck-empty")
            yield OptionList(id="stuck-list")

    def on_mount(self) -> None:
        self.query_one("#stuck-list").display = False
        self._load()

    @work(thread=True, exit_on_error=False)
    def _load(self) -> None:
        found = stuck_items(self.app.service, self.view)
        self.app.call_from_thread(self._show, found)

    def _show(self, found: list[Stuck]) -> None:
        self.found = found
        empty = self.query_one("#stuck-empty", Static)
        lst = self.query_one("#stuck-list", OptionList)
        if not found:
            empty.update("Nothing is stuck: no item has waited that long in processing or answered.")
            return
        empty.display = False
        lst.display = True
        for s in found:
            label = Text.assemble((f"{safe_line(s.why):<32}", "bold"), " ", safe_line(s.title), (f"  {safe_line(s.filename)}", "dim"))
            lst.add_option(Option(label, id=s.filename))
        lst.highlighted = 0
        lst.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
