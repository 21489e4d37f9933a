"""Moving around a drawn layout: the node under a cell, neighbours along edges, the nearest node in a direction."""

from __future__ import annotations

from collections.abc import Iterable

from .model import Layout

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


def neighbors(layout: Layout, node_id: str) -> dict[str, list[str]]:
    """Graph and column neighbours of a node.

    `deps` (its dependencies) and `dependents`, ordered left to right then top to bottom;
    `up` and `down`, the other nodes of its column, nearest first. Self-loops are left out.
    """
    box = layout.nodes[node_id]
    column = layout.layers[box.layer]
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
    that side. Up/down go to the next node in the same column. None when there is nowhere to go.
    """
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction must be one of {_DIRECTIONS}, not {direction!r}")
    boxes = layout.nodes
    box = boxes[node_id]
    if direction in ("up", "down"):
        near = neighbors(layout, node_id)[direction]
        return near[0] if near else None

    sign = -1 if direction == "left" else 1

    def key(other: str) -> tuple[int, int, int, str]:
        ob = boxes[other]
        return ((ob.layer - box.layer) * sign, abs(ob.port_row - box.port_row), ob.order, other)

    linked = set(layout.deps.get(node_id, ())) | set(layout.dependents.get(node_id, ()))
    on_side = [o for o in linked if (boxes[o].layer - box.layer) * sign > 0]
    if on_side:
        return min(on_side, key=key)
    layer = box.layer + sign
    while 0 <= layer < len(layout.layers):
        if layout.layers[layer]:
            return min(layout.layers[layer], key=key)
        layer += sign
    return None
