"""`atk mq`: the feedback queue's commands (SPEC §12), on the same service as `atk wi`.

The service takes the queue as a parameter (`Service(root, queue="mq")`), so every command
here runs the very code of its `atk wi` twin: same lock, commits (`atk: <op> …` with
`Atk-Actor`), pull/push, agent boundary and integrity rules. This module only declares the
mq parser: its kinds, its transition table (which adds `finish-planning`) and `add
--state=planning`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from atk_tui.cli.items import Nouns, add_item_commands
from atk_tui.domain.ops import MQ as MQ_RULES
from atk_tui.domain.queues import MQ

MQ_EPILOG = """\
states: inbox, processing, editing, hold, planning, adopted, rejected.
  active = inbox + processing + editing + hold; processable = inbox + processing.
  planning is seen only with --status=planning; editing is where the dashboard keeps an
  item while the user edits it. Dependencies may name items of either queue (wi or mq).
"""


def add_mq_parser(
    sub: Any, epilog: str, item_command: Callable[[Any, str, str, str], argparse.ArgumentParser]
) -> dict[str, argparse.ArgumentParser]:
    """Register `atk mq …` on the top-level subparsers (`sub`); its command parsers by name."""
    full_epilog = MQ_EPILOG + "\n" + epilog
    mq = sub.add_parser(
        "mq", help="feedback queue commands (feedback items and TBD questions)", epilog=full_epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    m = mq.add_subparsers(dest="wicmd", required=True)  # the same dest as `atk wi`: one set of commands

    def cmd(name: str, help_: str) -> argparse.ArgumentParser:
        return item_command(m, name, help_, full_epilog)

    ps = add_item_commands(
        cmd,
        Nouns(
            question="TBD",
            request="feedback item",
            kinds=list(MQ.kinds),
            default_kind=MQ.request_kind,
            status_help="active (default), processable, ready, blocked, planning, all (every state but planning), or a state",
            queue="mq",
            transitions=MQ_RULES.transitions,
            states=MQ.states,
            fenced=MQ.fenced,
        ),
    )
    ps["add"].add_argument(
        "--state", dest="add_state", choices=list(MQ.add_states), default="inbox",
        help="inbox (default) or planning (a feedback item whose plan is being written)",
    )
    return ps
