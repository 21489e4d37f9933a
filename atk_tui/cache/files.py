"""The one place cache files are read and written: `.git/atk-cache/<name>.cache`.

Every cache is a miss-safe optimisation: delete the folder and everything still works, only
slower. Nothing that gates work (an item counting as answered, ready, adoptable, handed out)
rests on a cache; the service judges those from the files.

One format for every cache: a 12-digit length `n`, a newline, `n` bytes of payload, a newline,
then the header, one line of JSON: the code stamp, the entry's key, the payload's size and
CRC-32, and what else its cache keeps beside the payload. The header comes last so a payload
is written as it is made (a listing as it is printed) and read without a copy (mapped), or a
line at a time (`read_lines`: a view or an item cache, tens of MB of JSON at 30,000 items,
never whole in memory).

One invalidation scheme: an entry is used only when

- its code stamp is this code's (`code_stamp`: the package's own modules; an upgrade or an
  edited checkout is other code: no version number to bump by hand),
- its key is what the caller would compute it from now (the store's signature for a judged
  listing, the state folders' signature for the history's names; content-addressed records,
  keyed by git blob SHA inside the payload, need none), and
- its size and checksum hold (damage, truncation, a hand edit: a miss as a whole).

The checksum tells damage, not forgery: a process that can write `.git` can rewrite an entry.
So caches only ever make a listing or a view faster.

Never through a symbolic link: the folder or a file that is a link is not read or written.
"""

from __future__ import annotations

import json
import mmap
import os
import zlib
from collections.abc import Iterable, Iterator
from contextlib import suppress
from functools import lru_cache
from pathlib import Path
from typing import Any

from atk_tui.host.regular import open_regular

DIR = "atk-cache"
_LEN = 12  # digits of the payload's length


