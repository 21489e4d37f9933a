"""Calling the user when something new needs them (SPEC §13): the terminal bell, a count in
the terminal title, and (`[tui] desktop_notifications = true`, where `notify-send` exists) a
desktop notification; `bell` and `title_count` (both true by default) turn the others off.
What counts is `service.notices.attention`; the first load only sets the
title (what was there before the dashboard opened is not news)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

from atk_tui.text.textsafe import safe_line

TITLE = "atk-tui"


def notify_send(summary: str, body: str) -> None:
    exe = shutil.which("notify-send")
    if exe is None:
        return
    try:
        subprocess.Popen(
            [exe, "--app-name=atk-tui", summary, body],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
    except OSError:
        pass


class Alerts:
    def __init__(
        self,
        app,
        *,
        desktop: bool = False,
        bell: bool = True,
        title_count: bool = True,
        desktop_notifier: Callable[[str, str], None] | None = None,
    ) -> None:
        self.app = app
        self.desktop = desktop
        self.ring_bell = bell
        self.title_count = title_count
        self.desktop_notifier = desktop_notifier or notify_send
        self.seen: set[str] | None = None
        self.rings = 0  # how many times the bell rang (tests read it)

    def update(self, calls: dict[str, str]) -> None:
        new = [k for k in calls if self.seen is not None and k not in self.seen]
        self.seen = set(calls)
        if self.title_count:
            self.set_title(f"{TITLE} ({len(calls)})" if calls else TITLE)
        if not new:
            return
        if self.ring_bell:
            self.rings += 1
            self.app.bell()
        if self.desktop:
            what = "question" if new[0].startswith("question:") else "notice"
            more = f" (+{len(new) - 1} more)" if len(new) > 1 else ""
            self.desktop_notifier(f"atk-tui: a new {what} needs you{more}", safe_line(calls[new[0]])[:200])

    def set_title(self, title: str) -> None:
        """The app's title and, in a real terminal, the window title (OSC 2)."""
        if self.app.title == title:
            return
        self.app.title = title
        driver = getattr(self.app, "_driver", None)
        if driver is not None and not self.app.is_headless:
            driver.write(f"\x1b]2;{safe_line(title)}\x07")
