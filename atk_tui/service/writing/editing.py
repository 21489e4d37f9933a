"""The service side of an edit session (SPEC §10, §11): hold → edit → save → unhold.

A front end calls `svc.writes.begin_edit(F)` (holds an inbox item unless it is held already,
returns an `EditTicket` with the exact bytes the save must find), lets the person edit the
text somewhere (`$EDITOR` on the ticket's scratch file, or in the dashboard), then calls
`finish_edit(ticket, text)` (saves against the base and unholds what it held) or
`abandon_edit(ticket)` (unholds what it held; the scratch text is dropped unless kept).

Scratch files live in `.git/atk-edit/` (never committed): `<stem>~<n>.md` holds the person's
text, `<stem>~<n>.md.base` the version it was based on (for a merge when resumed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from atk_tui.domain.errors import AtkError
from atk_tui.domain.model import State
from atk_tui.domain.queues import QUEUES, queue_named
from atk_tui.store.merge import merge_texts as merge_texts  # re-exported: the edit session's merge

if TYPE_CHECKING:
    from atk_tui.service import Outcome
    from atk_tui.service.writing.writes import Writes

SCRATCH_RE = re.compile(r"^(?P<stem>.+)~(?P<n>[0-9]+)\.md$")


def scratch_item(name: str) -> str | None:
    """The item a scratch file (`<stem>~<n>.md`, or a bare `<filename>` from older versions)
    holds text for; None for other files (a `.base` beside it)."""
    m = SCRATCH_RE.match(name)
    if m:
        return f"{m['stem']}.md"
    return name if name.endswith(".md") and "~" not in name else None


def base_of(scratch: Path) -> Path:
    """The version a kept text was based on, kept beside it (for a merge on resume)."""
    return scratch.with_name(scratch.name + ".base")


def new_scratch(folder: Path, filename: str) -> Path:
    """A new, empty file for one session's text: never one an earlier session kept."""
    folder.mkdir(exist_ok=True)
    stem = filename.removesuffix(".md")
    n = 1
    while True:
        path = folder / f"{stem}~{n}.md"
        try:
            with open(path, "xb"):
                return path
        except FileExistsError:
            n += 1


def kept_scratches(folder: Path, filename: str | None = None) -> list[Path]:
    """Text kept from earlier sessions (of `filename`, or of any item), oldest first."""
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if (n := scratch_item(p.name)) is not None and filename in (None, n)]
    return sorted(found, key=lambda p: (p.stat().st_mtime, p.name))


def drop_scratch(path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)
        base_of(path).unlink(missing_ok=True)


@dataclass
class EditTicket:
    """One edit session. `base` is what the save must still find in the store (a newer
    version after a "changed" refusal, once the person merged it); `held`: this session
    held the item (so finishing or abandoning it unholds it)."""

    filename: str
    state: str  # the state the item is edited in (hold when we held it)
    base: bytes
    scratch: Path
    held: bool
    pushed: bool | None  # whether the hold reached the remote (None: no hold or no remote)
    start: str  # the commit before the session: `commits_touching(F, start)` groups its undo
    #: the commit after the session's own hold (what others did since is `drift`'s)
    after: str = ""
    #: (actor, since, subject) of the session's hold: a hold taken again by someone else
    #: meanwhile is theirs, never released by this session
    hold_mark: tuple[object, ...] | None = None

    def keep(self, text: bytes) -> Path:
        """Write the person's text (and the version it is based on) to the scratch file."""
        self.scratch.write_bytes(text)
        base_of(self.scratch).write_bytes(self.base)
        return self.scratch


#: how a session takes an item out of automatic processing and gives it back, by the state
#: its queue edits in (`Queue.edit_state`: hold in wi, editing in mq)
_HOLD_OP = {"hold": "hold", "editing": "start-editing"}
_UNHOLD_OP = {"hold": "unhold", "editing": "stop-editing"}


