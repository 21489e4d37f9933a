"""Stage 4b: items without any link, in a grid under the connected drawing.

A whole-queue graph of a store where most items depend on nothing stacked them in one column
hundreds of rows tall; they are laid out here in rows that fill the width instead, in id order
(a timestamped filename: oldest first), after (under) the connected components. Every box of
the grid has the same width, so its columns line up; `Layout.grid` lists them, and a grid box's
`layer` counts on after the layout's columns (`navigation` walks both the same way).
"""

from __future__ import annotations

from collections.abc import Sequence

#: the width the grid fills when the caller gives none and nothing else is drawn
DEFAULT_GRID_WIDTH = 120
GRID_GAP_X = 2  # blank cells between two boxes of a row
GRID_GAP_Y = 1  # blank rows between two rows of boxes, and above the grid


def place_grid(
    isolated: Sequence[int], box_w: Sequence[int], box_h: Sequence[int], *, top: int, width: int
) -> tuple[int, list[list[int]], dict[int, tuple[int, int]]]:
    """Lay `isolated` (element ids, in order) out in rows from row `top`, as many boxes a row as
    fit in `width` cells (at least one).

    Returns the width of one grid box (the widest of them), the grid's columns (element ids top
    to bottom) and each element's (x, y)."""
    if not isolated:
        return 0, [], {}
    cell_w = max(box_w[v] for v in isolated)
    row_h = max(box_h[v] for v in isolated) + GRID_GAP_Y
    per_row = max(1, (width + GRID_GAP_X) // (cell_w + GRID_GAP_X))
    per_row = min(per_row, len(isolated))
    columns: list[list[int]] = [[] for _ in range(per_row)]
    where: dict[int, tuple[int, int]] = {}
    for i, v in enumerate(isolated):
        row, col = divmod(i, per_row)
        columns[col].append(v)
        where[v] = (col * (cell_w + GRID_GAP_X), top + row * row_h)
    return cell_w, columns, where
