"""The one facade every front end calls: the `atk` CLI, the dashboard, the tests.

It takes a store root and a clock, enforces who may do what (SPEC §5, §8; the rules
themselves are `domain/ops.py`), and returns results and errors as values (`Outcome`) with
messages a person can act on. `Service` (`facade.py`) is joined from one part per concern, each
in the subpackage of its concern:

- `service/core/base.py`        construction: the write core every part holds as `self.core`
                                (`service/core/writecore.py`: find, read from the file, write
                                one commit, the guards; `service/core/pushguard.py`,
                                `service/core/holds.py`)
- `service/reading/reads.py`    the queue, one item, history, sync status, pull
- `service/writing/writes.py`   `svc.writes`: transitions, add, edit, save, dependencies, plans,
                                edit sessions (it reads through the service: `types.WriteReads`)
- `service/writing/answers.py`  the user-only writes: answer, comment
- `service/writing/conflicts.py` set-aside conflicts, `atk wi commit`, undo
- `service/elsewhere/view.py`   `svc.elsewhere`, a part of its own: what waits for the person on
                                GitHub (afkkit's escalations and reviews, read through
                                `service/elsewhere/afkkit.py`), read-only
- `service/types.py`            the values returned: Outcome, QueueView, HistoryEntry, SyncStatus,
                                Conflict

Beside it, use cases a front end asks without a `Service`: `service.reading.listing` (the judged
listing and its cache, for the CLI's fast path), `service.reading.freshen` (a read brings in what
the remote has), `service.writing.editing`, `service.notices`, `service.writing.plans`,
`service.reading.loop`, `service.history.stats`, `service.core.holds`, `service.resolve`,
`service.writing.itemmeta`. `.importlinter` keeps `reading/`, `writing/` and `elsewhere/` apart,
over `history/`, `core/` and `types.py`.

The names below are loaded when first asked for (`__getattr__`): importing one of the modules
beside the facade (the CLI's fast path imports `service.reading.listing`) does not load the facade.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from atk_tui.service.facade import Service
    from atk_tui.service.history.deadlines import overdue_first
    from atk_tui.service.hubstate import hub_footer
    from atk_tui.service.types import Conflict, Outcome, QueueView, SyncStatus, utc_now
    from atk_tui.service.writing.conflicts import PendingChange
    from atk_tui.store import init_store, is_alarm, item_path

#: name -> the module it lives in
_WHERE = {
    "Service": "atk_tui.service.facade",
    "PendingChange": "atk_tui.service.writing.conflicts",
    **dict.fromkeys(("Conflict", "Outcome", "QueueView", "SyncStatus", "utc_now"), "atk_tui.service.types"),
    **dict.fromkeys(("init_store", "is_alarm", "item_path"), "atk_tui.store"),
    "overdue_first": "atk_tui.service.history.deadlines",  # the dashboard's needs-you order (SPEC §16)
    "hub_footer": "atk_tui.service.hubstate",  # the dashboard footer's word on `atk hub`
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'atk_tui.service' has no attribute {name!r}")
    value = getattr(import_module(where), name)
    globals()[name] = value
    return value


__all__ = [  # the same names as _WHERE's (a test checks)
    "Conflict", "Outcome", "PendingChange", "QueueView", "Service", "SyncStatus", "hub_footer", "init_store",
    "is_alarm", "item_path", "overdue_first", "utc_now",
]  # fmt: skip
