"""How front ends notice that the store changed: the dashboard's watcher and `atk wi
process-loop` use this one signature (SPEC §10 "live", §13)."""

from __future__ import annotations

import os
from pathlib import Path

from atk_tui.domain.queues import QUEUES
from atk_tui.host.regular import read_regular


def store_signature(root: Path | str) -> tuple:
    """(mtime, size) of git's HEAD, index, refs, the current branch, every state folder and
    the notices folder: cheap stats whose change means a new commit, a pull or a hand edit."""
    root = Path(root)
    git = root / ".git"
    paths = [git / "HEAD", git / "index", git / "packed-refs", git / "refs" / "heads"]
    try:
        ref = read_regular(git / "HEAD", 4096).decode("utf-8", "replace").strip()
        if ref.startswith("ref: "):
            paths.append(git / ref[5:])
    except OSError:
        pass
    paths += [root / q.folder / s for q in QUEUES for s in q.states]
    paths.append(root / "notices")
    sig = []
    for p in paths:
        try:
            st = os.stat(p)
            sig.append((st.st_mtime_ns, st.st_size))
        except OSError:
            sig.append(None)
    return tuple(sig)


def dashboard_signature(root: Path | str) -> tuple:
    """What the dashboard watches: `store_signature`, and the stat of the process-loop's state
    file (the status line shows its sessions)."""
    try:
        st = os.stat(Path(root) / ".git" / "atk-loop" / "state.json")
        loop = (st.st_mtime_ns, st.st_size)
    except OSError:
        loop = None
    return (*store_signature(root), loop)
