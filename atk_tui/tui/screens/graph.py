"""`v`: the dependency graph around the selected item, or of the whole active queue (SPEC §10).

The graph around an item is the item with all its transitive dependencies and dependents
(`subgraph_around`); `w` switches to every active item. Boxes are coloured by status (the
canvas' theme-aware component classes) and start with the status glyph, so the graph reads in
monochrome too; edges on a cycle are drawn in the error colour and each cycle is named above
the canvas; a missing dependency is a dashed box; an item whose `target_repo` differs from the
item the screen was opened on shows its repo on a second line. Dependencies that are done
(adopted/rejected) are shown as grey leaves and `t` hides them. Their titles are read from the
store only when they are drawn (terminal items are not part of the dashboard's queue).

Decisions:

* Only the edges of active items are followed: a terminal item no longer waits for anything
  (as in `domain.readiness`), so it is a leaf; it is never the centre of the graph.
* The whole-queue graph holds every active item; items without any dependency edge fill a grid
  under the linked ones, as wide as the screen (laid out again when the width changes).
  PageDown/PageUp move the focus a screen down/up, Home/End to the first/last box.
* The repo line is relative to the item the graph is around (in the whole-queue graph opened
  without a selection, every box shows its repo).
* A graph of up to `SYNC_NODES` items is laid out in the UI thread (a few tens of ms) so that
  the screen's first frame shows it; a bigger one in a thread worker, the canvas saying
  `laying out N items…` meanwhile. The data is the app's last `QueueView`; the screen
  subscribes to the app's `queue_signal` and redraws when a newer one is loaded, keeping the
  view in place.
* Enter on an active item goes back to the dashboard with it selected; on a done item or a
  missing dependency it says where that item is instead (there is no pane to select it in).
* A layout has a budget (`LayoutBudget`: nodes plus the dummy nodes long edges need, canvas
  cells, `layout_seconds` of time, and the worker being cancelled). A graph over it (a
  3,000-item chain with one item depending on all of it needs 4.5 million dummy nodes) is
  not drawn: the screen says "too large to draw: N items, M links (…)" and shows the focused
  item with its direct links instead (at most `display.graph_model.FALLBACK_NODES`), or the message alone. Esc
  and `q` work at any time: the layout runs in a worker that gives up at its next check once
  the screen is closed (and `q` does not wait for it: it runs no git).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static
from textual.worker import Worker, get_current_worker

from atk_tui.domain.model import TERMINAL, Item
from atk_tui.domain.readiness import format_cycle
from atk_tui.graph import (
    LayoutBudget,
    LayoutTooLarge,
    layout_graph,
    truncate_cells,
)
from atk_tui.service import QueueView
from atk_tui.text.textsafe import safe_line
from atk_tui.tui.display.graph_model import (
    GraphModel,
    GraphResult,
    GraphSelection,
    NodeInfo,
    build_graph,
    describe_graph,
    neighbourhood,
    select_graph,
    too_large_note,
    widened,
)
from atk_tui.tui.display.present import STATUS_GLYPH
from atk_tui.tui.screens.base import ItemActionsScreen
from atk_tui.tui.widgets.footer import KeyFooter
from atk_tui.tui.widgets.graph_canvas import GraphCanvas

STATUS_NAME = {
    "ready": "ready",
    "blocked": "blocked",
    "waiting": "needs answer",
    "answered": "answered",
    "cooldown": "cooldown",
    "hold": "hold",
    "terminal": "done",
    "defective": "defective",
    "missing": "missing",
}
LEGEND_ORDER = ("ready", "blocked", "waiting", "answered", "cooldown", "hold", "terminal", "defective", "missing")
MAX_CYCLES_SHOWN = 3
TITLE_CELLS = 32  # of the centre item's title in the title line
#: Above this many terminal items to name, they are read through the item cache all at once.
_READ_ONE_BY_ONE = 64
_TERMINAL_INFO: dict[tuple[str, str, str], tuple[str, str]] = {}  # (store, state, name) -> (title, repo)
_TERMINAL_INFO_LIMIT = 20_000
SYNC_NODES = 150  # up to this many items a graph is laid out at once, in the UI thread (~25 ms)
SYNC_READS = 8  # ... if at most this many done items must be read from the store for their titles
PROGRESS_NODES = 300  # from this many nodes on, the canvas says "laying out N items…" while it works
LAYOUT_SECONDS = 8.0  # a layout taking longer is given up (`LayoutBudget.deadline`)


class GraphScreen(ItemActionsScreen):
    """The dependency graph; Enter opens the focused item in the dashboard."""

    BINDINGS = [
        Binding("escape,g", "close", "Back", id="graph.back"),
        Binding("w", "toggle_whole", "Whole queue", id="graph.whole"),
        Binding("t", "toggle_terminal", "Done deps", id="graph.terminal"),
        Binding("c", "center", "Center here", id="graph.center"),
        Binding("d", "dependencies", "Deps", id="graph.dependencies"),
    ]

    DEFAULT_CSS = """
    GraphScreen { layout: vertical; }
    GraphScreen #graph-title { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    GraphScreen #graph-legend { height: 1; padding: 0 1; background: $surface; }
    GraphScreen #graph-title, GraphScreen #graph-legend, GraphScreen #graph-info { text-wrap: nowrap; text-overflow: ellipsis; }
    GraphScreen #graph-cycles { height: auto; max-height: 4; padding: 0 1; background: $error-muted; display: none; }
    GraphScreen #graph-cycles.shown { display: block; }
    GraphScreen #graph-note { height: auto; max-height: 3; padding: 0 1; background: $warning-muted; display: none; }
    GraphScreen #graph-note.shown { display: block; }
    GraphScreen #graph-canvas { height: 1fr; }
    GraphScreen #graph-info { height: 2; background: $panel; color: $text; padding: 0 1; }
    """

    #: seconds a layout may take (`LayoutBudget.deadline`); `layout_tick` is called at every
    #: budget check (tests hold a layout in progress with it)
    layout_seconds: float = LAYOUT_SECONDS
    layout_tick: Callable[[], None] | None = None

    def __init__(self, center: str | None = None, *, whole: bool = False) -> None:
        super().__init__()
        self.center = center
        self.whole = whole or center is None
        self.show_terminal = True
        self.model: GraphModel | None = None
        self._view: QueueView | None = None
        self._cursor: str | None = center
        self._token = 0
        self._shape: tuple[str | None, bool, bool] | None = None  # what the canvas shows
        self._laid_width = 0  # the grid width of the layout shown

    def compose(self) -> ComposeResult:
        yield Static("", id="graph-title")
        yield Static("", id="graph-legend")
        yield Static("", id="graph-cycles")
        yield Static("", id="graph-note")
        yield GraphCanvas(id="graph-canvas")
        yield Static("", id="graph-info")
        yield KeyFooter()

    def on_mount(self) -> None:
        canvas = self.query_one(GraphCanvas)
        canvas.focus()
        self._legend()
        # the canvas' component styles follow the theme after the next refresh
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_after_refresh(self._legend))
        self.app.queue_signal.subscribe(self, self._queue_changed, immediate=True)
        self.relayout()

    # -- data ----------------------------------------------------------------------------

    @property
    def canvas(self) -> GraphCanvas:
        return self.query_one(GraphCanvas)

    def _queue_changed(self, view: QueueView) -> None:
        if view is not self._view:
            self.relayout()

    def relayout(self) -> None:
        """Lay the graph out again from the dashboard's latest queue: at once for a small graph
        (its first frame shows it), in a thread for a big one."""
        view = self.app.queue
        self._view = view
        if view is None:
            self.canvas.show_message("loading the queue…")
            return
        if self.center is not None and self.center not in view.items:
            self.center = None  # the item left the active queue
        if self.center is None:
            self.whole = True
        self._token += 1
        self._laid_width = self._grid_width()
        self._title(None)
        sel = None
        if not self.whole or len(view.items) <= SYNC_NODES:
            sel = select_graph(view, self.center, whole=self.whole, show_terminal=self.show_terminal)
            if len(sel.shown) <= SYNC_NODES and self._uncached(sel.terminal) <= SYNC_READS:
                model = describe_graph(view, sel, self._terminal_info(sel.terminal))
                try:  # a few boxes can still have long links (a chain and one item on all of it)
                    width = self._grid_width()
                    budget = LayoutBudget()
                    layout = widened(model, layout_graph(model.nodes, model.edges, grid_width=width, budget=budget), width, budget)
                except LayoutTooLarge:
                    pass  # the worker says so and draws what it can
                else:
                    self._laid_out(GraphResult(model, layout, self._token))
                    return
        if self.canvas.layout_ is None:
            self.canvas.show_message("laying out…")
        # not `@work`, and with a description: a worker without one is described by the `repr` of
        # its call, and the repr of a 1,000-item queue costs more than laying out a small graph
        job = partial(self._compute, view, sel, self.center, self.whole, self.show_terminal, self._token, self._grid_width())
        self.run_worker(
            job,
            name="graph layout",
            description="lay out the dependency graph",
            group="graph-layout",
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )

    def _compute(
        self,
        view: QueueView,
        sel: GraphSelection | None,
        center: str | None,
        whole: bool,
        show_terminal: bool,
        token: int,
        grid_width: int,
    ) -> None:
        """In a thread: the graph and its layout, handed back to `_laid_out`; within the
        budget (`LayoutBudget`), else what `neighbourhood` keeps of it, else nothing (a note)."""
        worker = get_current_worker()
        budget = LayoutBudget(
            deadline=time.monotonic() + self.layout_seconds,
            cancelled=lambda: worker.is_cancelled,
            tick=self.layout_tick,
        )
        if sel is None:
            sel = select_graph(view, center, whole=whole, show_terminal=show_terminal)
        if len(sel.shown) >= PROGRESS_NODES:
            self._hand_back(self._laying_out, len(sel.shown), token)
        try:
            budget.check()
            model = describe_graph(view, sel, self._terminal_info(sel.terminal) if sel.terminal else {})
            layout = widened(model, layout_graph(model.nodes, model.edges, grid_width=grid_width, budget=budget), grid_width, budget)
            self._hand_back(self._laid_out, GraphResult(model, layout, token))
            return
        except LayoutTooLarge as exc:
            if exc.reason == "cancelled":
                return  # closed, or a newer layout started: nobody waits for this one
            big = exc
        if not big.nodes:
            big.nodes, big.edges = len(sel.shown), len(sel.edges)
        part = neighbourhood(view, sel, self._cursor if self._cursor in sel.shown else center)
        small = LayoutBudget(cancelled=lambda: worker.is_cancelled, tick=self.layout_tick)  # no deadline: it is small
        try:
            if not part.shown:
                raise LayoutTooLarge("elements", big.nodes, big.edges)
            model = describe_graph(view, part, self._terminal_info(part.terminal) if part.terminal else {})
            layout = widened(model, layout_graph(model.nodes, model.edges, grid_width=grid_width, budget=small), grid_width, small)
        except LayoutTooLarge as exc:
            if exc.reason == "cancelled":
                return
            note = too_large_note(big, "nothing is drawn; open the graph around one item (v on it) instead")
            self._hand_back(self._laid_out, GraphResult(describe_graph(view, part, {}), None, token, note))
            return
        focus = part.center or ""
        title = view.items[focus].title if focus in view.items else focus
        shown = f"showing {safe_line(truncate_cells(title or focus, TITLE_CELLS))} and the {len(part.shown) - 1:,} items it links to directly"
        self._hand_back(self._laid_out, GraphResult(model, layout, token, too_large_note(big, shown)))

    def _hand_back(self, fn: Callable[..., object], *args: object) -> None:
        """`fn(*args)` in the UI thread, unless the app is gone meanwhile (quit during a layout)."""
        try:
            self.app.call_from_thread(fn, *args)
        except RuntimeError:
            pass

    def _grid_width(self) -> int:
        """How wide the grid of items without links is laid out: the screen, less the canvas'
        scrollbar."""
        return max(self.app.size.width - 1, 1)

    def on_resize(self) -> None:
        layout = self.canvas.layout_
        if layout is not None and layout.grid and self._laid_width != self._grid_width():
            self.relayout()  # the grid fills the new width; the view stays where it was

    def _uncached(self, wanted: list[tuple[str, str]]) -> int:
        root = str(self.app.service.root)
        return sum(1 for name, state in wanted if (root, state, name) not in _TERMINAL_INFO)

    def _laying_out(self, count: int, token: int) -> None:
        if token == self._token and self.is_attached:
            self.canvas.show_message(f"laying out {count:,} items…")

    def _terminal_info(self, wanted: list[tuple[str, str]]) -> dict[str, tuple[str, str]]:
        """Titles and repos of terminal items (read from the store, cached by name and state)."""
        service = self.app.service
        root = str(service.root)
        out: dict[str, tuple[str, str]] = {}
        missing: list[tuple[str, str]] = []
        for name, state in wanted:
            hit = _TERMINAL_INFO.get((root, state, name))
            if hit is not None:
                out[name] = hit
            else:
                missing.append((name, state))
        if not missing:
            return out
        if len(_TERMINAL_INFO) > _TERMINAL_INFO_LIMIT:
            _TERMINAL_INFO.clear()
        if len(missing) > _READ_ONE_BY_ONE:
            items, _where, _defects = service.load_items(TERMINAL)
            found = {(n, i.state): i for n, i in items.items()}
            for name, state in missing:
                item = found.get((name, state))
                if item is not None:
                    out[name] = _TERMINAL_INFO[(root, state, name)] = (item.title or name, item.target_repo)
            return out
        for name, state in missing:
            try:
                item = service.read(name, state)
            except Exception:  # gone since the queue was read: the filename will do
                continue
            out[name] = _TERMINAL_INFO[(root, state, name)] = (item.title or name, item.target_repo)
        return out

    def _laid_out(self, result: GraphResult) -> None:
        if result.token != self._token or not self.is_attached:
            return  # a newer layout is on its way, or the screen is closed
        self.model = result.model
        canvas = self.canvas
        note = self.query_one("#graph-note", Static)
        note.update(Text(result.note))
        note.set_class(bool(result.note), "shown")
        if result.layout is None:
            canvas.show_message(result.note)
            self._title(None)
            self._cycles(result.model)
            return
        if not result.layout.nodes:
            canvas.show_message("no active items")
        else:
            cursor = self._cursor if self._cursor in result.layout.nodes else result.model.center
            # the same graph redrawn (the queue changed) keeps the view where it was
            shape = (result.model.center, result.model.whole, self.show_terminal)
            canvas.set_layout(result.layout, cursor, center=shape != self._shape or canvas.layout_ is None)
            self._shape = shape
        self._title(result)
        self._cycles(result.model)

    # -- text around the canvas ------------------------------------------------------------

    def _title(self, result: GraphResult | None) -> None:
        view = self._view
        t = Text(no_wrap=True, overflow="ellipsis")
        if self.center is not None and view is not None and not self.whole:
            t.append("Around ")
            t.append(truncate_cells(safe_line(view.items[self.center].title), TITLE_CELLS))
        else:
            t.append("Whole active queue")
        if result is not None:
            n = len(result.layout.nodes)
            t.append(
                f" · {n} item{'s' if n != 1 else ''}, {len(result.model.edges)} link{'s' if len(result.model.edges) != 1 else ''}"
            )
            if result.model.hidden_terminal:
                t.append(f" · {result.model.hidden_terminal} done hidden")
            if result.model.ref_repo and any(n.repo and not n.placeholder for n in result.model.nodes):
                t.append(f" · repo shown if not {safe_line(result.model.ref_repo)}")
        t.append("   ←/→ follow links, ↑/↓ column", style="not bold dim")
        self.query_one("#graph-title", Static).update(t)

    def _legend(self) -> None:
        canvas = self.canvas
        t = Text(no_wrap=True, overflow="ellipsis")
        for status in LEGEND_ORDER:
            glyph = "╌" if status == "missing" else STATUS_GLYPH[status]
            t.append(f"{glyph} {STATUS_NAME[status]}", style=canvas.style_for(status))
            t.append("  ")
        t.append("──▶ cycle", style=canvas.style_for("edge-cycle"))
        self.query_one("#graph-legend", Static).update(t)

    def _cycles(self, model: GraphModel) -> None:
        box = self.query_one("#graph-cycles", Static)
        if not model.cycles:
            box.remove_class("shown")
            return
        t = Text()
        t.append(f"{len(model.cycles)} cycle{'s' if len(model.cycles) != 1 else ''}: ", style="bold")
        # titles, as the lists and the nodes show them (a filename only for an item with none)
        shown = [format_cycle([self._cycle_name(n) for n in c], limit=8) for c in model.cycles[:MAX_CYCLES_SHOWN]]
        t.append("  ·  ".join(shown))
        if len(model.cycles) > MAX_CYCLES_SHOWN:
            t.append(f"  ·  +{len(model.cycles) - MAX_CYCLES_SHOWN} more")
        box.update(t)
        box.add_class("shown")

    def _cycle_name(self, node_id: str) -> str:
        info = self.model.info.get(node_id) if self.model is not None else None
        title = safe_line(info.title) if info is not None and info.title else ""
        if not title:
            return safe_line(node_id)
        return f"“{title[:29] + '…' if len(title) > 30 else title}”"

    @on(GraphCanvas.NodeHighlighted)
    def _highlighted(self, event: GraphCanvas.NodeHighlighted) -> None:
        self._cursor = event.node_id
        self._info(event.node_id)

    def _info(self, node_id: str) -> None:
        """Two lines on the focused node: status and title, then file, state, repo, links, why."""
        model = self.model
        info = model.info.get(node_id) if model is not None else None
        t = Text(no_wrap=True, overflow="ellipsis")
        if info is None:
            t.append(safe_line(node_id))
            self.query_one("#graph-info", Static).update(t)
            return
        t.append(
            f"{STATUS_GLYPH.get(info.status, '·')} {STATUS_NAME.get(info.status, info.status)}",
            style=self.canvas.style_for(info.status),
        )
        t.append("  ")
        t.append(safe_line(info.title), style="bold")
        t.append("\n")
        parts = [node_id, info.state or "missing"]
        if info.repo:
            parts.append(info.repo)
        layout = self.canvas.layout_
        if layout is not None:
            deps = [d for d in layout.deps.get(node_id, ()) if d != node_id]
            users = [d for d in layout.dependents.get(node_id, ()) if d != node_id]
            parts.append(f"depends on {len(deps)}, blocks {len(users)}")
        if info.reason:
            parts.append(info.reason)
        t.append(" · ".join(safe_line(p) for p in parts), style="dim")
        self.query_one("#graph-info", Static).update(t)

    # -- actions -----------------------------------------------------------------------------

    @on(GraphCanvas.NodeSelected)
    def _selected(self, event: GraphCanvas.NodeSelected) -> None:
        self.open_item(event.node_id)

    def open_item(self, node_id: str) -> None:
        """Back to the dashboard with `node_id` selected (when it is an active item)."""
        view = self.app.queue
        if view is not None and node_id in view.items:
            self.app.jump_to(node_id)
            return
        state = view.snapshot.states.get(node_id) if view is not None else None
        if state is not None:
            msg = f"{node_id} is {state}: see the history view (H)"
        else:
            msg = f"{node_id} does not exist: a missing dependency (edit the dependent's dependencies with d)"
        self.notify(msg, severity="warning", markup=False)

    def current_item(self) -> Item | None:
        """The active item under the cursor (`d` edits its dependencies)."""
        view = self.app.queue
        return view.items.get(self._cursor) if view is not None and self._cursor is not None else None

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.report_worker_error(event)

    def action_close(self) -> None:
        self.app.pop_screen()

    def _active_cursor(self, warning: str) -> str | None:
        """The focused node when it is an active item; otherwise None, and `warning` shown."""
        cursor = self._cursor
        view = self._view
        if cursor is None or view is None or cursor not in view.items:
            self.notify(warning, severity="warning")
            return None
        return cursor

    def action_toggle_whole(self) -> None:
        if self.whole and self.center is None:
            cursor = self._active_cursor("focus an active item first: the graph is drawn around it")
            if cursor is None:
                return
            self.center = cursor
        self.whole = not self.whole
        self.relayout()

    def action_toggle_terminal(self) -> None:
        self.show_terminal = not self.show_terminal
        self.notify("done dependencies shown" if self.show_terminal else "done dependencies hidden", timeout=2)
        self.relayout()

    def action_center(self) -> None:
        cursor = self._active_cursor("only an active item can be the centre")
        if cursor is None:
            return
        self.center = cursor
        self.whole = False
        self.relayout()


__all__ = ["GraphModel", "GraphScreen", "GraphSelection", "NodeInfo", "build_graph", "describe_graph", "select_graph"]
