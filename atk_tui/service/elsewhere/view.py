"""Needs you, elsewhere: the afkkit runs' escalations and reviews on GitHub (`service.elsewhere.afkkit`),
for both front ends. Read-only: gh runs in `service.elsewhere.afkkit` with its time limits; nothing here
writes to GitHub or to the store (the last look is kept in `.git/atk-cache/`)."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from atk_tui.domain.model import ACTIVE
from atk_tui.service.core.base import ServiceBase
from atk_tui.service.types import Outcome

if TYPE_CHECKING:
    from atk_tui.host.procs import Children
    from atk_tui.service.elsewhere.afkkit import Elsewhere, Gh, Settings

_LOCK = threading.Lock()


class ElsewhereReads(ServiceBase):
    def _gh_children(self) -> Children:
        """The gh processes of this service (apart from the store's git: `elsewhere_interrupt`)."""
        with _LOCK:
            kids = self.__dict__.get("_gh_kids")
            if kids is None:
                from atk_tui.host.procs import Children

                kids = self.__dict__["_gh_kids"] = Children()
        return kids

    def _gh(self, settings: Settings | None = None) -> Gh:
        from atk_tui.service.elsewhere.afkkit import Gh

        return Gh(self._gh_children(), timeout=(settings or self.elsewhere_settings()).timeout, cwd=self.root)

    def elsewhere_settings(self) -> Settings:
        """The `[elsewhere]` table of the config file (bad values: `errors`, defaults used)."""
        from atk_tui.service.elsewhere.afkkit import settings

        return settings()

    def elsewhere_repos(self, target_repos: Iterable[str] | None = None, settings: Settings | None = None) -> tuple[list[str], list[str]]:
        """(the GitHub repositories to look at: the `target_repo` values of the active items,
        given or read now, and `[elsewhere] repos`; the values naming none). `--target-repo`
        (`only_repo`) narrows it to that one."""
        from atk_tui.service.elsewhere.afkkit import github_repo, repositories

        if self.only_repo:
            name = github_repo(self.only_repo)
            return ([name], []) if name else ([], [self.only_repo])
        if target_repos is None:
            target_repos = {i.target_repo for i in self.queue(ACTIVE).items.values() if i.target_repo}
        return repositories(target_repos, (settings or self.elsewhere_settings()).repos)

    def elsewhere_cached(self) -> Elsewhere | None:
        """The last look (from `.git/atk-cache/`), None when there was none: no gh, no network."""
        from atk_tui.service.elsewhere.afkkit import load

        return load(self.store.git_dir)

    def elsewhere_refresh(self, target_repos: Iterable[str] | None = None, *, settings: Settings | None = None) -> Elsewhere:
        """A new look at GitHub (kept for the next start), or the last one with why none could be
        made (gh missing, logged out, a rate limit's backoff). Never raises for gh's sake."""
        from atk_tui.service.elsewhere.afkkit import refresh, save

        settings = settings or self.elsewhere_settings()
        repos, skipped = self.elsewhere_repos(target_repos, settings)
        self._gh_children().reset()
        found = refresh(self._gh(settings), repos, self.elsewhere_cached(), self.clock(), skipped)
        if found.problem_kind != "stopped":
            save(self.store.git_dir, found)
        return found

    def elsewhere_open(self, repo: str, number: int, kind: str) -> Outcome:
        """Open an issue or PR in the browser (`gh … view --web`); refused with gh's reason."""
        from atk_tui.service.elsewhere.afkkit import GhProblem, open_in_browser

        try:
            open_in_browser(self._gh(), repo, number, kind)
        except GhProblem as exc:
            return Outcome(False, "open", exc.message, code=exc.kind)
        return Outcome(True, "open", f"opened {repo}#{number} in the browser")

    def elsewhere_interrupt(self) -> int:
        """Kill every gh process this service runs now (quitting the dashboard). Any thread."""
        return self._gh_children().interrupt()
