"""Moving around a drawn layout: the node under a cell, neighbours along edges, the nearest node in a direction."""

from __future__ import annotations

from collections.abc import Iterable

from atk_tui.graph.model import Layout

# --------------------------------------------------------------------------------------------
# navigation


def node_at(layout: Layout, x: int, y: int) -> str | None:
    """The id of the box covering cell (x, y), if any."""
    for node_id, box in layout.nodes.items():
        if box.contains(x, y):
            return node_id
    return None


def _by_position(layout: Layout, ids: Iterable[str]) -> list[str]:
    boxes = layout.nodes
    return sorted(set(ids), key=lambda i: (boxes[i].layer, boxes[i].y, i))


def _column(layout: Layout, layer: int) -> tuple[str, ...]:
    """The ids of a column, top to bottom: one of the layout's, or (after them) of its grid."""
    n = len(layout.layers)
    return layout.layers[layer] if layer < n else layout.grid[layer - n]


def neighbors(layout: Layout, node_id: str) -> dict[str, list[str]]:
    """Graph and column neighbours of a node.

    `deps` (its dependencies) and `dependents`, ordered left to right then top to bottom;
    `up` and `down`, the other nodes of its column, nearest first. Self-loops are left out.
    """
    box = layout.nodes[node_id]
    column = _column(layout, box.layer)
    at = column.index(node_id)
    return {
        "deps": _by_position(layout, (d for d in layout.deps.get(node_id, ()) if d != node_id)),
        "dependents": _by_position(layout, (d for d in layout.dependents.get(node_id, ()) if d != node_id)),
        "up": list(reversed(column[:at])),
        "down": list(column[at + 1 :]),
    }


_DIRECTIONS = ("left", "right", "up", "down")


def nearest_in_direction(layout: Layout, node_id: str, direction: str) -> str | None:
    """Where a cursor on `node_id` goes for an arrow key (`left`, `right`, `up`, `down`).

    Left/right follow edges first: the edge neighbour (dependency or dependent) in the nearest
    column on that side, closest in rows; with none, the closest box in the nearest column on
    that side. Up/down go to the next node in the same column; past the foot of a column, down
    goes into the grid of items without links (the nearest of its first row), and up from the
    grid's first row back to the foot of the nearest column above. Left/right inside the grid
    stay in the grid (the next box of its row). None when there is nowhere to go.
    """
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction must be one of {_DIRECTIONS}, not {direction!r}")
    boxes = layout.nodes
    box = boxes[node_id]
    grid_start = len(layout.layers)
    in_grid = box.layer >= grid_start
    if direction in ("up", "down"):
        near = neighbors(layout, node_id)[direction]
        if near:
            return near[0]
        if direction == "down" and not in_grid:
            across = [col[0] for col in layout.grid if col]
        elif direction == "up" and in_grid:
            across = [col[-1] for col in layout.layers if col]
        else:
            return None
        mid = box.x + box.w // 2
        return min(across, key=lambda o: (abs(boxes[o].x + boxes[o].w // 2 - mid), boxes[o].x, o), default=None)

    sign = -1 if direction == "left" else 1

    def key(other: str) -> tuple[int, int, int, str]:
        ob = boxes[other]
        return ((ob.layer - box.layer) * sign, abs(ob.port_row - box.port_row), ob.order, other)

    linked = set(layout.deps.get(node_id, ())) | set(layout.dependents.get(node_id, ()))
    on_side = [o for o in linked if (boxes[o].layer - box.layer) * sign > 0]
    if on_side:
        return min(on_side, key=key)
    layer = box.layer + sign
    lo, hi = (grid_start, grid_start + len(layout.grid)) if in_grid else (0, grid_start)
    while lo <= layer < hi:
        column = _column(layout, layer)
        if column:
            return min(column, key=key)
        layer += sign
    return None
