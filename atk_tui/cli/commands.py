"""The item commands of `atk wi` and `atk mq` (one service, the queue a parameter): each is
`cmd_<name>(svc, args) -> exit code`, named by the parser (`cli.parser`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from atk_tui.cli.output import (
    JSON,
    body_of,
    item_json,
    json_line,
    print_rows,
    read_input_file,
    report,
    rows_into,
    say,
    say_err_line,
    stale_of,
    text_row,
    write_text,
    written_line,
)
from atk_tui.domain.errors import AtkError
from atk_tui.domain.model import Item
from atk_tui.domain.readiness import Judgement
from atk_tui.host.config import is_agent_env
from atk_tui.service.reading.listing import DERIVED, defect_notes, listing_cache, states_for, text_filter, write_listing
from atk_tui.text.textsafe import safe_json, safe_text


def _held_lines(svc: Any, status: str) -> Callable[[Item, Judgement | None, tuple[int, int] | None], str]:
    """`json_line` with each held item's holder (`held_by`): found for every item the
    listing's states hold, in one git walk, before the lines are made (a listing of no held
    state asks git nothing)."""
    held = svc.held_in(states_for(status, svc.q) or [])

    def line(i: Item, j: Judgement | None, blocks: tuple[int, int] | None) -> str:
        return json_line(i, j, blocks, held.get(i.filename) if held else None)

    return line


def cmd_list(svc: Any, args: argparse.Namespace) -> int:
    svc.one_shot = True  # one listing, then exit
    states = states_for(args.status, svc.q)
    if states is None:
        raise AtkError(f"--status takes active, processable, ready, blocked, all or a state ({', '.join(svc.q.states)})", exit_code=2)
    as_json = args.json or (is_agent_env() and not args.no_json)
    page = (args.offset, args.limit)
    if svc.q.name == "wi":  # the judged listing, cached for the next time (`service.reading.listing`)
        text = text_filter(svc.root, args.text)
        rows: list[list[str]] = []
        into = None if as_json or args.count else rows_into(rows)
        cache = listing_cache(svc.root, args.status)
        notes = write_listing(svc, cache, args.status, args.kind, svc.only_repo, args.count, _held_lines(svc, args.status),
                              page, stale_of(args), text, into)  # fmt: skip
        if into is not None:
            print_rows(rows, args.status, notes, wide=getattr(args, "wide", False))
        return 0
    items, view = svc.list(states, kind=args.kind, text=args.text)
    if args.status in DERIVED:
        want_ready = args.status == "ready"
        items = [i for i in items if (j := view.judgements.get(i.filename)) is not None and j.ready == want_ready]
    if args.count:
        say(str(len(items)))
        return 0
    items = items[args.offset :] if args.limit is None else items[args.offset : args.offset + args.limit]
    judgements, blocks = view.judgements, view.blocks
    if as_json:
        held = svc.held_by(items)
        lines = [json_line(i, judgements.get(i.filename), blocks.get(i.filename), held.get(i.filename)) for i in items]
        if stale_of(args):
            from atk_tui.service.reading.freshen import with_stale

            lines = [with_stale(line, stale_of(args)) for line in lines]
        if lines:
            write_text(sys.stdout, "\n".join(lines) + "\n")
        return 0
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    notes = defect_notes(view.store_defects)
    print_rows([text_row(item_json(i, judgements.get(i.filename)), now) for i in items], args.status, notes, wide=getattr(args, "wide", False))
    return 0


def cmd_show(svc: Any, args: argparse.Namespace) -> int:
    """One or several items; every name is read before anything is printed (all or nothing).
    Text in and out of an agent environment (process-feedbacks: JSON Lines by default is for
    `list` only; `show` keeps its text): several items each after a `==> wi/inbox/F.md <==`
    line naming its file; `--json` for JSON Lines."""
    from atk_tui.service import item_path

    items = [svc.show(name) for name in args.filenames]
    svc.answers.note_shown(items)  # the person's `answer` is checked against what they read here
    if args.json:  # the records `atk mcp`'s show gives too (`service.records`)
        from atk_tui.service.records import shown_records

        for d in shown_records(svc, items, stale_of(args)):
            write_text(sys.stdout, safe_json(JSON.encode(d)) + "\n")
        return 0
    held = svc.held_by(items)
    for n, item in enumerate(items):
        if len(items) > 1:
            say(("\n" if n else "") + f"==> {item_path(item.state, item.filename, item.queue)} <==")
        say(item.text)
        for w in item.defects:
            say_err_line(f"defect: {item.filename}: {w}" if len(items) > 1 else f"defect: {w}")
        if item.filename in held:  # on stderr, beside the defects: stdout is the stored text
            say_err_line(f"{item.filename}: {held[item.filename].describe()}")
    return 0


def choices_of(values: Sequence[str]) -> dict[int, str]:
    out: dict[int, str] = {}
    for v in values:
        num, sep, letter = v.partition("=")
        if not sep:
            num, letter = "1", v
        letter = letter.strip()
        if letter.casefold() == "other":
            letter = "other"
        elif len(letter) != 1 or not letter.isascii() or not letter.isalpha():
            letter = ""
        if not num.strip().isdigit() or not letter:
            raise AtkError(f"--choose takes N=LETTER (e.g. 2=B), N=other, or a LETTER, got {v!r}", exit_code=2)
        out[int(num)] = letter if letter == "other" else letter.upper()
    return out


def resolve_arguments(svc: Any, args: argparse.Namespace) -> None:
    """Every item filename argument through the one resolver (without `.md`, a unique prefix)."""
    from atk_tui.service.resolve import resolve_name, resolve_names

    if getattr(args, "filename", None):
        args.filename = resolve_name(svc.store, args.filename, svc.queues)
    if getattr(args, "filenames", None):
        args.filenames = resolve_names(svc.store, args.filenames, svc.queues)
    if getattr(args, "depends_on", None):  # a dependency may be an item of either queue
        args.depends_on = resolve_names(svc.store, args.depends_on, None)
    if getattr(args, "dep_add", None):
        args.dep_add = resolve_names(svc.store, args.dep_add, None)
    if getattr(args, "dep_remove", None):  # one to remove may be gone already: then as given
        args.dep_remove = [_resolve_or_given(svc, name) for name in args.dep_remove]


def _resolve_or_given(svc: Any, name: str) -> str:
    from atk_tui.service.resolve import resolve_name

    try:
        return resolve_name(svc.store, name, None)
    except AtkError:
        return name if name.endswith(".md") else name + ".md"


def report_plan(svc: Any, out: Any) -> int:
    """`report`, then where the saved item's plan file is when not in the store yet."""
    code = report(out)
    if out.ok and out.item is not None:
        for note in svc.plan_notes(out.item):
            say_err_line(f"note: {note}")
    return code


