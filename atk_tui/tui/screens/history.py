"""`H`: adopted and rejected items, with adopt/reject notes and each item's git history."""

from __future__ import annotations

from datetime import datetime
from functools import partial

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from ...core.model import TERMINAL, Item
from ...core.service import Outcome, QueueView
from ...core.textsafe import safe_line
from ..present import age
from ..widgets.detail import DetailPane
from ..widgets.footer import KeyFooter
from ..widgets.item_list import Column, ItemList, Row
from .base import ItemActionsScreen

HISTORY_COLUMNS = (
    Column("state", 9),
    Column("title", 0, min_width=24),
    Column("repo", 14, drop=2),
    Column("note", 24, drop=1),
    Column("age", 4),
)


def _history_cells(i: Item, now: datetime) -> tuple[Text, ...]:
    state = Text(i.state, style="green" if i.state == "adopted" else "red")
    return (state, Text(safe_line(i.title)), Text(safe_line(i.target_repo), style="dim"), Text(safe_line(i.note or ""), style="dim"), Text(age(i.created, now), style="dim"))


class HistoryScreen(ItemActionsScreen):
    BINDINGS = [
        Binding("escape,H", "app.pop_screen", "Back to queue", id="history.back"),
        Binding("m", "move", "Move back", id="history.move"),
    ]

    DEFAULT_CSS = """
    HistoryScreen #history-body { height: 1fr; }
    HistoryScreen #terminal { width: 3fr; border: round $accent; border-title-style: bold; }
    HistoryScreen #history-detail { width: 2fr; border: round $panel-lighten-2; }
    HistoryScreen #history-title { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.view: QueueView | None = None
        self.full: dict[str, Item] = {}

    def compose(self) -> ComposeResult:
        yield Static(Text("History: adopted and rejected items (Esc to go back)"), id="history-title")
        with Horizontal(id="history-body"):
            lst = ItemList(HISTORY_COLUMNS, empty_text="Loading…", id="terminal")
            lst.border_title = "History"
            yield lst
            yield DetailPane(id="history-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#terminal", ItemList).focus()
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _load(self) -> None:
        try:
            view = self.app.service.queue(TERMINAL)
        except Exception as exc:
            self.app.call_from_thread(self.app.report_error, f"could not read history: {exc}")
            return
        self.app.call_from_thread(self._loaded, view)

    def _loaded(self, view: QueueView) -> None:
        self.view = view
        items = sorted(view.items.values(), key=lambda i: (-(i.created.timestamp() if i.created else 0), i.filename))
        rows = [Row(i.filename, make=partial(_history_cells, i, view.now)) for i in items]
        lst = self.query_one("#terminal", ItemList)
        lst.empty_text = "No adopted or rejected items yet."
        lst.set_rows(rows)
        lst.border_title = f"History {len(rows)}"
        self.refresh_bindings()  # `m` depends on there being a row

    @on(ItemList.Highlighted, "#terminal")
    def _highlighted(self, event: ItemList.Highlighted) -> None:
        if event.key:
            self._load_item(event.key)

    @work(thread=True, exclusive=True, group="history-item", exit_on_error=False)
    def _load_item(self, key: str) -> None:
        try:
            item = self.app.service.read(key)
            history = self.app.service.history(key)
        except Exception as exc:
            self.app.call_from_thread(self.app.report_error, f"cannot read {key}: {exc}")
            return
        self.app.call_from_thread(self._show, item, history)

    def _show(self, item: Item, history: list) -> None:
        view = self.view
        if view is None:
            return
        self.query_one(DetailPane).show(
            item, view.judgements.get(item.filename), now=view.now, items=view.items, states=view.snapshot.states,
            judgements=view.judgements, dependents=view.dependents.get(item.filename, []), blocks=None, history=history,
        )
        self.run_worker(self.query_one(DetailPane).render_body(item), exclusive=True, group="history-md", exit_on_error=False)

    # -- acting on the selection: `m` moves a terminal item back (SPEC §5: the user may) ----

    def current_item(self) -> Item | None:
        key = self.query_one("#terminal", ItemList).current_key
        return self.view.items.get(key) if self.view is not None and key is not None else None

    def after_write(self, action: str, out: Outcome) -> None:
        self._load()
