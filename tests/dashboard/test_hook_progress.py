"""A slow git hook shows progress (issue 29): a spinner with the hook's name in the status line
while a write waits for it, gone when it ends. A real pre-commit hook in a real store, held
until the test lets it go (no sleeps)."""

from __future__ import annotations

import os
from pathlib import Path

from support.apps import DEMO, running, settle

from atk_tui.service import Service
from atk_tui.tui.feeds.activity import SPINNER


def status(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.main.query_one("#status").render())


async def test_a_slow_pre_commit_hook_shows_a_spinner_with_its_name(demo_store: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    hook = demo_store / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nwhile [ ! -e '{go}' ]; do sleep 0.02; done\n")
    hook.chmod(0o755)
    async with running(demo_store, (160, 48)) as (app, pilot):
        assert app.main.jump_to(DEMO["hand-svg-logo"])
        await settle(pilot)
        await pilot.press("p")  # hold: one commit, through the hook
        shown = ""
        for _ in range(500):
            await pilot.pause(0.02)
            shown = status(app)
            if "running the pre-commit hook…" in shown:
                break
        assert "running the pre-commit hook…" in shown, shown
        assert shown[0] in SPINNER
        go.touch()
        for _ in range(500):
            await pilot.pause(0.02)
            if "running the" not in status(app) and any(w.name == "action_hold" for w in app.workers) is False:
                break
        await settle(pilot)
        assert "running the" not in status(app)
    assert Service(demo_store).read(DEMO["hand-svg-logo"]).state == "hold"
    assert os.path.exists(go)
