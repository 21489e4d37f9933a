"""The one facade every front end calls: the `atk` CLI, the dashboard, the tests.

It takes a store root and a clock, enforces who may do what (SPEC §5, §8; the rules
themselves are `core/ops.py`), and returns results and errors as values (`Outcome`) with
messages a person can act on. `Service` is assembled from one module per concern:

- `base.py`      construction, the write wrapper, the guards every write path runs
- `reads.py`     the queue, one item, history, titles, sync status, pull
- `writes.py`    transitions, add, edit, save, dependencies, plans, edit sessions
- `answers.py`   the user-only writes: answer, comment
- `conflicts.py` set-aside conflicts, `atk wi commit`, undo
- `elsewhere.py`  what waits for the person on GitHub (afkkit's escalations and reviews), read-only
- `types.py`     the values returned: Outcome, QueueView, HistoryEntry, SyncStatus, Conflict
"""

from __future__ import annotations

from ..store import is_alarm
from .answers import Answers
from .conflicts import Conflicts, PendingChange, undo_commit
from .elsewhere import ElsewhereReads
from .reads import Reads
from .types import CONFLICT_PREFIX, SHA_RE, Clock, Conflict, HistoryEntry, Outcome, QueueView, SyncStatus, utc_now
from .writes import Writes


class Service(Reads, Writes, Answers, Conflicts, ElsewhereReads):
    """`Service(root, clock=..., actor=...)`: every read and write of one store."""


__all__ = [
    "CONFLICT_PREFIX",
    "SHA_RE",
    "Clock",
    "Conflict",
    "HistoryEntry",
    "Outcome",
    "PendingChange",
    "QueueView",
    "Service",
    "SyncStatus",
    "is_alarm",
    "undo_commit",
    "utc_now",
]
