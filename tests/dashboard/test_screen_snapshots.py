"""Every screen at 80×24 and 160×48, in the dark and the light theme (issue 29): what a person
sees on a small terminal and a large one, nothing essential cut. Snapshots of the demo store
(pytest-textual-snapshot); the screens and how each is opened are `support.screens`'.

Update with `pytest tests/dashboard/test_screen_snapshots.py --snapshot-update` only after reading the
report."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import build_app, settle
from support.screens import SCREENS, prepared
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

SIZES = {"80x24": (80, 24), "160x48": (160, 48)}
THEMES = ("textual-dark", "textual-light")
SHOWN = [s for s in SCREENS if s != "filter"]  # (the filter is in test_snapshots.py)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("screen", SHOWN)
def test_screen(snap_compare, demo_store: Path, tmp_path: Path, screen: str, size: str, theme: str) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await SCREENS[screen](pilot)
        for field in (*pilot.app.screen.query(Input), *pilot.app.screen.query(TextArea)):
            field.cursor_blink = False  # a blinking cursor is a coin toss in a snapshot
        await settle(pilot)  # (a dialog's write waits on it: settle, not wait_for_complete)

    app = build_app(prepared(screen, demo_store, tmp_path), theme=theme)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