@lru_cache(maxsize=1)
def code_stamp() -> str:
    """What names this code: the size and mtime of every module of the package. An entry
    written by other code (an upgrade, an edited checkout) is a miss."""
    import hashlib

    pkg = Path(__file__).resolve().parent.parent
    h = hashlib.blake2b(digest_size=12)
    for folder, subdirs, files in os.walk(pkg):
        subdirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                with suppress(OSError):
                    st = os.stat(os.path.join(folder, name))
                    rel = os.path.relpath(os.path.join(folder, name), pkg)
                    h.update(f"{rel} {st.st_size} {st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def path_of(git_dir: Path | str, name: str) -> Path:
    return Path(git_dir) / DIR / f"{name}.cache"


def read(git_dir: Path | str, name: str, key: Any = None, *, check_key: bool = True) -> tuple[dict[str, Any], memoryview] | None:
    """(header, payload) of the entry `name`, or None: missing, another code's, another key
    (unless `check_key` is False: the caller then compares `header["key"]` itself, later),
    damaged. The payload is mapped, not read."""
    path = path_of(git_dir, name)
    try:
        if os.path.islink(path.parent):
            return None
        fd = open_regular(path)  # a named pipe there must not hang a listing (issue 38)
        try:
            raw = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        finally:
            os.close(fd)
        size = int(raw[:_LEN])
        end = _LEN + 1 + size
        if raw[_LEN : _LEN + 1] != b"\n" or raw[end : end + 1] != b"\n":
            return None
        header = json.loads(raw[end + 1 :])
        payload = memoryview(raw)[_LEN + 1 : end]
        if (
            type(header) is not dict
            or header.get("code") != code_stamp()
            or (check_key and header.get("key") != key)
            or header.get("size") != size
            or header.get("crc32") != zlib.crc32(payload)
        ):
            return None
        return header, payload
    except (OSError, ValueError, TypeError):  # no file, an empty one (mmap), not JSON, ...
        return None


def read_lines(git_dir: Path | str, name: str, key: Any = None) -> Iterator[bytes] | None:
    """The payload of the entry `name`, a line at a time (each with its newline), or None:
    missing, another code's, another key. Read from the file as it is consumed, not mapped:
    a large entry (a view, an item cache: tens of MB) costs one line's memory, not the
    entry's. The checksum is known only at the end: the iterator raises ValueError after
    the last line when it does not hold, so a caller keeps nothing it made of the lines
    until they are all consumed."""
    path = path_of(git_dir, name)
    try:
        if os.path.islink(path.parent):
            return None
        fh = open(open_regular(path), "rb")  # noqa: SIM115 (closed below, or by `lines`)
    except OSError:
        return None
    try:
        size = int(fh.read(_LEN + 1))
        fh.seek(_LEN + 1 + size)
        tail = fh.read()
        header = json.loads(tail[1:]) if tail[:1] == b"\n" else None
        if type(header) is not dict or header.get("code") != code_stamp() or header.get("key") != key or header.get("size") != size:
            fh.close()
            return None
        fh.seek(_LEN + 1)
    except (OSError, ValueError, TypeError):
        fh.close()
        return None

    def lines() -> Iterator[bytes]:
        with fh:
            left, crc = size, 0
            while left > 0:
                line = fh.readline(left)
                if not line:
                    raise ValueError("truncated cache entry")
                left -= len(line)
                crc = zlib.crc32(line, crc)
                yield line
            if crc != header.get("crc32"):
                raise ValueError("damaged cache entry")

    return lines()


class Writer:
    """One entry written as it is made: `add` the payload's parts, then `close` (kept) or
    `abort`. Atomic: a reader sees the old entry or the new one, never a part."""

    def __init__(self, git_dir: Path | str, name: str) -> None:
        self.path = path_of(git_dir, name)
        self.size = self.crc = 0
        self.failed = False
        self.tmp: str | None = None
        self.fh: Any = None
        try:
            self.path.parent.mkdir(exist_ok=True)
            if os.path.islink(self.path.parent):
                raise OSError("linked cache folder")
            import tempfile

            fd, self.tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            self.fh = os.fdopen(fd, "wb")
            self.fh.write(b"0" * _LEN + b"\n")
        except OSError:
            self.failed = True

    def add(self, data: bytes) -> None:
        if self.failed:
            return
        self.size += len(data)
        self.crc = zlib.crc32(data, self.crc)
        try:
            self.fh.write(data)
        except (OSError, ValueError):
            self.failed = True

    def close(self, key: Any = None, **extra: Any) -> bool:
        """Keep the entry under `key` (with `extra` in its header); False when it was not
        written (a cache is only ever an optimisation: errors are not raised)."""
        if self.failed:
            self.abort()
            return False
        try:
            header = {**extra, "code": code_stamp(), "key": key, "size": self.size, "crc32": self.crc}
            self.fh.write(b"\n" + json.dumps(header, separators=(",", ":")).encode("ascii"))
            self.fh.seek(0)
            self.fh.write(b"%012d" % self.size)
            self.fh.close()
            os.replace(self.tmp, self.path)  # type: ignore[arg-type]
            self.tmp = None
            _clear_other_formats(self.path.parent)
            return True
        except (OSError, ValueError, TypeError, OverflowError, RecursionError):
            self.abort()
            return False

    def abort(self) -> None:
        if self.fh is not None:
            with suppress(OSError, ValueError):
                self.fh.close()
        if self.tmp is not None:
            with suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = None


_cleared: set[str] = set()


def _clear_other_formats(folder: Path) -> None:
    """Files of earlier formats in the folder (`active-v9.json`, `list-...-v8`): dead weight,
    removed once per process."""
    if str(folder) in _cleared:
        return
    _cleared.add(str(folder))
    with suppress(OSError):
        for entry in os.scandir(folder):
            if not entry.name.endswith((".cache", ".tmp")) and entry.is_file(follow_symlinks=False):
                with suppress(OSError):
                    os.unlink(entry.path)


def write(git_dir: Path | str, name: str, parts: Iterable[bytes], key: Any = None, **extra: Any) -> bool:
    """`Writer` in one call: the payload's `parts`, kept under `key`."""
    w = Writer(git_dir, name)
    try:
        for data in parts:
            w.add(data)
    except BaseException:
        w.abort()
        raise
    return w.close(key, **extra)


def remove(git_dir: Path | str, name: str) -> None:
    with suppress(OSError):
        path = path_of(git_dir, name)
        if not os.path.islink(path.parent):
            path.unlink()
