"""Every screen of the dashboard, and how a person opens it (the contrast test and the
per-screen snapshots walk the same list)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

from atk_tui.demo import demo_filenames
from atk_tui.tui.app import AtkApp
from support.actions_support import Demo, set_aside
from support.apps import DEMO, settle, wait_for_screen
from support.clock import NOW


async def _keys(pilot: Pilot, *keys: str, screen: str | None = None, jump: str | None = None) -> None:
    app = pilot.app
    assert isinstance(app, AtkApp)
    if jump:
        assert app.main.jump_to(DEMO[jump])
        await settle(pilot)
    for key in keys:
        await pilot.press(key)
    if screen:
        await wait_for_screen(pilot, screen)
    await settle(pilot)


def opens(*keys: str, screen: str | None = None, jump: str | None = None) -> Callable[[Pilot], Awaitable[None]]:
    return lambda pilot: _keys(pilot, *keys, screen=screen, jump=jump)


async def _stats(pilot: Pilot) -> None:
    app = pilot.app
    assert isinstance(app, AtkApp)
    app.action_stats()
    await wait_for_screen(pilot, "StatsScreen")
    await settle(pilot)


#: every screen of the dashboard, and how a person opens it
SCREENS: dict[str, Callable[[Pilot], Awaitable[None]]] = {
    "main": opens(),
    "detail": opens("l", jump="chain-uwi"),
    "answer form": opens("a", screen="AnswerScreen", jump="md-multi"),
    "move menu": opens("m", screen="MoveScreen", jump="hand-svg-logo"),
    "comment dialog": opens("c", screen="TextFormScreen", jump="hand-svg-logo"),
    "confirm dialog": opens("x", screen="ChoiceScreen", jump="hand-svg-logo"),
    "dependencies": opens("d", screen="DependenciesScreen", jump="chain-2"),
    "help": opens("question_mark", screen="HelpScreen"),
    "history": opens("H", screen="HistoryScreen"),
    "graph": opens("v", screen="GraphScreen", jump="chain-2"),
    "stats": _stats,
    "stuck": opens("S", screen="StuckScreen"),
    "notices": opens("N", screen="NoticesScreen"),
    "item log": opens("L", screen="ItemLogScreen", jump="comment"),
    "new item": opens("plus", screen="NewItemScreen"),
    "conflicts": opens("C", screen="ConflictsScreen"),
    "filter": opens("slash", "s", "e", "s", "s"),
}


def prepared(screen: str, demo_store: Path, tmp_path: Path) -> Path:
    """The demo store, with what `screen` needs to show something (a set-aside conflict)."""
    if screen == "conflicts":
        set_aside(Demo(demo_store, demo_filenames(NOW)), tmp_path)
    return demo_store
