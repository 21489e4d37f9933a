"""Focus (issue 43): only the focused pane looks focused (the needs-you strip too), Tab goes
through the panes in the order they stand on the screen, and under NO_COLOR (every colour a
grey) the focused pane is still told apart: its frame is heavy."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import running, settle

from atk_tui.tui.widgets.item_list import ItemList

LISTS = ("needs", "inbox", "processing", "hold")


def frames(app) -> dict[str, tuple[str, object]]:
    """Each pane's frame: (its type, its colour)."""
    out = {}
    for pane in (*LISTS, "detail"):
        kind, color = app.main.query_one(f"#{pane}").styles.border_top
        out[pane] = (kind, color)
    return out


def focused_pane(app) -> str:
    focused = app.main.focused
    detail = app.main.query_one("#detail")
    if focused is detail or detail in focused.ancestors:
        return "detail"
    assert isinstance(focused, ItemList)
    return str(focused.id)


async def test_only_the_focused_pane_looks_focused(demo_store: Path) -> None:
    async with running(demo_store, (120, 36)) as (app, pilot):
        for pane in ("inbox", "needs", "hold"):
            app.main.action_focus_pane(pane)
            await settle(pilot)
            shown = frames(app)
            assert len({shown[p] for p in shown if p != pane} | {shown[pane]}) == 2, shown
            others = {shown[p] for p in shown if p != pane}
            assert shown[pane] not in others, (pane, shown)  # the needs-you strip too: never two focused


async def test_tab_follows_the_panes_on_the_screen(demo_store: Path) -> None:
    async with running(demo_store, (120, 36)) as (app, pilot):
        app.main.action_focus_pane("needs")
        await settle(pilot)
        seen = [focused_pane(app)]
        for _ in range(5):
            await pilot.press("tab")
            await settle(pilot)
            seen.append(focused_pane(app))
        assert seen == ["needs", "inbox", "processing", "hold", "detail", "needs"]
        back = []
        for _ in range(5):
            await pilot.press("shift+tab")
            await settle(pilot)
            back.append(focused_pane(app))
        assert back == ["detail", "hold", "processing", "inbox", "needs"]


async def test_no_color_draws_the_focused_frame_heavy(demo_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    async with running(demo_store, (120, 36)) as (app, pilot):
        for pane in ("inbox", "needs", "detail"):
            if pane == "detail":
                await pilot.press("l")
            else:
                app.main.action_focus_pane(pane)
            await settle(pilot)
            kinds = {p: kind for p, (kind, _) in frames(app).items()}
            assert kinds[pane] == "heavy", (pane, kinds)
            assert all(kind == "round" for p, kind in kinds.items() if p != pane), kinds
