"""`H`: adopted and rejected items, with adopt/reject notes and each item's git history."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from atk_tui.domain import readiness
from atk_tui.domain.model import TERMINAL, Item, Snapshot
from atk_tui.host.gcpause import paused_gc
from atk_tui.service import QueueView
from atk_tui.text.textsafe import safe_line
from atk_tui.tui.display.present import age
from atk_tui.tui.screens.base import ItemActionsScreen
from atk_tui.tui.widgets.detail import DetailPane
from atk_tui.tui.widgets.footer import KeyFooter
from atk_tui.tui.widgets.item_list import Column, ItemList, Row

HISTORY_COLUMNS = (
    Column("state", 9),
    Column("title", 0, min_width=24),
    Column("repo", 14, drop=2, middle=True),
    Column("note", 24, drop=1),
    Column("age", 4),
)


class _HistoryRow(Row):
    """A history row: its cells made from the item's file the first time it is drawn. One
    object per row (50,000 of them: a `Row` with a `partial` and its arguments was three)."""

    __slots__ = ("screen", "state")

    def __init__(self, key: str, state: str, screen: HistoryScreen) -> None:
        self.key, self.state, self.screen = key, state, screen
        self._cells: tuple[Text, ...] | None = None
        self._make = None

    @property
    def cells(self) -> tuple[Text, ...]:
        if self._cells is None:
            self._cells = self.screen._cells(self.key, self.state)
        return self._cells


def _history_cells(i: Item, now: datetime, moved: dict[str, datetime] | None) -> tuple[Text, ...]:
    """The row of an adopted or rejected item. Its age is that of the move that put it there
    (an item adopted a minute ago is `1m`, whenever it was added), from the history index;
    `…` while the index is read, the item's own age only when the history has no move for it."""
    state = Text(i.state, style="green" if i.state == "adopted" else "red")
    when = "…" if moved is None else age(moved.get(i.filename) or i.created, now)
    return (state, Text(safe_line(i.title)), Text(safe_line(i.target_repo), style="dim"), Text(safe_line(i.note or ""), style="dim"), Text(when, style="dim"))


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
        self.items: dict[str, Item] = {}  # the rows drawn so far, parsed when first drawn
        self.where: dict[str, str] = {}  # every item's state
        self.now = datetime.now(UTC)
        #: when each item came into its state (the age column), once the history index is read
        self.moved: dict[str, datetime] | None = None

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
        # the rows are the archived items of the view every screen shows (`AtkApp.queue`: it
        # knows where every item is), as it changes; no list of its own (at 30,000 active
        # items and 50,000 archived ones that was ~30 MiB more, and a cache to keep)
        self.app.queue_signal.subscribe(self, self._view_changed, immediate=True)
        if self.app.queue is not None:
            self._view_changed(self.app.queue)
        self.app.check_store()  # a change since the last look shows without waiting for the next

    def _view_changed(self, view: QueueView) -> None:
        where = view.snapshot.states
        if where == self.where and self.query_one("#terminal", ItemList).rows:
            return  # the same items where they were: the rows stand
        self.where = where
        self.items = {k: v for k, v in self.items.items() if where.get(k) == v.state}
        self.now = self.app.service.clock()
        with paused_gc():  # 50,000 rows: the collector's passes, not the rows, took a second
            names = sorted((n for n, s in where.items() if s in TERMINAL), reverse=True)  # newest first
            rows = [_HistoryRow(name, where[name], self) for name in names]
        lst = self.query_one("#terminal", ItemList)
        lst.empty_text = "No adopted or rejected items yet."
        lst.set_rows(rows, keep=lst.current_key)
        lst.border_title = f"History {len(rows)}"
        self.refresh_bindings()  # `m` depends on there being a row
        self._load_moved()

    @work(thread=True, exclusive=True, group="history-moved", exit_on_error=False)
    def _load_moved(self) -> None:
        try:
            moved = self.app.service.moved_times()
        except Exception:  # no history to read (or git failed): the items' own ages
            moved = {}
        self.app.call_from_thread(self._moved_loaded, moved)

    def _moved_loaded(self, moved: dict[str, datetime]) -> None:
        self.moved = moved
        lst = self.query_one("#terminal", ItemList)
        for row in lst.rows:  # cells are made again when drawn, with the age of the move
            if isinstance(row, _HistoryRow):
                row._cells = None
        lst.redraw()

    def _item(self, name: str, state: str) -> Item:
        item = self.items.get(name)
        if item is None or item.state != state:
            try:
                item = self.app.service.read(name, state)
            except Exception as exc:  # gone meanwhile: the next reload drops the row
                item = Item(filename=name, state=state, title=name, defects=[f"cannot read: {exc}"])
            self.items[name] = item
        return item

    def _cells(self, name: str, state: str) -> tuple[Text, ...]:
        return _history_cells(self._item(name, state), self.now, self.moved)

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
        self.items[item.filename] = item
        snap = Snapshot(items={item.filename: item}, states=self.where)
        judgements = readiness.judge(snap, self.now)
        self.query_one(DetailPane).show(
            item, judgements.get(item.filename), now=self.now, items=self.items, states=self.where,
            judgements=judgements, dependents=[], blocks=None, history=history,
        )
        # the call, not its coroutine: a worker cancelled before it runs (the next item selected
        # first) then leaves no coroutine never awaited
        self.run_worker(
            partial(self.query_one(DetailPane).render_body, item),
            description="render the item's Markdown body",
            exclusive=True,
            group="history-md",
            exit_on_error=False,
        )

    # -- acting on the selection: `m` moves a terminal item back (SPEC §5: the user may) ----

    def current_item(self) -> Item | None:
        key = self.query_one("#terminal", ItemList).current_key
        state = self.where.get(key) if key is not None else None
        return self._item(key, state) if key is not None and state is not None else None

