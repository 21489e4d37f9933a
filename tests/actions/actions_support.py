"""Helpers and fixtures for the action tests: a demo store at a frozen time, the app built by
`make_app` with a fixed store label and no watcher, and waits on workers (never sleeps).

There is deliberately no conftest.py in tests/actions: pytest names every conftest module
`conftest`, and tests/core does `from conftest import ...` (the root one), which breaks when a
conftest in a folder sorting before `core` was imported last. The test modules import the
fixtures from here instead, and `pilot_test` runs their async bodies.
"""

from __future__ import annotations

import asyncio
import functools
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual import events
from textual.keys import _character_to_key
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.worker import Worker, WorkerState

from atk_tui.core.model import STATES
from atk_tui.demo import create_demo_store, demo_filenames
from atk_tui.tui.app import AtkApp, make_app
from atk_tui.tui.config import TuiConfig

NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
SIZE = (120, 36)
# what the status line calls the store: the tmp_path would change every run
STORE_LABEL = "~/notes"  # the same label as tests/tui


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout


@dataclass
class Demo:
    """The demo store (`atk_tui.demo`) created at NOW, with its notable items by key."""

    root: Path
    names: dict[str, str]

    def __getitem__(self, key: str) -> str:
        return self.names[key]

    def head(self) -> str:
        return git(self.root, "rev-parse", "HEAD").strip()

    def subjects_since(self, base: str) -> list[str]:
        """Commit subjects after `base`, oldest first."""
        out = git(self.root, "log", "--reverse", "--format=%s", f"{base}..HEAD")
        return out.splitlines()

    def trailer(self, rev: str = "HEAD") -> str:
        return git(self.root, "show", "-s", "--format=%(trailers:key=Atk-Actor,valueonly)", rev).strip()

    def state(self, filename: str) -> str | None:
        found = [s for s in STATES if (self.root / "wi" / s / filename).is_file()]
        assert len(found) <= 1, found
        return found[0] if found else None

    def text(self, filename: str) -> str:
        state = self.state(filename)
        assert state is not None, f"{filename} is gone"
        return (self.root / "wi" / state / filename).read_text(encoding="utf-8")

    def clean(self) -> bool:
        return git(self.root, "status", "--porcelain", "--", "wi").strip() == ""

    def scratch(self, filename: str) -> Path:
        """The first edit session's scratch file for `filename` (`<stem>~1.md`)."""
        return self.scratch_dir() / f"{filename.removesuffix('.md')}~1.md"

    def scratch_dir(self) -> Path:
        return self.root / ".git" / "atk-edit"

    def scratch_files(self) -> list[str]:
        """Everything left in .git/atk-edit (kept text and the versions it was based on)."""
        d = self.scratch_dir()
        return sorted(p.name for p in d.iterdir()) if d.is_dir() else []


def new_demo(template: Path, base: Path) -> Demo:
    """A private copy of the demo store made once per test worker at `template` (creating one
    costs more than copying it); its origin is pointed at the copied bare remote."""
    shutil.copytree(template, base, symlinks=True)
    store = base / "store"
    git(store, "remote", "set-url", "origin", str(base / "remote.git"))
    return Demo(store.resolve(), demo_filenames(NOW))


def demo_template(base: Path) -> Path:
    create_demo_store(base, NOW)
    return base


# Test modules import these two (`from actions_support import demo_fixtures`); the fixture
# names differ from the function names so that a `demo` argument shadows no import.
@pytest.fixture(scope="session", name="actions_demo_template")
def template_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo store (and its bare remote) made at the frozen NOW, once per worker and module."""
    return demo_template(tmp_path_factory.mktemp("actions-demo") / "demo")


@pytest.fixture(name="demo")
def demo_fixture(actions_demo_template: Path, tmp_path: Path) -> Demo:
    """A private, writable copy of the demo store."""
    return new_demo(actions_demo_template, tmp_path / "demo")


def pilot_test(fn: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an `async def` test (Pilot needs a loop) without an asyncio plugin."""

    @functools.wraps(fn)
    def run(*args: object, **kwargs: object) -> None:
        asyncio.run(fn(*args, **kwargs))

    return run


class RecordingApp:
    """What `make` adds to the app: every notification, every worker that failed."""

    notes: list[tuple[str, str]]
    worker_errors: list[BaseException]


