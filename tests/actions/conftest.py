"""Fixtures for the action tests (edit, answer, comment, transitions, bulk, undo)."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest
from actions_support import Demo, demo_template, new_demo


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run `async def` tests (Pilot needs a loop) without an asyncio plugin."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        kwargs = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**kwargs))
        return True
    return None


@pytest.fixture(scope="session")
def actions_demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One demo store (and bare remote) per test worker, made at the frozen NOW."""
    return demo_template(tmp_path_factory.mktemp("actions-demo") / "demo")


@pytest.fixture
def demo(actions_demo_template: Path, tmp_path: Path) -> Demo:
    """A private, writable copy of the demo store."""
    return new_demo(actions_demo_template, tmp_path / "demo")
