"""`Service`: every read and write of one store, joined here from one part per concern (see the
package's docstring): the reads, on the write core it holds (`self.core`), and the parts made on
it here: the writes (`self.writes`), the person's answers and comments (`self.answers`), what did
not land (`self.conflicts`) and what waits on GitHub (`self.elsewhere`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atk_tui.domain.model import ACTIVE
from atk_tui.service.elsewhere.view import ElsewhereView
from atk_tui.service.reading.reads import Reads
from atk_tui.service.types import SyncStatus
from atk_tui.service.writing.answers import Answers
from atk_tui.service.writing.conflicts import Conflicts
from atk_tui.service.writing.writes import Writes


class Service(Reads):
    """`Service(root, clock=..., actor=...)`: every read and write of one store (the options are
    `ServiceBase`'s)."""

    def __init__(self, root: Path | str, **options: Any) -> None:
        super().__init__(root, **options)
        #: transitions, add, edit, dependencies, plans, edit sessions: `svc.writes.transition_command(...)`, ...
        self.writes = Writes(self.core, self, self.clock)
        #: the user-only writes: `svc.answers.answer(...)`, `.comment(...)`, `.note_shown(...)`
        self.answers = Answers(self.core)
        #: set-aside commits and the uncommitted tree: `svc.conflicts.list()`, `.commit_pending()`
        self.conflicts = Conflicts(self.core)
        #: what waits for the person on GitHub, read-only: `svc.elsewhere.refresh()`, `.cached()`, ...
        self.elsewhere = ElsewhereView(
            self.root, self.store.git_dir, now=lambda: self.clock(), only_repo=self.only_repo,
            active_repos=lambda: {i.target_repo for i in self.queue(ACTIVE).items.values() if i.target_repo},
        )  # fmt: skip

    def sync_status(self) -> SyncStatus:
        """How the store stands against its remote (the dashboard's status line)."""
        upstream = self.store.remote.upstream()
        behind = 0
        if upstream:
            proc = self.store.git("rev-list", "--count", "HEAD..@{u}", check=False)
            behind = int(proc.stdout.strip() or 0) if proc.returncode == 0 else 0
        return SyncStatus(
            unpushed=self.store.remote.unpushed() if upstream else 0,
            conflicts=self.conflicts.count(),
            upstream=upstream,
            has_upstream=upstream is not None,
            behind=behind,
        )

    def status(self) -> dict[str, object]:
        """Where the store stands (`atk wi status`): its remote, what is unpushed or set aside."""
        return {
            "store": str(self.root),
            "upstream": self.store.remote.upstream(),
            "unpushed": self.store.remote.unpushed(),
            "head": self.store.head(),
            "actor": self.actor,
            "conflicts": self.conflicts.count(),
        }
