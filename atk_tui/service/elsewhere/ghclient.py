"""The GitHub CLI, read-only, for the afkkit view (`afkkit`): `gh` run with a time limit and a
bound on its output (`procs.Children`), its JSON read defensively, and why it could not answer
(`GhProblem`: not installed, not logged in, rate limited, timed out, stopped)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from atk_tui.host.procs import ChildInterrupted, ChildOutputTooLarge, Children, ChildTimeout

#: gh's output read at most (issue 38: 400 MB of it took 844 MB resident; an endless stream
#: filled the disk): past it gh is killed and the look fails with a clear message
GH_MAX_OUTPUT = 32 << 20
#: JSON from gh nested deeper than this is refused (issue 38: 200,000 levels raised a
#: RecursionError traceback); gh's records nest 4 deep
GH_MAX_DEPTH = 64
#: the program run for `gh` (default: `gh` on the PATH)
GH_ENV = "ATK_GH"
HOW_TO_INSTALL = "gh (the GitHub CLI) is not installed: install it (https://cli.github.com), then run `gh auth login`"
HOW_TO_LOG_IN = "gh is not logged in to GitHub: run `gh auth login`"


# -- gh -----------------------------------------------------------------------------------------


class GhProblem(Exception):
    """gh could not answer. `kind`: "missing" (not installed), "auth" (not logged in), "rate"
    (GitHub's rate limit), "timeout", "stopped" (interrupted), "failed" (anything else)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


_AUTH = re.compile(r"gh auth login|not logged in|authentication required|bad credentials|HTTP 401", re.IGNORECASE)
_RATE = re.compile(r"rate limit|HTTP 429|submitted too quickly|abuse detection", re.IGNORECASE)


def _error_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[0] if lines else "gh failed without saying why"
    return line if len(line) <= 300 else line[:299] + "…"


class Gh:
    """`gh` with a time limit, in its own process group (`procs.Children`), never prompting."""

    def __init__(self, children: Children, *, timeout: float, cwd: Path | str, program: str | None = None) -> None:
        self.children = children
        self.timeout = timeout
        self.cwd = cwd
        self.program = program or os.environ.get(GH_ENV) or "gh"

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(GH_PROMPT_DISABLED="1", GH_NO_UPDATE_NOTIFIER="1", GH_SPINNER_DISABLED="1", NO_COLOR="1", CLICOLOR="0", GH_PAGER="cat")
        return env

    def run(self, args: Sequence[str]) -> str:
        """gh's stdout; GhProblem when it could not answer."""
        try:
            proc = self.children.run([self.program, *args], cwd=self.cwd, env=self._env(), timeout=self.timeout, slow=True,
                                     max_output=GH_MAX_OUTPUT)  # fmt: skip
        except FileNotFoundError:
            raise GhProblem("missing", HOW_TO_INSTALL) from None
        except PermissionError as exc:
            raise GhProblem("missing", f"cannot run {self.program}: {exc.strerror}") from None
        except ChildTimeout:
            raise GhProblem("timeout", f"gh did not answer within {self.timeout:g} s (`gh {' '.join(args[:2])}`)") from None
        except ChildOutputTooLarge:
            raise GhProblem(
                "failed", f"gh printed more than {GH_MAX_OUTPUT >> 20} MiB for `gh {' '.join(args[:2])}`: stopped, not read"
            ) from None
        except ChildInterrupted:
            raise GhProblem("stopped", "stopped") from None
        if proc.returncode == 0:
            return proc.stdout
        said = (proc.stderr or "") + "\n" + (proc.stdout or "")
        if _RATE.search(said):
            raise GhProblem("rate", "GitHub's rate limit was reached: " + _error_line(said))
        if proc.returncode == 4 or _AUTH.search(said):
            raise GhProblem("auth", HOW_TO_LOG_IN)
        raise GhProblem("failed", _error_line(said))

    def json(self, args: Sequence[str]) -> Any:
        out = self.run(args)
        what = f"`gh {' '.join(args[:2])}`"
        try:
            data = json.loads(out)
        except RecursionError:
            raise GhProblem("failed", f"gh printed JSON nested deeper than {GH_MAX_DEPTH} levels for {what}: not read") from None
        except ValueError:
            raise GhProblem("failed", f"gh printed no JSON for {what}: {_error_line(out)}") from None
        if _deeper_than(data, GH_MAX_DEPTH):
            raise GhProblem("failed", f"gh printed JSON nested deeper than {GH_MAX_DEPTH} levels for {what}: not read")
        return data


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether `data` (parsed JSON) nests lists and objects more than `limit` deep (no
    recursion: a walk with its own stack)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


# -- reading one repository ---------------------------------------------------------------------
