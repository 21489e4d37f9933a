"""The wait statistics screen (issue 16): how long the agents have waited for the user.

Opened from the command palette ("Wait statistics"). The figures come from
`Service.wait_stats` (git history, read incrementally) in a worker thread: the screen opens at
once with "Reading the history…" and fills in when they are ready."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Sparkline, Static

from atk_tui.service.stats import WaitStats, duration
from atk_tui.text.textsafe import safe_line

if TYPE_CHECKING:
    from atk_tui.tui.app import AtkApp


class StatsScreen(ModalScreen[None]):
    app: AtkApp

    BINDINGS = [Binding("escape,q", "dismiss", "Close"), Binding("r", "reload", "Reload")]

    DEFAULT_CSS = """
    StatsScreen { align: center middle; }
    StatsScreen > Vertical { width: 95%; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    StatsScreen #stats-head { height: auto; text-style: bold; }
    StatsScreen #stats-summary { height: auto; margin-top: 1; }
    StatsScreen .stats-label { height: 1; margin-top: 1; color: $text-muted; }
    StatsScreen Sparkline { height: 3; margin: 0 0; }
    StatsScreen #stats-days { height: 1; color: $text-muted; }
    StatsScreen DataTable { height: auto; max-height: 12; }
    """

    def __init__(self, *, since: datetime | None = None, now: datetime | None = None) -> None:
        super().__init__()
        self.since = since
        self.now = now
        self.stats: WaitStats | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Wait statistics"
            box.border_subtitle = "r reload · Esc close"
            yield Static(Text("Reading the history…"), id="stats-head")
            with VerticalScroll():
                yield Static("", id="stats-summary")
                yield Static("Answers per day", classes="stats-label")
                yield Sparkline([], id="stats-spark")
                yield Static("", id="stats-days")
                yield Static("Questions waiting now", classes="stats-label")
                yield DataTable(id="stats-open", cursor_type="row", zebra_stripes=True)
                yield Static("Longest waits", classes="stats-label")
                yield DataTable(id="stats-longest", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one("#stats-open", DataTable).add_columns("waited", "blocks", "all", "question", "title")
        self.query_one("#stats-longest", DataTable).add_columns("waited", "status", "question", "title")
        self.action_reload()

    def action_reload(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False)
    def _load(self) -> None:
        try:
            st = self.app.service.wait_stats(since=self.since, now=self.now)
        except Exception as exc:  # an unreadable history is a message, not a crash
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self.show, st)

    def _failed(self, message: str) -> None:
        self.query_one("#stats-head", Static).update(Text(f"Could not read the history: {safe_line(message)}", style="bold red"))

    def show(self, st: WaitStats) -> None:
        self.stats = st
        self.query_one("#stats-head", Static).update(Text(st.headline()))
        period = f"Since {st.since:%Y-%m-%d}" if st.since else "All time"
        summary = Text()
        if st.answered:
            med = duration(st.median) if st.median is not None else "-"
            p90 = duration(st.p90) if st.p90 is not None else "-"
            summary.append(f"{period}: {len(st.answered)} answered · median wait {med} · 90th percentile {p90}")
        else:
            summary.append(f"{period}: no questions answered")
        if st.removed:
            summary.append(f" · {len(st.removed)} removed unanswered")
        if st.items:
            top = st.items[0]
            summary.append(f"\nLongest wait of a work item on questions: {duration(top.waited)} ({safe_line(top.filename)})")
        self.query_one("#stats-summary", Static).update(summary)
        counts = [float(n) for _, n in st.per_day]
        self.query_one("#stats-spark", Sparkline).data = counts or [0.0]
        if st.per_day:
            first, last = st.per_day[0][0], st.per_day[-1][0]
            busiest = max(st.per_day, key=lambda d: d[1])
            days = f"{first:%m-%d} … {last:%m-%d} · most answers in a day: {busiest[1]} ({busiest[0]:%m-%d})"
        else:
            days = "no answers yet"
        self.query_one("#stats-days", Static).update(Text(days))
        table = self.query_one("#stats-open", DataTable)
        table.clear()
        for w in st.open:
            table.add_row(
                duration(w.wait), str(w.blocked_direct), str(w.blocked_all), Text(safe_line(w.filename)), Text(safe_line(w.title)[:60])
            )
        if not st.open:
            table.add_row("-", "", "", Text("none: nothing is waiting for you"), "")
        longest = self.query_one("#stats-longest", DataTable)
        longest.clear()
        for w in st.longest:
            longest.add_row(duration(w.wait), w.status, Text(safe_line(w.filename)), Text(safe_line(w.title)[:60]))
