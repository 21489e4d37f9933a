"""`atk mq`: the feedback queue's commands (SPEC §12), on the same service as `atk wi`.

The service takes the queue as a parameter (`Service(root, queue="mq")`), so every command
here runs the very code of its `atk wi` twin: same lock, commits (`atk: <op> …` with
`Atk-Actor`), pull/push, agent boundary and integrity rules. This module only declares the
mq parser (its kinds, `add --state=planning`, `finish-planning`) and runs the commands that
have no `wi` twin; `cli.run` dispatches the rest.
"""

from __future__ import annotations

import argparse
from typing import Any

from .core.queues import MQ

MQ_EPILOG = """\
states: inbox, processing, editing, hold, planning, adopted, rejected.
  active = inbox + processing + editing + hold; processable = inbox + processing.
  planning is seen only with --status=planning; editing is where the dashboard keeps an
  item while the user edits it. Dependencies may name items of either queue (wi or mq).
"""


def add_mq_parser(sub: Any, common: argparse.ArgumentParser, epilog: str) -> None:
    """Register `atk mq …` on the top-level subparsers (`sub`)."""
    full_epilog = MQ_EPILOG + "\n" + epilog
    mq = sub.add_parser(
        "mq", help="feedback queue commands (feedback items and TBD questions)", epilog=full_epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    m = mq.add_subparsers(dest="wicmd", required=True)  # the same dest: `cli.run` dispatches both queues

    def cmd(name: str, help_: str) -> argparse.ArgumentParser:
        return m.add_parser(
            name, help=help_, parents=[common], epilog=full_epilog, formatter_class=argparse.RawDescriptionHelpFormatter
        )

    kinds = list(MQ.kinds)
    p = cmd("list", "list items (JSON Lines by default in an agent environment)")
    p.add_argument(
        "--status", default="active",
        help="active (default), processable, ready, blocked, planning, all (every state but planning), or a state",
    )
    p.add_argument("--kind", choices=kinds)
    p.add_argument("--text", help="only items whose filename, title, repo or body contains TEXT")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="JSON Lines")
    g.add_argument("--no-json", action="store_true", help="text rows")
    g.add_argument("--count", action="store_true", help="print the number of items")

    p = cmd("show", "print items; several in one call (JSON Lines in an agent environment)")
    p.add_argument("filenames", nargs="+", metavar="filename")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="metadata, readiness and body as JSON (one line per item)")
    g.add_argument("--no-json", action="store_true", help="the item text, even for several items as an agent")

    p = cmd("add", "add a feedback item or a TBD; prints the saved item, filename first")
    p.add_argument("message", nargs="?", help="the body (use --body-file for quotes or newlines)")
    p.add_argument("--body-file", help="read the body from this file ('-' for stdin)")
    p.add_argument("--kind", choices=kinds, default=MQ.request_kind)
    p.add_argument(
        "--state", dest="add_state", choices=list(MQ.add_states), default="inbox",
        help="inbox (default) or planning (a feedback item whose plan is being written)",
    )
    p.add_argument("--source", help="where the item comes from (required for agents)")
    p.add_argument("--plan-file", help="$(atk config get private_notes)/plans/YYYY/MM/<name>.md")
    p.add_argument("--depends-on", action="append", default=[], metavar="FILENAME")
    p.add_argument("--urgency", choices=["blocking", "next-review", "informational"])
    p.add_argument("--target-commit")

    p = cmd("edit", "replace an item's body and/or set its plan file; prints the saved item, filename first")
    p.add_argument("filename")
    p.add_argument("message", nargs="?")
    p.add_argument("--body-file")
    p.add_argument("--plan-file", help="make the feedback item plan-type (as convert-to-plan)")
    p.add_argument(
        "--whole-file", metavar="P",
        help="replace the whole file (frontmatter and body) with P ('-' for stdin): repairs a defective item",
    )

    for name, help_ in (
        ("hold", "inbox -> hold"),
        ("unhold", "hold -> inbox"),
        ("rm", "remove an inbox or hold item (kept in git history)"),
    ):
        cmd(name, help_).add_argument("filename")
    p = cmd("start-processing", "inbox -> processing, all or nothing (every file checked before any moves)")
    p.add_argument("filenames", nargs="+")
    p = cmd("adopt", "processing -> adopted (an answered TBD also from inbox)")
    p.add_argument("filename")
    p.add_argument("--note")
    p.add_argument("--commit", dest="sha", metavar="SHA", help="the full (40-hex) commit SHA that adopted it")
    p = cmd("reject", "processing -> rejected (an answered TBD also from inbox)")
    p.add_argument("filename")
    p.add_argument("--note")
    p = cmd("return-to-inbox", "processing -> inbox (or rejected -> inbox with --state=rejected)")
    p.add_argument("filename")
    p.add_argument("--state", choices=["processing", "rejected"], default="processing")
    p = cmd("set-dependencies", "replace depends_on (no --depends-on clears it); wi and mq items alike")
    p.add_argument("filename")
    p.add_argument("--depends-on", action="append", default=[], metavar="FILENAME")
    p = cmd("convert-to-plan", "set plan_file on a feedback item")
    p.add_argument("filename")
    p.add_argument("--plan-file", required=True)
    p = cmd("finish-planning", "planning -> inbox with plan_file set, all or nothing")
    p.add_argument("filenames", nargs="+")
    p.add_argument("--plan-file", required=True)
    p = cmd("answer", "answer a TBD (user only)")
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
    p = cmd("comment", "append to a feedback item's ## ユーザーコメント section (user only)")
    p.add_argument("filename")
    p.add_argument("message", nargs="?")
    p.add_argument("--text-file")
    cmd("commit", "commit pending item files and push unpushed commits")
    p = cmd("set-cooldown", "set or clear cooldown_until (time-based waits only)")
    p.add_argument("filename")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--until", metavar="TIME", help="a time with a timezone (2026-11-30T09:00:00+09:00) or a duration (2h, 30m, 1d)")
    g.add_argument("--clear", action="store_true", help="remove cooldown_until")
    p = cmd("set-urgency", "set a TBD's urgency")
    p.add_argument("filename")
    p.add_argument("level", choices=["blocking", "next-review", "informational"])


def run_mq_only(svc: Any, args: argparse.Namespace, report: Any) -> int | None:
    """The mq commands without a `wi` twin; None for the others (`cli.run` runs them)."""
    if args.wicmd == "finish-planning":
        return report(svc.finish_planning(args.filenames, args.plan_file))
    return None
