"""Set-aside conflicts (contract §4), `atk wi commit`, undo."""

from __future__ import annotations

from ..queues import QUEUES, queue_named
from ..store import AtkError, Transaction, WriteResult, item_path
from .base import ServiceBase
from .types import CONFLICT_PREFIX, SHA_RE, Conflict, Outcome, _code

_FOLDERS: tuple[str, ...] = tuple(q.folder for q in QUEUES)  # the folders items live in


class Conflicts(ServiceBase):
    """Set-aside conflicts, pending files, undo."""

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
        names = {(p.split("/")[0], p.split("/")[2]) for p in paths if p.split("/")[0] in _FOLDERS and p.count("/") == 2}

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
            for top, name in names:
                keep_states = {
                    p.split("/")[1] for p, d in mine.items() if d is not None and p.startswith(top + "/") and p.endswith("/" + name)
                }
                if not keep_states:
                    continue
                for state in queue_named(top).states:
                    if state not in keep_states and (self.root / item_path(state, name, top)).is_file():
                        tx.delete(item_path(state, name, top))
            subject = self.store.git("show", "-s", "--format=%s", sha, check=False).stdout.strip()
            tx.subject = f"atk: resolve conflict {sha[:10]} ({subject.removeprefix('atk: ')}) keeping mine"

        out = self._write("resolve-conflict", [sha[:10]], change)
        if out.ok or out.code == "unchanged":
            self.store.git("update-ref", "-d", full, sha, check=False)
            if not out.ok:
                return Outcome(True, "conflicts", f"your version of {sha[:10]} is already in place; dropped the set-aside ref")
            out.message = f"applied your version of {sha[:10]} ({out.commit[:10] if out.commit else ''})"
        return out

    def undo(self, commit: str, base: str | None = None, label: str | None = None) -> Outcome:
        """Revert the operation made by `commit` (or all from `base` to it): the dashboard's `z`.
        `label` names a multi-commit operation in the subject (`atk: undo <label>`)."""
        return undo_commit(self, commit, base, label)

    def pending_paths(self) -> list[str]:
        """Item and plan files changed in the work tree or index but not committed; both
        sides of a rename (`git mv`) are listed."""
        proc = self.store.git(
            "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--", *_FOLDERS, "plans", check=False
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
        if not self.store.upstream():
            msg = committed + "no remote is configured, nothing pushed" if committed else "nothing to commit; no remote is configured"
            return Outcome(True, "commit", msg, tuple(paths), warnings=tuple(warnings))
        before = self.store.unpushed()
        result = self.store.push_pending(pull=self.pull_on_write)
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



def _undo_subject(subject: str) -> str:
    return "undo " + subject.removeprefix("atk: ")


def undo_commit(service: ServiceBase, commit: str, base: str | None = None, label: str | None = None) -> Outcome:
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
                    current = (store.root / path).read_bytes().decode("utf-8", "replace")
                    service._guard_user_sections(path, current, old.decode("utf-8", "replace"))
                tx.write(path, old)
            elif (store.root / path).exists():
                tx.delete(path)
        tx.subject = "atk: " + _undo_subject(subject)

    result = WriteResult()
    try:
        with store.writing("atk: undo", service.actor, pull=service.pull_on_write, push=service.push_on_write, result=result) as tx:
            change(tx)
    except AtkError as exc:
        return Outcome(False, "undo", exc.message, exit_code=exc.exit_code, warnings=tuple(result.warnings), code=_code(exc))
    except OSError as exc:
        return Outcome(False, "undo", f"undo failed, nothing was changed: {exc}")
    return Outcome(True, "undo", _undo_subject(subject), commit=result.commit, pushed=result.pushed, warnings=tuple(result.warnings))
