"""`Service`: every read and write of one store, assembled from one module per concern
(see the package's docstring)."""

from __future__ import annotations

from atk_tui.service.answers import Answers
from atk_tui.service.conflicts import Conflicts
from atk_tui.service.elsewhere import ElsewhereReads
from atk_tui.service.reads import Reads
from atk_tui.service.writes import Writes


class Service(Reads, Writes, Answers, Conflicts, ElsewhereReads):
    """`Service(root, clock=..., actor=...)`: every read and write of one store."""
