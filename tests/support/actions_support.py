"""Helpers for the action tests: the demo store as `Demo` (the `demo` fixture is in
tests/conftest.py), the app with its notifications recorded, selection, bursts of keys."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import events
from textual.pilot import Pilot

from atk_tui.domain.model import STATES
from atk_tui.tui.app import AtkApp
from atk_tui.tui.modals.dialogs import ChoiceScreen
from atk_tui.tui.textual_compat import character_to_key
from support.apps import STORE_LABEL, build_app, recording, settle  # noqa: F401 (re-exported)
from support.storekit import git

SIZE = (120, 36)


@dataclass
class Demo:
    """The demo store (`atk_tui.demo`) created at NOW, with its notable items by key."""

    root: Path
    names: dict[str, str]
    started: str = ""  # HEAD when the last `dashboard` was ready

    def __getitem__(self, key: str) -> str:
        return self.names[key]

    def head(self) -> str:
        return git(self.root, "rev-parse", "HEAD").strip()

    def subjects_since(self, base: str) -> list[str]:
        """Commit subjects after `base`, oldest first."""
        out = git(self.root, "log", "--reverse", "--format=%s", f"{base}..HEAD")
        return out.splitlines()

    def written(self) -> list[str]:
        """Commit subjects since the last `dashboard` was ready (its item selected), oldest first."""
        return self.subjects_since(self.started)

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


@asynccontextmanager
async def dashboard(demo: Demo, selected: str | None = None, **kw: Any) -> AsyncIterator[tuple[AtkApp, Pilot]]:
    """The app (`make`) running on the demo store, loaded, with `selected` selected (from
    here on, `demo.written()` lists what it commits)."""
    app = make(demo.root, **kw)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        if selected is not None:
            await select(pilot, selected)
        demo.started = demo.head()
        yield app, pilot


async def press_all(pilot: Pilot, *keys: str) -> None:
    """Press `keys` together, then settle."""
    await pilot.press(*keys)
    await settle(pilot)


async def asks(pilot: Pilot, *keys: str) -> str:
    """Press `keys` together: a question (`ChoiceScreen`) comes up; its title."""
    await press_all(pilot, *keys)
    screen = pilot.app.screen
    assert isinstance(screen, ChoiceScreen), screen
    return screen.title_text


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
            key = character_to_key(key)
        event = events.Key(key, char)
        event.set_sender(app)
        app.post_message(event)

#: the two versions of `set_aside`'s conflict
MINE = "- 追記: mine, set aside\n"
THEIRS = "- 追記: theirs, pushed first\n"


def set_aside(demo: Demo, tmp_path: Path) -> str:
    """A set-aside push conflict (SPEC §11): the same item changed here (not pushed) and on
    another clone (pushed first); `atk wi commit` then sets ours aside. Returns our commit."""
    from support.environ import patched_environ

    name = demo["hand-svg-logo"]
    # the commits at a fixed time: the same SHAs and dates on every run (the conflicts snapshot)
    stamp = "2026-11-29T10:00:00+00:00"
    with patched_environ(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp):
        return _set_aside(demo, tmp_path, name)


def _set_aside(demo: Demo, tmp_path: Path, name: str) -> str:
    import subprocess

    from atk_tui.service import Service

    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(demo.root.parent / "remote.git"), str(other)], check=True)
    here = Service(demo.root, actor="user", pull=False, push=False)
    assert here.writes.save_text(name, here.read(name).text + MINE).ok
    there = Service(other, actor="user")
    assert there.writes.save_text(name, there.read(name).text + THEIRS).ok
    mine = git(demo.root, "rev-parse", "HEAD").strip()
    out = Service(demo.root, actor="user").conflicts.commit_pending()
    assert not out.ok
    assert [c.commit for c in Service(demo.root).conflicts.list()] == [mine]
    return mine
