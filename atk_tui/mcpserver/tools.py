"""The tools of `atk mcp`: the agent verbs of both queues, named after the CLI's (`wi_hold` is
`atk wi hold`), each calling the service as the CLI's command does (`cli.commands`,
`cli.reports`), with the CLI's rules and messages: the service says them (`Outcome.message`,
`AtkError`), `service.records` says a write's one line and builds the `--json` records. A
refusal raises `Refused` (the message, the CLI's exit code, the refusal code); the server turns it
into a tool error. User-only writes (answer, comment) are not tools at all.

No MCP SDK here: the server (`server.py`) wires these to it; `atk mcp --list-tools` and the docs
read the list without it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atk_tui.domain.errors import AtkError
from atk_tui.domain.ops import MQ as MQ_RULES
from atk_tui.domain.ops import WI as WI_RULES
from atk_tui.domain.queues import MQ, QUEUES, WI, Queue
from atk_tui.mcpserver import schemas as S
from atk_tui.mcpserver.ask import QUESTION_SCHEMA, render
from atk_tui.service import records
from atk_tui.service.reading.listing import states_for

RULES = {"wi": WI_RULES, "mq": MQ_RULES}


class Refused(Exception):
    """A refusal, as the CLI says it: its message, its exit code, its refusal code."""

    def __init__(self, message: str, exit_code: int = 1, code: str = "", warnings: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code or 1
        self.code = code
        self.warnings = warnings


@dataclass
class Agent:
    """Who the server acts as, and on which store: always the agent actor, named by
    `ATK_AGENT_ID` (`--agent-id`), recording `source` on what it adds."""

    root: Path
    source: str
    pull: bool = True
    push: bool = True

    def service(self, queue: str | None, only_repo: str | None = None) -> Any:
        """A service for one call (as `atk` makes one per command)."""
        from atk_tui.service import Service

        return Service(self.root, actor="agent", queue=queue, pull=self.pull, push=self.push, only_repo=only_repo)

    def freshen(self) -> str | None:
        """Before a read, as the CLI's reads do (SPEC §15): the remote's commits brought in at
        most once every few seconds; why the copy may be stale, or None."""
        if not self.pull:
            return None
        from atk_tui.service.reading.freshen import freshen

        return freshen(self.root).stale


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    schema: dict[str, Any]
    run: Callable[[Agent, dict[str, Any]], dict[str, Any]] | None = None
    read_only: bool = False
    #: `wait`: run by the server itself (it sleeps between looks and says its progress)
    waits: bool = False
    annotations: dict[str, Any] = field(default_factory=dict)


# -- what a write returns -------------------------------------------------------------------------


def refused_by(exc: AtkError) -> Refused:
    return Refused(exc.message, getattr(exc, "exit_code", 1), getattr(exc, "code", ""))


def written(svc: Any, out: Any, *, shown: bool = True) -> dict[str, Any]:
    """A write's result: the CLI's one line (`message`), the lines it says beside it (`notes`:
    warnings and notes), the commit and whether it was pushed, and the records of the items
    it wrote as `show --json` gives them. A refusal raises `Refused`."""
    if not out.ok:
        raise Refused(out.message, out.exit_code or 1, out.code, tuple(out.warnings))
    line, beside = records.written_line(out, svc)
    d: dict[str, Any] = {"message": line, "notes": beside, "files": list(getattr(out, "files", ())),
                         "commit": out.commit, "pushed": out.pushed}  # fmt: skip
    if shown and d["files"] and out.op != "rm":
        items = [svc.show(f) for f in d["files"]]  # as stored now (a move: in its new state)
        d["records"] = records.shown_records(svc, items)
    return d


def _names(svc: Any, given: list[str], queues: Any = "own") -> list[str]:
    from atk_tui.service.resolve import resolve_names

    return resolve_names(svc.store, list(given), svc.queues if queues == "own" else queues)


def _name(svc: Any, given: str, queues: Any = "own") -> str:
    from atk_tui.service.resolve import resolve_name

    return resolve_name(svc.store, given, svc.queues if queues == "own" else queues)


# -- the tools of one queue -----------------------------------------------------------------------


def queue_tools(q: Queue) -> list[Tool]:
    rules = RULES[q.name]
    question = "TBD" if q.name == "mq" else "UWI"
    request = "feedback item" if q.name == "mq" else "AWI"
    a_request = "a feedback item" if q.name == "mq" else "an AWI"
    p = q.name

    def list_(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
        stale = agent.freshen()
        svc = agent.service(p)
        status = a.get("status") or "active"
        items, view = svc.list(
            states_for(status, q) or [], kind=a.get("kind"), target_repo=a.get("target_repo"), text=a.get("text")
        )
        if status in ("ready", "blocked"):
            want = status == "ready"
            items = [i for i in items if (j := view.judgements.get(i.filename)) is not None and j.ready == want]
        if a.get("count"):
            return {"count": len(items)}
        offset, limit = a.get("offset") or 0, a.get("limit")
        items = items[offset:] if limit is None else items[offset : offset + limit]
        held = svc.held_by(items)
        out = []
        for i in items:
            d = records.item_json(i, view.judgements.get(i.filename), view.blocks.get(i.filename), held.get(i.filename))
            if stale:
                d["stale"] = stale
            out.append(d)
        return {"records": out, "count": len(out)}

    def show(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
        stale = agent.freshen()
        svc = agent.service(p)
        items = [svc.show(n) for n in _names(svc, a["filenames"])]
        svc.answers.note_shown(items)
        return {"records": records.shown_records(svc, items, stale)}

    def add(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
        svc = agent.service(p)
        kw: dict[str, Any] = {k: a[k] for k in add_keys if a.get(k) is not None}
        if kw.get("depends_on"):
            kw["depends_on"] = _names(svc, kw["depends_on"], None)  # either queue
        if "cooldown_until" in kw:
            from atk_tui.service.writing.itemmeta import parse_until

            kw["cooldown_until"] = parse_until(kw["cooldown_until"], svc.clock(), future=True)
        if "answer_by" in kw:
            from atk_tui.service.writing.itemmeta import parse_answer_by

            kw["answer_by"] = parse_answer_by(kw["answer_by"], svc.clock())
        kw.setdefault("target_repo", "")
        out = svc.writes.add(kind=a.get("kind"), body=a["body"], source=agent.source, state=a.get("state") or "inbox", **kw)
        if out.ok and out.item is not None:  # the item is written: what the dashboard would warn about
            out.warnings = (*out.warnings, *svc.item_warnings(out.item))
        return written(svc, out)

    def edit(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
        """As `atk wi edit F [--body-file B] [--plan-file P]`: the plan file through
        convert-to-plan (one place normalises it), then the body (a second commit)."""
        svc = agent.service(p)
        name, body, plan = _name(svc, a["filename"]), a.get("body"), a.get("plan_file")
        if body is None and plan is None:
            raise Refused("no body: give body, plan_file or both", 2, "invalid")
        if plan is None:
            return written(svc, svc.writes.edit(name, body))
        from atk_tui.host.config import portable_plan_file

        same = svc.show(name).plan_file in (plan, portable_plan_file(svc.root, plan))
        if body is not None and same:
            return written(svc, svc.writes.edit(name, body))
        first = written(svc, svc.writes.convert_to_plan(name, plan), shown=body is None)
        if body is None:
            return first
        d = written(svc, svc.writes.edit(name, body))
        d["notes"] = [first["message"], *first["notes"], *d["notes"]]
        return d

    def transition(op: str) -> Callable[[Agent, dict[str, Any]], dict[str, Any]]:
        def run(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
            svc = agent.service(p)
            files = _names(svc, a["filenames"]) if "filenames" in a else [_name(svc, a["filename"])]
            out = svc.writes.transition_command(op, files, note=a.get("note"), commit=a.get("commit"),
                                         from_state=a.get("state"), plan_file=a.get("plan_file"))  # fmt: skip
            return written(svc, out)

        return run

    def rm(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
        svc = agent.service(p)
        return written(svc, svc.writes.rm(_name(svc, a["filename"])))

    def set_dependencies(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
        svc = agent.service(p)
        name = _name(svc, a["filename"])
        replace = _names(svc, a.get("depends_on") or [], None) if a.get("depends_on") else []
        add_ = _names(svc, a["add"], None) if a.get("add") else []
        remove = []
        for given in a.get("remove") or []:  # one to remove may be gone already: then as given
            try:
                remove.append(_name(svc, given, None))
            except AtkError:
                remove.append(given if given.endswith(".md") else given + ".md")
        return written(svc, svc.writes.set_dependencies(name, replace, add=add_, remove=remove))

    def convert_to_plan(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
        svc = agent.service(p)
        return written(svc, svc.writes.convert_to_plan(_name(svc, a["filename"]), a["plan_file"]))

    def set_cooldown(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
        from atk_tui.service.writing.itemmeta import parse_until, set_cooldown

        svc = agent.service(p)
        name = _name(svc, a["filename"])
        if bool(a.get("clear")) == bool(a.get("until")):
            raise Refused("set-cooldown takes one of until (a time or a duration) or clear", 2, "invalid")
        until = None if a.get("clear") else parse_until(a["until"], svc.clock(), future=True)
        return written(svc, set_cooldown(svc, name, until))

    def set_urgency(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
        from atk_tui.service.writing.itemmeta import set_urgency

        svc = agent.service(p)
        return written(svc, set_urgency(svc, _name(svc, a["filename"]), a["level"]))

    from atk_tui.service.writing.writes import Writes

    add_keys = S.add_fields(Writes.add)
    add_props: dict[str, Any] = {
        "body": {"type": "string", "minLength": 1,
                 "description": f"the item's Markdown body, its title first (`# …`); a {question}'s in the question "
                                "format (or use `ask`). It may start with its own frontmatter"},
        "kind": S.field_schema("kind", q),
        **{k: S.field_schema(k, q) for k in add_keys},
    }  # fmt: skip
    if len(q.add_states) > 1:
        add_props["state"] = {"type": "string", "enum": list(q.add_states), "default": "inbox",
                              "description": f"where the new {request} starts (planning: its plan is being written)"}  # fmt: skip
    out: list[Tool] = [
        Tool(
            f"{p}_list",
            f"list the {p} queue's items as `atk {p} list --json` records (status: active by default, "
            "processable, ready, blocked, all, or a state; kind; target_repo; text search; offset/limit; count)",
            S.obj(
                {
                    "status": {"type": "string", "enum": S.statuses(q), "default": "active"},
                    "kind": S.field_schema("kind", q),
                    "target_repo": S.field_schema("target_repo", q)
                    | {"description": "only items whose target_repo is this"},
                    "text": {
                        "type": "string",
                        "description": "only items with this text in filename, title, target repo or body",
                    },
                    "offset": {"type": "integer", "minimum": 0},
                    "limit": {"type": "integer", "minimum": 1},
                    "count": {"type": "boolean", "description": "only how many there are"},
                }
            ),
            list_,
            read_only=True,
        ),
        Tool(
            f"{p}_show",
            f"items with their bodies, as `atk {p} show --json`",
            S.obj({"filenames": S.filenames()}, ("filenames",)),
            show,
            read_only=True,
        ),
        Tool(
            f"{p}_add",
            f"add {a_request} (plan-type with plan_file) or a {question} to inbox, source as the server's "
            f"--source; returns the saved item's record",
            S.obj(add_props, ("body", "target_repo")),
            add,
        ),
        Tool(
            f"{p}_edit",
            "replace an item's body (the user-only sections are kept as stored) and/or set its plan file",
            S.obj(
                {
                    "filename": S.filename(),
                    "body": {"type": "string", "minLength": 1},
                    "plan_file": S.field_schema("plan_file", q),
                },
                ("filename",),
            ),
            edit,
        ),
    ]
    for op, row in rules.transitions.items():
        if row.command:
            out.append(Tool(f"{p}_{op.replace('-', '_')}", S.transition_summary(row, question),
                            S.transition_schema(row, q), transition(op)))  # fmt: skip
    deps = S.field_schema("depends_on", q)
    out += [
        Tool(
            f"{p}_rm",
            f"remove an item in {' or '.join(sorted(rules.removable))} (kept in git history)",
            S.obj({"filename": S.filename()}, ("filename",)),
            rm,
        ),
        Tool(
            f"{p}_set_dependencies",
            "replace depends_on with depends_on (an empty list clears it), or change it with add/remove "
            "(the others kept, atomically)",
            S.obj(
                {
                    "filename": S.filename(),
                    "depends_on": deps | {"description": "replace: the whole new list"},
                    "add": deps | {"description": "add these, keeping the others"},
                    "remove": deps | {"description": "remove these, keeping the others"},
                },
                ("filename",),
            ),
            set_dependencies,
        ),
        Tool(
            f"{p}_convert_to_plan",
            f"set plan_file on {a_request}",
            S.obj({"filename": S.filename(), "plan_file": S.field_schema("plan_file", q)}, ("filename", "plan_file")),
            convert_to_plan,
        ),
        Tool(
            f"{p}_set_cooldown",
            "set (until) or clear cooldown_until (time-based waits only)",
            S.obj(
                {
                    "filename": S.filename(),
                    "until": S.field_schema("cooldown_until", q),
                    "clear": {"type": "boolean", "description": "remove cooldown_until"},
                },
                ("filename",),
            ),
            set_cooldown,
        ),
        Tool(
            f"{p}_set_urgency",
            f"set a {question}'s urgency",
            S.obj({"filename": S.filename(), "level": S.field_schema("urgency", q)}, ("filename", "level")),
            set_urgency,
        ),
    ]
    return out


# -- the tools of neither queue -------------------------------------------------------------------


def notify(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
    from atk_tui.service import notices

    svc = agent.service(None)
    return written(svc, notices.notify(svc, a["message"], source=agent.source), shown=False)


def plans_commit(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
    from atk_tui.host.config import plans_root
    from atk_tui.service.writing.plans import commit_plans

    svc = agent.service(None)
    out = commit_plans(svc, list(a["paths"]), plans_root(a.get("plans_root")))
    d = written(svc, out, shown=False)
    d["stored"] = list(out.stored)
    return d


def ask(agent: Agent, a: dict[str, Any]) -> dict[str, Any]:
    """A question filed from structured arguments (`ask.render`), then, with `dependent`, added
    to that item's dependencies (its others kept: `set-dependencies --add`)."""
    q = MQ if a.get("queue") == "mq" else WI
    svc = agent.service(q.name)
    dependent = None
    if a.get("dependent"):
        both = agent.service(None)
        dependent = _name(both, a["dependent"], None)
        both.show(dependent)  # a missing one is refused before anything is written
    body = render(a["title"], a.get("context") or "", list(a["questions"]))
    kw: dict[str, Any] = {}
    if a.get("answer_by"):
        from atk_tui.service.writing.itemmeta import parse_answer_by

        kw["answer_by"] = parse_answer_by(a["answer_by"], svc.clock())
    out = svc.writes.add(kind=q.question_kind, target_repo=a["target_repo"], body=body, source=agent.source,
                  urgency=a.get("urgency"), **kw)  # fmt: skip
    d = written(svc, out)
    d["filename"] = out.files[0]
    if dependent is not None:
        both = agent.service(None)
        dep = both.writes.set_dependencies(dependent, (), add=[out.files[0]])
        if not dep.ok:
            raise Refused(f"{out.files[0]} was filed ({d['message']}), but {dependent} was not changed: {dep.message}",
                          dep.exit_code or 1, dep.code, tuple(dep.warnings))  # fmt: skip
        line, beside = records.written_line(dep, both)
        d["notes"] += [line, *beside]
    return d


