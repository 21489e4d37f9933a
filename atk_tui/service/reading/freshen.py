"""What a read does before it answers (SPEC §15): bring in what the remote has, cheaply and
bounded in time, and say when the copy may be stale. The front ends ask here; the work is the
store's (`store.freshen`)."""

from __future__ import annotations

from atk_tui.store.freshen import (
    DEFAULT_READ_TIMEOUT,
    DEFAULT_READ_WINDOW,
    TIMEOUT_ENV,
    WINDOW_ENV,
    Freshness,
    freshen,
    freshen_once,
    read_limits,
    stale_message,
    with_stale,
)

__all__ = [
    "DEFAULT_READ_TIMEOUT", "DEFAULT_READ_WINDOW", "TIMEOUT_ENV", "WINDOW_ENV", "Freshness", "freshen", "freshen_once",
    "read_limits", "stale_message", "with_stale",
]  # fmt: skip
