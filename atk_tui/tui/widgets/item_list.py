"""A pane of items drawn with Textual's line API: only the visible rows are rendered.

Measured on 10,000 rows, `ListView` (a widget per row) and `DataTable` cost seconds to fill;
this widget keeps plain row tuples and renders a `Strip` per visible line, so setting 10k rows
is a list assignment and a frame costs the same at 10 rows or 100,000. Cells are
`rich.text.Text` built from sanitised item text — never markup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from atk_tui.text.cells import cut_middle, fit
from atk_tui.text.linebreak import line_starts
from atk_tui.tui.display.rows import Column, Row
from atk_tui.tui.keys import bindings
from atk_tui.tui.widgets.messages import ControlMessage

__all__ = ["Column", "ItemList", "Row"]

KeyT = TypeVar("KeyT", bound="str | None")


class _ListMessage(ControlMessage["ItemList"]):
    @property
    def item_list(self) -> ItemList:
        return self.control


class _KeyMessage(_ListMessage, Generic[KeyT]):
    def __init__(self, item_list: ItemList, key: KeyT) -> None:
        super().__init__(item_list)
        self.key = key


class ItemList(ScrollView, can_focus=True):
    """Rows with a cursor; Space marks rows for bulk actions."""

    BINDINGS = bindings.ITEM_LIST

    COMPONENT_CLASSES = {
        "item-list--cursor",
        "item-list--cursor-blurred",
        "item-list--marked",
        "item-list--empty",
        "item-list--header",
        "item-list--match",
    }

    DEFAULT_CSS = """
    ItemList {
        height: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
    }
    ItemList > .item-list--cursor { background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold; }
    ItemList > .item-list--cursor-blurred { background: $block-cursor-blurred-background; }
    ItemList > .item-list--marked { background: $primary 30%; }
    ItemList > .item-list--empty { color: $text-muted; text-style: italic; }
    ItemList > .item-list--header { color: $text-muted; text-style: bold underline; }
    /* the filter's hits: bold and underlined, so they show without colour too (NO_COLOR) */
    ItemList > .item-list--match { color: $text-accent; text-style: bold underline; }
    """

    # repaint=False: `watch_cursor` repaints the two rows that changed, not the whole pane
    cursor: reactive[int] = reactive(0, always_update=False, init=False, repaint=False)

    class Highlighted(_KeyMessage[str | None]):
        """The cursor moved to the row `key` (None: no rows)."""

    class Selected(_KeyMessage[str]):
        """Enter on the row `key`."""

    class MarksChanged(_ListMessage):
        """The set of marked rows changed."""

    def __init__(self, columns: Sequence[Column], *, empty_text: str = "nothing here", header: bool = True, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns = tuple(columns)
        self._want_header = header
        self.rows: list[Row] = []
        self._index: dict[str, int] = {}
        self.marked: set[str] = set()
        self._empty_text = empty_text
        self._strip_cache: dict[tuple[int, int, str], Strip] = {}
        self._match: Callable[[str], Sequence[tuple[int, int]]] | None = None
        #: the columns whose text the filter's hits are shown in (`set_match`)
        self.match_columns: frozenset[str] = frozenset({"title", "repo"})

    # -- data --------------------------------------------------------------------------

    @property
    def current_key(self) -> str | None:
        if 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor].key
        return None

    def set_rows(self, rows: Sequence[Row], *, keep: str | None = None) -> None:
        """Replace all rows, keeping the cursor on `keep` (or the current key) when present."""
        old_key = keep if keep is not None else self.current_key
        old_cursor = self.cursor
        self.rows = list(rows)
        self._index = {r.key: i for i, r in enumerate(self.rows)}
        self.marked &= set(self._index)
        self._strip_cache.clear()
        self.virtual_size = Size(self.size.width, self._virtual_height())
        if old_key is not None and old_key in self._index:
            new = self._index[old_key]
        else:
            new = min(old_cursor, max(len(self.rows) - 1, 0))
        self.set_reactive(ItemList.cursor, new)
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.Highlighted(self, self.current_key))

    def set_match(self, spans: Callable[[str], Sequence[tuple[int, int]]] | None) -> None:
        """Emphasise what the filter matched: `spans(text)` gives the (start, end) character
        ranges of a cell's plain text to style as `item-list--match` (None: no emphasis)."""
        if spans is None and self._match is None:
            return  # (no filter before, none now: the drawn rows stand)
        self._match = spans
        self._strip_cache.clear()
        self.refresh()

    def select_key(self, key: str) -> bool:
        idx = self._index.get(key)
        if idx is None:
            return False
        self.cursor = idx
        return True

    def watch_cursor(self, old: int, new: int) -> None:
        self._refresh_row(old)
        self._refresh_row(new)
        self._scroll_to_cursor()
        self.post_message(self.Highlighted(self, self.current_key))

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.rows) - 1)) if self.rows else 0

    def _refresh_row(self, row: int) -> None:
        self._strip_cache = {k: v for k, v in self._strip_cache.items() if k[0] != row}
        y = row - int(self.scroll_offset.y) + self.header
        if self.header <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def _scroll_to_cursor(self) -> None:
        if not self.rows:
            return
        top = int(self.scroll_offset.y)
        room = max(self.size.height - self.header, 1)
        if top <= self.cursor < top + room:
            return  # already visible: scrolling "to" it would still repaint the whole pane
        y = self.cursor if self.cursor < top else self.cursor - room + 1
        self.scroll_to(y=y, animate=False, force=True, immediate=True)

    @property
    def header(self) -> int:
        """Lines the column header takes (it does not scroll): none in a pane too low to show
        it and two rows."""
        return 1 if self._want_header and self.rows and self.size.height >= 3 else 0

    def _virtual_height(self) -> int:
        return len(self.rows) + self.header

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # `height: auto` (the needs-you strip): every row and the header; empty, its whole
        # hint (wrapped, never cut at the pane's edge: issue 43)
        if not self.rows:
            return len(self._empty_lines(width))
        return len(self.rows) + (1 if self._want_header else 0)

    @property
    def empty_text(self) -> str:
        """What an empty list says (wrapped over as many lines as it needs)."""
        return self._empty_text

    @empty_text.setter
    def empty_text(self, value: str) -> None:
        if value != self._empty_text:
            self._empty_text = value
            self._strip_cache.clear()
            self.refresh(layout=not self.rows)  # an auto-height list grows or shrinks with it

    def _empty_lines(self, width: int) -> list[Text]:
        """The empty text wrapped to `width` by `text.linebreak` (a command or filename whole)."""
        text = Text(" " + self.empty_text)
        if width <= 1:
            return [text]
        return list(text.divide(line_starts(text.plain, width - 1))) or [text]

    # -- actions -----------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_page_up(self) -> None:
        self.cursor -= max(self.size.height - self.header - 1, 1)

    def action_page_down(self) -> None:
        self.cursor += max(self.size.height - self.header - 1, 1)

    def action_half_page_up(self) -> None:
        self.cursor -= max((self.size.height - self.header) // 2, 1)

    def action_half_page_down(self) -> None:
        self.cursor += max((self.size.height - self.header) // 2, 1)

    _g_armed = False  # the first `g` of `g g` was pressed, and no other key since

    def action_g_prefix(self) -> None:
        if self._g_armed:
            self._g_armed = False
            self.action_first()
        else:
            self._g_armed = True

    def on_key(self, event) -> None:
        if event.key != "g":
            self._g_armed = False  # `g` then anything else is not `g g`

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self.rows) - 1

    def action_select(self) -> None:
        if self.current_key is not None:
            self.post_message(self.Selected(self, self.current_key))

    def action_toggle_mark(self) -> None:
        key = self.current_key
        if key is None:
            return
        self.marked.symmetric_difference_update({key})
        self._refresh_row(self.cursor)
        self.post_message(self.MarksChanged(self))
        self.cursor += 1

    def clear_marks(self) -> None:
        if self.marked:
            self.marked.clear()
            self._strip_cache.clear()
            self.refresh()
            self.post_message(self.MarksChanged(self))

    def row_at(self, event: events.MouseEvent) -> int | None:
        """The row under the pointer. `event.y` counts from the widget's outer edge, border
        included (a pane's titled border is one line): the row is found from the content
        offset, and a click on the border or the scrollbar is no row."""
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        if offset.y < self.header:
            return None  # the column header
        row = offset.y - self.header + int(self.scroll_offset.y)
        return row if 0 <= row < len(self.rows) else None

    async def _on_click(self, event: events.Click) -> None:
        row = self.row_at(event)
        if row is not None:
            if row == self.cursor and event.chain > 1:
                self.action_select()
            self.cursor = row

    def on_focus(self) -> None:
        self._refresh_row(self.cursor)

    def on_blur(self) -> None:
        self._g_armed = False
        self._refresh_row(self.cursor)

    def redraw(self) -> None:
        """The rows' cells changed in place (a lazily made row made again): draw them anew."""
        self._strip_cache.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        """A new theme (or any restyle): the drawn rows carry the old colours."""
        super().notify_style_update()
        self._strip_cache.clear()
        self.refresh()

    def on_resize(self) -> None:
        self._strip_cache.clear()
        self.virtual_size = Size(self.size.width, self._virtual_height())
        # made lower (the lists share the height anew): the selected row stays in view at once,
        # not after the next key (issue 43)
        self.call_after_refresh(self._scroll_to_cursor)

    # -- rendering ---------------------------------------------------------------------

    def _widths(self, total: int) -> list[int | None]:
        """The width of each column (None: hidden). On a narrow pane the flexible (title)
        column keeps its `min_width` by hiding the columns that may be dropped."""
        shown = list(self.columns)
        flex_col = next((c for c in shown if not c.width), None)
        need = flex_col.min_width if flex_col else 0

        def flex_width() -> int:
            fixed = sum(c.width for c in shown if c.width) + len(shown) - 1
            return max(total - fixed - 1, 0)  # 1: the mark column

        droppable = sorted((c for c in shown if c.drop), key=lambda c: -c.drop)
        while flex_width() < need and droppable:
            shown.remove(droppable.pop(0))
        flex = flex_width()
        return [(c.width or flex) if c in shown else None for c in self.columns]

    def _header_strip(self, width: int) -> Strip:
        cached = self._strip_cache.get((-1, width, "h"))
        if cached is not None:
            return cached
        style = self.get_component_rich_style("item-list--header")
        line = Text(" ", no_wrap=True, end="")
        for w, col in zip(self._widths(width), self.columns, strict=False):
            if w is None:
                continue
            line.append(fit(col.label or col.key, w), style=style)
            line.append(" ")
        line.truncate(width, pad=True)
        strip = Strip(list(line.render(self.app.console)), width).apply_style(self.rich_style)
        self._strip_cache[(-1, width, "h")] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        row_index = y + int(self.scroll_offset.y)
        base = self.rich_style
        if not self.rows:
            lines = self._empty_lines(width)
            if y < len(lines):
                text = lines[y].copy()
                text.rstrip()
                if y:
                    text = Text(" ") + text  # the hint's own indent on every line
                text.truncate(width, pad=True)
                text.style = self.get_component_rich_style("item-list--empty")
                return Strip(list(text.render(self.app.console)), width).apply_style(base)
            return Strip.blank(width, base)
        if y < self.header:
            return self._header_strip(width)
        row_index -= self.header
        if row_index >= len(self.rows):
            return Strip.blank(width, base)
        row = self.rows[row_index]
        if row_index == self.cursor:
            state = "c" if self.has_focus else "b"
        else:
            state = "m" if row.key in self.marked else "n"
        cache_key = (row_index, width, state)
        cached = self._strip_cache.get(cache_key)
        if cached is not None:
            return cached
        line = Text(no_wrap=True, end="")
        line.append("●" if row.key in self.marked else " ")
        match = self._match
        match_style = self.get_component_rich_style("item-list--match", partial=True) if match else None
        for w, cell, col in zip(self._widths(width), row.cells, self.columns, strict=False):
            if w is None:
                continue
            c = cell.copy()
            if col.middle and c.cell_len > w:
                c = Text(cut_middle(c.plain, w), style=cell.style)
            if match is not None and col.key in self.match_columns:
                for start, end in match(c.plain):  # spans on the sanitised text: never markup
                    c.stylize(match_style, start, end)
            c.truncate(w, overflow="ellipsis", pad=True)  # in cells: a CJK character is two
            if c.cell_len != w:  # never let a cell push the next column over
                c = Text(fit(c.plain, w), style=cell.style)
            line.append_text(c)
            line.append(" ")
        line.truncate(width, pad=True)
        segments = list(line.render(self.app.console))
        strip = Strip(segments, width)
        overlay: Style | None = None
        if state == "c":
            overlay = self.get_component_rich_style("item-list--cursor")
        elif state == "b":
            overlay = self.get_component_rich_style("item-list--cursor-blurred")
        elif state == "m":
            overlay = self.get_component_rich_style("item-list--marked")
        strip = strip.apply_style(base)
        if overlay is not None:
            strip = Strip([Segment(t, (s or Style()) + overlay, c) for t, s, c in strip], width)
        if len(self._strip_cache) > 2000:
            self._strip_cache.clear()
        self._strip_cache[cache_key] = strip
        return strip
