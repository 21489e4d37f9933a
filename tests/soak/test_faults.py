"""Issue #6: faults. kill -9 mid-write, a failing disk, a corrupted cache, stale locks, a lost
remote, a cross-machine conflict, and the dashboard's errors. The scenarios live in
tests/support/faults.py (also a standalone script: bench/faults.py); each checks the store and raises on a problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.faults import SCENARIOS


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_fault(name: str, tmp_path: Path) -> None:
    summary = SCENARIOS[name](tmp_path)
    assert summary
