"""Keys as people who live in vim, less, lazygit and gh-dash expect them (issue 15 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import running
from support.tui_helpers import keys_of_pane, press, screen_text, settle

from atk_tui.tui.widgets.detail import DepTree
from atk_tui.tui.widgets.item_list import ItemList

SIZE = (120, 36)


def pane(app, name: str = "inbox") -> ItemList:
    return app.main.query_one(f"#{name}", ItemList)


async def test_G_and_End_go_to_the_last_row_g_g_and_Home_to_the_first(demo_store: Path) -> None:
    async with running(demo_store, SIZE) as (app, pilot):
        await press(pilot, "1")
        lst = pane(app)
        last = len(keys_of_pane(app, "inbox")) - 1
        assert last > 3
        await press(pilot, "G")
        assert lst.cursor == last
        await press(pilot, "g", "g")
        assert lst.cursor == 0
        await press(pilot, "end")
        assert lst.cursor == last
        await press(pilot, "home")
        assert lst.cursor == 0
        await press(pilot, "j", "j", "g")
        assert lst.cursor == 2  # one `g` arms, nothing moves
        await press(pilot, "k", "g")
        assert lst.cursor == 1  # `g k g`: the k disarmed the first g
        await press(pilot, "g")
        assert lst.cursor == 0


async def test_ctrl_d_and_ctrl_u_move_half_a_page(demo_store: Path) -> None:
    async with running(demo_store, SIZE) as (app, pilot):
        await press(pilot, "1")
        lst = pane(app)
        half = max((lst.size.height - lst.header) // 2, 1)
        assert len(lst.rows) > half
        await press(pilot, "ctrl+d")
        assert lst.cursor == min(half, len(lst.rows) - 1)
        await press(pilot, "ctrl+u")
        assert lst.cursor == 0


async def test_l_enters_the_detail_and_h_comes_back_to_the_same_pane(demo_store: Path) -> None:
    async with running(demo_store, SIZE) as (app, pilot):
        await press(pilot, "2")
        before = app.main.selected
        await press(pilot, "l")
        assert isinstance(app.main.focused, DepTree)
        await press(pilot, "h")
        assert app.main.focused is pane(app, "processing")
        assert app.main.selected == before  # h moved focus back; it did not hold anything
        assert before in keys_of_pane(app, "processing")
        await press(pilot, "right")
        assert isinstance(app.main.focused, DepTree)
        await press(pilot, "left")
        assert app.main.focused is pane(app, "processing")


async def test_p_holds_and_v_opens_the_graph(demo_store: Path) -> None:
    async with running(demo_store, SIZE) as (app, pilot):
        await press(pilot, "1")
        target = app.main.selected
        await press(pilot, "p")
        assert target in keys_of_pane(app, "hold")
        await press(pilot, "v")
        assert type(app.screen).__name__ == "GraphScreen"


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 48)])
async def test_help_and_quit_are_always_in_the_footer(demo_store: Path, size: tuple[int, int]) -> None:
    async with running(demo_store, size) as (app, pilot):
        footer = screen_text(app).splitlines()[-1]
        assert "? Help" in footer and "q Quit" in footer, footer
        await press(pilot, "question_mark")
        assert type(app.screen).__name__ == "HelpScreen"


async def test_a_click_on_pinned_help_opens_it(demo_store: Path) -> None:
    async with running(demo_store, (80, 24)) as (app, pilot):
        footer = screen_text(app).splitlines()[-1]
        x = footer.index("? Help") + 1
        await pilot.click(offset=(x, 23))
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"


async def test_the_help_screen_prints_binding_ids_for_remapping(demo_store: Path) -> None:
    # tall enough for the whole list (it scrolls on a smaller terminal)
    async with running(demo_store, (160, 80)) as (app, pilot):
        await press(pilot, "question_mark")
        text = screen_text(app)
        for bid in ("hold", "history", "graph", "push", "quit", "help"):
            assert f" {bid} " in text or text.rstrip().endswith(bid) or f" {bid}\n" in text, bid
        hold_line = next(line for line in text.splitlines() if "Hold" in line and "hold" in line.split("Hold", 1)[1])
        assert " p " in hold_line
