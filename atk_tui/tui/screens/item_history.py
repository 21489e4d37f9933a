"""`L`: one item's history — every commit that touched it (any state, moves followed), newest
first, and the selected commit's diff of the item ("what did the agent change?").

The log and each diff are read through `Service.item_log` / `Service.item_diff` (gitpython) in
thread workers, so the screen opens at once with "Reading history…". Everything shown from a
commit (subject, author, the item's text in the diff) is untrusted: built as `Text` from
`safe_line`, never markup, control characters escaped.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from atk_tui.domain.ages import dated, stamp
from atk_tui.text.textsafe import safe_line
from atk_tui.tui.display.present import age
from atk_tui.tui.display.safe import safe_content
from atk_tui.tui.widgets.footer import KeyFooter

if TYPE_CHECKING:
    from atk_tui.service.history.githistory import ItemCommit, ItemDiff, ItemLog
    from atk_tui.tui.screens.dashboard import Dashboard

#: commits listed; older ones are counted ("N older commits not shown")
LOG_LIMIT = 200
ACTOR_STYLE = {"user": "bold cyan", "agent": "bold magenta"}
#: from this width the list has a date column
WIDE = 120


def diff_text(diff: ItemDiff) -> Text:
    """A commit's change as coloured lines: the summary bold, `+` green, `-` red, hunk headers
    cyan. Each line goes through `safe_line` (the diff holds the item's untrusted text)."""
    out = Text(no_wrap=False, end="")
    for line in diff.summary:
        out.append(safe_line(line) + "\n", style="bold yellow")
    if not diff.lines:
        out.append("(no change to the item's text)", style="dim")
    for n, line in enumerate(diff.lines):
        if line.startswith(("---", "+++")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        else:
            style = ""
        out.append(safe_line(line) + ("\n" if n + 1 < len(diff.lines) else ""), style=style)
    if diff.more:
        out.append(f"\n… {diff.more} more lines not shown (atk wi log --patch prints them all)", style="dim")
    return out


class ItemLogScreen(Screen):
    """See the module docstring. Esc goes back; the cursor in the list picks the diff."""

    app: Dashboard

    BINDINGS = [
        Binding("escape,L", "app.pop_screen", "Back", id="item_log.back"),
        Binding("j", "cursor('down')", "Down", show=False),
        Binding("k", "cursor('up')", "Up", show=False),
        Binding("tab", "switch_pane", "Diff/commits", id="item_log.switch"),
        Binding("r", "reload", "Reload", id="item_log.reload"),  # the store may have moved on
    ]

    DEFAULT_CSS = """
    ItemLogScreen { layout: vertical; }
    ItemLogScreen #item-log-title { height: 1; background: $panel; padding: 0 1; text-style: bold; text-wrap: nowrap; text-overflow: ellipsis; }
    ItemLogScreen #item-log-commits { height: auto; max-height: 40%; border: round $panel-lighten-2; overflow-x: hidden; }
    ItemLogScreen #item-log-commits:focus { border: round $accent; }
    ItemLogScreen #item-log-diff { height: 1fr; border: round $panel-lighten-2; padding: 0 1; }
    ItemLogScreen #item-log-diff:focus { border: round $accent; }
    ItemLogScreen #item-log-status { height: 1; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, filename: str, title: str | None = None) -> None:
        super().__init__()
        self.filename = filename
        self.item_title = title
        self.commits: list[ItemCommit] = []
        self.now: datetime | None = None

    def compose(self) -> ComposeResult:
        head = Text.assemble(("History of ", "bold"), (safe_line(self.filename), "bold"))
        if self.item_title:
            head.append(f"  {safe_line(self.item_title)}", style="dim")
        yield Static(head, id="item-log-title")
        table: DataTable = DataTable(id="item-log-commits", cursor_type="row", zebra_stripes=False)
        table.border_title = "Commits"
        yield table
        yield Static(Text("Reading history…"), id="item-log-status")
        diff = VerticalScroll(Static(Text(""), id="item-log-diff-text"), id="item-log-diff", can_focus=True)
        diff.border_title = "Change"
        yield diff
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one("#item-log-commits", DataTable)
        for label, width in self._columns():
            table.add_column(label, width=width, key=label)
        table.focus()
        self._load()

    def _columns(self) -> list[tuple[str, int | None]]:
        """The list's columns: the date only where there is room (the diff's border shows it);
        the subject, last, is cut at the edge rather than scrolled to."""
        wide = self.app.size.width >= WIDE
        return [("commit", 8), *([("date", 16)] if wide else []), ("age", 4), ("actor", 7), ("change", None), ("subject", None)]

    @work(thread=True, exclusive=True, group="item-log", exit_on_error=False)
    def _load(self) -> None:
        try:
            log = self.app.service.item_log(self.filename, limit=LOG_LIMIT)
        except Exception as exc:  # an unreadable history is a message, not a crash
            self.app.call_from_thread(self._status, f"Could not read the history: {exc}", "bold red")
            return
        self.app.call_from_thread(self._loaded, log)

    def _status(self, message: str, style: str = "") -> None:
        self.query_one("#item-log-status", Static).update(Text(safe_line(message), style=style))

    def _loaded(self, log: ItemLog) -> None:
        table = self.query_one("#item-log-commits", DataTable)
        was = self.commits[table.cursor_row].commit if 0 <= table.cursor_row < len(self.commits) else None
        self.commits = log.commits
        self.now = self.app.service.clock()
        table.clear()
        wide = any(label == "date" for label, _ in self._columns())
        for c in log.commits:
            date = [Text(stamp(c.date), style="dim")] if wide else []
            table.add_row(
                Text(c.short, style="yellow"), *date, Text(age(c.date, self.now), style="dim"),
                Text(safe_line(c.actor_label), style=ACTOR_STYLE.get(c.actor, "dim")),
                Text(safe_line(c.summary)), Text(safe_line(c.subject), style="dim"), key=c.commit,
            )  # fmt: skip
        table.border_title = f"Commits {len(log.commits)}"
        if not log.commits:
            self._status("No commit touched this item (it was never committed).")
            return
        n = len(log.commits)
        status = f"{n} commit{'s' if n != 1 else ''}, newest first · Enter/Tab: into the diff · Esc: back"
        if log.older:
            older = f"{log.older} older commit{'s' if log.older != 1 else ''}"
            status = f"{older} not shown (atk wi log {self.filename} --limit lists them) · " + status
        self._status(status)
        row = next((n for n, c in enumerate(log.commits) if c.commit == was), 0)  # a reload keeps the commit
        table.move_cursor(row=row)
        self._show_diff(log.commits[row])

    @on(DataTable.RowSelected, "#item-log-commits")
    def _selected(self, event: DataTable.RowSelected) -> None:
        """Enter: into the diff (j/k scroll it, Tab comes back)."""
        self.query_one("#item-log-diff", VerticalScroll).focus()

    def action_reload(self) -> None:
        self._status("Reading history…")
        self._load()

    @on(DataTable.RowHighlighted, "#item-log-commits")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        n = event.cursor_row
        if 0 <= n < len(self.commits):
            self._show_diff(self.commits[n])

    def _show_diff(self, commit: ItemCommit) -> None:
        box = self.query_one("#item-log-diff", VerticalScroll)
        box.border_title = safe_content(f"Change in {commit.short}")
        box.border_subtitle = safe_content(f"{commit.actor_label} · {dated(commit.date, self.now or self.app.service.clock())}")
        self.query_one("#item-log-diff-text", Static).update(Text("Reading the diff…", style="dim"))
        self._load_diff(commit)

    @work(thread=True, exclusive=True, group="item-log-diff", exit_on_error=False)
    def _load_diff(self, commit: ItemCommit) -> None:
        try:
            diff = self.app.service.item_diff(self.filename, commit)
        except Exception as exc:
            self.app.call_from_thread(self._diff_failed, f"Could not read the diff: {exc}")
            return
        self.app.call_from_thread(self._diff_loaded, commit, diff)

    def _diff_failed(self, message: str) -> None:
        self.query_one("#item-log-diff-text", Static).update(Text(safe_line(message), style="bold red"))

    def _diff_loaded(self, commit: ItemCommit, diff: ItemDiff) -> None:
        table = self.query_one("#item-log-commits", DataTable)
        if not self.commits or table.cursor_row >= len(self.commits) or self.commits[table.cursor_row] is not commit:
            return  # the cursor moved on: its own diff is on its way
        self.query_one("#item-log-diff-text", Static).update(diff_text(diff))
        self.query_one("#item-log-diff", VerticalScroll).scroll_home(animate=False)

    def action_cursor(self, direction: str) -> None:
        """j/k: the next/previous commit, or scroll the diff when it has the focus."""
        diff = self.query_one("#item-log-diff", VerticalScroll)
        if diff.has_focus:
            (diff.scroll_down if direction == "down" else diff.scroll_up)(animate=False)
            return
        table = self.query_one("#item-log-commits", DataTable)
        if direction == "down":
            table.action_cursor_down()
        else:
            table.action_cursor_up()

    def action_switch_pane(self) -> None:
        table = self.query_one("#item-log-commits", DataTable)
        (self.query_one("#item-log-diff", VerticalScroll) if table.has_focus else table).focus()
