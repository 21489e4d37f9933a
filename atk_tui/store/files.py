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


def _read_private(path: Path) -> bytes:
    """Read one of atk's own files in `.git` without following a symbolic link out of it."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def _write_private(path: Path, data: bytes) -> None:
    """Write one of atk's own files in `.git`: a symbolic link there is replaced, never followed."""
    if os.path.islink(path):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
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

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


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
