"""What a hub (`atk hub`, SPEC §16) says about itself, read from its state directory: whether
one runs for the store (its `hub.lock` is held), and the `status.json` it keeps. `atk hub
status` and the dashboard's footer read it here; nothing here waits on the hub.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

STATUS = "status.json"
LOCK = "hub.lock"
_memo: dict[str, tuple[tuple, dict[str, Any] | None]] = {}
_dirs: dict[str, Path] = {}


def hub_state_dir(store: Path | str, *, create: bool = False) -> Path:
    """`$XDG_STATE_HOME/atk/hub/<short hash of the store's resolved path>/` (default
    `~/.local/state`): where a hub for `store` keeps what it remembers; made 0700 when
    `create`. (`hub.paths.state_dir` is this, made.)"""
    import hashlib

    key = str(store)
    path = _dirs.get(key) if not create else None
    if path is None:
        resolved = str(Path(store).expanduser().resolve())
        short = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        base = os.environ.get("XDG_STATE_HOME") or ""
        home = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
        path = home / "atk" / "hub" / short
        if len(_dirs) < 64:
            _dirs[key] = path
    if create:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            os.chmod(path, 0o700)
        except OSError:
            pass
    return path


def hub_running(state_dir: Path) -> bool:
    """Whether a hub holds this state directory's lock now (a crashed one holds nothing)."""
    import fcntl

    try:
        fd = os.open(state_dir / LOCK, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def hub_state(state_dir: Path | None) -> dict[str, Any] | None:
    """The hub's last `status.json` with `running` (the lock held now), or None when no hub
    ever ran for this store."""
    if state_dir is None:
        return None
    path = state_dir / STATUS
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (st.st_mtime_ns, st.st_size)
    got = _memo.get(str(path))
    if got is None or got[0] != key:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        got = (key, data if isinstance(data, dict) else None)
        _memo[str(path)] = got
    if got[1] is None:
        return None
    return {**got[1], "running": hub_running(state_dir)}


def hub_footer(store: Path | str) -> str | None:
    """The dashboard footer's few words about the hub of `store`: "hub running", "hub running ·
    ntfy://… failing: 500", "hub not running"; None when no hub ever ran for it."""
    state = hub_state(hub_state_dir(store))
    if state is None:
        return None
    if not state["running"]:
        return "hub not running"
    failing = [t for t in state.get("targets") or [] if isinstance(t, dict) and t.get("failing")]
    if failing:
        t = failing[0]
        return f"hub running · {t.get('name')} failing: {str(t.get('reason') or '')[:60]}"
    last = state.get("last_failure")
    if isinstance(last, dict) and last.get("reason"):
        return f"hub running · last failure {str(last.get('at') or '')[11:16]} {str(last.get('reason'))[:50]}"
    return "hub running"
