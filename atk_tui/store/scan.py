"""Listing the state folders (`GitStore.scan_all`): a folder's item names and its defects,
kept between listings while the folder's lstat says nothing changed."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass

from atk_tui.domain.model import StoreDefect, is_valid_filename
from atk_tui.store.storesig import RACY_NS

LINK_DEFECT = (
    "is a symbolic link; atk never follows links (they can lead out of the store): "
    "replace it with the file itself, or remove it"
)


#: a state folder's lstat (inode, device, mtime, ctime, mode) -> (its item names, its defects)
FolderMemo = dict[str, tuple[tuple[int, int, int, int, int], list[str], list[StoreDefect]]]


def _folder_sig(path: str) -> tuple[int, int, int, int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_dev, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)


@dataclass
class ScanResult:
    """What the state folders hold."""

    names: dict[str, list[str]]  # state -> item filenames in that folder
    where: dict[str, str]  # filename -> its state (the first, in STATES order, for a duplicate)
    dups: dict[str, list[str]]  # filename -> every state it is in, when more than one
    defects: list[StoreDefect]


_NAME_CHARS = re.compile(r"[A-Za-z0-9._\n-]*")


def twin_key(name: str) -> str:
    """What a case-insensitive, normalising file system (macOS, Windows) makes of `name`: two
    names with the same key are one file there (issue 38). NFKC then casefold: an item name
    is ASCII (`model.FILENAME_PATTERN`), so in practice its lower case."""
    if name.isascii():
        return name.lower()
    import unicodedata

    return unicodedata.normalize("NFKC", name).casefold()


def case_twins(names: object) -> dict[str, list[str]]:
    """Each of `names` (an iterable of item filenames, every state and queue) that another
    one collides with on a case-insensitive file system -> those others (sorted). Empty in
    the usual case, decided by one pass: the lower-cased names are all distinct."""
    names = list(names)  # type: ignore[call-overload]
    joined = "\n".join(names)
    if joined.isascii() and joined.count("\n") == len(names) - 1:  # the usual case: C-level passes
        keys = joined.lower().split("\n") if names else []
    else:
        keys = [twin_key(n) for n in names]
    distinct = len(set(keys))
    if distinct == len(names) or distinct == len(set(names)):
        return {}
    by_key: dict[str, list[str]] = {}
    for name, key in zip(names, keys, strict=True):
        if name not in by_key.setdefault(key, []):
            by_key[key].append(name)
    return {n: sorted(o for o in group if o != n) for group in by_key.values() if len(group) > 1 for n in group}


def twin_defect(others: list[str]) -> str:
    """The defect of an item whose filename collides with `others` on a case-insensitive file
    system: shown, never acted on (it is not ready; every write refuses it)."""
    return (
        f"filename differs from {', '.join(others)} only in case: on a case-insensitive file system (macOS, "
        "Windows) they are one file, so neither is acted on; rename one (`git mv`) or remove it"
    )


def _bad_names(names: list[str]) -> list[str]:
    """The names that break the item filename pattern (model.FILENAME_RE). The usual case,
    every name good, is decided with a few C-level passes over all of them at once (this
    runs on every listing, over every item of the store) instead of a match per name."""
    if not names:
        return []
    joined = "\n".join(names)
    if (
        joined.count("\n") == len(names) - 1  # no name has a newline of its own
        and _NAME_CHARS.fullmatch(joined)
        and joined[0] not in "._-"
        and "\n." not in joined
        and "\n_" not in joined
        and "\n-" not in joined
        and joined.endswith(".md")
        and joined.count(".md\n") == len(names) - 1
        and max(map(len, names)) <= 204
    ):
        return []
    return [n for n in names if not is_valid_filename(n) or "\n" in n]


def list_folder(path: str, rel: str, folders: FolderMemo | None = None) -> tuple[list[str], list[StoreDefect]] | None:
    """(the item names in the folder at `path`, the defects of its entries), None when there
    is no such folder. `folders` (see `FolderMemo`): a folder whose lstat is what it was at an
    earlier listing is not listed again (a name added, removed or renamed changes its mtime);
    this listing is put in it when it can be trusted."""
    sig = _folder_sig(path) if folders is not None else None
    got = folders.get(path) if folders is not None else None
    if got is not None and sig is not None and got[0] == sig:
        return got[1], got[2]
    taken = time.time_ns()
    try:
        with os.scandir(path) as it:
            entries = list(it)
    except (FileNotFoundError, NotADirectoryError):
        return None
    odd = [e for e in entries if not e.is_file(follow_symlinks=False)]  # links, folders, ...
    listed = [n for e in entries if (n := e.name)[0] != "."]
    found: list[StoreDefect] = []
    if odd:
        # (only then: a `.gitkeep` beside 50,000 items must not cost a second pass)
        odd_names = {e.name for e in odd}
        listed = [n for n in listed if n not in odd_names]
        top = rel.split("/", 1)[0]
        for e in odd:
            if e.is_symlink():
                found.append(StoreDefect(f"{rel}/{e.name}", LINK_DEFECT))
            elif not e.name.startswith(".") and not e.is_file(follow_symlinks=False):
                found.append(StoreDefect(
                    f"{rel}/{e.name}",
                    f"is not a regular file (a folder, a pipe or a device; ignored): move it out of {top}/",
                ))  # fmt: skip
    for name in _bad_names(listed):
        found.append(StoreDefect(f"{rel}/{name}", "filename breaks the item filename pattern"))
    if folders is not None:
        # a folder changed within the clock's granularity of the listing may change again
        # without its mtime moving (git's "racily clean"): not remembered
        if sig is not None and max(sig[2], sig[3]) < taken - RACY_NS:
            folders[path] = (sig, listed, found)
        else:
            folders.pop(path, None)
    return listed, found
