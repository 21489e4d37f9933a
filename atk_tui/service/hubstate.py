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


def hub_footer(state_dir: Path | None) -> str | None:
    """The dashboard footer's few words: "hub running", "hub running · ntfy://… failing: 500",
    "hub stopped"; None when no hub ever ran for this store."""
    state = hub_state(state_dir)
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