def _take_over(svc: Any, args: argparse.Namespace) -> None:
    """`--take-over` (issue 39): this write may change an item another agent holds or
    processes, recorded in its commit; never the person's hold."""
    svc.take_over = bool(getattr(args, "take_over", False))


def cmd_edit(svc: Any, args: argparse.Namespace) -> int:
    _take_over(svc, args)
    """`edit F --plan-file P` goes through convert-to-plan (one place normalises plan_file);
    with a body as well, the body is saved next (a second commit)."""
    if args.whole_file:
        if args.message is not None or args.body_file or args.plan_file is not None:
            raise AtkError("--whole-file replaces everything: give no MESSAGE, --body-file or --plan-file with it", exit_code=2)
        return report_plan(svc, svc.writes.save_text(args.filename, read_input_file(args.whole_file)))
    if args.plan_file is None:
        return report_plan(svc, svc.writes.edit(args.filename, body_of(args)))
    has_body = args.message is not None or args.body_file
    body = body_of(args) if has_body else None
    from atk_tui.host.config import portable_plan_file

    same = svc.show(args.filename).plan_file in (args.plan_file, portable_plan_file(svc.root, args.plan_file))
    if body is not None and same:
        return report_plan(svc, svc.writes.edit(args.filename, body))  # the plan file is set already
    out = svc.writes.convert_to_plan(args.filename, args.plan_file)
    if not out.ok or body is None:
        if out.ok:
            out.op = "edit"
            out.item = svc.show(args.filename)
        return report_plan(svc, out)
    line, beside = written_line(out)  # two writes, two lines: the edit's stdout is its saved item
    for w in beside:
        say_err_line(w)
    write_text(sys.stderr, safe_text(line).rstrip("\n") + "\n")
    return report_plan(svc, svc.writes.edit(args.filename, body))


