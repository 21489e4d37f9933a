"""`atk` commands with their own output beside the item commands: an item's log, wait
statistics, set-aside conflicts, plan files and the agents' notices."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from atk_tui.cli.output import (
    JSON,
    body_of,
    report,
    say,
    say_err,
    say_err_line,
    terminal_table,
    write_text,
    written_line,
)
from atk_tui.domain.errors import AtkError
from atk_tui.host.config import is_agent_env
from atk_tui.service.records import WAIT_MAX_STEP, WAIT_STEP, answered, still_waiting  # `wait`: shared with `atk mcp`
from atk_tui.text.textsafe import safe_json, safe_line, safe_text


def cmd_log(svc: Any, args: argparse.Namespace) -> int:
    """`atk wi log F [--patch] [--json]`: the dashboard's `L` screen as text (the same
    `Service.item_log` / `item_diff`)."""
    if args.limit < 1:
        raise AtkError("--limit takes a number of commits >= 1", exit_code=2)
    log = svc.item_log(args.filename, limit=args.limit)
    if not log.commits:
        raise AtkError(f"no commit touched {args.filename}; `atk {args.cmd} list --status=all` lists the items")
    tty = sys.stdout.isatty()
    as_json = args.json or (is_agent_env() and not args.no_json)
    for n, c in enumerate(log.commits):
        if as_json:
            d = c.as_json()
            if args.patch:
                d["patch"] = svc.item_diff(args.filename, c).patch
            if getattr(args, "stale", None):
                d["stale"] = args.stale
            write_text(sys.stdout, safe_json(JSON.encode(d)) + "\n")
            continue
        fields = [c.short, f"{c.date:%Y-%m-%d %H:%M}", c.actor_label, c.summary, c.subject]
        if args.patch:
            say(("\n" if n else "") + "  ".join(safe_line(f) for f in fields))
            say(safe_text(svc.item_diff(args.filename, c).patch) or "(no change to the text)")
        else:
            say(("  " if tty else "\t").join(safe_line(f) for f in fields))
    if log.older:
        older = f"{log.older} older commit{'s' if log.older != 1 else ''}"
        say_err(f"{older} not shown (--limit {args.limit + log.older} shows them)")
    return 0


def cmd_stats(svc: Any, args: argparse.Namespace) -> int:
    from datetime import UTC

    from atk_tui.service.history.stats import duration, parse_since

    since = parse_since(args.since or "30d", now=datetime.now(UTC))
    st = svc.wait_stats(since=since)
    if args.json:
        record = st.to_json()
        if getattr(args, "stale", None):
            record["stale"] = args.stale
        write_text(sys.stdout, safe_json(json.dumps(record, ensure_ascii=False)) + "\n")
        return 0
    say(st.headline())
    if st.open:
        say("")
        say(f"{'WAITED':>12}  {'BLOCKS':>9}  QUESTION")
        for w in st.open:
            say(f"{duration(w.wait):>12}  {w.blocked_direct:>4}/{w.blocked_all:<4}  {safe_line(w.filename)}  {safe_line(w.title)}")
    say("")
    period = f"since {st.since:%Y-%m-%d}" if st.since else "all time"
    if st.answered:
        med = duration(st.median) if st.median is not None else "-"
        p90 = duration(st.p90) if st.p90 is not None else "-"
        say(f"{period}: {len(st.answered)} answered · median wait {med} · 90th percentile {p90}")
    else:
        say(f"{period}: no questions answered")
    if st.removed:
        say(f"{len(st.removed)} removed unanswered")
    if st.deadlines:  # SPEC §16: answered within the deadline, per urgency and per agent
        say("")
        say("answered within the deadline (p50/p90: waits of the answered):")
        for r in st.deadlines:
            within = f"{r.within}/{r.with_deadline} within" if r.with_deadline else "no deadline"
            waits = f"p50 {duration(r.p50)} · p90 {duration(r.p90)}" if r.p50 is not None and r.p90 is not None else "no answers"
            late = f" · {r.overdue_now} overdue now" if r.overdue_now else ""
            say(f"  {r.by:<7} {safe_line(r.name)[:24]:<24} {r.answered:>4} answered · {within} · {waits}{late}")
    if st.longest:
        say("")
        say("longest waits:")
        for w in st.longest:
            say(f"{duration(w.wait):>12}  {w.status:<8}  {safe_line(w.filename)}")
    if st.per_day and any(n for _, n in st.per_day):
        say("")
        say("answers per day:")
        for day, n in st.per_day:
            if n:
                say(f"  {day.isoformat()}  {'#' * min(n, 60)} {n}")
    return 0


def cmd_commit(svc: Any, args: argparse.Namespace) -> int:
    """`atk wi commit`. As the user it commits what is in the work tree as the user's
    (`Atk-Actor: user`), whoever wrote it (agents work in the same tree): it lists every
    change and the user's decisions among them (`svc.conflicts.pending_changes`), then asks (a
    terminal) or needs `--yes` (exit 2 without it). An agent's commit is judged by the rules."""
    if svc.actor != "user":
        return report(svc.conflicts.commit_pending())
    changes = svc.conflicts.pending_changes()
    if not changes:
        return report(svc.conflicts.commit_pending(confirmed=changes))
    n = len(changes)
    decisions = sum(1 for c in changes if c.notes)
    say(f"to commit as yours (Atk-Actor: user): {n} change{'s' if n != 1 else ''}"
         + (f", {decisions} with your decisions (answers, comments, moves)" if decisions else ""))  # fmt: skip
    for c in changes:
        say(f"  {'!' if c.notes else ' '} {safe_line(c.describe())}")
    if not args.yes:
        if not sys.stdin.isatty():
            say_err(
                "not committed: these changes are in the work tree but were not made through atk (an agent in the "
                f"same store may have written them); check them, then run `atk {args.cmd} commit --yes` to commit them "
                "as yours"
            )
            return 2
        sys.stderr.write("Commit these as yours? [y/N] ")
        sys.stderr.flush()
        answer = sys.stdin.readline().strip().casefold()
        if answer not in ("y", "yes"):
            say_err("not committed (nothing changed)")
            return 1
    return report(svc.conflicts.commit_pending(confirmed=changes))


