"""Notices in the dashboard (SPEC §13): the strip, the notices screen (read, dismiss as the
user only), the bell / title count / desktop notification for new notices and blocking
questions, and the process-loop on the status line."""

from __future__ import annotations

import json
import os
from pathlib import Path

from support.storekit import UWI_BODY
from support.tui_helpers import build_app, git, screen_text, settle

from atk_tui.service import Service
from atk_tui.tui.config import TuiConfig
from atk_tui.tui.screens.notices import NoticesScreen
from atk_tui.tui.widgets.notices import NoticeStrip


def agent_notify(store: Path, body: str) -> str:
    out = Service(store, actor="agent").notify(body, source="process-wi")
    assert out.ok, out.message
    return out.files[0]


async def test_a_new_notice_shows_rings_and_counts(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        strip = app.main.query_one(NoticeStrip)
        assert not strip.has_class("shown")
        before = app.title
        assert app.alerts.rings == 0  # what was there at start is not news
        agent_notify(demo_store, "# Decision pending: login rule\n\nPlease answer q.md.\n")
        app.reload()
        await settle(pilot)
        assert strip.has_class("shown")
        assert "1 notice from agents" in screen_text(app) and "Decision pending: login rule" in screen_text(app)
        assert app.alerts.rings == 1
        count = int(before.split("(")[1].rstrip(")")) if "(" in before else 0
        assert app.title == f"atk-tui ({count + 1})"
        app.reload()  # nothing new: no second ring
        await settle(pilot)
        assert app.alerts.rings == 1


async def test_a_new_blocking_question_rings(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        before = app.title
        out = Service(demo_store, actor="agent").writes.add(kind="uwi", target_repo="acme/x", body=UWI_BODY, source="t", urgency="blocking")
        assert out.ok
        app.reload()
        await settle(pilot)
        assert app.alerts.rings == 1 and app.title != before
        out = Service(demo_store, actor="agent").writes.add(kind="uwi", target_repo="acme/x", body=UWI_BODY, source="t", urgency="informational")
        app.reload()
        await settle(pilot)
        assert app.alerts.rings == 1  # an informational question does not call the user


async def test_open_read_and_dismiss(demo_store: Path) -> None:
    name = agent_notify(demo_store, "# Look at [bold red]this[/] \x1b]52;c;AAAA\x07\n\nBody text here.\n")
    app = build_app(demo_store)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("N")
        await settle(pilot)
        assert isinstance(app.screen, NoticesScreen)
        text = screen_text(app)
        assert "Look at [bold red]this[/]" in text and "\\x1b]52" in text and "Body text here." in text
        await pilot.press("d")
        await settle(pilot)
        assert not (demo_store / "notices" / name).exists()
        assert git(demo_store, "log", "-1", "--format=%s|%(trailers:key=Atk-Actor,valueonly)").strip() == f"atk: dismiss {name}|user"
        assert "No notices." in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert not app.main.query_one(NoticeStrip).has_class("shown")


async def test_strip_click_opens_and_read_only_cannot_dismiss(demo_store: Path) -> None:
    name = agent_notify(demo_store, "# Pending\n")
    app = build_app(demo_store, actor="agent")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.click(NoticeStrip)
        await settle(pilot)
        assert isinstance(app.screen, NoticesScreen)
        await pilot.press("d")
        await settle(pilot)
        assert (demo_store / "notices" / name).exists()


async def test_desktop_notification_only_when_configured(demo_store: Path) -> None:
    for enabled in (True, False):
        sent: list[tuple[str, str]] = []
        app = build_app(demo_store, config=TuiConfig(desktop_notifications=enabled))
        app.alerts.desktop_notifier = lambda summary, body, sent=sent: sent.append((summary, body))
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            agent_notify(demo_store, f"# Notice while enabled={enabled}\n")
            app.reload()
            await settle(pilot)
        assert (sent == [("atk-tui: a new notice needs you", f"Notice while enabled={enabled}")]) is enabled


async def test_status_line_shows_the_loop(demo_store: Path) -> None:
    d = demo_store / ".git/atk-loop"
    d.mkdir()
    (d / "state.json").write_text(json.dumps({"pid": os.getpid(), "running": [{"id": "s1", "repo": "acme/[b]x", "files": ["a.md"]}], "last_exit": 3}))
    app = build_app(demo_store)
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        assert "loop: 1 running (acme/[b]x), last exit 3" in screen_text(app)
        (d / "state.json").unlink()
        app.reload()
        await settle(pilot)
        assert "loop:" not in screen_text(app)


async def test_bell_and_title_can_be_turned_off(demo_store: Path) -> None:
    app = build_app(demo_store, config=TuiConfig(bell=False, title_count=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        agent_notify(demo_store, "# Quiet notice\n")
        app.reload()
        await settle(pilot)
        assert "Quiet notice" in screen_text(app)  # still shown
        assert app.alerts.rings == 0 and app.title == "atk-tui"


def test_desktop_notifications_config(monkeypatch, tmp_path: Path) -> None:
    from atk_tui.tui.config import load_tui_config

    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "atk" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text("[tui]\ndesktop_notifications = true\n")
    assert load_tui_config().desktop_notifications is True
    cfg.write_text("[tui]\ndesktop_notifications = \"yes\"\nbell = false\ntitle_count = false\n")
    got = load_tui_config()
    assert got.desktop_notifications is False and "desktop_notifications" in got.errors[0]
    assert got.bell is False and got.title_count is False and len(got.errors) == 1


async def test_watcher_picks_up_notices_and_the_loop(demo_store: Path) -> None:
    """The store watcher (no manual reload): a notice and a loop's state file appear live."""
    app = build_app(demo_store, watch=True, config=TuiConfig(pull_interval=0))
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        agent_notify(demo_store, "# Live notice\n")
        d = demo_store / ".git/atk-loop"
        d.mkdir()
        (d / "state.json").write_text(json.dumps({"pid": os.getpid(), "running": [], "last_exit": 0}))
        for _ in range(100):
            await pilot.pause(0.1)
            text = screen_text(app)
            if "Live notice" in text and "loop: 0 running, last exit 0" in text:
                break
        else:
            raise AssertionError(f"the watcher did not show the notice and the loop:\n{screen_text(app)}")
        assert app.alerts.rings == 1


def test_notify_send_runs_when_present(tmp_path: Path, monkeypatch) -> None:
    """The real desktop path: a `notify-send` on PATH gets the summary and the escaped body."""
    import time

    from atk_tui.tui.feeds.alerts import notify_send

    bindir = tmp_path / "bin"
    bindir.mkdir()
    got = tmp_path / "got.txt"
    fake = bindir / "notify-send"
    fake.write_text(f'#!/bin/sh\nprintf "%s|" "$@" > {got}\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    notify_send("atk-tui: a new notice needs you", "Decision \\x1b pending")
    for _ in range(100):
        if got.exists() and got.read_text():
            break
        time.sleep(0.05)
    assert got.read_text() == "--app-name=atk-tui|atk-tui: a new notice needs you|Decision \\x1b pending|"
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    notify_send("x", "y")  # absent: nothing happens, nothing raises
