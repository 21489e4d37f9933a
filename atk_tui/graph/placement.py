"""Stage 4: rows, by an ordered L1 fit of each column to its neighbours' ports."""

from __future__ import annotations

import math

from atk_tui.graph.model import _MEDIAN_LIMIT, _ONE_SIDED_ROUND_LIMIT, _W_D, _W_DD, _W_RR, _W_STAY

# --------------------------------------------------------------------------------------------
# vertical placement


def _l1_place(layer: list[int], offsets: list[int], points: list[list[int]], y: list[int]) -> None:
    """Place one column: minimise sum(|y - p|) over each element's wanted rows `points` (already
    less the element's packed offset; a row repeated stands for a weight), subject to the
    column's order and spacing (`offsets` are the packed positions).

    Pool-adjacent-violators with medians: an element lines up exactly with one neighbour (a
    straight edge) instead of averaging between two (two bent edges). A block is a sorted list,
    so a merge is one C-level sort of two sorted runs.
    """
    blocks: list[tuple[list[int], int, int]] = []  # (sorted rows, lower median, element count)
    for rows in points:
        rows.sort()
        median = rows[(len(rows) - 1) // 2]
        count = 1
        while blocks and blocks[-1][1] > median:
            prev_rows, _m, prev_count = blocks.pop()
            prev_rows += rows
            prev_rows.sort()
            rows = prev_rows
            median = rows[(len(rows) - 1) // 2]
            count += prev_count
        blocks.append((rows, median, count))
    i = 0
    for _rows, value, count in blocks:
        for _ in range(count):
            y[layer[i]] = value + offsets[i]
            i += 1


def _l2_place(layer: list[int], offsets: list[int], points: list[list[int]], y: list[int]) -> None:
    """`_l1_place` with means instead of medians: O(1) merges, for columns too big for medians
    (least squares averages between neighbours, so it bends more)."""
    blocks: list[tuple[float, int, int]] = []  # (sum of rows, number of rows, element count)
    for rows in points:
        total, size, count = float(sum(rows)), len(rows), 1
        while blocks and blocks[-1][0] * size > total * blocks[-1][1]:  # previous mean > this mean
            prev_total, prev_size, prev_count = blocks.pop()
            total, size, count = total + prev_total, size + prev_size, count + prev_count
        blocks.append((total, size, count))
    i = 0
    for total, size, count in blocks:
        value = math.floor(total / size + 0.5)
        for _ in range(count):
            y[layer[i]] = value + offsets[i]
            i += 1


def _assign_rows(
    layers: list[list[int]],
    pred: list[list[int]],
    succ: list[list[int]],
    extent: list[int],
    port: list[int],
    dummy: list[bool],
) -> list[int]:
    """Top rows of every element: one round pulling each column towards its predecessors then
    one towards its successors, then a balanced round both ways (measured on random queues:
    fewer bends than more rounds, or than averaging, which bends both edges of a node). Above
    `_ONE_SIDED_ROUND_LIMIT` elements only the balanced round runs, above `_MEDIAN_LIMIT` with
    means instead of medians."""
    n = len(extent)
    y = [0] * n
    offsets: list[list[int]] = []
    for layer in layers:
        offs = []
        cur = 0
        for i, v in enumerate(layer):
            offs.append(cur)
            y[v] = cur
            if i + 1 < len(layer):
                cur += extent[v] + (0 if dummy[v] and dummy[layer[i + 1]] else 1)
        offsets.append(offs)

    def wanted(nbrs: list[list[int]]) -> list[list[tuple[int, int, int]]]:
        # (neighbour, port difference, weight), weights like dot's: 1 between real nodes,
        # 2 with a dummy, 8 between dummies (long edges stay straight)
        out = []
        for v in range(n):
            dv, pv = dummy[v], port[v]
            out.append(
                [(w, port[w] - pv, _W_DD if dv and dummy[w] else _W_D if dv or dummy[w] else _W_RR) for w in nbrs[v]]
            )
        return out

    from_pred = wanted(pred)
    from_succ = wanted(succ)
    from_both = [a + b for a, b in zip(from_pred, from_succ, strict=True)]

    def place(li: int, rep: list[list[tuple[int, int, int]]]) -> None:
        layer = layers[li]
        offs = offsets[li]
        points = []
        for i, v in enumerate(layer):
            off = offs[i]
            rows = [y[v] - off] * _W_STAY  # the wish to stay put, for a side without neighbours
            if rep[v]:
                rows = []
                for w, k, c in rep[v]:
                    rows += [y[w] + k - off] * c
            points.append(rows)
        solve(layer, offs, points, y)

    # medians are exact but a merge re-sorts a block: quadratic when a tall column packs solid
    solve = _l1_place if n <= _MEDIAN_LIMIT else _l2_place
    nl = len(layers)
    if n <= _ONE_SIDED_ROUND_LIMIT:
        for li in range(1, nl):
            place(li, from_pred)
        for li in range(nl - 2, -1, -1):
            place(li, from_succ)
    for li in range(nl):
        place(li, from_both)
    for li in range(nl - 1, -1, -1):
        place(li, from_both)
    if n:
        top = min(y)
        if top:
            y = [v - top for v in y]
    return y


