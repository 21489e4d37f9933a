"""The `[tui]` table of $XDG_CONFIG_HOME/atk/config.toml: theme, key overrides, pull interval,
default sort; and a bad config, which gives a clear notification and the defaults, never a
traceback. The autouse fixture of tests/conftest.py points XDG_CONFIG_HOME at an empty tmp dir."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.apps import running
from support.tui_helpers import build_app, keys_of_pane, press, screen_text, settle

from atk_tui.service import Service
from atk_tui.tui.app import AtkApp
from atk_tui.tui.config import TuiConfig, load_tui_config
from atk_tui.tui.state import state_path

SIZE = (120, 36)


def write_config(text: str) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "atk" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def config_app(root: Path, **kw) -> AtkApp:
    """The app as the CLI builds it: the config file is read, no theme given on the command line.
    Every notification is recorded (toasts expire, and a slow machine may outlast them)."""
    app = build_app(root, config=None, theme=None, **kw)
    shown: list[str] = []
    notify = app.notify

    def recording_notify(message, *args, **kwargs):
        shown.append(str(message))
        return notify(message, *args, **kwargs)

    app.notify = recording_notify  # type: ignore[method-assign]
    app.shown_notifications = shown  # type: ignore[attr-defined]
    return app


def notifications(app: AtkApp) -> list[str]:
    return list(app.shown_notifications)  # type: ignore[attr-defined]


# -- loading ---------------------------------------------------------------------------------


def test_no_config_file_gives_the_defaults() -> None:
    cfg = load_tui_config({"textual-dark", "nord"})
    assert cfg == TuiConfig()
    assert cfg.errors == []


def test_every_setting_is_read() -> None:
    write_config(
        """
private_notes = "/somewhere"

[tui]
theme = "nord"
pull_interval = 15
remote_check_interval = 2.5
default_sort = "title"

