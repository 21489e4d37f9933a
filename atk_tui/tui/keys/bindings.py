"""The dashboard's keys where they act on items, declared once (issue 27): the app's global
keys, the triage screen's, the item lists', and every key that writes with what the rest of
the dashboard needs to know about it (its palette entry, the rule whose refusal dims it).

The app, the screens and the widgets take their `BINDINGS` from here; the key map
(`tui.keymap`: remaps, clashes, "which key does X"), the help screen, the footer, the palette
(`PALETTE_ACTIONS`), the dimming of refused writes (`WRITE_ACTIONS`, each row's `rules`) and the
README's key table (a test) all read these tables. A screen of its own (the graph, history,
a dialog) keeps its few keys in its own `BINDINGS`, Textual's way: one place per context.

Add a key that writes: one `WriteKey` row, its `action_...` handler on `ItemActionsScreen`
(`tui/screens/base.py`) and its command (`tui/writes/commands.py`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from textual.binding import Binding

from atk_tui.domain.model import Item, State
from atk_tui.domain.ops import Op, defect_refusal, refusal
from atk_tui.domain.queues import queue_named


@dataclass(frozen=True)
class Asked:
    """A write key pressed: on which items (selected or marked), by whom, and whether this
    session has a write to undo."""

    action: str
    targets: Sequence[Item]
    actor: str
    can_undo: bool = False


#: one rule of a key: why it is refused (None: this rule lets it through)
Rule = Callable[[Asked], str | None]


def an_item(a: Asked) -> str | None:
    return None if a.targets else "no item selected"


def one_at_a_time(a: Asked) -> str | None:
    return f"{a.action} works on one item at a time: Esc clears the marks" if len(a.targets) > 1 else None


def not_planning(a: Asked) -> str | None:
    """Visible, not actionable (SPEC §12)."""
    planning = next((t for t in a.targets if t.state in queue_named(t.queue).fenced), None)
    return None if planning is None else f"{planning.filename} is being planned: it leaves planning only with `atk mq finish-planning`"


def only_held(a: Asked) -> str | None:
    """`u` is the key for held items (moving anything else to inbox is `m`)."""
    return "only held items are unheld (`atk wi hold F` holds one)" if any(t.state != State.HOLD for t in a.targets) else None


def not_defective(a: Asked) -> str | None:
    defective = next((t for t in a.targets if t.defects), None)
    return defect_refusal(defective).message if defective is not None else None


def core(op: Op) -> Rule:
    """core's `domain.ops.refusal` for the operation the key makes (the rule lives there once),
    after the planning fence."""

    def rule(a: Asked) -> str | None:
        fenced = not_planning(a)
        if fenced is not None:
            return fenced
        found = refusal(op, list(a.targets), a.actor)
        return found.message if found is not None else None

    return rule


def marked_questions(a: Asked) -> str | None:
    """`A` on marked items: the batch approval of the questions among them."""
    if len(a.targets) > 1:
        return None if any(t.kind == "uwi" for t in a.targets) else "none of the marked items is a question: mark questions (Space), then A"
    return core(Op.ANSWER)(a)


def something_to_undo(a: Asked) -> str | None:
    return None if a.can_undo else "nothing to undo in this session"


@dataclass(frozen=True)
class WriteKey:
    """A key that writes: its binding, its command-palette entry (`palette`: the title, None
    for none; `help`: what it does), and its rules, asked in order: the first that refuses
    says why the key is dimmed (a read-only session refuses every one first)."""

    binding: Binding
    palette: str | None
    help: str = ""
    rules: tuple[Rule, ...] = ()


_ITEM, _ONE = an_item, one_at_a_time
#: every key that writes, in the footer's order
WRITE_KEYS = (
    WriteKey(Binding("a", "answer", "Answer", id="answer"), "Answer", "Answer the selected question", (_ITEM, _ONE, core(Op.ANSWER))),
    WriteKey(Binding("A", "accept", "Accept rec.", show=False, id="accept"), "Accept recommendations",
             "Answer with every question's recommended option", (_ITEM, marked_questions)),
    WriteKey(Binding("c", "comment", "Comment", id="comment"), "Comment", "Add a comment to the selected work item",
             (_ITEM, _ONE, core(Op.COMMENT))),
    WriteKey(Binding("e", "edit", "Edit", id="edit"), "Edit", "Edit the item in $EDITOR: held while you edit", (_ITEM, _ONE, core(Op.EDIT))),
    # `h` is vim's left: back from the detail pane
    WriteKey(Binding("p", "hold", "Hold", id="hold"), "Hold", "Hold the selected items: out of automatic processing", (_ITEM, core(Op.HOLD))),
    WriteKey(Binding("u", "unhold", "Unhold", id="unhold"), "Unhold", "Back to the inbox", (_ITEM, not_planning, only_held, not_defective)),
    # the move menu only needs items that are not defective (it offers the moves core allows)
    WriteKey(Binding("m", "move", "Move", id="move"), "Move", "Move the selected items to another state", (_ITEM, not_planning, not_defective)),
    WriteKey(Binding("x,delete", "remove", "Remove", show=False, id="remove"), "Remove", "Remove the selected items", (_ITEM, core(Op.RM))),
    # in the help; the footer keeps room for ? and q
    WriteKey(Binding("z", "undo", "Undo", show=False, id="undo"), "Undo", "Undo this session's last write", (something_to_undo,)),
    WriteKey(Binding("d", "dependencies", "Deps", id="dependencies"), None, rules=(_ITEM, _ONE, core(Op.SET_DEPENDENCIES))),
)  # fmt: skip

#: the actions that write: refused (dimmed, and saying why) in a read-only session
WRITE_ACTIONS = frozenset(k.binding.action for k in WRITE_KEYS)
_BY_ACTION = {k.binding.action: k for k in WRITE_KEYS}


def write_refusal(a: Asked) -> str | None:
    """Why the write key of `a.action` is refused now (None: it may be pressed, or it is no
    write key): its row's rules, in order."""
    key = _BY_ACTION.get(a.action)
    return None if key is None else next((why for rule in key.rules if (why := rule(a)) is not None), None)
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
