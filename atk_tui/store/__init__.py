"""The git store (SPEC §3, §5, §9): layout, lock, atomic write-and-commit, pull/push.

- `gitstore.py`    `GitStore`: git processes, reading the layout, the lock, `writing()`; it holds
                   its `Remote` as `store.remote`
- `layout.py`      where things are: an item's path, the state folders' `.gitkeep` files
- `create.py`      `atk init`: making a store, the queue folders an older store lacks
- `remote.py`      `Remote`: pull (rebase), push, commits set aside on conflict
- `gitstate.py`    git-state guards (a rebase in progress, conflicts, uncommitted changes), git's
                   reasons in one line
- `transaction.py` one write: journal, apply, commit on a copy of the index, roll back, hooks;
                   recovery of a killed write
- `files.py`       atomic/private file writes, digests, the index swap
(`AtkError` and the kinds its callers catch live in domain/errors.py and are re-exported here.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from atk_tui.domain.errors import AtkError, NotAStore, StateConflict

#: what the package gives from its modules, imported when first asked for (PEP 562): a warm
#: listing reads the store through `storesig` alone, and importing the package imported
#: `gitstore` and `remote` before it (~12 ms of a 100 ms `atk wi list`)
_FROM = {
    "gitstore": ("GitStore",),
    "layout": ("item_path", "missing_queue_folders", "states_defect"),
    "create": ("init_store",),
    "remote": ("REWRITTEN", "WriteResult", "is_alarm"),
    "gitstate": ("git_error_lines", "lock_timeout", "push_behind_remote", "push_failure_reason"),
    "transaction": ("Transaction",),
}  # fmt: skip
_MODULE_OF = {name: module for module, names in _FROM.items() for name in names}

if TYPE_CHECKING:
    from atk_tui.store.create import init_store
    from atk_tui.store.gitstate import git_error_lines, lock_timeout, push_behind_remote, push_failure_reason
    from atk_tui.store.gitstore import GitStore
    from atk_tui.store.layout import item_path, missing_queue_folders, states_defect
    from atk_tui.store.remote import REWRITTEN, WriteResult, is_alarm
    from atk_tui.store.transaction import Transaction


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "REWRITTEN",
    "AtkError",
    "GitStore",
    "NotAStore",
    "StateConflict",
    "Transaction",
    "WriteResult",
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
