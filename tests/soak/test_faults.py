"""Issue #6: faults. kill -9 mid-write, a failing disk, a corrupted cache, stale locks, a lost
remote, a cross-machine conflict, and the dashboard's errors. The scenarios live in
bench/faults.py (also a standalone script); each checks the store and raises on a problem."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))  # bench/faults.py is the one source of the scenarios

from faults import SCENARIOS  # noqa: E402


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_fault(name: str, tmp_path: Path) -> None:
    summary = SCENARIOS[name](tmp_path)
    assert summary
