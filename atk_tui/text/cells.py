"""Text measured in terminal cells, not characters (CJK and emoji take two cells): the one
place both front ends cut and pad a cell of a table."""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size

__all__ = ["cell_len", "cut", "cut_middle", "fit"]


def cut(text: str, width: int, ellipsis: str = "…") -> str:
    """`text` in at most `width` cells: cut with an ellipsis when longer (a wide character
    is never split: one that would straddle the edge is left out)."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    room = width - cell_len(ellipsis)
    used, end = 0, 0
    for end, ch in enumerate(text):  # noqa: B007
        size = get_character_cell_size(ch)
        if used + size > room:
            break
        used += size
    return text[:end] + ellipsis


def fit(text: str, width: int, ellipsis: str = "…") -> str:
    """`text` in exactly `width` cells: cut as `cut`, then padded with spaces."""
    text = cut(text, width, ellipsis)
    return text + " " * max(width - cell_len(text), 0)


def cut_middle(text: str, width: int, ellipsis: str = "…") -> str:
    """`text` in at most `width` cells, cut in the middle when longer: both ends stay, which is
    what tells two filenames or two repos apart (`20261126-0657…-default.md`, `acme/…-service`)."""
    if cell_len(text) <= width:
        return text
    if width <= cell_len(ellipsis) + 1:
        return cut(text, width, ellipsis)
    room = width - cell_len(ellipsis)
    head_room = (room + 1) // 2
    head = cut(text, head_room, ellipsis="")
    tail, used = "", 0
    for ch in reversed(text):
        size = get_character_cell_size(ch)
        if used + size > room - cell_len(head):
            break
        tail, used = ch + tail, used + size
    return head + ellipsis + tail
