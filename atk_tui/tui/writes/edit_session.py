"""The edit session: hold → $EDITOR → save → unhold, every branch (SPEC §10, §11).

`EditSession(commands, filename).run()` is the whole state machine: it offers text kept by an
earlier unsaved session, holds an inbox item (so no agent takes it meanwhile), hands the
terminal to $EDITOR (`App.suspend`) or, in a browser, edits in the dashboard, saves against
the version the person started from, merges their text into a newer version when the save is
refused (`git merge-file`, conflicts marked), keeps the text in a scratch file until it is
saved or discarded, and unholds. The person's text is never lost and never saved over a
version they did not see. Hold + edit + unhold is one undo step.

This module (with `alerts.py` for the desktop notifier) is the only one in the dashboard that
starts processes: the editor and `git merge-file`. Like `Commands`, it tells the app what
happened by messages (`writes/messages.py`: toasts, failures, the watch paused while the editor
is open, the store written), and knows the commands only as `Host`, what it asks of them.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from rich.text import Text
from textual.app import App, SuspendNotSupported
from textual.notifications import SeverityLevel

from atk_tui.domain.errors import AtkError
from atk_tui.domain.model import TERMINAL, Item
from atk_tui.service import Outcome, Service
from atk_tui.service.writing.editing import (
    EditDrift,
    EditTicket,
    base_of,
    has_merge_markers,
    kept_scratches,
    merge_texts,
    scratch_item,
)
from atk_tui.text.textsafe import safe_line
from atk_tui.tui.modals.dialogs import ChoiceScreen, InAppEditorScreen, confirm
from atk_tui.tui.writes.messages import Said, StoreWritten, WatchPaused, WriteFailed

#: the dashboards (one per browser tab) whose person agreed to edit in the dashboard itself
_EDITS_HERE: weakref.WeakSet[App] = weakref.WeakSet()



class Host(Protocol):
    """What an edit session asks of the commands that start it (`Commands`)."""

    app: App
    service: Service
    editor: Callable[[Path], int] | None
    store_label: str

    async def confirm_agent_hold(self, targets: Sequence[Item], verb: str) -> bool: ...
    def report(self, out: Outcome, *, undoable: bool = True) -> None: ...




def editor_command() -> list[str]:
    """$VISUAL, else $EDITOR, split like a shell would (`code --wait`), else `vi`."""
    raw = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        argv = shlex.split(raw)
    except ValueError:
        argv = [raw]
    return argv or ["vi"]


def run_real_editor(app: App, path: Path) -> int:
    argv = editor_command()
    if shutil.which(argv[0]) is None:
        raise EditorMissing(f"editor not found: {argv[0]!r} (set $VISUAL or $EDITOR)")
    if os.sep in argv[0]:
        argv[0] = os.path.abspath(argv[0])
    # the editor runs in the scratch folder on the bare filename: vim's "name" 20L, 600B line
    # then fits the screen (a long path made it ask "Press ENTER"), the item's name still shown
    with app.suspend():
        return subprocess.call([*argv, path.name], cwd=path.parent)


class EditorMissing(Exception):
    pass


def shown_path(root: Path, label: str, path: Path) -> str:
    """A path in the store as the status line names the store, `label` (tests give it a fixed one)."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return str(path)
    return f"{label.rstrip('/')}/{rel.as_posix()}"


