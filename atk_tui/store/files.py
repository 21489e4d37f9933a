"""File helpers of the write path: atomic and private writes, digests, journal contents,
the index swap."""

from __future__ import annotations

import os
from pathlib import Path

ZERO = "0" * 40


def b64encode(data: bytes) -> bytes:
    import base64

    return base64.b64encode(data)


def b64decode(data: str, *, validate: bool = False) -> bytes:
    import base64

    return base64.b64decode(data, validate=validate)


def _copy_file(src: Path, dst: Path) -> None:
    import shutil

    shutil.copyfile(src, dst)


#: atk's own small files in `.git` (the journal, what the person read, the remote's tip) are
#: read at most this far: a huge one is damaged, never a reason to fill memory
PRIVATE_MAX_BYTES = 64 << 20


def _read_private(path: Path, max_bytes: int | None = PRIVATE_MAX_BYTES) -> bytes:
    """Read one of atk's own files in `.git` without following a symbolic link out of it,
    only if it is a regular file, never blocking (`host.regular`), at most `max_bytes`."""
    from atk_tui.host.regular import read_regular

    return read_regular(path, max_bytes)


def _write_private(path: Path, data: bytes) -> None:
    """Write one of atk's own files in `.git`: a symbolic link there is replaced, never followed;
    so is a named pipe, a socket or a device (issue 38: writing into a pipe blocks), and the
    open never blocks (O_NONBLOCK: a pipe planted meanwhile fails it)."""
    import stat

    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _journal_path_ok(rel: object) -> bool:
    """A journal only ever names item and plan files inside the store."""
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\\" in rel:
        return False
    parts = rel.split("/")
    return parts[0] in ("wi", "mq", "plans") and all(p not in ("", ".", "..") for p in parts) and ".git" not in parts


def _digest(path: Path) -> str | None:
    """SHA-256 of a file's bytes, None when there is no file."""
    import hashlib

    from atk_tui.host.regular import NotRegular, read_regular

    try:
        return hashlib.sha256(read_regular(path)).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except NotRegular:
        return None if path.is_dir() else "not a regular file"  # a named pipe: never read, never equal
    except OSError:
        return "not a regular file"  # a symbolic link (not followed)


def _b64_digest(content: str | None) -> str | None:
    import hashlib

    return None if content is None else hashlib.sha256(b64decode(content)).hexdigest()


def _restore_files(root: Path, files: dict[str, str | None]) -> None:
    for rel, content in files.items():
        parts = rel.split("/")
        if any(os.path.islink(os.path.join(root, *parts[:i])) for i in range(1, len(parts))):
            continue  # a folder became a symbolic link: never write through it
        target = root / rel
        if content is None:
            try:
                target.unlink()
            except FileNotFoundError:
                pass
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            _atomic_write(target, b64decode(content))


def _atomic_write(path: Path, data: bytes) -> None:
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".atk-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _stat_key(path: Path) -> tuple[int, ...]:
    """What tells a file rewritten since: its inode, size, mtime and ctime (no one can set a
    ctime back)."""
    st = os.stat(path)
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _install_index(new: Path, index: Path, expected: tuple[int, ...]) -> bool:
    """Make `new` the real index the way git writes it (through `index.lock`), but only when
    the real index is still the one `new` was copied from. False: not done, use git."""
    lock = index.with_name("index.lock")
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except OSError:
        return False  # a git process is writing the index right now
    os.close(fd)
    try:
        if _stat_key(index) != expected:
            return False
        os.replace(new, lock)
        os.replace(lock, index)
        return True
    except OSError:
        return False
    finally:
        try:
            lock.unlink()
        except FileNotFoundError:
            pass
