"""What the answer page remembers, in the hub's state directory (`hub.paths.state_dir`), under
`web/`: the signing key (`link.key`, 0600), the paired devices, the pairing codes not used
yet, the one-tap links spent, and the address the hub is reached at. Small JSON files, each
changed under its own lock file (`flock`) and replaced atomically, 0600: `atk hub pair` and
the hub's process both write them."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

WEB = "web"
KEY_FILE = "link.key"
DEVICES = "devices.json"
PAIRINGS = "pairings.json"
SPENT = "spent-links.json"
ADDRESS = "address.json"


def web_dir(state_dir: Path) -> Path:
    """`state_dir/web`, made 0700."""
    path = Path(state_dir) / WEB
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    return path


def _write_private(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_json(path: Path) -> dict:
    """The JSON object in `path`; {} when there is none or it is not one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as fh:
            data = json.loads(fh.read(4 << 20))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@contextlib.contextmanager
def changing(path: Path) -> Iterator[dict]:
    """The JSON object in `path`, under an exclusive lock; written back (atomically, 0600)
    when the block ends without an exception."""
    lock = path.with_name(f".{path.name}.lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        data = read_json(path)
        yield data
        _write_private(path, json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    finally:
        os.close(fd)


def hub_key(state_dir: Path) -> bytes:
    """The hub's signing key (32 random bytes in `web/link.key`, 0600), made at the first ask.
    It signs the one-tap links and the forms' CSRF tokens; it never leaves the hub's machine."""
    path = web_dir(state_dir) / KEY_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(32))
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        if os.fstat(fh.fileno()).st_mode & 0o077:
            os.fchmod(fh.fileno(), 0o600)  # someone loosened it: only the hub's user reads it
        key = fh.read(64)
    if len(key) < 32:  # a file cut short (a crash while it was made): make a new one
        path.unlink(missing_ok=True)
        return hub_key(state_dir)
    return key


def save_address(state_dir: Path, base_url: str) -> None:
    """Where the running hub is reached (what `atk hub pair` puts in its URL)."""
    with changing(web_dir(state_dir) / ADDRESS) as data:
        data.clear()
        data["base_url"] = base_url


def saved_address(state_dir: Path) -> str | None:
    value = read_json(web_dir(state_dir) / ADDRESS).get("base_url")
    return value if isinstance(value, str) and value else None
