"""The item commands `atk wi` and `atk mq` share, declared once for both queues' parsers.

Each queue passes its nouns (what a question and a request are called), its kinds, what its
`--status` takes and its transition table (one command per row: `transition_command`); the
commands, flags and help are otherwise the same, as the service behind them is (a queue is a
parameter of the service)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from atk_tui.domain.fields import BODY_CONVENTIONS
from atk_tui.domain.model import STATES, URGENCIES
from atk_tui.domain.ops import Transition


@dataclass(frozen=True)
class Nouns:
    question: str  # "UWI" / "TBD"
    request: str  # "AWI" / "feedback item"
    kinds: Sequence[str]
    default_kind: str
    status_help: str
    queue: str  # the folder its items live under ("wi" / "mq")
    #: the queue's transition table (`domain.ops`): one command per row that has one
    transitions: Mapping[str, Transition]
    #: the queue's states, and those only their own path enters (`atk wi move --to`)
    states: Sequence[str] = ()
    fenced: frozenset[str] = frozenset()


def _number(least: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not (text.isascii() and text.isdigit()) or int(text) < least:
            raise argparse.ArgumentTypeError(f"takes a whole number >= {least}, not {text!r}")
        return int(text)

    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (0 <= value <= 10**7):  # NaN fails too
        raise argparse.ArgumentTypeError(f"takes a number of seconds >= 0, not {text!r}")
    return value


TAKE_OVER_HELP = (
    "as an agent: change an item another agent holds or is processing (an explicit take-over, "
    "recorded in the commit as Atk-Take-Over: <that agent>); never the person's hold"
)


def add_item_commands(cmd: Callable[[str, str], argparse.ArgumentParser], n: Nouns) -> dict[str, argparse.ArgumentParser]:
    """Register the shared commands through `cmd(name, help)`; returns the parsers by name
    (a queue adds its own flags to them)."""
    ps: dict[str, argparse.ArgumentParser] = {}
    p = ps["list"] = cmd("list", "list items (JSON Lines by default in an agent environment)")
    p.add_argument("--status", default="active", help=n.status_help)
    p.add_argument("--kind", choices=list(n.kinds))
    p.add_argument("--text", help="only items whose filename, title, repo or body contains TEXT")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="JSON Lines")
    g.add_argument("--no-json", action="store_true", help="text rows")
    g.add_argument("--count", action="store_true", help="print the number of items")
    p.add_argument("--offset", type=_number(0), default=0, metavar="K", help="skip the first K items listed (paging)")
    p.add_argument("--limit", type=_number(1), metavar="N", help="list at most N items (paging; --count counts all)")
    p.add_argument(
        "--wide", action="store_true",
        help="on a terminal: every column, the filename and the title whole (rows are fitted to its width otherwise, "
        "status and title first); piped rows and --json are always whole",
    )

    p = ps["show"] = cmd(
        "show", f"print items as text; several in one call, each after a line '==> {n.queue}/inbox/F.md <==' naming its file"
    )
    p.add_argument("filenames", nargs="+", metavar="filename")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="metadata, readiness and body as JSON (one line per item)")
    g.add_argument("--no-json", action="store_true", help="the item text (the default, also in an agent environment)")

    p = ps["wait"] = cmd(
        "wait",
        f"wait until each {n.question} named is answered, then print them as `show` does (exit 0); "
        "exit 1 when the time is up, naming what is still open",
    )
    p.add_argument("filenames", nargs="+", metavar="filename")
    p.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                   help="give up after this many seconds (default: wait until answered)")  # fmt: skip
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="print the answered items as JSON (as `show --json`)")
    g.add_argument("--no-json", action="store_true", help="print the item text, even for several items as an agent")

    p = ps["log"] = cmd("log", "the commits that touched an item (any state; moves followed), newest first, with who made them (JSON Lines in an agent environment)")
    p.add_argument("filename")
    p.add_argument("--patch", "-p", action="store_true", help="each commit's diff of the item (a move is shown as 'moved inbox → processing')")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="JSON Lines (the default in an agent environment): commit, date, author, actor, subject, change, paths (and patch)")
    g.add_argument("--no-json", action="store_true", help="text rows, even in an agent environment")
    p.add_argument("--limit", type=int, default=200, metavar="N", help="at most N commits (default 200); older ones are counted")

    p = ps["add"] = cmd("add", f"add a {n.request} or a {n.question} to inbox; prints the saved item, filename first")
    p.add_argument("message", nargs="?", help="the body (use --body-file for quotes or newlines)")
    p.add_argument(
        "--body-file",
        help="read the body from this file ('-' for stdin). " + BODY_CONVENTIONS + " (atk wi schema says it too)",
    )
    p.add_argument("--kind", choices=list(n.kinds), help=f"default: the body's frontmatter kind, else {n.default_kind}")
    p.add_argument(
        "--source",
        help="where the item comes from (required for agents): the skill's name without its plugin "
        "(add-awi, plan-and-add-awi, process-wi, session-review, …; agent-toolkit:add-awi is stored as add-awi), "
        "or agent",
    )
    p.add_argument("--plan-file", help="$(atk config get private_notes)/plans/YYYY/MM/<name>.md")
    p.add_argument("--depends-on", action="append", default=[], metavar="FILENAME")
    p.add_argument("--urgency", choices=list(URGENCIES))
    p.add_argument(
        "--answer-by", metavar="TIME",
        help=f"a {n.question}'s own deadline: a time (2026-11-30T09:00:00+09:00; no zone: UTC) or a duration "
        "from now (30m, 2h, 1d); absent: its urgency's answer-by time ([notify] in the config). "
        "It only decides when the person is reminded, never the answer",
    )
    p.add_argument("--target-commit")

    p = ps["edit"] = cmd("edit", "replace an item's body and/or set its plan file; prints the saved item, filename first")
    p.add_argument("filename")
    p.add_argument("message", nargs="?")
    p.add_argument("--body-file")
    p.add_argument("--plan-file", help=f"make the {n.request} plan-type (as convert-to-plan)")
    p.add_argument(
        "--whole-file", metavar="P",
        help="replace the whole file (frontmatter and body) with P ('-' for stdin): repairs a defective item",
    )
    p.add_argument("--take-over", action="store_true", help=TAKE_OVER_HELP)

    for op, row in n.transitions.items():
        if row.command:
            transition_command(ps, cmd, op, row, n)
    p = ps["move"] = cmd(
        "move",
        "the person's explicit move of items to any state, as the dashboard's move (user only; an agent gets exit 2): "
        "the way out of a terminal state (the verbs keep their meaning: hold is inbox -> hold for everyone)",
    )
    p.add_argument("filenames", nargs="+", metavar="filename")
    p.add_argument("--to", required=True, dest="to_state", choices=[s for s in n.states if s not in n.fenced], metavar="STATE",
                   help=f"the state to move to: {', '.join(s for s in n.states if s not in n.fenced)}")  # fmt: skip
    p.add_argument("--note", help="the note adopt and reject write (moving to adopted or rejected)")
    p = ps["rm"] = cmd("rm", "remove an inbox or hold item (kept in git history)")
    p.add_argument("filename")
    p = ps["set-dependencies"] = cmd(
        "set-dependencies",
        "replace depends_on with the --depends-on list (none clears it), or change it with --add/--remove "
        "(the others kept, atomically); wi and mq items alike",
    )
    p.add_argument("filename")
    p.add_argument("--depends-on", action="append", default=[], metavar="FILENAME", help="replace: the whole new list")
    p.add_argument(
        "--add",
        dest="dep_add",
        action="append",
        default=[],
        metavar="FILENAME",
        help="add this dependency, keeping the others (repeatable)",
    )
    p.add_argument(
        "--remove",
        dest="dep_remove",
        action="append",
        default=[],
        metavar="FILENAME",
        help="remove this dependency, keeping the others (repeatable)",
    )
    p.add_argument("--take-over", action="store_true", help=TAKE_OVER_HELP)
    p = ps["convert-to-plan"] = cmd("convert-to-plan", f"set plan_file on a {n.request}")
    p.add_argument("filename")
    p.add_argument("--plan-file", required=True)
    p = ps["answer"] = cmd("answer", f"answer a {n.question}: write its ## 回答 (answer) section (user only)")
    p.add_argument("filename")
    p.add_argument(
        "--choose", action="append", default=[], metavar="N=LETTER",
        help="N=LETTER, N=other (other / see notes: explain in --text), or LETTER alone for question 1",
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument("--text")
    g.add_argument("--text-file")
    p.add_argument(
        "--replace", action="store_true",
        help="replace an existing answer (a question left out is then unanswered again)",
    )
    p.add_argument("--partial", action="store_true", help="save even though some question has no choice (it still blocks)")
    p = ps["comment"] = cmd("comment", f"append to a {n.request}'s ## ユーザーコメント (user comment) section (user only)")
    p.add_argument("filename")
    p.add_argument("message", nargs="?")
    p.add_argument("--text-file")
    p = ps["commit"] = cmd("commit", "commit pending item files and push unpushed commits")
    p.add_argument(
        "--yes", "-y", action="store_true",
        help="as the user: commit the listed changes as yours without asking (needed when stdin is not a terminal)",
    )  # fmt: skip
    p = ps["set-cooldown"] = cmd("set-cooldown", "set or clear cooldown_until (time-based waits only)")
    p.add_argument("filename")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--until", metavar="TIME", help="a time with a timezone (2026-11-30T09:00:00+09:00) or a duration (2h, 30m, 1d)")
    g.add_argument("--clear", action="store_true", help="remove cooldown_until")
    p = ps["set-urgency"] = cmd("set-urgency", f"set a {n.question}'s urgency")
    p.add_argument("filename")
    p.add_argument("level", choices=list(URGENCIES))
    return ps


def _order(state: str) -> int:
    return STATES.index(state) if state in STATES else len(STATES)


def transition_help(row: Transition, n: Nouns) -> str:
    """A transition command's help, said from its row of the table."""
    froms = sorted(row.agent_from, key=_order)
    text = f"{froms[0]} -> {row.target}"
    if row.takes_plan:
        text += " with plan_file set"
    if row.already_ok:
        text += f" (an item in {row.target} already: nothing to do, exit 0, and it says whether the item is ready)"
    if row.several:
        text += ", all or nothing (every file checked before any moves)"
    if row.answered_from:
        text += f" (an answered {n.question} also from {' or '.join(sorted(row.answered_from, key=_order))})"
    if row.named_from and len(froms) > 1:
        into = {r.target: op for op, r in n.transitions.items()}  # rejected: reject
        others = "; ".join(
            f"{s} -> {row.target} with --state={s}"
            + (f": that clears the {into[s]}'s note, which git history keeps, and says so" if s in into and s != row.target else "")
            for s in froms[1:]
        )
        text += f" (or {others})"
    return text


def transition_command(
    ps: dict[str, argparse.ArgumentParser], cmd: Callable[[str, str], argparse.ArgumentParser], op: str, row: Transition, n: Nouns
) -> None:
    """`atk wi <op>` for one row of the transition table: its arguments are what the row takes."""
    p = ps[op] = cmd(op, transition_help(row, n))
    if row.several:
        p.add_argument("filenames", nargs="+")
    else:
        p.add_argument("filename")
    if row.takes_note:
        p.add_argument("--note")
    if row.takes_commit:
        p.add_argument("--commit", dest="sha", metavar="SHA", help="the full (40-hex) commit SHA that adopted it")
    if row.named_from:
        states = sorted(row.agent_from, key=_order)
        p.add_argument("--state", choices=states, default=states[0])
    if row.takes_plan:
        p.add_argument("--plan-file", required=True)
    if row.agent_from or row.answered_from:
        p.add_argument("--take-over", action="store_true", help=TAKE_OVER_HELP)
