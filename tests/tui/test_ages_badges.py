"""Issue 17 on the dashboard, through the core wording (core/ages): a just-created item is
`created … (just now)`, never `(now ago)`; a cooldown badge shows the time left, uncut in its
column, with either glyph set."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from support.apps import build_app, screen_text, settle
from support.clock import NOW
from support.storekit import Clock, add_item

from atk_tui.domain.readiness import Judgement
from atk_tui.service import Service
from atk_tui.text.cells import cell_len
from atk_tui.tui import present


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