def begin_edit(writes: Writes, filename: str, *, allow_unpushed: bool = False) -> EditTicket:
    """Hold (an inbox item that is not defective) and open a session. Raises AtkError: a
    terminal item (code "state"); a hold that failed; a hold that was not pushed unless
    `allow_unpushed` (code "unpushed": it is unheld again, nothing stays changed)."""
    item = writes.reads.read(filename)
    if item.state in (State.ADOPTED, State.REJECTED):
        raise AtkError(
            f"{filename} is {item.state}: terminal items are read-only (return it to inbox first)", code="state"
        )
    start = writes.reads.head()
    held = False
    pushed: bool | None = None
    state = item.state
    # a defective item cannot be moved (and no agent picks it up: it is blocked), so it is
    # repaired in place; any other inbox item is held first
    # (a feedback item goes to `editing` instead of hold, SPEC §12)
    edit_state = queue_named(item.queue).edit_state
    if item.state == State.INBOX and not item.defects:
        out = writes.transition(_HOLD_OP[edit_state], [filename], expect=State.INBOX)
        if not out.ok:
            raise AtkError(f"could not hold before editing: {out.message}", code=out.code, exit_code=out.exit_code)
        held, pushed, state = True, out.pushed, edit_state
        if out.pushed is False and not allow_unpushed:
            writes.transition(_UNHOLD_OP[edit_state], [filename], expect=edit_state)
            raise AtkError(
                f"the hold of {filename} is committed but not pushed: agents elsewhere may still take it; "
                "edit anyway (allow_unpushed) or try again once the remote answers",
                code="unpushed",
            )
    base = writes.reads.read_bytes(filename)
    scratch = new_scratch(writes.reads.scratch_dir(), filename)
    ticket = EditTicket(filename, str(state), base, scratch, held, pushed, start, after=writes.reads.head())
    if held:
        ticket.hold_mark = _hold_mark(writes, ticket)
    ticket.keep(base)
    return ticket


def _hold_mark(writes: Writes, ticket: EditTicket) -> tuple[object, ...] | None:
    """Who holds the ticket's item now, as (actor, since, subject): kept through a rebase
    (unlike the commit's SHA), different for a hold taken again."""
    item_queue = next((q for q, s in writes.core.find(ticket.filename) if s == ticket.state), None)
    if item_queue is None:
        return None
    from atk_tui.service.core.holds import holder_of

    h = holder_of(writes.core.store, item_queue, ticket.state, ticket.filename)
    return None if h is None else (h.actor, h.agent_id, h.since, h.subject)


def _unhold(writes: Writes, ticket: EditTicket) -> list[str]:
    """Unhold what the session held; the warnings to pass on. An item that left the
    session's hold meanwhile (or was held again by someone else) is left where it is, and
    the warning says what happened to it (`drift`)."""
    if not ticket.held:
        return []
    ticket.held = False
    if ticket.state not in [s for _, s in writes.core.find(ticket.filename)]:
        moved = drift(writes, ticket)
        if moved is not None:
            return [f"{moved.summary()} Nothing to release."]
    if ticket.hold_mark is not None and _hold_mark(writes, ticket) not in (ticket.hold_mark, None):
        again = f"{ticket.filename} was released and held again by someone else while you edited it"
        return [f"{again}: left in {ticket.state}."]
    out = writes.transition(_UNHOLD_OP.get(ticket.state, "unhold"), [ticket.filename], expect=ticket.state)
    if not out.ok:
        moved = drift(writes, ticket) if out.code == "state" else None
        if moved is not None and moved.left:
            return [f"{moved.summary()} Nothing to release.", *out.warnings]
        return [f"could not unhold {ticket.filename} after editing: {out.message}", *out.warnings]
    return list(out.warnings)


@dataclass(frozen=True)
class EditDrift:
    """What happened to an edited item while its editor was open (another clone, an agent):
    where it is now (`now` None: removed), whether its text changed, and the commits that
    did it, newest first ("atk: unhold F — agent x1, 2026-12-01 20:10 UTC, 1a2b3c4d5e")."""

    filename: str
    was: str
    now: str | None
    changed: bool
    commits: tuple[str, ...] = ()
    terminal: bool = False

    @property
    def left(self) -> bool:
        return self.now != self.was

    @property
    def gone(self) -> bool:
        return self.now is None

    def summary(self) -> str:
        name = self.filename
        if self.gone:
            said = f"{name} was removed while you edited it."
        elif self.terminal:
            said = f"{name} was moved from {self.was} to {self.now} while you edited it ({self.now} is read-only)."
        elif self.left:
            said = f"{name} left {self.was} while you edited it: it is in {self.now} now" + (
                ", and its text changed." if self.changed else "."
            )
        else:
            said = f"{name} was changed by someone else while you edited it; it is still in {self.was}."
        if self.commits:
            more = f"; and {len(self.commits) - 4} more" if len(self.commits) > 4 else ""
            shown = "; ".join(self.commits[:4]) + more
            said += f" What happened: {shown}."
        return said


