"""Needs you, elsewhere: the afkkit runs' escalations and reviews on GitHub (`service.elsewhere.afkkit`),
for both front ends. Read-only: gh runs in `service.elsewhere.afkkit` with its time limits; nothing here
writes to GitHub or to the store (the last look is kept in `.git/atk-cache/`).

`ElsewhereView` is a part `Service` holds as `svc.elsewhere` (made in `facade.py`): it knows the
store's folders, the clock, `--target-repo`, and asks the service for the repositories the active
items target."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from atk_tui.service.types import Outcome

if TYPE_CHECKING:
    from atk_tui.host.procs import Children
    from atk_tui.service.elsewhere.afkkit import Elsewhere, Gh, Settings

_LOCK = threading.Lock()


class ElsewhereView:
    """`ElsewhereView(root, git_dir, now=..., only_repo=..., active_repos=...)`: the last look, a new
    look, opening an issue or PR, and stopping the gh processes it runs."""

    def __init__(
        self,
        root: Path,
        git_dir: Path,
        *,
        now: Callable[[], datetime],
        only_repo: str | None,
        active_repos: Callable[[], Iterable[str]],
    ) -> None:
        self.root = root
        self.git_dir = git_dir
        self.now = now
        self.only_repo = only_repo
        #: the `target_repo` values of the active items (read when a look names no repositories)
        self.active_repos = active_repos
        self._kids: Children | None = None

    def gh_children(self) -> Children:
        """The gh processes of this view (apart from the store's git: `interrupt`)."""
        with _LOCK:
            if self._kids is None:
                from atk_tui.host.procs import Children

                self._kids = Children()
        return self._kids

    def _gh(self, settings: Settings | None = None) -> Gh:
        from atk_tui.service.elsewhere.afkkit import Gh

        return Gh(self.gh_children(), timeout=(settings or self.settings()).timeout, cwd=self.root)

    def settings(self) -> Settings:
        """The `[elsewhere]` table of the config file (bad values: `errors`, defaults used)."""
        from atk_tui.service.elsewhere.afkkit import settings

        return settings()

    def repos(self, target_repos: Iterable[str] | None = None, settings: Settings | None = None) -> tuple[list[str], list[str]]:
        """(the GitHub repositories to look at: the `target_repo` values of the active items,
        given or read now, and `[elsewhere] repos`; the values naming none). `--target-repo`
        (`only_repo`) narrows it to that one."""
        from atk_tui.service.elsewhere.afkkit import github_repo, repositories

        if self.only_repo:
            name = github_repo(self.only_repo)
            return ([name], []) if name else ([], [self.only_repo])
        if target_repos is None:
            target_repos = set(self.active_repos())
        return repositories(target_repos, (settings or self.settings()).repos)

    def cached(self) -> Elsewhere | None:
        """The last look (from `.git/atk-cache/`), None when there was none: no gh, no network."""
        from atk_tui.service.elsewhere.afkkit import load

        return load(self.git_dir)

    def refresh(self, target_repos: Iterable[str] | None = None, *, settings: Settings | None = None) -> Elsewhere:
        """A new look at GitHub (kept for the next start), or the last one with why none could be
        made (gh missing, logged out, a rate limit's backoff). Never raises for gh's sake."""
        from atk_tui.service.elsewhere.afkkit import refresh, save

        settings = settings or self.settings()
        repos, skipped = self.repos(target_repos, settings)
        self.gh_children().reset()
        found = refresh(self._gh(settings), repos, self.cached(), self.now(), skipped)
        if found.problem_kind != "stopped":
            save(self.git_dir, found)
        return found

    def open(self, repo: str, number: int, kind: str) -> Outcome:
        """Open an issue or PR in the browser (`gh … view --web`); refused with gh's reason."""
        from atk_tui.service.elsewhere.afkkit import GhProblem, open_in_browser

        try:
            open_in_browser(self._gh(), repo, number, kind)
        except GhProblem as exc:
            return Outcome(False, "open", exc.message, code=exc.kind)
        return Outcome(True, "open", f"opened {repo}#{number} in the browser")

    def interrupt(self) -> int:
        """Kill every gh process this view runs now (quitting the dashboard). Any thread."""
        return self.gh_children().interrupt()
