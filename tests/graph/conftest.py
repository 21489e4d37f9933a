"""Fixtures for the dependency graph and dependency editor tests."""

from __future__ import annotations

import asyncio
import inspect
import shutil
import subprocess
from pathlib import Path

import pytest
from graph_support import NOW

from atk_tui.demo import create_demo_store


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run `async def` tests (Pilot needs a loop) without an asyncio plugin."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        kwargs = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**kwargs))
        return True
    return None


@pytest.fixture(scope="session")
def graph_demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("graph-demo")
    create_demo_store(base, NOW)
    return base


@pytest.fixture
def demo_store(graph_demo_template: Path, tmp_path: Path) -> Path:
    """A private copy of the demo store made at `NOW`."""
    base = tmp_path / "demo"
    shutil.copytree(graph_demo_template, base, symlinks=True)
    store = base / "store"
    subprocess.run(["git", "remote", "set-url", "origin", str(base / "remote.git")], cwd=store, check=True)
    return store
