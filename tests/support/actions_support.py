"""Helpers and fixtures for the action tests: a demo store at a frozen time, the app built by
`make_app` with a fixed store label and no watcher, and waits on workers (never sleeps).

There is deliberately no conftest.py in tests/actions: pytest names every conftest module
`conftest`, and tests/core does `from conftest import ...` (the root one), which breaks when a
conftest in a folder sorting before `core` was imported last. The test modules import the
fixtures from here instead (pytest-asyncio runs their async bodies).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from textual import events
from textual.keys import _character_to_key
from textual.pilot import Pilot

from atk_tui.core.model import STATES
from atk_tui.demo import create_demo_store, demo_filenames
from atk_tui.tui.app import AtkApp
from support.apps import STORE_LABEL, build_app, recording, settle  # noqa: F401 (re-exported)
from support.clock import NOW

SIZE = (120, 36)


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


def make(
    root: Path, *, editor: Callable[[Path], int] | None = None, actor: str | None = None, read_only: bool = False
) -> AtkApp:
    """The app as the CLI builds it, made deterministic (`support.apps.build_app`), with every
    notification and every failed worker recorded (`support.apps.recording`)."""
    return recording(build_app(root, editor=editor, actor=actor or "user", read_only=read_only))


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