def cmd_conflicts(svc: Any, args: argparse.Namespace) -> int:
    if args.action == "list":
        if args.ref or args.mine or args.theirs:
            raise AtkError("`atk wi conflicts` lists; use `show REF` or `apply REF --mine|--theirs`", exit_code=2)
        total = svc.conflicts.count()
        found = svc.conflicts.list(limit=args.limit)  # paged: the time is what is shown (issue 38)
        if not found:
            say("no set-aside conflicts" if not total else f"{total} set-aside conflicts; none shown (--limit {args.limit})")
        for c in found:
            say("\t".join(safe_line(x) for x in (c.ref, c.when, c.subject, " ".join(c.files))))
        if total > len(found):
            more = total - len(found)
            say_err_line(f"warning: {more} more set-aside conflict{'s' if more != 1 else ''} not shown (the oldest "
                         f"{len(found)} are); `--limit {total}` lists them all")  # fmt: skip
        return 0
    if not args.ref:
        raise AtkError(f"`atk wi conflicts {args.action}` needs a REF (see `atk wi conflicts`)", exit_code=2)
    if args.action == "show":
        if args.mine or args.theirs:
            raise AtkError("--mine/--theirs go with apply", exit_code=2)
        for path, mine, theirs in svc.conflicts.versions(args.ref):
            now = "theirs (current)"
            parts = path.split("/")
            if theirs is None and len(parts) == 3:
                # the item moved since (issue 39): shown where it is now, not as deleted
                moved = [(q, st) for q, st in svc.store.find(parts[2], [parts[0]]) if f"{q}/{st}" != f"{parts[0]}/{parts[1]}"]
                found = svc.core.blobs([f"HEAD:{q}/{st}/{parts[2]}" for q, st in moved]) if moved else []
                for (q, st), data in zip(moved, found, strict=True):
                    if data is not None:
                        theirs, now = data, f"theirs (current: the item is now in {q}/{st}/)"
                        break
            for label, data in (("mine (set aside)", mine), (now, theirs)):
                say(f"=== {safe_line(path)}: {label} ===")
                say(safe_text(data.decode("utf-8", "replace")) if data is not None else "(no file)")
        return 0
    if not (args.mine or args.theirs):
        raise AtkError("apply needs --mine (keep the set-aside version) or --theirs (keep the current one)", exit_code=2)
    return report(svc.conflicts.resolve(args.ref, "mine" if args.mine else "theirs"))


