"""The one way atk opens a file it reads under `.git`, in the store or the config file: only a
regular file, never blocking (issue 38). A named pipe planted at `.git/atk-shown.json` (or a
device, a socket) must not hang a listing, an answer or the dashboard: the file is opened
with O_NONBLOCK (opening a pipe for reading returns at once) and refused unless fstat says
it is a regular file; a symbolic link is not followed unless the caller says so (the config
file may be one). Standard library only: the warm listing's path imports this."""

from __future__ import annotations

import errno
import os
import stat

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class NotRegular(OSError):
    """The path is there but is no regular file (a named pipe, a device, a socket, a folder)."""


def open_regular(path: str | os.PathLike[str], *, follow: bool = False) -> int:
    """A file descriptor of `path` opened for reading, only if it is a regular file (raises
    NotRegular otherwise, OSError as `os.open` does: FileNotFoundError, ELOOP for a link when
    not `follow`). Never blocks on a named pipe. The caller closes it."""
    fd = os.open(path, _FLAGS if follow else _FLAGS | os.O_NOFOLLOW)
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotRegular(errno.EINVAL, "not a regular file", os.fspath(path))
    return fd


def read_regular(path: str | os.PathLike[str], max_bytes: int | None = None, *, follow: bool = False) -> bytes:
    """The bytes of the regular file `path` (its first `max_bytes` when given): see
    `open_regular`."""
    fd = open_regular(path, follow=follow)
    try:
        if max_bytes is not None:
            chunks, left = [], max_bytes
            while left > 0:
                chunk = os.read(fd, min(left, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
            return b"".join(chunks)
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read()
    finally:
        os.close(fd)


def read_regular_text(path: str | os.PathLike[str], max_bytes: int | None = None, *, follow: bool = False,
                      errors: str = "strict") -> str:  # fmt: skip
    """`read_regular` decoded as UTF-8 (`errors` as `bytes.decode` takes it)."""
    return read_regular(path, max_bytes, follow=follow).decode("utf-8", errors)
