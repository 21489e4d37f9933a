"""What an item list shows, as data (`Column`, `Row`): made by `tui.display.present` and the screens,
drawn by `widgets.item_list.ItemList`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    width: int  # 0 = takes the remaining width
    min_width: int = 8  # for the flexible column: below this, columns with `drop` > 0 are hidden
    drop: int = 0  # 0 = always shown; otherwise hidden on narrow panes, the highest first
    label: str = ""  # the column header ("" : the key)
    middle: bool = False  # cut in the middle, not at the end (a repo, a filename: both ends tell)


class Row:
    """One row: its key and its cells. The cells may be given, or made by `make` the first time
    the row is drawn: a pane of 10,000 items builds 10,000 cheap rows and renders only the
    few dozen that are visible."""

    __slots__ = ("_cells", "_make", "key")

    def __init__(self, key: str, cells: tuple[Text, ...] | None = None, *, make: Callable[[], tuple[Text, ...]] | None = None) -> None:
        if cells is None and make is None:
            raise ValueError("a Row needs cells or a way to make them")
        self.key = key
        self._cells = cells
        self._make = make

    @property
    def cells(self) -> tuple[Text, ...]:
        if self._cells is None:
            assert self._make is not None
            self._cells = self._make()
            self._make = None
        return self._cells

    def __repr__(self) -> str:
        return f"Row({self.key!r})"
