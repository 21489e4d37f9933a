"""An item's history read through gitpython: the detail pane's short list, the `L` screen and
`atk wi log` (every commit that touched the item, with its change and diff).

gitpython is imported here only, when a history is first asked for: it takes longer to
import than `atk wi list` takes to run, so it stays off the listing and first-frame paths
(`python -X importtime -c "import atk_tui.cli.main"` shows neither it nor pydantic). The commits
come from one `git log --raw` over the item's filename in every state folder (glob pathspecs,
so a move between folders is one commit with both sides), with the store's time limit; the
item's text before and after a commit from gitpython's object database.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from atk_tui.service.types import HistoryEntry

if TYPE_CHECKING:
    from atk_tui.store import GitStore

ACTOR_TRAILER = "Atk-Actor"
_TRAILER_RE = re.compile(r"^([A-Za-z0-9-]+):\s*(.*)$")


def item_history(store: GitStore, filename: str, limit: int = 50) -> list[HistoryEntry]:
    """Commits that touched `filename` in any state folder, newest first, with the actor (the
    detail pane's short list; `item_log` has each commit's change)."""
    return [HistoryEntry(c.commit, c.date, c.author, c.subject, c.actor or "?") for c in item_log(store, filename, limit).commits]


# -- an item's log with each commit's change, and one commit's diff (`L`, `atk wi log`) -----

#: a record of `git log` starts with this (a commit message cannot hold a NUL, so neither can
#: the subject that ends the header before it)
_REC = "\x00\x1eatk-commit\x1e"
_FORMAT = "%x00%x1eatk-commit%x1e%H%x1f%aI%x1f%an%x1f%(trailers:key=" + ACTOR_TRAILER + ",valueonly,separator=%x2c)%x1f%s"
#: renames across filenames followed at most this many times (a hand-made `git mv a.md b.md`)
MAX_RENAMES = 8
#: diff lines shown for one commit before "N more lines not shown"
MAX_DIFF_LINES = 2000


@dataclass(frozen=True)
class FileChange:
    """What one commit did to the item's file: `status` A(dded), D(eleted), M(odified), or
    R for a move between state folders (or a rename), with both sides' paths and blobs."""

    status: str
    old_path: str | None
    new_path: str | None
    old_blob: str | None
    new_blob: str | None

    @property
    def summary(self) -> str:
        """One line: "moved inbox → processing", "edited in hold", "created in inbox"."""
        old, new = _where(self.old_path), _where(self.new_path)
        if self.status == "A":
            return f"created in {new}"
        if self.status == "D":
            return f"removed from {old}"
        if self.status == "M":
            return f"edited in {new}"
        what = "moved" if _name(self.old_path) == _name(self.new_path) else "renamed"
        if what == "renamed":
            old, new = self.old_path or "?", self.new_path or "?"
        edited = " (and edited)" if self.old_blob != self.new_blob else ""
        return f"{what} {old} → {new}{edited}"


@dataclass(frozen=True)
class ItemCommit:
    """One commit that touched an item: who (the `Atk-Actor` trailer), when, and what."""

    commit: str
    date: datetime
    author: str
    subject: str
    actor: str  # the trailer's value(s): "user", "agent"; "" when the commit has none
    changes: tuple[FileChange, ...] = ()

    @property
    def short(self) -> str:
        return self.commit[:8]

    @property
    def actor_label(self) -> str:
        return self.actor or "unknown"

    @property
    def summary(self) -> str:
        return "; ".join(c.summary for c in self.changes) or "merged"

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p for c in self.changes for p in (c.old_path, c.new_path) if p))

    def as_json(self) -> dict[str, object]:
        return {
            "commit": self.commit, "date": self.date.isoformat(), "author": self.author, "actor": self.actor_label,
            "subject": self.subject, "change": self.summary, "paths": list(self.paths),
        }  # fmt: skip


@dataclass(frozen=True)
class ItemLog:
    """An item's commits, newest first, and how many older ones the limit left out."""

    commits: list[ItemCommit]
    older: int = 0


