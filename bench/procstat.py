"""What /proc says about a process the benches started (Linux): shared by bench_tui.py and scale.py."""

from __future__ import annotations

from pathlib import Path


def hwm_mib(pid: int) -> float:
    """The process's peak resident set (VmHWM) in MiB; NaN when it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")
