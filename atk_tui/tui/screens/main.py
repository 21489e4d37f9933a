"""The triage screen: needs-you, the inbox/processing/hold panes, the detail pane."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from functools import partial

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.css.scalar import Unit
from textual.message import Message
from textual.widgets import Input, Static

from atk_tui.domain.filters import Query, parse_query
from atk_tui.domain.model import ACTIVE, STATES, Item
from atk_tui.service import Outcome, QueueView, overdue_first
from atk_tui.tui.config import SORTS
from atk_tui.tui.display.filtering import filter_hint, keeps
from atk_tui.tui.display.present import NEEDS_COLUMNS, PANE_COLUMNS, match_spans, needs_row, pane_row, sort_items
from atk_tui.tui.display.questions import answer_target, needs_texts, next_question, waiting
from atk_tui.tui.display.status import status_line
from atk_tui.tui.keys import bindings
from atk_tui.tui.screens.base import ItemActionsScreen
from atk_tui.tui.screens.detail_follow import DetailFollower
from atk_tui.tui.screens.filter_bar import FilterBar
from atk_tui.tui.screens.narrow import NARROW_CSS, TRIAGE_CSS, NarrowLayout
from atk_tui.tui.widgets.detail import DepTree, DetailPane
from atk_tui.tui.widgets.footer import KeyFooter
from atk_tui.tui.widgets.item_list import ItemList
from atk_tui.tui.widgets.notices import NoticeStrip, show_store_defects
from atk_tui.tui.widgets.panes_column import PanesColumn, shared_heights

PANES = tuple(s for s in STATES if s in ACTIVE)
DETAIL_DELAY = 0.05  # seconds the cursor rests before the detail pane follows it
PANE_TITLES = {"inbox": "Inbox", "processing": "Processing", "hold": "Hold"}
#: what the panes say on a store with no items yet: what to do first (issue 30)
EMPTY_STORE = {
    "needs": "No items yet. Press + to add one; agents file work with `atk wi add`; `atk-tui --demo` opens a sample store to look around.",
    "inbox": "empty: + adds an item (agents: atk wi add)",
}
#: the pane an item of each active state shows in: the feedback queue's `editing` and
#: `planning` items are out of automatic processing like hold ones (SPEC §12)
PANE_OF = {"inbox": "inbox", "processing": "processing", "hold": "hold", "editing": "hold", "planning": "hold"}
#: the queue switch (Q): both queues, then each alone
QUEUE_VIEWS: tuple[str | None, ...] = (None, "mq", "wi")
MOVES = ("hold", "unhold", "move", "remove")  # writes on the marked items: the marks go after


def _warm_help(app) -> None:  # in a worker's thread: the help imported and rendered off the loop
    from atk_tui.tui.screens.help import warm

    warm(app)


class MainScreen(ItemActionsScreen):
    BINDINGS = bindings.MAIN

    DEFAULT_CSS = TRIAGE_CSS + NARROW_CSS  # wide, then narrow terminals (narrow.py: the detail under the lists, or in their place)

    class ItemChosen(Message):
        """The selection moved to `filename` (any pane)."""

        def __init__(self, filename: str | None) -> None:
            super().__init__()
            self.filename = filename

    def __init__(self) -> None:
        super().__init__()
        self.sort_mode = "needs-you"
        self.queue_view: str | None = None  # None: both queues (wi and mq)
        self.filter_text = ""
        self._parsed: tuple[str, Query] | None = None
        self.bodies: dict[str, str] = {}  # filename -> body text, for the filter
        self.selected: str | None = None
        self.follower = DetailFollower(self, DETAIL_DELAY)  # the detail pane follows the selection
        self.filter_bar = FilterBar(self)  # `/`
        self._last_pane = "inbox"
        self._last_list = "inbox"  # the list the selection follows: the focused one, or the last focused
        self._hidden: dict[str, int] = {}  # list id -> items the filter hides in it
        self.full_items: dict[str, Item] = {}
        self._pending_select: str | None = None
        self.narrow = NarrowLayout(self, PANES)  # which narrow layout shows (`[tui] narrow_preview`, `i`)

    def compose(self) -> ComposeResult:
        # the banner only when read-only; the store's defects when a load finds some (`apply_view`)
        if self.app.read_only:
            yield Static(Text(f"READ-ONLY: {self.app.read_only_reason}"), id="banner", classes="shown")
        yield NoticeStrip(id="notices")
        needs = ItemList(NEEDS_COLUMNS, empty_text="Loading…", id="needs")
        needs.border_title = "Needs you"
        yield needs
        with Horizontal(id="body"):
            with PanesColumn(id="panes", resized=self.share_heights):  # the filter box goes first, when `/` makes it (`FilterBar`)
                for pane in PANES:
                    lst = ItemList(PANE_COLUMNS, empty_text="Loading…", id=pane)
                    lst.border_title = PANE_TITLES[pane]
                    yield lst
            yield DetailPane(id="detail")
        yield Static("", id="status")
        yield KeyFooter()

    def on_resize(self, event) -> None:
        self.narrow.resize(event.size.width, event.size.height)

    def on_mount(self) -> None:
        self.narrow.bottom = self.app.tui_config.narrow_preview == "bottom"
        self.narrow.resize(self.size.width, self.size.height)
        self.sort_mode = self.app.tui_config.default_sort
        self.refresh_rows()  # the queue may have loaded before this screen was mounted
        self.query_one("#inbox", ItemList).focus()
        self.update_status()
        self.call_after_refresh(self._offer_kept)  # after the first frame: it imports the dialogs
        self.app.queue_signal.subscribe(self, self.apply_view, immediate=True)
        # what waits on GitHub, in the needs-you pane's title
        self.app.elsewhere.signal.subscribe(self, lambda _found: self.show_elsewhere(self.app.elsewhere.waiting), immediate=True)

    def _offer_kept(self) -> None:
        from atk_tui.tui.writes.edit_session import offer_kept_at_start

        offer_kept_at_start(self.app, self.app.service)  # editor text an earlier session could not save

    @property
    def view(self) -> QueueView | None:
        """The queue the app loaded last (the app holds it; screens subscribe to it)."""
        return self.app.queue

    # -- data --------------------------------------------------------------------------

    def apply_view(self, view: QueueView) -> None:
        """Show a freshly loaded queue, keeping the selection where it was."""
        # a move keeps the blob but changes the state: both must match for the cached full item
        self.full_items = {
            k: v for k, v in self.full_items.items() if k in view.items and (view.items[k].blob, view.items[k].state) == (v.blob, v.state)
        }
        self.refresh_rows()
        show_store_defects(self, view.store_defects)
        self.update_status()
        pending, self._pending_select = self._pending_select, None
        if pending and pending in view.items:
            self.jump_to(pending)
        self.follower.follow(self.selected, immediate=True)
        self.refresh_bindings()
        if not self._help_warmed:  # once the rows are drawn: the help's table, before `?` (`help.warm`)
            self._help_warmed = True
            warm = partial(_warm_help, self.app)
            self.call_after_refresh(self.run_worker, warm, name="warm_help", thread=True, group="warm-help", exit_on_error=False)

    _help_warmed = False

    def _query(self) -> Query:
        """The filter as tokens (`repo:` `kind:` `urgency:` `is:`) and free text, parsed once."""
        if self._parsed is None or self._parsed[0] != self.filter_text:
            self._parsed = (self.filter_text, parse_query(self.filter_text))
        return self._parsed[1]

    def filter_hint(self) -> str:
        """What is wrong with the filter, if anything (`display.filtering.filter_hint`)."""
        return filter_hint(self.filter_text, self._query())

    def _no_match(self) -> str:
        hint = self.filter_hint()
        return f"no match: {hint}" if hint else "no match"

    def _visible(self, item: Item) -> bool:
        if self.queue_view is not None and item.queue != self.queue_view:
            return False
        if not self.filter_text:
            return True
        judgement = self.view.judgements.get(item.filename) if self.view else None
        return keeps(self._query(), item, judgement, self.bodies.get(item.filename))

    def refresh_rows(self) -> None:
        view = self.view
        if view is None:
            return
        now = view.now
        needle = self._query().text if self.filter_text else ""
        # the free text's hits are emphasised in the rows; the structured tokens (repo: kind:
        # urgency: is:) pick rows by what is not the row's text, and emphasise nothing
        match = partial(match_spans, needle) if needle else None
        by_state: dict[str, list[Item]] = {p: [] for p in PANES}
        totals = dict.fromkeys(PANES, 0)  # every item of the queue shown, filter or not
        shown_queue, every = self.queue_view, not self.filter_text
        for item in view.items.values():
            pane_of = PANE_OF.get(item.state)
            if pane_of is not None and (shown_queue is None or item.queue == shown_queue):
                totals[pane_of] += 1
                if every or self._visible(item):
                    by_state[pane_of].append(item)
        for pane in PANES:
            lst = self.query_one(f"#{pane}", ItemList)
            items = sort_items(by_state[pane], view.judgements, view.blocks, self.sort_mode)
            lst.empty_text = self._no_match() if self.filter_text else ("empty" if view.items else EMPTY_STORE.get(pane, "empty"))
            lst.set_match(match)
            lst.set_rows([pane_row(i, view.judgements.get(i.filename), now) for i in items])
            total = totals[pane]
            count = f"{len(items)}/{total}" if self.filter_text else str(total)
            self._hidden[pane] = total - len(items)
            lst.border_title = f"{PANE_TITLES[pane]} {count}"
            lst.border_subtitle = f"sort: {self.sort_mode}" if pane == "inbox" else ""
        self.share_heights()
        needs = self.query_one("#needs", ItemList)
        needs_items = overdue_first([view.items[n] for n in view.needs_you if n in view.items and self._visible(view.items[n])], now)
        self._hidden["needs"] = sum(1 for n in self._waiting() if n in view.items) - len(needs_items)
        hidden = self._hidden["needs"]
        needs.empty_text, self._needs_title = needs_texts(
            view, shown_queue, len(needs_items), hidden, filtered=bool(self.filter_text),
            key_for=self.app.key_for, empty_store=EMPTY_STORE["needs"],
        )  # fmt: skip
        needs.set_match(match)
        needs.set_rows([needs_row(i, view.blocks.get(i.filename), now) for i in needs_items])
        self.show_elsewhere(self._elsewhere)
        # "3 questions waiting · oldest 2 d · answering the top one unblocks 7 items" (issue 16)
        from atk_tui.service.history.stats import needs_headline  # with the first rows, not before the first frame

        needs.border_subtitle = needs_headline(view.items, [i.filename for i in needs_items], view.blocks, now) if needs_items else ""
        self._follow_rows()

    def share_heights(self) -> None:
        """The lists share their column's height by what they hold (`shared_heights`); in the
        bottom preview of a narrow terminal the expanded pane takes it all (narrow.py's CSS)."""
        lists = [self.query_one(f"#{p}", ItemList) for p in PANES]
        if self.narrow.narrow and self.narrow.bottom:
            for lst in lists:
                if lst.styles.has_rule("height"):
                    lst.styles.clear_rule("height")
            return
        column = self.query_one("#panes")
        room = column.size.height - sum(w.outer_size.height for w in column.children if w.display and not isinstance(w, ItemList))
        if room <= 0:
            return
        # each: its rows, the header over two or more (`ItemList.header`), the frame; empty: the
        # frame and "empty"
        needs = [max(len(lst.rows) + (len(lst.rows) > 1), 1) + 2 for lst in lists]
        least = [min(n, 4) for n in needs]
        for lst, height in zip(lists, shared_heights(needs, least, room), strict=True):
            if lst.styles.height is None or lst.styles.height.value != height or lst.styles.height.unit != Unit.CELLS:
                lst.styles.height = height

    _needs_title = "Needs you"
    _elsewhere = 0

    def show_elsewhere(self, waiting: int) -> None:
        """The count of what waits for the person on GitHub (`E`, issue 31) in the needs-you
        pane's title, when there is any."""
        self._elsewhere = waiting
        for needs in self.query("#needs"):
            needs.border_title = self._needs_title + (f" · {waiting} elsewhere ({self.app.key_for('elsewhere')})" if waiting else "")

    def _follow_rows(self) -> None:
        """The selection is the highlighted row of the list it follows: when a filter or a refresh
        takes the selected item out of that list, the selection (and the detail pane) moves to
        the row the list now highlights, or to nothing when the list is empty. Never a stale item."""
        key = self.query_one(f"#{self._last_list}", ItemList).current_key
        if key != self.selected:
            self._select(key, immediate=True)

    def nothing_selected(self) -> str:
        hidden = self._hidden.get(self._last_list, 0)
        if self.filter_text and hidden:
            return f"no item selected — {hidden} hidden by the filter (Esc clears it)"
        return "Nothing selected."

    def update_status(self) -> None:
        try:
            self._update_status()
        except NoMatches:  # closing: the panes are gone (a sync thread that ended late)
            pass

    def _update_status(self) -> None:
        self.query_one("#status", Static).update(status_line(self.app, self))

    # -- selection and detail ------------------------------------------------------------

    @on(ItemList.Selected)
    def _opened(self, event: ItemList.Selected) -> None:
        """Enter on a row opens the item, as the help says: the detail (the bottom preview in
        the narrow layout) gets the focus, as `l` does."""
        event.stop()
        self._select(event.key)
        self.action_focus_detail()

    @on(ItemList.Highlighted)
    def _highlighted(self, event: ItemList.Highlighted) -> None:
        if event.item_list.has_focus or event.item_list.id == self._last_list:
            self._select(event.key)

    def on_descendant_focus(self, event) -> None:
        widget = event.widget
        if isinstance(widget, ItemList):
            if widget.id in PANES:
                self._last_pane = widget.id
            self.narrow.focused_list(self._last_pane)  # back on a list: the lists show
            self._last_list = widget.id or self._last_list
            self._select(widget.current_key)

    def _select(self, key: str | None, immediate: bool = False) -> None:
        if key == self.selected and key is not None:
            return
        self.app.last_move = time.monotonic()  # background git waits while the cursor moves
        self.selected = key
        self._refresh_bindings_if_changed()
        self.post_message(self.ItemChosen(key))
        self.follower.follow(key, immediate)

    def _refresh_bindings_if_changed(self) -> None:
        """The footer is rebuilt only when what the selection allows changes: rebuilding it on
        every cursor move would cost more than drawing the move itself."""
        item = self.current_item()
        sig = (
            None
            if item is None
            else (item.kind, item.state, bool(item.defects), item.answered, len(self.marked()), len(self.commands.undo_stack))
        )
        if sig != getattr(self, "_binding_sig", object()):
            self._binding_sig = sig
            self.refresh_bindings()

    @on(DepTree.JumpRequested)
    def _jump(self, event: DepTree.JumpRequested) -> None:
        self.jump_to(event.filename)

    def jump_to(self, filename: str) -> bool:
        """Select `filename` in its pane (clearing a filter that hides it)."""
        view = self.view
        if view is None or filename not in view.items:
            state = view.snapshot.states.get(filename) if view else None
            self.app.notify(
                f"{filename} is {state}: see the history view (H)" if state else f"no item named {filename}",
                markup=False,
                severity="warning",
            )
            return False
        item = view.items[filename]
        pane = PANE_OF.get(item.state)
        if pane is None:
            return False
        if self.queue_view is not None and item.queue != self.queue_view:
            self.queue_view = None  # the other queue's item: show both again
            self.refresh_rows()
            self.update_status()
        lst = self.query_one(f"#{pane}", ItemList)
        self._last_list = pane
        if not lst.select_key(filename) and self.filter_text:
            self.action_clear_filter()
            lst.select_key(filename)
        lst.focus()
        self._select(filename)
        return True

    # -- actions -------------------------------------------------------------------------

    def _pane_order(self) -> list[ItemList]:
        try:  # none once the screen is torn down (the footer may still ask what can act)
            return [self.query_one("#needs", ItemList), *(self.query_one(f"#{p}", ItemList) for p in PANES)]
        except NoMatches:
            return []

    # Focus moves with `set_focus` (at once), not `focus()` (after the queued events): keys typed
    # ahead must act on the pane the user has just moved to.
    def action_focus_next_pane(self, step: int = 1) -> None:
        """Tab: the panes as they stand on the screen, top to bottom, then the detail on the
        right (Shift+Tab the other way round)."""
        panes = self._pane_order()
        focused = self.focused
        detail = self.query_one("#detail")
        if focused is not None and (focused is detail or detail in focused.ancestors):
            idx = len(panes)
        else:
            idx = next((i for i, p in enumerate(panes) if p is focused), -1)
        if idx < 0:
            self.set_focus(self.query_one(f"#{self._last_pane}", ItemList))
            return
        nxt = (idx + step) % (len(panes) + 1)
        if nxt == len(panes):
            self.action_focus_detail()
        else:
            self.narrow.detail_focused(False)
            self.set_focus(panes[nxt])

    def action_focus_previous_pane(self) -> None:
        self.action_focus_next_pane(-1)

    def action_focus_pane(self, pane: str) -> None:
        self.set_focus(self.query_one(f"#{pane}", ItemList))

    def action_new_item(self) -> None:
        """An AWI or UWI written from the board: a form, then one commit (`atk wi add`)."""
        if self.commands.refuse_read_only():
            return
        from atk_tui.tui.screens.new_item import NewItemScreen

        item = self.current_item()

        async def work() -> Outcome | None:
            got = await self.app.push_screen_wait(NewItemScreen(item.target_repo if item else ""))
            if got is None:
                return None
            out = await self.commands.write(self.app.service.writes.add, source="atk-tui", **got)
            if out.ok and out.files:
                self._pending_select = out.files[0]
            return out

        self.run_command("new_item", work)

    def action_stuck(self) -> None:
        if self.view is None:
            return
        from atk_tui.tui.screens.stuck import StuckScreen

        def jump(name: str | None) -> None:
            if name:
                self.jump_to(name)

        self.app.push_screen(StuckScreen(self.view), jump)

    def action_copy_filename(self) -> None:
        """The selected item's filename to the clipboard (OSC 52, through the terminal: works
        over ssh and in tmux with set-clipboard on)."""
        if not self.selected:
            self.notify("nothing selected to copy", severity="warning", timeout=3)
            return
        self.app.copy_to_clipboard(self.selected)
        self.notify(f"copied {self.selected}", timeout=3)

    def action_copy_path(self) -> None:
        """The selected item's file, as a full path (to open it in another editor or tool)."""
        item = self.current_item()
        if item is None:
            self.notify("nothing selected to copy", severity="warning", timeout=3)
            return
        path = str(self.app.service.path_of(item))
        self.app.copy_to_clipboard(path)
        self.notify(f"copied {path}", timeout=3)

    def action_focus_detail(self) -> None:
        target = self.narrow.detail_target(self.focused)
        if target is not None:
            self.narrow.detail_focused(True)
            self.set_focus(target)

    def action_focus_panes(self) -> None:
        self.narrow.detail_focused(False)
        if not isinstance(self.focused, ItemList):
            self.set_focus(self.query_one(f"#{self._last_pane}", ItemList))

    def action_toggle_preview(self) -> None:
        self.notify(self.narrow.toggle(), timeout=3)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "match":
            return bool(self.filter_text) and not isinstance(self.focused, Input)  # else n / N as without a filter
        if action == "filter" and isinstance(self.focused, Input):
            return False  # `/` is a character in the filter (and any other input)
        if action == "graph":
            return not isinstance(self.focused, Input)
        return super().check_action(action, parameters)

    def action_filter(self) -> None:
        self.filter_bar.open()

    @on(ItemList.MarksChanged)
    def _marks_changed(self) -> None:
        self.refresh_bindings()
        self.update_status()

    def action_back(self) -> None:
        """Esc: back out one level, the innermost first."""
        if self.focused is not None and not isinstance(self.focused, (ItemList, Input)):
            self.action_focus_panes()  # the detail pane (or its dependency tree)
        elif self.marked():
            self.clear_marks()
        else:
            self.action_clear_filter()

    def action_match(self, step: int) -> None:
        """`n` / `N` after `/`: the next (previous) row the filter kept, across the panes, round."""
        panes = self._pane_order()
        here = next((i for i, p in enumerate(panes) if p.id == self._last_list), 0)
        stops = [(i, r) for i, p in enumerate(panes) for r in range(len(p.rows))]
        now = (here, panes[here].cursor if panes[here].rows else -step)
        ahead = [s for s in stops if (s > now if step > 0 else s < now)] or stops
        if ahead:
            pane, row = ahead[0] if step > 0 else ahead[-1]
            self.set_focus(panes[pane])
            panes[pane].cursor = row

    def action_clear_filter(self) -> None:
        self.filter_bar.clear()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.filter_bar.changed(event.value)

    def followed_list(self) -> ItemList:
        """The list the selection follows: the focused one, or the last focused."""
        return self.query_one(f"#{self._last_list}", ItemList)

    def action_cycle_queue(self) -> None:
        """Q: both queues, only mq (the feedback queue), only wi; needs-you follows."""
        self.queue_view = QUEUE_VIEWS[(QUEUE_VIEWS.index(self.queue_view) + 1) % len(QUEUE_VIEWS)]
        self.refresh_rows()
        self.update_status()
        shown = {None: "both queues (wi and mq)", "wi": "the wi queue only", "mq": "the mq (feedback) queue only"}
        self.app.notify(f"showing {shown[self.queue_view]}", timeout=2)

    def action_cycle_sort(self) -> None:
        self.sort_mode = SORTS[(SORTS.index(self.sort_mode) + 1) % len(SORTS)] if self.sort_mode in SORTS else SORTS[0]
        self.refresh_rows()
        self.update_status()
        self.app.notify(f"sorted by {self.sort_mode}", timeout=2)

    # -- acting on the selection ------------------------------------------------------------

    def action_targets(self) -> list[Item]:
        view, marked = self.view, self.marked()
        if marked and view is not None:
            return [view.items[n] for n in marked if n in view.items]
        item = self.current_item()
        return [item] if item is not None else []

    def after_write(self, action: str, out: Outcome) -> None:
        if action in MOVES:
            self.clear_marks()

    def disabled_reason(self, action: str) -> str | None:
        """`a` on a row that is no question opens the top waiting one (as the help says): judged
        on that one, not refused for the row under the cursor. (`A` is not: it would answer a
        question the person does not see.)"""
        if action == "answer" and not self.marked():
            target = self._answer_target()
            if target is not None:
                return self.commands.disabled_reason(action, [target])
        return super().disabled_reason(action)

    def _answer_target(self) -> Item | None:
        return answer_target(self.current_item(), self.view, self._waiting())

    def _waiting(self) -> list[str]:
        return waiting(self.view, self.queue_view)

    def _answer_with(self, action: str, command: Callable[[Item], Awaitable[Outcome | None]]) -> None:
        item = self._answer_target()
        if item is None:
            self.app.notify("no question selected and none waiting", severity="warning")
            return
        nxt = next_question(self._waiting(), item.filename) if self.view is not None else None

        async def work() -> Outcome | None:
            out = await command(item)
            if out is not None and out.ok and nxt:
                self._pending_select = nxt
            return out

        self.run_command(action, work)

    def action_answer(self) -> None:
        self._answer_with("answer", self.commands.answer)

    def action_accept(self) -> None:
        marked = self.marked()
        if marked and self.view is not None:  # batch approval: one confirmation, one commit
            items = [self.view.items[n] for n in marked if n in self.view.items]

            async def work() -> Outcome | None:
                out = await self.commands.accept_batch(items)
                if out is not None and out.ok:
                    self.clear_marks()
                return out

            self.run_command("accept", work)
            return
        self._answer_with("accept", self.commands.accept)

    def action_graph(self) -> None:
        from atk_tui.tui.screens.graph import GraphScreen

        item = self.current_item()
        self.app.push_screen(GraphScreen(item.filename if item is not None else None))

    # -- helpers for actions -------------------------------------------------------------

    def current_item(self) -> Item | None:
        if self.view is None or self.selected is None:
            return None
        return self.full_items.get(self.selected) or self.view.items.get(self.selected)

    def marked(self) -> list[str]:
        out: list[str] = []
        for lst in self._pane_order()[1:]:
            out.extend(sorted(lst.marked))
        return out

    def clear_marks(self) -> None:
        for lst in self._pane_order():
            lst.clear_marks()
