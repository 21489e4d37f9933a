"""What a read does before it answers (SPEC §15): bring in what the remote has, cheaply and
bounded in time, and say when the copy may be stale. The front ends ask here; the work is the
store's (`store.freshen`)."""

from __future__ import annotations

from atk_tui.store.freshen import freshen, freshen_once, stale_message, with_stale

__all__ = ["freshen", "freshen_once", "stale_message", "with_stale"]
