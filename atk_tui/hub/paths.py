"""Where the hub keeps what it remembers: outside the store's history, one directory per store."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def _state_home() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or ""
    return Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"


def store_key(store: Path) -> str:
    """A short hash of the store's resolved path: the name of its state directory."""
    resolved = str(Path(store).expanduser().resolve())
    return hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def state_dir(store: Path, *, create: bool = True) -> Path:
    """`$XDG_STATE_HOME/atk/hub/<short hash of the store's path>/`, created 0700 (`create`
    False: only where it is, for a reader that must not make it)."""
    path = _state_home() / "atk" / "hub" / store_key(store)
    if not create:
        return path
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass
    return path