@dataclass(frozen=True)
class ItemDiff:
    """One commit's change to the item: a summary line per file change, then a unified diff
    (`---`/`+++`/`@@`/`+`/`-` lines), cut after `MAX_DIFF_LINES` (`more` says how many)."""

    summary: list[str]
    lines: list[str]
    more: int = 0

    @property
    def patch(self) -> str:
        """The diff lines (and how many were cut), without the summary."""
        tail = [f"… {self.more} more lines not shown"] if self.more else []
        return "\n".join([*self.lines, *tail])

    def text(self) -> str:
        return "\n".join([*self.summary, self.patch] if self.lines else self.summary)


def _where(path: str | None) -> str:
    """`wi/inbox/x.md` -> `inbox` (`mq/hold` for the feedback queue)."""
    parts = (path or "?").split("/")
    if len(parts) != 3:
        return path or "?"
    return parts[1] if parts[0] == "wi" else f"{parts[0]}/{parts[1]}"


def _name(path: str | None) -> str:
    return (path or "").rsplit("/", 1)[-1]


def _pathspecs(filename: str) -> list[str]:
    from atk_tui.domain.queues import QUEUES

    return [f":(glob){q.folder}/*/{filename}" for q in QUEUES]


def _raw_changes(fields: list[str]) -> list[FileChange]:
    """`--raw -z --no-renames` entries (":mode mode blob blob S", path) as changes, a deletion
    and an addition of the same filename paired as one move."""
    plain: list[FileChange] = []
    it = iter(fields)
    for meta in it:
        if not meta.startswith(":"):
            continue
        path = next(it, "")
        parts = meta[1:].split()
        if len(parts) < 5:
            continue
        old_blob, new_blob, status = parts[2], parts[3], parts[4][:1]
        null = "0" * len(old_blob)
        plain.append(FileChange(status, path if status != "A" else None, path if status != "D" else None,
                                old_blob if old_blob != null else None, new_blob if new_blob != null else None))  # fmt: skip
    added = [c for c in plain if c.status == "A"]
    out: list[FileChange] = []
    for c in plain:
        if c.status == "D":
            partner = next((a for a in added if _name(a.new_path) == _name(c.old_path)), None)
            if partner is not None:
                added.remove(partner)
                out.append(FileChange("R", c.old_path, partner.new_path, c.old_blob, partner.new_blob))
                continue
        if c.status != "A":
            out.append(c)
    return out + added


def _parse_log(text: str) -> list[ItemCommit]:
    out = []
    for record in text.split(_REC)[1:]:
        header, _, rest = record.partition("\x00")
        sha, date, author, actor, subject = (header.split("\x1f", 4) + [""] * 5)[:5]
        out.append(ItemCommit(
            commit=sha, date=datetime.fromisoformat(date), author=author, subject=" ".join(subject.split()),
            actor=actor.strip(), changes=tuple(_raw_changes(rest.lstrip("\x00\n").split("\x00"))),
        ))  # fmt: skip
    return out


@contextmanager
def _repo(store: GitStore) -> Iterator[Any]:
    """The store as a gitpython `Repo` (closed afterwards: its `cat-file` processes end)."""
    import git  # gitpython: see the module docstring

    with git.Repo(store.root) as repo:
        repo.git.update_environment(LC_ALL="C", GIT_TERMINAL_PROMPT="0")
        yield repo


def _git_error() -> type[Exception]:
    from git import GitCommandError

    return GitCommandError


