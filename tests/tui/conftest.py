"""Fixtures for the dashboard tests: a deterministic demo store and apps built by `make_app`."""

from __future__ import annotations

import asyncio
import inspect
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tui_helpers import NOW, build_app

from atk_tui.demo import create_demo_store
from atk_tui.tui.app import AtkApp


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run `async def` tests (Pilot needs a loop) without an asyncio plugin."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        kwargs = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**kwargs))
        return True
    return None


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One demo store per test worker; tests get copies (`demo_store`)."""
    base = tmp_path_factory.mktemp("demo-template")
    create_demo_store(base, NOW)
    return base


@pytest.fixture
def demo_store(demo_template: Path, tmp_path: Path) -> Path:
    """A private copy of the demo store (with its bare remote), ready to be written to."""
    base = tmp_path / "demo"
    shutil.copytree(demo_template, base, symlinks=True)
    store = base / "store"
    subprocess.run(["git", "remote", "set-url", "origin", str(base / "remote.git")], cwd=store, check=True)
    return store


@pytest.fixture
def app_factory(demo_store: Path) -> Callable[..., AtkApp]:
    def factory(root: Path | None = None, **kw: Any) -> AtkApp:
        return build_app(root or demo_store, **kw)

    return factory
