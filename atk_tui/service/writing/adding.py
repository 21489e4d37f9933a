"""A new item (`Writes.add`, SPEC §5, §12): its flags and the reserved keys of a body's own
frontmatter merged and checked, a filename chosen inside the lock, one commit."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from atk_tui.domain.fields import BY_NAME, FIELDS
from atk_tui.domain.model import URGENCIES, Item, is_valid_filename
from atk_tui.domain.queues import queue_named, queue_of_kind
from atk_tui.domain.sources import normalise_source
from atk_tui.itemfile.items import body_frontmatter, item_title, new_file_text, parse_item
from atk_tui.service.types import Outcome
from atk_tui.store import AtkError, Transaction, item_path

if TYPE_CHECKING:
    from atk_tui.service.writing.writes import Writes


def add_item(
svc: Writes,
    *,
    kind: str | None,
    target_repo: str,
    body: str,
    source: str | None = None,
    plan_file: str | None = None,
    depends_on: Sequence[str] = (),
    urgency: str | None = None,
    target_commit: str | None = None,
    cooldown_until: datetime | None = None,
    state: str = "inbox",
    answer_by: datetime | None = None,
) -> Outcome:
    """A new item in inbox (in mq also `state="planning"` for a feedback item, SPEC §12);
    its queue follows from `kind` (awi/uwi: wi, feedback/tbd: mq; None: the kind the
    body's frontmatter names, else this queue's request).

    A body that starts with its own frontmatter is merged into the item's: each reserved
    key counts as its flag (validated the same way; a flag and a key that disagree are
    refused), every other key is kept exactly as written. `--source` takes a bare skill
    name (`domain.sources`); a plugin-qualified one is stored bare and said so."""
    notes: list[str] = []
    extra = ""
    kept: dict[str, Any] = {}
    try:
        fm = body_frontmatter(body)
    except ValueError as exc:
        return svc.core.refuse("add", f"the body starts with a frontmatter block, but {exc}", exit_code=2)
    try:
        if fm is not None:
            data, extra, body = fm
            given = _BodyKeys(data, svc._portable_plan)
            kind = given.merge("kind", kind, "--kind")
            target_repo = given.merge("target_repo", target_repo or None, "--target-repo") or ""
            source = given.merge("source", source, "--source", normalise=lambda v: normalise_source(v)[0])
            plan_file = given.merge("plan_file", plan_file, "--plan-file", normalise=svc._portable_plan)
            urgency = given.merge("urgency", urgency, "--urgency")
            target_commit = given.merge("target_commit", target_commit, "--target-commit")
            depends_on = given.merge_list("depends_on", list(depends_on), "--depends-on")
            cooldown_until = given.merge_time("cooldown_until", cooldown_until)
            answer_by = given.merge_time("answer_by", answer_by)
            given.refuse_atk_keys()
            kept = given.without_flags()
        kind = kind or svc.core.q.request_kind
        source, said = normalise_source(source)
        if said:
            notes.append(said)
    except AtkError as exc:
        return svc.core.refuse("add", exc.message, exit_code=exc.exit_code, code=exc.code)
    q = queue_of_kind(kind)
    try:
        if q is None or q.name not in svc.core.queues:
            kinds = [k for name in svc.core.queues for k in queue_named(name).kinds]
            raise AtkError(f"--kind must be {' or '.join(kinds)}, got {kind!r}", exit_code=2)
        if state not in q.add_states or (state != "inbox" and kind != q.request_kind):
            raise AtkError(
                f"--state takes {' or '.join(q.add_states)}"
                + (f" (planning: a {q.request_kind} item only)" if len(q.add_states) > 1 else "")
                + f", got {state!r}",
                exit_code=2,
            )
        missing = [flag for flag, absent in (
            ("--target-repo", not target_repo or not target_repo.strip()),
            ("--source", svc.core.actor == "agent" and not source),
        ) if absent]  # fmt: skip
        if len(missing) > 1:  # every missing required flag named at once (issue 39)
            raise AtkError(
                f"{' and '.join(missing)} are required: pass --target-repo OWNER/REPO (or `target_repo:` in the "
                "body file's frontmatter) and --source (wi-standards: the skill's name without its plugin, e.g. "
                "--source=add-awi or process-wi; `agent` when no skill files it)",
                exit_code=2,
            )
        if not target_repo or not target_repo.strip():
            raise AtkError("--target-repo is required", exit_code=2)
        if svc.core.actor == "agent" and not source:
            raise AtkError(
                "agents must say where an item comes from: pass --source (wi-standards: the skill's name "
                "without its plugin, e.g. --source=add-awi or process-wi; `agent` when no skill files it)",
                exit_code=2,
            )
        svc.core.guard_user_headings(body)
        if not body.strip():
            raise AtkError("the body is empty", exit_code=2)
        if urgency is not None and (kind != q.question_kind or urgency not in URGENCIES):
            raise AtkError(
                f"--urgency takes {', '.join(URGENCIES)} and goes with --kind {q.question_kind} only", exit_code=2
            )
        if plan_file and kind != q.request_kind:
            raise AtkError(f"--plan-file goes with --kind {q.request_kind} only", exit_code=2)
        if answer_by is not None and kind != q.question_kind:
            raise AtkError(f"--answer-by goes with --kind {q.question_kind} only", exit_code=2)
        if plan_file:
            plan_file = svc._portable_plan(plan_file)
        if kind == q.question_kind and urgency is None:
            from atk_tui.itemfile.questions import checkpoint_urgency

            urgency = checkpoint_urgency(body)  # SPEC §11: the checkpoint's Urgency goes into the frontmatter
        for dep in depends_on:
            if not is_valid_filename(dep):
                raise AtkError(f"bad filename in --depends-on: {dep!r}", exit_code=2)
            if not svc.core.store.exists_anywhere(dep):
                raise AtkError(f"--depends-on names no existing item (in wi or mq): {dep}", code="missing")
    except AtkError as exc:
        return svc.core.refuse("add", exc.message, exit_code=exc.exit_code, code=exc.code)
    now = svc.clock().astimezone(UTC).replace(microsecond=0)  # one time for name and `created`
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
        "answer_by": answer_by.astimezone(UTC).replace(microsecond=0) if answer_by is not None else None,
        **kept,
    }
    holder: list[str] = []

    def change(tx: Transaction) -> Item:
        name = new_filename(svc, item_title(body, kind, ""), body, now)
        holder.append(name)
        text = new_file_text(meta, body, extra)
        item = parse_item(name, state, text.encode(), queue=q.name)
        if item.defects:
            raise AtkError(f"the new item would be defective: {'; '.join(item.defects)}", code="invalid")
        tx.write(item_path(state, name, q.name), text.encode())
        return item

    # the filename is only known inside the lock; the subject is patched after
    out = svc.core.write_named("add", change, holder)
    if out.ok and notes:
        out.warnings = (*notes, *out.warnings)
    return out


def new_filename(svc: Writes, title: str | None, body: str, now: datetime | None = None) -> str:
    stamp = (now or svc.clock()).astimezone(UTC).strftime("%Y%m%d-%H%M%S")
    words = re.findall(r"[a-z0-9]+", (title or "").lower())
    slug = "-".join(words)[:60].strip("-")
    if not slug:
        import hashlib  # rarely needed: keep it off the start-up path

        slug = hashlib.sha1(body.encode()).hexdigest()[:8]
    name = f"{stamp}-{slug}.md"
    n = 2
    while svc.core.store.exists_anywhere(name) or svc.core.case_twins([name])[name]:  # no case twin either (issue 38)
        name = f"{stamp}-{slug}-{n}.md"
        n += 1
    return name


#: the reserved keys atk writes itself (adopt/reject, the time of creation): never from a body
_ATK_KEYS = tuple(f.name for f in FIELDS if f.by_atk)


class _BodyKeys:
    """The reserved keys of a body's own frontmatter, each taken as its flag would be."""

    def __init__(self, data: dict, portable) -> None:
        self.data = data
        self.portable = portable
        #: the keys a `merge…` took as their flag's (`without_flags` keeps the others)
        self.taken: set[str] = set()

    def _text(self, key: str) -> str | None:
        self.taken.add(key)
        v = self.data.get(key)
        if v is None:
            return None
        if BY_NAME[key].shape == "text" and isinstance(v, bool | int | float):
            v = str(v)
        if not isinstance(v, str) or not v.strip():
            raise AtkError(f"the body's frontmatter has {key}: {v!r}; it takes text, as its flag does", exit_code=2)
        return v

    def merge(self, key: str, flag_value: str | None, flag: str, normalise=None) -> str | None:
        value = self._text(key)
        if value is None:
            return flag_value
        if flag_value is None:
            return value
        same = flag_value == value
        if not same and normalise is not None:
            try:
                same = normalise(flag_value) == normalise(value)
            except AtkError:
                same = False
        if not same:
            raise AtkError(
                f"{flag} {flag_value!r} and the body's frontmatter {key}: {value!r} disagree; give the value once "
                "(as the flag or in the frontmatter)",
                exit_code=2,
            )
        return flag_value

    def merge_list(self, key: str, flag_value: list[str], flag: str) -> list[str]:
        self.taken.add(key)
        v = self.data.get(key)
        if v is None:
            return flag_value
        if not isinstance(v, list) or not all(isinstance(d, str) for d in v):
            raise AtkError(f"the body's frontmatter has {key}: {v!r}; it takes a list of item filenames", exit_code=2)
        if flag_value and set(flag_value) != set(v):
            raise AtkError(
                f"{flag} {', '.join(flag_value)} and the body's frontmatter {key}: [{', '.join(v)}] disagree; "
                "give the list once (as flags or in the frontmatter)",
                exit_code=2,
            )
        return flag_value or list(v)

    def merge_time(self, key: str, flag_value: datetime | None) -> datetime | None:
        from atk_tui.itemfile.items import validate_frontmatter

        self.taken.add(key)
        if self.data.get(key) is None:
            return flag_value
        valid, errors = validate_frontmatter({"kind": "awi", "target_repo": "x", key: self.data[key]})
        if errors:
            raise AtkError(f"the body's frontmatter: {errors[0]}", exit_code=2)
        got = valid[key]
        if flag_value is not None and flag_value != got:
            raise AtkError(f"{key} is given twice with different values", exit_code=2)
        return got

    def without_flags(self) -> dict[str, Any]:
        """The body's other reserved keys (those no `merge…` took: a field of the table no flag sets), validated as
        the field says and kept as written: a key of `domain.fields` is never dropped."""
        from atk_tui.itemfile.items import validate_frontmatter

        rest = {k: v for k, v in self.data.items() if k in BY_NAME and k not in self.taken and not BY_NAME[k].by_atk}
        if not rest:
            return {}
        got, errors = validate_frontmatter({"kind": "awi", "target_repo": "x", **rest})
        if errors:
            raise AtkError(f"the body's frontmatter: {errors[0]}", exit_code=2)
        return {k: got[k] for k in rest}

    def refuse_atk_keys(self) -> None:
        found = [k for k in _ATK_KEYS if k in self.data]
        if found:
            raise AtkError(
                f"the body's frontmatter has {found[0]}, which atk writes itself ({BY_NAME[found[0]].changed_by}); "
                "remove it from the body file",
                exit_code=2,
            )
