"""`H`: adopted and rejected items, with adopt/reject notes and each item's git history."""

from __future__ import annotations

import asyncio
from datetime import datetime
from functools import partial

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static

from ...core.model import STATES, TERMINAL, Item
from ...core.service import QueueView
from ...core.textsafe import safe_line
from ..present import age
from ..widgets.detail import DetailPane
from ..widgets.footer import KeyFooter
from ..widgets.item_list import Column, ItemList, Row
from .dialogs import MoveScreen, confirm

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


class HistoryScreen(Screen):
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


    def on_key(self, event) -> None:  # type: ignore[no-untyped-def]
        """Read-only: `m` is disabled but says why (a toast), never silence."""
        if self.app.read_only and any(b.action == "move" for b in self._bindings.key_to_bindings.get(event.key, [])):
            event.stop()
            self.app.notify(f"read-only: {self.app.read_only_reason}", severity="warning", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "move":
            lst = self.query_one("#terminal", ItemList)
            return (not self.app.read_only and lst.current_key is not None) or None
        return True

    @work(group="history-write", exit_on_error=False)
    async def action_move(self) -> None:
        """The user may move a terminal item anywhere (SPEC §5), after confirming."""
        lst = self.query_one("#terminal", ItemList)
        key = lst.current_key
        if key is None or self.view is None or self.app.read_only:
            return
        item = self.view.items.get(key)
        if item is None:
            return
        targets = [s for s in STATES if s != item.state]
        choice = await self.app.push_screen_wait(MoveScreen(f"Move {safe_line(item.title)[:50]}", {item.state}, targets))
        if choice is None:
            return
        # whether agents make this move is the service's rule (return-to-inbox: they do)
        agents = "" if self.app.service.agent_may_move(item, choice.to_state) else " Agents never make this move themselves."
        ok = await self.app.push_screen_wait(
            confirm(
                "Move out of a terminal state?",
                Text(f"Move {safe_line(key)} from {item.state} to {choice.to_state}.{agents}"),
                f"Move to {choice.to_state}",
            )
        )
        if ok != "yes":
            return
        out = await asyncio.to_thread(self.app.service.move, [key], choice.to_state, note=choice.note, expect=item.state)
        if out.ok:
            self.app.notify(out.message, markup=False, timeout=3)
            self._load()
        else:
            self.app.report_error(out.message)
        self.app.reload()
