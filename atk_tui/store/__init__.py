"""The git store (SPEC §3, §5, §9): layout, lock, atomic write-and-commit, pull/push.

- `gitstore.py`    `GitStore`: git processes, reading the layout, the lock, `writing()`, recovery
- `remote.py`      pull (rebase), push, commits set aside on conflict, git-state guards
- `transaction.py` one write: journal, apply, commit on a copy of the index, roll back, hooks
- `files.py`       atomic/private file writes, digests, the index swap
(`AtkError` and its kinds live in core/errors.py and are re-exported here.)
"""

from __future__ import annotations

from atk_tui.domain.errors import (
    AtkError,
    GitFailed,
    GitTimeout,
    Interrupted,
    NotAStore,
    StateConflict,
    StoreBusy,
)
from atk_tui.store.gitstore import (
    LINK_DEFECT,
    LOCK_WAIT_MESSAGE,
    GitStore,
    ScanResult,
    ensure_queue_folders,
    init_store,
    item_path,
    missing_queue_folders,
    states_defect,
)
from atk_tui.store.remote import (
    LOCK_TIMEOUT,
    LOCK_TIMEOUT_ENV,
    PULL_MARKER,
    PUSH_TRIES,
    REWRITTEN,
    WriteResult,
    git_error_lines,
    is_alarm,
    lock_timeout,
    push_behind_remote,
    push_failure_reason,
)
from atk_tui.store.transaction import Transaction

__all__ = [
    "LINK_DEFECT",
    "LOCK_TIMEOUT",
    "LOCK_TIMEOUT_ENV",
    "LOCK_WAIT_MESSAGE",
    "PULL_MARKER",
    "PUSH_TRIES",
    "REWRITTEN",
    "AtkError",
    "GitFailed",
    "GitStore",
    "GitTimeout",
    "Interrupted",
    "NotAStore",
    "ScanResult",
    "StateConflict",
    "StoreBusy",
    "Transaction",
    "WriteResult",
    "ensure_queue_folders",
    "git_error_lines",
    "init_store",
    "is_alarm",
    "item_path",
    "lock_timeout",
    "missing_queue_folders",
    "push_behind_remote",
    "push_failure_reason",
    "states_defect",
]
