"""`atk elsewhere list`: what waits for the person on GitHub (issue 31), the rows of the
dashboard's Elsewhere view (`E`) for agents and scripts: afkkit's escalations (`needs-planning`,
`blocked`, `in-progress` with a stop report), the PRs of `in-review` issues, and with `--ready`
the ready queue in afkkit's run order. Read through `gh`, read-only (`ElsewhereView.refresh`);
`--cached` answers from the last look without asking GitHub. Its parser is declared in `cli.parser` with the rest.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from atk_tui.cli.output import JSON, say, say_err_line, terminal_table, write_text
from atk_tui.domain.ages import ago
from atk_tui.domain.errors import AtkError
from atk_tui.host.config import is_agent_env
from atk_tui.text.textsafe import safe_json, safe_line

HELP = "what waits for you on GitHub: afkkit's escalations and reviews, the ready queue (read-only, through gh)"
DESCRIPTION = """\
The issues afkkit left for you (needs-planning, blocked, in-progress with a stop report) and
the open PRs of its in-review issues, in the repositories the queue names (the target_repo of
active items) and [elsewhere] repos of the config file. Read through the GitHub CLI (gh),
read-only; nothing is written to GitHub. --ready: the issues labelled ready, in the order
`afkkit all` would take them."""


def cmd_elsewhere(svc: Any, args: argparse.Namespace) -> int:
    for error in svc.elsewhere.settings().errors:
        say_err_line(f"warning: {error}")
    if args.cached:
        found = svc.elsewhere.cached()
        if found is None:
            raise AtkError("never looked at GitHub from this store: run `atk elsewhere list` (without --cached)")
    else:
        found = svc.elsewhere.refresh()
    now = svc.clock()
    if not found.repos:
        say_err_line("no GitHub repository to look at: no active item's target_repo is OWNER/REPO, and [elsewhere] repos is empty")
    if found.skipped:
        say_err_line(f"left out (not OWNER/REPO): {', '.join(found.skipped)}")
    if found.problem or found.repo_errors or args.cached:
        say_err_line(found.summary(now))
    if found.fetched is None and found.problem:
        return 1  # never looked, and cannot now: the line above says what to run
    as_json = args.json or (is_agent_env() and not args.no_json)
    meta = {"as_of": found.fetched.isoformat() if found.fetched else None, **({"problem": found.problem} if found.problem else {})}
    if args.ready:
        return _ready(found, now, as_json, meta)
    if as_json:
        for w in found.waiting:
            write_text(sys.stdout, safe_json(JSON.encode({**w.as_json(now), **meta})) + "\n")
        return 0
    rows = [[safe_line(f) for f in (w.repo, f"#{w.number}", w.label, ago(w.since, now), w.title, w.reason)] for w in found.waiting]
    return _table(rows, "nothing waits for you on GitHub" if found.repos else "", caps=(24, 7, 14, 9, 50, 80))


def _ready(found: Any, now: Any, as_json: bool, meta: dict[str, Any]) -> int:
    if as_json:
        for q in found.ready:
            for i in q.issues:
                record = {**i.as_json(), "by_priority": q.by_priority, "rule": q.rule, "open_prs": q.open_prs, **meta}
                write_text(sys.stdout, safe_json(JSON.encode(record)) + "\n")
        return 0
    tty = sys.stdout.isatty()
    for q in found.ready:
        prs = "" if q.open_prs is None else f" · {q.open_prs} open PR{'s' if q.open_prs != 1 else ''}" + (" (3 or more)" if q.open_prs >= 3 else "")
        if tty:
            say(f"{safe_line(q.repo)}: {q.rule}{prs}")
        rows = []
        for i in q.issues:
            fields = (q.repo, str(i.order) if i.order else "-", f"#{i.number}", i.priority or "-", i.title, f"updated {ago(i.updated, now)}", i.skipped)
            rows.append([safe_line(f) for f in fields])
        _table(rows, "no ready issue", caps=(24, 3, 7, 16, 50, 20, 60), first=1 if tty else 0)
    if not found.ready and tty and found.repos:
        say("no ready issue")
    return 0


def _table(rows: list[list[str]], empty: str, caps: tuple[int, ...], first: int = 0) -> int:
    """Tab-separated when piped; aligned columns on a terminal (from column `first`)."""
    if not sys.stdout.isatty():
        for row in rows:
            say("\t".join(row))
        return 0
    import shutil

    if not rows and empty:
        say(empty)
    for line in terminal_table([r[first:] for r in rows], shutil.get_terminal_size((120, 24)).columns, caps=caps[first:]):
        say(("  " if first else "") + line)
    return 0
