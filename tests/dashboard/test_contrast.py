"""Every text on every screen reads at WCAG AA (4.5:1) in every built-in theme and with NO_COLOR
(issue 29).

Each screen is opened once, then the theme is switched live through every built-in theme: a
colour kept from the previous theme (a cached row, a style computed once) fails here as it
would on the user's screen. The ratios are computed from what the terminal is sent
(`support.contrast`: the screenshot's segments, each text against the background behind it).

`ansi-dark` and `ansi-light` are left out: they send the terminal's own sixteen colours, whose
values only the terminal knows (its palette decides what they look like).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from support.apps import build_app, settle
from support.contrast import AA, low_contrast
from support.screens import SCREENS, prepared
from textual.pilot import Pilot
from textual.theme import BUILTIN_THEMES

from atk_tui.tui.app import AtkApp

THEMES = [name for name, theme in BUILTIN_THEMES.items() if not theme.ansi]
SIZE = (120, 36)


async def measure(app: AtkApp, pilot: Pilot, opener: Callable[[Pilot], Awaitable[None]], themes: list[str]) -> dict[str, float]:
    """The screen opened, then each theme in turn (switched live): its lowest ratio. Fails
    naming the screen's texts under AA."""
    await settle(pilot)
    await opener(pilot)
    lowest: dict[str, float] = {}
    failures = []
    for theme in themes:
        app.theme = theme
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        low, bad = low_contrast(app)
        lowest[theme] = low
        failures += [f"{theme}: {p.text.strip()!r} {p.ratio:.2f}:1 ({p.fg} on {p.bg}, row {p.row})" for p in bad]
    assert not failures, f"{type(app.screen).__name__}: texts under {AA}:1\n" + "\n".join(failures[:40])
    return lowest


@pytest.mark.parametrize("screen", list(SCREENS))
async def test_every_text_reads_in_every_theme(screen: str, demo_store: Path, tmp_path: Path) -> None:
    app = build_app(prepared(screen, demo_store, tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await measure(app, pilot, SCREENS[screen], THEMES)


@pytest.mark.parametrize("screen", list(SCREENS))
async def test_every_text_reads_with_no_color(screen: str, demo_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """NO_COLOR (Textual draws every colour as its grey): headings and badges were 1.5:1."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = build_app(prepared(screen, demo_store, tmp_path))
    assert app.no_color
    async with app.run_test(size=SIZE) as pilot:
        await measure(app, pilot, SCREENS[screen], ["textual-dark", "textual-light"])
