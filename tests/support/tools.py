"""One rule for tests that need a program outside Python: tmux, vim, chromium, zsh, fish.

On a bare machine (Python and git only) such a test skips with a one-line reason naming the
tool and its Debian package. `.ci/run` installs them all and sets `CI_REQUIRE_TOOLS=1`, which
turns the skip into a failure: CI runs every test or fails saying which tool was missing."""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRE_ENV = "CI_REQUIRE_TOOLS"

#: the tool -> the names it goes by on the PATH (the first found wins) and its Debian package
TOOLS: dict[str, tuple[tuple[str, ...], str]] = {
    "tmux": (("tmux",), "tmux"),
    "vim": (("vim",), "vim"),
    "chromium": (("chromium", "chromium-browser", "chromium-headless-shell", "google-chrome"), "chromium"),
    "zsh": (("zsh",), "zsh"),
    "fish": (("fish",), "fish"),
    "bash": (("bash",), "bash"),
}


def find_tool(name: str) -> str | None:
    names, _ = TOOLS.get(name, ((name,), name))
    for n in names:
        path = shutil.which(n)
        if path:
            return path
    return None


def missing_reason(name: str) -> str:
    _, package = TOOLS.get(name, ((name,), name))
    return f"needs {name}, not on the PATH (Debian: apt-get install {package}; .ci/run installs it)"


def need_tool(*names: str) -> str:
    """The path of the first tool named, after checking every one is installed; else skip
    (fail under CI_REQUIRE_TOOLS=1) with one line naming the missing ones."""
    paths = {n: find_tool(n) for n in names}
    missing = [n for n, p in paths.items() if p is None]
    if missing:
        reason = "; ".join(missing_reason(n) for n in missing)
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 and a required tool is missing: {reason}", pytrace=False)
        pytest.skip(reason)
    return paths[names[0]] or ""
