"""`?`: every key, grouped, read from the live bindings (so it never goes stale)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from atk_tui.tui.textual_compat import bindings_by_key

EXTRA = [
    ("Panes", "↑/↓ j/k", "move in a pane"),
    ("Panes", "PgUp/PgDn Ctrl+D/U", "page, half a page"),
    ("Panes", "g g / Home, G / End", "first, last"),
    ("Panes", "Tab / Shift+Tab", "next / previous pane"),
    ("Panes", "1 2 3 / n", "inbox, processing, hold / needs you"),
    # h / l move left and right as in vim: the lists are the left column, the detail the right
    # one (the lists are stacked: Tab, 1 2 3 and n move between them)
    ("Panes", "→ l / ← h", "into the detail pane (dependency trees) / back to the lists"),
    ("Panes", "l, l (narrow)", "the detail under the lists, then its trees"),
    ("Panes", "Enter", "open the item; jump from a dependency tree"),
    ("Panes", "Space", "mark for bulk actions"),
    ("Find", "/", "filter all panes as you type; n / N the next / previous match; Esc clears"),
    ("Panes", "Esc", "back one level: the detail, the marks, the filter; a dialog or sub-screen closes"),
    ("Find", "Ctrl+P", "command palette: every action, jump to item"),
]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 110; max-width: 95%; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll() as vs:
            vs.border_title = "Keys"
            vs.border_subtitle = "Esc to close"
            yield Static(self._table())

    def _table(self) -> Table:
        table = Table(show_header=True, header_style="bold", expand=True, box=None, padding=(0, 1))
        table.add_column("group", style="dim", width=10)
        table.add_column("key", style="bold", width=20)
        table.add_column("action")
        table.add_column(Text("id ([tui.keys])"), style="dim")
        for group, key, desc in EXTRA:
            table.add_row(group, key, desc, "")
        main = getattr(self.app, "main", None)
        # (group, node, which of its bindings): the pane keys and the lists' own keys (first/last,
        # half pages, mark) after the item and global ones; their ids are remappable too
        sources: list[tuple[str, Any, Callable[[Binding], bool]]] = [("Global", self.app, lambda b: True)]
        if main is not None:
            from atk_tui.tui.widgets.item_list import ItemList

            sources.insert(0, ("Items", main, lambda b: not b.action.startswith("focus_")))
            sources.append(("Panes", main, lambda b: b.action.startswith("focus_")))
            lists = list(main.query(ItemList))
            if lists:
                sources.append(("Panes", lists[0], lambda b: True))
        # one row per action, with every key bound to it (`q ^q`), in the order they are defined
        rows: dict[str, tuple[str, list[str], str, str]] = {}
        for group, node, wanted in sources:
            for bindings in bindings_by_key(node).values():
                for b in bindings:
                    if not b.description or not wanted(b):
                        continue
                    key = self.app.get_key_display(b)
                    row = rows.setdefault(b.action, (group, [], b.description, b.id or ""))
                    if key not in row[1]:
                        row[1].append(key)
                    if b.id and not row[3]:  # Textual's own ^q has no id; our q has
                        rows[b.action] = (*row[:3], b.id)
        for group, keys, desc, bid in rows.values():
            table.add_row(group, Text(" ".join(keys)), Text(desc), Text(bid))
        return table
