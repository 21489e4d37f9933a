"""What every part of the service shares: construction (the write core, `WriteCore`, made once and
held as `self.core`: `writecore.py`), the listeners, who holds what, and what an agent may push
(SPEC §8, §11, §15)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from atk_tui.domain.model import Item, is_valid_filename
from atk_tui.domain.queues import Queue
from atk_tui.service.core import pushguard
from atk_tui.service.core.holds import (
    Holder,
    is_held_state,
)
from atk_tui.service.core.writecore import WriteCore
from atk_tui.service.types import Clock, utc_now
from atk_tui.store import (
    AtkError,
    GitStore,
    item_path,
)
from atk_tui.text.textsafe import safe_line


class ServiceBase:
    """Construction and what every part shares; a write goes through `self.core` (`WriteCore`)."""

    def __init__(
        self,
        root: Path | str,
        *,
        clock: Clock = utc_now,
        actor: str | None = None,
        only_repo: str | None = None,
        pull: bool = True,
        push: bool = True,
        use_cache: bool = True,
        queue: Queue | str | None = None,
    ) -> None:
        """`queue`: the queue the commands name items in (`atk wi` / `atk mq`); None: both
        (the dashboard). Reads always see both queues: dependencies cross them."""
        self.core = WriteCore(GitStore(root), actor=actor, queue=queue, only_repo=only_repo, pull=pull, push=push,
                              use_cache=use_cache)
        self.clock = clock
        if self.actor == "agent":
            # issue 38: an agent environment never pushes a user-only change it did not make
            # through atk (a plain `git commit` of a trimmed answer, a hand move into editing)
            self.store.remote.push_check = self._check_push

    # what the core holds, as every part reads it (`take_over`, `use_cache` and the pull/push
    # switches are set from outside: `--take-over`, tests)
    store = property(lambda self: self.core.store)
    root = property(lambda self: self.core.root)
    q = property(lambda self: self.core.q)
    queues = property(lambda self: self.core.queues)
    actor = property(lambda self: self.core.actor)
    agent_id = property(lambda self: self.core.agent_id)
    agent_id_error = property(lambda self: self.core.agent_id_error)
    only_repo = property(lambda self: self.core.only_repo)
    take_over = property(lambda self: self.core.take_over, lambda self, v: setattr(self.core, "take_over", v))
    use_cache = property(lambda self: self.core.use_cache, lambda self, v: setattr(self.core, "use_cache", v))
    pull_on_write = property(lambda self: self.core.pull_on_write, lambda self, v: setattr(self.core, "pull_on_write", v))
    push_on_write = property(lambda self: self.core.push_on_write, lambda self, v: setattr(self.core, "push_on_write", v))

    def set_lock_wait_listener(self, listener: Callable[[str | None], None] | None) -> None:
        """`listener(message)` when a write has to wait for the store lock (another process
        writes), `listener(None)` when that wait is over; called from the writing thread."""
        self.store.on_lock_wait = listener

    def set_activity_listener(self, listener: Callable[[str | None], None] | None) -> None:
        """`listener(step)` when a write starts a slow step (a git hook), `listener(None)` when
        it ends; called from the writing thread."""
        self.store.on_activity = listener

    def interrupt(self) -> int:
        """Kill every child process (git, hooks) the store runs now, so that a write blocked
        on one (a stuck hook, a remote that never answers) fails promptly and rolls back; the
        dashboard calls it when the user quits during such a write. Safe from any thread.
        Returns how many children were killed."""
        return self.store.interrupt()

    def scratch_dir(self) -> Path:
        """Where the dashboard keeps the text of edit sessions (inside .git: never committed)."""
        return self.store.git_dir / "atk-edit"

    def held_by(self, items: Sequence[Item]) -> dict[str, Holder]:
        """Who holds each of `items` that is in a held state (SPEC §15: `held_by` in the
        listings, the holder in `show` and the detail pane): one git walk for them all."""
        paths = {item_path(i.state, i.filename, i.queue): i.filename for i in items if is_held_state(i.queue, i.state)}
        if not paths:
            return {}
        return {paths[p]: h for p, h in self.core.holders(list(paths)).items()}

    def held_in(self, states: Sequence[str]) -> dict[str, Holder]:
        """Who holds each item in the held ones of `states` (this service's queues), by
        filename: the folders listed, one git walk for them all."""
        paths: dict[str, str] = {}
        for queue in self.queues:
            for state in states:
                if not is_held_state(queue, state) or self.store.state_dir_link(state, queue):
                    continue
                try:
                    with os.scandir(self.root / queue / state) as entries:
                        names = [e.name for e in entries if is_valid_filename(e.name) and not e.is_symlink()]
                except OSError:
                    continue
                paths.update({f"{queue}/{state}/{n}": n for n in names})
        if not paths:
            return {}
        return {paths[p]: h for p, h in self.core.holders(list(paths)).items()}

    # -- what an agent may push (issue 38) ----------------------------------------------

    def _check_push(self) -> None:
        """Before any push from an agent environment (`Remote.push`): the commits to push
        (`@{u}..HEAD`) may hold no user-only change (`pushguard.user_only_commits`). One that does
        refuses the push (AtkError, exit 1): nothing is pushed, nothing rewritten; the
        commits stay on the branch for the person's next push (theirs is not checked so)."""
        found = pushguard.user_only_commits(self.core, "@{u}..HEAD")
        if not found:
            return
        lines = [f"- {sha[:10]} '{safe_line(subject)}': {'; '.join(notes)}" for sha, subject, notes in found[:10]]
        if len(found) > 10:
            lines.append(f"- … and {len(found) - 10} more")
        raise AtkError(
            "refused to push from an agent environment: the commits to push make changes only the user "
            "makes (an answer or a user comment, a user-only move, the removal of an item holding the "
            "person's sections):\n" + "\n".join(lines) + "\nNothing was pushed and nothing was rewritten; "
            "every commit stays on this clone's branch. Undo your hand commits (e.g. `git revert`), or leave "
            "them for the user to push (the dashboard, or `atk wi commit` outside an agent environment)",
            code="user-only",
        )

    def answers_rev(self) -> str:
        """Where an answer must be to count (issue 38: `wait`, `show --json`, the loop, the
        ready list): committed (HEAD); for an agent on a clone with a remote, on the remote
        (`@{u}`): a commit only this clone has may be the agent's own."""
        if self.actor == "agent" and self.store.remote.upstream():
            return "@{u}"
        return "HEAD"
