"""The write core every part of the service holds (`svc.core`): find an item and read it from its
file (`current`, never a cache), write one commit under the store lock (`write`: `GitStore.writing`,
the holds, the user-only sections, the queue folders), and the guards a part asks inside its change
(SPEC §8, §11, §15). It holds what a write needs: the store, the actor, the queues, the switches."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Sequence

from atk_tui.domain.model import Item, is_valid_filename
from atk_tui.domain.ops import Refusal
from atk_tui.domain.queues import MQ, QUEUES, Queue, queue_named
from atk_tui.host.config import is_agent_env
from atk_tui.host.regular import read_regular
from atk_tui.itemfile import headings, sections
from atk_tui.itemfile.items import MAX_ITEM_BYTES, parse_item
from atk_tui.service.core.holds import (
    TAKE_OVER_TRAILER,
    Holder,
    agent_id_from_env,
    held_refusal,
    holders,
    may_change,
    owned_paths,
)
from atk_tui.service.core.pushguard import _heading
from atk_tui.service.types import Outcome, _body_of, _code
from atk_tui.store import (
    AtkError,
    GitStore,
    StateConflict,
    Transaction,
    WriteResult,
    item_path,
    missing_queue_folders,
    states_defect,
)
from atk_tui.store.scan import twin_defect, twin_key

_FOLDERS: tuple[str, ...] = tuple(q.folder for q in QUEUES)  # the folders items live in


class WriteCore:
    """`WriteCore(store, actor=..., queue=...)`: the store, who writes, which queues; every write of
    the service goes through `write` (or `write_named`, a filename chosen inside the lock)."""

    def __init__(
        self,
        store: GitStore,
        *,
        actor: str | None = None,
        queue: Queue | str | None = None,
        only_repo: str | None = None,
        pull: bool = True,
        push: bool = True,
        use_cache: bool = True,
    ) -> None:
        self.store = store
        self.q = queue_named(queue)
        self.queues: tuple[str, ...] = (self.q.name,) if queue is not None else tuple(q.name for q in QUEUES)
        self.root = self.store.root
        self.actor = actor or ("agent" if is_agent_env() else "user")
        #: an agent session's own name (`ATK_AGENT_ID`, SPEC §15): on every agent commit, so
        #: the holds it takes are its own; a bad value refuses every write (exit 2)
        self.agent_id: str | None = None
        self.agent_id_error: AtkError | None = None
        if self.actor == "agent":
            try:
                self.agent_id = agent_id_from_env()
            except AtkError as exc:
                self.agent_id_error = exc
        self.store.agent_id = self.agent_id
        #: `--take-over` (issue 39): an agent's write may change an item another agent holds
        #: or processes, saying so in the commit (`Atk-Take-Over: <that agent>`); never the person's
        self.take_over = False
        self.only_repo = only_repo
        self.pull_on_write = pull  # pull before each write (off: offline tests)
        self.push_on_write = push
        self.use_cache = use_cache

    def find(self, filename: str, state: str | None = None, queue: str | None = None) -> list[tuple[str, str]]:
        """(queue, state) of every copy of `filename` in this service's queues (optionally
        only in `state`, or in `queue`)."""
        found = self.store.find(filename, [queue] if queue else self.queues)
        return [(q, s) for q, s in found if state is None or s == state]

    def missing(self, filename: str) -> AtkError:
        """"No item named F", saying which command to use when F is in another queue."""
        other = [q for q, _ in self.store.find(filename) if q not in self.queues]
        if other:
            return AtkError(
                f"no item named {filename} in the {self.q.name} queue: it is a {other[0]} item "
                f"(use `atk {other[0]} …` for it)",
                code="missing",
            )
        return AtkError(f"no item named {filename}", code="missing")

    def case_twins(self, filenames: Collection[str]) -> dict[str, list[str]]:
        """Each of `filenames` -> the other item filenames (any state, either queue) that are
        it on a case-insensitive file system. Every state folder is listed once for all of
        them (a write's cost, not a listing's; never a cache: the rule refuses work), and
        each name is matched in one pass over the folder's names in lower case. An item
        filename is ASCII, so a twin is a name whose ASCII lower case is the name's key."""
        keys = {n: twin_key(n) for n in filenames}
        needles = {n: f"\0{key}\0".encode() for n, key in keys.items() if key.isascii() and is_valid_filename(n)}
        found: dict[str, set[str]] = {n: set() for n in filenames}
        folders = [os.path.join(self.root, q.folder, state) for q in QUEUES for state in q.states] if needles else []
        for folder in folders:
            try:
                names = os.listdir(os.fsencode(folder))
            except OSError:
                continue
            joined = b"\0" + b"\0".join(names) + b"\0"  # no name holds a NUL
            low = joined.lower()  # ASCII letters only: every offset kept
            for name, needle in needles.items():
                at = low.find(needle)
                while at >= 0:
                    found[name].add(joined[at + 1 : at + len(needle) - 1].decode())
                    at = low.find(needle, at + 1)
        return {n: sorted(t for t in found[n] if t != n and is_valid_filename(t)) for n in filenames}

    @staticmethod
    def dup_defect(item: Item, found: list[tuple[str, str]]) -> None:
        if len({q for q, _ in found}) > 1:
            item.defects = [*item.defects, f"filename is in both queues at once: {', '.join(f'{q}/{s}' for q, s in found)}"]
        elif len(found) > 1:
            item.defects = [*item.defects, states_defect([s for _, s in found])]

    def parse_bounded(self, filename: str, state: str, queue: str = "wi") -> Item:
        """Parse an item without reading more than the size limit allows: a file over it is
        shown as defective from its first bytes (a 2 GB file must not stall the app)."""
        data = self.store.read_bytes(state, filename, max_bytes=MAX_ITEM_BYTES + 1, queue=queue)
        if len(data) <= MAX_ITEM_BYTES:
            return parse_item(filename, state, data, queue=queue)
        size = os.stat(self.root / item_path(state, filename, queue), follow_symlinks=False).st_size
        return parse_item(filename, state, data, size=size, queue=queue)

    def write(self, op: str, files: Sequence[str], change: Callable[[Transaction], Item | None]) -> Outcome:
        subject = f"atk: {op} {files[0]}" if len(files) == 1 else f"atk: {op} {len(files)} items"
        result = WriteResult()
        try:
            if self.agent_id_error is not None:
                raise self.agent_id_error
            with self.store.writing(subject, self.actor, pull=self.pull_on_write, push=self.push_on_write, result=result) as tx:
                self.guard_holds(files, tx)  # who holds a named item, said before any other refusal
                item = change(tx)
                self.add_queue_folders(tx)
                self.guard_tx(tx)
        except (AtkError, OSError, ValueError) as exc:
            return _failed(op, exc, files, result)
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

    def add_queue_folders(self, tx: Transaction) -> None:
        """A store made before the feedback queue gets its `mq/<state>/` folders with the
        first write to that queue (SPEC §12), in the same commit."""
        if any(rel.startswith(MQ.folder + "/") for rel in tx.changed):
            for rel in missing_queue_folders(self.root):
                tx.write(rel, b"")

    @staticmethod
    def refuse(op: str, message: str, files: Sequence[str] = (), exit_code: int = 1, code: str = "") -> Outcome:
        return Outcome(False, op, message, tuple(files), exit_code=exit_code, code=code or ("invalid" if exit_code == 2 else ""))

    def check_repo(self, item: Item) -> None:
        if self.only_repo and item.target_repo != self.only_repo:
            raise AtkError(f"{item.filename} targets {item.target_repo or '(none)'}, not {self.only_repo} (--target-repo)", code="invalid")

    def current(self, filename: str, *, allow_defective: bool = False, twins: list[str] | None = None) -> Item:
        """The item `filename` read from its file, with its defects (copies in two states or
        queues, a case twin: `twins` when the caller looked for several names at once, see
        `case_twins`); AtkError when it is missing, or defective and not `allow_defective`."""
        if not is_valid_filename(filename):
            raise AtkError(f"bad filename {filename!r}: an item filename has no path parts", exit_code=2, code="invalid")
        everywhere = self.store.find(filename)  # copies in either queue
        found = [(q, s) for q, s in everywhere if q in self.queues]
        if not found:
            raise self.missing(filename)
        queue, state = found[0]
        item = self.parse_bounded(filename, state, queue)
        self.dup_defect(item, everywhere)
        twins = self.case_twins([filename])[filename] if twins is None else twins
        if twins:  # one file on a case-insensitive file system: never acted on (issue 38)
            item.defects = [*item.defects, twin_defect(twins)]
        if not (item.defects and not allow_defective and not item.target_repo):
            self.check_repo(item)  # a file too broken to name its repo: the defect is the news
        if item.defects and not allow_defective:
            raise AtkError(
                f"{filename} is defective ({'; '.join(item.defects)}); repair it with "
                f"`atk {queue} edit {filename} --whole-file FILE` (frontmatter and body), or remove it with `atk {queue} rm`",
                code="invalid",
            )
        return item

    @staticmethod
    def raise_refusal(found: Refusal | None) -> None:
        """A refusal from `ops.refusal`, raised inside the write (nothing is changed)."""
        if found is not None:
            cls = StateConflict if found.code == "state" else AtkError
            raise cls(found.message, code=found.code, exit_code=found.exit_code)

    def user_only(self, op: str) -> None:
        if self.actor != "user":
            raise AtkError(
                f"{op} is a user-only write; refused in an agent environment (the user does it in the dashboard)",
                exit_code=2,
                code="user-only",
            )

    def guard_user_headings(self, body: str, filename: str | None = None) -> None:
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

    def guard_tx(self, tx: Transaction) -> None:
        """SPEC §11 on every write path, in one place: before an agent's commit, every item
        file it would commit is compared with the committed version of that item (whatever
        state folder it was in): a changed user-only section, or a new file holding one,
        refuses the whole write (nothing committed, files put back as they were). This also
        catches a hand-edited forgery riding along with a move, an edit or `atk wi commit`.
        SPEC §15 in the same place: no item file it touches may be one the user or another
        named agent holds at HEAD (`guard_holds`)."""
        if self.actor != "agent":
            return
        self.guard_holds(sorted({rel.split("/")[-1] for rel in tx.changed if rel.split("/")[0] in _FOLDERS}), tx)
        for rel in sorted(set(tx.changed)):
            if rel.split("/")[0] not in _FOLDERS:
                continue
            full = self.root / rel
            if full.is_symlink() or not full.is_file():
                continue  # deleted (rm's business) or not a file git commits as one
            new = read_regular(full).decode("utf-8", "replace")
            parts = rel.split("/")
            if len(parts) == 3 and is_valid_filename(parts[2]) and parts[1] in queue_named(parts[0]).states:
                old = self.committed_text("HEAD", parts[2], parts[1], parts[0])
            else:
                blob = self.blobs([f"HEAD:{rel}"])[0]
                old = None if blob is None else blob.decode("utf-8", "replace")
            self.guard_user_sections(rel, old, new)

    def guard_holds(self, names: Sequence[str], tx: Transaction | None = None) -> None:
        """SPEC §15, every write path: an agent may not change an item held (as committed at
        HEAD, after the pull, inside the lock) by the user or by another named agent
        (`holds.may_change`); AtkError code "held" naming the holder and what to do. Runs on
        the files a command names (before its own refusals, so the holder is what it says)
        and, from `guard_tx`, on every item file a write would commit (a hand `git mv`
        committed by `atk wi commit` as well)."""
        if self.actor != "agent":
            return
        paths = [p for name in names if is_valid_filename(name) for p in owned_paths(name)]
        if not paths:
            return
        # from git's history itself, never the holders cache: a record there could be forged to
        # name an agent as the holder of the person's hold (issue 25; the cache serves listings)
        for holder in self.holders(paths, cache=False).values():
            if not may_change(holder, self.actor, self.agent_id):
                queue, _, filename = holder.path.split("/")
                if self.take_over and holder.actor == "agent" and tx is not None:
                    # issue 39: taken over explicitly, and said so in the commit
                    line = f"{TAKE_OVER_TRAILER}: {holder.agent_id or 'agent'}"
                    if line not in tx.trailers:
                        tx.trailers.append(line)
                    continue
                raise held_refusal(holder, filename, queue, self.agent_id, take_over=self.take_over)

    def holders(self, paths: Sequence[str], *, cache: bool = True) -> dict[str, Holder]:
        """`holds.holders` at HEAD, remembered for this HEAD (a write asks twice). `cache`
        False: found in git's history, not in the holders cache (`.git/atk-cache/holders.cache`) (what a write
        obeys; remembered apart from what a listing was told)."""
        head = self.store.head() or ""
        cache = cache and self.use_cache
        memos = self.__dict__.setdefault("_holder_memo", {})
        memo = memos.get(cache)
        if memo is None or memo[0] != head:
            memo = memos[cache] = (head, {})
        known: dict[str, Holder | None] = memo[1]
        missing = [p for p in paths if p not in known]
        if missing:
            found = holders(self.store, missing, cache=cache) if head else {}
            for p in missing:
                known[p] = found.get(p)
        return {p: h for p in paths if (h := known.get(p)) is not None}

    def guard_user_sections(self, path: str, old: str | None, new: str | None) -> None:
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

    def guard_removal(self, item: Item) -> None:
        """An agent may not remove an item holding the person's answer or comment (issue 38):
        its file as it is, or as committed (a hand edit trimming the section first)."""
        if self.actor != "agent":
            return
        committed = self.committed_text("HEAD", item.filename, item.state, item.queue)
        for body in (item.body, _body_of(committed or "")):
            found = headings.user_only_sections(body)
            if found:
                raise AtkError(
                    f"refused: {item.filename} holds the user-only section '{_heading(found[0])}' (the person's "
                    "answer or comment); agents may not remove it. Leave it to the user (the dashboard, or "
                    f"`atk {item.queue} rm` outside an agent environment)",
                    exit_code=2,
                    code="user-only",
                )

    def blobs(self, specs: Sequence[str]) -> list[bytes | None]:
        """`REV:PATH` specs' bytes, None where missing (`GitStore.blobs`)."""
        return self.store.blobs(specs)

    def committed_text(self, rev: str, filename: str, prefer: str | None = None, queue: str = "wi") -> str | None:
        """The item's text at `rev` (in whichever state folder of its queue it was), or None."""
        states = [prefer] if prefer else []
        states += [s for s in queue_named(queue).states if s != prefer]
        for data in self.blobs([f"{rev}:{item_path(s, filename, queue)}" for s in states]):
            if data is not None:
                return data.decode("utf-8", "replace")
        return None

    @staticmethod
    def write_text(tx: Transaction, item: Item, text: str) -> None:
        tx.write(item_path(item.state, item.filename, item.queue), text.encode("utf-8"))

    def check_base(self, item: Item, base: bytes | None) -> None:
        if base is not None and self.store.read_bytes(item.state, item.filename, queue=item.queue) != base:
            raise AtkError(
                f"not saved: {item.filename} changed since you opened it (someone else edited it; the question "
                "may be different now). Nothing was written: look at the new version and try again",
                code="changed",
            )

    def save(self, tx: Transaction, item: Item, text: str) -> Item:
        data = text.encode("utf-8")
        if data == self.store.read_bytes(item.state, item.filename, queue=item.queue):
            raise AtkError("nothing to change: the text is the same", code="unchanged")
        new = parse_item(item.filename, item.state, data, queue=item.queue)
        if new.defects:
            raise AtkError(f"not saved, the item would be defective: {'; '.join(new.defects)}", code="invalid")
        tx.write(item_path(item.state, item.filename, item.queue), data)
        return new

    def write_named(self, op: str, change: Callable[[Transaction], Item | None], holder: list[str]) -> Outcome:
        """Like `write`, for operations whose filename is chosen inside the lock."""
        result = WriteResult()
        item = None
        try:
            if self.agent_id_error is not None:
                raise self.agent_id_error
            with self.store.writing(f"atk: {op}", self.actor, pull=self.pull_on_write, push=self.push_on_write, result=result) as tx:
                item = change(tx)
                self.add_queue_folders(tx)
                self.guard_tx(tx)
                tx.subject = f"atk: {op} {holder[0]}"
        except (AtkError, OSError, ValueError) as exc:
            return _failed(op, exc, holder, result)
        return Outcome(True, op, f"added {holder[0]}", tuple(holder), result.commit, result.pushed, tuple(result.warnings), item=item)

def _failed(op: str, exc: Exception, files: Sequence[str], result: WriteResult) -> Outcome:
    """The outcome of a write that raised: nothing was changed (the store rolled it back)."""
    if isinstance(exc, AtkError):
        return Outcome(
            False, op, exc.message, tuple(files), warnings=tuple(result.warnings), exit_code=exc.exit_code,
            code=_code(exc),
        )  # fmt: skip
    return Outcome(False, op, f"{op} failed, nothing was changed: {exc}", tuple(files), exit_code=1)