#: `wait`'s bounds: below MCP clients' per-call limits (SPEC §17)
WAIT_DEFAULT, WAIT_MAX = 120, 240


def wait_names(agent: Agent, given: list[str]) -> tuple[Any, list[str]]:
    """The questions `wait` waits for (either queue), each checked to be one as `atk wi wait`
    checks it."""
    svc = agent.service(None)
    names = _names(svc, given, None)
    for name in names:
        item = svc.show(name)
        if not item.is_question:
            noun, q = ("TBD", "mq") if item.queue == "mq" else ("UWI", "wi")
            raise Refused(f"{name} is not a {noun}: only a question is answered (`atk {q} show {name}`)", 2, "invalid")
    return svc, names


def wait_look(agent: Agent, svc: Any, names: list[str]) -> tuple[str | None, list[str]]:
    """One look, as `atk wi wait` looks every second: the remote's commits brought in (window
    0), then which questions are still open."""
    stale = None
    if agent.pull:
        from atk_tui.service.reading.freshen import freshen

        stale = freshen(agent.root, window=0).stale
    return stale, [n for n in names if not records.answered(svc.show(n), svc)]


def wait_answers(svc: Any, names: list[str], stale: str | None) -> list[dict[str, Any]]:
    return records.shown_records(svc, [svc.show(n) for n in names], stale)


