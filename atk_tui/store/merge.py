"""The user's text merged into a newer stored version of an item (`git merge-file`): the edit
session's "no silent overwrite" (SPEC §11)."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

MERGE_LABELS = ("your text", "when you started", "stored now")


def merge_texts(base: bytes | None, stored: bytes, mine: bytes) -> tuple[bytes, int]:
    """Three-way merge of the user's text into the newer stored version (`git merge-file`):
    the result and how many conflicts are marked in it. Without a base every difference is
    a conflict."""
    with tempfile.TemporaryDirectory(prefix="atk-merge-") as tmp:
        paths = [Path(tmp, n) for n in ("mine", "base", "stored")]
        for path, data in zip(paths, (mine, base or b"", stored), strict=True):
            path.write_bytes(data)
        argv = ["git", "merge-file", "-p"]
        for label in MERGE_LABELS:
            argv += ["-L", label]
        proc = subprocess.run([*argv, *map(str, paths)], capture_output=True, check=False)
    if proc.returncode < 0 or proc.returncode > 127:
        # git could not merge (binary text?): both versions, one after the other
        both = b"<<<<<<< your text\n" + mine + b"\n=======\n" + stored + b"\n>>>>>>> stored now\n"
        return both, 1
    return proc.stdout, proc.returncode
