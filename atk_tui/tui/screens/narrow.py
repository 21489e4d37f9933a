"""The triage screen on a narrow terminal (below `NARROW_BELOW` columns).

Two layouts, picked by `[tui] narrow_preview` and switched with `i`:

- "bottom" (gh-dash's bottom preview, the default): the lists on top, the detail under them at a
  fixed share of the height (it never changes size with the selection), both full width, so
  filenames are not broken mid-word. Three panes do not fit above it at 80×24, so only the pane
  last focused is expanded (as lazygit's accordion); the others keep their title line (name and
  count), and Tab / 1 2 3 open them.
- "off": the lists full height; `l` / → shows the detail in their place, `h` / ← brings them back.

The screen calls `resize`, `focused_list`, `detail_target` and `detail_focused`; the rules are the
CSS below, switched by classes on `#body` (`-bottom`, `-swap`, `-detail`) and on the panes
(`-collapsed`).
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widget import Widget

from atk_tui.tui.widgets.detail import DetailPane
from atk_tui.tui.widgets.item_list import ItemList

NARROW_BELOW = 100  # columns: narrower, the detail goes under the lists (or in their place)
DETAIL_SHARE = "45%"  # of the height under the needs-you strip, in the bottom preview
SHORT_BELOW = 32  # rows: lower, the needs-you strip keeps three rows (it scrolls) for the rest

#: the triage screen on any terminal: the needs-you strip over the lists and the detail side by
#: side, the filter box, the status line (`MainScreen.DEFAULT_CSS`, then `NARROW_CSS`)
TRIAGE_CSS = """
MainScreen { layout: vertical; }
#banner { height: auto; background: $error; color: $text; text-style: bold; padding: 0 1; display: none; }
#banner.shown { display: block; }
#store-defects { height: auto; max-height: 3; background: $warning 30%; padding: 0 1; display: none; }
#store-defects.shown { display: block; }
#needs { height: auto; max-height: 45%; min-height: 3; border: round $panel-lighten-2; border-title-style: bold; }
#body { height: 1fr; }
#panes { width: 3fr; }
#panes ItemList { border: round $panel-lighten-2; border-title-style: bold; }
#panes #inbox { height: 2fr; }  /* until the rows are known: then `share_heights` */
#panes ItemList:focus, #needs:focus { border: round $accent; }
#detail { width: 2fr; border: round $panel-lighten-2; border-title-style: bold; }
#detail:focus-within { border: round $accent; }
/* NO_COLOR: the focused pane's frame is heavy (app.tcss) */
#filter { display: none; height: 3; border: round $accent; }
#filter.shown { display: block; }
#status { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
"""

NARROW_CSS = f"""
/* "off": the lists take the whole width; the detail shows in their place (`l`) */
#body.-swap #detail {{ display: none; }}
#body.-swap.-detail #panes {{ display: none; }}
#body.-swap.-detail #detail {{ display: block; width: 1fr; }}
/* "bottom": the lists over the detail; the panes not focused shrink to their title line */
#body.-bottom {{ layout: vertical; }}
#body.-bottom #panes {{ width: 1fr; height: 1fr; }}
#body.-bottom #detail {{ width: 1fr; height: {DETAIL_SHARE}; }}
#body.-bottom #panes ItemList {{ height: 1fr; }}
#body.-bottom #panes ItemList.-collapsed {{ height: 1; border-bottom: none; }}
#body.-bottom #filter {{ height: 1; border: none; border-left: wide $accent; }}
/* a short terminal: the needs-you strip is not the screen (it took 10 of 24 rows) */
MainScreen.-short #needs {{ max-height: 6; }}
"""


class NarrowLayout:
    """Which narrow layout `#body` shows, and which pane is expanded in the bottom preview."""

    def __init__(self, screen: Screen, panes: tuple[str, ...]) -> None:
        self.screen = screen
        self.panes = panes
        self.bottom = True  # `[tui] narrow_preview = "bottom"` (the default); False: "off"
        self.narrow = False
        self.expanded = panes[0]

    def resize(self, width: int, height: int | None = None) -> None:
        self.narrow = width < NARROW_BELOW
        if height is not None:
            self.screen.set_class(height < SHORT_BELOW, "-short")
        self._apply()

    def toggle(self) -> str:
        """`i`: the bottom preview off or on again; says what narrow terminals now show."""
        self.bottom = not self.bottom
        self._apply()
        shown = "under the lists" if self.bottom else "in place of the lists (l / h)"
        return f"narrow terminals: the detail {shown}" + ("" if self.narrow else f" (below {NARROW_BELOW} columns)")

    def focused_list(self, pane: str) -> None:
        """A list has the focus: the lists show, and `pane` (the last pane focused) is expanded."""
        self.expanded = pane
        self.detail_focused(False)
        self._apply()

    def detail_target(self, focused: Widget | None) -> Widget | None:
        """What `l` / → focuses: from a list, the dependency tree; in the bottom preview, where
        the detail is short, first the detail itself (↑ ↓ PgUp PgDn scroll it), then the tree."""
        detail = self.screen.query_one("#detail", DetailPane)
        if isinstance(focused, ItemList) and self.narrow and self.bottom:
            return detail
        if isinstance(focused, ItemList) or focused is detail:
            return detail.deps_tree()
        return None

    def detail_focused(self, focused: bool) -> None:
        self.screen.query_one("#body").set_class(focused, "-detail")

    def _apply(self) -> None:
        body = self.screen.query_one("#body")
        body.set_class(self.narrow and self.bottom, "-bottom")
        body.set_class(self.narrow and not self.bottom, "-swap")
        for pane in self.panes:
            self.screen.query_one(f"#{pane}").set_class(pane != self.expanded, "-collapsed")