def item_log(store: GitStore, filename: str, limit: int = 200) -> ItemLog:
    """Every commit that touched `filename` in any state folder of either queue, newest first,
    following its moves and (a hand-made `git mv`) renames; at most `limit`, `older` counting
    the rest. One `git log` per name, read through gitpython's command wrapper."""
    with _repo(store) as repo:
        timeout = store.limit("timeout")
        commits: list[ItemCommit] = []
        older, start, name = 0, "HEAD", filename
        for _ in range(MAX_RENAMES + 1):
            try:
                text = repo.git.log(
                    start, "-z", "--raw", "--no-renames", "--no-abbrev", f"--format={_FORMAT}", f"--max-count={limit - len(commits) + 1}",
                    "--", *_pathspecs(name), kill_after_timeout=timeout, strip_newline_in_stdout=False,
                )  # fmt: skip
            except _git_error():
                break  # no commits yet, or `start` has no parent
            found = _parse_log(text)
            if len(commits) + len(found) > limit:
                keep = limit - len(commits)
                commits += found[:keep]
                older = int(repo.git.rev_list("--count", start, "--", *_pathspecs(name), kill_after_timeout=timeout)) - keep
                return ItemLog(commits, older)
            commits += found
            if not found:
                break
            old_path = _renamed_from(repo, found[-1], name, timeout)
            if old_path is None:
                break
            first = found[-1]
            old_blob = _blob_at(repo, f"{first.commit}^", old_path)
            changes = tuple(FileChange("R", old_path, c.new_path, old_blob, c.new_blob) if c.status == "A" else c for c in first.changes)
            commits[-1] = replace(first, changes=changes)
            start, name = f"{first.commit}^", _name(old_path)
        return ItemLog(commits, older)


def _renamed_from(repo: Any, first: ItemCommit, name: str, timeout: float) -> str | None:
    """The path the item had before `first` (the oldest commit under `name`) when that commit
    renamed it (rename detection over the whole commit) rather than created it."""
    if not any(c.status == "A" for c in first.changes):
        return None
    # only the renames (a store's first commit may add tens of thousands of files)
    fields = repo.git.diff_tree(
        "-r", "-M", "--diff-filter=R", "-z", "--raw", "--no-commit-id", "--root", first.commit, kill_after_timeout=timeout
    ).split("\x00")  # fmt: skip
    for n, meta in enumerate(fields[:-2]):
        if meta.startswith(":") and meta.split()[-1].startswith("R"):
            old, new = fields[n + 1], fields[n + 2]
            if _name(new) == name and _name(old) != name:
                return old
    return None


def item_commit(store: GitStore, filename: str, sha: str) -> ItemCommit | None:
    """The commit `sha` (a prefix will do) as `item_log` lists it for `filename`; None when it
    did not touch the item under that name."""
    with _repo(store) as repo:
        try:
            text = repo.git.log(
                "-1", "-z", "--raw", "--no-renames", "--no-abbrev", f"--format={_FORMAT}", sha, "--", *_pathspecs(filename),
                kill_after_timeout=store.limit("timeout"), strip_newline_in_stdout=False,
            )  # fmt: skip
        except _git_error():
            return None
    found = _parse_log(text)
    return found[0] if found and found[0].commit.startswith(sha) and found[0].changes else None


def item_diff(store: GitStore, commit: ItemCommit, max_lines: int = MAX_DIFF_LINES) -> ItemDiff:
    """What `commit` did to the item: each change's summary, then the unified diff of the
    item's text before and after (a move without an edit has a summary and no diff)."""
    import difflib

    summary: list[str] = []
    lines: list[str] = []
    with _repo(store) as repo:
        for c in commit.changes:
            summary.append(c.summary)
            old_blob = c.old_blob or (_blob_at(repo, f"{commit.commit}^", c.old_path) if c.old_path else None)
            if old_blob == c.new_blob:
                continue
            before, after = _lines(repo, old_blob), _lines(repo, c.new_blob)
            lines += difflib.unified_diff(
                before, after, fromfile=f"a/{c.old_path}" if c.old_path else "/dev/null",
                tofile=f"b/{c.new_path}" if c.new_path else "/dev/null", lineterm="",
            )  # fmt: skip
    more = max(len(lines) - max_lines, 0)
    return ItemDiff(summary or ["merged (no change of its own)"], lines[:max_lines], more)


def _blob_at(repo: Any, rev: str, path: str) -> str | None:
    try:
        return repo.git.rev_parse("--verify", "-q", f"{rev}:{path}")
    except _git_error():  # no such file there
        return None


def _lines(repo: Any, blob: str | None) -> list[str]:
    if not blob:
        return []
    data = repo.odb.stream(bytes.fromhex(blob)).read()
    return data.decode("utf-8", "replace").splitlines()
