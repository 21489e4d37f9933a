"""Set-aside conflicts (SPEC §11), `atk wi commit`, undo."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from atk_tui.domain.model import Item, is_valid_filename
from atk_tui.domain.ops import RULES, Op, Refusal, move_refusal, refusal
from atk_tui.domain.queues import QUEUES, queue_named
from atk_tui.host.regular import read_regular
from atk_tui.itemfile import headings
from atk_tui.itemfile.items import parse_item
from atk_tui.service.core import pushguard
from atk_tui.service.core.writecore import WriteCore
from atk_tui.service.types import CONFLICT_PREFIX, SHA_RE, Conflict, Outcome, _body_of, _code
from atk_tui.service.writing.answers import check_answer_author
from atk_tui.store import AtkError, Transaction, WriteResult, item_path

_FOLDERS: tuple[str, ...] = tuple(q.folder for q in QUEUES)  # the folders items live in


@dataclass(frozen=True)
class PendingChange:
    """One change `atk wi commit` would commit: `kind` "add", "edit", "delete", "move" (a
    rename between state folders: `old_path` -> `path`) or "other" (a plan file, a file that
    is no item); `notes`: the user's decisions it carries. `digest`: the new content's
    SHA-256 (the same list with other content is another list)."""

    kind: str
    path: str
    old_path: str | None = None
    notes: tuple[str, ...] = ()
    digest: str = field(default="", repr=False)

    def describe(self) -> str:
        what = f"move {self.old_path} -> {self.path}" if self.kind == "move" else f"{self.kind} {self.path}"
        return what + (f"  ({'; '.join(self.notes)})" if self.notes else "")


def _digest_of(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else ""
    except OSError:
        return ""


def _user_sections(data: bytes | None) -> list[tuple[str, str]]:
    return headings.user_only_sections(_body_of(data.decode("utf-8", "replace"))) if data is not None else []


class Conflicts:
    """What did not land, on the write core: the commits set aside (`svc.conflicts.list()`,
    `.resolve(ref, keep)`) and what the work tree holds uncommitted (`.pending_changes()`,
    `.commit_pending()`: `atk wi commit`)."""

    def __init__(self, core: WriteCore) -> None:
        self.core = core

    def list(self, limit: int | None = None) -> list[Conflict]:
        """Commits set aside as `refs/atk/conflicts/<sha>`, oldest first; the first `limit`
        only when given. Three git processes however many there are (issue 38: 20,000 refs
        took 42 s, one `diff-tree` each): the refs, then the files of those returned."""
        found = self._conflict_refs()
        if limit is not None:
            found = found[: max(limit, 0)]
        files = self._conflict_files_of([sha for _, sha, _, _ in found])
        return [Conflict(ref, sha, subject, tuple(files.get(sha, ())), when) for ref, sha, subject, when in found]

    def count(self) -> int:
        """How many commits are set aside (one `for-each-ref`, no files looked at)."""
        proc = self.core.store.git("for-each-ref", "--format=%(objectname)", CONFLICT_PREFIX, check=False, env=self.core.store.read_env)
        return sum(1 for line in proc.stdout.splitlines() if line.strip())

    def _conflict_refs(self) -> list[tuple[str, str, str, str]]:
        """(ref, sha, subject, author date) of every set-aside commit, oldest first."""
        fmt = "%(refname)%00%(objectname)%00%(subject)%00%(authordate:iso-strict)"
        proc = self.core.store.git("for-each-ref", f"--format={fmt}", "--sort=authordate", CONFLICT_PREFIX, check=False)
        out = []
        for line in proc.stdout.splitlines():
            parts = line.split("\0")
            if len(parts) == 4:
                out.append((parts[0], parts[1], parts[2], parts[3]))
        return out

    def _conflict_files_of(self, shas: list[str]) -> dict[str, list[str]]:
        """The files each of `shas` changed: one `git diff-tree --stdin` for them all."""
        shas = list(dict.fromkeys(shas))
        if not shas:
            return {}
        proc = self.core.store.git(
            "diff-tree", "--stdin", "--root", "-r", "--name-only", "--no-renames", "-z", "--format=%x01%H",
            check=False, input="\n".join(shas) + "\n",
        )  # fmt: skip
        out: dict[str, list[str]] = {}
        current: list[str] | None = None
        for token in proc.stdout.split("\0"):
            token = token.strip("\n")
            if token.startswith("\x01") and SHA_RE.match(token[1:]):
                current = out.setdefault(token[1:], [])
            elif token and current is not None:
                current.append(token)
        return out

    def _conflict_ref(self, ref: str) -> tuple[str, str]:
        """(full ref, commit) for a ref given in full, as `<sha>` or a unique SHA prefix."""
        name = ref.strip()
        for full, sha, _, _ in self._conflict_refs():
            if name in (full, sha) or (len(name) >= 4 and sha.startswith(name)) or full.endswith("/" + name):
                return full, sha
        raise AtkError(f"no set-aside conflict {ref!r}; `atk wi conflicts` lists them", code="missing")

    def versions(self, ref: str) -> list[tuple[str, bytes | None, bytes | None]]:
        """(path, mine: the set-aside commit's version, theirs: the current branch's) for
        every file the set-aside commit changed; None where the file does not exist."""
        _, sha = self._conflict_ref(ref)
        paths = self._conflict_files_of([sha]).get(sha, [])
        mine = self.core.blobs([f"{sha}:{p}" for p in paths])
        theirs = self.core.blobs([f"HEAD:{p}" for p in paths])
        return list(zip(paths, mine, theirs, strict=True))

    def user_content(self, ref: str) -> str | None:
        """What of the user's a set-aside conflict holds, or None: its commit is not an agent's
        (`Atk-Actor: user`, or made outside atk: no `Atk-Actor: agent` trailer, e.g. the
        person's own `git commit`), or any version of an item it touches (the set-aside one,
        its parent, the current branch's) has a user-only section (an answer, a user comment,
        SPEC §8). Either side of such a conflict decides the user's content: only the user
        resolves it (issue 25)."""
        _, sha = self._conflict_ref(ref)
        trailer = "--format=%(trailers:key=Atk-Actor,valueonly,separator=%x2c)"
        actors = {a.strip() for a in self.core.store.git("show", "-s", trailer, sha, check=False).stdout.split(",")} - {""}
        if "user" in actors:
            return "an `Atk-Actor: user` commit"
        if actors != {"agent"}:
            return "a commit made outside atk (no `Atk-Actor: agent` trailer: the person's own, as far as atk can tell)"
        paths = [p for p in self._conflict_files_of([sha]).get(sha, []) if p.split("/")[0] in _FOLDERS]
        blobs = self.core.blobs([f"{rev}:{p}" for p in paths for rev in (sha, f"{sha}^", "HEAD")])
        for n, path in enumerate(paths):
            for data in blobs[3 * n : 3 * n + 3]:
                found = _user_sections(data)
                if found:
                    return f"the user-only section '{found[0][1].splitlines()[0].strip()}' of {path}"
        return None

    def resolve(self, ref: str, keep: str) -> Outcome:
        """Apply one side of a set-aside conflict: "mine" writes the set-aside commit's
        version of its files over the current ones (one commit, pushed); "theirs" keeps the
        current ones. The ref is deleted on success."""
        if keep not in ("mine", "theirs"):
            return self.core.refuse("conflicts", "keep must be 'mine' or 'theirs'", exit_code=2)
        try:
            full, sha = self._conflict_ref(ref)
        except AtkError as exc:
            return self.core.refuse("conflicts", exc.message, code=exc.code)
        if self.core.actor != "user":
            held = self.user_content(sha)
            if held:
                return self.core.refuse(
                    "conflicts",
                    f"refused: set-aside {sha[:10]} holds the user's decision ({held}); resolving it is the "
                    "user's, in the dashboard (C) or with `atk wi conflicts apply` outside an agent environment. "
                    "Nothing was changed",
                    exit_code=2,
                    code="user-only",
                )
        if keep == "theirs":
            self.core.store.git("update-ref", "-d", full, sha, check=False)
            return Outcome(True, "conflicts", f"kept the remote's version; dropped set-aside {sha[:10]}")
        paths = self._conflict_files_of([sha]).get(sha, [])
        mine = dict(zip(paths, self.core.blobs([f"{sha}:{p}" for p in paths]), strict=True))
        names = {(p.split("/")[0], p.split("/")[2]) for p in paths if p.split("/")[0] in _FOLDERS and p.count("/") == 2}

        def change(tx: Transaction) -> None:
            if self.core.actor == "agent":
                # the transitions the apply replays, judged as the verbs judge them (issue 38):
                # whatever ref it is given (an agent can make its own refs/atk/conflicts/<sha>)
                notes = pushguard.replay_refusals(self.core, sha, paths)
                if notes:
                    raise AtkError(
                        f"refused: applying set-aside {sha[:10]} would make changes agents may not make: "
                        + "; ".join(notes[:5]) + (" …" if len(notes) > 5 else "")
                        + ". Nothing was changed; the set-aside ref is kept for the user (the dashboard's C, or "
                        "`atk wi conflicts apply` outside an agent environment)",
                        exit_code=2,
                        code="user-only",
                    )
            for path, data in mine.items():
                exists = (self.core.root / path).is_file()
                if data is None:
                    if exists:
                        tx.delete(path)
                    continue
                if not exists or read_regular(self.core.root / path) != data:
                    tx.write(path, data)
            # one item, one state: drop copies the remote's side left in other state folders
            for top, name in names:
                keep_states = {
                    p.split("/")[1] for p, d in mine.items() if d is not None and p.startswith(top + "/") and p.endswith("/" + name)
                }
                if not keep_states:
                    continue
                for state in queue_named(top).states:
                    if state not in keep_states and (self.core.root / item_path(state, name, top)).is_file():
                        tx.delete(item_path(state, name, top))
            subject = self.core.store.git("show", "-s", "--format=%s", sha, check=False).stdout.strip()
            tx.subject = f"atk: resolve conflict {sha[:10]} ({subject.removeprefix('atk: ')}) keeping mine"

        out = self.core.write("resolve-conflict", [sha[:10]], change)
        if out.ok or out.code == "unchanged":
            self.core.store.git("update-ref", "-d", full, sha, check=False)
            if not out.ok:
                return Outcome(True, "conflicts", f"your version of {sha[:10]} is already in place; dropped the set-aside ref")
            out.message = f"applied your version of {sha[:10]}"  # the commit's SHA: the report's line says it
        return out

    def pending_paths(self) -> list[str]:
        """Item and plan files changed in the work tree or index but not committed; both
        sides of a rename (`git mv`) are listed."""
        proc = self.core.store.git(
            "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--", *_FOLDERS, "plans", check=False
        )
        return [rec[3:] for rec in proc.stdout.split("\0") if len(rec) > 3]

    def pending_changes(self) -> list[PendingChange]:
        """What `atk wi commit` would commit, one entry per change: a file added, edited or
        removed, an item moved between state folders (a rename: both sides), with the user's
        decisions each carries (an answer or a user comment added, changed or removed, a move
        into or out of a terminal state, a move only the user makes). The one list the CLI
        prints and the dashboard shows before the person commits what is in the tree."""
        return [c for c, _ in self._pending()]

    def _pending(self) -> list[tuple[PendingChange, Item | None]]:
        """`pending_changes`, each with the item as committed (its source for a move or a
        removal), for judging it."""
        paths = self.pending_paths()
        items: dict[tuple[str, str], dict[str, list[str]]] = {}  # (queue, name) -> gone/new/edited states
        other: list[str] = []
        heads = dict(zip(paths, self.core.blobs([f"HEAD:{p}" for p in paths]), strict=True))
        for path in paths:
            parts = path.split("/")
            if not (len(parts) == 3 and parts[0] in _FOLDERS and parts[1] in queue_named(parts[0]).states
                    and is_valid_filename(parts[2])):  # fmt: skip
                other.append(path)
                continue
            full = self.core.root / path
            there = full.is_file() and not full.is_symlink()
            side = "edited" if heads[path] is not None and there else "gone" if heads[path] is not None else "new"
            if side == "new" and not there:
                other.append(path)  # e.g. a staged file removed again, a link
                continue
            items.setdefault((parts[0], parts[2]), {}).setdefault(side, []).append(parts[1])
        out: list[tuple[PendingChange, Item | None]] = []
        for (queue, name), sides in items.items():
            gone, new = sides.get("gone", []), sides.get("new", [])
            if len(gone) == 1 and len(new) == 1:
                out.append(self._pending_one("move", queue, name, gone[0], new[0], heads))
                gone, new = [], []
            out += [self._pending_one("delete", queue, name, s, None, heads) for s in gone]
            out += [self._pending_one("add", queue, name, None, s, heads) for s in new]
            out += [self._pending_one("edit", queue, name, s, s, heads) for s in sides.get("edited", [])]
        for path in other:
            out.append((PendingChange("other", path, digest=_digest_of(self.core.root / path)), None))
        return sorted(out, key=lambda c: (c[0].path, c[0].old_path or ""))

    def _pending_one(
        self, kind: str, queue: str, name: str, src: str | None, dst: str | None, heads: dict[str, bytes | None]
    ) -> tuple[PendingChange, Item | None]:
        old_path = item_path(src, name, queue) if src else None
        path = item_path(dst, name, queue) if dst else old_path or ""
        old = heads.get(old_path) if old_path else None
        new = read_regular(self.core.root / path) if dst else None
        item = parse_item(name, src, old, queue=queue) if src and old is not None else None
        notes: list[str] = []
        before = _user_sections(old)
        after = _user_sections(new) if new is not None else before
        for kind_, text in after:
            heading = text.splitlines()[0].strip() if text else kind_
            if (kind_, text) not in before:
                verb = "changes" if any(k == kind_ for k, _ in before) else "adds"
                notes.append(f"{verb} the user-only section '{heading}'")
        for kind_, text in before:
            if new is not None and not any(k == kind_ for k, _ in after):
                notes.append(f"removes the user-only section '{text.splitlines()[0].strip() if text else kind_}'")
        rules = RULES[queue]
        if kind == "move" and src and dst:
            if dst in rules.terminal:
                notes.append(f"moves it into {dst} (closes the item)")
            elif src in rules.terminal:
                notes.append(f"moves it out of {src}")
            if item is not None and dst not in rules.terminal and move_refusal(item, dst, "agent") is not None:
                notes.append(f"a move from {src} to {dst} agents may not make")
        if kind == "delete":
            notes.append("removes the item")
        if kind == "add" and dst in rules.terminal:
            notes.append(f"adds it straight into {dst}")
        digest = _digest_of(self.core.root / path) if dst else ""
        change = PendingChange(kind, path, old_path if kind == "move" else None, tuple(dict.fromkeys(notes)), digest)
        return change, item

    def _judge_pending(self, pending: list[tuple[PendingChange, Item | None]]) -> None:
        """The transition table on a hand commit (SPEC §5, §11): every rename between state
        folders is judged as the transition it makes, every removal as `rm`, every new file
        as `add` (an agent adds into the states `add` takes), for this actor; the first
        refusal refuses the whole commit (nothing committed, the work tree left as it is)."""
        seen: dict[tuple[str, str], int] = {}
        removed: dict[str, str] = {}  # name -> the queue a removal takes it out of
        for change, _ in pending:
            if change.kind in ("add", "edit", "move"):
                top, _, name = change.path.split("/")
                seen[(top, name)] = seen.get((top, name), 0) + 1
            elif change.kind == "delete":
                removed[change.path.split("/")[2]] = change.path.split("/")[0]
        for change, item in pending:
            parts = change.path.split("/")
            refused: Refusal | None = None
            if change.kind == "move" and item is not None:
                to_state = parts[1]
                refused = move_refusal(item, to_state, self.core.actor)
                row = RULES[item.queue].transitions.get(RULES[item.queue].move_op(item.state, to_state) or "")
                # as the verb does (`Writes.transition`): from any state it starts from
                closes = row is not None and bool(row.answered_from) and item.is_question
                if refused is None and self.core.actor == "agent" and closes:
                    check_answer_author(self.core, item)
            elif change.kind == "delete" and item is not None:
                refused = refusal(Op.RM, [item], self.core.actor)
                if refused is None:
                    self.core.guard_removal(item)  # the person's answer or comment (issue 38)
            elif change.kind == "edit" and item is not None and self.core.actor == "agent":
                refused = refusal(Op.EDIT, [item], self.core.actor)  # a terminal item is read-only
            elif change.kind == "add":
                top, state, name = parts
                if removed.get(name, top) != top:
                    refused = Refusal(
                        "invalid",
                        f"{name} would move from the {removed[name]} queue into {top}: no transition moves an item "
                        "between queues (a new item there is `atk " + top + " add`)",
                        exit_code=2,
                    )
                elif seen.get((top, name), 0) > 1 or any((q, s) != (top, state) for q, s in self.core.store.find(name)):
                    where = "queues" if any(q != top for q, _ in self.core.store.find(name)) else "states"
                    copy = f"{name} would be in two {where} at once ({change.path} beside its other copy)"
                    refused = Refusal("state", copy)
                elif twins := [t for t in self.core.case_twins([name])[name] if t not in removed]:
                    refused = Refusal(
                        "invalid",
                        f"{name} differs from {', '.join(twins)} only in case: on a case-insensitive file system they "
                        "are one file (choose another name)",
                        exit_code=2,
                    )
                elif self.core.actor == "agent" and state not in queue_named(top).add_states:
                    refused = Refusal(
                        "state",
                        f"a new item goes into {' or '.join(queue_named(top).add_states)} (`atk {top} add`), "
                        f"not straight into {state}",
                    )
            if refused is not None:
                what = f"{change.kind} {change.path}"
                if change.kind == "move":
                    what = f"the hand move {change.old_path} -> {change.path}"
                undo = (
                    f"`git -C {self.core.root} mv {change.path} {change.old_path}`" if change.kind == "move"
                    else f"`git -C {self.core.root} checkout HEAD -- {change.path}`" if change.kind in ("delete", "edit")
                    else f"move {change.path} away"
                )  # fmt: skip
                raise AtkError(
                    f"refused to commit {what} as {'the user' if self.core.actor == 'user' else 'an agent'} (the commands' "
                    f"rules): {refused.message}. Nothing was committed; the work tree is as it was (undo it with {undo}, "
                    "then use the command the message names)",
                    exit_code=refused.exit_code,
                    code=refused.code,
                )

    def commit_pending(self, confirmed: Sequence[PendingChange] | None = None) -> Outcome:
        """`atk wi commit`: commit uncommitted item/plan files (both sides of a staged rename),
        then push what is unpushed. Never says "pushed" when nothing was: a commit that had
        to be set aside (it conflicts with the remote) makes it fail (code "conflict") with
        the commit, where it is kept, and `atk wi conflicts` in the message.

        The pending changes are judged by the transition table (`_judge_pending`).
        `confirmed`: the `pending_changes()` the person was shown and agreed to; refused (code
        "changed", nothing committed) when what is pending now differs from it."""
        try:
            with self.core.store.locked():
                pass  # a write a killed process left half done is sorted out first (transaction.recover)
        except AtkError as exc:
            return Outcome(False, "commit", exc.message, exit_code=exc.exit_code, code=_code(exc))
        paths = self.pending_paths()
        committed = ""
        warnings: list[str] = []
        if paths:

            def change(tx: Transaction) -> None:
                pending = self._pending()
                if confirmed is not None and [c for c, _ in pending] != list(confirmed):
                    raise AtkError(
                        "not committed: the files to commit changed since you looked at them; look again "
                        "(`atk wi commit` lists them)",
                        code="changed",
                    )
                self._judge_pending(pending)
                tx.include(paths)  # `WriteCore.write` applies the agent rule to what is committed

            out = self.core.write("commit", [f"{len(paths)} files"] if len(paths) > 1 else paths, change)
            if not out.ok:
                if out.code == "held":
                    out.message += (
                        "; your uncommitted change to it stays in the work tree: undo it (move the file back, or "
                        "`git restore --staged --worktree -- PATH`)"
                    )
                return out
            warnings += out.warnings
            committed = f"committed {len(paths)} file{'s' if len(paths) != 1 else ''} ({(out.commit or '')[:10]}); "
            if out.pushed:
                committed += "pushed; "
        if not self.core.store.remote.upstream():
            msg = committed + "no remote is configured, nothing pushed" if committed else "nothing to commit; no remote is configured"
            return Outcome(True, "commit", msg, tuple(paths), warnings=tuple(warnings))
        before = self.core.store.remote.unpushed()
        try:
            result = self.core.store.remote.push_pending(pull=self.core.pull_on_write)
        except AtkError as exc:  # an agent's push refused (issue 38): nothing pushed
            return Outcome(
                False, "commit", committed + exc.message, tuple(paths), pushed=False, warnings=tuple(warnings),
                exit_code=exc.exit_code, code=_code(exc),
            )  # fmt: skip
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
            if result.repushed:
                n = len(result.repushed)
                msg = committed + f"pushed again {n} commit{'s' if n != 1 else ''} the rewritten remote had dropped"
            elif before:
                msg = committed + f"pushed {before} earlier commit{'s' if before != 1 else ''}"
            elif committed:
                msg = committed.removesuffix("; ")
            else:
                msg = "nothing to commit; nothing to push (up to date with the remote)"
            pushed = before > 0 or bool(result.repushed) or "pushed" in committed
            return Outcome(True, "commit", msg, tuple(paths), pushed=pushed, warnings=tuple(warnings))
        return Outcome(
            False, "commit", committed + "push failed: nothing was pushed; run `atk wi commit` again later",
            tuple(paths), pushed=False, warnings=tuple(warnings), exit_code=1,
        )



def _undo_subject(subject: str) -> str:
    return "undo " + subject.removeprefix("atk: ")


def undo_commit(core: WriteCore, commit: str, base: str | None = None, label: str | None = None) -> Outcome:
    """Revert earlier atk commits when nothing has touched their files since.

    Without `base`, reverts `commit` alone; with it, reverts everything from `base` (exclusive)
    to `commit` (e.g. hold + edit + unhold of one edit session). The revert is a new commit
    (`atk: undo <op> <file>`) putting each touched path back as it was at the base; refused,
    with the reason, when a later commit or an uncommitted change touched any of those paths.
    """
    store = core.store
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
        # "changed since" is about the content: a later write that was itself undone (a
        # session's undo stack, newest first) leaves the files as `commit` made them
        same = store.git("diff", "--quiet", "--no-renames", commit, "HEAD", "--", *paths, check=False).returncode == 0
        later = "" if same else store.git("log", "--format=%h %s", f"{commit}..HEAD", "--", *paths).stdout.strip()
        if later:
            first = later.splitlines()[-1]
            raise AtkError(f"cannot undo '{subject}': the item changed since ({first})", code="changed")
        dirty = store.git("status", "--porcelain", "--", *paths).stdout.strip()
        if dirty:
            raise AtkError(f"cannot undo '{subject}': uncommitted changes to {dirty.split()[-1]}", code="dirty")
        for path in paths:
            old = store.blob_at(parent, path)
            if old is not None:
                if path.split("/")[0] in _FOLDERS and (store.root / path).is_file():
                    # an agent's undo may not change a user-only section either (SPEC §11)
                    current = read_regular(store.root / path).decode("utf-8", "replace")
                    core.guard_user_sections(path, current, old.decode("utf-8", "replace"))
                tx.write(path, old)
            elif (store.root / path).exists():
                tx.delete(path)
        tx.subject = "atk: " + _undo_subject(subject)

    result = WriteResult()
    try:
        with store.writing("atk: undo", core.actor, pull=core.pull_on_write, push=core.push_on_write, result=result) as tx:
            change(tx)
    except AtkError as exc:
        return Outcome(False, "undo", exc.message, exit_code=exc.exit_code, warnings=tuple(result.warnings), code=_code(exc))
    except OSError as exc:
        return Outcome(False, "undo", f"undo failed, nothing was changed: {exc}")
    return Outcome(True, "undo", _undo_subject(subject), commit=result.commit, pushed=result.pushed, warnings=tuple(result.warnings))
