"""The dashboard's command layer: every write a screen can start, in one place (SPEC §5, §7, §10).

`Commands` is a plain class the app owns. It holds the service, the session's undo stack and
the read-only flag; screens call its async methods (`move`, `rm`, `answer`, `accept`,
`comment`, `set_dependencies`, `undo`, `conflicts`, `edit`) from workers started by `run`, and
every outcome is reported once, by `report`. It tells the app what happened by Textual messages
(`writes/messages.py`: a toast, a failure, the store written), never by calling the app back:
of the app it uses only what every Textual `App` has (`run_worker`, `push_screen_wait`,
`post_message`). Writes run in a thread (`asyncio.to_thread`), so
the screen never freezes. What a key may do right now is `disabled_reason` (None: allowed):
screens dim the key with it and say it when the key is pressed anyway.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import App
from textual.notifications import SeverityLevel
from textual.worker import Worker

from atk_tui.domain.errors import AtkError
from atk_tui.domain.model import FILENAME_PATTERN, STATES, TERMINAL, Item
from atk_tui.domain.queues import queue_named
from atk_tui.itemfile.items import blob_sha
from atk_tui.service import Outcome, QueueView, Service, is_alarm
from atk_tui.text.textsafe import safe_line
from atk_tui.tui.display.present import quoted_title
from atk_tui.tui.keys.bindings import WRITE_ACTIONS, Asked, write_refusal
from atk_tui.tui.writes.messages import Said, StoreWritten, WriteFailed, WriteWorked

#: an item filename inside a message (not the end of a longer path or word)
_FILENAME_IN_TEXT = re.compile(rf"(?<![\w./-])({FILENAME_PATTERN})")
_COMMIT_SUBJECT = re.compile(r"(atk: [^'\n)]*)")

# the dialogs and the editor session are imported where a command opens them: not on the way to
# the dashboard's first frame
if TYPE_CHECKING:
    from atk_tui.tui.modals.answer import AnswerResult
    from atk_tui.tui.modals.conflicts import Resolution
    from atk_tui.tui.modals.dialogs import MoveChoice


@dataclass(frozen=True)
class UndoStep:
    """One thing `z` undoes: the commit that made it, and for a multi-commit session (hold +
    edit + unhold) the commit before it began."""

    commit: str
    base: str | None
    label: str


class Commands:
    """Writes on behalf of the screens; see the module docstring."""

    def __init__(
        self,
        app: App,
        service: Service,
        *,
        view: Callable[[], QueueView | None],
        editor: Callable[[Path], int] | None = None,
        store_label: str = "",
        read_only: bool = False,
        read_only_reason: str = "",
    ) -> None:
        self.app = app  # Textual's App: workers, dialogs, messages
        self.service = service
        self.view = view  # the queue shown now (the app's)
        self.editor = editor  # the edit session's editor (tests); None: $EDITOR
        self.store_label = store_label  # what the status line calls the store
        self.read_only = read_only
        self.read_only_reason = read_only_reason
        self.undo_stack: list[UndoStep] = []

    # -- what may be done ----------------------------------------------------------------

    def disabled_reason(self, action: str, targets: Sequence[Item]) -> str | None:
        """Why `action` cannot be done on `targets` now (None: it can). The same rules the
        service applies inside its lock; these are the ones a person can see before asking."""
        if action not in WRITE_ACTIONS:
            return None
        if self.read_only:
            return f"read-only: {self.read_only_reason}"
        # each key's rules are on its row of the bindings table (tui/keys/bindings.py)
        return write_refusal(Asked(action, targets, self.service.actor, can_undo=bool(self.undo_stack)))

    def refuse_read_only(self) -> bool:
        if self.read_only:
            self.say(f"read-only: {self.read_only_reason}", "warning")
            return True
        return False

    # -- running and reporting ---------------------------------------------------------------

    def run(self, name: str, work: Callable[[], Awaitable[Any]]) -> Worker:
        """Run a command (an async function, called when the worker starts: a key pressed
        as the app quits leaves no coroutine never awaited) as the app's worker: it outlives
        the screen that started it, and an exception it raises is reported by the app as
        `<name> failed: …`."""

        async def command() -> Any:
            return await work()

        return self.app.run_worker(command, name=name, group="write", exit_on_error=False)

    def say(self, text: str, severity: SeverityLevel = "information", timeout: float | None = None) -> None:
        """A toast, by message (`Said`)."""
        self.app.post_message(Said(text, severity, timeout))

    def failed(self, text: str) -> None:
        """A failure: a toast and the status line (`WriteFailed`)."""
        self.app.post_message(WriteFailed(text))

    async def write(self, fn: Callable[..., Outcome], *args: Any, undoable: bool = True, **kw: Any) -> Outcome:
        out: Outcome = await asyncio.to_thread(fn, *args, **kw)
        self.report(out, undoable=undoable)
        return out

    def report(self, out: Outcome, *, undoable: bool = True) -> None:
        """The one place an outcome is told: a toast (an error also on the status line), its
        warnings, the undo step it made, and the queue reloaded."""
        if out.ok:
            said = self.titled(out.message)
            if out.commit:  # which commit, and whether the remote has it (SPEC §15)
                where = {True: ", pushed", False: ", not pushed"}.get(out.pushed, "")
                said += f" ({out.commit[:7]}{where})"
            self.say(said, timeout=3)
            self.app.post_message(WriteWorked())  # the last failure is not the news any more
            if out.commit and undoable:
                self.undo_stack.append(UndoStep(out.commit, None, out.message))
        else:
            self.failed(self.titled(out.message))
        for w in out.warnings:
            if is_alarm(w):  # a rewritten remote: an error, on the status line too
                self.failed(w)
            else:
                self.say(self.titled(w), "warning", 8)
        self.app.post_message(StoreWritten())  # the queue loaded again, the keys judged again

    def titled(self, message: str) -> str:
        """`message` (the service's, which names files) with each item's filename replaced by
        its title, as the lists show it (issue 43); a name the queue does not know stays."""
        view = self.view()
        if view is None or ".md" not in message:
            return message

        def title(m: re.Match[str]) -> str:
            item = view.items.get(m.group(1))
            return quoted_title(item) if item is not None else m.group(0)

        # a commit's subject quoted in the message (`atk: hold F`) is quoted as git has it
        parts = _COMMIT_SUBJECT.split(message)
        return "".join(part if i % 2 else _FILENAME_IN_TEXT.sub(title, part) for i, part in enumerate(parts))

    async def read_seen(self, filename: str) -> tuple[Item, bytes]:
        """The item and the exact bytes it was read from: the `base` a write made from what
        the user sees is checked against (SPEC §11: nothing is written over a newer version)."""
        svc = self.service
        for _ in range(5):
            full = await asyncio.to_thread(svc.read, filename)
            base = await asyncio.to_thread(svc.read_bytes, filename)
            if blob_sha(base) == full.blob:
                return full, base
        # still changing under us: a base that matches nothing, so a write says "changed"
        return full, b""

    async def _ask(self, title: str, message: str | Text, yes: str, *, danger: bool = False) -> bool:
        from atk_tui.tui.modals.dialogs import confirm

        return await self.app.push_screen_wait(confirm(title, message, yes, danger=danger)) == "yes"

    async def agent_hold_warning(self, targets: Sequence[Item]) -> str | None:
        """SPEC §15: the person may change any hold; one an agent holds is said first (the
        agent is working on it). The sentence, None when no target is an agent's."""
        from atk_tui.service.core.holds import is_held_state

        held = [t for t in targets if is_held_state(t.queue, t.state)]
        if not held:
            return None
        holders = await asyncio.to_thread(self.service.held_by, held)
        by_agents = [(t, h) for t in held if (h := holders.get(t.filename)) is not None and h.actor == "agent"]
        if not by_agents:
            return None
        item, holder = by_agents[0]
        first = quoted_title(item)
        what = first if len(by_agents) == 1 else f"{len(by_agents)} of these items ({first} first)"
        return (
            f"{what} is {holder.describe()}: the agent took it to work on it and releases it when it is done; "
            "it may find its work changed under it."
        )

    async def confirm_agent_hold(self, targets: Sequence[Item], verb: str) -> bool:
        """Asks before `verb`-ing an item an agent holds (`agent_hold_warning`). True to go on."""
        warning = await self.agent_hold_warning(targets)
        if warning is None:
            return True
        verb = verb.capitalize()
        return await self._ask("Held by an agent", Text(f"{warning} {verb} it anyway?"), f"{verb} anyway")

    # -- transitions ------------------------------------------------------------------------

    async def move_menu(self, targets: Sequence[Item]) -> Outcome | None:
        """`m`: the moves valid for `targets`, then `move`."""
        from atk_tui.tui.modals.dialogs import MoveScreen

        if self.refuse_read_only() or not targets:
            return None
        # what the user sees when the menu opens: a note is written against it
        base = None
        if len(targets) == 1:
            try:
                _, base = await self.read_seen(targets[0].filename)
            except AtkError:
                base = None
        states = {t.state for t in targets}
        queues = {t.queue for t in targets}
        order = queue_named(queues.pop()).listed_all if len(queues) == 1 else STATES
        options = [s for s in order if not (len(states) == 1 and s in states)]
        title = f"Move {len(targets)} items" if len(targets) > 1 else f"Move {quoted_title(targets[0])}"  # cut with an ellipsis
        choice: MoveChoice | None = await self.app.push_screen_wait(MoveScreen(title, states, options))
        if choice is None:
            return None
        return await self.move(targets, choice.to_state, choice.note, base=base)

    async def _confirm_move(self, targets: Sequence[Item], target: str) -> bool:
        """A move into or out of adopted/rejected is confirmed (moves among the active states
        are undone by moving back); whether agents make it is the service's rule, not ours."""
        names = [t.filename for t in targets]
        states = {t.state for t in targets}
        svc = self.service
        held = await self.agent_hold_warning(targets)
        if held is not None:  # one question: the agent's hold, and what is unusual about the move
            verb = "Release" if target == "inbox" and states == {"hold"} else "Move"
            return await self._ask("Held by an agent", Text(f"{held} {verb} it to {target} anyway?"), f"{verb} anyway")
        leaving = bool(states & TERMINAL)
        unusual = [t for t in targets if not svc.writes.agent_may_move(t, target)] if target in TERMINAL or leaving else []
        what = quoted_title(targets[0]) if len(names) == 1 else f"{len(names)} items"
        if leaving:
            agents = "" if not unusual else " Agents never make this move themselves."
            title, why = "Move out of a terminal state?", agents.strip()
        elif not unusual and target != "adopted":
            return True
        elif not unusual:
            title, why = f"Move to {target}?", "It is then done."
        elif len(unusual) == len(targets):
            title, why = "Move outside the agent flow?", "Agents never make this move themselves."
        else:
            title, why = "Move outside the agent flow?", f"Agents never make this move for {len(unusual)} of them."
        text = f"Move {what} from {', '.join(sorted(states))} to {target}." + (f" {why}" if why else "")
        return await self._ask(title, Text(text), f"Move to {target}")

    async def move(
        self, targets: Sequence[Item], target: str, note: str | None = None, *, base: bytes | None = None
    ) -> Outcome | None:
        """Move `targets` to `target` (confirmed when unusual); a note the user typed survives
        a failed write: it is offered again with a retry. The last outcome, None if cancelled."""
        from atk_tui.tui.modals.dialogs import TextFormScreen

        if self.refuse_read_only() or not targets:
            return None
        if not await self._confirm_move(targets, target):
            return None
        names = [t.filename for t in targets]
        expect = targets[0].state if len(targets) == 1 else None
        while True:
            out = await self.write(self.service.writes.move, names, target, note=note, expect=expect, base=base if len(names) == 1 else None)
            if out.ok or not note:
                return out
            if out.code == "changed" and len(names) == 1:
                prompt = (
                    f"Not moved: {quoted_title(targets[0])} changed since you opened the menu (the detail pane shows "
                    f"the new version). Your note is kept: Enter moves it to {target} with the note, Esc cancels."
                )
                try:
                    _, base = await self.read_seen(names[0])
                except AtkError:
                    base = None
            else:
                prompt = f"Not moved: {safe_line(out.message)}\nYour note is kept: Enter retries the move to {target}, Esc discards it."
            retry = await self.app.push_screen_wait(
                TextFormScreen(f"Note for {target}", prompt, multiline=False, initial=note, allow_empty=True)
            )
            if retry is None:
                return out
            note = retry.strip() or None

    async def rm(self, targets: Sequence[Item]) -> Outcome | None:
        """`x`: remove after confirming, warning about the items that depend on them."""
        if self.refuse_read_only() or not targets:
            return None
        names = [t.filename for t in targets]
        what = quoted_title(targets[0]) if len(names) == 1 else f"{len(names)} items"
        message = Text(f"Remove {what}? It stays recoverable from the store's git history (and z undoes it).")
        held = await self.agent_hold_warning(targets)
        if held is not None:
            message.append(f"\n\n⚠ {held}", style="bold yellow")
        gone = set(names)
        for name in names:
            dependents = [d for d in await asyncio.to_thread(self.service.dependents_of, name) if d not in gone]
            if dependents:
                shown = ", ".join(self.titled(safe_line(d)) for d in dependents[:5]) + (f" and {len(dependents) - 5} more" if len(dependents) > 5 else "")
                message.append(
                    f"\n\n⚠ {len(dependents)} item{'s depend' if len(dependents) != 1 else ' depends'} on {self.titled(safe_line(name))}: {shown}. "
                    "They will be blocked by a missing dependency.",
                    style="bold yellow",
                )
        if not await self._ask("Remove?", message, "Remove", danger=True):
            return None
        return await self.write(self.service.writes.rm, names)

    async def undo(self) -> Outcome | None:
        """`z`: undo the newest step of this session. A step refused because its own item
        changed since is dropped, so the next `z` reaches the older ones."""
        if self.refuse_read_only() or not self.undo_stack:
            return None
        step = self.undo_stack[-1]
        # a session (base set) is named by its label, a single commit by its own subject
        out: Outcome = await asyncio.to_thread(self.service.writes.undo, step.commit, step.base, step.label if step.base else None)
        if (out.ok or out.code == "changed") and self.undo_stack and self.undo_stack[-1] is step:
            self.undo_stack.pop()
        self.report(out, undoable=False)
        return out

    # -- answer and comment ---------------------------------------------------------------

    async def answer(self, item: Item) -> Outcome | None:
        """`a`: the answer form for `item`; nothing typed is lost when the write is refused
        (the form comes back with it). The saved outcome, None if nothing was saved."""
        from atk_tui.tui.modals.answer import AnswerScreen

        if self.refuse_read_only():
            return None
        if not item.is_question:
            self.say("no question selected and none waiting", "warning")
            return None
        full, base = await self.read_seen(item.filename)
        if full.state in TERMINAL:
            self.say("terminal questions are read-only: return it to inbox first", "warning")
            return None
        replace = False
        if full.answered or full.answer_partial:
            what = "partially answered" if full.answer_partial else "answered"
            if not await self._ask("Replace the answer?", f"This question is {what} already. Replace its answer?", "Replace"):
                return None
            replace = True
        from atk_tui.itemfile.questions import parse_questions  # not on the way to the first frame

        kept: AnswerResult | None = None
        notice: str | None = None
        while True:
            parsed = parse_questions(full.body)
            result: AnswerResult | None = await self.app.push_screen_wait(
                AnswerScreen(full, parsed, replacing=replace, kept=kept, notice=notice, base=base)
            )
            if result is None:
                return None
            out = await self.write(
                self.service.answers.answer, full.filename, choices=result.choices, text=result.text,
                replace=replace, partial=result.partial, base=base,
            )
            if out.ok:
                return out
            # nothing was written: the form comes back with the user's choices and words
            kept = result
            if out.code == "changed":
                try:
                    full, base = await self.read_seen(full.filename)
                except AtkError:
                    notice = "Not saved: this question changed and is gone now. Your choices and text are kept below (copy them), Esc closes."
                    continue
                replace = full.answered or full.answer_partial
                notice = (
                    "Not saved: this question changed while you were answering. Below is the NEW version; "
                    "your choices are kept where their option still exists, your text is kept. Submit again to save."
                )
            else:
                notice = f"Not saved: {safe_line(out.message)}\nYour choices and text are kept: submit again to retry, Esc discards them."

    async def accept(self, item: Item) -> Outcome | None:
        """`A`: answer with the recommended option of every question (post-approval: one key)."""
        if self.refuse_read_only() or not item.is_question:
            return None
        full, base = await self.read_seen(item.filename)
        if full.answered or full.answer_partial:
            what = "partially answered" if full.answer_partial else "already answered"
            self.say(f"{what}: use a to change the answer", "warning")
            return None
        from atk_tui.itemfile.questions import parse_questions

        parsed = parse_questions(full.body)
        choices = {q.number: q.recommendation for q in parsed.questions if q.recommendation}
        # a free-text question has nothing to accept: a blanket "approved" would answer
        # "what hours should we state?" with nonsense
        missing = [q.number for q in parsed.questions if not q.recommendation]
        if missing or not choices:
            which = f"question {missing[0]}" if missing and len(parsed.questions) > 1 else "this question"
            self.say(f"{which} has no recommendation to accept: answer it with a", "warning")
            return None
        return await self.write(self.service.answers.answer, full.filename, choices=choices, text="", base=base)

    async def accept_batch(self, items: Sequence[Item]) -> Outcome | None:
        """`A` with questions marked: each one's recommendations, after one confirmation that
        lists them, in one commit (`svc.answers.accept_recommendations`)."""
        from atk_tui.tui.modals.dialogs import confirm

        if self.refuse_read_only():
            return None
        uwis = [i for i in items if i.kind == "uwi"]
        if not uwis:
            self.say("none of the marked items is a question: mark questions (Space), then A", "warning")
            return None
        # checked before asking (issue 43: the batch was confirmed, then refused by filename)
        from atk_tui.itemfile.questions import parse_questions

        refused: list[str] = []
        for i in uwis:
            full = await asyncio.to_thread(self.service.read, i.filename)
            questions = parse_questions(full.body).questions
            missing = [q.number for q in questions if not q.recommendation]
            title = f"“{safe_line(full.title)[:50]}”"
            if full.answered or full.answer_partial:
                refused.append(f"{title} is answered already")
            elif missing or not questions:
                which = f" (question {missing[0]})" if missing and len(questions) > 1 else ""
                refused.append(f"{title}{which} has no recommendation")
        if refused:
            self.say("Nothing accepted: " + "; ".join(refused) + ". Answer those with a, or unmark them (Space).", "warning", 10)
            return None
        n = len(uwis)
        listing = Text(f"Accept the recommended option of every question in {'these' if n != 1 else 'this'}:\n")
        for i in uwis:
            listing.append(f"  • {safe_line(i.title)[:70]}\n")
        if len(uwis) < len(items):
            listing.append(f"({len(items) - len(uwis)} marked AWI left out)\n", style="dim")
        listing.append("One commit for all of them." if n != 1 else "One commit.")
        title = f"Accept the recommendations of {n} question{'s' if n != 1 else ''}"
        ok = await self.app.push_screen_wait(confirm(title, listing, "Accept all" if n != 1 else "Accept"))
        if ok != "yes":
            return None
        return await self.write(self.service.answers.accept_recommendations, [i.filename for i in uwis])

    async def comment(self, item: Item) -> Outcome | None:
        """`c`: a comment appended to the item's user-comment section; the typed text comes
        back with a retry when the write is refused."""
        from atk_tui.tui.modals.dialogs import TextFormScreen

        if self.refuse_read_only() or not item.is_request:
            return None
        full, base = await self.read_seen(item.filename)
        prompt = Text("Appended to the item's ## ユーザーコメント section.")
        text = ""
        while True:
            typed = await self.app.push_screen_wait(TextFormScreen(f"Comment on {safe_line(full.title)[:60]}", prompt, initial=text))
            if typed is None:
                return None
            text = typed
            out = await self.write(self.service.answers.comment, full.filename, text, base=base)
            if out.ok:
                return out
            if out.code == "changed":
                try:
                    full, base = await self.read_seen(full.filename)
                except AtkError:
                    prompt = Text("Not saved: the item is gone. Your text is kept below (copy it), Esc closes.")
                    continue
                prompt = Text(
                    "Not saved: the item changed while you were writing (the detail pane shows the new version). "
                    "Your text is kept: Ctrl+S adds it to the new version, Esc discards it."
                )
            else:
                prompt = Text(f"Not saved: {safe_line(out.message)}\nYour text is kept: Ctrl+S retries, Esc discards it.")

    # -- dependencies, conflicts, edit ------------------------------------------------------

    async def set_dependencies(self, item: Item, view: QueueView) -> Outcome | None:
        """`d`: the dependency editor, then the write."""
        from atk_tui.tui.modals.dependencies import DependenciesScreen

        if self.refuse_read_only():
            return None
        reason = self.disabled_reason("dependencies", [item])
        if reason is not None:  # the command palette does not ask first
            self.say(reason, "warning")
            return None
        if not await self.confirm_agent_hold([item], "change"):
            return None
        deps = await self.app.push_screen_wait(DependenciesScreen(item, view))
        if deps is None:
            return None
        return await self.write(self.service.writes.set_dependencies, item.filename, deps)

    async def conflicts(self) -> Outcome | None:
        """`C`: the commits `atk wi commit` set aside; show both versions, apply one."""
        from atk_tui.tui.modals.conflicts import ConflictsScreen

        svc = self.service
        found = await asyncio.to_thread(svc.conflicts.list, 500)  # the oldest 500: 20,000 refs list quickly (issue 38)
        if not found:
            self.say("no set-aside conflicts", timeout=3)
            return None
        versions = {c.ref: await asyncio.to_thread(svc.conflicts.versions, c.ref) for c in found}
        choice: Resolution | None = await self.app.push_screen_wait(ConflictsScreen(found, versions))
        if choice is None or self.refuse_read_only():
            return None
        return await self.write(svc.conflicts.resolve, choice.ref, choice.keep, undoable=False)

    async def commit(self) -> Outcome | None:
        """`P`: commit what is in the work tree (as the user's) and push. Files there are
        listed first, the user's decisions marked (`svc.conflicts.pending_changes`, as `atk wi
        commit` lists them); only the confirmed list is committed (refused when it changed)."""
        from atk_tui.tui.modals.dialogs import CommitScreen

        if self.refuse_read_only():
            return None
        svc = self.service
        changes = await asyncio.to_thread(svc.conflicts.pending_changes)
        if changes and await self.app.push_screen_wait(CommitScreen(changes)) != "yes":
            self.say("not committed (nothing changed)", timeout=3)
            return None
        return await self.write(svc.conflicts.commit_pending, changes, undoable=False)

    async def edit(self, filename: str) -> None:
        """`e`: hold → $EDITOR → save → unhold (`EditSession`); one undo step for all of it."""
        from atk_tui.tui.writes.edit_session import EditSession

        if self.refuse_read_only():
            return
        depth = len(self.undo_stack)
        saved = await EditSession(self, filename).run()
        if saved is not None:
            del self.undo_stack[depth:]
            self.undo_stack.append(UndoStep(saved[0], saved[1], f"edit {filename}"))
