"""The dashboard's keys where they act on items, declared once (issue 27): the app's global
keys, the triage screen's, the item lists', and every key that writes with what the rest of
the dashboard needs to know about it (its palette entry, the rule whose refusal dims it).

The app, the screens and the widgets take their `BINDINGS` from here; the key map
(`tui.keymap`: remaps, clashes, "which key does X"), the help screen, the footer, the palette
(`PALETTE_ACTIONS`), the dimming of refused writes (`WRITE_ACTIONS`, `KEY_OPS`) and the
README's key table (a test) all read these tables. A screen of its own (the graph, history,
a dialog) keeps its few keys in its own `BINDINGS`, Textual's way: one place per context.

Add a key that writes: one `WriteKey` row, its `action_...` handler on `ItemActionsScreen`
(`tui/screens/base.py`) and its command (`tui/writes/commands.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

from atk_tui.domain.ops import Op


@dataclass(frozen=True)
class WriteKey:
    """A key that writes: its binding, its command-palette entry (`palette`: the title, None
    for none; `help`: what it does), and the operation whose `domain.ops.refusal` dims it
    (None: the command checks for itself, as `unhold` and `move` do)."""

    binding: Binding
    palette: str | None
    help: str = ""
    op: Op | None = None


#: every key that writes, in the footer's order
WRITE_KEYS = (
    WriteKey(Binding("a", "answer", "Answer", id="answer"), "Answer", "Answer the selected question", Op.ANSWER),
    WriteKey(Binding("A", "accept", "Accept rec.", show=False, id="accept"), "Accept recommendations",
             "Answer with every question's recommended option", Op.ANSWER),
    WriteKey(Binding("c", "comment", "Comment", id="comment"), "Comment", "Add a comment to the selected work item", Op.COMMENT),
    WriteKey(Binding("e", "edit", "Edit", id="edit"), "Edit", "Edit the item in $EDITOR: held while you edit", Op.EDIT),
    # `h` is vim's left: back from the detail pane
    WriteKey(Binding("p", "hold", "Hold", id="hold"), "Hold", "Hold the selected items: out of automatic processing", Op.HOLD),
    WriteKey(Binding("u", "unhold", "Unhold", id="unhold"), "Unhold", "Back to the inbox"),
    WriteKey(Binding("m", "move", "Move", id="move"), "Move", "Move the selected items to another state"),
    WriteKey(Binding("x,delete", "remove", "Remove", show=False, id="remove"), "Remove", "Remove the selected items", Op.RM),
    # in the help; the footer keeps room for ? and q
    WriteKey(Binding("z", "undo", "Undo", show=False, id="undo"), "Undo", "Undo this session's last write"),
    WriteKey(Binding("d", "dependencies", "Deps", id="dependencies"), None, op=Op.SET_DEPENDENCIES),
)  # fmt: skip

#: the actions that write: refused (dimmed, and saying why) in a read-only session
WRITE_ACTIONS = frozenset(k.binding.action for k in WRITE_KEYS)
#: the domain operation each write key asks `ops.refusal` about (the rule lives there once)
KEY_OPS = {k.binding.action: k.op for k in WRITE_KEYS if k.op is not None}
#: every write a key makes, in the palette too: (action, title, help with the key)
PALETTE_ACTIONS = tuple(
    (k.binding.action, k.palette, f"{k.help} ({k.binding.key.split(',')[0]})") for k in WRITE_KEYS if k.palette
)

#: the keys that act on the selection, on every screen that has one (`ItemActionsScreen`)
ACTION_BINDINGS = [
    *(k.binding for k in WRITE_KEYS),
    Binding("C", "conflicts", "Conflicts", show=False, id="conflicts"),
    Binding("v", "graph", "Graph", id="graph"),  # `g g` is vim's first row
]

#: `ItemActionsScreen`'s own: `L` (lazygit's log), every commit that touched the selected item
ITEM_ACTIONS = [Binding("L", "item_log", "Item log", show=False, id="item_log")]

#: the app's: on every screen
APP = [
    Binding("q", "quit", "Quit", id="quit"),
    # quits at once even during a stuck write (a text area keeps Ctrl+C for copying)
    Binding("ctrl+c", "quit_now", "Quit now (stops git)", show=False, id="quit_now"),
    Binding("question_mark", "help", "Help", id="help"),
    Binding("r", "refresh", "Refresh", id="refresh"),
    Binding("H", "history", "History", id="history"),
    Binding("P", "push", "Push", show=False, id="push"),
    # vim's `:` (its own action: one bound to `command_palette` would take Ctrl+P's place in the footer)
    Binding("colon", "open_palette", "Command palette", show=False, id="palette"),
    # no description: the help screen lists described keys; the notice strip says "N to read"
    Binding("N", "notices", "Notices", show=False, id="notices"),
    # what waits for the person on GitHub (issue 31): its count is in the needs-you title
    Binding("E", "elsewhere", "Elsewhere (GitHub)", show=False, id="elsewhere"),
]

#: the triage screen's (`MainScreen`)
MAIN = [
    Binding("tab", "focus_next_pane", "Next pane", show=False, priority=True),
    Binding("shift+tab", "focus_previous_pane", "Prev pane", show=False, priority=True),
    Binding("1", "focus_pane('inbox')", "Inbox", show=False, id="pane.inbox"),
    Binding("2", "focus_pane('processing')", "Processing", show=False, id="pane.processing"),
    Binding("3", "focus_pane('hold')", "Hold", show=False, id="pane.hold"),
    Binding("n", "match(1)", "Next match (after /)", show=False, id="match.next"),  # vim; else needs you
    Binding("N", "match(-1)", "Previous match (after /)", show=False, id="match.previous"),
    Binding("n", "focus_pane('needs')", "Needs you", show=False, id="pane.needs"),
    # priority: handled before the keys typed after it are routed, so they reach the filter
    Binding("slash", "filter", "Filter", id="filter", priority=True),
    Binding("s", "cycle_sort", "Sort", id="sort"),
    Binding("Q", "cycle_queue", "Queue", show=False, id="queue"),
    Binding("right,l", "focus_detail", "Detail", show=False),
    Binding("left,h", "focus_panes", "Panes", show=False),
    Binding("i", "toggle_preview", "Bottom preview on/off (narrow)", show=False, id="preview"),  # gh-dash's p
    # one level back: the detail to the lists, then the marks, then the filter
    Binding("escape", "back", "Back: detail, marks, filter", show=False),
    Binding("y", "copy_filename", "Copy filename", show=False, id="copy"),  # as gh-dash, lazygit
    Binding("Y", "copy_path", "Copy the item file's path", show=False, id="copy_path"),
    Binding("S", "stuck", "Stuck work", show=False, id="stuck"),
    Binding("plus", "new_item", "New item", show=False, id="new_item"),
    *ACTION_BINDINGS,
]

#: an item list's (`ItemList`): moving, marking
ITEM_LIST = [
    Binding("up,k", "cursor_up", "Up", show=False),
    Binding("down,j", "cursor_down", "Down", show=False),
    Binding("pageup", "page_up", "Page up", show=False),
    Binding("pagedown", "page_down", "Page down", show=False),
    # vim/less: `g g` or Home first, G or End last, Ctrl+D / Ctrl+U half a page
    Binding("home", "first", "First", show=False, id="item_list.first"),
    Binding("g", "g_prefix", "First (g g)", show=False),
    Binding("end,G", "last", "Last", show=False, id="item_list.last"),
    Binding("ctrl+d", "half_page_down", "Half page down", show=False, id="item_list.half_down"),
    Binding("ctrl+u", "half_page_up", "Half page up", show=False, id="item_list.half_up"),
    Binding("enter", "select", "Open", show=False),
    Binding("space", "toggle_mark", "Mark", show=False, id="item_list.mark"),
]

#: what the triage screen answers to, in Textual's lookup order (the focused list's keys first:
#: `g`, the first key of `gg`, remapped to another binding would never reach it): (scope, table)
TRIAGE = (("global", APP), ("main", ITEM_ACTIONS), ("main", MAIN), ("list", ITEM_LIST))