def drift(writes: Writes, ticket: EditTicket) -> EditDrift | None:
    """What happened to the ticket's item since the session took it (None: nothing, it is
    where it was with the text the session started from). Read from the store as it is now
    (a refused save has pulled already)."""
    from atk_tui.domain.model import TERMINAL
    from atk_tui.service.core.holds import AGENT_TRAILER

    name = ticket.filename
    found = writes.core.find(name)
    now = found[0][1] if found else None
    changed = False
    if now is not None:
        try:
            changed = writes.core.store.read_bytes(now, name, queue=found[0][0]) != ticket.base
        except (AtkError, OSError):
            changed = True
    if now == ticket.state and not changed:
        return None
    since = ticket.after or ticket.start
    commits: list[str] = []
    head = writes.reads.head()
    if since and head and since != head:
        fmt = f"%h%x1f%s%x1f%(trailers:key=Atk-Actor,valueonly)%x1f%(trailers:key={AGENT_TRAILER},valueonly)%x1f%at%x1e"
        globs = [f":(glob){q.folder}/*/{name}" for q in QUEUES]
        rng = f"{since}..{head}"
        env = writes.core.store.read_env
        proc = writes.core.store.git("log", "--no-renames", f"--format={fmt}", rng, "--", *globs, check=False, env=env)
        for rec in proc.stdout.split("\x1e"):
            parts = rec.strip("\n").split("\x1f")
            if len(parts) != 5:
                continue
            sha, subject, actor, agent, stamp = (p.strip() for p in parts)
            who = (f"agent {agent}" if agent else "an agent") if actor == "agent" else (actor or "git")
            when = datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%d %H:%M UTC") if stamp.isdigit() else "?"
            commits.append(f"{subject} — {'the user' if who == 'user' else who}, {when}, {sha}")
    return EditDrift(name, ticket.state, now, changed, tuple(commits), terminal=now in TERMINAL)


def retarget(writes: Writes, ticket: EditTicket) -> bytes:
    """After the item moved meanwhile, base the session on where it is now: an inbox item
    is held again (the session's own hold from here on), an item elsewhere is edited where
    it is. The stored bytes the next save must find. Raises AtkError when it is gone or
    terminal, or the hold is refused."""
    item = writes.reads.read(ticket.filename)
    if item.state in (State.ADOPTED, State.REJECTED):
        raise AtkError(f"{ticket.filename} is {item.state}: terminal items are read-only", code="state")
    edit_state = queue_named(item.queue).edit_state
    ticket.state, ticket.held = item.state, False
    if item.state == State.INBOX and not item.defects:
        out = writes.transition(_HOLD_OP[edit_state], [ticket.filename], expect=State.INBOX)
        if not out.ok:
            raise AtkError(f"could not hold {ticket.filename} again: {out.message}", code=out.code)
        ticket.state, ticket.held, ticket.after = edit_state, True, writes.reads.head()
        ticket.hold_mark = _hold_mark(writes, ticket)
    ticket.base = writes.reads.read_bytes(ticket.filename)
    return ticket.base


def finish_edit(writes: Writes, ticket: EditTicket, text: bytes) -> Outcome:
    """Save `text` against `ticket.base`, then unhold what the session held. Refused (the
    session stays open, the text kept in the scratch file) with code "changed" when the
    stored file is not the base any more, "invalid" for text that is not a valid item."""
    from atk_tui.service import Outcome

    if text == ticket.base:
        warnings = _unhold(writes, ticket)
        drop_scratch(ticket.scratch)
        return Outcome(True, "edit", "unchanged", (ticket.filename,), warnings=tuple(warnings), code="unchanged")
    ticket.keep(text)
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        return Outcome(
            False, "edit", f"not saved: the text is not valid UTF-8; it is kept in {ticket.scratch}",
            (ticket.filename,), exit_code=2, code="invalid",
        )
    out = writes.save_text(ticket.filename, decoded, expect=ticket.state, base=ticket.base)
    if not out.ok:
        return out
    drop_scratch(ticket.scratch)
    out.warnings = (*out.warnings, *_unhold(writes, ticket))
    return out


def abandon_edit(writes: Writes, ticket: EditTicket, *, keep_text: bool = False) -> Outcome:
    """End the session without saving: unhold what it held; drop the scratch text unless
    `keep_text` (then it is offered again the next time the item is edited)."""
    from atk_tui.service import Outcome

    warnings = _unhold(writes, ticket)
    if not keep_text:
        drop_scratch(ticket.scratch)
    return Outcome(True, "edit", "nothing saved", (ticket.filename,), warnings=tuple(warnings))


def has_merge_markers(text: str) -> bool:
    return any(line.startswith(("<<<<<<< your text", ">>>>>>> stored now")) for line in text.splitlines())
