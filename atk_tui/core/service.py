"""The one facade every front end calls: the `atk` CLI, the dashboard, the tests.

It takes a store root and a clock, enforces who may do what (SPEC §5, §8), and returns
results and errors as values (`Outcome`) with messages a person can act on.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from . import headings, readiness, sections
from .cache import ItemCache, cache_key
from .config import PLAN_PREFIX, is_agent_env, portable_plan_file, resolve_plan_file
from .items import MAX_ITEM_BYTES, find_title, new_file_text, parse_item, set_keys, split_frontmatter, with_frontmatter
from .model import ACTIVE, STATES, TERMINAL, URGENCIES, Item, Snapshot, StoreDefect, is_valid_filename
from .readiness import Judgement
from .store import AtkError, GitStore, StateConflict, Transaction, WriteResult, item_path

Clock = Callable[[], datetime]


def _body_of(text: str) -> str:
    parts = split_frontmatter(text)
    return parts[2] if parts is not None else text


def _code(exc: AtkError) -> str:
    return exc.code or ("invalid" if exc.exit_code == 2 else "")
SHA_RE = re.compile(r"^[0-9a-f]{40}$")


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Outcome:
    """What a write did. `ok` False means nothing was changed (see `message`)."""

    ok: bool
    op: str
    message: str
    files: tuple[str, ...] = ()
    commit: str | None = None
    pushed: bool | None = None
    warnings: tuple[str, ...] = ()
    exit_code: int = 0
    item: Item | None = None
    #: a stable refusal code so callers never match message text: "changed" (the item
    #: differs from the base the caller saw), "partial", "user-only", "state", "busy",
    #: "missing", "invalid"; "" on success or when none applies
    code: str = ""


@dataclass(frozen=True)
class Conflict:
    """A commit `atk wi commit` set aside because it conflicts with the remote (contract §4)."""

    ref: str  # refs/atk/conflicts/<sha>
    commit: str
    subject: str
    files: tuple[str, ...]
    when: str  # the commit's author date, ISO 8601


CONFLICT_PREFIX = "refs/atk/conflicts/"


@dataclass
class HistoryEntry:
    commit: str
    date: datetime
    author: str
    subject: str
    actor: str


@dataclass
class QueueView:
    """A consistent picture of the queue at one moment, with every derived judgement."""

    snapshot: Snapshot
    judgements: dict[str, Judgement]
    blocks: dict[str, tuple[int, int]]
    dependents: dict[str, list[str]]
    needs_you: list[str]
    head: str | None
    now: datetime
    store_defects: list[StoreDefect] = field(default_factory=list)

    @property
    def items(self) -> dict[str, Item]:
        return self.snapshot.items

    def in_state(self, state: str) -> list[Item]:
        return [i for i in self.snapshot.items.values() if i.state == state]


class Service:
    def __init__(
        self,
        root: Path | str,
        *,
        clock: Clock = utc_now,
        actor: str | None = None,
        only_repo: str | None = None,
        pull: bool = True,
        push: bool = True,
        use_cache: bool = True,
    ) -> None:
        self.store = GitStore(root)
        self.root = self.store.root
        self.clock = clock
        self.actor = actor or ("agent" if is_agent_env() else "user")
        self.only_repo = only_repo
        self.pull = pull
        self.push = push
        self.use_cache = use_cache

    def set_lock_wait_listener(self, listener: Callable[[str | None], None] | None) -> None:
        """`listener(message)` when a write has to wait for the store lock (another process
        writes), `listener(None)` when that wait is over; called from the writing thread."""
        self.store.on_lock_wait = listener

    def interrupt(self) -> int:
        """Kill every child process (git, hooks) the store runs now, so that a write blocked
        on one (a stuck hook, a remote that never answers) fails promptly and rolls back; the
        dashboard calls it when the user quits during such a write. Safe from any thread.
        Returns how many children were killed."""
        return self.store.interrupt()

    def pull_now(self, *, lock_timeout: float | None = None) -> list[str]:
        """Pull (rebase) from the remote now, under the store lock, without writing anything
        (the dashboard's periodic pull). Returns the warnings; raises AtkError (store busy, an
        autostash conflict). Never pulls into, nor aborts, a rebase someone else started."""
        result = WriteResult()
        with self.store.locked(lock_timeout):
            self.store._pull(result)
        return result.warnings

    # -- reading ---------------------------------------------------------------------

    def read(self, filename: str, state: str | None = None) -> Item:
        """The full item (body included). Raises AtkError when there is none."""
        where = [state] if state else self.store.locate_all(filename)
        if not where:
            linked = [f"wi/{s}" for s in STATES if self.store.state_dir_link(s)]
            if linked:
                raise AtkError(
                    f"no item named {filename} ({', '.join(linked)}: a symbolic link, never read; "
                    "replace it with a real folder)",
                    code="missing",
                )
            raise AtkError(f"no item named {filename}", code="missing")
        item = self._parse_bounded(filename, where[0])
        if len(where) > 1:
            item.defects = [*item.defects, f"filename is in {len(where)} states at once: {', '.join(where)}"]
        return item

    def scratch_dir(self) -> Path:
        """Where the dashboard keeps the text of edit sessions (inside .git: never committed)."""
        return self.store.git_dir / "atk-edit"

    def read_bytes(self, filename: str) -> bytes:
        """The item file's exact bytes (a `base` for answer/comment/save_text)."""
        if not is_valid_filename(filename):
            raise AtkError(f"bad filename {filename!r}: an item filename has no path parts", exit_code=2, code="invalid")
        where = self.store.locate_all(filename)
        if not where:
            raise AtkError(f"no item named {filename}", code="missing")
        return self.store.read_bytes(where[0], filename)

    def _parse_bounded(self, filename: str, state: str) -> Item:
        """Parse an item without reading more than the size limit allows: a file over it is
        shown as defective from its first bytes (a 2 GB file must not stall the app)."""
        data = self.store.read_bytes(state, filename, max_bytes=MAX_ITEM_BYTES + 1)
        if len(data) <= MAX_ITEM_BYTES:
            return parse_item(filename, state, data)
        size = os.stat(self.root / "wi" / state / filename, follow_symlinks=False).st_size
        return parse_item(filename, state, data, size=size)

    def show(self, filename: str) -> Item:
        item = self.read(filename)
        self._check_repo(item)
        return item

    def load_items(self, states: Iterable[str] = ACTIVE) -> tuple[dict[str, Item], dict[str, str], list[StoreDefect]]:
        """Parse the items in `states` (through the cache) and locate every item."""
        wanted = [s for s in STATES if s in set(states)]
        # git stats the work tree for the blob SHAs while the folders are scanned here
        collect_blobs = self.store.index_blobs_async(wanted) if self.use_cache else dict
        scan = self.store.scan_all(STATES)
        where, dups, defects = scan.where, scan.dups, scan.defects
        items: dict[str, Item] = {}
        scopes: dict[str, ItemCache] = {}
        blobs = collect_blobs()
        root = str(self.root)
        seen: dict[str, set[str]] = {}
        for state in wanted:
            scope = "terminal" if state in TERMINAL else "active"
            cache = None
            if self.use_cache:
                cache = scopes.get(scope)
                if cache is None:
                    cache = scopes[scope] = ItemCache(self.store.git_dir, scope)
                    cache.load()
                keep = seen.setdefault(scope, set())
            for name in scan.names.get(state, ()):
                if where[name] != state:
                    continue  # a duplicate: the copy in the first state is the item
                rel = f"wi/{state}/{name}"
                blob = blobs.get(rel)
                item = cache.get(name, state, blob) if (cache is not None and blob) else None
                if item is None:
                    try:
                        # never through a link (scan_all lists none; the file may change since)
                        fd = os.open(os.path.join(root, rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                        with os.fdopen(fd, "rb") as fh:
                            data = fh.read(MAX_ITEM_BYTES + 1)
                            size = os.fstat(fd).st_size if len(data) > MAX_ITEM_BYTES else None
                    except OSError as exc:
                        item = Item(filename=name, state=state, title=name, defects=[f"cannot read: {exc.strerror}"])
                    else:
                        item = parse_item(name, state, data, size=size)
                        if cache is not None and size is None:
                            cache.put(item)
                if cache is not None:
                    keep.add(cache_key(item.blob, name))
                if name in dups:
                    in_states = dups[name]
                    item.defects = [*item.defects, f"filename is in {len(in_states)} states at once: {', '.join(in_states)}"]
                items[name] = item
        for scope, cache in scopes.items():
            cache.save(keep=seen.get(scope, set()))
        return items, where, defects

    def queue(self, states: Iterable[str] = ACTIVE) -> QueueView:
        """Everything the dashboard shows, judged at `clock()`."""
        if self.store.journal_path.exists():
            # a write a killed process left half done must not look saved: roll it back now
            # when nobody is writing (a writer holding the lock has its own journal)
            try:
                with self.store.locked(timeout=0):
                    pass
            except AtkError:
                pass
        head = self.store.head()
        items, where, defects = self.load_items(states)
        dirs: dict[str, str] = {}  # resolved plan folders, shared by this listing's items
        plan_missing = frozenset(
            i.filename
            for i in items.values()
            if i.plan_file and (not (p := resolve_plan_file(self.root, i.plan_file, dirs)) or not os.path.isfile(p))
        )
        snap = Snapshot(items=items, states=where, store_defects=defects, plan_missing=plan_missing)
        now = self.clock()
        judgements = readiness.judge(snap, now)
        blocks = readiness.blocks_count(snap, judgements)
        return QueueView(
            snapshot=snap,
            judgements=judgements,
            blocks=blocks,
            dependents=readiness.dependents(snap),
            needs_you=readiness.sort_needs_you(snap, judgements, blocks),
            head=head,
            now=now,
            store_defects=defects,
        )

    def list(
        self,
        states: Iterable[str] = ACTIVE,
        *,
        kind: str | None = None,
        target_repo: str | None = None,
        text: str | None = None,
    ) -> tuple[list[Item], QueueView]:
        view = self.queue(states)
        repo = target_repo or self.only_repo
        out = []
        needle = text.casefold() if text else None
        for item in view.items.values():
            if kind and item.kind != kind:
                continue
            if repo and item.target_repo != repo:
                continue
            if needle and not self._matches(item, needle):
                continue
            out.append(item)
        out.sort(key=lambda i: (STATES.index(i.state), i.filename))
        return out, view

    def _matches(self, item: Item, needle: str) -> bool:
        hay = f"{item.filename}\n{item.title}\n{item.target_repo}".casefold()
        if needle in hay:
            return True
        if not item.complete:
            try:
                item = self.read(item.filename, item.state)
            except (AtkError, OSError):
                return False
        return needle in item.body.casefold()

    def history(self, filename: str, limit: int = 50) -> list[HistoryEntry]:
        """Commits that touched the item, newest first, with the `Atk-Actor` trailer."""
        if not is_valid_filename(filename):
            raise AtkError(f"bad filename {filename!r}", exit_code=2)
        fmt = "%H%x1f%aI%x1f%an%x1f%s%x1f%(trailers:key=Atk-Actor,valueonly,separator=%x2c)%x1e"
        proc = self.store.git(
            "log", f"-n{limit}", f"--format={fmt}", "--", f":(glob)wi/*/{filename}", check=False
        )
        out = []
        for rec in proc.stdout.split("\x1e"):
            parts = rec.strip("\n").split("\x1f")
            if len(parts) != 5:
                continue
            sha, date, author, subject, actor = parts
            out.append(HistoryEntry(sha, datetime.fromisoformat(date), author, subject, actor.strip() or "?"))
        return out

    def status(self) -> dict[str, object]:
        return {
            "store": str(self.root),
            "upstream": self.store.upstream(),
            "unpushed": self.store.unpushed(),
            "head": self.store.head(),
            "actor": self.actor,
            "conflicts": len(self.conflicts()),
        }

    # -- set-aside conflicts (contract §4) ------------------------------------------------

    def conflicts(self) -> list[Conflict]:
        """Commits set aside as `refs/atk/conflicts/<sha>`, oldest first."""
        fmt = "%(refname)%00%(objectname)%00%(subject)%00%(authordate:iso-strict)"
        proc = self.store.git("for-each-ref", f"--format={fmt}", "--sort=authordate", CONFLICT_PREFIX, check=False)
        out = []
        for line in proc.stdout.splitlines():
            parts = line.split("\0")
            if len(parts) != 4:
                continue
            ref, sha, subject, when = parts
            out.append(Conflict(ref, sha, subject, tuple(self._conflict_files(sha)), when))
        return out

    def _conflict_ref(self, ref: str) -> tuple[str, str]:
        """(full ref, commit) for a ref given in full, as `<sha>` or a unique SHA prefix."""
        name = ref.strip()
        for c in self.conflicts():
            sha = c.commit
            if name in (c.ref, sha) or (len(name) >= 4 and sha.startswith(name)) or c.ref.endswith("/" + name):
                return c.ref, sha
        raise AtkError(f"no set-aside conflict {ref!r}; `atk wi conflicts` lists them", code="missing")

    def _conflict_files(self, sha: str) -> list[str]:
        proc = self.store.git("diff-tree", "--root", "--no-commit-id", "-r", "--name-only", "--no-renames", "-z", sha, check=False)
        return [p for p in proc.stdout.split("\0") if p]

    def conflict_versions(self, ref: str) -> list[tuple[str, bytes | None, bytes | None]]:
        """(path, mine: the set-aside commit's version, theirs: the current branch's) for
        every file the set-aside commit changed; None where the file does not exist."""
        _, sha = self._conflict_ref(ref)
        paths = self._conflict_files(sha)
        mine = self._blobs([f"{sha}:{p}" for p in paths])
        theirs = self._blobs([f"HEAD:{p}" for p in paths])
        return list(zip(paths, mine, theirs, strict=True))

    def resolve_conflict(self, ref: str, keep: str) -> Outcome:
        """Apply one side of a set-aside conflict: "mine" writes the set-aside commit's
        version of its files over the current ones (one commit, pushed); "theirs" keeps the
        current ones. The ref is deleted on success."""
        if keep not in ("mine", "theirs"):
            return self._refuse("conflicts", "keep must be 'mine' or 'theirs'", exit_code=2)
        try:
            full, sha = self._conflict_ref(ref)
        except AtkError as exc:
            return self._refuse("conflicts", exc.message, code=exc.code)
        if keep == "theirs":
            self.store.git("update-ref", "-d", full, sha, check=False)
            return Outcome(True, "conflicts", f"kept the remote's version; dropped set-aside {sha[:10]}")
        paths = self._conflict_files(sha)
        mine = dict(zip(paths, self._blobs([f"{sha}:{p}" for p in paths]), strict=True))
        names = {p.split("/")[2] for p in paths if p.startswith("wi/") and p.count("/") == 2}

        def change(tx: Transaction) -> None:
            for path, data in mine.items():
                exists = (self.root / path).is_file()
                if data is None:
                    if exists:
                        tx.delete(path)
                    continue
                if not exists or (self.root / path).read_bytes() != data:
                    tx.write(path, data)
            # one item, one state: drop copies the remote's side left in other state folders
            for name in names:
                keep_states = {p.split("/")[1] for p, d in mine.items() if d is not None and p.endswith("/" + name)}
                if not keep_states:
                    continue
                for state in STATES:
                    if state not in keep_states and (self.root / item_path(state, name)).is_file():
                        tx.delete(item_path(state, name))
            subject = self.store.git("show", "-s", "--format=%s", sha, check=False).stdout.strip()
            tx.subject = f"atk: resolve conflict {sha[:10]} ({subject.removeprefix('atk: ')}) keeping mine"

        out = self._write("resolve-conflict", [sha[:10]], change)
        if out.ok or "nothing to change" in out.message:
            self.store.git("update-ref", "-d", full, sha, check=False)
            if not out.ok:
                return Outcome(True, "conflicts", f"your version of {sha[:10]} is already in place; dropped the set-aside ref")
            out.message = f"applied your version of {sha[:10]} ({out.commit[:10] if out.commit else ''})"
        return out

    # -- notices and the resident loop (core/notices.py, core/loop.py) ----------------

    def notices(self) -> list:
        """Agents' notices for the user, oldest first (`notices.Notice`)."""
        from . import notices

        return notices.list_notices(self.root)

    def notify(self, body: str, *, source: str | None = None) -> Outcome:
        from . import notices

        return notices.notify(self, body, source=source)

    def dismiss_notices(self, filenames: Sequence[str]) -> Outcome:
        """A user-only write: the notices are deleted (git history keeps them)."""
        from . import notices

        return notices.dismiss(self, list(filenames))

    def loop_status(self) -> dict[str, object] | None:
        """What a running `atk wi process-loop` on this store reports (None when none runs)."""
        from .loop import read_status

        return read_status(self.store.git_dir)

    def config_get(self, key: str) -> str:
        if key == "private_notes":
            return str(self.root)
        raise AtkError(f"unknown config key {key!r} (known: private_notes)", exit_code=2)

    # -- write plumbing --------------------------------------------------------------

    def _write(self, op: str, files: Sequence[str], change: Callable[[Transaction], Item | None]) -> Outcome:
        subject = f"atk: {op} {files[0]}" if len(files) == 1 else f"atk: {op} {len(files)} items"
        result = WriteResult()
        try:
            with self.store.writing(subject, self.actor, pull=self.pull, push=self.push, result=result) as tx:
                item = change(tx)
                self._guard_tx(tx)
        except AtkError as exc:
            return Outcome(
                False, op, exc.message, tuple(files), warnings=tuple(result.warnings), exit_code=exc.exit_code,
                code=_code(exc),
            )
        except (OSError, ValueError) as exc:
            return Outcome(False, op, f"{op} failed, nothing was changed: {exc}", tuple(files), exit_code=1)
        verb = {"add": "added", "edit": "saved"}.get(op, op)
        return Outcome(
            True,
            op,
            f"{verb} {files[0] if len(files) == 1 else f'{len(files)} items'}",
            tuple(files),
            commit=result.commit,
            pushed=result.pushed,
            warnings=tuple(result.warnings),
            item=item,
        )

    @staticmethod
    def _refuse(op: str, message: str, files: Sequence[str] = (), exit_code: int = 1, code: str = "") -> Outcome:
        return Outcome(False, op, message, tuple(files), exit_code=exit_code, code=code or ("invalid" if exit_code == 2 else ""))

    def _check_repo(self, item: Item) -> None:
        if self.only_repo and item.target_repo != self.only_repo:
            raise AtkError(f"{item.filename} targets {item.target_repo or '(none)'}, not {self.only_repo} (--target-repo)", code="invalid")

    def _current(self, filename: str, *, allow_defective: bool = False) -> Item:
        if not is_valid_filename(filename):
            raise AtkError(f"bad filename {filename!r}: an item filename has no path parts", exit_code=2, code="invalid")
        where = self.store.locate_all(filename)
        if not where:
            raise AtkError(f"no item named {filename}", code="missing")
        state = where[0]
        item = self._parse_bounded(filename, state)
        if len(where) > 1:
            item.defects = [*item.defects, f"filename is in {len(where)} states at once: {', '.join(where)}"]
        self._check_repo(item)
        if item.defects and not allow_defective:
            raise AtkError(
                f"{filename} is defective ({'; '.join(item.defects)}); repair it with "
                f"`atk wi edit {filename} --whole-file FILE` (frontmatter and body), or remove it with `atk wi rm`",
                code="invalid",
            )
        return item

    def _user_only(self, op: str) -> None:
        if self.actor != "user":
            raise AtkError(
                f"{op} is a user-only write; refused in an agent environment (the user does it in the dashboard)",
                exit_code=2,
                code="user-only",
            )

    def _guard_user_headings(self, body: str, filename: str | None = None) -> None:
        if self.actor == "agent":
            found = sections.user_only_headings(body)
            if found:
                where = f"{filename}: " if filename else ""
                raise AtkError(
                    f"{where}the body contains the user-only section '{found[0]}'; agents may not write it "
                    "(remove that heading; the user answers and comments in the dashboard)",
                    exit_code=2,
                    code="user-only",
                )

    def _guard_tx(self, tx: Transaction) -> None:
        """SPEC §11 on every write path, in one place: before an agent's commit, every item
        file it would commit is compared with the committed version of that item (whatever
        state folder it was in): a changed user-only section, or a new file holding one,
        refuses the whole write (nothing committed, files put back as they were). This also
        catches a hand-edited forgery riding along with a move, an edit or `atk wi commit`."""
        if self.actor != "agent":
            return
        for rel in sorted(set(tx.changed)):
            if not rel.startswith("wi/"):
                continue
            full = self.root / rel
            if full.is_symlink() or not full.is_file():
                continue  # deleted (rm's business) or not a file git commits as one
            new = full.read_bytes().decode("utf-8", "replace")
            parts = rel.split("/")
            if len(parts) == 3 and is_valid_filename(parts[2]) and parts[1] in STATES:
                old = self._committed_text("HEAD", parts[2], parts[1])
            else:
                blob = self._blobs([f"HEAD:{rel}"])[0]
                old = None if blob is None else blob.decode("utf-8", "replace")
            self._guard_user_sections(rel, old, new)

    def _guard_user_sections(self, path: str, old: str | None, new: str | None) -> None:
        """SPEC §11, every write path: an agent may not commit a file whose user-only sections
        differ from the committed ones (a new file: has any). Deleting a file is `rm`'s
        business, not this rule's."""
        if self.actor != "agent" or new is None:
            return
        before = headings.user_only_sections(_body_of(old or ""))
        after = headings.user_only_sections(_body_of(new))
        if before == after:
            return
        changed = [text for kind, text in after if (kind, text) not in before] or [text for _, text in before]
        first = changed[0].splitlines()[0].strip() if changed and changed[0] else "a user-only section"
        raise AtkError(
            f"refused: {path} {'changes' if old is not None else 'adds'} the user-only section '{first}'; "
            "agents may not write answers or user comments (undo that change, e.g. "
            f"`git checkout -- {path}`, and leave it to the user)",
            exit_code=2,
            code="user-only",
        )

    def _blobs(self, specs: Sequence[str]) -> list[bytes | None]:
        """`git cat-file --batch` for `REV:PATH` specs: each object's bytes, None if missing."""
        if not specs:
            return []
        proc = subprocess.run(
            ["git", "cat-file", "--batch"],
            cwd=self.root,
            env=self.store.read_env,
            input=("\n".join(specs) + "\n").encode("utf-8", "surrogateescape"),
            capture_output=True,
            check=False,
            timeout=120,
        )
        out: list[bytes | None] = []
        data = proc.stdout
        pos = 0
        for _ in specs:
            nl = data.find(b"\n", pos)
            if nl < 0:
                out.append(None)
                continue
            header = data[pos:nl].split()
            pos = nl + 1
            if len(header) == 3 and header[1] == b"blob":
                size = int(header[2])
                out.append(data[pos : pos + size])
                pos += size + 1
            else:
                out.append(None)
        return out

    def _committed_text(self, rev: str, filename: str, prefer: str | None = None) -> str | None:
        """The item's text at `rev` (in whichever state folder it was), or None."""
        states = [prefer] if prefer else []
        states += [s for s in STATES if s != prefer]
        for data in self._blobs([f"{rev}:{item_path(s, filename)}" for s in states]):
            if data is not None:
                return data.decode("utf-8", "replace")
        return None

    def _check_answer_author(self, item: Item) -> None:
        """Defence in depth (SPEC §11): an agent closes a UWI only when the commit that
        introduced its current answer is a user's (`Atk-Actor: user`)."""
        current = sections.answer_text(item.body)
        if not (current or "").strip():
            return
        name = item.filename
        refuse = AtkError(
            f"refused: the answer in {name} was not written by the user (its newest change is not an "
            "`Atk-Actor: user` commit); only the user answers — leave it for the user to answer in the dashboard",
            exit_code=2,
            code="user-only",
        )
        head_text = self._committed_text("HEAD", name, item.state)
        if head_text is None or sections.answer_text(parse_item(name, item.state, head_text.encode()).body) != current:
            raise refuse  # the answer is not even committed
        fmt = "%H%x1f%(trailers:key=Atk-Actor,valueonly,separator=%x2c)%x1e"
        log = self.store.git("log", "-n200", f"--format={fmt}", "--", f":(glob)wi/*/{name}", check=False).stdout
        commits = [tuple(r.strip("\n").split("\x1f")) for r in log.split("\x1e") if r.strip()]

        revs = [r for sha, _ in commits for r in (sha, f"{sha}^")]
        blobs = self._blobs([f"{rev}:{item_path(s, name)}" for rev in revs for s in STATES])
        answers: dict[str, str | None] = {}
        for n, rev in enumerate(revs):
            data = next((b for b in blobs[n * len(STATES) : (n + 1) * len(STATES)] if b is not None), None)
            answers[rev] = None if data is None else sections.answer_text(parse_item(name, "inbox", data).body)
        for sha, actor in commits:
            if answers[sha] != answers[f"{sha}^"]:
                if actor.strip() != "user":
                    raise refuse
                return
        raise refuse

    @staticmethod
    def _write_text(tx: Transaction, item: Item, text: str) -> None:
        tx.write(item_path(item.state, item.filename), text.encode("utf-8"))

    # -- transitions -----------------------------------------------------------------

    def _allowed_from(self, op: str, item: Item, from_state: str | None, *, actor: str | None = None) -> set[str]:
        """States `op` may start from, for the current actor (or `actor`) (SPEC §5)."""
        target = TARGET[op]
        if (actor or self.actor) == "user":
            return set(STATES) - {target}
        if op in ("adopt", "reject"):
            # an answered UWI may be closed from inbox (SPEC §5, §11 confirmation-and-uwi step 3)
            ok = {"processing"}
            if item.kind == "uwi" and item.answered:
                ok.add("inbox")
            return ok
        if op == "return-to-inbox":
            return {from_state or "processing"}
        return set(AGENT_FROM[op])

    def transition(
        self,
        op: str,
        files: Sequence[str],
        *,
        note: str | None = None,
        commit: str | None = None,
        from_state: str | None = None,
        expect: str | None = None,
        base: bytes | None = None,
    ) -> Outcome:
        """hold, unhold, start-processing, adopt, reject, return-to-inbox: all-or-nothing.
        `base` (one file only): the bytes the user saw; refused with code "changed" when the
        stored file differs (e.g. a note written against a question that changed)."""
        if op not in TARGET:
            return self._refuse(op, f"unknown transition {op!r}", files, 2)
        if not files:
            return self._refuse(op, "no item given", files, 2)
        if len(set(files)) != len(files):
            return self._refuse(op, "the same item is named twice", files, 2)
        if commit is not None and not SHA_RE.match(commit):
            return self._refuse(op, f"--commit needs a full 40-hex commit SHA, got {commit!r}", files, 2)
        if (note is not None or commit is not None) and op not in ("adopt", "reject"):
            return self._refuse(op, "--note and --commit go with adopt and reject only", files, 2)
        if commit is not None and op != "adopt":
            return self._refuse(op, "--commit goes with adopt only", files, 2)
        if from_state is not None and from_state not in STATES:
            return self._refuse(op, f"unknown state {from_state!r}", files, 2)
        if base is not None and len(files) != 1:
            return self._refuse(op, "a base goes with one item only", files, 2)
        target = TARGET[op]

        def change(tx: Transaction) -> Item | None:
            last = None
            for name in files:
                item = self._current(name)
                self._check_base(item, base)
                if expect and item.state != expect:
                    raise StateConflict(f"state conflict: {name} is in {item.state}, not {expect}")
                allowed = self._allowed_from(op, item, from_state)
                if item.state == target and (self.actor == "user" or op != "return-to-inbox"):
                    raise StateConflict(f"state conflict: {name} is already in {target}")
                if item.state not in allowed:
                    hint = ""
                    if op in ("adopt", "reject") and item.state == "inbox" and item.kind == "uwi":
                        hint = (
                            f" (an inbox UWI can be {op}ed only once the user's answer is saved; "
                            f"it is {'partially answered' if item.answer_partial else 'not answered yet'})"
                        )
                    elif op == "hold" and item.state == "processing":
                        hint = (
                            f" (wi-standards: a processing item is not held while waiting; "
                            f"`atk wi return-to-inbox {name}` first, then hold it)"
                        )
                    elif op in ("adopt", "reject") and item.state == "inbox":
                        hint = f" (`atk wi start-processing {name}` first)"
                    elif op == "start-processing" and item.state == "hold":
                        hint = f" (the user holds it; `atk wi unhold {name}` only if the user asked for it)"
                    elif item.state in TERMINAL:
                        hint = f" (`atk wi return-to-inbox {name} --state={item.state}` first)"
                    raise StateConflict(
                        f"state conflict: {name} is in {item.state}; {op} expects {' or '.join(sorted(allowed))}{hint}"
                    )
                if op in ("adopt", "reject") and self.actor == "agent" and item.kind == "uwi":
                    self._check_answer_author(item)
                src = item_path(item.state, name)
                updates = {}
                if note is not None:
                    updates["note"] = note
                if commit is not None:
                    updates["commit"] = commit
                if updates:
                    new_fm = set_keys(item.fm_text or "", updates)
                    self._write_text(tx, item, with_frontmatter(item.head, item.fm_text or "", new_fm) + item.body)
                tx.move(src, item_path(target, name))
                last = item
            return last

        return self._write(op, list(files), change)

    def hold(self, filename: str, **kw) -> Outcome:
        return self.transition("hold", [filename], **kw)

    def unhold(self, filename: str, **kw) -> Outcome:
        return self.transition("unhold", [filename], **kw)

    def start_processing(self, files: Sequence[str], **kw) -> Outcome:
        return self.transition("start-processing", files, **kw)

    def adopt(self, filename: str, *, note: str | None = None, commit: str | None = None, **kw) -> Outcome:
        return self.transition("adopt", [filename], note=note, commit=commit, **kw)

    def reject(self, filename: str, *, note: str | None = None, **kw) -> Outcome:
        return self.transition("reject", [filename], note=note, **kw)

    def return_to_inbox(self, filename: str, *, from_state: str = "processing", **kw) -> Outcome:
        return self.transition("return-to-inbox", [filename], from_state=from_state, **kw)

    def move(
        self,
        files: Sequence[str],
        to_state: str,
        *,
        note: str | None = None,
        expect: str | None = None,
        base: bytes | None = None,
    ) -> Outcome:
        """The user's any-state-to-any-state move (SPEC §5), for the dashboard."""
        if self.actor != "user":
            return self._refuse("move", "a free move is a user-only write; agents use the named transitions", files, 2)
        op = MOVE_OP.get(to_state)
        if to_state == "inbox" and expect == "hold":
            op = "unhold"
        if op is None:
            return self._refuse("move", f"unknown state {to_state!r}", files, 2)
        return self.transition(op, files, note=note if op in ("adopt", "reject") else None, expect=expect, base=base)

    def agent_may_move(self, item: Item, to_state: str) -> bool:
        """Whether an agent could make the user's move of `item` to `to_state` itself (its
        transition rules, SPEC §5/§11): the dashboard confirms the moves agents never make."""
        op = MOVE_OP.get(to_state)
        if to_state == "inbox" and item.state == "hold":
            op = "unhold"
        if op is None or item.state == to_state:
            return False
        # return-to-inbox names the state it starts from (`--state`), as an agent would
        from_state = item.state if op == "return-to-inbox" else None
        return item.state in self._allowed_from(op, item, from_state, actor="agent")

    def dependents_of(self, filename: str) -> list[str]:
        """Active items that list `filename` in depends_on."""
        items, _, _ = self.load_items(ACTIVE)
        return sorted(n for n, i in items.items() if filename in i.depends_on and n != filename)

    def rm(self, files: Sequence[str] | str, *, expect: str | None = None) -> Outcome:
        files = [files] if isinstance(files, str) else list(files)
        out = self._rm(files, expect=expect)
        if out.ok:
            gone = set(files)
            notes = []
            for name in files:
                deps = [d for d in self.dependents_of(name) if d not in gone]
                if deps:
                    notes.append(
                        f"{name} was a dependency of {', '.join(deps)}: they are now blocked (missing dependency); "
                        f"update them with `atk wi set-dependencies`"
                    )
            out.warnings = (*out.warnings, *notes)
        return out

    def _rm(self, files: list[str], *, expect: str | None = None) -> Outcome:

        def change(tx: Transaction) -> None:
            for name in files:
                item = self._current(name, allow_defective=True)
                if expect and item.state != expect:
                    raise StateConflict(f"state conflict: {name} is in {item.state}, not {expect}")
                if item.state not in ("inbox", "hold"):
                    raise StateConflict(f"state conflict: {name} is in {item.state}; rm takes inbox or hold items only")
                tx.delete(item_path(item.state, name))

        return self._write("rm", files, change)

    # -- content writes --------------------------------------------------------------

    def _new_filename(self, title: str | None, body: str, now: datetime | None = None) -> str:
        stamp = (now or self.clock()).astimezone(UTC).strftime("%Y%m%d-%H%M%S")
        words = re.findall(r"[a-z0-9]+", (title or "").lower())
        slug = "-".join(words)[:60].strip("-")
        if not slug:
            import hashlib  # rarely needed: keep it off the start-up path

            slug = hashlib.sha1(body.encode()).hexdigest()[:8]
        name = f"{stamp}-{slug}.md"
        n = 2
        while self.store.locate(name) is not None:
            name = f"{stamp}-{slug}-{n}.md"
            n += 1
        return name

    def add(
        self,
        *,
        kind: str,
        target_repo: str,
        body: str,
        source: str | None = None,
        plan_file: str | None = None,
        depends_on: Sequence[str] = (),
        urgency: str | None = None,
        target_commit: str | None = None,
        cooldown_until: datetime | None = None,
    ) -> Outcome:
        try:
            if kind not in ("awi", "uwi"):
                raise AtkError(f"--kind must be awi or uwi, got {kind!r}", exit_code=2)
            if not target_repo or not target_repo.strip():
                raise AtkError("--target-repo is required", exit_code=2)
            if self.actor == "agent" and not source:
                raise AtkError("agents must say where an item comes from: pass --source (e.g. --source process-wi)", exit_code=2)
            self._guard_user_headings(body)
            if not body.strip():
                raise AtkError("the body is empty", exit_code=2)
            if urgency is not None and (kind != "uwi" or urgency not in URGENCIES):
                raise AtkError(f"--urgency takes {', '.join(URGENCIES)} and goes with --kind uwi only", exit_code=2)
            if plan_file and kind != "awi":
                raise AtkError("--plan-file goes with --kind awi only", exit_code=2)
            if plan_file:
                plan_file = self._portable_plan(plan_file)
            if kind == "uwi" and urgency is None:
                from .questions import checkpoint_urgency

                urgency = checkpoint_urgency(body)  # SPEC §11: the checkpoint's Urgency goes into the frontmatter
            for dep in depends_on:
                if not is_valid_filename(dep):
                    raise AtkError(f"bad filename in --depends-on: {dep!r}", exit_code=2)
                if self.store.locate(dep) is None:
                    raise AtkError(f"--depends-on names no existing item: {dep}", code="missing")
        except AtkError as exc:
            return self._refuse("add", exc.message, exit_code=exc.exit_code, code=exc.code)
        now = self.clock().astimezone(UTC).replace(microsecond=0)  # one time for name and `created`
        meta = {
            "kind": kind,
            "source": source,
            "target_repo": target_repo,
            "target_commit": target_commit,
            "plan_file": plan_file,
            "depends_on": list(dict.fromkeys(depends_on)) or None,
            "cooldown_until": cooldown_until,
            "created": now,
            "urgency": urgency,
        }
        holder: list[str] = []

        def change(tx: Transaction) -> Item:
            name = self._new_filename(find_title(body), body, now)
            holder.append(name)
            text = new_file_text(meta, body)
            item = parse_item(name, "inbox", text.encode())
            if item.defects:
                raise AtkError(f"the new item would be defective: {'; '.join(item.defects)}", code="invalid")
            tx.write(item_path("inbox", name), text.encode())
            return item

        # the filename is only known inside the lock; the subject is patched after
        out = self._write_named("add", change, holder)
        return out

    def _write_named(self, op: str, change: Callable[[Transaction], Item | None], holder: list[str]) -> Outcome:
        """Like _write, for operations whose filename is chosen inside the lock."""
        result = WriteResult()
        item = None
        try:
            with self.store.writing(f"atk: {op}", self.actor, pull=self.pull, push=self.push, result=result) as tx:
                item = change(tx)
                self._guard_tx(tx)
                tx.subject = f"atk: {op} {holder[0]}"
        except AtkError as exc:
            return Outcome(
                False, op, exc.message, tuple(holder), warnings=tuple(result.warnings), exit_code=exc.exit_code,
                code=_code(exc),
            )
        except (OSError, ValueError) as exc:
            return Outcome(False, op, f"{op} failed, nothing was changed: {exc}", tuple(holder), exit_code=1)
        return Outcome(True, op, f"added {holder[0]}", tuple(holder), result.commit, result.pushed, tuple(result.warnings), item=item)

    def edit(self, filename: str, body: str) -> Outcome:
        """Replace an item's body (frontmatter untouched), keeping stored user-only sections."""

        def change(tx: Transaction) -> Item:
            item = self._current(filename, allow_defective=True)
            if item.state in TERMINAL:
                raise AtkError(f"{filename} is {item.state}: terminal items are read-only (return it to inbox first)", code="state")
            if item.fm_text is None:
                raise AtkError(
                    f"{filename} has no frontmatter; repair the whole file with `atk wi edit {filename} --whole-file FILE`",
                    code="invalid",
                )
            self._guard_user_headings(body)
            new_body = sections.keep_user_sections(item.body, body, is_uwi=item.kind == "uwi")
            if new_body and not new_body.endswith("\n"):
                new_body += "\n"
            self._guard_user_sections(item_path(item.state, filename), item.text, item.head + new_body)
            return self._save(tx, item, item.head + new_body)

        return self._write("edit", [filename], change)

    def save_text(self, filename: str, text: str, *, expect: str | None = None, base: bytes | None = None) -> Outcome:
        """Replace the whole file (the $EDITOR flow). Refused, with the reason, when the new
        text is not a valid item, or (with `base`) when the file no longer holds `base`:
        somebody else changed it while it was being edited. Nothing is written then."""

        def change(tx: Transaction) -> Item:
            item = self._current(filename, allow_defective=True)
            if expect and item.state != expect:
                raise StateConflict(f"state conflict: {filename} is in {item.state}, not {expect}")
            if base is not None and self.store.read_bytes(item.state, filename) != base:
                raise StateConflict(
                    f"not saved: {filename} was changed by someone else while you edited it "
                    "(see its history); edit again to merge your text, or discard it",
                    code="changed",
                )
            if item.state in TERMINAL:
                raise AtkError(
                    f"{filename} is {item.state}: terminal items are read-only (return it to inbox first)", code="state"
                )
            self._guard_user_sections(item_path(item.state, filename), item.text, text)
            return self._save(tx, item, text)

        return self._write("edit", [filename], change)

    def _save(self, tx: Transaction, item: Item, text: str) -> Item:
        data = text.encode("utf-8")
        if data == self.store.read_bytes(item.state, item.filename):
            raise AtkError("nothing to change: the text is the same")
        new = parse_item(item.filename, item.state, data)
        if new.defects:
            raise AtkError(f"not saved, the item would be defective: {'; '.join(new.defects)}", code="invalid")
        tx.write(item_path(item.state, item.filename), data)
        return new

    def set_dependencies(self, filename: str, depends_on: Sequence[str]) -> Outcome:
        deps = list(dict.fromkeys(depends_on))
        for dep in deps:
            if not is_valid_filename(dep):
                return self._refuse("set-dependencies", f"bad filename in --depends-on: {dep!r}", [filename], 2)

        def change(tx: Transaction) -> Item:
            item = self._current(filename)
            allowed = {"inbox", "processing"} | ({"hold"} if self.actor == "user" else set())
            if item.state not in allowed:
                raise StateConflict(
                    f"state conflict: {filename} is in {item.state}; set-dependencies takes {' or '.join(sorted(allowed))} items"
                )
            if filename in deps:
                raise AtkError(f"{filename} cannot depend on itself", code="invalid")
            for dep in deps:
                if self.store.locate(dep) is None:
                    raise AtkError(f"no item named {dep}: a dependency must be an existing item", code="missing")
            cycle = self.would_cycle(filename, deps)
            if cycle:
                raise AtkError(f"refused: that would make a dependency cycle: {readiness.format_cycle(cycle)}", code="invalid")
            new_fm = set_keys(item.fm_text or "", {"depends_on": deps or None})
            text = with_frontmatter(item.head, item.fm_text or "", new_fm) + item.body
            return self._save(tx, item, text)

        return self._write("set-dependencies", [filename], change)

    def would_cycle(self, filename: str, deps: Sequence[str]) -> tuple[str, ...] | None:
        """The cycle through `filename` that giving it `deps` would create, if any."""
        items, _, _ = self.load_items(ACTIVE)
        graph = {n: list(i.depends_on) for n, i in items.items() if n != filename}
        graph[filename] = list(deps)
        for cyc in readiness.find_cycles(graph):
            if filename in cyc:
                return cyc
        return None

    def _portable_plan(self, plan_file: str) -> str:
        portable = portable_plan_file(self.root, plan_file)
        if portable is None:
            raise AtkError(
                f"--plan-file {plan_file!r} is outside the store ({self.root}); move the plan into the store "
                f"first (`atk plans commit PATH`, or put it under {self.root}/plans/YYYY/MM/) and pass "
                f"'{PLAN_PREFIX}/plans/YYYY/MM/<name>.md'",
                exit_code=2,
                code="invalid",
            )
        return portable

    def convert_to_plan(self, filename: str, plan_file: str) -> Outcome:
        def change(tx: Transaction) -> Item:
            item = self._current(filename)
            if item.kind != "awi":
                raise AtkError(f"{filename} is a {item.kind.upper()}; only an AWI can have a plan file", code="invalid")
            if item.state in TERMINAL:
                raise AtkError(
                    f"{filename} is {item.state}: terminal items are read-only (return it to inbox first)", code="state"
                )
            if not plan_file.strip() or "\n" in plan_file:
                raise AtkError("--plan-file needs a path", exit_code=2)
            portable = self._portable_plan(plan_file)
            new_fm = set_keys(item.fm_text or "", {"plan_file": portable})
            return self._save(tx, item, with_frontmatter(item.head, item.fm_text or "", new_fm) + item.body)

        return self._write("convert-to-plan", [filename], change)

    def answer(
        self,
        filename: str,
        *,
        choices: dict[int, str] | None = None,
        text: str = "",
        replace: bool = False,
        partial: bool = False,
        base: bytes | None = None,
    ) -> Outcome:
        """Write the UWI's `## 回答` section (SPEC §7, §11). `choices` maps a question number
        to a letter or "other" (`- N: other — see notes`). Re-answering (`replace`) replaces
        the whole section, so a question left out becomes missing again (how a choice is
        cleared). Refused with code "partial" when a question is left without a choice unless
        `partial`; with code "changed" when `base` (the bytes the user saw) is not what is
        stored any more."""
        from .questions import OTHER, OTHER_LINE, answer_progress, parse_questions  # only for answers

        choices = dict(choices or {})

        def change(tx: Transaction) -> Item:
            self._user_only("answer")
            item = self._current(filename)
            self._check_base(item, base)
            if item.kind != "uwi":
                raise AtkError(f"{filename} is an AWI; only a UWI (question) can be answered — comment instead", code="invalid")
            if item.state in TERMINAL:
                raise AtkError(
                    f"{filename} is {item.state}: return it to inbox (`atk wi return-to-inbox --state={item.state}`) "
                    "before answering it again",
                    code="state",
                )
            if (item.answered or item.answer_partial) and not replace:
                raise AtkError(f"{filename} is already answered; confirm to replace the answer (--replace)", code="state")
            parsed = parse_questions(item.body)
            labels: dict[int, str] = {}
            for number, letter in sorted(choices.items()):
                q = next((q for q in parsed.questions if q.number == number), None)
                if q is None:
                    raise AtkError(
                        f"there is no question {number} (questions: {', '.join(str(q.number) for q in parsed.questions)})",
                        exit_code=2,
                    )
                if letter.strip().casefold() == OTHER:
                    labels[number] = OTHER_LINE
                    continue
                opt = q.option(letter)
                if opt is None:
                    letters = ", ".join(o.letter for o in q.options) or "none"
                    raise AtkError(
                        f"question {number} has no option {letter} (options: {letters}; or {number}=other with --text)",
                        exit_code=2,
                    )
                labels[number] = opt.display
            if not labels and not text.strip():
                raise AtkError("an answer needs a choice or some text", exit_code=2)
            body = sections.set_answer(item.body, sections.format_answer(labels, text))
            if not body.endswith("\n"):
                body += "\n"
            progress = answer_progress(body, parsed)
            if not progress.complete and not partial:
                missing = ", ".join(str(n) for n in progress.missing)
                raise AtkError(
                    f"not saved: question{'s' if len(progress.missing) > 1 else ''} {missing} of {filename} "
                    f"ha{'ve' if len(progress.missing) > 1 else 's'} no answer; choose one "
                    f"(--choose {progress.missing[0]}=LETTER, or {progress.missing[0]}=other with --text), "
                    "or pass --partial to save a partial answer (the item then still blocks)",
                    code="partial",
                )
            return self._save(tx, item, item.head + body)

        return self._write("answer", [filename], change)

    def _check_base(self, item: Item, base: bytes | None) -> None:
        if base is not None and self.store.read_bytes(item.state, item.filename) != base:
            raise AtkError(
                f"not saved: {item.filename} changed since you opened it (someone else edited it; the question "
                "may be different now). Nothing was written: look at the new version and try again",
                code="changed",
            )

    def comment(self, filename: str, text: str, *, base: bytes | None = None) -> Outcome:
        """Append to the AWI's trailing `## ユーザーコメント` section. With `base` (the bytes the
        user saw), refused with code "changed" when the stored file differs."""

        def change(tx: Transaction) -> Item:
            self._user_only("comment")
            item = self._current(filename)
            self._check_base(item, base)
            if item.kind != "awi":
                raise AtkError(f"{filename} is a UWI; answer it instead of commenting", code="invalid")
            if item.state in TERMINAL:
                raise AtkError(f"{filename} is {item.state}: terminal items are read-only (return it to inbox first)", code="state")
            if not text.strip():
                raise AtkError("the comment is empty", exit_code=2)
            body = sections.append_comment(item.body, text)
            return self._save(tx, item, item.head + body)

        return self._write("comment", [filename], change)

    def undo(self, commit: str, base: str | None = None, label: str | None = None) -> Outcome:
        """Revert the operation made by `commit` (or all from `base` to it): the dashboard's `z`.
        `label` names a multi-commit operation in the subject (`atk: undo <label>`)."""
        return undo_commit(self, commit, base, label)

    def pending_paths(self) -> list[str]:
        """Item and plan files changed in the work tree or index but not committed; both
        sides of a rename (`git mv`) are listed."""
        proc = self.store.git(
            "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--", "wi", "plans", check=False
        )
        return [rec[3:] for rec in proc.stdout.split("\0") if len(rec) > 3]

    def commit_pending(self) -> Outcome:
        """`atk wi commit`: commit uncommitted item/plan files (both sides of a staged rename),
        then push what is unpushed. Never says "pushed" when nothing was: a commit that had
        to be set aside (it conflicts with the remote) makes it fail (code "conflict") with
        the commit, where it is kept, and `atk wi conflicts` in the message."""
        try:
            with self.store.locked():
                pass  # a write a killed process left half done is sorted out first (store.recover)
        except AtkError as exc:
            return Outcome(False, "commit", exc.message, exit_code=exc.exit_code, code=_code(exc))
        paths = self.pending_paths()
        committed = ""
        warnings: list[str] = []
        if paths:

            def change(tx: Transaction) -> None:
                tx.include(paths)  # `_write` applies the agent rule to what is committed

            out = self._write("commit", [f"{len(paths)} files"] if len(paths) > 1 else paths, change)
            if not out.ok:
                return out
            warnings += out.warnings
            committed = f"committed {len(paths)} file{'s' if len(paths) != 1 else ''} ({(out.commit or '')[:10]}); "
            if out.pushed:
                committed += "pushed; "
        if not self.store.upstream():
            msg = committed + "no remote is configured, nothing pushed" if committed else "nothing to commit; no remote is configured"
            return Outcome(True, "commit", msg, tuple(paths), warnings=tuple(warnings))
        before = self.store.unpushed()
        result = self.store.push_pending(pull=self.pull)
        warnings += [w for w in result.warnings if not w.startswith("set aside ")]
        if result.set_aside:
            lines = [
                f"not pushed: {sha[:10]} '{subject}' conflicts with a change made on the remote; "
                f"it is kept as refs/atk/conflicts/{sha} and is no longer on your branch"
                for sha, subject in result.set_aside
            ]
            lines.append("resolve it with `atk wi conflicts` (list), `atk wi conflicts show REF`, "
                         "`atk wi conflicts apply REF --mine|--theirs`")
            return Outcome(
                False, "commit", committed + "\n".join(lines), tuple(paths), pushed=bool(result.pushed),
                warnings=tuple(warnings), exit_code=1, code="conflict",
            )
        if result.pushed:
            if before:
                msg = committed + f"pushed {before} earlier commit{'s' if before != 1 else ''}"
            elif committed:
                msg = committed.removesuffix("; ")
            else:
                msg = "nothing to commit; nothing to push (up to date with the remote)"
            return Outcome(True, "commit", msg, tuple(paths), pushed=before > 0 or "pushed" in committed, warnings=tuple(warnings))
        return Outcome(
            False, "commit", committed + "push failed: nothing was pushed; run `atk wi commit` again later",
            tuple(paths), pushed=False, warnings=tuple(warnings), exit_code=1,
        )


TARGET = {
    "hold": "hold",
    "unhold": "inbox",
    "start-processing": "processing",
    "adopt": "adopted",
    "reject": "rejected",
    "return-to-inbox": "inbox",
}
AGENT_FROM = {
    "hold": ("inbox",),
    "unhold": ("hold",),
    "start-processing": ("inbox",),
    "reject": ("processing",),
}
MOVE_OP = {"hold": "hold", "processing": "start-processing", "adopted": "adopt", "rejected": "reject", "inbox": "return-to-inbox"}


def _undo_subject(subject: str) -> str:
    return "undo " + subject.removeprefix("atk: ")


def undo_commit(service: Service, commit: str, base: str | None = None, label: str | None = None) -> Outcome:
    """Revert earlier atk commits when nothing has touched their files since.

    Without `base`, reverts `commit` alone; with it, reverts everything from `base` (exclusive)
    to `commit` (e.g. hold + edit + unhold of one edit session). The revert is a new commit
    (`atk: undo <op> <file>`) putting each touched path back as it was at the base; refused,
    with the reason, when a later commit or an uncommitted change touched any of those paths.
    """
    store = service.store
    for sha in (commit, base):
        if sha is not None and not SHA_RE.match(sha):
            return Outcome(False, "undo", f"not a commit SHA: {sha!r}", exit_code=2)
    info = store.git("show", "-s", "--format=%s%x00%P", commit, check=False)
    if info.returncode != 0:
        return Outcome(False, "undo", f"no commit {commit[:10]} in the store")
    subject, _, parents = info.stdout.strip().partition("\0")
    if label:
        subject = f"atk: {label}"  # e.g. `edit F` for the hold + edit + unhold of one session
    parent = base or (parents.split()[0] if parents.split() else None)
    if parent is None:
        return Outcome(False, "undo", "the first commit cannot be undone")
    names = store.git("diff", "--name-only", "-z", "--no-renames", parent, commit).stdout
    paths = [p for p in names.split("\0") if p]
    if not paths:
        return Outcome(False, "undo", "nothing to undo: those commits changed no files")

    def change(tx: Transaction) -> None:
        later = store.git("log", "--format=%h %s", f"{commit}..HEAD", "--", *paths).stdout.strip()
        if later:
            first = later.splitlines()[-1]
            raise AtkError(f"cannot undo '{subject}': the item changed since ({first})", code="changed")
        dirty = store.git("status", "--porcelain", "--", *paths).stdout.strip()
        if dirty:
            raise AtkError(f"cannot undo '{subject}': uncommitted changes to {dirty.split()[-1]}", code="changed")
        for path in paths:
            old = subprocess.run(
                ["git", "cat-file", "blob", f"{parent}:{path}"], cwd=store.root, capture_output=True, env=store.env, check=False
            )
            if old.returncode == 0:
                if path.startswith("wi/") and (store.root / path).is_file():
                    # an agent's undo may not change a user-only section either (SPEC §11)
                    current = (store.root / path).read_bytes().decode("utf-8", "replace")
                    service._guard_user_sections(path, current, old.stdout.decode("utf-8", "replace"))
                tx.write(path, old.stdout)
            elif (store.root / path).exists():
                tx.delete(path)
        tx.subject = "atk: " + _undo_subject(subject)

    result = WriteResult()
    try:
        with store.writing("atk: undo", service.actor, pull=service.pull, push=service.push, result=result) as tx:
            change(tx)
    except AtkError as exc:
        return Outcome(False, "undo", exc.message, exit_code=exc.exit_code, warnings=tuple(result.warnings), code=_code(exc))
    except OSError as exc:
        return Outcome(False, "undo", f"undo failed, nothing was changed: {exc}")
    return Outcome(True, "undo", _undo_subject(subject), commit=result.commit, pushed=result.pushed, warnings=tuple(result.warnings))
