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
from atk_tui.tui.config import TuiConfig
from atk_tui.tui.modals.answer import AnswerScreen
from atk_tui.tui.modals.dialogs import confirm

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
    out = Service(root, actor="agent").writes.add(
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


async def test_the_sync_never_touches_uncommitted_work_and_keeps_saying_why(tmp_path: Path) -> None:
    """The dashboard's sync is a read: the person's uncommitted edit of a file the remote
    changed stays as it is (no conflict markers, nothing stashed, no rebase left), the status
    line says why it did not pull, and keeps saying it at the next looks (the remote has not
    moved again: that is not "in step"). Once the edit is committed elsewhere or undone, it pulls."""
    fast_remote_checks()
    _, c = bare_with_clones(tmp_path)
    name = agent_adds(c["b"], "Shared item")
    Service(c["a"], actor="user").pull()
    mine = c["a"] / "wi" / "inbox" / name
    original = mine.read_text(encoding="utf-8")
    edited = original + "\nmy uncommitted note\n"
    mine.write_text(edited, encoding="utf-8")
    theirs = c["b"] / "wi" / "inbox" / name
    theirs.write_text(theirs.read_text(encoding="utf-8").replace("body", "body changed on b"), encoding="utf-8")
    git(c["b"], "commit", "-qam", "b changes the item")
    git(c["b"], "push", "-q")
    app = recording(build_app(c["a"], config=None, watch=True))
    looks: list[object] = []
    look = app.service.look_at_remote
    app.service.look_at_remote = lambda: looks.append(look()) or looks[-1]  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await poll(pilot, lambda: "sync failed" in status_text(app), "the status line says it did not pull")
        assert "uncommitted" in status_text(app)
        assert mine.read_text(encoding="utf-8") == edited
        assert git(c["a"], "stash", "list").strip() == ""
        assert git(c["a"], "status", "--porcelain").strip() == f"M wi/inbox/{name}"
        assert not (c["a"] / ".git" / "rebase-merge").exists()
        # the next looks find the remote where it was: still not in step, still said
        seen = len(looks)
        await poll(pilot, lambda: len(looks) >= seen + 2, "two more looks at the remote")
        assert "sync failed" in status_text(app) and "uncommitted" in status_text(app)
        mine.write_text(original, encoding="utf-8")  # the person undoes the edit
        await poll(pilot, lambda: "sync failed" not in status_text(app), "it pulls once nothing is in the way")
        assert "body changed on b" in mine.read_text(encoding="utf-8")


async def test_a_sync_that_ends_while_the_dashboard_closes_is_no_crash(tmp_path: Path) -> None:
    """A look at the remote or a pull runs in a thread; it may end while the app is closing,
    its panes already gone: its status line update is then dropped, not a traceback."""
    _, c = bare_with_clones(tmp_path)
    app = recording(build_app(c["a"], config=None))
    async with app.run_test(size=SIZE) as pilot:
        await poll(pilot, lambda: app.queue is not None, "the first rows")
        await app.main.query_one("#needs").remove()  # as the app's teardown does
        app._sync_counts(1, 0, 2)
        app._synced("could not reach the remote")
        await pilot.pause()
    assert app.worker_errors == []


async def test_at_the_default_settings_a_push_shows_under_a_dialog_without_a_key(tmp_path: Path) -> None:
    """No config file: the defaults look at the remote every 5 s (a push shows within 10 s),
    and a dialog on top does not stop it."""
    _, c = bare_with_clones(tmp_path)
    app = recording(build_app(c["a"], config=None, watch=True))
    async with app.run_test(size=SIZE) as pilot:
        await poll(pilot, lambda: app.queue is not None, "the first rows")
        assert app.tui_config.remote_check_interval == TuiConfig().remote_check_interval == 5.0
        app.push_screen(confirm("Sure?", "A question the person has not answered yet", "Yes"))
        await pilot.pause()
        dialog = app.screen
        other = agent_adds(c["b"], "Arrived under a dialog")
        await poll(pilot, lambda: other in app.queue.items, "the push arrives under the dialog")
        assert app.screen is dialog
        await poll(pilot, lambda: other in keys_of_pane(app, "inbox"), "the row is listed")
        assert "synced " in status_text(app)
