"""What the hub remembers, in its state directory (`hub.paths.state_dir`), outside the store's
history: what it has told the person (`announced.json`), what it shows to `atk hub status` and
the dashboard (`status.json`), and that it runs (`hub.lock`, held while it runs, with its pid).

Every file is written whole and renamed into place (0600): a reader never sees half of one.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from atk_tui.service.hubstate import LOCK, STATUS

ANNOUNCED = "announced.json"
__all__ = ["ANNOUNCED", "LOCK", "STATUS", "RunLock", "iso_time", "read_json", "write_json"]


def iso_time(t: float | None) -> str | None:
    """A `time.time()` as `status.json` keeps it (ISO 8601, UTC, seconds), None for None."""
    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")


def write_json(path: Path, data: Any) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class RunLock:
    """`hub.lock` in the state directory, locked (flock) while a hub runs for this store: a
    second hub is refused, saying which pid runs; a crashed hub leaves no lock behind."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / LOCK
        self.fd: int | None = None

    def acquire(self) -> int | None:
        """Take the lock; None when taken, else the pid of the hub that holds it (0: unknown)."""
        import fcntl

        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                pid = int(os.read(fd, 32).decode().strip() or 0)
            except ValueError:
                pid = 0
            os.close(fd)
            return pid
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self.fd = fd
        return None

    def release(self) -> None:
        if self.fd is not None:
            try:
                os.ftruncate(self.fd, 0)
            except OSError:
                pass
            os.close(self.fd)
            self.fd = None
