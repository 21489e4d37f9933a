"""Dashboard messages as a dashboard user reads them (issue 15 items 6, 1, 4): keys, not CLI
commands; git's reason for a refused push; a visible wait for the store lock; remaps that clash
and unknown ids or themes answered with the valid values."""

from __future__ import annotations

from pathlib import Path

import pytest
from filelock import FileLock
from support.apps import running
from support.tui_helpers import DEMO, keys_of_pane, press, screen_text, settle
from test_tui_config import config_app, notifications, write_config

from atk_tui.domain.hints import binding_ids as hinted_ids
from atk_tui.domain.hints import for_dashboard
from atk_tui.tui.keymap import binding_ids

SIZE = (120, 36)


def test_every_key_a_message_names_is_a_dashboard_binding() -> None:
    assert hinted_ids() <= binding_ids()


def test_cli_commands_become_keys() -> None:
    keys = {"push": "P", "conflicts": "C", "unhold": "u", "move": "m"}
    msg = "1 unpushed commit (x); run `atk wi commit` to push later"
    assert for_dashboard(msg, keys.__getitem__) == "1 unpushed commit (x); press `P` to push later"
    assert "atk wi" not in for_dashboard("the user holds it; `atk wi unhold F.md` only if asked", keys.__getitem__)


@pytest.fixture
def toasts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every toast as Textual is finally given it (after the app made it safe and named keys)."""
    import textual.app

    shown: list[str] = []
    real = textual.app.App.notify

    def recording(self, message, *args, **kwargs):
        shown.append(str(message))
        return real(self, message, *args, **kwargs)

    monkeypatch.setattr(textual.app.App, "notify", recording)
    return shown


def policy_hook(remote: Path) -> None:
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'rejected by policy hook' >&2\nexit 1\n")
    hook.chmod(0o755)


async def test_a_refused_push_names_P_and_git_s_reason(demo_store: Path, toasts: list[str]) -> None:
    policy_hook(demo_store.parent / "remote.git")
    async with running(config_app(demo_store), SIZE) as (app, pilot):
        await press(pilot, "1")
        target = keys_of_pane(app, "inbox")[0]
        await press(pilot, "p")
        assert target in keys_of_pane(app, "hold")
        shown = "\n".join(toasts)
        assert "rejected by policy hook" in shown, shown
        assert "press `P` to push later" in shown, shown
        assert "atk wi commit" not in shown


async def test_a_write_waiting_for_the_store_lock_says_so(demo_store: Path) -> None:
    app = config_app(demo_store)
    lock = FileLock(str(demo_store / ".git" / "atk.lock"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "1")
        target = keys_of_pane(app, "inbox")[0]
        lock.acquire()
        try:
            await pilot.press("p")
            for _ in range(200):  # bounded: the worker reports the wait as soon as it meets the lock
                await pilot.pause(0.02)
                if app.lock_wait:
                    break
            assert app.lock_wait and "waiting for the store lock" in app.lock_wait
            await pilot.pause()
            assert "waiting for the store lock" in screen_text(app)
        finally:
            lock.release()
        await settle(pilot)
        assert app.lock_wait is None
        assert "waiting for the store lock" not in screen_text(app)
        assert target in keys_of_pane(app, "hold")
        assert any("waiting for the store lock" in n for n in notifications(app))


async def test_a_remap_that_clashes_is_refused_naming_both(demo_store: Path) -> None:
    write_config('[tui.keys]\nhold = "H"\n')
    async with running(config_app(demo_store), SIZE) as (app, pilot):
        shown = "\n".join(notifications(app))
        assert "hold = 'H' clashes with 'history' (History)" in shown, shown
        await press(pilot, "H")
        assert type(app.screen).__name__ == "HistoryScreen"  # History keeps its key
        await press(pilot, "escape")
        assert "H Hold" not in screen_text(app)


async def test_an_unknown_key_id_lists_the_valid_ids(demo_store: Path) -> None:
    write_config('[tui.keys]\nhodl = "o"\n')
    async with running(config_app(demo_store), SIZE) as (app, _pilot):
        shown = "\n".join(notifications(app))
        assert "names no binding: hodl" in shown
        for bid in ("hold", "history", "push", "quit"):
            assert bid in shown.split("binding ids:", 1)[1]


@pytest.mark.parametrize("where", ["config", "option"])
async def test_an_unknown_theme_lists_the_themes(demo_store: Path, where: str) -> None:
    from support.tui_helpers import build_app

    if where == "config":
        write_config('[tui]\ntheme = "nrod"\n')
        app = config_app(demo_store)
    else:
        app = build_app(demo_store, theme="nrod")
    shown: list[str] = []
    real = app.notify
    app.notify = lambda m, *a, **k: (shown.append(str(m)), real(m, *a, **k))  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = "\n".join(shown)
        assert "unknown theme 'nrod'" in text, text
        assert "nord" in text and "textual-dark" in text
    assert DEMO  # the demo store is the one the helpers describe
