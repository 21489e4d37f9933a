"""The errors of core: each carries a message a person can act on, an exit code (the CLI's)
and a stable code for programs (`Outcome.code`)."""

from __future__ import annotations


class AtkError(Exception):
    """An error with a message a person can act on. `exit_code` is the CLI's."""

    exit_code = 1
    #: a stable refusal code for programs (see `service.Outcome.code`); "" when none applies
    code = ""

    def __init__(self, message: str, *, exit_code: int | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return self.message


class StoreBusy(AtkError):
    code = "busy"


class StateConflict(AtkError):
    code = "state"


class NotAStore(AtkError):
    pass


class GitFailed(AtkError):
    pass


class GitTimeout(GitFailed):
    """A child process (git, a hook) ran past its time limit and was killed."""


class Interrupted(AtkError):
    """`GitStore.interrupt()` stopped the write's child processes (the dashboard is quitting)."""

    def __init__(self, message: str = "interrupted: the write was stopped; nothing was changed") -> None:
        super().__init__(message)
