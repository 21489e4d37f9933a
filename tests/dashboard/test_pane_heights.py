"""The lists share their column's height by what they hold (issue 43), at every size: a pane
with few rows keeps few lines, a long inbox gets the rest, no list scrolls while another
stands empty, and the selected row is always in view."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import build_app, running, settle
from support.storekit import AWI_BODY, git

from atk_tui.service import Service
from atk_tui.store import init_store
from atk_tui.tui.widgets.item_list import ItemList
from atk_tui.tui.widgets.panes_column import shared_heights

SIZES = [(80, 24), (100, 30), (120, 36), (200, 60)]


def test_shared_heights_gives_the_room_by_need() -> None:
    assert shared_heights([32, 5, 3], [4, 4, 3], 30) == [22, 5, 3]
    assert shared_heights([10, 5, 3], [4, 4, 3], 30) == [22, 5, 3]  # the spare goes to the first
    assert shared_heights([40, 40, 3], [4, 4, 3], 30) == [14, 13, 3]
    assert sum(shared_heights([100, 50, 20], [4, 4, 4], 33)) == 33


def long_inbox(tmp_path: Path, inbox: int = 30, processing: int = 2, hold: int = 1) -> Path:
    """A store with `inbox` + `processing` + `hold` work items (copies of one, in one commit)."""
    root, _ = init_store(tmp_path / "notes")
    out = Service(root, actor="agent").writes.add(kind="awi", target_repo="acme/webapp", body=AWI_BODY, source="test")
    assert out.ok, out.message
    (first,) = root.glob(f"wi/inbox/{out.files[0]}")
    text = first.read_text(encoding="utf-8")
    first.unlink()
    n = 0
    for state, count in (("inbox", inbox), ("processing", processing), ("hold", hold)):
        for _ in range(count):
            n += 1
            path = root / "wi" / state / f"20261101-{n:06d}-item-{n}.md"
            path.write_text(text.replace("# Use one email validator everywhere", f"# Item number {n}"), encoding="utf-8")
    git(root, "add", "-A", "wi")
    git(root, "commit", "-q", "-m", "test: items")
    return root


def panes(app) -> list[ItemList]:
    return [app.main.query_one(f"#{p}", ItemList) for p in ("inbox", "processing", "hold")]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_lists_share_the_height_by_what_they_hold(tmp_path: Path, size: tuple[int, int]) -> None:
    root = long_inbox(tmp_path)
    async with running(build_app(root), size) as (app, pilot):
        inbox, processing, hold = panes(app)
        if size[0] < 100:  # the bottom preview: the focused pane expanded, the others a title line
            assert inbox.size.height > processing.size.height
        else:
            # the short panes show every row and no more than a line spare; the inbox gets the rest
            for lst in (processing, hold):
                assert lst.size.height - lst.header == len(lst.rows), (lst.id, lst.size)
            column = app.main.query_one("#panes")
            assert sum(lst.outer_size.height for lst in (inbox, processing, hold)) == column.size.height
            # the inbox has the rest: every row when they fit, else all the room there is
            shown = inbox.size.height - inbox.header
            assert shown >= min(len(inbox.rows), column.size.height - (len(processing.rows) + 3) - (len(hold.rows) + 2) - 3)
        # the selected row is in view after every move, at once
        for key in ["end", "home", *["down"] * 12, "pagedown"]:
            await pilot.press(key)
            top = int(inbox.scroll_offset.y)
            assert top <= inbox.cursor < top + inbox.size.height - inbox.header, (key, inbox.cursor, top, inbox.size)
        await settle(pilot)


async def test_a_resize_keeps_the_selected_row_in_view(tmp_path: Path) -> None:
    root = long_inbox(tmp_path, inbox=40)
    async with running(build_app(root), (200, 60)) as (app, pilot):
        inbox = panes(app)[0]
        await pilot.press("end")
        await settle(pilot)
        await pilot.resize_terminal(120, 24)
        await settle(pilot)
        top = int(inbox.scroll_offset.y)
        assert top <= inbox.cursor < top + inbox.size.height - inbox.header, (inbox.cursor, top, inbox.size)
