"""Which question `a` and `A` act on, and which one the cursor goes to once it is answered: the
questions waiting (needs-you) in the queue the switch (Q) shows."""

from __future__ import annotations

from collections.abc import Callable

from atk_tui.domain.model import Item
from atk_tui.service import QueueView


def waiting(view: QueueView | None, shown_queue: str | None) -> list[str]:
    """The questions waiting, in the queue the switch shows (None: every queue)."""
    if view is None:
        return []
    return [n for n in view.needs_you if shown_queue is None or (n in view.items and view.items[n].queue == shown_queue)]


def answer_target(item: Item | None, view: QueueView | None, waiting: list[str]) -> Item | None:
    """The selected question (`item`), else the first one waiting."""
    if (item is None or not item.is_question) and waiting:
        item = view.items.get(waiting[0]) if view is not None else None
    return item


def next_question(waiting: list[str], after: str) -> str | None:
    """The question to select once `after` is answered: the next one waiting."""
    later = waiting[waiting.index(after) + 1 :] if after in waiting else []
    rest = [n for n in waiting if n != after]
    return later[0] if later else (rest[0] if rest else None)


def needs_texts(
    view: QueueView, shown_queue: str | None, shown: int, hidden: int, *, filtered: bool,
    key_for: Callable[[str], str], empty_store: str,
) -> tuple[str, str]:  # fmt: skip
    """The needs-you pane's text when it shows nothing, and its title: `shown` questions shown,
    `hidden` hidden by the filter, and those of the queues the switch (its key: `key_for`) leaves
    out, hidden too, never "nothing"."""
    switched = 0 if shown_queue is None else sum(1 for n in view.needs_you if n in view.items and view.items[n].queue != shown_queue)
    others = switch_note = ""
    if switched:
        others = ", ".join(sorted({view.items[n].queue for n in view.needs_you if n in view.items} - {shown_queue or ""}))
        switch_note = f"{switched} waiting in {others}, hidden by the queue switch ({key_for('queue')} shows every queue)"
    empty = (
        f"{hidden} waiting, hidden by the filter (Esc clears it)" + (f"; {switch_note}" if switched else "")
        if hidden
        else switch_note
        if switched
        else "Nothing needs you right now: no unanswered questions."
        if view.items
        else empty_store
    )
    title = f"Needs you {shown}/{shown + hidden}" if filtered else f"Needs you {shown}"
    if switched:
        title += f" · {switched} in {others} hidden"
    return empty, title
