"""`atk`: the command line agents and scripts use (SPEC §3, §5, §7, §8).

Exit codes: 0 success; 1 refused or failed (state conflict, validation, store busy, git);
2 usage error, or a user-only write attempted from an agent environment.
This module never imports Textual.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from .core.config import ConfigError, is_agent_env, resolve_store
from .core.model import ACTIVE, PROCESSABLE, STATES, Item
from .core.readiness import Judgement
from .core.store import AtkError, init_store
from .core.textsafe import safe_json, safe_line, safe_text

EPILOG = """\
exit codes:
  0  success
  1  refused or failed: state conflict, validation, store busy, git error
  2  usage error, or a user-only write (answer, comment, a body with '## 回答' or
     '## ユーザーコメント') attempted from an agent environment

the store: --store PATH, else $ATK_PRIVATE_NOTES, else private_notes in
$XDG_CONFIG_HOME/atk/config.toml. Agent environment: any of AI_AGENT, CODEX_CI,
CLAUDECODE, CURSOR_AGENT set non-empty.
"""


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors escaped: they quote the arguments (which may hold a
    filename copied from a hostile store) and must not emit raw control characters."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, safe_text(f"{self.prog}: error: {message}\n"))


def _common() -> argparse.ArgumentParser:
    p = _Parser(add_help=False)
    p.add_argument("--store", help="the store (default: $ATK_PRIVATE_NOTES or the config file)")
    p.add_argument("--target-repo", dest="only_repo", help="refuse items whose target_repo is not this")
    p.add_argument("--skip-pull", action="store_true", help="do not pull before writing")
    p.add_argument("--skip-push", action="store_true", help="do not push after writing")
    return p


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = _Parser(
        prog="atk",
        description="Work items in a git store, for agents and people.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="cmd", required=True, metavar="{init,config,wi}")

    p = sub.add_parser("init", help="make PATH a store (git init, the five state folders, one commit)")
    p.add_argument("path")

    p = sub.add_parser("config", help="print resolved configuration", parents=[common])
    p.add_argument("action", choices=["get"])
    p.add_argument("key", choices=["private_notes"])

    wi = sub.add_parser("wi", help="work item commands", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    w = wi.add_subparsers(dest="wicmd", required=True)

    def cmd(name: str, help_: str) -> argparse.ArgumentParser:
        return w.add_parser(name, help=help_, parents=[common], epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)

    p = cmd("list", "list items (JSON Lines by default in an agent environment)")
    p.add_argument("--status", default="active", help="active (default), processable, all, or a state")
    p.add_argument("--kind", choices=["awi", "uwi"])
    p.add_argument("--text", help="only items whose filename, title, repo or body contains TEXT")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="JSON Lines")
    g.add_argument("--no-json", action="store_true", help="text rows")
    g.add_argument("--count", action="store_true", help="print the number of items")

    p = cmd("show", "print an item")
    p.add_argument("filename")
    p.add_argument("--json", action="store_true", help="metadata and readiness as JSON")

    p = cmd("add", "add an item to inbox; prints the saved item, filename first")
    p.add_argument("message", nargs="?", help="the body (use --body-file for quotes or newlines)")
    p.add_argument("--body-file", help="read the body from this file ('-' for stdin)")
    p.add_argument("--kind", choices=["awi", "uwi"], default="awi")
    p.add_argument("--source", help="where the item comes from (required for agents)")
    p.add_argument("--plan-file", help="$(atk config get private_notes)/plans/YYYY/MM/<name>.md")
    p.add_argument("--depends-on", action="append", default=[], metavar="FILENAME")
    p.add_argument("--urgency", choices=["blocking", "next-review", "informational"])
    p.add_argument("--target-commit")

    p = cmd("edit", "replace an item's body; prints the saved item, filename first")
    p.add_argument("filename")
    p.add_argument("message", nargs="?")
    p.add_argument("--body-file")

    for name, help_ in (("hold", "inbox -> hold"), ("unhold", "hold -> inbox"), ("rm", "remove an inbox or hold item (kept in git history)")):
        cmd(name, help_).add_argument("filename")
    p = cmd("start-processing", "inbox -> processing (all or nothing)")
    p.add_argument("filenames", nargs="+")
    p = cmd("adopt", "processing -> adopted (an answered UWI also from inbox)")
    p.add_argument("filename")
    p.add_argument("--note")
    p.add_argument("--commit", dest="sha", metavar="SHA", help="the full commit SHA that adopted it")
    p = cmd("reject", "processing -> rejected")
    p.add_argument("filename")
    p.add_argument("--note")
    p = cmd("return-to-inbox", "processing -> inbox (or rejected -> inbox with --state=rejected)")
    p.add_argument("filename")
    p.add_argument("--state", choices=["processing", "rejected"], default="processing")
    p = cmd("set-dependencies", "replace depends_on (no --depends-on clears it)")
    p.add_argument("filename")
    p.add_argument("--depends-on", action="append", default=[], metavar="FILENAME")
    p = cmd("convert-to-plan", "set plan_file on an AWI")
    p.add_argument("filename")
    p.add_argument("--plan-file", required=True)
    p = cmd("answer", "answer a UWI (user only)")
    p.add_argument("filename")
    p.add_argument("--choose", action="append", default=[], metavar="N=LETTER", help="N=LETTER, or LETTER alone for question 1")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--text")
    g.add_argument("--text-file")
    p.add_argument("--replace", action="store_true", help="replace an existing answer")
    p = cmd("comment", "append to an AWI's ## ユーザーコメント section (user only)")
    p.add_argument("filename")
    p.add_argument("message", nargs="?")
    p.add_argument("--text-file")
    cmd("commit", "commit pending item files and push unpushed commits")
    return parser


_SURROGATE = re.compile("[\ud800-\udfff]")


def _write(stream: Any, text: str) -> None:
    """Write `text` as valid text: the surrogates a file name that is not UTF-8 decodes to are
    written as backslash escapes (`\\udcff`, also a valid JSON escape), never as raw bytes,
    and characters the stream cannot encode are escaped instead of raising."""
    if _SURROGATE.search(text):
        text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    try:
        stream.write(text)
    except UnicodeEncodeError:
        enc = getattr(stream, "encoding", None) or "utf-8"
        stream.write(text.encode(enc, "backslashreplace").decode(enc))


def _out(text: str = "") -> None:
    # escaped piped or not: `atk wi show F | cat` (or `| less -R`) must not replay an OSC 52
    text = safe_text(text)
    _write(sys.stdout, text if text.endswith("\n") or not text else text + "\n")


def _err(text: str) -> None:
    _write(sys.stderr, "atk: " + safe_text(text).rstrip("\n") + "\n")


def _read_file(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise AtkError(f"cannot read {path}: {exc.strerror}", exit_code=2) from exc
    except UnicodeDecodeError as exc:
        raise AtkError(f"{path} is not UTF-8 text", exit_code=2) from exc


def _body(args: argparse.Namespace, *, attr: str = "body_file") -> str:
    file = getattr(args, attr, None)
    if file and args.message is not None:
        raise AtkError("give the body as MESSAGE or as a file, not both", exit_code=2)
    if file:
        return _read_file(file)
    if args.message is None:
        raise AtkError("no body: give MESSAGE or --body-file", exit_code=2)
    return args.message


def item_json(item: Item, j: Judgement | None, blocks: tuple[int, int] | None = None) -> dict[str, Any]:
    def t(v: datetime | None) -> str | None:
        return v.isoformat() if v else None

    d: dict[str, Any] = {
        "filename": item.filename,
        "state": item.state,
        "kind": item.kind,
        "type": item.awi_type if item.kind == "awi" else None,
        "target_repo": item.target_repo,
        "title": item.title,
        "source": item.source,
        "status": j.status if j else None,
        "ready": j.ready if j else False,
        "reasons": [r.message for r in j.reasons] if j else [],
        "depends_on": item.depends_on,
        "urgency": item.urgency if item.kind == "uwi" else None,
        "answered": item.answered if item.kind == "uwi" else None,
        "plan_file": item.plan_file,
        "cooldown_until": t(item.cooldown_until),
        "created": t(item.created),
        "note": item.note,
        "commit": item.commit,
        "defects": item.defects,
        "warnings": item.warnings,
    }
    if blocks:
        d["blocks"] = {"direct": blocks[0], "transitive": blocks[1]}
    return d


_JSON = json.JSONEncoder(ensure_ascii=False)  # one encoder for every line of a listing


def _states(status: str) -> list[str]:
    if status == "active":
        return list(ACTIVE)
    if status == "processable":
        return list(PROCESSABLE)
    if status == "all":
        return list(STATES)
    if status in STATES:
        return [status]
    raise AtkError(f"--status takes active, processable, all or a state ({', '.join(STATES)})", exit_code=2)


def cmd_list(svc: Any, args: argparse.Namespace) -> int:
    items, view = svc.list(_states(args.status), kind=args.kind, text=args.text)
    if args.count:
        _out(str(len(items)))
        return 0
    as_json = args.json or (is_agent_env() and not args.no_json)
    if as_json:
        raw_encode = _JSON.encode

        def encode(obj: Any) -> str:
            return safe_json(raw_encode(obj))

        judgements, blocks = view.judgements, view.blocks
        lines = [encode(item_json(i, judgements.get(i.filename), blocks.get(i.filename))) for i in items]
        if lines:
            _write(sys.stdout, "\n".join(lines) + "\n")
        return 0
    tty = sys.stdout.isatty()
    if tty:
        import shutil

        width = shutil.get_terminal_size((120, 24)).columns
    else:
        width = 0
    for item in items:
        j = view.judgements.get(item.filename)
        badge = j.status if j else "?"
        if j and j.reasons and j.status in ("blocked", "defective"):
            badge += f" ({j.reasons[0].message})"
        kind = item.kind.upper() + (f"/{item.awi_type}" if item.kind == "awi" else f"/{item.urgency}")
        # item text is escaped piped or not: `| less -R` or `| cat` must not replay an OSC 52
        fields = [item.filename, item.state, kind, item.target_repo, item.title, badge]
        row = ("  " if tty else "\t").join(safe_line(f) for f in fields)
        if tty and len(row) > width:
            row = row[: max(width - 1, 10)] + "…"
        _out(row)
    for d in view.store_defects:
        _err(f"store defect: {d.path}: {d.message}")
    return 0


def cmd_show(svc: Any, args: argparse.Namespace) -> int:
    item = svc.show(args.filename)
    if args.json:
        view = svc.queue()
        d = item_json(item, view.judgements.get(item.filename), view.blocks.get(item.filename))
        d["body"] = item.body
        _write(sys.stdout, safe_json(json.dumps(d, ensure_ascii=False)) + "\n")
        return 0
    _out(item.text)
    for w in item.defects:
        _err(f"defect: {w}")
    return 0


def _report(out: Any) -> int:
    for w in out.warnings:
        _err(f"warning: {w}")
    if not out.ok:
        _err(out.message)
        return out.exit_code or 1
    if out.op in ("add", "edit") and out.item is not None:
        _out(out.item.filename)
        _out(out.item.text)
    else:
        _out(out.message + (f" ({out.commit[:10]})" if out.commit else ""))
    return 0


def _choices(values: Sequence[str]) -> dict[int, str]:
    out: dict[int, str] = {}
    for v in values:
        num, sep, letter = v.partition("=")
        if not sep:
            num, letter = "1", v
        if not num.strip().isdigit() or len(letter.strip()) != 1 or not letter.strip().isalpha():
            raise AtkError(f"--choose takes N=LETTER (e.g. 2=B) or a LETTER, got {v!r}", exit_code=2)
        out[int(num)] = letter.strip().upper()
    return out


def run(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.cmd == "init":
            root, created = init_store(args.path)
            _out(f"initialised store at {root}" if created else f"{root} is already a store; nothing changed")
            return 0
        from .core.service import Service

        root = resolve_store(args.store)
        if args.cmd == "config":
            # the resolved path, store or not yet: scripts build plan paths from it
            _out(str(root))
            return 0
        svc = Service(root, only_repo=args.only_repo, pull=not args.skip_pull, push=not args.skip_push)
        c = args.wicmd
        if c == "list":
            return cmd_list(svc, args)
        if c == "show":
            return cmd_show(svc, args)
        if c == "add":
            return _report(
                svc.add(
                    kind=args.kind, target_repo=args.only_repo or "", body=_body(args), source=args.source,
                    plan_file=args.plan_file, depends_on=args.depends_on, urgency=args.urgency,
                    target_commit=args.target_commit,
                )
            )
        if c == "edit":
            return _report(svc.edit(args.filename, _body(args)))
        if c in ("hold", "unhold"):
            return _report(svc.transition(c, [args.filename]))
        if c == "start-processing":
            return _report(svc.start_processing(args.filenames))
        if c == "adopt":
            return _report(svc.adopt(args.filename, note=args.note, commit=args.sha))
        if c == "reject":
            return _report(svc.reject(args.filename, note=args.note))
        if c == "return-to-inbox":
            return _report(svc.return_to_inbox(args.filename, from_state=args.state))
        if c == "rm":
            return _report(svc.rm(args.filename))
        if c == "set-dependencies":
            return _report(svc.set_dependencies(args.filename, args.depends_on))
        if c == "convert-to-plan":
            return _report(svc.convert_to_plan(args.filename, args.plan_file))
        if c == "answer":
            text = _read_file(args.text_file) if args.text_file else (args.text or "")
            return _report(svc.answer(args.filename, choices=_choices(args.choose), text=text, replace=args.replace))
        if c == "comment":
            return _report(svc.comment(args.filename, _body(args, attr="text_file")))
        if c == "commit":
            return _report(svc.commit_pending())
        parser.error(f"unknown command {c}")
    except (AtkError, ConfigError) as exc:
        _err(str(exc))
        return getattr(exc, "exit_code", 1)
    except BrokenPipeError:
        os._exit(0)
    return 0


def _exit_on_signal(signum: int, _frame: object) -> None:
    # SystemExit unwinds like an error: the write rolls back and its child processes (a
    # stuck hook, a git push) are killed with their process groups instead of outliving atk
    raise SystemExit(128 + signum)


def main() -> None:
    import signal

    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            signal.signal(sig, _exit_on_signal)
        except (ValueError, OSError):  # not the main thread, or no such signal here
            pass
    sys.exit(run())


if __name__ == "__main__":
    main()
