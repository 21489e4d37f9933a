"""The palette's Screenshot, saved where the person can find it, or said why not.

Textual saves into the Downloads folder (`platformdirs.user_downloads_path`) and says only
"Failed to save screenshot" when that folder does not exist (a server, a fresh account, a
container). Here: the Downloads folder when it exists, else the home folder; the toast names
the file written, or the folder and the system's reason when nothing could be written.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from textual.app import App


def screenshot_folder() -> tuple[Path, str]:
    """Where a screenshot goes, and why there (said when it is not the Downloads folder)."""
    from platformdirs import user_downloads_path

    downloads = Path(user_downloads_path())
    if downloads.is_dir():
        return downloads, ""
    home = Path.home()
    return home, f" ({downloads} does not exist)"


def save_screenshot(app: App, filename: str | None = None, now: datetime | None = None) -> tuple[str, str]:
    """Write the screen as SVG; (the message to show, its severity)."""
    folder, why = screenshot_folder()
    stamp = (now or datetime.now()).strftime("%Y-%m-%dT%H_%M_%S")
    path = folder / (filename or f"atk-tui {stamp}.svg")
    try:
        svg = app.export_screenshot()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)  # never over another file
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(svg)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return f"Could not save the screenshot to {path}: {reason}", "error"
    return f"Screenshot saved to {path}{why}", "information"
