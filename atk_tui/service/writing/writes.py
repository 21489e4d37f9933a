"""Writes: transitions (rules in domain/ops.py), add, edit, dependencies, plans, edit sessions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from atk_tui.domain.fields import BY_NAME
from atk_tui.domain.model import PROCESSABLE, RESERVED_KEYS, TERMINAL, Item, is_valid_filename
from atk_tui.domain.ops import (
    RULES,
    DependencyRules,
    Op,
    refusal,
    rules_for,
    terminal_hint,
    transition_refusal,
)
from atk_tui.domain.queues import queue_named
from atk_tui.host.config import PLAN_PREFIX, portable_plan_file
from atk_tui.itemfile import sections
from atk_tui.itemfile.items import (
    body_frontmatter,
    merge_extra_keys,
    set_keys,
    with_frontmatter,
)
from atk_tui.service.core.writecore import WriteCore
from atk_tui.service.types import SHA_RE, Clock, Outcome, WriteReads
from atk_tui.service.writing.adding import add_item
from atk_tui.service.writing.answers import check_answer_author
from atk_tui.service.writing.conflicts import undo_commit
from atk_tui.store import AtkError, StateConflict, Transaction, item_path
from atk_tui.text.textsafe import safe_line

if TYPE_CHECKING:
    from atk_tui.service.writing.editing import EditDrift, EditTicket


def _editing():  # the module `editing`, loaded when an edit session first needs it
    from atk_tui.service.writing import editing

    return editing


class Writes:
    """Writes that move or change items (one commit each, all-or-nothing): a part of the service
    (`svc.writes`), on the write core, reading through the service's reads (`WriteReads`)."""

    def __init__(self, core: WriteCore, reads: WriteReads, clock: Clock) -> None:
        self.core, self.reads, self.clock = core, reads, clock

    # an edit session's steps: `editing.py` (their contract is said there)
    def begin_edit(self, filename: str, *, allow_unpushed: bool = False) -> EditTicket:
        return _editing().begin_edit(self, filename, allow_unpushed=allow_unpushed)

    def finish_edit(self, ticket: EditTicket, text: bytes) -> Outcome:
        return _editing().finish_edit(self, ticket, text)

    def edit_drift(self, ticket: EditTicket) -> EditDrift | None:
        return _editing().drift(self, ticket)

    def retarget_edit(self, ticket: EditTicket) -> bytes:
        return _editing().retarget(self, ticket)

    def abandon_edit(self, ticket: EditTicket, *, keep_text: bool = False) -> Outcome:
        return _editing().abandon_edit(self, ticket, keep_text=keep_text)

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
        plan_file: str | None = None,
        already_ok: bool = False,
        free: bool = False,
    ) -> Outcome:
        """hold, unhold, start-processing, adopt, reject, return-to-inbox (and mq's
        start-editing, stop-editing, finish-planning): all or nothing, every file checked
        before any moves (a refusal names each bad file). `already_ok`: an item already in the
        target state is refused with code "not-held" (the caller's no-op, `unhold`). `base`
        (one file only): the bytes the user saw; refused with code "changed" when the stored
        file differs (e.g. a note written against a question that changed)."""
        row = next((RULES[q].transitions[op] for q in self.core.queues if op in RULES[q].transitions), None)
        if row is None:
            return self.core.refuse(op, f"unknown transition {op!r}", files, 2)
        if not files:
            return self.core.refuse(op, "no item given", files, 2)
        if len(set(files)) != len(files):
            return self.core.refuse(op, "the same item is named twice", files, 2)
        if commit is not None and not SHA_RE.match(commit):
            return self.core.refuse(op, f"--commit needs a full 40-hex commit SHA, got {commit!r}", files, 2)
        if (note is not None or commit is not None) and not row.takes_note:
            return self.core.refuse(op, "--note and --commit go with adopt and reject only", files, 2)
        if commit is not None and not row.takes_commit:
            return self.core.refuse(op, "--commit goes with adopt only", files, 2)
        if from_state is not None and not any(from_state in queue_named(q).states for q in self.core.queues):
            return self.core.refuse(op, f"unknown state {from_state!r}", files, 2)
        if base is not None and len(files) != 1:
            return self.core.refuse(op, "a base goes with one item only", files, 2)

        def check(name: str, twins: list[str]) -> tuple[Item, str]:
            """The item and its target state, or AtkError saying why `op` cannot take it."""
            item = self.core.current(name, twins=twins)
            self.core.check_base(item, base)
            if already_ok and expect is None and item.state == rules_for(item).transitions[op].target:
                raise AtkError(f"{name} is in {item.state} already", code="not-held")  # the caller's no-op
            refused = transition_refusal(op, item, self.core.actor, from_state=from_state, expect=expect, free=free)
            if refused is not None:
                cls = StateConflict if refused.code == "state" else AtkError
                raise cls(refused.message, code=refused.code, exit_code=refused.exit_code)
            if row.answered_from and self.core.actor == "agent" and item.is_question:
                check_answer_author(self.core, item)
            if op == "start-processing":
                self._check_ready(item, files)  # judged from the files, inside the lock (issue 38)
            return item, rules_for(item).transitions[op].target

        cleared: list[str] = []  # what leaving a terminal state removed, said in the result
        left: set[str] = set()  # ... and the terminal states it was left from

        def change(tx: Transaction) -> Item | None:
            last = None
            checked, errors = [], []
            twins = self.core.case_twins(files)  # every folder listed once for the batch
            for name in files:
                try:
                    checked.append(check(name, twins[name]))
                except AtkError as exc:
                    if len(files) == 1:
                        raise
                    errors.append(exc)
            if errors:
                raise AtkError(
                    f"nothing moved: {len(errors)} of {len(files)} items cannot {op}:\n"
                    + "\n".join(f"- {e.message}" for e in errors),
                    exit_code=max(e.exit_code for e in errors),
                    code=errors[0].code or ("invalid" if errors[0].exit_code == 2 else ""),
                )
            for item, target in checked:
                name = item.filename
                src = item_path(item.state, name, item.queue)
                updates = {}
                if note is not None:
                    updates["note"] = note
                if commit is not None:
                    updates["commit"] = commit
                if plan_file is not None:
                    updates["plan_file"] = plan_file
                for key in rules_for(item).cleared_on_leaving(item.state, target):
                    value = getattr(item, key)
                    if value is not None and key not in updates:
                        updates[key] = None
                        cleared.append(f"{'the' if len(files) == 1 else name + chr(39) + 's'} {key} {value!r}")
                        left.add(item.state)
                if updates:
                    new_fm = set_keys(item.fm_text or "", updates)
                    self.core.write_text(tx, item, with_frontmatter(item.fm_block, item.fm_text or "", new_fm) + item.body)
                tx.move(src, item_path(target, name, item.queue))
                last = item
            return last

        out = self.core.write(op, list(files), change)
        if out.ok and cleared:
            out.message += f" (cleared {', '.join(cleared)}, left from {' and '.join(sorted(left))}; git history keeps it)"
        return out

    def finish_planning(self, files: Sequence[str], plan_file: str) -> Outcome:
        """`atk mq finish-planning F... --plan-file=P`: planning -> inbox, each with plan_file P
        (portable form), all or nothing (SPEC §12)."""
        if not plan_file or not plan_file.strip() or "\n" in plan_file:
            return self.core.refuse("finish-planning", "--plan-file needs a path", files, 2)
        try:
            portable = self._portable_plan(plan_file)
        except AtkError as exc:
            return self.core.refuse("finish-planning", exc.message, files, exc.exit_code, exc.code)
        return self.transition("finish-planning", files, plan_file=portable)

    def transition_command(
        self,
        op: str,
        files: Sequence[str],
        *,
        note: str | None = None,
        commit: str | None = None,
        from_state: str | None = None,
        plan_file: str | None = None,
    ) -> Outcome:
        """A transition as its command names it (`atk wi <op>`, one row of the table), with
        what the row takes: `unhold` of an item in inbox already is a no-op that says so,
        `finish-planning` writes its plan file in the portable form."""
        if op == "unhold" and len(files) == 1:
            return self.unhold(files[0])
        if op == "finish-planning":
            return self.finish_planning(files, plan_file or "")
        return self.transition(op, files, note=note, commit=commit, from_state=from_state)

    def unhold(self, filename: str, **kw) -> Outcome:
        """hold -> inbox. An item already in inbox is a no-op that says so (exit 0, nothing
        committed) and whether it is ready now: on the wi-standards path a UWI wait leaves
        the original in inbox, blocked by its question, so confirmation-and-uwi step 4
        (`atk wi unhold <original>`) finds it there."""
        out = self.transition("unhold", [filename], already_ok=True, **kw)
        if not out.ok and out.code == "not-held":  # judged inside the lock, after the pull
            return self._not_held(self.reads.show(filename))
        return out

    def _not_held(self, item: Item) -> Outcome:
        view = self.reads.queue(PROCESSABLE)
        j = view.judgements.get(item.filename)
        if j is None:
            now = "its readiness could not be judged"
        elif j.ready:
            now = "it is ready"
        else:
            reasons = "; ".join(r.message for r in j.reasons) or j.status
            now = f"it is {j.status}: {reasons}"
        return Outcome(
            True,
            "unhold",
            f"{item.filename} is already in {item.state} (not held): nothing to unhold, nothing committed; {now}",
            (item.filename,),
        )

    def _check_ready(self, item: Item, together: Sequence[str] = ()) -> None:
        """start-processing by an agent (issue 38): the item is judged again from its file and
        the files of everything it depends on (answers counting only from the store,
        `answers_rev`), inside the store lock; a blocked item (an open dependency, a
        cooldown, a cycle, a defect) is refused naming what blocks it. The ready list only
        proposes: a cache record could be forged to say ready. A dependency started in the
        same command (`together`: the agent skills' picker takes a plan's items at once) does
        not block."""
        if self.core.actor != "agent":
            return
        judged = self.reads.judge_from_files([item.filename])
        found = judged.get(item.filename)
        if found is None:
            return
        reasons = [r for r in found[1].reasons if not (r.ref and r.ref != item.filename and r.ref in together)]
        if reasons:
            why = "; ".join(safe_line(r.message) for r in reasons[:5]) + (" …" if len(reasons) > 5 else "")
            raise AtkError(
                f"refused: {item.filename} is blocked ({why}); start-processing takes ready work only "
                f"(`atk {item.queue} list --status ready`)",
                code="blocked",
            )

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
        if self.core.actor != "user":
            return self.core.refuse("move", "a free move is a user-only write; agents use the named transitions", files, 2)
        found = self.core.find(files[0]) if files else []
        rules = RULES[found[0][0] if found else self.core.q.name]
        if to_state in rules.fenced:
            return self.core.refuse(
                "move", "an item enters planning only when it is added there (`atk mq add --state=planning`)", files, 2
            )
        op = rules.move_op(expect or "", to_state)
        if op is None:
            return self.core.refuse("move", f"unknown state {to_state!r}", files, 2)
        return self.transition(
            op, files, note=note if rules.transitions[op].takes_note else None, expect=expect, base=base, free=True
        )

    def agent_may_move(self, item: Item, to_state: str) -> bool:
        """Whether an agent could make the user's move of `item` to `to_state` itself (its
        transition rules, SPEC §5/§11): the dashboard confirms the moves agents never make."""
        rules = rules_for(item)
        op = rules.move_op(item.state, to_state)
        if op is None or item.state == to_state or op not in rules.transitions:
            return False
        # return-to-inbox names the state it starts from (`--state`), as an agent would
        from_state = item.state if rules.transitions[op].named_from else None
        return item.state in rules.allowed_from(op, item, actor="agent", from_state=from_state)

    def rm(self, files: Sequence[str] | str, *, expect: str | None = None) -> Outcome:
        files = [files] if isinstance(files, str) else list(files)
        out = self._rm(files, expect=expect)
        if out.ok:
            gone = set(files)
            notes = []
            for name in files:
                deps = [d for d in self.reads.dependents_of(name) if d not in gone]
                if deps:
                    notes.append(
                        f"{name} was a dependency of {', '.join(deps)}: they are now blocked (missing dependency); "
                        f"update them with `atk {self.core.q.name} set-dependencies`"
                    )
            out.warnings = (*out.warnings, *notes)
        return out

    def _rm(self, files: list[str], *, expect: str | None = None) -> Outcome:

        def change(tx: Transaction) -> None:
            twins = self.core.case_twins(files)  # every folder listed once for the batch
            for done, name in enumerate(files):
                item = self.core.current(name, allow_defective=True, twins=[t for t in twins[name] if t not in files[:done]])
                self.core.raise_refusal(refusal(Op.RM, [item], self.core.actor, expect=expect))
                self.core.guard_removal(item)  # the person's answer or comment (issue 38)
                tx.delete(item_path(item.state, name, item.queue))

        return self.core.write("rm", files, change)

    #: a new item in inbox (or mq's planning), flags and a body's own frontmatter merged: its
    #: one definition, with its keywords, is `adding.add_item` (the method is that function)
    add = add_item

    def undo(self, commit: str, base: str | None = None, label: str | None = None) -> Outcome:
        """Revert the operation made by `commit` (or all from `base` to it): the dashboard's `z`.
        `label` names a multi-commit operation in the subject (`atk: undo <label>`)."""
        return undo_commit(self.core, commit, base, label)

    def edit(self, filename: str, body: str) -> Outcome:
        """Replace an item's body (frontmatter untouched), keeping stored user-only sections.
        A body that starts with its own frontmatter: its non-reserved keys are written into
        the item's (exactly as given; the others stay), its reserved keys must say what is
        stored (each has its own command, named in the refusal). An agent editing an inbox
        item in place is warned: wi-standards edits in the order hold → edit → unhold."""
        try:
            fm = body_frontmatter(body)
        except ValueError as exc:
            return self.core.refuse("edit", f"the body starts with a frontmatter block, but {exc}", [filename], 2)
        extra = ""
        if fm is not None:
            _data, extra, body = fm

        def change(tx: Transaction) -> Item:
            item = self.core.current(filename, allow_defective=True)
            if fm is not None:
                self._check_edit_keys(item, fm[0])
            if item.state in TERMINAL:
                raise AtkError(
                    f"{filename} is {item.state}: terminal items are read-only ({terminal_hint(item)})", code="state"
                )
            if item.fm_text is None:
                raise AtkError(
                    f"{filename} has no frontmatter; repair the whole file with "
                    f"`atk {item.queue} edit {filename} --whole-file FILE`",
                    code="invalid",
                )
            self.core.guard_user_headings(body)
            new_body = sections.keep_user_sections(item.body, body, is_uwi=item.is_question)
            if new_body and not new_body.endswith("\n"):
                new_body += "\n"
            head = item.fm_block
            if extra:
                head = with_frontmatter(item.fm_block, item.fm_text or "", merge_extra_keys(item.fm_text or "", extra))
            self.core.guard_user_sections(item_path(item.state, filename, item.queue), item.text, head + new_body)
            return self.core.save(tx, item, head + new_body)

        out = self.core.write("edit", [filename], change)
        if out.ok and self.core.actor == "agent" and out.item is not None and out.item.state == "inbox":
            cli = f"atk {out.item.queue}"
            out.warnings = (
                *out.warnings,
                f"{filename} was edited in inbox, where the resident process-loop may take it mid-edit; wi-standards edits "
                f"a submitted item in the order hold → edit → unhold (`{cli} hold {filename}`, `{cli} edit {filename} …`, "
                f"`{cli} unhold {filename}`)",
            )
        return out

    def _check_edit_keys(self, item: Item, data: dict) -> None:
        """An edit body's frontmatter may repeat a reserved key as stored, never change it."""
        stored = item.data or {}
        for key in RESERVED_KEYS:
            if key not in data:
                continue
            new, old = data[key], stored.get(key)
            if key == "plan_file" and isinstance(new, str) and isinstance(old, str):
                try:
                    same = self._portable_plan(new) == self._portable_plan(old)
                except AtkError:
                    same = False
            elif key == "depends_on":
                same = set(new or []) == set(old or []) if isinstance(new, list | type(None)) else False
            else:
                same = new == old or (new in (None, "") and old is None)
            if not same:
                raise AtkError(
                    f"the body's frontmatter says {key}: {new!r}, but {item.filename} has {old!r}; an edit does not "
                    f"change it ({BY_NAME[key].changed_by.format(q=item.queue)}): leave {key} out of the body file or give "
                    "the stored value",
                    exit_code=2,
                    code="invalid",
                )

    def save_text(self, filename: str, text: str, *, expect: str | None = None, base: bytes | None = None) -> Outcome:
        """Replace the whole file (the $EDITOR flow). Refused, with the reason, when the new
        text is not a valid item, or (with `base`) when the file no longer holds `base`:
        somebody else changed it while it was being edited. Nothing is written then."""

        def change(tx: Transaction) -> Item:
            item = self.core.current(filename, allow_defective=True)
            if expect and item.state != expect:
                raise StateConflict(f"state conflict: {filename} is in {item.state}, not {expect}")
            if base is not None and self.core.store.read_bytes(item.state, filename, queue=item.queue) != base:
                raise StateConflict(
                    f"not saved: {filename} was changed by someone else while you edited it "
                    "(see its history); edit again to merge your text, or discard it",
                    code="changed",
                )
            if item.state in TERMINAL:
                raise AtkError(
                    f"{filename} is {item.state}: terminal items are read-only ({terminal_hint(item)})", code="state"
                )
            self.core.guard_user_sections(item_path(item.state, filename, item.queue), item.text, text)
            return self.core.save(tx, item, text)

        return self.core.write("edit", [filename], change)

    def set_dependencies(
        self,
        filename: str,
        depends_on: Sequence[str] | None = (),
        *,
        add: Sequence[str] = (),
        remove: Sequence[str] = (),
    ) -> Outcome:
        """Replace `depends_on` with `depends_on` (empty: clear it); or, with `add`/`remove`,
        change the stored list inside the store lock (the others kept as they are: no lost
        update against another writer). The added ones are refused as a replacement's are
        (missing, self, cycle); adding one already there or removing one not there changes
        nothing (exit 0, nothing committed, said so)."""
        delta = bool(add or remove)
        if delta and depends_on:
            return self.core.refuse(
                "set-dependencies", "give --depends-on (replace) or --add/--remove (change), not both", [filename], 2
            )
        for flag, names in (("--depends-on", depends_on or ()), ("--add", add), ("--remove", remove)):
            for dep in names:
                if not dep.strip() and flag == "--depends-on":  # `--depends-on=` of an empty set
                    return self.core.refuse(
                        "set-dependencies",
                        f"--depends-on= names no file; to clear {filename}'s dependencies give no --depends-on "
                        f"(process-feedbacks: `set-dependencies {filename}` alone clears them)",
                        [filename], 2,
                    )  # fmt: skip
                if not is_valid_filename(dep):
                    return self.core.refuse("set-dependencies", f"bad filename in {flag}: {dep!r}", [filename], 2)
        if delta:
            return self._change_dependencies(filename, list(dict.fromkeys(add)), list(dict.fromkeys(remove)))
        deps = list(dict.fromkeys(depends_on or ()))
        dropped: list[str] = []

        def change(tx: Transaction) -> Item:
            item = self.core.current(filename)
            self.core.raise_refusal(refusal(Op.SET_DEPENDENCIES, [item], self.core.actor))
            if deps:  # a replace that adds and drops (clearing with no --depends-on is meant)
                dropped[:] = [d for d in item.depends_on if d not in deps]
            first = self._dependency_rules(filename, deps).first(deps)
            if first is not None:
                prefix = "refused: " if first.code == "cycle" else ""
                raise AtkError(prefix + first.message, code=first.code)
            if list(item.depends_on) == deps:  # process-feedbacks makes each item's set equal, every run
                raise AtkError("nothing to change", code="unchanged")
            new_fm = set_keys(item.fm_text or "", {"depends_on": deps or None})
            text = with_frontmatter(item.fm_block, item.fm_text or "", new_fm) + item.body
            return self.core.save(tx, item, text)

        out = self.core.write("set-dependencies", [filename], change)
        if not out.ok and out.code == "unchanged":
            said = f"depends on exactly [{', '.join(deps)}] already" if deps else "has no dependencies already"
            return Outcome(True, "set-dependencies", f"{filename} {said}: nothing to change, nothing committed", (filename,))
        if out.ok and dropped:
            # issue 39: --depends-on replaces the list; wi-standards keeps the earlier ones
            back = " ".join(f"--add {d}" for d in dropped)
            out = replace(out, warnings=(*out.warnings, (
                f"--depends-on replaced the whole list and dropped {len(dropped)} earlier "
                f"dependenc{'ies' if len(dropped) != 1 else 'y'} of {filename}: {', '.join(dropped)}; to add one and keep "
                f"the others use `atk {self.core.q.name} set-dependencies {filename} --add FILENAME` (to put them back: "
                f"`atk {self.core.q.name} set-dependencies {filename} {back}`)"
            )))  # fmt: skip
        return out

    def _change_dependencies(self, filename: str, add: list[str], remove: list[str]) -> Outcome:
        both = [d for d in add if d in remove]
        if both:
            return self.core.refuse("set-dependencies", f"{both[0]} is both added and removed", [filename], 2)
        said: list[str] = []

        def change(tx: Transaction) -> Item:
            item = self.core.current(filename)
            self.core.raise_refusal(refusal(Op.SET_DEPENDENCIES, [item], self.core.actor))
            old = list(item.depends_on)
            new_adds = [d for d in add if d not in old]
            first = self._dependency_rules(filename, new_adds).first(new_adds)
            if first is not None:
                prefix = "refused: " if first.code == "cycle" else ""
                raise AtkError(prefix + first.message, code=first.code)
            said.extend(f"{filename} already depends on {d}" for d in add if d in old)
            said.extend(f"{filename} does not depend on {d}" for d in remove if d not in old)
            deps = [d for d in old if d not in remove] + new_adds
            if deps == old:
                raise AtkError("nothing to change", code="unchanged")
            new_fm = set_keys(item.fm_text or "", {"depends_on": deps or None})
            return self.core.save(tx, item, with_frontmatter(item.fm_block, item.fm_text or "", new_fm) + item.body)

        out = self.core.write("set-dependencies", [filename], change)
        if not out.ok and out.code == "unchanged":
            current = self.reads.show(filename).depends_on
            return Outcome(
                True, "set-dependencies",
                f"{'; '.join(said)}: nothing to change, nothing committed (depends_on: [{', '.join(current)}])",
                (filename,),
            )  # fmt: skip
        if out.ok and said:
            out.message += f" ({'; '.join(said)})"
        return out

    def _dependency_rules(self, filename: str, deps: Sequence[str]) -> DependencyRules:
        """`ops.DependencyRules` over what `deps` lead to, read from the files (never a cache
        record: a forged one could hide a cycle); dependencies that exist anywhere count."""
        items = self.reads.items_from_files(deps, committed_answers=False)
        known = {d for d in deps if d in items or self.core.store.exists_anywhere(d)}
        return DependencyRules(filename, {n: i.depends_on for n, i in items.items()}, known)

    def _portable_plan(self, plan_file: str) -> str:
        portable = portable_plan_file(self.core.root, plan_file)
        if portable is None:
            raise AtkError(
                f"--plan-file {plan_file!r} is outside the store ({self.core.root}); move the plan into the store "
                f"first (`atk plans commit PATH`, or put it under {self.core.root}/plans/YYYY/MM/) and pass "
                f"'{PLAN_PREFIX}/plans/YYYY/MM/<name>.md'",
                exit_code=2,
                code="invalid",
            )
        return portable

    def convert_to_plan(self, filename: str, plan_file: str) -> Outcome:
        def change(tx: Transaction) -> Item:
            item = self.core.current(filename)
            self.core.raise_refusal(refusal(Op.CONVERT_TO_PLAN, [item], self.core.actor))
            if not plan_file.strip() or "\n" in plan_file:
                raise AtkError("--plan-file needs a path", exit_code=2)
            portable = self._portable_plan(plan_file)
            new_fm = set_keys(item.fm_text or "", {"plan_file": portable})
            return self.core.save(tx, item, with_frontmatter(item.fm_block, item.fm_text or "", new_fm) + item.body)

        return self.core.write("convert-to-plan", [filename], change)
