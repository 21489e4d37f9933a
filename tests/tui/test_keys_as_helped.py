"""Every key does what the help says (issue 29's broken list): Enter opens the item, a remap
onto the `g` of `gg` is refused naming both, messages name the dashboard's keys for both
queues' commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import running
from support.tui_helpers import press

from atk_tui.domain.hints import for_dashboard
from atk_tui.tui.keymap import binding_ids, checked_keymap
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
