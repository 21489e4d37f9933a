"""An item's history read through gitpython (the dashboard's history screen, in a worker).

gitpython is imported here only, when a history is first asked for: it takes longer to
import than `atk wi list` takes to run, so it stays off the listing and first-frame paths
(`python -X importtime -c "import atk_tui.cli"` shows neither it nor pydantic). The commit
list comes from `git rev-list` with the store's time limit; the commits themselves are read
through gitpython's object database (one `git cat-file --batch`, closed afterwards).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .service.types import HistoryEntry

if TYPE_CHECKING:
    from .store import GitStore

ACTOR_TRAILER = "Atk-Actor"
_TRAILER_RE = re.compile(r"^([A-Za-z0-9-]+):\s*(.*)$")


def trailer_values(message: str, key: str = ACTOR_TRAILER) -> list[str]:
    """The values of trailer `key` in the last paragraph of a commit message."""
    paragraphs = [p for p in message.strip().split("\n\n") if p.strip()]
    if len(paragraphs) < 2:
        return []
    found = []
    for line in paragraphs[-1].splitlines():
        m = _TRAILER_RE.match(line.strip())
        if m and m[1].casefold() == key.casefold():
            found.append(m[2].strip())
    return found


def item_history(store: GitStore, filename: str, limit: int = 50) -> list[HistoryEntry]:
    """Commits that touched `filename` in any state folder, newest first, with the actor."""
    import git  # gitpython: see the module docstring

    with git.Repo(store.root) as repo:
        repo.git.update_environment(LC_ALL="C", GIT_TERMINAL_PROMPT="0")
        try:
            listed = repo.git.rev_list(
                f"--max-count={limit}", "HEAD", "--", f":(glob)wi/*/{filename}",
                kill_after_timeout=store.limit("timeout"),
            )
        except git.GitCommandError:
            return []  # no commits yet
        out = []
        for sha in listed.split():
            c = repo.commit(sha)
            message = c.message if isinstance(c.message, str) else c.message.decode("utf-8", "replace")
            subject = " ".join(message.split("\n\n", 1)[0].split())
            actor = ",".join(trailer_values(message))
            out.append(HistoryEntry(c.hexsha, c.authored_datetime, str(c.author.name), subject, actor or "?"))
        return out
