"""The dependency graph drawn with Textual's line API (SPEC §10).

`graph` (its `pipeline`) renders the whole graph once as text lines plus style spans; this widget
only turns the rows on screen into `Strip`s (a 1,000-item graph is a canvas of ~1,000 x 1,300
cells: a `Static` of it would be rendered in full on every frame). Text comes from the layout,
where every label is already sanitised; it is never parsed as markup.

Colours are component classes, so they follow the theme: `graph-canvas--<status>` for the
boxes, `graph-canvas--edge` / `graph-canvas--edge-cycle` for the lines, `graph-canvas--focus`
laid over the focused box.
"""

from __future__ import annotations

from bisect import bisect_left

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size, Spacing
from textual.scroll_view import ScrollView
from textual.strip import Strip

from atk_tui.graph import EDGE_CYCLE_STYLE, EDGE_STYLE, STATUSES, Layout, nearest_in_direction, node_at
from atk_tui.tui.widgets.messages import ControlMessage

#: Style keys the layout can produce: node statuses and the two edge styles.
STYLE_KEYS: tuple[str, ...] = (*STATUSES, EDGE_STYLE, EDGE_CYCLE_STYLE)

_STRIP_CACHE_LIMIT = 4000


def _first(layout: Layout) -> str:
    """The box focused first: the top of the first column."""
    return min(layout.nodes, key=lambda n: (layout.nodes[n].layer, layout.nodes[n].y, n))


class _NodeMessage(ControlMessage["GraphCanvas"]):
    def __init__(self, canvas: GraphCanvas, node_id: str) -> None:
        super().__init__(canvas)
        self.node_id = node_id

    @property
    def canvas(self) -> GraphCanvas:
        return self.control


