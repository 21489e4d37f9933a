"""A held arrow key (issue 43's speed goal): keys come faster than the detail pane follows; none
is lost and the pane ends on the last row reached; the help the next key opens is drawn from the
table rendered before it was asked for."""

from __future__ import annotations

from pathlib import Path

from gen_store import generate_store
from rich.table import Table
from support.apps import running, screen_text, settle

from atk_tui.tui.screens import help as help_mod
from atk_tui.tui.widgets.item_list import ItemList

PRESSES = 30


async def test_a_held_down_loses_no_key_and_the_detail_shows_the_last_row(tmp_path: Path) -> None:
    store = generate_store(tmp_path / "big", 120, 10, seed=3)
    async with running(store, (120, 36)) as (app, pilot):
        inbox = app.main.query_one("#inbox", ItemList)
        inbox.focus()
        await settle(pilot)
        start = inbox.cursor
        assert len(inbox.rows) > start + PRESSES
        await pilot.press(*["down"] * PRESSES)  # sent back to back, no settling between them
        await settle(pilot)
        assert inbox.cursor == start + PRESSES
        last = inbox.rows[start + PRESSES].key
        assert app.main.selected == last
        title = app.queue.items[last].title
        assert title[:40] in screen_text(app)


async def test_the_help_is_drawn_from_the_table_warmed_before_it(app_factory, monkeypatch) -> None:
    help_mod._RENDERED.clear()
    async with running(app_factory(), (120, 36)) as (app, pilot):
        assert help_mod._RENDERED, "the dashboard did not render the help's table once its rows were shown"
        renders = []
        table_console = Table.__rich_console__

        def counted(self, console, options):
            renders.append(options.max_width)
            return table_console(self, console, options)

        monkeypatch.setattr(Table, "__rich_console__", counted)
        await pilot.press("question_mark")
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"
        assert "Keys" in screen_text(app)
        assert renders == [], f"the help's table rendered again at widths {renders}"
