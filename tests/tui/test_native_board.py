"""From the board (issue 15 item 8): `y` copies the filename; `/` takes structured tokens."""

from __future__ import annotations

from pathlib import Path

from tui_helpers import DEMO, build_app, keys_of_pane, press, screen_text, settle

SIZE = (120, 36)


async def test_y_copies_the_selected_filename(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        await press(pilot, "y")
        assert app.main.selected in keys_of_pane(app, "processing")
        assert app.clipboard == app.main.selected


async def test_structured_filter_tokens_with_fuzzy_text(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        await pilot.press(*"kind:uwi urgency:blocking")
        await settle(pilot)
        view = app.main.view
        shown = keys_of_pane(app, "inbox")
        assert shown and all(view.items[k].kind == "uwi" and view.items[k].urgency == "blocking" for k in shown)
        await pilot.press(*" session")
        await settle(pilot)
        assert keys_of_pane(app, "inbox") == [DEMO["chain-uwi"]]  # fuzzy text on top of the tokens
        for _ in " session urgency:blocking":
            await pilot.press("backspace")
        await pilot.press(*" is:ready")
        await settle(pilot)
        shown = keys_of_pane(app, "inbox")
        assert shown and all(view.judgements[k].ready and view.items[k].kind == "uwi" for k in shown)
        assert len(shown) < len([k for k in view.items.values() if k.kind == "uwi" and k.state == "inbox"])
        for _ in "is:ready":
            await pilot.press("backspace")
        await pilot.press(*"is:stuck")
        await settle(pilot)
        assert "is:stuck is not one of blocked, ready" in screen_text(app)


async def test_S_lists_stuck_work_and_enter_jumps_to_it(demo_store: Path, monkeypatch) -> None:
    from datetime import timedelta

    from atk_tui.core import stuck
    from atk_tui.core.stuck import stuck_items

    monkeypatch.setattr(stuck, "STUCK_AFTER", timedelta(days=1))  # the demo's oldest moves are a day old
    STUCK_AFTER = stuck.STUCK_AFTER

    app = build_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.main.view
        found = stuck_items(app.service, view)
        assert found, "the demo has work in processing for days"
        for s in found:
            assert s.since is None or view.now - s.since >= STUCK_AFTER
            assert s.state == "processing" or (s.state == "inbox" and view.judgements[s.filename].status == "answered")
        fresh = [k for k in keys_of_pane(app, "processing") if k not in {s.filename for s in found}]
        await press(pilot, "S")
        assert type(app.screen).__name__ == "StuckScreen"
        text = screen_text(app)
        assert found[0].title[:20] in text
        for name in fresh:
            assert name not in text
        await press(pilot, "enter")
        assert type(app.screen).__name__ != "StuckScreen"
        assert app.main.selected == found[0].filename