[tui.keys]
sort = "o"
hold = "ctrl+h"
"""
    )
    cfg = load_tui_config({"textual-dark", "nord"})
    assert cfg.errors == []
    assert (cfg.theme, cfg.pull_interval, cfg.default_sort) == ("nord", 15.0, "title")
    assert cfg.remote_check_interval == 2.5
    assert cfg.keys == {"sort": "o", "hold": "ctrl+h"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tui\ntheme = ", "is not valid TOML"),
        ("tui = 3\n", "[tui] must be a table"),
        ('[tui]\ntheme = "no-such-theme"\n', "unknown theme 'no-such-theme'"),
        ("[tui]\ntheme = 7\n", "unknown theme 7"),
        ('[tui]\npull_interval = "soon"\n', "pull_interval must be a number of seconds >= 0"),
        ("[tui]\npull_interval = -1\n", "pull_interval must be a number of seconds >= 0"),
        ("[tui]\npull_interval = true\n", "pull_interval must be a number of seconds >= 0"),
        ('[tui]\nremote_check_interval = "often"\n', "remote_check_interval must be a number of seconds >= 0"),
        ('[tui]\ndefault_sort = "random"\n', "default_sort must be one of"),
        ('[tui]\nkeys = "x"\n', "[tui.keys] maps action ids to keys"),
        ("[tui.keys]\nsort = 5\n", "[tui.keys] maps action ids to keys"),
        ('[tui]\ncolour = "red"\n', "unknown [tui] setting(s): colour"),
    ],
)
def test_a_bad_value_is_reported_and_the_default_kept(text: str, message: str) -> None:
    write_config(text)
    cfg = load_tui_config({"textual-dark", "nord"})
    assert any(message in e for e in cfg.errors), cfg.errors
    defaults = TuiConfig()
    assert (cfg.theme, cfg.pull_interval, cfg.default_sort, cfg.keys) == (
        defaults.theme,
        defaults.pull_interval,
        defaults.default_sort,
        defaults.keys,
    )


def test_good_values_survive_a_bad_neighbour() -> None:
    write_config('[tui]\ntheme = "nord"\npull_interval = "soon"\ndefault_sort = "oldest"\n')
    cfg = load_tui_config({"textual-dark", "nord"})
    assert (cfg.theme, cfg.pull_interval, cfg.default_sort) == ("nord", 60.0, "oldest")
    assert len(cfg.errors) == 1


# -- in the app ----------------------------------------------------------------------------


async def test_theme_and_default_sort_apply(demo_store: Path) -> None:
    write_config('[tui]\ntheme = "nord"\ndefault_sort = "title"\n')
    async with running(config_app(demo_store), SIZE) as (app, _pilot):
        assert app.theme == "nord"
        assert app.main.sort_mode == "title"
        view = app.main.view
        assert view is not None
        titles = [view.items[k].title.casefold() for k in keys_of_pane(app, "inbox")]
        assert titles == sorted(titles)
        assert notifications(app) == []


async def test_the_theme_option_beats_the_config_file(demo_store: Path) -> None:
    write_config('[tui]\ntheme = "nord"\n')
    async with running(build_app(demo_store, config=None, theme="gruvbox"), SIZE) as (app, _pilot):
        assert app.theme == "gruvbox"


async def test_key_overrides_rebind_actions(demo_store: Path) -> None:
    write_config('[tui.keys]\nsort = "o"\nhistory = "b"\n')
    async with running(config_app(demo_store), SIZE) as (app, pilot):
        await press(pilot, "s")
        assert app.main.sort_mode == "needs-you"  # `s` no longer sorts
        await press(pilot, "o")
        assert app.main.sort_mode == "oldest"
        assert "o Sort" in screen_text(app)  # the footer shows the new key
        await press(pilot, "b")
        assert type(app.screen).__name__ == "HistoryScreen"
        assert not [n for n in notifications(app) if "config" in n]


async def test_the_palette_names_each_command_s_key_as_remapped(demo_store: Path) -> None:
    """The palette's help texts name the key that does the same thing now (after `[tui.keys]`),
    and the entries added for keys that had none in the palette (item log, stuck work, new item) run."""
    write_config('[tui.keys]\nitem_log = "O"\n')
    async with running(config_app(demo_store), SIZE) as (app, pilot):
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert commands["Item log"].help.endswith("(O)")  # remapped
        assert commands["Stuck work"].help.endswith("(S)") and commands["Push"].help.endswith("(P)")
        assert commands["Wait statistics"].help.endswith("blocked")  # no key of its own: none named
        for title, screen in (("Item log", "ItemLogScreen"), ("Stuck work", "StuckScreen"), ("New item", "NewItemScreen")):
            commands[title].callback()
            await settle(pilot)
            assert type(app.screen).__name__ == screen, title
            await press(pilot, "escape")
            await settle(pilot)
            assert type(app.screen).__name__ == "MainScreen", title


async def test_pull_interval_pulls_commits_from_the_remote(demo_store: Path, tmp_path: Path) -> None:
    """With a short pull interval, an item pushed from another clone appears by itself."""
    write_config("[tui]\npull_interval = 0.3\n")
    other = tmp_path / "other-clone"
    subprocess.run(["git", "clone", "-q", str(demo_store.parent / "remote.git"), str(other)], check=True)
    app = config_app(demo_store, watch=True)
    assert app.tui_config.pull_interval == 0.3
    async with app.run_test(size=SIZE) as pilot:
        # no settle here: with a pull every 0.3 s the app is never quiet for long (the pulls are
        # the point); wait for the first rows instead
        for _ in range(300):
            await pilot.pause(0.05)
            if keys_of_pane(app, "inbox"):
                break
        out = Service(other, actor="agent").writes.add(
            kind="awi", target_repo="acme/api", source="process-wi", body="# Pushed from elsewhere\n\nbody\n"
        )
        assert out.ok and out.pushed, out.message
        name = out.files[0]
        for _ in range(300):  # bounded poll; the app pulls every 0.3 s and then reloads
            await pilot.pause(0.05)
            if name in keys_of_pane(app, "inbox"):
                break
        else:
            raise AssertionError("the pushed item was never pulled")
        assert app.last_pull is not None


async def test_pull_interval_zero_turns_pulling_off(demo_store: Path) -> None:
    write_config("[tui]\npull_interval = 0\n")
    async with running(config_app(demo_store, watch=True), SIZE) as (app, _pilot):
        assert app.tui_config.pull_interval == 0
        assert app.remote_timer is not None  # the upstream was found: timers were set up
        assert app.pull_timer is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tui\ntheme = ", "is not valid TOML"),
        ('[tui]\ntheme = "no-such-theme"\npull_interval = "soon"\n', "unknown theme 'no-such-theme'"),
        ('[tui]\ndefault_sort = 3\nkeys = ["a"]\n', "default_sort must be one of"),
        ('[tui.keys]\nno_such_action = "x"\n', "no_such_action"),
    ],
    ids=["bad-toml", "unknown-theme", "wrong-types", "unknown-action"],
)
async def test_a_bad_config_is_a_notification_not_a_traceback(demo_store: Path, text: str, message: str) -> None:
    path = write_config(text)
    async with running(config_app(demo_store), SIZE) as (app, pilot):
        shown = notifications(app)
        assert any(message in n for n in shown), shown
        if "TOML" in message:
            assert any(str(path) in n for n in shown)
        # the defaults are in force and the dashboard works
        assert app.theme == "textual-dark"
        assert app.main.sort_mode == "needs-you"
        assert "Inbox 24" in screen_text(app)
        await press(pilot, "s")
        assert app.main.sort_mode == "oldest"


# -- the theme remembered ----------------------------------------------------------------------
# A theme picked in the command palette is remembered (issue 15 item 4).


async def test_a_theme_picked_in_the_palette_is_used_on_the_next_start(demo_store: Path) -> None:
    write_config('[tui]\ntheme = "nord"\n')
    async with running(config_app(demo_store), SIZE) as (app, pilot):
        assert app.theme == "nord"
        assert not state_path().exists()  # starting remembers nothing
        await press(pilot, "ctrl+p")
        await pilot.press(*"theme")
        await settle(pilot)
        await press(pilot, "enter")  # "Theme: change the current theme"
        await pilot.press(*"gruvbox")
        await settle(pilot)
        await press(pilot, "enter")
        assert app.theme == "gruvbox"
    assert json.loads(state_path().read_text())["theme"] == "gruvbox"
    again = config_app(demo_store)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.theme == "gruvbox"
        assert notifications(again) == []


async def test_a_bad_remembered_theme_is_reported_and_the_config_used(demo_store: Path) -> None:
    write_config('[tui]\ntheme = "nord"\n')
    state_path().write_text('{"theme": "gone"}')
    async with running(config_app(demo_store), SIZE) as (app, _pilot):
        assert app.theme == "nord"
        assert any("remembered theme 'gone' is unknown" in n for n in notifications(app))
