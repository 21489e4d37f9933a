"""Where the hub keeps what it remembers: outside the store's history, one directory per store
(the service reads it too: `service.hubstate`)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from atk_tui.service.hubstate import hub_state_dir


def store_key(store: Path) -> str:
    """A short hash of the store's resolved path: the name of its state directory."""
    resolved = str(Path(store).expanduser().resolve())
    return hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def state_dir(store: Path, *, create: bool = True) -> Path:
    """`$XDG_STATE_HOME/atk/hub/<short hash of the store's path>/` (default `~/.local/state`),
    created 0700 (`create` False: only where it is, for a reader that must not make it)."""
    return hub_state_dir(store, create=create)