def make(
    root: Path, *, editor: Callable[[Path], int] | None = None, actor: str | None = None, read_only: bool = False
) -> AtkApp:
    """The app as the CLI builds it, made deterministic: frozen clock, fixed theme, no watcher,
    default config, a fixed store label. Notifications and swallowed worker errors are recorded
    (the action workers run with exit_on_error=False, so a crash would otherwise go unseen)."""
    app = make_app(
        root,
        theme="textual-dark",
        clock=lambda: NOW,
        watch=False,
        editor=editor,
        actor=actor or "user",
        config=TuiConfig(),
        store_label=STORE_LABEL,
        read_only=read_only,
    )
    notes: list[tuple[str, str]] = []
    errors: list[BaseException] = []
    notify = app.notify

    def recording_notify(message, *args, **kw):  # type: ignore[no-untyped-def]
        notes.append((str(message), kw.get("severity", "information")))
        return notify(message, *args, **kw)

    app.notify = recording_notify  # type: ignore[method-assign]
    remove = app.workers._remove_worker

    def removing(worker: Worker) -> None:
        if worker.state == WorkerState.ERROR and worker.error is not None:
            errors.append(worker.error)
        remove(worker)

    app.workers._remove_worker = removing  # type: ignore[method-assign]
    app.notes = notes  # type: ignore[attr-defined]
    app.worker_errors = errors  # type: ignore[attr-defined]
    return app


def _waiting_on_user(app: AtkApp, worker: Worker) -> bool:
    """An action worker parked on a dialog (push_screen_wait) waits for keys, not for us."""
    return worker.group == "write" and isinstance(app.screen, ModalScreen)


def _pending_timers(app: AtkApp) -> bool:
    """A one-shot timer of the app or a screen that has not fired yet (the detail pane and the
    filter debounce with these). Same test as tests/tui/tui_helpers.py."""
    for pump in [app, *app.screen_stack]:
        for timer in list(pump._timers):
            task = timer._task
            if timer._repeat == 0 and task is not None and not task.done() and timer._interval <= 1.0:
                return True
    return False


async def settle(pilot: Pilot, *, limit: int = 3000) -> None:
    """Wait until every worker is done (or parked on a dialog) and no debounce timer is
    pending. Bounded: fails rather than hangs."""
    app = pilot.app
    quiet = 0
    for _ in range(limit):
        errors = getattr(app, "worker_errors", [])
        if errors:
            raise AssertionError(f"a worker failed: {errors[0]!r}") from errors[0]
        busy = [w for w in app.workers if not w.is_finished and not _waiting_on_user(app, w)]
        if busy:
            quiet = 0
            unparked = [w for w in busy if w.group != "write"]
            if unparked:
                # exclusive workers get cancelled by their successors: that is fine here
                await asyncio.gather(*(w.wait() for w in unparked), return_exceptions=True)
            else:
                await pilot.pause(0.01)
            continue
        if _pending_timers(app):
            quiet = 0
            await pilot.pause(0.01)
            continue
        # call_from_thread callbacks may still start work: be quiet three times
        quiet += 1
        if quiet >= 3:
            await pilot.wait_for_scheduled_animations()
            return
        await pilot.pause()
    raise AssertionError("the app did not settle")


async def started(pilot: Pilot) -> None:
    """After launch: the queue loaded and the first item shown."""
    await settle(pilot)
    assert pilot.app.main.view is not None


async def select(pilot: Pilot, filename: str) -> None:
    app = pilot.app
    assert app.main.jump_to(filename), filename
    await settle(pilot)
    assert app.main.selected == filename


def messages(app: AtkApp) -> list[str]:
    return [m for m, _ in app.notes]  # type: ignore[attr-defined]


def errors_shown(app: AtkApp) -> list[str]:
    return [m for m, sev in app.notes if sev == "error"]  # type: ignore[attr-defined]


def burst(pilot: Pilot, *keys: str) -> None:
    """Queue key events all at once, the way a paste or a fast typist (or tmux send-keys)
    delivers them: no waiting for the app between keys, unlike `pilot.press`."""
    app = pilot.app
    for key in keys:
        char = key if len(key) == 1 else {"space": " ", "enter": "\r", "tab": "\t"}.get(key)
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        event = events.Key(key, char)
        event.set_sender(app)
        app.post_message(event)
