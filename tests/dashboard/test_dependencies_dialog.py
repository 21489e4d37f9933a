"""The dependencies dialog (`d`) with nothing found (issue 43): its empty result looked like a
second search box. With nothing typed there is no results box; with no match the box is titled
and says what matched nothing."""

from __future__ import annotations

from support.actions_support import Demo, dashboard, press_all
from support.apps import screen_text, wait_for_screen
from textual.widgets import OptionList


async def test_the_empty_result_is_not_a_second_search_box(demo: Demo) -> None:
    async with dashboard(demo, demo["hand-svg-logo"]) as (app, pilot):
        await press_all(pilot, "d")
        await wait_for_screen(pilot, "DependenciesScreen")
        results = app.screen.query_one("#deps-results", OptionList)
        assert not results.display  # nothing typed: no box under the search box
        await press_all(pilot, *"zzqx")
        assert results.display
        assert str(results.border_title) == "Matches: none"
        assert "no item matches 'zzqx'" in screen_text(app)
        await press_all(pilot, "ctrl+a", "ctrl+k", *"logo")
        assert str(results.border_title).startswith("Matches: ")
        assert results.option_count >= 1
        await press_all(pilot, "escape")
    assert demo.written() == []
