"""`ItemActionsScreen`: what the dashboard, the graph and the history share — keys that act on
the selection, through the app's `Commands`.

A screen says which items its keys act on (`action_targets`, `current_item`) and declares the
bindings it offers; everything else is here: `check_action` asks `Commands.disabled_reason`, so
the footer dims a key the selection does not allow, and pressing it anyway says why (as
lazygit's disabled reasons) instead of doing nothing. Each handler starts one command in a
worker; `after_write` lets the screen react to a write that went through.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual import events
from textual.screen import Screen
from textual.widgets import Input

from atk_tui.domain.model import Item
from atk_tui.service import Outcome, QueueView
from atk_tui.tui.keys import bindings
from atk_tui.tui.keys.bindings import WRITE_ACTIONS
from atk_tui.tui.textual_compat import bindings_by_key, text_area_type
from atk_tui.tui.writes.commands import Commands

if TYPE_CHECKING:
    from atk_tui.tui.screens.dashboard import Dashboard


def typing_in(widget: object) -> bool:
    """The focus is in a text field: an `Input`, or a `TextArea` (whose module, with its syntax
    themes, is imported by the dialogs that make one, not on the way to the first frame: no
    `TextArea` exists before it is)."""
    text_area = text_area_type()
    return isinstance(widget, Input) or (text_area is not None and isinstance(widget, text_area))


class ItemActionsScreen(Screen):
    """A screen whose keys act on selected items; see the module docstring."""

    app: Dashboard

    BINDINGS = bindings.ITEM_ACTIONS  # `L`: the selected item's log

    # -- what the screen selects (overridden) -------------------------------------------------

    def current_item(self) -> Item | None:
        """The item under the cursor."""
        return None

    def action_targets(self) -> list[Item]:
        """The items a key acts on: the marked ones, else the one under the cursor."""
        item = self.current_item()
        return [item] if item is not None else []

    def after_write(self, action: str, out: Outcome) -> None:
        """A write started from this screen went through."""

    # -- permissions --------------------------------------------------------------------------

    @property
    def commands(self) -> Commands:
        return self.app.commands

    @property
    def queue(self) -> QueueView | None:
        return self.app.queue

    def disabled_reason(self, action: str) -> str | None:
        return self.commands.disabled_reason(action, self.action_targets())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in WRITE_ACTIONS:
            return None if self.disabled_reason(action) else True  # None: shown dimmed
        return True

    def on_key(self, event: events.Key) -> None:
        """A dimmed key is never silent: pressing it says why. (Keys reach the screen before
        the app looks at its non-priority bindings.)"""
        if event.key not in self._write_keys() or typing_in(self.focused):
            return  # (working out every binding's state on every key would slow a held arrow key)
        active = self.active_bindings.get(event.key)
        if active is None or active.enabled or active.binding.action not in WRITE_ACTIONS:
            return
        reason = self.disabled_reason(active.binding.action)
        if reason:
            event.stop()
            self.app.notify(reason, severity="warning", markup=False)

    def _write_keys(self) -> frozenset[str]:
        """The keys this screen binds to writes, after the `[tui.keys]` remapping (the keymap is
        set once, as the app starts): worked out on the first key."""
        keys = getattr(self, "_write_keys_cache", None)
        if keys is None:
            found = bindings_by_key(self, self.app.key_overrides)
            keys = frozenset(key for key, bound in found.items() if any(b.action in WRITE_ACTIONS for b in bound))
            self._write_keys_cache = keys
        return keys

    # -- handlers: one command each -----------------------------------------------------------

    def run_command(self, action: str, work: Callable[[], Awaitable[Outcome | None]]) -> None:
        """Run `work` (a command) in the app's write worker; `after_write` on success."""

        async def go() -> None:
            out = await work()
            if out is not None and out.ok:
                self.after_write(action, out)

        self.commands.run(action, go)

    def action_hold(self) -> None:
        targets = self.action_targets()
        self.run_command("hold", lambda: self.commands.move(targets, "hold"))

    def action_unhold(self) -> None:
        targets = self.action_targets()
        self.run_command("unhold", lambda: self.commands.move(targets, "inbox"))

    def action_move(self) -> None:
        targets = self.action_targets()
        self.run_command("move", lambda: self.commands.move_menu(targets))

    def action_remove(self) -> None:
        targets = self.action_targets()
        self.run_command("remove", lambda: self.commands.rm(targets))

    def action_undo(self) -> None:
        self.run_command("undo", self.commands.undo)

    def action_edit(self) -> None:
        item = self.current_item()
        if item is not None:
            self.commands.run("edit", lambda: self.commands.edit(item.filename))

    def action_comment(self) -> None:
        item = self.current_item()
        if item is not None:
            self.run_command("comment", lambda: self.commands.comment(item))

    def action_dependencies(self) -> None:
        item, view = self.current_item(), self.queue
        if item is None or view is None:
            self.app.notify("focus an active item to edit its dependencies", severity="warning")
            return
        self.run_command("dependencies", lambda: self.commands.set_dependencies(item, view))

    def action_item_log(self) -> None:
        item = self.current_item()
        if item is None:
            self.app.notify(f"select an item to see its history ({self.app.key_for('item_log')})", severity="warning")
            return
        from atk_tui.tui.screens.item_history import ItemLogScreen

        self.app.push_screen(ItemLogScreen(item.filename, item.title))

    def action_conflicts(self) -> None:
        self.run_command("conflicts", self.commands.conflicts)
