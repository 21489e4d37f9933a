"""The triage screen's filter box (`/`): made the first time it is asked for (not on the way to
the first frame), applied as the person types (debounced) or at once on Enter, cleared by Esc.
What the filter keeps is `display.filtering`'s; the screen shows it (`refresh_rows`)."""

from __future__ import annotations

from typing import Any, Protocol

from textual.css.query import DOMQuery
from textual.timer import Timer
from textual.widget import Widget

from atk_tui.service import QueueView
from atk_tui.tui.widgets.filter_input import FilterInput
from atk_tui.tui.widgets.item_list import ItemList

DEBOUNCE = 0.12  # seconds after the last key typed before the filter applies


class Filtered(Protocol):
    """What the filter box asks of its screen."""

    filter_text: str
    bodies: dict[str, str]  # filename -> body text, read once the filter opens

    @property
    def app(self) -> Any: ...
    @property
    def view(self) -> QueueView | None: ...
    def refresh_rows(self) -> None: ...
    def update_status(self) -> None: ...
    def followed_list(self) -> ItemList: ...
    def query(self, selector: str) -> DOMQuery[Widget]: ...
    def query_one(self, selector: str, expect_type: Any = None) -> Any: ...
    def set_focus(self, widget: Widget | None) -> None: ...
    def set_timer(self, delay: float, callback: Any) -> Timer: ...


class FilterBar:
    def __init__(self, screen: Filtered) -> None:
        self.screen = screen
        self._timer: Timer | None = None

    def input(self) -> FilterInput:
        """The filter's input, made the first time `/` is pressed."""
        screen = self.screen
        found = screen.query("#filter")
        if found:
            return found.first(FilterInput)
        inp = FilterInput(on_submit=self.submitted, placeholder="text, repo: kind: urgency: is:blocked|ready|uwi", id="filter")
        inp.border_title = "Filter"  # the box says what it is, typed into or not
        inp.border_subtitle = "Enter keeps it · Esc clears"
        screen.query_one("#panes").mount(inp, before=0)
        return inp

    def open(self) -> None:
        inp = self.input()
        inp.add_class("shown")
        # focus now (`focus()` defers): keys typed right after `/` (a fast typist, a paste) must
        # go to the filter, not run as commands (`e` = edit)
        self.screen.set_focus(inp)
        self.load_bodies()

    def load_bodies(self) -> None:
        """Read every active body once, for the filter (only when the filter is opened), in the
        app's worker."""
        self.screen.app.run_worker(self._read_bodies, name="load_bodies", thread=True, exclusive=True, group="bodies", exit_on_error=False)

    def _read_bodies(self) -> None:
        screen = self.screen
        view = screen.view
        if view is None:
            return
        bodies = {}
        for item in list(view.items.values()):
            if item.filename in screen.bodies:
                continue
            try:
                bodies[item.filename] = screen.app.service.read(item.filename, item.state).body
            except Exception:
                continue
        screen.app.call_from_thread(self._bodies_loaded, bodies)

    def _bodies_loaded(self, bodies: dict[str, str]) -> None:
        self.screen.bodies.update(bodies)
        if self.screen.filter_text:
            self.screen.refresh_rows()

    def clear(self) -> None:
        screen = self.screen
        if screen.filter_text or screen.query("#filter.shown"):  # (no input: `/` was never pressed)
            inp = self.input()
            inp.value = ""
            inp.remove_class("shown")
            self._apply("")
            screen.followed_list().focus()

    def changed(self, value: str) -> None:
        """A key typed in the filter: applied once the typing rests."""
        if self._timer is not None:
            self._timer.stop()

        def apply() -> None:
            if value.strip() != self.screen.filter_text:  # (else a change read after Enter applied it)
                self._apply(value.strip())

        self._timer = self.screen.set_timer(DEBOUNCE, apply)

    def submitted(self, value: str) -> None:
        """Enter in the filter (`FilterInput` calls this as it reads the key): the filter applies
        and the focus is back on the list at once, so a key typed right behind the Enter (Space
        to mark) acts on the narrowed list's highlighted row."""
        if self._timer is not None:
            self._timer.stop()
        screen = self.screen
        self._apply(value.strip())
        if not screen.filter_text:
            screen.query_one("#filter", FilterInput).remove_class("shown")
        screen.set_focus(screen.followed_list())

    def _apply(self, text: str) -> None:
        self.screen.filter_text = text
        self.screen.refresh_rows()
        self.screen.update_status()
