"""Fixtures of the dashboard's end-to-end tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.tmux import E2E_PROMPT, Tmux, tmux_session


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    """A private tmux server (its socket in the test's tmp dir) with a shell at `E2E_PROMPT`."""
    with tmux_session(tmp_path, E2E_PROMPT) as t:
        yield t