def offer_kept_at_start(app: App, service: Service) -> None:
    """At start: say which items have editor text kept from an unsaved edit."""
    names = sorted({scratch_item(p.name) or "" for p in kept_scratches(service.scratch_dir())} - {""})
    if names:
        shown = ", ".join(safe_line(n) for n in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        app.post_message(Said(f"kept editor text from an unsaved edit: {shown}. Press e on the item to resume or discard it.", "warning", 15))


class EditSession:
    """One edit of one item; see the module docstring. `run()` drives it to the end."""

    def __init__(self, commands: Host, filename: str) -> None:
        self.commands = commands
        self.app = commands.app
        self.service = commands.service
        self.filename = filename

    def notify(self, text: str, severity: SeverityLevel = "information", timeout: float | None = None) -> None:
        self.app.post_message(Said(text, severity, timeout))

    def report_error(self, text: str) -> None:
        self.app.post_message(WriteFailed(text))

    def shown(self, path: Path) -> str:
        return shown_path(self.service.root, self.commands.store_label, path)

    async def run(self) -> tuple[str, str] | None:
        """The whole session; (last commit, commit before it) when an edit was saved."""
        return await self.edit_flow(self.filename)

    async def edit_flow(self, filename: str) -> tuple[str, str] | None:
        """SPEC §10/§11: hold → editor → save/unhold, every branch; the person's text is never
        lost and never saved over a version they did not see."""
        app = self.app
        svc = self.service
        item = await asyncio.to_thread(svc.read, filename)
        if item.state in TERMINAL:
            self.notify(f"{item.state} items are read-only", "warning")
            return
        if not await self.commands.confirm_agent_hold([item], "edit"):
            return
        resume = await self._offer_kept(filename)
        if resume is False:
            return
        if item.state == "processing":
            ok = await app.push_screen_wait(
                confirm("Edit while processing?", "An agent is processing this item. Edit it in place anyway?", "Edit in place")
            )
            if ok != "yes":
                return
        in_app = False
        if self.commands.editor is None and not self._can_suspend():
            # a browser (textual-serve) cannot hand the terminal to $EDITOR: ask before
            # anything is held, and edit in the dashboard instead; asked once a session (a
            # "yes" stands for every later `e` of this dashboard, a "no" asks again next time)
            if app not in _EDITS_HERE:
                ok = await app.push_screen_wait(
                    confirm(
                        "Edit here?",
                        "This session cannot hand the terminal over to $EDITOR (it runs in a browser). Edit the file in the dashboard instead? (asked once)",
                        "Edit here",
                    )
                )
                if ok != "yes":
                    return
                _EDITS_HERE.add(app)
            in_app = True
        elif self.commands.editor is None:
            argv = editor_command()
            if shutil.which(argv[0]) is None:  # said before anything is held
                self.report_error(str(EditorMissing(f"editor not found: {argv[0]!r} (set $VISUAL or $EDITOR)")))
                return
        app.post_message(WatchPaused(True))
        saved: tuple[str, str] | None = None
        try:
            base = await asyncio.to_thread(svc.head)
            # holds an inbox item (a defective one is repaired in place: it cannot move)
            try:
                ticket = await asyncio.to_thread(svc.writes.begin_edit, filename, allow_unpushed=True)
            except AtkError as exc:
                self.report_error(exc.message)
                return None
            if ticket.pushed is False:
                ok = await app.push_screen_wait(
                    confirm(
                        "Hold not pushed",
                        Text("The hold is committed here but not pushed: agents elsewhere may still take this item — edit anyway?"),
                        "Edit anyway",
                    )
                )
                if ok != "yes":
                    await self._abandon(ticket)
                    return None
            await self._edit_loop(ticket, in_app=in_app, resume=resume if isinstance(resume, tuple) else None)
            saved = await self._saved_range(base)
        finally:
            app.post_message(WatchPaused(False))
            app.post_message(StoreWritten())
        return saved

    async def _saved_range(self, base: str | None) -> tuple[str, str] | None:
        """(head, base) when this session saved an edit: hold + edit + unhold is then one
        thing to undo."""
        svc = self.service
        head = await asyncio.to_thread(svc.head)
        if head and base and head != base:
            subjects = await asyncio.to_thread(svc.commits_touching, self.filename, base)
            if any(s.startswith("atk: edit ") for s in subjects):
                return head, base
        return None

    def _can_suspend(self) -> bool:
        """Whether `App.suspend` can hand the terminal to another program (not in a browser)."""
        check = getattr(self.app, "can_suspend", None)  # a test's stand-in says for itself
        if callable(check):
            return bool(check())
        from atk_tui.tui.textual_compat import can_suspend

        return can_suspend(self.app)

    async def _offer_kept(self, filename: str) -> tuple[bytes, bytes | None, Path] | bool:
        """Offer text kept by an earlier session of `filename`: (its text, the version it was
        based on if known, its file) to resume from, True to start afresh, False to stop."""
        kept = kept_scratches(self.service.scratch_dir(), filename)
        if not kept:
            return True
        newest = kept[-1]
        more = f" (and {len(kept) - 1} older)" if len(kept) > 1 else ""
        choice = await self.app.push_screen_wait(
            ChoiceScreen(
                "Kept text",
                Text(
                    f"An earlier edit of this item was not saved; your text is kept in {self.shown(newest)}{more}.\n\n"
                    "Resume opens it merged with the stored version (conflicts marked); Start afresh opens the stored "
                    "version and keeps the old text where it is."
                ),
                [("resume", "r", "Resume my text"), ("fresh", "f", "Start afresh"), ("discard", "d", "Discard kept text")],
            )
        )
        if choice is None:
            return False
        if choice == "discard":
            for path in kept:
                path.unlink(missing_ok=True)
                base_of(path).unlink(missing_ok=True)
            self.notify("kept text discarded", timeout=3)
            return True
        if choice == "fresh":
            return True
        base = base_of(newest)
        return newest.read_bytes(), (base.read_bytes() if base.is_file() else None), newest

    # -- the edit session -----------------------------------------------------------------

    async def _edit_loop(
        self, ticket: EditTicket, *, in_app: bool = False, resume: tuple[bytes, bytes | None, Path] | None = None
    ) -> None:
        """Edit, save against `ticket.base`; on a refusal the text is kept (the ticket's scratch
        file) and the person edits again (merged into a newer version), discards, or decides
        later (the item stays as it is)."""
        app = self.app
        svc = self.service
        mine = ticket.base
        resumed: Path | None = None  # the kept text resumed: gone once saved or discarded
        if resume is not None:
            kept_text, kept_base, resumed = resume
            mine = merge_texts(kept_base, ticket.base, kept_text)[0] if kept_base not in (None, ticket.base) else kept_text

        def drop_resumed() -> None:
            if resumed is not None:
                resumed.unlink(missing_ok=True)
                base_of(resumed).unlink(missing_ok=True)

        while True:
            code, mine = await self._edit_once(ticket, mine, in_app=in_app)
            if code is None:
                return  # the editor could not start: said, and the session abandoned
            if code != 0:
                self.notify(f"editor exited with status {code}: nothing saved" if not in_app else "edit cancelled: nothing saved", "warning")
                await self._abandon(ticket)
                return
            text = mine.decode("utf-8", errors="replace")
            if mine != ticket.base and has_merge_markers(text):
                ok = await app.push_screen_wait(
                    confirm("Conflict markers left", "Your text still has merge conflict markers (<<<<<<< … >>>>>>>). Save it like that?", "Save anyway")
                )
                if ok != "yes":
                    continue  # back to the editor with the text as it is
            out = await asyncio.to_thread(svc.writes.finish_edit, ticket, mine)
            if out.ok:
                if out.code == "unchanged":
                    self.notify("unchanged", timeout=2)
                    for w in out.warnings:
                        self.notify(w, "warning")
                else:
                    self.commands.report(out)
                drop_resumed()
                return
            choice = await self._not_saved(ticket, out, mine)
            if choice is None:
                return  # decide later: the text stays kept, the item as it is
            if choice == "discard":
                await self._abandon(ticket)
                drop_resumed()
                self.notify("changes discarded", timeout=3)
                return
            mine = choice

    async def _edit_once(self, ticket: EditTicket, mine: bytes, *, in_app: bool) -> tuple[int | None, bytes]:
        """One pass in the editor: (its exit status, the text); None when it could not start."""
        if in_app:
            edited = await self.app.push_screen_wait(InAppEditorScreen(ticket.filename, mine.decode("utf-8", errors="replace")))
            return (1, mine) if edited is None else (0, edited.encode("utf-8"))
        path = ticket.keep(mine)
        try:
            code = self._call_editor(path)
        except (EditorMissing, SuspendNotSupported) as exc:
            # (a driver that said it could suspend and then could not: nothing edited)
            self.report_error(str(exc) or "this session cannot hand the terminal to $EDITOR: nothing edited")
            await self._abandon(ticket)
            return None, mine
        return code, (path.read_bytes() if code == 0 else mine)

    async def _not_saved(self, ticket: EditTicket, out: Outcome, mine: bytes) -> bytes | str | None:
        """The save was refused: say why, where the text is kept, and ask. The text to edit
        again (merged into the newer version when the item changed: the next save is based on
        it), "discard", or None (decide later)."""
        app = self.app
        state = ticket.state
        moved = None
        if out.code in ("changed", "state", "missing"):  # what happened to it meanwhile, exactly
            moved = await asyncio.to_thread(self.service.writes.edit_drift, ticket)
        if moved is not None and moved.left:
            return await self._moved_meanwhile(ticket, moved, mine)
        newer: bytes | None = None
        if out.code == "changed":
            try:
                newer = await asyncio.to_thread(self.service.read_bytes, ticket.filename)
            except AtkError:
                newer = None
        kept = self.shown(ticket.keep(mine))
        merged = mine
        how = ""
        if newer is not None:
            merged, conflicts = merge_texts(ticket.base, newer, mine)
            how = (
                f"Edit again opens the newer version merged with your text ({conflicts} conflict{'s' if conflicts != 1 else ''} "
                "marked <<<<<<< your text … >>>>>>> stored now); the save is then based on the newer version.\n"
                if conflicts
                else "Edit again opens the newer version merged with your text; the save is then based on the newer version.\n"
            )
        reason = "not valid UTF-8 text" if out.code == "invalid" and "UTF-8" in out.message else out.message
        if moved is not None:  # changed where it is: say by whom
            reason = f"Not saved: {moved.summary()}"
        message = f"{reason}\n\nYour text is kept in {kept}.\n{how}The item stays in {state} until you decide."
        choice = await app.push_screen_wait(
            ChoiceScreen(
                "Not saved",
                Text(message),
                [("again", "e", "Edit again"), ("discard", "d", "Discard my changes")],
                escape_hint=f"Esc: decide later (it stays in {state})",
            )
        )
        if choice == "again":
            if newer is not None:
                # never an overwrite: the next save must find the newer version
                ticket.base = newer
            return merged
        if choice == "discard":
            return "discard"
        self.notify(f"your text is kept in {kept}; the item stays in {state}", "warning", 10)
        return None

    async def _moved_meanwhile(self, ticket: EditTicket, moved: EditDrift, mine: bytes) -> bytes | str | None:
        """The item left the session's state while the editor was open (another clone, an
        agent, the person elsewhere): say exactly what happened, keep the text, offer what
        makes sense -- edit again where it is now (held again from inbox) or discard; for an
        item that is gone or terminal, only keeping or discarding the text."""
        app = self.app
        kept = self.shown(ticket.keep(mine))
        ticket.held = False  # it left the session's hold: nothing of it is this session's to release
        if moved.gone or moved.terminal:
            message = f"{moved.summary()}\n\nNothing was saved. Your text is kept in {kept}."
            choices = [("discard", "d", "Discard my text")]
            escape = "Esc: keep my text"
        else:
            again = "holds it again and opens the version stored now" if moved.now == "inbox" else (
                f"opens the version stored now (it stays in {moved.now})"
            )
            message = (
                f"{moved.summary()}\n\nNothing was saved. Your text is kept in {kept}.\n"
                f"Edit again {again}, merged with your text; the save is then based on it."
            )
            choices = [("again", "e", "Edit again"), ("discard", "d", "Discard my changes")]
            escape = f"Esc: decide later (it stays in {moved.now})"
        choice = await app.push_screen_wait(ChoiceScreen("Not saved", Text(message), choices, escape_hint=escape))
        if choice == "discard":
            return "discard"
        if choice == "again":
            old_base = ticket.base
            try:
                newer = await asyncio.to_thread(self.service.writes.retarget_edit, ticket)
            except AtkError as exc:
                self.report_error(f"{exc.message}; your text is kept in {kept}")
                return None
            return merge_texts(old_base, newer, mine)[0]
        where = "it is gone" if moved.gone else f"it is in {moved.now} now"
        self.notify(f"your text is kept in {kept}; {where}", "warning", 10)
        return None

    async def _abandon(self, ticket: EditTicket) -> None:
        """End the session without saving: unhold what it held, drop its text."""
        out = await asyncio.to_thread(self.service.writes.abandon_edit, ticket)
        for w in out.warnings:
            self.notify(w, "warning")

    def _call_editor(self, path: Path) -> int:
        editor = self.commands.editor
        if editor is not None:
            return editor(path)
        return run_real_editor(self.app, path)
