"""The triage screen's column of lists (inbox, processing, hold): as its height changes, the
lists share it again by what they hold (`shared_heights`)."""

from __future__ import annotations

from collections.abc import Callable

from textual.containers import Vertical


class PanesColumn(Vertical):
    """The lists' column: `resized` (the screen's `share_heights`) runs on every resize."""

    def __init__(self, *, resized: Callable[[], None], id: str | None = None) -> None:
        super().__init__(id=id)
        self._resized = resized

    def on_resize(self) -> None:
        self._resized()


def shared_heights(needs: list[int], least: list[int], room: int, spare_to: int = 0) -> list[int]:
    """Heights for lists that need `needs` lines (rows, header, frame) in `room` lines: each
    gets at least `least` (its frame and a line), then the room is shared evenly among the
    lists that want more, none given more than it needs; what is left over goes to list
    `spare_to`. A list with few rows keeps few lines, and a long one gets the rest (issue 43:
    fixed heights hid inbox rows while the other panes stood empty)."""
    got = [min(n, m) for n, m in zip(needs, least, strict=True)]
    left = room - sum(got)
    while left > 0:
        wanting = [i for i, n in enumerate(needs) if got[i] < n]
        if not wanting:
            got[spare_to] += left
            break
        share = max(left // len(wanting), 1)
        for i in wanting:
            give = min(share, needs[i] - got[i], left)
            got[i] += give
            left -= give
            if left <= 0:
                break
    return got
