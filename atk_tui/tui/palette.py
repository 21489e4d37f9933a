"""The command palette: every write a key makes (`WriteProvider`), "jump to item"
(`ItemProvider`) and the app's own commands (`system_commands`), each naming its key as
`[tui.keys]` remapped it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Protocol, cast

from textual.app import App, SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from atk_tui.domain.model import Item
from atk_tui.service import QueueView
from atk_tui.tui.display.safe import safe_content, safe_line
from atk_tui.tui.keys.bindings import PALETTE_ACTIONS
from atk_tui.tui.screens.base import ItemActionsScreen


class WriteProvider(Provider):
    """Command palette: every write a key makes (`PALETTE_ACTIONS`), found by typing its name;
    not in the list shown before typing, which stays short (system commands, items)."""

    async def search(self, query: str) -> Hits:
        screen = self.screen
        if not isinstance(screen, ItemActionsScreen):
            return
        matcher = self.matcher(query)
        for action, title, help_text in PALETTE_ACTIONS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(palette_action, screen, action), text=title, help=help_text)


def palette_action(screen: ItemActionsScreen, action: str) -> None:
    """A write chosen in the palette: as its key would (refused with the reason when the
    key is dimmed)."""
    reason = screen.disabled_reason(action)
    if reason:
        screen.app.notify(reason, severity="warning", markup=False)
        return
    getattr(screen, f"action_{action}")()


class Dashboard(Protocol):
    """What the palette asks of the dashboard's app (the app module imports this one)."""

    queue: QueueView | None

    def jump_to(self, filename: str) -> None: ...


class ItemProvider(Provider):
    """Command palette: "jump to item" by filename or title."""

    def _items(self) -> list[Item]:
        view = cast(Dashboard, self.app).queue
        return list(view.items.values()) if view else []

    def _jump(self, filename: str) -> None:
        cast(Dashboard, self.app).jump_to(filename)

    # Item text is never markup: `Matcher.highlight` and a `str` display or help are parsed as
    # markup by the palette, so the display and the help are `Content` built here.
    async def discover(self) -> Hits:
        for item in self._items()[:30]:
            text = f"Jump to: {safe_line(item.title)}  {safe_line(item.filename)}"
            yield DiscoveryHit(Content(text), partial(self._jump, item.filename), text=text, help=safe_content(item.state))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for item in self._items():
            text = f"{safe_line(item.title)}  {safe_line(item.filename)}"
            score, offsets = matcher.fuzzy_search.match(matcher.query, text)
            if score > 0:
                display = Content(text)
                for offset in offsets:
                    display = display.stylize(matcher.match_style, offset, offset + 1)
                yield Hit(score, display, partial(self._jump, item.filename), text=text, help=safe_content(item.state))


#: the app's own commands: title, what it does, the action (on the app, or on the triage
#: screen: "main."), the binding id whose key it names
SYSTEM_COMMANDS = (
    ("Refresh", "Reload the store (and pull)", "refresh", "refresh"),
    ("Push", "Commit stray item files and push unpushed commits", "push", "push"),
    ("History", "Adopted and rejected items", "history", "history"),
    ("Conflicts", "Set-aside push conflicts: show both versions, keep one", "main.conflicts", "conflicts"),
    ("Help", "Every key", "help", "help"),
    ("Notices", "Read and dismiss the agents' notices", "notices", "notices"),
    ("Elsewhere", "What waits for you on GitHub: afkkit's escalations, reviews, the ready queue", "elsewhere", "elsewhere"),
    ("Wait statistics", "How long questions waited for you, and what they blocked", "stats", None),
    ("Filter", "Filter the panes", "main.filter", "filter"),
    ("Sort", "Change the sort order", "main.cycle_sort", "sort"),
    ("Queue", "Show both queues, only mq (the feedback queue), or only wi", "main.cycle_queue", "queue"),
    ("Graph", "Dependency graph around the selected item", "main.graph", "graph"),
    ("Bottom preview", "Narrow terminals: the detail under the lists, or in their place", "main.toggle_preview", "preview"),
    ("Dependencies", "Set the selected item's dependencies", "main.dependencies", "dependencies"),
    ("Item log", "The selected item's commits and diffs", "main.item_log", "item_log"),
    ("Stuck work", "Processing for days, answered questions nobody picked up", "main.stuck", "stuck"),
    ("New item", "Create an AWI or a UWI", "main.new_item", "new_item"),
)


def system_commands(app: App, main: ItemActionsScreen, key_for: Callable[[str], str]) -> Iterator[SystemCommand]:
    """The app's commands in the palette, each with its key as remapped (`key_for`)."""
    for title, help_text, action, binding_id in SYSTEM_COMMANDS:
        node, _, name = action.rpartition(".")
        method = getattr(main if node == "main" else app, f"action_{name}")
        key = key_for(binding_id) if binding_id else ""
        yield SystemCommand(title, f"{help_text} ({key})" if key else help_text, method)
