"""No cycle collection while many objects that hold no cycles are made."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """No cycle collection while tens of thousands of objects (holding no cycles) are made in
    a process with a big heap (the dashboard): the collector's passes over that heap would
    cost several times the work itself."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
