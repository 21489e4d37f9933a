"""`?`: every key of the dashboard, grouped once, read from the key tables (`tui/keys/bindings.py`,
with `[tui.keys]` applied, so it never goes stale), navigable (j/k, g/G, PgUp/PgDn) and
searchable (`/`), as lazygit's `?` menu. Textual's own bindings are not the dashboard's keys and
are not listed; every key is named one way (`key_name`: Esc, Enter, Ctrl+P)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

#: the groups, in the order they are shown
GROUPS = ("Move", "Find", "Items", "Screens", "App")

_NAMES = {
    "escape": "Esc", "enter": "Enter", "tab": "Tab", "shift+tab": "Shift+Tab", "space": "Space",
    "delete": "Del", "backspace": "Backspace", "up": "↑", "down": "↓", "left": "←", "right": "→",
    "pageup": "PgUp", "pagedown": "PgDn", "home": "Home", "end": "End", "question_mark": "?",
    "slash": "/", "plus": "+", "minus": "-", "colon": ":", "full_stop": ".", "comma": ",",
}  # fmt: skip


def key_name(key: str) -> str:
    """A key as the dashboard writes it everywhere: `Esc`, `Enter`, `Ctrl+P`, `Shift+Tab`, `?`."""
    key = key.strip()
    if key in _NAMES:
        return _NAMES[key]
    if "+" in key and len(key) > 1:
        *mods, last = key.split("+")
        return "+".join([*(m.capitalize() for m in mods), _NAMES.get(last, last.upper() if len(last) == 1 else last.capitalize())])
    return key


#: binding id or action -> group (anything else that writes: Items)
_GROUP_OF = {
    **dict.fromkeys(("cursor_up", "cursor_down", "page_up", "page_down", "first", "g_prefix", "last", "half_page_down",
                     "half_page_up", "focus_next_pane", "focus_previous_pane", "focus_pane", "focus_detail",
                     "focus_panes", "toggle_preview", "back", "select", "toggle_mark"), "Move"),
    **dict.fromkeys(("filter", "match", "open_palette"), "Find"),
    **dict.fromkeys(("graph", "item_log", "history", "notices", "elsewhere", "stuck", "help"), "Screens"),
    **dict.fromkeys(("quit", "quit_now", "refresh", "push", "cycle_sort", "cycle_queue"), "App"),
}  # fmt: skip

def _says() -> dict[str, str]:
    """Longer words than the footer's for some actions: a write key's palette help."""
    from atk_tui.tui.keys.bindings import WRITE_KEYS

    return {
        **{k.binding.action: k.help for k in WRITE_KEYS if k.help},
        "dependencies": "Set the selected item's dependencies",
        "cycle_queue": "Queue switch: both queues, only mq (the feedback queue), only wi",
        "cycle_sort": "Sort the panes: cycle the orders",
        "focus_detail": "Detail pane (its dependency trees)",
        "focus_panes": "Panes: back to the lists",
        "focus_next_pane": "Next pane, in screen order (the detail last)",
    }


_SAYS = _says()

#: what no binding says: (group, keys, what)
EXTRA = [
    ("Move", "Enter", "on a dependency tree (the detail pane): jump to that item"),
    ("Move", "l l", "narrow terminals: the detail under the lists, then its dependency trees"),
    ("Find", "Ctrl+P", "command palette: every action, jump to an item"),
]


@dataclass
class HelpRow:
    group: str
    keys: list[str]
    what: str
    ids: list[str]

    def text(self) -> str:
        return " ".join([self.group, *self.keys, self.what, *self.ids]).casefold()


def help_rows(keymap: dict[str, str] | None = None) -> list[HelpRow]:
    """One row per action of the triage screen (its keys after `keymap`: binding id -> keys),
    grouped (`GROUPS`). Read from `bindings.TRIAGE`, the tables the key map reads too."""
    from atk_tui.tui.keys.bindings import TRIAGE

    rows: dict[str, HelpRow] = {}
    for _scope, table in TRIAGE:
        for b in table:
            if not b.description:
                continue
            action = b.action
            name = action.split("(", 1)[0]
            given = keymap[b.id] if keymap and b.id and b.id in keymap else b.key
            keys = [key_name(k) for k in given.split(",") if k.strip()]
            if name == "match":  # n / N after a filter: said on the filter's row, once
                row = rows.setdefault("filter", HelpRow("Find", [], "", []))
                row.ids.append(b.id or "")
                continue
            if action == "focus_pane('needs')":
                what = "Needs you: the needs-you pane (after a / filter, n is the next match instead)"
            elif name == "filter":
                what = "Filter every pane as you type; then n / N: the next / previous match; Esc clears"
            else:
                what = _SAYS.get(action) or b.description
            group = _GROUP_OF.get(name, "Items")
            row = rows.get(action)
            if row is None:
                row = rows.setdefault(name if name == "filter" else action, HelpRow(group, [], what, []))
            if not row.what:
                row.group, row.what = group, what
            row.keys += [k for k in keys if k not in row.keys]
            if b.id and b.id not in row.ids:
                row.ids.insert(0, b.id) if name == "filter" else row.ids.append(b.id)
    out = list(rows.values()) + [HelpRow(g, [k], w, []) for g, k, w in EXTRA]
    return sorted(out, key=lambda r: GROUPS.index(r.group))  # stable: each group in table order


#: the help's table rendered, by (its rows, how it was rendered); see `RenderedOnce`
_RENDERED: dict[tuple[object, ...], list[Segment]] = {}


class RenderedOnce:
    """`table`, rendered once per width. Textual renders a Rich renderable in a `Static` once to
    measure its height at each layout and once more to draw it: the help's table (~100 rows) is
    laid out two or three times as the help opens (the screen's mount, resume and resize), each
    a full render of the table (~20 ms), which made most of the time from `?` to the help on the
    screen. The segments are the table's own, so what is drawn is the same; they are kept by the
    rows (`sig`) for the next help, and `warm` renders them before the first. A `Table` renders
    at any height alike (it renders its cells with no height), so the height is not in the key."""

    def __init__(self, table: Table, sig: tuple[object, ...]) -> None:
        self.table = table
        self.sig = sig

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = (
            self.sig, options.max_width, options.min_width, options.justify, options.overflow, options.no_wrap,
            options.markup, options.ascii_only, options.legacy_windows, console.color_system, console.no_color,
        )  # fmt: skip
        segments = _RENDERED.get(key)
        if segments is None:
            segments = list(console.render(self.table, options))
            if len(_RENDERED) > 32:  # other key tables, other widths: a few are kept
                _RENDERED.clear()
            _RENDERED[key] = segments
        yield from segments

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.table)


def help_table(rows: list[HelpRow]) -> RenderedOnce:
    table = Table(show_header=True, header_style="bold", expand=True, box=None, padding=(0, 1))
    table.add_column("key", style="bold", width=13)
    table.add_column("what it does")
    table.add_column(Text("id ([tui.keys])"), style="dim")
    group = None
    for r in rows:
        if r.group != group:  # each group's heading once
            if group is not None:
                table.add_row("", "", "")
            group = r.group
            table.add_row(Text(group, style="bold underline"), "", "")
        table.add_row(Text(" ".join(r.keys)), Text(r.what), Text(", ".join(i for i in r.ids if i)))
    return RenderedOnce(table, tuple((r.group, tuple(r.keys), r.what, tuple(r.ids)) for r in rows))


def table_widths(screen_width: int) -> tuple[int, ...]:
    """The widths the help's table is laid out at on a screen `screen_width` wide (the box of
    `HelpScreen`'s CSS less its border and padding; less the scroll bar too, as the table is
    taller than the box)."""
    inner = min(110, screen_width * 95 // 100) - 4
    return (inner, inner - 2)


def warm(app: Any) -> None:
    """Render the help's table for this screen's width before `?` is first pressed (in a thread:
    it is Rich's work on values made here; the dashboard's loop is not held)."""
    table = help_table(help_rows(getattr(app, "key_overrides", None)))
    for width in table_widths(app.size.width):
        for _ in table.__rich_console__(app.console, app.console_options.update_width(width).update(highlight=False)):
            pass


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "back", "Close (or clear the search)"),
        Binding("q,question_mark", "dismiss", "Close"),
        Binding("j,down", "scroll('down')", "Down", show=False),
        Binding("k,up", "scroll('up')", "Up", show=False),
        Binding("g,home", "scroll('home')", "First", show=False),
        Binding("G,end", "scroll('end')", "Last", show=False),
        Binding("pagedown,ctrl+d", "scroll('page_down')", "Page down", show=False),
        Binding("pageup,ctrl+u", "scroll('page_up')", "Page up", show=False),
        Binding("slash", "search", "Search", show=False),
    ]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical { width: 110; max-width: 95%; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    HelpScreen #help-search { display: none; height: 1; border: none; padding: 0; margin-bottom: 1; }
    HelpScreen #help-search.shown { display: block; }
    HelpScreen VerticalScroll { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.query_text = ""

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Keys"
            box.border_subtitle = "j/k ↑/↓ scroll · g/G first/last · / search · Esc close"
            yield Input(placeholder="search the keys (Esc clears)", id="help-search")
            with VerticalScroll(id="help-scroll", can_focus=True):
                yield Static(self._table(), id="help-table")

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def rows(self) -> list[HelpRow]:
        rows = help_rows(getattr(self.app, "key_overrides", None))
        needle = self.query_text.strip().casefold()
        return [r for r in rows if needle in r.text()] if needle else rows

    def _table(self) -> RenderedOnce | Text:
        rows = self.rows()
        if not rows:
            return Text(f"no key matches {self.query_text!r} (Esc clears the search)")
        return help_table(rows)

    # -- moving and searching ---------------------------------------------------------------

    def action_scroll(self, where: str) -> None:
        scroll = self.query_one("#help-scroll", VerticalScroll)
        {"down": scroll.scroll_down, "up": scroll.scroll_up, "home": scroll.scroll_home, "end": scroll.scroll_end,
         "page_down": scroll.scroll_page_down, "page_up": scroll.scroll_page_up}[where](animate=False)  # fmt: skip

    def action_search(self) -> None:
        search = self.query_one("#help-search", Input)
        search.add_class("shown")
        self.set_focus(search)

    @on(Input.Changed, "#help-search")
    def _searched(self, event: Input.Changed) -> None:
        self.query_text = event.value
        self.query_one("#help-table", Static).update(self._table())
        self.query_one("#help-scroll", VerticalScroll).scroll_home(animate=False)

    @on(Input.Submitted, "#help-search")
    def _search_done(self) -> None:
        self.set_focus(self.query_one("#help-scroll"))

    def action_back(self) -> None:
        """Esc: the search first (cleared and closed), then the help."""
        search = self.query_one("#help-search", Input)
        if search.has_class("shown"):
            search.value = ""
            search.remove_class("shown")
            self.set_focus(self.query_one("#help-scroll"))
            return
        self.dismiss()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # typed into the search box, these letters are text
        return not (action in ("dismiss", "scroll", "search") and isinstance(self.focused, Input))
