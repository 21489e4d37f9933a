"""Fixtures for every test folder (helpers live in tests/support)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.actions_support import Demo
from support.apps import build_app
from support.clock import NOW
from support.ghkit import fake_gh  # noqa: F401 (a fixture: the fake `gh` on the PATH)
from support.storekit import AWI_BODY, FROZEN, UWI_BODY, Clock, add_item, clone, git, make_remote_pair, tree_state  # noqa: F401

from atk_tui.demo import create_demo_store, demo_filenames
from atk_tui.service import Service
from atk_tui.store import init_store
from atk_tui.tui.app import AtkApp

#: One git identity and no global or system git config for the whole session, set before any
#: fixture runs (session fixtures commit too; so do the binaries the tmux tests start): the
#: suite passes on a machine that has no global git identity, and a developer's own
#: `~/.gitconfig` (hooks, signing, templates) changes nothing.
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}
os.environ.update(GIT_IDENTITY)


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No agent variables, no user config, the session's git identity: tests see the same world."""
    for var in ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT", "ATK_AGENT_ID", "ATK_LOOP_SESSION",
                "ATK_PRIVATE_NOTES", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for var, value in GIT_IDENTITY.items():
        monkeypatch.setenv(var, value)
    # no test reaches GitHub: `gh` is a program that does not exist unless a test puts the fake
    # one on the PATH (the `fake_gh` fixture, support/ghkit.py)
    monkeypatch.setenv("ATK_GH", str(home / "no-gh-in-tests"))


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store with no remote."""
    root, _ = init_store(tmp_path / "notes")
    return root


@pytest.fixture
def remote_store(tmp_path: Path) -> tuple[Path, Path]:
    return make_remote_pair(tmp_path)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def svc(store: Path, clock: Clock) -> Service:
    return Service(store, clock=clock, actor="user")


@pytest.fixture
def env_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDECODE", "1")


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One demo store (and its bare remote) made at NOW per test worker; tests get copies."""
    base = tmp_path_factory.mktemp("demo-template")
    create_demo_store(base, NOW)
    return base


def _copy_demo(template: Path, tmp_path: Path) -> Path:
    """A private copy of a demo store made by a template fixture, its remote pointed at the copy's."""
    base = tmp_path / "demo"
    shutil.copytree(template, base, symlinks=True)
    store = base / "store"
    git(store, "remote", "set-url", "origin", str(base / "remote.git"))
    return store


@pytest.fixture
def demo_store(demo_template: Path, tmp_path: Path) -> Path:
    """A private copy of the demo store (with its bare remote), ready to be written to."""
    return _copy_demo(demo_template, tmp_path)


@pytest.fixture(scope="session")
def mq_demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo store with its feedback queue (`atk mq`), once per test worker."""
    base = tmp_path_factory.mktemp("mq-demo-template")
    create_demo_store(base, NOW, feedback_queue=True)
    return base


@pytest.fixture
def mq_store(mq_demo_template: Path, tmp_path: Path) -> Path:
    """A private copy of the demo store with its feedback queue."""
    return _copy_demo(mq_demo_template, tmp_path)


@pytest.fixture
def app_factory(demo_store: Path) -> Callable[..., AtkApp]:
    """`build_app` on the demo store (or another root)."""

    def factory(root: Path | None = None, **kw: Any) -> AtkApp:
        return build_app(root or demo_store, **kw)

    return factory


@pytest.fixture
def demo(demo_store: Path) -> Demo:
    """The demo store (a private, writable copy) with its notable items by key."""
    return Demo(demo_store.resolve(), demo_filenames(NOW))


# -- the fast loop: `pytest -m "not e2e"` -----------------------------------------------------

#: folders whose every test is a long run of real programs: the multi-clone and hostile soaks
E2E_DIRS = frozenset({"soak"})
#: fixtures that start a real program: a private tmux server (tests/dashboard/conftest.py)
E2E_FIXTURES = frozenset({"tmux"})
#: a test module that says one of these drives a real terminal, shell or browser
#: (`need_tool`: tmux, vim, chromium, zsh, fish; `tmux_session`: the binaries in tmux)
E2E_SOURCE = ("need_tool(", "tmux_session(")


#: the tests the quick loop leaves out (`-m "not e2e and not slow"`), by node id, one a line:
#: written by scripts/slow_tests.py from a run's --durations report
SLOW_LIST = Path(__file__).parent / "slow_tests.txt"


def _slow_tests() -> frozenset[str]:
    try:
        lines = SLOW_LIST.read_text(encoding="utf-8").splitlines()
    except OSError:
        return frozenset()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark `e2e` every test that runs real programs (tmux, vim, chromium, zsh, fish) or the
    multi-clone soaks, by its folder, its fixtures or its module, so `pytest -m "not e2e"` is
    the unit and Pilot tests (docs/development.md#the-tests); mark `slow` the ones
    tests/slow_tests.txt names, so `-m "not e2e and not slow"` is the quick loop. The full suite
    is unchanged."""
    slow = _slow_tests()
    by_module: dict[Path, bool] = {}
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)
        path = Path(str(item.fspath))
        if path not in by_module:
            try:
                text = path.read_text(encoding="utf-8")
            except OSError:
                text = ""
            by_module[path] = path.parent.name in E2E_DIRS or any(s in text for s in E2E_SOURCE)
        if by_module[path] or E2E_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)
