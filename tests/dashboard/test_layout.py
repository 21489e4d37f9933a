"""Layout (issue 15 items 2 and 3): column headers, cells measured in display width (CJK),
the needs-you strip sized to its rows, the detail in place of the lists on a narrow terminal (with
the bottom preview off), urgent states readable without colour."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from rich.cells import cell_len
from support.apps import running
from support.clock import NOW
from support.storekit import Clock, add_item
from support.tui_helpers import build_app, press, screen_text, settle

from atk_tui.domain.readiness import Judgement
from atk_tui.service import Service
from atk_tui.tui.config import TuiConfig
from atk_tui.tui.display import present
from atk_tui.tui.widgets.detail import DepTree
from atk_tui.tui.widgets.item_list import ItemList


async def test_column_headers_and_cjk_rows_line_up_by_cells(demo_store: Path) -> None:
    async with running(demo_store) as (app, _pilot):
        lines = screen_text(app).splitlines()
        needs = app.main.query_one("#needs", ItemList)
        top = needs.region.y + 1
        header = lines[top]
        assert "urgency" in header and "title" in header and "repo" in header
        repo_at = cell_len(header[: header.index("repo")])
        rows = lines[top + 1 : top + 1 + len(needs.rows)]
        assert any(any(ord(ch) > 0x3000 for ch in r) for r in rows)  # the demo has Japanese titles
        for r in rows:
            # the repo column starts at the same cell on every row, CJK title or not
            assert r[: len(r)].find("acme/") >= 0, r
            assert cell_len(r[: r.index("acme/")]) == repo_at, (r, repo_at)


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 48)])
async def test_the_needs_you_strip_shows_every_question(demo_store: Path, size: tuple[int, int]) -> None:
    async with running(demo_store, size) as (app, _pilot):
        needs = app.main.query_one("#needs", ItemList)
        assert len(needs.rows) == 6
        if size[1] >= 32:  # no row hidden, none empty
            assert needs.content_region.height == len(needs.rows) + needs.header
        else:  # a short terminal (issue 29): three rows (it scrolls; its title counts them all)
            assert needs.content_region.height == 3 + needs.header
            assert "Needs you 6" in str(needs.border_title)


async def test_with_the_bottom_preview_off_the_detail_takes_the_lists_place(demo_store: Path) -> None:
    """`[tui] narrow_preview = "off"` (the bottom preview is tests/dashboard/test_narrow.py's)."""
    async with running(build_app(demo_store, config=TuiConfig(narrow_preview="off")), (80, 24)) as (app, pilot):
        detail = app.main.query_one("#detail")
        panes = app.main.query_one("#panes")
        assert not detail.display or detail.region.width == 0
        assert panes.region.width == 80
        await press(pilot, "l")
        assert isinstance(app.main.focused, DepTree)
        assert detail.region.width == 80 and panes.region.width == 0
        name = app.main.selected
        assert f"file {name}" in screen_text(app)  # a filename whole, not broken mid-word
        await press(pilot, "h")
        assert panes.region.width == 80
        assert app.main.focused is app.main.query_one("#inbox", ItemList)


async def test_at_100_columns_list_and_detail_stand_side_by_side(demo_store: Path) -> None:
    async with running(demo_store, (100, 30)) as (app, _pilot):
        detail = app.main.query_one("#detail")
        panes = app.main.query_one("#panes")
        assert detail.region.width > 30 and panes.region.width > 50


async def test_no_color_draws_urgent_states_reversed(demo_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    async with running(demo_store) as (app, pilot):
        inbox = app.main.query_one("#inbox", ItemList)
        inbox.blur()
        await settle(pilot)
        strip = inbox.render_line(inbox.header + 1)  # the second row: not under the cursor
        styles = {seg.text.strip(): seg.style for seg in strip if seg.text.strip()}
        urgent = next(s for t, s in styles.items() if "needs answer" in t)
        assert urgent is not None and urgent.reverse and urgent.bold
    monkeypatch.delenv("NO_COLOR")
    async with running(demo_store) as (plain, pilot):
        inbox = plain.main.query_one("#inbox", ItemList)
        strip = inbox.render_line(inbox.header + 1)
        styles = {seg.text.strip(): seg.style for seg in strip if seg.text.strip()}
        coloured = next(s for t, s in styles.items() if "needs answer" in t)
        assert not coloured.reverse and coloured.color is not None


async def test_ascii_glyphs_replace_every_status_mark(demo_store: Path) -> None:
    async with running(build_app(demo_store, config=TuiConfig(glyphs="ascii"))) as (app, _pilot):
        text = screen_text(app)
        assert "+ ready" in text and "= hold" in text and "? needs answer" in text
        for glyph in "✓✗‖■⚠◐⧗":
            assert glyph not in text
    async with running(demo_store) as (again, _pilot):  # the next app with the default set
        assert "✓ ready" in screen_text(again)


# -- ages and cooldown badges ------------------------------------------------------------------
# Issue 17 on the dashboard, through the core wording (core/ages): a just-created item is
# `created … (just now)`, never `(now ago)`; a cooldown badge shows the time left, uncut in its
# column, with either glyph set.


@pytest.mark.parametrize("glyphs", ["unicode", "ascii"])
@pytest.mark.parametrize("left", [timedelta(minutes=5), timedelta(hours=2, minutes=10), timedelta(days=12, hours=23)])
def test_the_cooldown_badge_shows_the_time_left_within_its_column(glyphs: str, left: timedelta) -> None:
    badge_width = next(c.width for c in present.PANE_COLUMNS if c.key == "badge")
    present.use_glyphs(glyphs)
    try:
        shown = present.badge(Judgement("cooldown", cooldown_until=NOW + left), NOW).plain
    finally:
        present.use_glyphs("unicode")
    assert shown.startswith(present.GLYPH_SETS[glyphs]["cooldown"] + " ")
    assert shown.endswith(" left") and any(ch.isdigit() for ch in shown), shown
    assert cell_len(shown) <= badge_width, shown  # nothing cut with `…`


async def test_a_just_created_item_is_created_just_now(store: Path) -> None:
    svc = Service(store, clock=Clock(NOW), actor="user")
    add_item(svc)
    add_item(svc, cooldown_until=NOW + timedelta(hours=2, minutes=10))
    app = build_app(store)  # its clock: NOW, the items' creation
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        shown = screen_text(app)
    assert "created just now (" in shown and "now ago" not in shown, shown  # relative, then the absolute
    assert "2h10m left" in shown, shown
