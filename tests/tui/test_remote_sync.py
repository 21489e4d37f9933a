"""The dashboard in step with the remote (SPEC §15): the status line says when it last
synced, how far behind or ahead it is and why a sync failed; another clone's push shows up
by itself, also while the answer form is open, and the form says when its question changed.

Real clones of one bare remote; the app looks at the remote every 0.3 s (the config file)."""

from __future__ import annotations

import os
from pathlib import Path

from support.apps import build_app, recording
from support.remotes import bare_with_clones
from support.storekit import UWI_BODY, git
from support.tui_helpers import keys_of_pane

from atk_tui.service import Service
from atk_tui.tui.screens.answer import AnswerScreen

SIZE = (120, 36)
ROUNDS = 600  # bounded polls of 0.05 s: never reached when all is well


def fast_remote_checks() -> None:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "atk" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[tui]\nremote_check_interval = 0.3\npull_interval = 0\n", encoding="utf-8")


def status_text(app) -> str:
    return str(app.main.query_one("#status").render())


async def poll(pilot, cond, what: str) -> None:
    for _ in range(ROUNDS):
        await pilot.pause(0.05)
        if cond():
            return
    raise AssertionError(f"never happened: {what}")


def agent_adds(root: Path, title: str, body: str | None = None) -> str:
    out = Service(root, actor="agent").add(
        kind="uwi" if body else "awi", target_repo="acme/webapp", source="add-uwi" if body else "add-awi",
        body=body or f"# {title}\n\nbody\n",
    )  # fmt: skip
    assert out.ok and out.pushed, out.message
    return out.files[0]


async def test_status_says_when_it_synced_and_why_a_sync_failed(tmp_path: Path) -> None:
    fast_remote_checks()
    remote, c = bare_with_clones(tmp_path)
    app = recording(build_app(c["a"], config=None, watch=True))
    async with app.run_test(size=SIZE) as pilot:
        await poll(pilot, lambda: "synced " in status_text(app), "the status line says it synced")
        assert "sync failed" not in status_text(app)
        git(c["a"], "remote", "set-url", "origin", str(tmp_path / "gone.git"))
        await poll(pilot, lambda: "sync failed" in status_text(app), "the status line says the sync failed")
        assert "gone.git" in status_text(app) and "could not reach the remote" in status_text(app)
        assert sum("sync failed" in m for m, _ in app.notes) == 1  # one toast, not one per look
        git(c["a"], "remote", "set-url", "origin", str(remote))
        await poll(pilot, lambda: "sync failed" not in status_text(app), "the failure clears once a sync works")


async def test_a_push_from_another_clone_shows_while_the_answer_form_is_open(tmp_path: Path) -> None:
    fast_remote_checks()
    _, c = bare_with_clones(tmp_path)
    uwi = agent_adds(c["b"], "", UWI_BODY)
    Service(c["a"], actor="user").pull()
    app = recording(build_app(c["a"], config=None, watch=True))
    async with app.run_test(size=SIZE) as pilot:
        await poll(pilot, lambda: uwi in keys_of_pane(app, "needs"), "the question is listed")
        app.run_worker(app.commands.answer(app.queue.items[uwi]), group="write")
        await poll(pilot, lambda: isinstance(app.screen, AnswerScreen), "the answer form opens")
        form = app.screen
        # an agent on another clone files new work and rewords the question meanwhile
        other = agent_adds(c["b"], "Arrived while answering")
        path = c["b"] / "wi" / "inbox" / uwi
        path.write_text(path.read_text().replace("Strict RFC 5322", "Loose RFC 5322"))
        git(c["b"], "commit", "-qam", "reword")
        git(c["b"], "push", "-q")
        await poll(pilot, lambda: other in app.queue.items if app.queue else False, "the push arrives under the form")
        await poll(pilot, lambda: form.changed_meanwhile, "the form notices its question changed")
        notice = str(form.query_one("#answer-notice").render())
        assert "changed while the form was open" in notice
        assert app.screen is form  # nothing closed the form: the person's choices are still there
