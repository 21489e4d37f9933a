"""Making a store (`atk init`), and giving an older one the queue folders it lacks (SPEC §3, §12)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from atk_tui.domain.errors import AtkError
from atk_tui.domain.model import STATES
from atk_tui.domain.queues import QUEUES
from atk_tui.store.gitstore import GitStore
from atk_tui.store.layout import missing_queue_folders, queue_gitkeeps


def init_store(path: Path | str) -> tuple[Path, bool]:
    """Make `path` a store. Returns (root, created); an existing store is left unchanged,
    except that one made before the feedback queue gets its `mq/<state>/` folders (one commit)."""
    root = Path(path).expanduser().resolve()
    try:
        if (root / ".git").is_dir() and all((root / "wi" / s).is_dir() for s in STATES):
            return root, ensure_queue_folders(root)
        _check_init_target(root)
    except OSError as exc:  # a name too long, a folder not to be read
        raise AtkError(f"cannot make a store at {root}: {exc.strerror}; nothing changed", exit_code=1) from None
    try:
        root.mkdir(parents=True, exist_ok=True)
        if not (root / ".git").exists():
            subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
        keep = queue_gitkeeps()
        for rel in keep:
            d = (root / rel).parent
            d.mkdir(parents=True, exist_ok=True)
            (root / rel).touch()
        (root / "plans").mkdir(exist_ok=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else (exc.stderr or b"").decode("utf-8", "replace").strip()
        raise AtkError(f"cannot make a store at {root}: {why or exc}", exit_code=1) from None
    store = GitStore(root)
    store.git("add", "--", *keep)
    if store.head() and store.git("diff", "--cached", "--quiet", "--", *keep, check=False).returncode == 0:
        return root, False  # a store that had only lost state folders from its work tree: put back
    store.git("commit", "-q", "-m", "atk: init store", "-m", "Atk-Actor: user", "--", *keep)
    return root, True


def _check_init_target(root: Path) -> None:
    """Refuse (AtkError, nothing changed) a place `init_store` must not make a store in: a
    file, a folder that is neither empty nor a git repository (its files would be left lying
    in the new store's work tree), a `.git` that is not a folder, a file where one of the
    store's folders goes, or a folder inside another store."""
    for up in root.parents:
        if (up / ".git").is_dir() and (up / "wi").is_dir():
            raise AtkError(
                f"{root} is inside the store {up}; nothing changed. Make the new store outside it (atk init PATH)",
                exit_code=1,
            )
    if not os.path.lexists(root):
        return
    if root.is_symlink() or not root.is_dir():
        raise AtkError(f"{root} is not a folder (a file is there); nothing changed. Give a new or empty folder", exit_code=1)
    git_dir = root / ".git"
    if os.path.lexists(git_dir) and (git_dir.is_symlink() or not git_dir.is_dir()):
        raise AtkError(
            f"{root}/.git is not a folder (a linked worktree or a separate git directory); nothing changed. "
            "atk keeps its store in a plain repository: make it in a new or empty folder",
            exit_code=1,
        )
    if not os.path.lexists(git_dir):
        try:
            entries = sorted(os.listdir(root))
        except OSError as exc:
            raise AtkError(f"cannot read {root}: {exc.strerror}", exit_code=1) from None
        if entries:
            shown = ", ".join(repr(e) if not e.isprintable() else e for e in entries[:5])
            more = f" and {len(entries) - 5} more" if len(entries) > 5 else ""
            raise AtkError(
                f"{root} is not empty and not a store (it holds {shown}{more}); nothing changed. Make the store in a "
                "new or empty folder (atk init PATH); to keep these files in the store's repository, run `git init` "
                "in the folder first and then atk init again",
                exit_code=1,
            )
    layout = ["wi", "plans", *{rel.rsplit("/", 1)[0] for rel in queue_gitkeeps()}, *{q.folder for q in QUEUES}]
    for rel in sorted(set(layout)):
        p = root / rel
        if os.path.lexists(p) and (p.is_symlink() or not p.is_dir()):
            raise AtkError(
                f"{root}/{rel} is there and is not a folder; nothing changed. The store needs a folder of that "
                "name: move the file away and run atk init again",
                exit_code=1,
            )


def ensure_queue_folders(root: Path | str) -> bool:
    """Give an existing store the state folders it lacks (the `mq/` queue of a store made
    before it), in one commit. False when nothing was missing."""
    store = GitStore(root)
    if not missing_queue_folders(store.root):
        return False
    with store.writing("atk: init mq queue", "user", pull=False, push=False) as tx:
        for rel in missing_queue_folders(store.root):
            tx.write(rel, b"")
    return True