def cmd_plans_commit(svc: Any, args: argparse.Namespace) -> int:
    from atk_tui.host.config import plans_root
    from atk_tui.service.writing.plans import commit_plans

    out = commit_plans(svc, args.paths, plans_root(args.plans_root))
    if not out.ok:
        for w in out.warnings:
            say_err_line(f"warning: {w}")
        say_err(out.message)
        return out.exit_code or 1
    line, beside = written_line(out)
    for w in beside:
        say_err_line(w)
    say(line)
    for line in out.stored:
        say(line)
    return 0


def cmd_agents(svc: Any, args: argparse.Namespace) -> int:
    from atk_tui.service import notices

    c = args.agentscmd
    if c == "notify":
        from atk_tui.domain.sources import normalise_source

        given = args.body_file
        if given and given != "-" and not Path(given).expanduser().is_absolute():
            raise AtkError(
                f"--body-file needs an absolute path (confirmation-and-uwi sends `--body-file=<絶対パス>`), got {given!r}; "
                f"relative to where atk runs now it would be {Path.cwd() / given}: pass that absolute path",
                exit_code=2,
            )
        source, said = normalise_source(args.source)
        if said:
            say_err_line(f"warning: {said}")
        return report(notices.notify(svc, body_of(args), source=source))
    if c == "dismiss":
        from atk_tui.service.resolve import resolve_among

        known = {n.filename for n in notices.list_notices(svc.root)}
        return report(notices.dismiss(svc, [resolve_among(f, known) for f in args.filenames]))
    listed = notices.list_notices(svc.root)
    if args.json or (is_agent_env() and not args.no_json):
        for n in listed:
            write_text(sys.stdout, JSON.encode(n.as_json()) + "\n")
        return 0
    rows = [[safe_line(f) for f in (n.filename, n.created.isoformat() if n.created else "?", n.source or "-", n.title)]
            for n in listed]
    if not sys.stdout.isatty():
        for row in rows:
            say("\t".join(row))
        return 0
    import shutil

    if not rows:
        say("no notices")
    for line in terminal_table(rows, shutil.get_terminal_size((120, 24)).columns, caps=(48, 25, 20)):
        say(line)
    return 0


#: `atk wi wait`'s exit code for a named item that is nowhere (issue 39): not 1, a timeout's
WAIT_MISSING = 3


def cmd_wait(svc: Any, args: argparse.Namespace) -> int:
    """`atk wi wait F... [--timeout S]`: every named question answered (exit 0, printed by
    `show`), or the time is up (exit 1, naming those still open). Looks at the remote about
    once a second (`store.freshen`, window 0), backing off while it does not answer."""
    import time

    from atk_tui.service.reading.freshen import freshen, stale_message

    noun = "TBD" if svc.q.name == "mq" else "UWI"
    stale = None
    if svc.pull_on_write:
        # issue 39: an item filed on another clone is looked for on the remote before `wait`
        # says there is no such item (window 0: whatever the last read found)
        stale = freshen(svc.root, window=0).stale
        if stale:
            say_err_line(stale_message(stale))
        from atk_tui.service.resolve import resolve_names

        args.filenames = resolve_names(svc.store, args.filenames, svc.queues)  # a prefix may resolve now
    for name in args.filenames:
        try:
            item = svc.show(name)
        except AtkError as exc:
            if getattr(exc, "code", "") != "missing":
                raise
            where = (
                "on this clone (`--skip-pull`: the remote was not asked)" if not svc.pull_on_write
                else f"on this clone, and the remote could not be asked ({stale})" if stale
                else "on this clone nor on the remote"
            )
            raise AtkError(
                f"no such item: {exc.message.removeprefix('no item named ')} ({where}); nothing to wait for: check the "
                f"filename (`atk {svc.q.name} list --text WORD`)",
                exit_code=WAIT_MISSING, code="missing",
            ) from None
        if not item.is_question:
            raise AtkError(f"{name} is not a {noun}: only a question is answered (`atk {svc.q.name} show {name}`)", exit_code=2)
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    step, said = WAIT_STEP, stale
    while True:
        stale = None
        if svc.pull_on_write:
            stale = freshen(svc.root, window=0).stale
            if stale != said:  # said once per change of reason, not every second
                if stale:
                    say_err_line(stale_message(stale))
                said = stale
            step = min(step * 2, WAIT_MAX_STEP) if stale else WAIT_STEP
        open_ = [n for n in args.filenames if not answered(svc.show(n), svc)]
        if not open_:
            args.stale = stale
            from atk_tui.cli.commands import cmd_show

            return cmd_show(svc, args)
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            say_err(still_waiting(open_, args.timeout))
            return 1
        time.sleep(step if left is None else min(step, left))
