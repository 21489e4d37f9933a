"""How front ends notice that the store changed: the dashboard's watcher, the hub and
`atk wi process-loop` compare the store's stamp (`store.storesig.store_stamp`: its commit,
git's index and every state folder), the same one a cached listing's signature starts with
(SPEC §10 "live", §13)."""

from __future__ import annotations

import os
from pathlib import Path

from atk_tui.domain.queues import QUEUES
from atk_tui.store.storesig import store_stamp

#: the folders whose names the front ends watch: every state folder of both queues, and notices
WATCHED = (*(f"{q.folder}/{s}" for q in QUEUES for s in q.states), "notices")


def store_signature(root: Path | str) -> tuple[str, int]:
    """Changes with a new commit, a pull, a staged change, or a file added, removed or
    renamed in a state folder (a hand edit moving an item)."""
    return store_stamp(root, WATCHED)


def dashboard_signature(root: Path | str) -> tuple:
    """What the dashboard watches: `store_signature`, and the stat of the process-loop's state
    file (the status line shows its sessions)."""
    try:
        st = os.stat(Path(root) / ".git" / "atk-loop" / "state.json")
        loop = (st.st_mtime_ns, st.st_size)
    except OSError:
        loop = None
    return (*store_signature(root), loop)
