"""Where things are in a store (SPEC §3): an item's path, the state folders' `.gitkeep` files,
and what a folder that is no store is told."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from atk_tui.domain.errors import AtkError
from atk_tui.domain.model import FILENAME_PATTERN, is_valid_filename
from atk_tui.domain.queues import QUEUES, queue_named


def states_defect(states: Sequence[str]) -> str:
    """The defect of a filename found in more than one state folder of a queue."""
    return f"filename is in {len(states)} states at once: {', '.join(states)}"


def item_path(state: str, filename: str, queue: str = "wi") -> str:
    """The store-relative path of an item; refuses anything that could leave the store."""
    states = queue_named(queue).states
    if state not in states:
        raise AtkError(f"unknown state {state!r} (one of {', '.join(states)})", exit_code=2)
    if not is_valid_filename(filename):
        raise AtkError(
            f"bad filename {filename!r}: an item filename has no path parts and matches ^{FILENAME_PATTERN}$",
            exit_code=2,
        )
    return f"{queue_named(queue).folder}/{state}/{filename}"


LOCK_WAIT_MESSAGE = "waiting for the store lock (another atk process is writing; giving up after {timeout:g} s)…"


def not_a_store_message(root: Path) -> str:
    """Why `root` is no store, and the command that helps: `atk init` only where it would work
    and is what the person wants (a new or empty folder), never on a folder of other files."""
    head = f"{root} is not an atk store"
    try:
        if not root.exists():
            return f"{head}: it does not exist. Make a store there: atk init {root}"
        if not root.is_dir():
            return f"{head}: it is a file. Give the path of your store (--store, $ATK_PRIVATE_NOTES)"
        entries = [e for e in os.listdir(root) if e != ".git"]
        is_repo = (root / ".git").exists()
    except OSError as exc:
        return f"{head}: {exc.strerror}"
    if not entries:
        return f"{head}: {'the repository' if is_repo else 'the folder'} is empty. Make it a store: atk init {root}"
    where = "Give the path of your store (--store, $ATK_PRIVATE_NOTES or private_notes in the config file)"
    if is_repo:
        return (f"{head}: it is a git repository of other files (no wi/ folder). {where}, or make a new store in a "
                f"folder of its own (atk init ~/notes); `atk init --force {root}` would make this repository one")
    return f"{head}: it is a folder of other files (no .git, no wi/). {where}, or make a new store: atk init ~/notes"


def queue_gitkeeps(queues: Sequence[str] | None = None) -> list[str]:
    """The `.gitkeep` files that keep every state folder of the queues in git."""
    chosen = [q for q in QUEUES if queues is None or q.name in queues]
    return [f"{q.folder}/{s}/.gitkeep" for q in chosen for s in q.states]


def missing_queue_folders(root: Path) -> list[str]:
    """The `.gitkeep` files of state folders a store made before a queue existed lacks."""
    return [rel for rel in queue_gitkeeps([q.name for q in QUEUES if q.name != "wi"]) if not os.path.lexists(root / rel)]
