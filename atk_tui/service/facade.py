"""`Service`: every read and write of one store, joined here from one part per concern (see the
package's docstring): the reads, writes, answers and conflicts on the write core they hold
(`self.core`), and what waits on GitHub as a part of its own (`self.elsewhere`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atk_tui.domain.model import ACTIVE
from atk_tui.service.elsewhere.view import ElsewhereView
from atk_tui.service.reading.reads import Reads
from atk_tui.service.writing.answers import Answers
from atk_tui.service.writing.conflicts import Conflicts
from atk_tui.service.writing.writes import Writes


class Service(Reads, Writes, Answers, Conflicts):
    """`Service(root, clock=..., actor=...)`: every read and write of one store (the options are
    `ServiceBase`'s)."""

    def __init__(self, root: Path | str, **options: Any) -> None:
        super().__init__(root, **options)
        #: what waits for the person on GitHub, read-only: `svc.elsewhere.refresh()`, `.cached()`, ...
        self.elsewhere = ElsewhereView(
            self.root, self.store.git_dir, now=lambda: self.clock(), only_repo=self.only_repo,
            active_repos=lambda: {i.target_repo for i in self.queue(ACTIVE).items.values() if i.target_repo},
        )  # fmt: skip
