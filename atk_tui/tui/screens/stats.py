"""The wait statistics screen (issue 16): how long the agents have waited for the user.

Opened from the command palette ("Wait statistics"). The figures come from
`Service.wait_stats` (git history, read incrementally) in a worker thread: the screen opens at
once with "Reading the history…" and fills in when they are ready."""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from atk_tui.service.history.stats import WaitStats, duration
from atk_tui.text.textsafe import safe_line

if TYPE_CHECKING:
    from atk_tui.tui.screens.dashboard import Dashboard


def _title(title: str) -> Text:
    """A question's title in a table cell: cut with an ellipsis past 70 cells, never folded."""
    t = Text(safe_line(title), no_wrap=True)
    t.truncate(70, overflow="ellipsis")
    return t


BARS = " ▁▂▃▄▅▆▇█"


class DayChart:
    """Answers per day as a bar chart with its axes: counts up the left (0 and the highest),
    dates along the bottom (the first, the middle and the last day), at whatever width it is
    drawn. More days than columns: each column sums consecutive days."""

    def __init__(self, per_day: list[tuple[date, int]], height: int = 5) -> None:
        self.per_day = per_day
        self.height = height

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        days = self.per_day
        if not days:
            yield Text("no answers yet", style="dim")
            return
        top_label = str(max(n for _, n in days))
        gutter = len(top_label) + 1
        room = max(options.max_width - gutter - 1, 1)
        per_col = -(-len(days) // room)  # days per column
        cols = [days[i : i + per_col] for i in range(0, len(days), per_col)]
        counts = [sum(n for _, n in c) for c in cols]
        peak = max(max(counts), 1)
        width = max(room // len(cols), 1)  # cells per column when there is room
        top = str(peak)
        gutter = max(gutter, len(top) + 1)
        for row in range(self.height, 0, -1):
            label = top if row == self.height else ("0" if row == 1 else "")
            line = Text(label.rjust(gutter - 1) + " ┤" if label else " " * gutter + "│", style="dim", end="\n")
            for n in counts:
                eighths = round(n / peak * self.height * 8) - (row - 1) * 8
                line.append(BARS[max(0, min(eighths, 8))] * width, style="bold")
            yield line
        yield Text(" " * gutter + "└" + "─" * (width * len(cols)), style="dim")
        first, last = cols[0][0][0], cols[-1][-1][0]
        span = width * len(cols)
        axis = [" "] * (span + 1)
        marks = [(0, f"{first:%m-%d}")]
        if len(cols) > 2 and span >= 24:
            mid = len(cols) // 2
            marks.append((mid * width, f"{cols[mid][0][0]:%m-%d}"))
        if last != first:
            marks.append((max(span - 5, 0), f"{last:%m-%d}"))
        for at, text in marks:
            axis[at : at + len(text)] = text
        yield Text(" " * (gutter + 1) + "".join(axis).rstrip(), style="dim")
        if per_col > 1:
            yield Text(" " * (gutter + 1) + f"each bar: {per_col} days", style="dim")


class StatsScreen(ModalScreen[None]):
    app: Dashboard

    BINDINGS = [Binding("escape,q", "dismiss", "Close"), Binding("r", "reload", "Reload")]

    DEFAULT_CSS = """
    StatsScreen { align: center middle; }
    StatsScreen > Vertical { width: 95%; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    StatsScreen #stats-head { height: auto; text-style: bold; }
    StatsScreen #stats-summary { height: auto; margin-top: 1; }
    StatsScreen .stats-label { height: 1; margin-top: 1; color: $text-muted; }
    StatsScreen #stats-chart { height: auto; }
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
                yield Static("", id="stats-chart")
                yield Static("", id="stats-days")
                yield Static("Questions waiting now", classes="stats-label")
                yield DataTable(id="stats-open", cursor_type="row", zebra_stripes=True)
                yield Static("Longest waits", classes="stats-label")
                yield DataTable(id="stats-longest", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
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
        self.query_one("#stats-head", Static).update(Text(safe_line(st.headline(by_title=True))))
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
            summary.append(f"\nLongest wait of a work item on questions: {duration(top.waited)} (“{safe_line(top.title)}”)")
        self.query_one("#stats-summary", Static).update(summary)
        self.query_one("#stats-chart", Static).update(DayChart(st.per_day))
        if st.per_day:
            first, last = st.per_day[0][0], st.per_day[-1][0]
            busiest = max(st.per_day, key=lambda d: d[1])
            days = f"{first:%m-%d} … {last:%m-%d} · most answers in a day: {busiest[1]} ({busiest[0]:%m-%d})"
        else:
            days = "no answers yet"
        self.query_one("#stats-days", Static).update(Text(days))
        # the columns are made with their rows, in one go: a header drawn while the table was
        # empty kept its labels' widths beside wider rows (seen on a loaded machine)
        table = self.query_one("#stats-open", DataTable)
        table.clear(columns=True)
        # a question by its title, as the lists show it (its filename is on the item's detail)
        table.add_columns("waited", "blocks", "all", "question")
        for w in st.open:
            table.add_row(duration(w.wait), str(w.blocked_direct), str(w.blocked_all), _title(w.title))
        if not st.open:
            table.add_row("-", "", "", Text("none: nothing is waiting for you"))
        longest = self.query_one("#stats-longest", DataTable)
        longest.clear(columns=True)
        longest.add_columns("waited", "status", "question")
        for w in st.longest:
            longest.add_row(duration(w.wait), w.status, _title(w.title))