def shared_tools() -> list[Tool]:
    return [
        Tool(
            "ask",
            "file a question for the person (a UWI, or a TBD with queue mq) from structured arguments, in the "
            "question format (one or more questions, options with descriptions, a recommendation); optionally add it "
            "to an item's dependencies (the others kept); returns its filename. Then call wait",
            S.obj(
                {
                    "target_repo": S.field_schema("target_repo", WI),
                    "title": {
                        "type": "string",
                        "minLength": 1,
                        "description": "the item's title, the decision asked for",
                    },
                    "context": {"type": "string", "description": "what the person needs to know to decide (## 背景)"},
                    "questions": {"type": "array", "minItems": 1, "items": QUESTION_SCHEMA},
                    "urgency": S.field_schema("urgency", WI),
                    "answer_by": S.field_schema("answer_by", WI),
                    "dependent": {
                        "type": "string",
                        "description": "an item that waits for this question: the question "
                        f"is added to its depends_on, its other dependencies kept ({S.FILENAME_HELP})",
                    },
                    "queue": {"type": "string", "enum": [q.name for q in QUEUES], "default": "wi"},
                },
                ("target_repo", "title", "questions"),
            ),
            ask,
        ),
        Tool(
            "wait",
            f"wait until every named question is answered, then return them as show does; at most timeout "
            f"seconds (default {WAIT_DEFAULT}, at most {WAIT_MAX}): when the time is up it says which are still open: "
            "call wait again. Sends progress notifications while it waits",
            S.obj(
                {
                    "filenames": S.filenames("questions"),
                    "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": WAIT_MAX, "default": WAIT_DEFAULT},
                },
                ("filenames",),
            ),
            None,
            read_only=True,
            waits=True,
        ),
        Tool(
            "notify",
            "leave a notice for the person (atk agents notify), source as the server's --source",
            S.obj({"message": {"type": "string", "minLength": 1}}, ("message",)),
            notify,
        ),
        Tool(
            "plans_commit",
            "copy plan files into the store and commit them (atk plans commit); returns the plan_file value of each",
            S.obj(
                {
                    "paths": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                    "plans_root": {"type": "string"},
                },
                ("paths",),
            ),
            plans_commit,
        ),
    ]


def all_tools() -> list[Tool]:
    """Every tool, in the order the server lists them."""
    return [*queue_tools(WI), *queue_tools(MQ), *shared_tools()]


def tool_table(tools: list[Tool]) -> str:
    """The tool list as docs/mcp.md shows it (`atk mcp --list-tools`)."""
    lines = ["| tool | what it does |", "| --- | --- |"]
    lines += [f"| `{t.name}` | {t.description.replace('|', '/')} |" for t in tools]
    return "\n".join(lines) + "\n"
