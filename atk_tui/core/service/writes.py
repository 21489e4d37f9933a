"""Writes: transitions (rules in core/ops.py), add, edit, dependencies, plans, edit sessions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from .. import sections
from ..config import PLAN_PREFIX, portable_plan_file
from ..items import find_title, new_file_text, parse_item, set_keys, with_frontmatter
from ..model import ACTIVE, TERMINAL, URGENCIES, Item, is_valid_filename
from ..ops import RULES, DependencyRules, Op, refusal, rules_for, transition_refusal
from ..queues import queue_named, queue_of_kind
from ..store import AtkError, StateConflict, Transaction, item_path
from .base import ServiceBase
from .types import SHA_RE, Outcome

if TYPE_CHECKING:
    from ..editing import EditDrift, EditTicket


class Writes(ServiceBase):
    """Writes that move or change items (one commit each, all-or-nothing)."""

    def begin_edit(self, filename: str, *, allow_unpushed: bool = False) -> EditTicket:
        """Open an edit session: hold the item unless it is held (or defective: repaired in
        place), refuse (AtkError code "unpushed", nothing left held) when the hold could not
        be pushed unless `allow_unpushed`. The ticket has the base bytes and a scratch file."""
        from ..editing import begin_edit

        return begin_edit(self, filename, allow_unpushed=allow_unpushed)

    def finish_edit(self, ticket: EditTicket, text: bytes) -> Outcome:
        """Save the session's text against its base, then unhold what it held (code
        "unchanged" when the text is the base; "changed" when the item changed meanwhile)."""
        from ..editing import finish_edit

        return finish_edit(self, ticket, text)

    def edit_drift(self, ticket: EditTicket) -> EditDrift | None:
        """What happened to the session's item meanwhile (left its hold, moved, removed,
        changed: `editing.EditDrift`), None when nothing did."""
        from ..editing import drift

        return drift(self, ticket)

    def retarget_edit(self, ticket: EditTicket) -> bytes:
        """Go on with a session whose item moved meanwhile: held again when it is in inbox,
        else edited where it is; the stored bytes the next save is based on."""
        from ..editing import retarget

        return retarget(self, ticket)

    def abandon_edit(self, ticket: EditTicket, *, keep_text: bool = False) -> Outcome:
        """End the session without saving: unhold what it held, drop (or keep) its text."""
        from ..editing import abandon_edit

        return abandon_edit(self, ticket, keep_text=keep_text)

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
    ) -> Outcome:
        """hold, unhold, start-processing, adopt, reject, return-to-inbox (and mq's
        start-editing, stop-editing, finish-planning): all or nothing, every file checked
        before any moves (a refusal names each bad file). `base` (one file only): the bytes
        the user saw; refused with code "changed" when the stored file differs (e.g. a note
        written against a question that changed)."""
        row = next((RULES[q].transitions[op] for q in self.queues if op in RULES[q].transitions), None)
        if row is None:
            return self._refuse(op, f"unknown transition {op!r}", files, 2)
        if not files:
            return self._refuse(op, "no item given", files, 2)
        if len(set(files)) != len(files):
            return self._refuse(op, "the same item is named twice", files, 2)
        if commit is not None and not SHA_RE.match(commit):
            return self._refuse(op, f"--commit needs a full 40-hex commit SHA, got {commit!r}", files, 2)
        if (note is not None or commit is not None) and not row.takes_note:
            return self._refuse(op, "--note and --commit go with adopt and reject only", files, 2)
        if commit is not None and not row.takes_commit:
            return self._refuse(op, "--commit goes with adopt only", files, 2)
        if from_state is not None and not any(from_state in queue_named(q).states for q in self.queues):
            return self._refuse(op, f"unknown state {from_state!r}", files, 2)
        if base is not None and len(files) != 1:
            return self._refuse(op, "a base goes with one item only", files, 2)

        def check(name: str) -> tuple[Item, str]:
            """The item and its target state, or AtkError saying why `op` cannot take it."""
            item = self._current(name)
            self._check_base(item, base)
            refused = transition_refusal(op, item, self.actor, from_state=from_state, expect=expect)
            if refused is not None:
                cls = StateConflict if refused.code == "state" else AtkError
                raise cls(refused.message, code=refused.code, exit_code=refused.exit_code)
            if row.answered_from and self.actor == "agent" and item.is_question:
                self._check_answer_author(item)
            return item, rules_for(item).transitions[op].target

        cleared: list[str] = []  # what leaving a terminal state removed, said in the result
        left: set[str] = set()  # ... and the terminal states it was left from

        def change(tx: Transaction) -> Item | None:
            last = None
            checked, errors = [], []
            for name in files:
                try:
                    checked.append(check(name))
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
                    self._write_text(tx, item, with_frontmatter(item.fm_block, item.fm_text or "", new_fm) + item.body)
                tx.move(src, item_path(target, name, item.queue))
                last = item
            return last

        out = self._write(op, list(files), change)
        if out.ok and cleared:
            out.message += f" (cleared {', '.join(cleared)}, left from {' and '.join(sorted(left))}; git history keeps it)"
        return out

    def finish_planning(self, files: Sequence[str], plan_file: str) -> Outcome:
        """`atk mq finish-planning F... --plan-file=P`: planning -> inbox, each with plan_file P
        (portable form), all or nothing (SPEC §12)."""
        if not plan_file or not plan_file.strip() or "\n" in plan_file:
            return self._refuse("finish-planning", "--plan-file needs a path", files, 2)
        try:
            portable = self._portable_plan(plan_file)
        except AtkError as exc:
            return self._refuse("finish-planning", exc.message, files, exc.exit_code, exc.code)
        return self.transition("finish-planning", files, plan_file=portable)

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
        found = self._find(files[0]) if files else []
        rules = RULES[found[0][0] if found else self.q.name]
        if to_state in rules.fenced:
            return self._refuse(
                "move", "an item enters planning only when it is added there (`atk mq add --state=planning`)", files, 2
            )
        op = rules.move_op(expect or "", to_state)
        if op is None:
            return self._refuse("move", f"unknown state {to_state!r}", files, 2)
        return self.transition(op, files, note=note if rules.transitions[op].takes_note else None, expect=expect, base=base)

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
                deps = [d for d in self.dependents_of(name) if d not in gone]
                if deps:
                    notes.append(
                        f"{name} was a dependency of {', '.join(deps)}: they are now blocked (missing dependency); "
                        f"update them with `atk {self.q.name} set-dependencies`"
                    )
            out.warnings = (*out.warnings, *notes)
        return out

    def _rm(self, files: list[str], *, expect: str | None = None) -> Outcome:

        def change(tx: Transaction) -> None:
            for name in files:
                item = self._current(name, allow_defective=True)
                self._raise_refusal(refusal(Op.RM, [item], self.actor, expect=expect))
                tx.delete(item_path(item.state, name, item.queue))

        return self._write("rm", files, change)

    def _new_filename(self, title: str | None, body: str, now: datetime | None = None) -> str:
        stamp = (now or self.clock()).astimezone(UTC).strftime("%Y%m%d-%H%M%S")
        words = re.findall(r"[a-z0-9]+", (title or "").lower())
        slug = "-".join(words)[:60].strip("-")
        if not slug:
            import hashlib  # rarely needed: keep it off the start-up path

            slug = hashlib.sha1(body.encode()).hexdigest()[:8]
        name = f"{stamp}-{slug}.md"
        n = 2
        while self.store.exists_anywhere(name):
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
        state: str = "inbox",
    ) -> Outcome:
        """A new item in inbox (in mq also `state="planning"` for a feedback item, SPEC §12);
        its queue follows from `kind` (awi/uwi: wi, feedback/tbd: mq)."""
        q = queue_of_kind(kind)
        try:
            if q is None or q.name not in self.queues:
                kinds = [k for name in self.queues for k in queue_named(name).kinds]
                raise AtkError(f"--kind must be {' or '.join(kinds)}, got {kind!r}", exit_code=2)
            if state not in q.add_states or (state != "inbox" and kind != q.request_kind):
                raise AtkError(
                    f"--state takes {' or '.join(q.add_states)}"
                    + (f" (planning: a {q.request_kind} item only)" if len(q.add_states) > 1 else "")
                    + f", got {state!r}",
                    exit_code=2,
                )
            if not target_repo or not target_repo.strip():
                raise AtkError("--target-repo is required", exit_code=2)
            if self.actor == "agent" and not source:
                raise AtkError("agents must say where an item comes from: pass --source (e.g. --source process-wi)", exit_code=2)
            self._guard_user_headings(body)
            if not body.strip():
                raise AtkError("the body is empty", exit_code=2)
            if urgency is not None and (kind != q.question_kind or urgency not in URGENCIES):
                raise AtkError(
                    f"--urgency takes {', '.join(URGENCIES)} and goes with --kind {q.question_kind} only", exit_code=2
                )
            if plan_file and kind != q.request_kind:
                raise AtkError(f"--plan-file goes with --kind {q.request_kind} only", exit_code=2)
            if plan_file:
                plan_file = self._portable_plan(plan_file)
            if kind == q.question_kind and urgency is None:
                from ..questions import checkpoint_urgency

                urgency = checkpoint_urgency(body)  # SPEC §11: the checkpoint's Urgency goes into the frontmatter
            for dep in depends_on:
                if not is_valid_filename(dep):
                    raise AtkError(f"bad filename in --depends-on: {dep!r}", exit_code=2)
                if not self.store.exists_anywhere(dep):
                    raise AtkError(f"--depends-on names no existing item (in wi or mq): {dep}", code="missing")
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
            item = parse_item(name, state, text.encode(), queue=q.name)
            if item.defects:
                raise AtkError(f"the new item would be defective: {'; '.join(item.defects)}", code="invalid")
            tx.write(item_path(state, name, q.name), text.encode())
            return item

        # the filename is only known inside the lock; the subject is patched after
        out = self._write_named("add", change, holder)
        return out

    def edit(self, filename: str, body: str) -> Outcome:
        """Replace an item's body (frontmatter untouched), keeping stored user-only sections."""

        def change(tx: Transaction) -> Item:
            item = self._current(filename, allow_defective=True)
            if item.state in TERMINAL:
                raise AtkError(f"{filename} is {item.state}: terminal items are read-only (return it to inbox first)", code="state")
            if item.fm_text is None:
                raise AtkError(
                    f"{filename} has no frontmatter; repair the whole file with "
                    f"`atk {item.queue} edit {filename} --whole-file FILE`",
                    code="invalid",
                )
            self._guard_user_headings(body)
            new_body = sections.keep_user_sections(item.body, body, is_uwi=item.is_question)
            if new_body and not new_body.endswith("\n"):
                new_body += "\n"
            self._guard_user_sections(item_path(item.state, filename, item.queue), item.text, item.fm_block + new_body)
            return self._save(tx, item, item.fm_block + new_body)

        return self._write("edit", [filename], change)

    def save_text(self, filename: str, text: str, *, expect: str | None = None, base: bytes | None = None) -> Outcome:
        """Replace the whole file (the $EDITOR flow). Refused, with the reason, when the new
        text is not a valid item, or (with `base`) when the file no longer holds `base`:
        somebody else changed it while it was being edited. Nothing is written then."""

        def change(tx: Transaction) -> Item:
            item = self._current(filename, allow_defective=True)
            if expect and item.state != expect:
                raise StateConflict(f"state conflict: {filename} is in {item.state}, not {expect}")
            if base is not None and self.store.read_bytes(item.state, filename, queue=item.queue) != base:
                raise StateConflict(
                    f"not saved: {filename} was changed by someone else while you edited it "
                    "(see its history); edit again to merge your text, or discard it",
                    code="changed",
                )
            if item.state in TERMINAL:
                raise AtkError(
                    f"{filename} is {item.state}: terminal items are read-only (return it to inbox first)", code="state"
                )
            self._guard_user_sections(item_path(item.state, filename, item.queue), item.text, text)
            return self._save(tx, item, text)

        return self._write("edit", [filename], change)

    def set_dependencies(self, filename: str, depends_on: Sequence[str]) -> Outcome:
        deps = list(dict.fromkeys(depends_on))
        for dep in deps:
            if not is_valid_filename(dep):
                return self._refuse("set-dependencies", f"bad filename in --depends-on: {dep!r}", [filename], 2)

        def change(tx: Transaction) -> Item:
            item = self._current(filename)
            self._raise_refusal(refusal(Op.SET_DEPENDENCIES, [item], self.actor))
            first = self._dependency_rules(filename, deps).first(deps)
            if first is not None:
                prefix = "refused: " if first.code == "cycle" else ""
                raise AtkError(prefix + first.message, code=first.code)
            new_fm = set_keys(item.fm_text or "", {"depends_on": deps or None})
            text = with_frontmatter(item.fm_block, item.fm_text or "", new_fm) + item.body
            return self._save(tx, item, text)

        return self._write("set-dependencies", [filename], change)

    def _dependency_rules(self, filename: str, deps: Sequence[str]) -> DependencyRules:
        """`ops.DependencyRules` over the active items; dependencies that exist anywhere count."""
        items, where, _ = self.load_items(ACTIVE)
        known = {d for d in deps if d in where or self.store.exists_anywhere(d)}
        return DependencyRules(filename, {n: i.depends_on for n, i in items.items()}, known)

    def would_cycle(self, filename: str, deps: Sequence[str]) -> tuple[str, ...] | None:
        """The cycle through `filename` that giving it `deps` would create, if any."""
        rules = self._dependency_rules(filename, deps)
        for dep in deps:
            cycle = rules.cycle_through(dep)
            if cycle is not None:
                return cycle
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
            self._raise_refusal(refusal(Op.CONVERT_TO_PLAN, [item], self.actor))
            if not plan_file.strip() or "\n" in plan_file:
                raise AtkError("--plan-file needs a path", exit_code=2)
            portable = self._portable_plan(plan_file)
            new_fm = set_keys(item.fm_text or "", {"plan_file": portable})
            return self._save(tx, item, with_frontmatter(item.fm_block, item.fm_text or "", new_fm) + item.body)

        return self._write("convert-to-plan", [filename], change)