def cmd_process_loop(svc: Any, args: argparse.Namespace) -> int:
    from atk_tui.service.reading.loop import ProcessLoop

    if args.max_parallel < 1:
        raise AtkError("--max-parallel takes a number of sessions >= 1", exit_code=2)
    loop = ProcessLoop(svc, args.command, max_parallel=args.max_parallel, interval=args.interval,
                       pull_interval=args.pull_interval, log=say_err_line)
    return loop.run(once=args.once)


def cmd_add(svc: Any, args: argparse.Namespace) -> int:
    answer_by = None
    if getattr(args, "answer_by", None):
        from atk_tui.service.writing.itemmeta import parse_answer_by

        answer_by = parse_answer_by(args.answer_by, svc.clock())
    out = svc.writes.add(
        kind=args.kind, target_repo=args.only_repo or "", body=body_of(args), source=args.source,
        plan_file=args.plan_file, depends_on=args.depends_on, urgency=args.urgency,
        target_commit=args.target_commit, state=getattr(args, "add_state", "inbox"), answer_by=answer_by,
    )  # fmt: skip
    if out.ok and out.item is not None:  # the item is written: what the dashboard would warn about
        out.warnings = (*out.warnings, *svc.item_warnings(out.item))
    return report_plan(svc, out)


def cmd_transition(svc: Any, args: argparse.Namespace) -> int:
    """Every command of the transition table (`domain.ops`): hold, unhold, start-processing,
    adopt, reject, return-to-inbox, finish-planning; what each takes is its row's."""
    files = args.filenames if hasattr(args, "filenames") else [args.filename]
    _take_over(svc, args)
    return report(
        svc.writes.transition_command(
            args.wicmd, files, note=getattr(args, "note", None), commit=getattr(args, "sha", None),
            from_state=getattr(args, "state", None), plan_file=getattr(args, "plan_file", None),
        )
    )  # fmt: skip


def cmd_move(svc: Any, args: argparse.Namespace) -> int:
    """`atk wi move F... --to STATE`: the person's any-state move (the dashboard's move)."""
    return report(svc.writes.move(args.filenames, args.to_state, note=args.note))


def cmd_rm(svc: Any, args: argparse.Namespace) -> int:
    return report(svc.writes.rm(args.filename))


def cmd_set_dependencies(svc: Any, args: argparse.Namespace) -> int:
    _take_over(svc, args)
    if args.depends_on and (args.dep_add or args.dep_remove):
        raise AtkError(
            "set-dependencies: --depends-on replaces the whole list; --add/--remove change it: use one or the other",
            exit_code=2,
        )
    return report(svc.writes.set_dependencies(args.filename, args.depends_on, add=args.dep_add, remove=args.dep_remove))


def cmd_convert_to_plan(svc: Any, args: argparse.Namespace) -> int:
    return report(svc.writes.convert_to_plan(args.filename, args.plan_file))


def cmd_answer(svc: Any, args: argparse.Namespace) -> int:
    text = read_input_file(args.text_file) if args.text_file else (args.text or "")
    try:
        seen = svc.answers.read_by_person(args.filename)  # as read: a pull may bring another question (SPEC §15)
    except AtkError as exc:
        if exc.code != "unread":
            raise
        # fail closed (issue 38): no record of what the person read; show it, remember it
        say_err_line(exc.message)
        item = svc.show(args.filename)
        svc.answers.note_shown([item])
        say(item.text)
        return 1
    out = svc.answers.answer(
        args.filename, choices=choices_of(args.choose), text=text, replace=args.replace, partial=args.partial,
        seen=seen,
    )  # fmt: skip
    if out.code == "changed":  # the refusal said what changed: that version is what the person read now
        svc.answers.note_shown([svc.show(args.filename)])
    return report(out)


def cmd_comment(svc: Any, args: argparse.Namespace) -> int:
    return report(svc.answers.comment(args.filename, body_of(args, attr="text_file")))


def cmd_set_cooldown(svc: Any, args: argparse.Namespace) -> int:
    from atk_tui.service.writing.itemmeta import parse_until, set_cooldown

    until = None if args.clear else parse_until(args.until, svc.clock(), future=True)
    return report(set_cooldown(svc, args.filename, until))


def cmd_set_urgency(svc: Any, args: argparse.Namespace) -> int:
    from atk_tui.service.writing.itemmeta import set_urgency

    return report(set_urgency(svc, args.filename, args.level))
