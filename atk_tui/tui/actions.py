"""The human part of the work, from the dashboard: edit in $EDITOR with automatic
hold/unhold, answer, comment, transitions, bulk moves, undo (SPEC §5, §7, §10).

Every write goes through the service in a thread (`asyncio.to_thread`), so the screen never
freezes; outcomes come back as notifications, and each commit made here can be undone (`z`).
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import SuspendNotSupported
from textual.binding import Binding
from textual.widgets import Input

from ..core.errors import AtkError
from ..core.items import blob_sha
from ..core.model import STATES, TERMINAL, Item
from ..core.questions import parse_questions
from ..core.service import Outcome
from ..core.textsafe import safe_line
from .screens.answer import AnswerResult, AnswerScreen
from .screens.conflicts import ConflictsScreen, Resolution
from .screens.dependencies import DependenciesScreen
from .screens.dialogs import ChoiceScreen, InAppEditorScreen, MoveChoice, MoveScreen, TextFormScreen, confirm
from .screens.graph import GraphScreen

if TYPE_CHECKING:
    from .app import AtkApp

WRITE_ACTIONS = {"edit", "answer", "accept", "comment", "hold", "unhold", "move", "remove", "undo", "dependencies"}


class EditorMissing(Exception):
    pass


def editor_command() -> list[str]:
    """$VISUAL, else $EDITOR, split like a shell would (`code --wait`), else `vi`."""
    raw = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        argv = shlex.split(raw)
    except ValueError:
        argv = [raw]
    return argv or ["vi"]


def run_real_editor(app: AtkApp, path: Path) -> int:
    argv = editor_command()
    if shutil.which(argv[0]) is None:
        raise EditorMissing(f"editor not found: {argv[0]!r} (set $VISUAL or $EDITOR)")
    with app.suspend():
        return subprocess.call([*argv, str(path)])


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


MERGE_LABELS = ("your text", "when you started", "stored now")


def merge_texts(base: bytes | None, stored: bytes, mine: bytes) -> tuple[bytes, int]:
    """Three-way merge of the user's text into the newer stored version (`git merge-file`):
    the result and how many conflicts are marked in it. Without a base every difference is
    a conflict."""
    with tempfile.TemporaryDirectory(prefix="atk-merge-") as tmp:
        paths = [Path(tmp, n) for n in ("mine", "base", "stored")]
        for path, data in zip(paths, (mine, base or b"", stored), strict=True):
            path.write_bytes(data)
        argv = ["git", "merge-file", "-p"]
        for label in MERGE_LABELS:
            argv += ["-L", label]
        proc = subprocess.run([*argv, *map(str, paths)], capture_output=True, check=False)
    if proc.returncode < 0 or proc.returncode > 127:
        # git could not merge (binary text?): both versions, one after the other
        both = b"<<<<<<< your text\n" + mine + b"\n=======\n" + stored + b"\n>>>>>>> stored now\n"
        return both, 1
    return proc.stdout, proc.returncode


def has_merge_markers(text: str) -> bool:
    return any(line.startswith(("<<<<<<< your text", ">>>>>>> stored now")) for line in text.splitlines())


ACTION_BINDINGS = [
    Binding("a", "answer", "Answer", id="answer"),
    Binding("A", "accept", "Accept rec.", show=False, id="accept"),
    Binding("c", "comment", "Comment", id="comment"),
    Binding("e", "edit", "Edit", id="edit"),
    Binding("p", "hold", "Hold", id="hold"),  # `h` is vim's left: back from the detail pane
    Binding("u", "unhold", "Unhold", id="unhold"),
    Binding("m", "move", "Move", id="move"),
    Binding("x,delete", "remove", "Remove", show=False, id="remove"),
    Binding("z", "undo", "Undo", show=False, id="undo"),  # in the help; the footer keeps room for ? and q
    Binding("d", "dependencies", "Deps", id="dependencies"),
    Binding("C", "conflicts", "Conflicts", show=False, id="conflicts"),
    Binding("v", "graph", "Graph", id="graph"),  # `g g` is vim's first row
]


class ActionsMixin:
    """Mixed into MainScreen: actions on the selected (or marked) items."""

    app: AtkApp
    undo_stack: list[tuple[str, str | None, str]]  # (last commit, base or None, label)
    _pending_select: str | None

    # -- what may be done ----------------------------------------------------------------

    def _targets(self) -> list[Item]:
        view = self.view  # type: ignore[attr-defined]
        marked = self.marked()  # type: ignore[attr-defined]
        if marked and view is not None:
            return [view.items[n] for n in marked if n in view.items]
        item = self.current_item()  # type: ignore[attr-defined]
        return [item] if item is not None else []

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "graph":
            return not isinstance(self.focused, Input)  # type: ignore[attr-defined]
        if action not in WRITE_ACTIONS:
            return True
        if self.app.read_only:
            return None  # shown disabled; the key itself says why (`on_key`)
        if action == "undo":
            return True if self.undo_stack else None
        targets = self._targets()
        if not targets:
            return None
        one = targets[0]
        single = len(targets) == 1
        if action == "edit":
            return (single and one.state not in TERMINAL) or None
        if action == "accept" and not single:  # batch approval of the marked questions
            return any(t.kind == "uwi" and t.state not in TERMINAL and not t.defects for t in targets) or None
        if action in ("answer", "accept"):
            return (single and one.kind == "uwi" and one.state not in TERMINAL and not one.defects) or None
        if action == "comment":
            return (single and one.kind == "awi" and one.state not in TERMINAL and not one.defects) or None
        if action == "dependencies":
            return (single and one.state in ("inbox", "processing", "hold") and not one.defects) or None
        if action == "hold":
            return all(t.state != "hold" and not t.defects for t in targets) or None
        if action == "unhold":
            return all(t.state == "hold" and not t.defects for t in targets) or None
        if action == "remove":
            return all(t.state in ("inbox", "hold") for t in targets) or None
        if action == "move":
            return all(not t.defects for t in targets) or None
        return True

    def on_key(self, event: Any) -> None:
        """Read-only: a write key is disabled, but never silent — a toast says why. (Keys reach
        the screen before the app looks at its non-priority bindings.)"""
        if not self.app.read_only or isinstance(self.focused, Input):  # type: ignore[attr-defined]
            return
        bindings = self._bindings.key_to_bindings.get(event.key, [])  # type: ignore[attr-defined]
        if any(b.action in WRITE_ACTIONS for b in bindings):
            event.stop()
            self._refuse_read_only()

    def _refuse_read_only(self) -> bool:
        if self.app.read_only:
            self.app.notify(f"read-only: {self.app.read_only_reason}", severity="warning", markup=False)
            return True
        return False

    # -- running writes -------------------------------------------------------------------

    def on_worker_state_changed(self, event: Any) -> None:
        self.app.report_worker_error(event)  # an action that raised: a readable error

    async def _write(self, fn: Callable[..., Outcome], *args: Any, undoable: bool = True, **kw: Any) -> Outcome:
        out: Outcome = await asyncio.to_thread(fn, *args, **kw)
        self._report(out, undoable=undoable)
        return out

    def _report(self, out: Outcome, *, undoable: bool = True) -> None:
        if out.ok:
            self.app.notify(out.message, markup=False, timeout=3)
            if out.commit and undoable:
                self.undo_stack.append((out.commit, None, out.message))
        else:
            self.app.report_error(out.message)
        for w in out.warnings:
            self.app.notify(w, severity="warning", markup=False, timeout=8)
        self.app.reload()
        self.refresh_bindings()  # type: ignore[attr-defined]

    # -- transitions ------------------------------------------------------------------------

    @work(group="write", exit_on_error=False)
    async def action_hold(self) -> None:
        await self._move_to("hold")

    @work(group="write", exit_on_error=False)
    async def action_unhold(self) -> None:
        await self._move_to("inbox")

    async def _move_to(self, target: str, note: str | None = None, *, confirmed: bool = False, base: bytes | None = None) -> None:
        if self._refuse_read_only():
            return
        targets = self._targets()
        if not targets:
            return
        names = [t.filename for t in targets]
        states = {t.state for t in targets}
        svc = self.app.service
        # a move into or out of adopted/rejected is confirmed (moves among the active states
        # are undone by moving back); whether agents make it is the service's rule, not ours
        closing = target in TERMINAL or bool(states & TERMINAL)
        unusual = [t for t in targets if not svc.agent_may_move(t, target)] if closing else []
        if (unusual or target == "adopted") and not confirmed:
            what = names[0] if len(names) == 1 else f"{len(names)} items"
            if not unusual:
                title, why = f"Move to {target}?", "It is then done."
            elif len(unusual) == len(targets):
                title, why = "Move outside the agent flow?", "Agents never make this move themselves."
            else:
                title, why = "Move outside the agent flow?", f"Agents never make this move for {len(unusual)} of them."
            ok = await self.app.push_screen_wait(
                confirm(title, Text(f"Move {safe_line(what)} from {', '.join(sorted(states))} to {target}. {why}"), f"Move to {target}")
            )
            if ok != "yes":
                return
        expect = targets[0].state if len(targets) == 1 else None
        while True:
            out = await self._write(svc.move, names, target, note=note, expect=expect, base=base if len(names) == 1 else None)
            if out.ok:
                self.clear_marks()  # type: ignore[attr-defined]
                return
            if not note:
                return
            # the note the user typed survives a failed write: shown again with a retry
            if out.code == "changed" and len(names) == 1:
                prompt = (
                    f"Not moved: {safe_line(names[0])} changed since you opened the menu (the detail pane shows "
                    f"the new version). Your note is kept: Enter moves it to {target} with the note, Esc cancels."
                )
                try:
                    _, base = await self._read_seen(names[0])
                except AtkError:
                    base = None
            else:
                prompt = f"Not moved: {safe_line(out.message)}\nYour note is kept: Enter retries the move to {target}, Esc discards it."
            retry = await self.app.push_screen_wait(
                TextFormScreen(f"Note for {target}", prompt, multiline=False, initial=note, allow_empty=True)
            )
            if retry is None:
                return
            note = retry.strip() or None

    @work(group="write", exit_on_error=False)
    async def action_move(self) -> None:
        if self._refuse_read_only():
            return
        targets = self._targets()
        if not targets:
            return
        # what the user sees when the menu opens: a note is written against it
        base = None
        if len(targets) == 1:
            try:
                _, base = await self._read_seen(targets[0].filename)
            except AtkError:
                base = None
        states = {t.state for t in targets}
        options = [s for s in STATES if not (len(states) == 1 and s in states)]
        title = f"Move {len(targets)} items" if len(targets) > 1 else f"Move {safe_line(targets[0].title)[:50]}"
        choice: MoveChoice | None = await self.app.push_screen_wait(MoveScreen(title, states, options))
        if choice is None:
            return
        await self._move_to(choice.to_state, choice.note, base=base)

    @work(group="write", exit_on_error=False)
    async def action_remove(self) -> None:
        if self._refuse_read_only():
            return
        targets = self._targets()
        if not targets:
            return
        names = [t.filename for t in targets]
        what = safe_line(names[0]) if len(names) == 1 else f"{len(names)} items"
        message = Text(f"Remove {what}? It stays recoverable from the store's git history (and z undoes it).")
        svc = self.app.service
        gone = set(names)
        for name in names:
            dependents = [d for d in await asyncio.to_thread(svc.dependents_of, name) if d not in gone]
            if dependents:
                shown = ", ".join(safe_line(d) for d in dependents[:5]) + (f" and {len(dependents) - 5} more" if len(dependents) > 5 else "")
                message.append(
                    f"\n\n⚠ {len(dependents)} item{'s depend' if len(dependents) != 1 else ' depends'} on {safe_line(name)}: {shown}. "
                    "They will be blocked by a missing dependency.",
                    style="bold yellow",
                )
        ok = await self.app.push_screen_wait(confirm("Remove?", message, "Remove", danger=True))
        if ok != "yes":
            return
        out = await self._write(self.app.service.rm, names)
        if out.ok:
            self.clear_marks()  # type: ignore[attr-defined]

    @work(group="write", exit_on_error=False)
    async def action_undo(self) -> None:
        if self._refuse_read_only() or not self.undo_stack:
            return
        commit, base, label = self.undo_stack[-1]
        # a session (base set) is named by its label, a single commit by its own subject
        out: Outcome = await asyncio.to_thread(self.app.service.undo, commit, base, label if base else None)
        if out.ok or out.code == "changed":
            # a refusal because the item changed since is final: let z reach older writes
            self.undo_stack.pop()
        self._report(out, undoable=False)

    # -- answer and comment ---------------------------------------------------------------

    def _answer_target(self) -> Item | None:
        item = self.current_item()  # type: ignore[attr-defined]
        view = self.view  # type: ignore[attr-defined]
        if (item is None or item.kind != "uwi") and view is not None and view.needs_you:
            item = view.items.get(view.needs_you[0])
        return item

    def _next_question(self, after: str) -> str | None:
        view = self.view  # type: ignore[attr-defined]
        if view is None:
            return None
        order = [n for n in view.needs_you if n != after]
        if after in view.needs_you:
            idx = view.needs_you.index(after)
            later = [n for n in view.needs_you[idx + 1 :]]
            return later[0] if later else (order[0] if order else None)
        return order[0] if order else None

    async def _read_seen(self, filename: str) -> tuple[Item, bytes]:
        """The item and the exact bytes it was read from: the `base` a write made from what
        the user sees is checked against (SPEC §11: nothing is written over a newer version)."""
        svc = self.app.service
        for _ in range(5):
            full = await asyncio.to_thread(svc.read, filename)
            base = await asyncio.to_thread(svc.read_bytes, filename)
            if blob_sha(base) == full.blob:
                return full, base
        # still changing under us: a base that matches nothing, so a write says "changed"
        return full, b""

    @work(group="write", exit_on_error=False)
    async def action_answer(self) -> None:
        if self._refuse_read_only():
            return
        item = self._answer_target()
        if item is None or item.kind != "uwi":
            self.app.notify("no question selected and none waiting", severity="warning")
            return
        full, base = await self._read_seen(item.filename)
        if full.state in TERMINAL:
            self.app.notify("terminal questions are read-only: return it to inbox first", severity="warning")
            return
        replace = False
        if full.answered or full.answer_partial:
            what = "partially answered" if full.answer_partial else "answered"
            ok = await self.app.push_screen_wait(confirm("Replace the answer?", f"This question is {what} already. Replace its answer?", "Replace"))
            if ok != "yes":
                return
            replace = True
        kept: AnswerResult | None = None
        notice: str | None = None
        while True:
            parsed = parse_questions(full.body)
            result: AnswerResult | None = await self.app.push_screen_wait(
                AnswerScreen(full, parsed, replacing=replace, kept=kept, notice=notice)
            )
            if result is None:
                return
            out = await self._submit_answer(
                full.filename, result.choices, result.text, replace=replace, partial=result.partial, base=base
            )
            if out.ok:
                return
            # nothing was written: the form comes back with the user's choices and words
            kept = result
            if out.code == "changed":
                try:
                    full, base = await self._read_seen(full.filename)
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

    async def _submit_answer(
        self,
        filename: str,
        choices: dict[int, str],
        text: str,
        *,
        replace: bool = False,
        partial: bool = False,
        base: bytes | None = None,
    ) -> Outcome:
        """Write the answer against `base`; on success the next unanswered question becomes
        the selection."""
        nxt = self._next_question(filename)
        out = await self._write(
            self.app.service.answer, filename, choices=choices, text=text, replace=replace, partial=partial, base=base
        )
        if out.ok and nxt:
            self._pending_select = nxt
        return out

    @work(group="write", exit_on_error=False)
    async def action_accept(self) -> None:
        """Answer with the recommended option of every question (post-approval: one key);
        with questions marked (Space), all of them after one confirmation, in one commit."""
        if self._refuse_read_only():
            return
        marked = self.marked()  # type: ignore[attr-defined]
        if marked:
            await self._accept_batch(marked)
            return
        item = self._answer_target()
        if item is None or item.kind != "uwi":
            return
        full, base = await self._read_seen(item.filename)
        if full.answered or full.answer_partial:
            what = "partially answered" if full.answer_partial else "already answered"
            self.app.notify(f"{what}: use a to change the answer", severity="warning")
            return
        parsed = parse_questions(full.body)
        choices = {q.number: q.recommendation for q in parsed.questions if q.recommendation}
        # a free-text question has nothing to accept: a blanket "approved" would answer
        # "what hours should we state?" with nonsense
        missing = [q.number for q in parsed.questions if not q.recommendation]
        if missing or not choices:
            which = f"question {missing[0]}" if missing and len(parsed.questions) > 1 else "this question"
            self.app.notify(f"{which} has no recommendation to accept: answer it with a", severity="warning")
            return
        await self._submit_answer(full.filename, choices, "", base=base)

    async def _accept_batch(self, names: list[str]) -> None:
        view = self.app.main.view
        items = [view.items[n] for n in names if view is not None and n in view.items]
        uwis = [i for i in items if i.kind == "uwi"]
        if not uwis:
            self.app.notify("none of the marked items is a question: mark questions (Space), then A", severity="warning")
            return
        listing = Text("Accept the recommended option of every question in:\n")
        for i in uwis:
            listing.append(f"  • {safe_line(i.title)[:70]}\n")
        if len(uwis) < len(items):
            listing.append(f"({len(items) - len(uwis)} marked AWI left out)\n", style="dim")
        listing.append("One commit for all of them.")
        ok = await self.app.push_screen_wait(confirm(f"Accept {len(uwis)} recommendations", listing, "Accept all"))
        if ok != "yes":
            return
        out = await self._write(self.app.service.accept_recommendations, [i.filename for i in uwis])
        if out.ok:
            self.action_clear_marks()  # type: ignore[attr-defined]

    @work(group="write", exit_on_error=False)
    async def action_comment(self) -> None:
        if self._refuse_read_only():
            return
        item = self.current_item()  # type: ignore[attr-defined]
        if item is None or item.kind != "awi":
            return
        svc = self.app.service
        full, base = await self._read_seen(item.filename)
        prompt = Text("Appended to the item's ## ユーザーコメント section.")
        text = ""
        while True:
            typed = await self.app.push_screen_wait(TextFormScreen(f"Comment on {safe_line(full.title)[:60]}", prompt, initial=text))
            if typed is None:
                return
            text = typed
            out = await self._write(svc.comment, full.filename, text, base=base)
            if out.ok:
                return
            # nothing was written: the form comes back with the text
            if out.code == "changed":
                try:
                    full, base = await self._read_seen(full.filename)
                except AtkError:
                    prompt = Text("Not saved: the item is gone. Your text is kept below (copy it), Esc closes.")
                    continue
                prompt = Text(
                    "Not saved: the item changed while you were writing (the detail pane shows the new version). "
                    "Your text is kept: Ctrl+S adds it to the new version, Esc discards it."
                )
            else:
                prompt = Text(f"Not saved: {safe_line(out.message)}\nYour text is kept: Ctrl+S retries, Esc discards it.")

    # -- set-aside push conflicts ----------------------------------------------------------

    @work(group="write", exit_on_error=False)
    async def action_conflicts(self) -> None:
        """List the commits `atk wi commit` set aside, show both versions, apply one."""
        svc = self.app.service
        conflicts = await asyncio.to_thread(svc.conflicts)
        if not conflicts:
            self.app.notify("no set-aside conflicts", timeout=3)
            return
        versions = {}
        for c in conflicts:
            versions[c.ref] = await asyncio.to_thread(svc.conflict_versions, c.ref)
        choice: Resolution | None = await self.app.push_screen_wait(ConflictsScreen(conflicts, versions))
        if choice is None or self._refuse_read_only():
            return
        await self._write(svc.resolve_conflict, choice.ref, choice.keep, undoable=False)

    # -- dependencies -----------------------------------------------------------------------

    @work(group="write", exit_on_error=False)
    async def action_dependencies(self) -> None:
        if self._refuse_read_only():
            return
        item = self.current_item()  # type: ignore[attr-defined]
        view = self.view  # type: ignore[attr-defined]
        if item is None or view is None:
            return
        if not self.check_action("dependencies", ()):  # the command palette does not ask first
            self.app.notify(f"{item.state} or defective items take no dependencies", severity="warning", markup=False)
            return
        deps = await self.app.push_screen_wait(DependenciesScreen(item, view))
        if deps is None:
            return
        await self._write(self.app.service.set_dependencies, item.filename, deps)

    def action_graph(self) -> None:
        item = self.current_item()  # type: ignore[attr-defined]
        self.app.push_screen(GraphScreen(item.filename if item is not None else None))

    # -- edit in $EDITOR ------------------------------------------------------------------

    @work(group="write", exit_on_error=False)
    async def action_edit(self) -> None:
        if self._refuse_read_only():
            return
        item = self.current_item()  # type: ignore[attr-defined]
        if item is None:
            return
        await self.edit_flow(item.filename)

    async def edit_flow(self, filename: str) -> None:
        """SPEC §10/§11: hold → editor → save/unhold, every branch; the person's text is never
        lost and never saved over a version they did not see."""
        app = self.app
        svc = app.service
        item = await asyncio.to_thread(svc.read, filename)
        if item.state in TERMINAL:
            app.notify(f"{item.state} items are read-only", severity="warning")
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
        if app.editor is None and not self._can_suspend():
            # a browser (textual-serve) cannot hand the terminal to $EDITOR: ask before
            # anything is held, and edit in the dashboard instead
            ok = await app.push_screen_wait(
                confirm(
                    "Edit here?",
                    "This session cannot hand the terminal over to $EDITOR (it runs in a browser). Edit the file in the dashboard instead?",
                    "Edit here",
                )
            )
            if ok != "yes":
                return
            in_app = True
        elif app.editor is None:
            argv = editor_command()
            if shutil.which(argv[0]) is None:  # said before anything is held
                app.report_error(str(EditorMissing(f"editor not found: {argv[0]!r} (set $VISUAL or $EDITOR)")))
                return
        auto_held = False
        app.pause_watch()
        base = await asyncio.to_thread(svc.head)
        depth = len(self.undo_stack)
        try:
            # a defective item cannot be moved (and no agent picks it up: it is blocked), so
            # it is repaired in place; any other inbox item is held first
            if item.state == "inbox" and not item.defects:
                out = await asyncio.to_thread(svc.hold, filename, expect="inbox")
                if not out.ok:
                    app.report_error(f"could not hold before editing: {out.message}")
                    return
                auto_held = True
                for w in out.warnings:
                    app.notify(w, severity="warning", markup=False)
                if out.pushed is False:
                    ok = await app.push_screen_wait(
                        confirm(
                            "Hold not pushed",
                            Text(
                                "The hold is committed here but not pushed: agents elsewhere may still take this item — edit anyway?"
                            ),
                            "Edit anyway",
                        )
                    )
                    if ok != "yes":
                        await self._unhold(filename, auto_held)
                        return
            state = "hold" if auto_held else item.state
            await self._edit_loop(filename, state, auto_held, in_app=in_app, resume=resume if isinstance(resume, tuple) else None)
            # hold + edit + unhold is one thing to undo
            head = await asyncio.to_thread(svc.head)
            del self.undo_stack[depth:]
            if head and base and head != base:
                edited = await asyncio.to_thread(svc.commits_touching, filename, base)
                if any(line.startswith("atk: edit ") for line in edited):
                    self.undo_stack.append((head, base, f"edit {filename}"))
        finally:
            app.resume_watch()
            app.reload()
            self.refresh_bindings()  # type: ignore[attr-defined]

    def _can_suspend(self) -> bool:
        """Whether `App.suspend` can hand the terminal to another program (not in a browser)."""
        check = getattr(self.app, "can_suspend", None)
        if callable(check):
            return bool(check())
        driver = getattr(self.app, "_driver", None)
        return bool(driver is not None and driver.can_suspend)

    # -- kept editor text -----------------------------------------------------------------

    def kept_scratches(self, filename: str | None = None) -> list[Path]:
        """Editor text kept from earlier sessions (of `filename`, or of any item), oldest first."""
        d = self.app.service.scratch_dir()
        if not d.is_dir():
            return []
        found = []
        for path in d.iterdir():
            name = scratch_item(path.name)
            if name is not None and (filename is None or name == filename):
                found.append(path)
        return sorted(found, key=lambda p: (p.stat().st_mtime, p.name))

    async def _offer_kept(self, filename: str) -> tuple[bytes, bytes | None, Path] | bool:
        """Offer text kept by an earlier session of `filename`: (its text, the version it was
        based on if known, its file) to resume from, True to start afresh, False to stop."""
        kept = self.kept_scratches(filename)
        if not kept:
            return True
        newest = kept[-1]
        more = f" (and {len(kept) - 1} older)" if len(kept) > 1 else ""
        choice = await self.app.push_screen_wait(
            ChoiceScreen(
                "Kept text",
                Text(
                    f"An earlier edit of this item was not saved; your text is kept in {self._shown_path(newest)}{more}.\n\n"
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
            self.app.notify("kept text discarded", timeout=3)
            return True
        if choice == "fresh":
            return True
        base = base_of(newest)
        return newest.read_bytes(), (base.read_bytes() if base.is_file() else None), newest

    def offer_kept_at_start(self) -> None:
        """At start: say which items have editor text kept from an unsaved edit."""
        names = sorted({scratch_item(p.name) or "" for p in self.kept_scratches()} - {""})
        if names:
            shown = ", ".join(safe_line(n) for n in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            self.app.notify(
                f"kept editor text from an unsaved edit: {shown}. Press e on the item to resume or discard it.",
                severity="warning",
                markup=False,
                timeout=15,
            )

    def _new_scratch(self, filename: str) -> Path:
        """A new file for this session's text: never one an earlier session kept."""
        d = self.app.service.scratch_dir()
        d.mkdir(exist_ok=True)
        stem = filename.removesuffix(".md")
        n = 1
        while True:
            path = d / f"{stem}~{n}.md"
            try:
                with open(path, "xb"):
                    return path
            except FileExistsError:
                n += 1

    # -- the edit session -----------------------------------------------------------------

    async def _edit_loop(
        self,
        filename: str,
        state: str,
        auto_held: bool,
        *,
        in_app: bool = False,
        resume: tuple[bytes, bytes | None, Path] | None = None,
    ) -> None:
        app = self.app
        svc = app.service
        original = await asyncio.to_thread(svc.read_bytes, filename)  # what the save must find
        mine = original
        resumed: Path | None = None  # the kept text resumed: gone once saved or discarded
        if resume is not None:
            kept_text, kept_base, resumed = resume
            mine = merge_texts(kept_base, original, kept_text)[0] if kept_base not in (None, original) else kept_text
        scratch: Path | None = None  # the in-app editor keeps the text in memory

        def keep() -> Path:
            nonlocal scratch
            if scratch is None:
                scratch = self._new_scratch(filename)
            scratch.write_bytes(mine)
            base_of(scratch).write_bytes(original)
            return scratch

        def drop(*, resolved: bool = True) -> None:
            """This session's text is not needed any more; `resolved`: nor the kept text it
            resumed (saved or discarded, not merely aborted)."""
            for path in (scratch, resumed if resolved else None):
                if path is not None:
                    path.unlink(missing_ok=True)
                    base_of(path).unlink(missing_ok=True)

        while True:
            if in_app:
                edited = await app.push_screen_wait(InAppEditorScreen(filename, mine.decode("utf-8", errors="replace")))
                code, new = (1, mine) if edited is None else (0, edited.encode("utf-8"))
            else:
                path = keep()
                try:
                    code = self._call_editor(path)
                except (EditorMissing, SuspendNotSupported) as exc:
                    # (a driver that said it could suspend and then could not: nothing edited)
                    app.report_error(str(exc) or "this session cannot hand the terminal to $EDITOR: nothing edited")
                    drop(resolved=False)
                    await self._unhold(filename, auto_held)
                    return
                new = path.read_bytes() if code == 0 else mine
            if code != 0:
                app.notify(f"editor exited with status {code}: nothing saved" if not in_app else "edit cancelled: nothing saved", severity="warning")
                drop(resolved=False)
                await self._unhold(filename, auto_held)
                return
            mine = new
            if new == original:
                app.notify("unchanged", timeout=2)
                drop()
                await self._unhold(filename, auto_held)
                return
            try:
                text = new.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is not None and has_merge_markers(text):
                ok = await app.push_screen_wait(
                    confirm("Conflict markers left", "Your text still has merge conflict markers (<<<<<<< … >>>>>>>). Save it like that?", "Save anyway")
                )
                if ok != "yes":
                    continue  # back to the editor with the text as it is
            out = (
                await asyncio.to_thread(svc.save_text, filename, text, expect=state, base=original)
                if text is not None
                else None
            )
            if out is not None and out.ok:
                self._report(out)
                drop()
                await self._unhold(filename, auto_held)
                return
            reason = out.message if out is not None else "not valid UTF-8 text"
            newer: bytes | None = None
            if out is not None and out.code == "changed":
                try:
                    newer = await asyncio.to_thread(svc.read_bytes, filename)
                except AtkError:
                    newer = None
            kept = self._shown_path(keep())
            if newer is not None:
                merged, conflicts = merge_texts(original, newer, mine)
                how = (
                    f"Edit again opens the newer version merged with your text ({conflicts} conflict{'s' if conflicts != 1 else ''} "
                    "marked <<<<<<< your text … >>>>>>> stored now); the save is then based on the newer version."
                    if conflicts
                    else "Edit again opens the newer version merged with your text; the save is then based on the newer version."
                )
                message = f"{reason}\n\nYour text is kept in {kept}.\n{how}\nThe item stays in {state} until you decide."
            else:
                message = f"{reason}\n\nYour text is kept in {kept}.\nThe item stays in {state} until you decide."
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
                    # never an overwrite: the next save must find the newer version, and the
                    # person starts from it with their text merged in
                    original, mine = newer, merged
                continue
            if choice == "discard":
                drop()
                app.notify("changes discarded", timeout=3)
                await self._unhold(filename, auto_held)
                return
            app.notify(f"your text is kept in {kept}; the item stays in {state}", severity="warning", markup=False, timeout=10)
            return

    def _shown_path(self, path: Path) -> str:
        """A path in the store as the status line names the store (tests give it a fixed label)."""
        try:
            rel = path.relative_to(self.app.service.root)
        except ValueError:
            return str(path)
        return f"{self.app.store_label.rstrip('/')}/{rel.as_posix()}"

    def _call_editor(self, path: Path) -> int:
        editor = self.app.editor
        if editor is not None:
            return editor(path)
        return run_real_editor(self.app, path)

    async def _unhold(self, filename: str, auto_held: bool) -> None:
        if not auto_held:
            return
        out = await asyncio.to_thread(self.app.service.unhold, filename, expect="hold")
        if not out.ok:
            self.app.report_error(f"could not unhold after editing: {out.message}")
        for w in out.warnings:
            self.app.notify(w, severity="warning", markup=False)

