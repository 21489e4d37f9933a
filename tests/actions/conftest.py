"""Fixtures for the action tests (edit, answer, comment, transitions, bulk, undo)."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest
from actions_support import Demo, new_demo


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run `async def` tests (Pilot needs a loop) without an asyncio plugin."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        kwargs = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**kwargs))
        return True
    return None


@pytest.fixture
def demo(tmp_path: Path) -> Demo:
    """A fresh demo store (with its bare remote) created at the frozen NOW."""
    return new_demo(tmp_path / "demo")
