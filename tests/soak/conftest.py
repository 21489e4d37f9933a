"""The soak, fault and hostile-input suites drive the scripts in bench/ (one source for the
benchmarks and their CI-sized runs)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))
