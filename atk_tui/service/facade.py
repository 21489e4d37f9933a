"""`Service`: every read and write of one store, assembled from one module per concern
(see the package's docstring)."""

from __future__ import annotations

from atk_tui.service.elsewhere.view import ElsewhereReads
from atk_tui.service.reading.reads import Reads
from atk_tui.service.writing.answers import Answers
from atk_tui.service.writing.conflicts import Conflicts
from atk_tui.service.writing.writes import Writes


class Service(Reads, Writes, Answers, Conflicts, ElsewhereReads):
    """`Service(root, clock=..., actor=...)`: every read and write of one store."""
