"""Every key does what the help says (issue 29's broken list): Enter opens the item, a remap
onto the `g` of `gg` is refused naming both, messages name the dashboard's keys for both
queues' commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import running
from support.tui_helpers import keys_of_pane, press, screen_text, settle

from atk_tui.domain.hints import for_dashboard
from atk_tui.tui.keymap import binding_ids, checked_keymap
from atk_tui.tui.widgets.detail import DepTree
from atk_tui.tui.widgets.item_list import ItemList


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_enter_on_a_row_opens_the_item(demo_store: Path, size: tuple[int, int]) -> None:
    async with running(demo_store, size) as (app, pilot):
        pane = app.main.focused
        assert isinstance(pane, ItemList) and pane.current_key
        await press(pilot, "enter")
        assert not isinstance(app.main.focused, ItemList)  # the detail (or the bottom preview) has it
        assert app.main.selected == pane.current_key
        await press(pilot, "h")
        assert app.main.focused is pane


@pytest.mark.parametrize(("keys", "named"), [
    ({"graph": "g"}, "First (g g)"),
    ({"hold": "G"}, "item_list.last"),
    ({"sort": "j"}, "Down"),
])  # fmt: skip
def test_a_remap_onto_a_list_key_or_the_g_prefix_is_refused(keys: dict[str, str], named: str) -> None:
    ok, errors = checked_keymap(keys, binding_ids())
    assert ok == {} and len(errors) == 1
    (bid,) = keys
    assert f"{bid} = {keys[bid]!r} clashes with" in errors[0] and named in errors[0]


def test_a_free_key_is_still_accepted() -> None:
    assert checked_keymap({"sort": "o"}, binding_ids()) == ({"sort": "o"}, [])


@pytest.mark.parametrize("queue", ["wi", "mq"])
def test_messages_name_the_dashboards_keys_for_both_queues(queue: str) -> None:
    keys = {"push": "P", "hold": "p", "unhold": "u", "remove": "x", "edit": "e", "answer": "a",
            "dependencies": "d", "conflicts": "C", "move": "m"}  # fmt: skip
    said = for_dashboard(
        f"refused: run `atk {queue} commit`; then `atk {queue} hold F`, `atk {queue} rm F`, `atk {queue} edit F --body-file X`",
        keys.__getitem__,
    )
    assert f"atk {queue}" not in said
    assert "press `P`" in said and "`p` (hold)" in said and "`x` (remove)" in said and "`e` (edit)" in said


async def test_colon_opens_the_palette_and_Y_copies_the_items_path(demo_store: Path) -> None:
    from textual.command import CommandPalette

    async with running(demo_store, (160, 48)) as (app, pilot):
        name = app.main.selected
        assert name
        await press(pilot, "Y")
        (path,) = demo_store.glob(f"wi/*/{name}")
        assert app.clipboard == str(path)
        await pilot.press("colon")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("escape")


def test_the_new_keys_are_in_the_help_and_free_of_clashes() -> None:
    assert {"palette", "copy_path"} <= binding_ids()
    assert checked_keymap({"copy_path": "Y", "palette": ":"}, binding_ids())[1] == []


@pytest.mark.parametrize(("key", "screen"), [
    ("question_mark", "HelpScreen"), ("H", "HistoryScreen"), ("S", "StuckScreen"), ("v", "GraphScreen"),
    ("L", "ItemLogScreen"), ("N", "NoticesScreen"),
])  # fmt: skip
async def test_q_backs_out_of_every_sub_screen_as_esc_does(demo_store: Path, key: str, screen: str) -> None:
    """`q` closes a dialog or a sub-screen the same way everywhere (it quit the app from the
    history, the graph and the item log); on the dashboard it quits."""
    from support.apps import wait_for_screen

    async with running(demo_store, (160, 48)) as (app, pilot):
        await pilot.press(key)
        await wait_for_screen(pilot, screen)
        await pilot.press("q")
        await wait_for_screen(pilot, "MainScreen")
        assert app.is_running
        await pilot.press("q")
        for _ in range(500):
            if not app.is_running:
                break
            await pilot.pause(0.01)
        assert not app.is_running


async def test_n_and_N_go_to_the_next_and_previous_match_after_a_filter(demo_store: Path) -> None:
    """Vim's `n` / `N` after `/`: every row the filter kept, pane after pane, round to the first;
    without a filter `n` is the needs-you pane and `N` the notices, as before."""
    async with running(demo_store, (160, 48)) as (app, pilot):
        main = app.main
        await press(pilot, "slash", *"session", "enter")
        kept = [(p.id, r.key) for p in main._pane_order() for r in p.rows]
        assert len({pane for pane, _ in kept}) >= 2, kept  # the matches span more than one pane
        start = (main.focused.id, main.focused.current_key)
        at = kept.index(start)
        seen = []
        for _ in kept:
            await press(pilot, "n")
            seen.append((main.focused.id, main.focused.current_key))
        assert seen == kept[at + 1 :] + kept[: at + 1]  # every match once, in order, round again
        await press(pilot, "N")
        assert (main.focused.id, main.focused.current_key) == kept[at - 1]
        await press(pilot, "escape")  # the filter goes: n is the needs-you pane again
        assert not main.filter_text
        await press(pilot, "n")
        assert main.focused.id == "needs"
        await press(pilot, "N")
        assert type(app.screen).__name__ == "NoticesScreen"


async def test_esc_backs_out_one_level_at_a_time(demo_store: Path) -> None:
    """The detail, then the marks, then the filter: one Esc each."""
    async with running(demo_store, (160, 48)) as (app, pilot):
        main = app.main
        await press(pilot, "slash", *"session", "enter", "space", "l")
        assert not isinstance(main.focused, ItemList) and main.marked() and main.filter_text
        await press(pilot, "escape")
        assert isinstance(main.focused, ItemList) and main.marked() and main.filter_text
        await press(pilot, "escape")
        assert not main.marked() and main.filter_text
        await press(pilot, "escape")
        assert not main.filter_text


# -- keys as vim, less and gh-dash users expect ------------------------------------------------
# Keys as people who live in vim, less, lazygit and gh-dash expect them (issue 15 item 1).


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
        hold_line = next(line for line in text.splitlines() if "Hold the selected" in line)
        assert " p " in hold_line
