"""The real binaries in a real terminal: one tmux server per test.

`tmux_session(tmp_path, prompt)` starts a server on a unique socket (in the test's tmp dir)
with one 120x36 window running an interactive shell with `prompt`, yields the driver and kills
the server afterwards. Every wait polls `capture-pane` in a bounded loop and fails with the
last screen; nothing sleeps a fixed time except `read`, the pause a person takes to look at
what a dialog left on the screen before the next key.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from atk_tui.tui.keys.key_guard import DIALOG_KEY_GRACE
from support.tools import need_tool

ATK_TUI = Path(sys.executable).with_name("atk-tui")
WIDTH, HEIGHT = 120, 36


class Tmux:
    """One tmux server with one session (`e2e`) and its pane."""

    def __init__(self, socket: str, env: dict[str, str], prompt: str) -> None:
        self.socket = socket
        self.env = env
        self.prompt = prompt

    def run(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True, env=self.env, check=False
        )
        if check and proc.returncode:
            raise AssertionError(f"tmux {' '.join(args)}: {proc.stderr}")
        return proc.stdout

    def start_shell(self, shell: str | None = None) -> None:
        """bash without rc files, or `shell` (a command line that prints `prompt`)."""
        shell = shell or f"env PS1={shlex.quote(self.prompt)} bash --norc --noprofile -i"
        self.run("new-session", "-d", "-s", "e2e", "-x", str(WIDTH), "-y", str(HEIGHT), shell)
        self.run("set-option", "-g", "set-clipboard", "on")  # would let OSC 52 set a tmux buffer
        self.wait_for(lambda screen: self.prompt.strip() in screen, "the shell prompt")

    def send(self, *keys: str) -> None:
        self.run("send-keys", "-t", "e2e", *keys)

    def step(self, key: str, ok: Callable[[str], bool], what: str) -> str:
        """Send `key`, then wait until the screen shows its effect (`ok`); the screen."""
        self.send(key)
        return self.wait_for(ok, what)

    def read(self) -> None:
        """Look at the screen a dialog left (closed, or a one-key question opened) before the
        next key, as a person does: keys typed within DIALOG_KEY_GRACE of it are dropped on
        purpose (a burst typed as a dialog closes must not reach the dashboard)."""
        time.sleep(DIALOG_KEY_GRACE + 0.1)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "e2e", "-l", "--", text)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "e2e")

    def display(self, fmt: str) -> str:
        return self.run("display-message", "-p", "-t", "e2e", fmt).strip()

    def wait_for(self, ok: Callable[[str], bool], what: str, timeout: float = 30.0) -> str:
        """Poll the pane until `ok(screen)`; bounded, with the last screen in the failure."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if ok(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; the screen was:\n{screen}")

    def wait_until(self, ok: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
        """Poll `ok()` (a file, a git state) until true; bounded, with the screen in the failure."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ok():
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; the screen was:\n{self.screen()}")


E2E_PROMPT = "e2e-shell$ "  # the shell prompt of the dashboard's end-to-end sessions


@contextmanager
def tmux_session(
    tmp_path: Path, prompt: str, *, requires: tuple[str, ...] = ("tmux",), shell: str | None = None
) -> Iterator[Tmux]:
    need_tool(*requires)
    env = dict(os.environ)
    env.pop("TMUX", None)
    env["TERM"] = "xterm-256color"
    env["TMUX_TMPDIR"] = str(tmp_path)  # the server's socket lives in the test's tmp dir
    t = Tmux(f"atk-e2e-{os.getpid()}-{uuid.uuid4().hex[:8]}", env, prompt)
    try:
        t.start_shell(shell)
        yield t
    finally:
        t.run("kill-server", check=False)
