"""`E`: what waits for the person on GitHub (issue 31), beside the queue.

The issues afkkit left for the person (`needs-planning`, `blocked`, `in-progress` with a stop
report) and the open PRs of its `in-review` issues, one a row: repository, number, label, how
long it has waited, title, the first line of the stop reason. Below, the ready queue in the
order `afkkit all` would take it. The detail shows the highlighted row's stop report as
Markdown (made safe as item text is: `safe_markdown`). Enter (or `o`) opens the row in the
browser (`gh … view --web`, through the service), `y` copies its URL, `u` looks at GitHub now.

The rows come from the app's `ElsewhereFeed` (the last look, cached; refreshed in a worker):
the screen never waits for GitHub, and says how old its rows are and why they may be old.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from atk_tui.domain.ages import ago
from atk_tui.text.textsafe import safe_line, safe_markdown
from atk_tui.tui.widgets.footer import KeyFooter
from atk_tui.tui.widgets.item_list import Column, ItemList, Row

if TYPE_CHECKING:
    from atk_tui.service.elsewhere.afkkit import Elsewhere, ReadyIssue, ReadyQueue, Waiting
    from atk_tui.tui.screens.dashboard import Dashboard

WAITING_COLUMNS = (  # the repository goes first on a narrow pane, then the reason, then the wait
    Column("repo", 12, drop=3),
    Column("number", 6, label="#"),
    Column("label", 14),
    Column("waited", 6, drop=1),
    Column("title", 0, min_width=16),
    Column("reason", 30, drop=2, label="stop reason"),
)
READY_COLUMNS = (
    Column("order", 3, label="run"),
    Column("number", 6, label="#"),
    Column("priority", 14),
    Column("title", 0, min_width=16),
    Column("updated", 8, drop=1),
)
LABEL_STYLE = {"needs-planning": "bold magenta", "blocked": "bold red", "in-progress": "bold yellow", "in-review": "bold green"}
#: a stop report longer than this is shown as plain text (rendering it would cost a frame)
MARKDOWN_MAX = 20_000
NARROW = 100  # below this many columns the detail goes under the lists


class ElsewhereScreen(Screen):
    app: Dashboard

    BINDINGS = [
        Binding("escape,E", "app.pop_screen", "Back to queue", id="elsewhere.back"),
        Binding("o", "open", "Open in browser", id="elsewhere.open"),
        Binding("y", "copy_url", "Copy URL", id="elsewhere.copy"),
        Binding("u", "look", "Look now", id="elsewhere.look"),
    ]

    DEFAULT_CSS = """
    ElsewhereScreen #elsewhere-title { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    ElsewhereScreen #elsewhere-status { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    ElsewhereScreen #elsewhere-status.problem { color: $text-warning; text-style: bold; }
    ElsewhereScreen #elsewhere-body { height: 1fr; }
    ElsewhereScreen #elsewhere-lists { width: 3fr; }
    ElsewhereScreen #elsewhere-body.narrow { layout: vertical; }
    ElsewhereScreen #elsewhere-body.narrow #elsewhere-lists { width: 1fr; height: 2fr; }
    ElsewhereScreen ItemList { border: round $panel-lighten-2; border-title-style: bold; }
    ElsewhereScreen ItemList:focus { border: round $accent; }
    ElsewhereScreen #elsewhere-waiting { height: 3fr; }
    ElsewhereScreen #elsewhere-ready { height: 2fr; }
    ElsewhereScreen #elsewhere-detail { width: 2fr; border: round $panel-lighten-2; padding: 0 1; background: $surface; }
    ElsewhereScreen #elsewhere-body.narrow #elsewhere-ready { height: 3fr; }
    ElsewhereScreen #elsewhere-body.narrow #elsewhere-detail { width: 1fr; height: 1fr; }
    ElsewhereScreen #elsewhere-detail:focus-within { border: round $accent; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.found: Elsewhere | None = None
        self.rows: dict[str, Waiting | ReadyIssue | ReadyQueue] = {}
        self._last_list = "elsewhere-waiting"  # the list the detail and the keys follow

    def compose(self) -> ComposeResult:
        yield Static(Text("Elsewhere: what waits for you on GitHub (Esc to go back)"), id="elsewhere-title")
        yield Static("", id="elsewhere-status")
        with Horizontal(id="elsewhere-body"):
            with Vertical(id="elsewhere-lists"):
                waiting = ItemList(WAITING_COLUMNS, empty_text="Reading the last look…", id="elsewhere-waiting")
                waiting.border_title = "Waiting for you"
                yield waiting
                ready = ItemList(READY_COLUMNS, empty_text="", id="elsewhere-ready")
                ready.border_title = "Ready queue: what `afkkit all` would take"
                yield ready
            with VerticalScroll(id="elsewhere-detail") as detail:
                detail.border_title = "Stop report"
                yield Static(Text("Select a row to see it here.", style="dim"), id="elsewhere-detail-text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#elsewhere-waiting", ItemList).focus()
        self._resize(self.size.width)
        self.app.elsewhere.signal.subscribe(self, self.show)
        self.show(self.app.elsewhere.found)

    def _key(self, binding_id: str) -> str:
        """The key of one of this screen's bindings, as remapped by `[tui.keys]`."""
        from textual.keys import format_key

        keys = self.app.key_overrides.get(binding_id) or next(b.key for b in self.BINDINGS if isinstance(b, Binding) and b.id == binding_id)
        return format_key(keys.split(",")[0].strip())

    def on_resize(self, event) -> None:
        self._resize(event.size.width)

    def _resize(self, width: int) -> None:
        self.query_one("#elsewhere-body").set_class(0 < width < NARROW, "narrow")

    # -- the rows ------------------------------------------------------------------------

    def show(self, found: Elsewhere | None) -> None:
        """The feed's last look (None: none yet), with its age and what went wrong."""
        self.found = found
        feed = self.app.elsewhere
        now = self.app.service.clock()
        self.rows = {}
        waiting = self.query_one("#elsewhere-waiting", ItemList)
        ready = self.query_one("#elsewhere-ready", ItemList)
        status = self.query_one("#elsewhere-status", Static)
        if found is None:
            never = "looking at GitHub…" if feed.looking else f"never looked at GitHub from this store: {self._key('elsewhere.look')} looks now"
            waiting.empty_text = never
            ready.empty_text = ""
            waiting.set_rows([])
            ready.set_rows([])
            status.update(Text(never))
            status.remove_class("problem")
            return
        w_rows = []
        for w in found.waiting:
            self.rows[w.key] = w
            w_rows.append(Row(w.key, _waiting_cells(w, now)))
        r_rows = []
        for q in found.ready:
            key = f"repo:{q.repo}"
            self.rows[key] = q
            r_rows.append(Row(key, _queue_cells(q)))
            for i in q.issues:
                self.rows[f"ready:{i.key}"] = i
                r_rows.append(Row(f"ready:{i.key}", _ready_cells(i, now)))
        looked = found.fetched is not None
        if not found.repos:
            waiting.empty_text = "No GitHub repository to look at (see the line above)."
        elif not looked:
            waiting.empty_text = "Not looked at GitHub yet (the line above says why)."
        else:
            waiting.empty_text = "Nothing waits for you on GitHub."
        ready.empty_text = "No ready issue." if found.repos and looked else ""
        waiting.set_rows(w_rows, keep=waiting.current_key)
        ready.set_rows(r_rows, keep=ready.current_key)
        taken = sum(1 for q in found.ready for i in q.issues if i.order)
        waiting.border_title = f"Waiting for you {len(w_rows)}" if looked else "Waiting for you"
        ready.border_title = f"Ready queue {taken}: what `afkkit all` would take" if looked else "Ready queue: what `afkkit all` would take"
        status.update(self._status(found, now))
        status.set_class(bool(found.problem or found.repo_errors), "problem")
        self._detail_for(self.query_one(f"#{self._last_list}", ItemList))

    def _status(self, found: Elsewhere, now) -> Text:
        line = Text(safe_line(found.summary(now)))
        if not found.repos:
            line = Text("No GitHub repository to look at: no active item's target_repo is OWNER/REPO, and [elsewhere] repos is empty")
        elif found.skipped:
            line.append(safe_line(f" · left out (not OWNER/REPO): {', '.join(found.skipped)}"))
        if self.app.elsewhere.looking:
            line.append(" · looking…")
        return line

    # -- the detail ----------------------------------------------------------------------

    @on(ItemList.Highlighted)
    def _highlighted(self, event: ItemList.Highlighted) -> None:
        if event.item_list.has_focus:
            self._detail(event.key)

    def on_descendant_focus(self, event) -> None:
        if isinstance(event.widget, ItemList):
            self._last_list = event.widget.id or self._last_list
            self._detail_for(event.widget)

    def _detail_for(self, lst: ItemList) -> None:
        self._detail(lst.current_key)

    def _detail(self, key: str | None) -> None:
        row = self.rows.get(key) if key else None
        now = self.app.service.clock()
        pane = self.query_one("#elsewhere-detail", VerticalScroll)
        text = self.query_one("#elsewhere-detail-text", Static)
        from atk_tui.service.elsewhere.afkkit import ReadyIssue, ReadyQueue

        if row is None:
            pane.border_title = "Detail"
            text.update(Text("Select a row to see it here.", style="dim"))
        elif isinstance(row, ReadyQueue):
            pane.border_title = "Ready queue"
            text.update(_queue_detail(row))
        elif isinstance(row, ReadyIssue):
            pane.border_title = "Ready issue"
            text.update(_ready_detail(row, now, self._queue_of(row)))
        else:
            pane.border_title = "Pull request" if row.kind == "pr" else "Stop report"
            text.update(_waiting_detail(row, now))
        pane.scroll_home(animate=False)

    def _queue_of(self, issue: ReadyIssue) -> ReadyQueue | None:
        return next((q for q in (self.found.ready if self.found else []) if q.repo == issue.repo), None)

    def _selected(self):
        key = self.query_one(f"#{self._last_list}", ItemList).current_key
        return self.rows.get(key) if key else None

    # -- actions ---------------------------------------------------------------------------

    @on(ItemList.Selected)
    def _selected_row(self, event: ItemList.Selected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        from atk_tui.service.elsewhere.afkkit import ReadyQueue

        row = self._selected()
        if row is None or isinstance(row, ReadyQueue):
            self.app.notify("select an issue or a pull request to open", severity="warning", timeout=3)
            return
        kind = getattr(row, "kind", "issue")
        self._open(row.repo, row.number, kind)

    @work(thread=True, group="elsewhere-open", exit_on_error=False)
    def _open(self, repo: str, number: int, kind: str) -> None:
        out = self.app.service.elsewhere.open(repo, number, kind)
        self.app.call_from_thread(self.app.notify, out.message, severity="information" if out.ok else "warning", timeout=4)

    def action_copy_url(self) -> None:
        """The row's URL to the clipboard (OSC 52, as `y` copies a filename on the queue)."""
        from atk_tui.service.elsewhere.afkkit import ReadyQueue

        row = self._selected()
        if row is None or isinstance(row, ReadyQueue):
            self.app.notify("nothing selected to copy", severity="warning", timeout=3)
            return
        self.app.copy_to_clipboard(row.url)
        self.app.notify(f"copied {row.url}", timeout=3)

    def action_look(self) -> None:
        if not self.app.elsewhere.look():
            self.app.notify("already looking at GitHub", timeout=2)


# -- cells and details (untrusted text: through safe_line / safe_markdown) ----------------------


def _waiting_cells(w: Waiting, now) -> tuple[Text, ...]:
    number = f"#{w.number}" + ("" if w.kind == "issue" else " PR")
    return (
        Text(safe_line(w.repo), style="dim"),
        Text(number),
        Text(w.label, style=LABEL_STYLE.get(w.label, "bold")),
        Text(ago(w.since, now).removesuffix(" ago"), style="dim"),
        Text(safe_line(w.title)),
        Text(safe_line(w.reason), style="italic"),
    )


def _queue_cells(q: ReadyQueue) -> tuple[Text, ...]:
    n = sum(1 for i in q.issues if i.order)
    head = Text(safe_line(q.repo), style="bold")
    head.append(f"  {n} to run · {q.rule}", style="dim italic")
    return (Text(""), Text(""), Text(""), head, Text(""))


def _ready_cells(i: ReadyIssue, now) -> tuple[Text, ...]:
    return (
        Text(str(i.order) if i.order else "-", style="bold" if i.order else "dim"),
        Text(f"#{i.number}"),
        Text(safe_line(i.priority or "unrated"), style="bold" if i.priority else "dim"),
        Text(safe_line(i.title) + _skipped_note(i), style="dim" if i.skipped else ""),
        Text(ago(i.updated, now).removesuffix(" ago"), style="dim"),
    )


def _skipped_note(i: ReadyIssue) -> str:
    if not i.skipped:
        return ""
    return " (skipped: stacked)" if i.skipped.startswith("stacked") else " (skipped)"


def _markdown(text: str) -> RenderableType:
    """A stop report as Markdown, made safe as item text is (no link is made clickable)."""
    body = safe_markdown(text)
    if len(body) > MARKDOWN_MAX:
        return Text(body)
    from rich.markdown import Markdown  # markdown-it: imported when a report is first shown

    return Markdown(body, hyperlinks=False, code_theme="ansi_dark")


def _waiting_detail(w: Waiting, now) -> Group:
    head = Text()
    head.append(f"{safe_line(w.repo)} #{w.number}", style="bold")
    head.append("  ")
    head.append(w.label, style=LABEL_STYLE.get(w.label, "bold"))
    head.append(f"  waited {ago(w.since, now).removesuffix(' ago')}", style="dim")
    head.append("\n" + safe_line(w.title), style="bold")
    head.append("\n" + safe_line(w.url), style="dim")
    parts: list[RenderableType] = [head]
    if w.kind == "pr":
        parts.append(Text(f"\nThe PR of issue #{w.issue}, opened by the run: review it, then merge it (Enter opens it)."))
    elif w.comment:
        parts.append(Text(""))
        parts.append(_markdown(w.comment))
    elif w.reason:
        parts.append(Text("\n" + safe_line(w.reason)))
    else:
        parts.append(Text("\nNo stop report in the comments.", style="dim"))
    return Group(*parts)


def _queue_detail(q: ReadyQueue) -> Text:
    text = Text()
    text.append(safe_line(q.repo), style="bold")
    text.append(f"\nRun order: {q.rule}.")
    if q.open_prs is not None:
        text.append(f"\n{q.open_prs} open PR{'s' if q.open_prs != 1 else ''} now; each issue of the run adds one")
        text.append(" (3 or more: afkkit says so before the OK)." if q.open_prs >= 3 else ".")
    skipped = [i for i in q.issues if i.skipped]
    if skipped:
        text.append(f"\n{len(skipped)} skipped by `afkkit all`: " + ", ".join(f"#{i.number}" for i in skipped))
    return text


def _ready_detail(i: ReadyIssue, now, q: ReadyQueue | None) -> Text:
    text = Text()
    text.append(f"{safe_line(i.repo)} #{i.number}", style="bold")
    text.append(f"  run {i.order}" if i.order else "  skipped", style="bold")
    text.append(f"  {safe_line(i.priority) if i.priority else 'unrated'}  updated {ago(i.updated, now)}", style="dim")
    text.append("\n" + safe_line(i.title), style="bold")
    text.append("\n" + safe_line(i.url), style="dim")
    if i.skipped:
        text.append("\n\n" + safe_line(i.skipped))
    if q is not None:
        text.append(f"\n\nRun order: {q.rule}.", style="dim")
    return text
