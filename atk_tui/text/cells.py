"""Text measured in terminal cells, not characters (CJK and emoji take two cells): the one
place both front ends cut and pad a cell of a table."""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size

__all__ = ["cell_len", "cut", "fit"]


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