class GraphCanvas(ScrollView, can_focus=True):
    """A laid-out graph with a focused node; arrows move along edges, Enter selects."""

    BINDINGS = [
        Binding("left,h", "move('left')", "To a dependency", show=False),
        Binding("right,l", "move('right')", "To a dependent", show=False),
        Binding("up,k", "move('up')", "Up the column", show=False),
        Binding("down,j", "move('down')", "Down the column", show=False),
        Binding("enter", "select", "Open", id="graph.open"),
        # a screen at a time (the visible height), not the few rows a scroll would move
        Binding("pagedown", "page(1)", "Page down", show=False, id="graph.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="graph.page_up"),
        Binding("home", "first", "First", show=False, id="graph.first"),
        Binding("end", "last", "Last", show=False, id="graph.last"),
    ]

    COMPONENT_CLASSES = {f"graph-canvas--{key}" for key in STYLE_KEYS} | {
        "graph-canvas--focus",
        "graph-canvas--message",
    }

    DEFAULT_CSS = """
    GraphCanvas { background: $surface; scrollbar-size: 1 1; }
    GraphCanvas > .graph-canvas--ready { color: $text-success; text-style: bold; }
    GraphCanvas > .graph-canvas--blocked { color: $text-error; }
    GraphCanvas > .graph-canvas--waiting { color: $text-accent; background: $accent-muted; text-style: bold; }
    GraphCanvas > .graph-canvas--answered { color: $text-primary; text-style: bold; }
    GraphCanvas > .graph-canvas--cooldown { color: $text-warning; }
    GraphCanvas > .graph-canvas--hold { color: $text-secondary; }
    GraphCanvas > .graph-canvas--terminal { color: $text-muted; }
    GraphCanvas > .graph-canvas--defective { color: $text-error; background: $error-muted; text-style: bold; }
    GraphCanvas > .graph-canvas--missing { color: $text-error; text-style: italic; }
    GraphCanvas > .graph-canvas--cycle { color: $text-error; text-style: bold; }
    GraphCanvas > .graph-canvas--edge { color: $foreground-muted; }
    GraphCanvas > .graph-canvas--edge-cycle { color: $text-error; text-style: bold; }
    GraphCanvas > .graph-canvas--focus { text-style: reverse bold; }
    GraphCanvas > .graph-canvas--message { color: $text-muted; text-style: italic; }
    """

    class NodeHighlighted(_NodeMessage):
        """The focused node changed to `node_id`."""

    class NodeSelected(_NodeMessage):
        """Enter (or a double click) on `node_id`."""

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.layout_: Layout | None = None
        self.focused_node: str | None = None
        self.message = ""
        self._row_start: list[int] = []
        self._styles: dict[str, Style] = {}
        self._focus_style = Style()
        self._strips: dict[int, Strip] = {}
        self._center_pending = False

    # -- data --------------------------------------------------------------------------

    def show_message(self, message: str) -> None:
        """No graph: one line of text (e.g. "laying out 1,000 items…")."""
        self.layout_ = None
        self.focused_node = None
        self.message = message
        self._strips.clear()
        self.virtual_size = Size(cell_len(message) + 2, 1)
        self.scroll_to(0, 0, animate=False, force=True, immediate=True)
        self.refresh()

    def set_layout(self, layout: Layout, focus: str | None, *, center: bool = True) -> None:
        """Show `layout`, focused on `focus`: scrolled so that it sits in the middle, or (not
        `center`: the same graph again, redrawn) by as little as keeps it in view."""
        self.layout_ = layout
        self.message = ""
        spans = layout.spans
        rows = [s[0] for s in spans]
        # spans are sorted by row: the first span of each row, plus an end marker
        self._row_start = [bisect_left(rows, r) for r in range(layout.height + 1)]
        self._strips.clear()
        self.virtual_size = Size(layout.width, layout.height)
        self.focused_node = focus if focus in layout.nodes else None
        if self.focused_node is None and layout.nodes:
            self.focused_node = _first(layout)
        self.refresh()
        if self.focused_node is not None:
            if not self.size.area:  # not laid out yet (set before the first frame): centre once it has a size
                self._center_pending = True
            else:
                self._scroll_to_focus(center=center)
            self.post_message(self.NodeHighlighted(self, self.focused_node))

    def on_resize(self) -> None:
        if self._center_pending and self.size.area:
            self._center_pending = False
            self._scroll_to_focus(center=True)

    def focus_node(self, node_id: str) -> bool:
        """Move the focus to `node_id` (if drawn) and keep it in view."""
        layout = self.layout_
        if layout is None or node_id not in layout.nodes:
            return False
        old = self.focused_node
        if old == node_id:
            return True
        self.focused_node = node_id
        for nid in (old, node_id):
            self._refresh_box(nid)
        self._scroll_to_focus()
        self.post_message(self.NodeHighlighted(self, node_id))
        return True

    def _refresh_box(self, node_id: str | None) -> None:
        layout = self.layout_
        if layout is None or node_id is None or node_id not in layout.nodes:
            return
        box = layout.nodes[node_id]
        for row in range(box.y, box.y + box.h):
            self._strips.pop(row, None)
        self.refresh(Region(box.x - int(self.scroll_offset.x), box.y - int(self.scroll_offset.y), box.w, box.h))

    def _scroll_to_focus(self, *, center: bool = False) -> None:
        layout = self.layout_
        if layout is None or self.focused_node is None:
            return
        box = layout.nodes[self.focused_node]
        region = Region(box.x, box.y, box.w, box.h)
        # room around the box for the edges that come in and go out, when the view allows it
        view = self.scrollable_content_region
        spacing = Spacing(min(2, max((view.height - box.h) // 2, 0)), min(6, max((view.width - box.w) // 2, 0)))
        self.scroll_to_region(
            region, spacing=None if center else spacing, center=center, animate=False, force=True, immediate=True
        )

    # -- actions -----------------------------------------------------------------------

    def action_move(self, direction: str) -> None:
        layout = self.layout_
        if layout is None or self.focused_node is None:
            return
        target = nearest_in_direction(layout, self.focused_node, direction)
        if target is not None:
            self.focus_node(target)

    def action_page(self, direction: int) -> None:
        """Focus the box a screen below (`direction` 1) or above (-1) the focused one: the one
        nearest that row, then nearest its column; the view moves by the same screen."""
        layout = self.layout_
        if layout is None or self.focused_node is None:
            return
        boxes = layout.nodes
        box = boxes[self.focused_node]
        step = max(self.scrollable_content_region.height, 1)
        want, mid = box.y + direction * step, box.x + box.w // 2
        ahead = [n for n, b in boxes.items() if (b.y - box.y) * direction > 0]
        if not ahead:
            return
        target = min(ahead, key=lambda n: (abs(boxes[n].y - want), abs(boxes[n].x + boxes[n].w // 2 - mid), n))
        self.scroll_to(y=int(self.scroll_offset.y) + direction * step, animate=False, force=True, immediate=True)
        self.focus_node(target)

    def action_first(self) -> None:
        layout = self.layout_
        if layout is not None and layout.nodes:
            self.focus_node(_first(layout))

    def action_last(self) -> None:
        """The last box in reading order: the bottom row's rightmost (the grid's last item)."""
        layout = self.layout_
        if layout is not None and layout.nodes:
            self.focus_node(max(layout.nodes, key=lambda n: (layout.nodes[n].y, layout.nodes[n].x, n)))

    def action_select(self) -> None:
        if self.focused_node is not None:
            self.post_message(self.NodeSelected(self, self.focused_node))

    async def _on_click(self, event: events.Click) -> None:
        layout = self.layout_
        if layout is None:
            return
        offset = event.get_content_offset(self)  # not event.x/y: those count the border too
        if offset is None:
            return
        hit = node_at(layout, offset.x + int(self.scroll_offset.x), offset.y + int(self.scroll_offset.y))
        if hit is None:
            return
        self.focus_node(hit)
        if event.chain > 1:
            self.action_select()

    # -- rendering ---------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = {}  # a theme or CSS change: styles are read again on the next frame
        self._strips.clear()

    def style_for(self, key: str) -> Style:
        """The Rich style a status (or edge kind) is drawn in, for legends elsewhere: its colours
        resolved against the canvas (theme variables with alpha or `auto` need a background),
        and a background only where the status has its own."""
        if key not in STYLE_KEYS:
            return Style()
        full = self.get_component_rich_style(f"graph-canvas--{key}")
        own_bg = full.bgcolor if full.bgcolor != self.rich_style.bgcolor else None
        return full.without_color + Style(color=full.color, bgcolor=own_bg)

    def _ensure_styles(self) -> None:
        if self._styles:
            return
        self._styles = {key: self.get_component_rich_style(f"graph-canvas--{key}") for key in STYLE_KEYS}
        self._focus_style = self.get_component_rich_style("graph-canvas--focus", partial=True)

    def _row_strip(self, row: int) -> Strip:
        """One row of the whole canvas (all its width), cached."""
        cached = self._strips.get(row)
        if cached is not None:
            return cached
        layout = self.layout_
        assert layout is not None
        line = layout.lines[row]
        spans = layout.spans
        styles = self._styles
        base = self.rich_style
        focus_box = layout.nodes.get(self.focused_node) if self.focused_node is not None else None
        in_focus = focus_box is not None and focus_box.y <= row < focus_box.y + focus_box.h
        segments: list[Segment] = []
        x = 0
        for i in range(self._row_start[row], self._row_start[row + 1]):
            _row, start, end, key = spans[i]
            text = line[start:end]
            style = styles.get(key) or base
            if in_focus:
                assert focus_box is not None
                if x == focus_box.x and key != EDGE_STYLE and key != EDGE_CYCLE_STYLE:
                    style = style + self._focus_style
                x += cell_len(text)
            segments.append(Segment(text, style))
        strip = Strip(segments, layout.width)
        if len(self._strips) > _STRIP_CACHE_LIMIT:
            self._strips.clear()
        self._strips[row] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        layout = self.layout_
        scroll_x, scroll_y = int(self.scroll_offset.x), int(self.scroll_offset.y)
        row = y + scroll_y
        if layout is None:
            if row == 0 and self.message:
                text = Text(
                    " " + self.message, style=self.get_component_rich_style("graph-canvas--message", partial=True)
                )
                strip = Strip(list(text.render(self.app.console)), text.cell_len)
                return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width).apply_style(base)
            return Strip.blank(width, base)
        if row >= layout.height:
            return Strip.blank(width, base)
        self._ensure_styles()
        return self._row_strip(row).crop_extend(scroll_x, scroll_x + width, base)
