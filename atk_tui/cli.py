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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .cli_items import Nouns, add_item_commands
from .core.config import ConfigError, is_agent_env, resolve_store
from .core.model import KINDS, STATES, Item
from .core.ops import TRANSITIONS
from .core.queues import MQ, WI, Queue
from .core.readiness import Judgement
from .core.store import AtkError, init_store
from .core.textsafe import safe_json, safe_json_line, safe_line, safe_text
from .quicklist import DERIVED, listing_cache, serve, write_listing
from .version import VersionAction

EPILOG = """\
exit codes:
  0  success
  1  refused or failed: state conflict, validation, store busy, git error
  2  usage error, or a user-only write (answer, comment, a body with '## 回答' or
     '## ユーザーコメント' in any heading form, a commit changing one) attempted from an
     agent environment

the store: --store PATH, else $ATK_PRIVATE_NOTES, else private_notes in
$XDG_CONFIG_HOME/atk/config.toml. Agent environment: any of AI_AGENT, CODEX_CI,
CLAUDECODE, CURSOR_AGENT set non-empty.
"""

EXAMPLES = """

examples:
  atk wi list --status=ready                        # what an agent can pick up (JSON Lines for an agent)
  atk wi show 20261129-051200-login-rule            # one item, by filename or a unique prefix
  atk wi add --kind uwi --target-repo acme/web --source agent --body-file q.md   # ask the person
"""


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors escaped: they quote the arguments (which may hold a
    filename copied from a hostile store) and must not emit raw control characters."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, safe_text(f"{self.prog}: error: {message}\n"))


#: what `--target-repo` does, said per command (`target_repo_help`)
TARGET_REPO_HELP = {
    "add": "the new item's target_repo (required): the item is written with it",
    "list": "list only items whose target_repo is this",
    "process-loop": "start sessions only for ready items whose target_repo is this",
    "elsewhere": "look only at this GitHub repository (OWNER/REPO)",
    **dict.fromkeys(
        ("commit", "conflicts", "stats", "schema", "config", "notify", "notices", "dismiss"),
        "not used by this command (every command accepts it)",
    ),
}
TARGET_REPO_ITEMS = "refuse an item whose target_repo is not this (nothing is changed)"
TARGET_REPO_TOP = (
    "per command: `add` writes the new item with it; `list` and `process-loop` keep only items with it; "
    "the other item commands refuse an item whose target_repo differs"
)


def target_repo_help(command: str | None) -> str:
    """`--target-repo`'s help on `command` (None: before the command, `atk --target-repo R …`)."""
    if command is None:
        return TARGET_REPO_TOP
    return TARGET_REPO_HELP.get(command, TARGET_REPO_ITEMS)


def _global_options(p: argparse.ArgumentParser, *, suppress: bool, command: str | None = None) -> None:
    """The options every command takes, before or after the subcommand: on a subcommand
    their default is SUPPRESS, so a value given before it (`atk --store S wi list`) stays."""
    kw: dict[str, Any] = {"default": argparse.SUPPRESS} if suppress else {}
    p.add_argument("--store", help="the store (default: $ATK_PRIVATE_NOTES or the config file)", **kw)
    p.add_argument("--target-repo", dest="only_repo", metavar="REPO", help=target_repo_help(command), **kw)
    p.add_argument(
        "--skip-pull", action="store_true", **kw,
        help="do not pull: a write does not pull before it commits, a read answers from this clone's copy "
        "without asking the remote (reads look at most once every few seconds; see `[git] read_window`)",
    )
    p.add_argument("--skip-push", action="store_true", help="do not push after writing", **kw)


def _common() -> argparse.ArgumentParser:
    """The global options of a command that takes no item (config, plans commit, agents …)."""
    p = _Parser(add_help=False)
    _global_options(p, suppress=True, command="config")
    return p


def item_command(sub: Any, name: str, help_: str, epilog: str) -> argparse.ArgumentParser:
    """An `atk wi`/`atk mq` command, with the global options said for it (`--target-repo`)."""
    import textwrap  # argparse's own import: no cost

    p = sub.add_parser(
        name, help=help_, description=textwrap.fill(help_, 78), epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _global_options(p, suppress=True, command=name)
    return p


COMPLETION_SHELLS = ("bash", "zsh", "fish")

#: where each shell loads a completion script from on demand (docs/user-guide.md says the same)
COMPLETION_INSTALL = {
    "bash": ("~/.local/share/bash-completion/completions/{prog}", "needs the bash-completion package"),
    "zsh": ("~/.zfunc/_{prog}", "with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc"),
    "fish": ("~/.config/fish/completions/{prog}.fish", "fish loads it on demand"),
}


def completion_install_path(shell: str, prog: str = "atk") -> str:
    return COMPLETION_INSTALL[shell][0].format(prog=prog)


def completion_script(shell: str, prog: str = "atk") -> str:
    """The completion script for `prog` in `shell`, generated from the argparse parser itself
    (shtab), so a new command or option is completed without anyone editing a script."""
    import shtab

    if prog == "atk-tui":
        from .__main__ import build_parser as tui_parser

        parser = tui_parser()
    else:
        parser = build_parser()
    return _install_header(shtab.complete(parser, shell=shell), shell, prog)


def _install_header(script: str, shell: str, prog: str) -> str:
    """shtab's own "Usage" comment names folders no shell reads by default: say ours."""
    lines = script.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith("# Usage:")), None)
    if start is None:
        return script
    end = start + 1
    while end < len(lines) and lines[end].startswith("#"):
        end += 1
    path, note = COMPLETION_INSTALL[shell]
    mine = [f"# Install: atk completion {shell}{' --prog ' + prog if prog != 'atk' else ''} > {path.format(prog=prog)}", f"# ({note}), then open a new shell."]
    return "\n".join(lines[:start] + mine + lines[end:])


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = _Parser(
        prog="atk",
        description="Work items in a git store, for agents and people.",
        epilog=EPILOG + EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=VersionAction)
    _global_options(parser, suppress=False)
    sub = parser.add_subparsers(dest="cmd", required=True, metavar="{init,config,wi,mq,plans,agents,elsewhere,completion}")

    p = sub.add_parser("init", help="make PATH a store (git init, the five state folders, one commit)")
    p.add_argument("path")

    p = sub.add_parser(
        "completion", help="print a shell completion script (see the README for where to put it)",
        description="Print the completion script for SHELL, generated from this parser. bash: "
        "atk completion bash > ~/.local/share/bash-completion/completions/atk; zsh: "
        "atk completion zsh > ~/.zfunc/_atk (with fpath+=~/.zfunc before compinit); fish: "
        "atk completion fish > ~/.config/fish/completions/atk.fish",
    )
    p.add_argument("shell", choices=COMPLETION_SHELLS)
    p.add_argument("--prog", choices=["atk", "atk-tui"], default="atk", help="the command to complete (default: atk)")

    p = sub.add_parser(
        "config",
        help="print the resolved configuration (every key, and where its value comes from); `get KEY` prints one value",
        parents=[common],
    )
    p.add_argument("action", nargs="?", choices=["get"])
    p.add_argument("key", nargs="?", choices=["private_notes", "plans_root"])

    wi = sub.add_parser("wi", help="work item commands", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    w = wi.add_subparsers(dest="wicmd", required=True)

    def cmd(name: str, help_: str) -> argparse.ArgumentParser:
        return item_command(w, name, help_, EPILOG)

    add_item_commands(
        cmd,
        Nouns(
            question="UWI",
            request="AWI",
            kinds=KINDS,
            default_kind="awi",
            status_help="active (default), processable, ready, blocked, all, or a state",
            return_states=[s for s in STATES if s in TRANSITIONS["return-to-inbox"].agent_from],
        ),
    )
    p = cmd("conflicts", "list commits set aside by `atk wi commit`; show one; apply one side")
    p.add_argument("action", nargs="?", choices=["list", "show", "apply"], default="list")
    p.add_argument("ref", nargs="?", help="refs/atk/conflicts/<sha>, or the SHA (a prefix will do)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--mine", action="store_true", help="apply: keep the set-aside commit's version")
    g.add_argument("--theirs", action="store_true", help="apply: keep the remote's version, drop the set-aside commit")
    p = cmd("stats", "how long questions have waited for the user, and what they blocked")
    p.add_argument("--since", metavar="DATE", help="the period: a date (2026-11-01), a time with a timezone, or a duration back (7d, 12h); default 30d")
    p.add_argument("--json", action="store_true", help="one JSON object, for scripts")
    p = cmd("schema", "print the JSON Schema of an item's frontmatter, the config file or the --json record")
    p.add_argument("--which", choices=["item", "config", "record"], default="item")
    p = cmd("process-loop", "the resident loop: start CMD for ready work, at most N at once")
    p.add_argument(
        "--run",
        required=True,
        metavar="CMD",
        help="run through the shell with ATK_PRIVATE_NOTES, ATK_TARGET_REPO and ATK_READY_FILES "
        "(every ready file) set, and the same by state: ATK_READY_PROCESSING_FILES, ATK_READY_INBOX_FILES",
    )
    p.add_argument("--max-parallel", type=int, default=1, metavar="N")
    p.add_argument("--once", action="store_true", help="run what is ready now, wait for it, exit")
    p.add_argument("--queue", choices=["wi", "mq"], default="wi", help="the queue whose ready work is started")
    p.add_argument("--pull-interval", type=float, default=2.0, metavar="SECONDS",
                   help="look at the remote before a scan at most this often and fast-forward to it (default 2; 0 never; --skip-pull too)")
    p.add_argument("--interval", type=float, default=0.5, help=argparse.SUPPRESS)

    from .cli_mq import add_mq_parser

    add_mq_parser(sub, common, EPILOG)

    plans = sub.add_parser("plans", help="plan files", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    pl = plans.add_subparsers(dest="planscmd", required=True)
    p = pl.add_parser(
        "commit", parents=[common], epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        help="move plan files (and same-stem companions) from the planning root into the store's plans/YYYY/MM/",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--plans-root", help="the planning work root (default: plans_root in the config, else ~/.claude/plans)")

    agents = sub.add_parser("agents", help="notices from agents to the user", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ag = agents.add_subparsers(dest="agentscmd", required=True)
    p = ag.add_parser("notify", parents=[common], help="leave a notice for the user (one commit)")
    p.add_argument("message", nargs="?")
    p.add_argument("--body-file", help="read the notice from this file: an absolute path ('-' for stdin)")
    p.add_argument("--source", help="who sends it (e.g. process-wi)")
    p = ag.add_parser("notices", parents=[common], help="list notices (JSON Lines in an agent environment)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true")
    g.add_argument("--no-json", action="store_true")
    p = ag.add_parser("dismiss", parents=[common], help="dismiss a notice (user only)")
    p.add_argument("filenames", nargs="+", metavar="filename")

    from .cli_elsewhere import add_elsewhere_parser

    add_elsewhere_parser(sub, EPILOG)
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
    """A message on stderr, through the one sanitiser as stdout is (`safe_text`: line breaks
    the message itself makes are kept). A field from the store in it (a filename, a defect,
    a warning) goes through `safe_line` first, `_err_line` for a one-line record: a raw
    newline or tab in a filename must not make a line of its own (issue 25)."""
    _write(sys.stderr, "atk: " + safe_text(text).rstrip("\n") + "\n")


def _err_line(text: str) -> None:
    """One record on one stderr line (a warning, a loop's log line): newlines and tabs in it
    are shown escaped (`safe_line`)."""
    _err(safe_line(text))


def _read_file(path: str) -> str:
    """A user-given file's text (`-`: stdin), read for an item: at most the item size limit
    and one byte more, so an endless stream (`/dev/zero`, a FIFO, a pipe) is refused once it
    is over the limit instead of read until memory runs out (issue 25)."""
    from .core.items import MAX_ITEM_BYTES

    try:
        if path == "-":
            raw = getattr(sys.stdin, "buffer", None)  # a text stream in its place (a test, an embedder)
            data = raw.read(MAX_ITEM_BYTES + 1) if raw is not None else sys.stdin.read(MAX_ITEM_BYTES + 1).encode()
        else:
            with open(path, "rb") as fh:
                data = fh.read(MAX_ITEM_BYTES + 1)
    except OSError as exc:
        raise AtkError(f"cannot read {path}: {exc.strerror}", exit_code=2) from exc
    if len(data) > MAX_ITEM_BYTES:
        where = "stdin" if path == "-" else path
        raise AtkError(
            f"{where} is larger than the item size limit ({MAX_ITEM_BYTES // (1024 * 1024)} MiB); read stopped there "
            "and nothing was changed (an item must fit in 1 MiB: shorten it, or keep the long part in a plan file)",
            exit_code=2,
        )
    try:
        return data.decode("utf-8")
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


def item_json(
    item: Item, j: Judgement | None, blocks: tuple[int, int] | None = None, holder: Any = None
) -> dict[str, Any]:
    question, c, t = item.is_question, item.cooldown_until, item.created  # once: 10,000 lines a listing
    d: dict[str, Any] = {
        "filename": item.filename,
        "state": item.state,
        "kind": item.kind,
        "type": item.awi_type if item.is_request else None,
        "target_repo": item.target_repo,
        "title": item.title,
        "source": item.source,
        "status": j.status if j else None,
        "ready": j.ready if j else False,
        "reasons": [r.message for r in j.reasons] if j else [],
        "depends_on": item.depends_on,
        "urgency": item.urgency if question else None,
        "answered": item.answered if question else None,
        "answer_partial": item.answer_partial if question else None,
        "plan_file": item.plan_file,
        "cooldown_until": c.isoformat() if c else None,
        "created": t.isoformat() if t else None,
        "note": item.note,
        "commit": item.commit,
        "defects": item.defects,
        "warnings": item.warnings,
    }
    if blocks:
        d["blocks"] = {"direct": blocks[0], "transitive": blocks[1]}
    if holder is not None:
        d["held_by"] = holder.as_json()  # SPEC §15: who holds it, since when
    return d


_JSON = json.JSONEncoder(ensure_ascii=False)  # one encoder for every line of a listing


def _dict_encoder() -> Callable[[dict[str, Any]], str]:
    """`_JSON.encode` of a dict (the same text), without the encoder `JSONEncoder.encode`
    sets up again for every call: json's C encoder made once (without the circular reference
    check: a listing's line holds none). `_JSON.encode` where json has no C encoder."""
    make, strings = getattr(json.encoder, "c_make_encoder", None), getattr(json.encoder, "c_encode_basestring", None)
    if make is None or strings is None:
        return _JSON.encode
    j = _JSON
    encode = make(None, j.default, strings, j.indent, j.key_separator, j.item_separator, j.sort_keys, j.skipkeys, j.allow_nan)
    return lambda d: "".join(encode(d, 0))


_encode_dict = _dict_encoder()


def _states(status: str, queue: Queue = WI) -> list[str]:
    if status == "active":
        return sorted(queue.active)
    if status == "processable" or status in DERIVED:
        return sorted(queue.processable)
    if status == "all":
        return list(queue.listed_all)  # planning (mq) is seen only when named (SPEC §12)
    if status in queue.states:
        return [status]
    raise AtkError(
        f"--status takes active, processable, ready, blocked, all or a state ({', '.join(queue.states)})", exit_code=2
    )


def _listing_cache(root: Path, args: argparse.Namespace) -> Any:
    """The judged-listing cache for this `list`, when one can answer it: JSON or a count,
    no `--text` (that reads bodies)."""
    if args.text or not (args.count or args.json or (is_agent_env() and not args.no_json)):
        return None
    return listing_cache(root, args.status)


def cached_list(root: Path, args: argparse.Namespace, stale: str | None = None) -> bool:
    """A warm `atk wi list`: the cached judged listing printed when the store is as it was
    (no Service, no git). False when the full listing must run."""
    if args.text:
        return False
    as_json = args.json or (is_agent_env() and not args.no_json)
    return serve(root, args.status, args.kind, args.only_repo, as_json, args.count, (args.offset, args.limit), stale)


#: the commands that only read: each brings in what the remote has first (SPEC §15)
#: (`wait` looks at the remote itself, once a second: cli_reports.cmd_wait)
READ_COMMANDS = {("wi", c) for c in ("list", "show", "log", "stats", "conflicts")} | {
    ("mq", c) for c in ("list", "show", "log", "stats")
} | {("agents", "notices")}


def _freshen_for_read(root: Path, args: argparse.Namespace) -> str | None:
    """Before a read: the remote's commits brought in (`store.freshen`), unless --skip-pull.
    Returns why the copy may be stale (said once on stderr), None when it is current."""
    sub = getattr(args, "wicmd", None) or getattr(args, "agentscmd", None)
    if args.skip_pull or (args.cmd, sub) not in READ_COMMANDS:
        return None
    if sub == "conflicts" and args.action == "apply":
        return None
    if not (root / ".git").is_dir():
        return None
    from .core.freshen import freshen_once, stale_message

    found = freshen_once(root)
    if found.stale:
        _err_line(stale_message(found.stale))
    args.stale = found.stale
    return found.stale


def _stale(args: argparse.Namespace) -> str | None:
    """Why this read's copy may be behind the remote (`_freshen_for_read`), None if current."""
    return getattr(args, "stale", None)


def _json_line(i: Item, j: Judgement | None, blocks: tuple[int, int] | None, holder: Any = None) -> str:
    """A listing's JSON line, as `_write` prints it: a name that is not UTF-8 as its escape
    (the listing cache is UTF-8)."""
    return safe_json_line(_encode_dict(item_json(i, j, blocks, holder)))


def _held_lines(svc: Any, status: str) -> Callable[[Item, Judgement | None, tuple[int, int] | None], str]:
    """`_json_line` with each held item's holder (`held_by`): found for every item the
    listing's states hold, in one git walk, before the lines are made (a listing of no held
    state asks git nothing)."""
    held = svc.held_in(_states(status, svc.q))

    def line(i: Item, j: Judgement | None, blocks: tuple[int, int] | None) -> str:
        return _json_line(i, j, blocks, held.get(i.filename) if held else None)

    return line


def cmd_list(svc: Any, args: argparse.Namespace) -> int:
    # one listing, then exit (`--text` reads every body: the items parsed on a second core
    # come without theirs, which would be read again)
    svc.one_shot = not args.text
    cache = _listing_cache(svc.root, args) if svc.q.name == "wi" else None  # the cache knows `atk wi list`
    if cache is not None:
        lines = _held_lines(svc, args.status)
        page = (args.offset, args.limit)
        write_listing(svc, cache, args.status, args.kind, svc.only_repo, args.count, lines, page, _stale(args))
        return 0
    items, view = svc.list(_states(args.status, svc.q), kind=args.kind, text=args.text)
    if args.status in DERIVED:
        want_ready = args.status == "ready"
        items = [i for i in items if (j := view.judgements.get(i.filename)) is not None and j.ready == want_ready]
    if args.count:
        _out(str(len(items)))
        return 0
    items = items[args.offset :] if args.limit is None else items[args.offset : args.offset + args.limit]
    if args.json or (is_agent_env() and not args.no_json):
        judgements, blocks = view.judgements, view.blocks
        held = svc.held_by(items)
        lines = [_json_line(i, judgements.get(i.filename), blocks.get(i.filename), held.get(i.filename)) for i in items]
        if _stale(args):
            from .core.freshen import with_stale

            lines = [with_stale(line, _stale(args)) for line in lines]
        if lines:
            _write(sys.stdout, "\n".join(lines) + "\n")
        return 0
    from .core.ages import time_left

    tty = sys.stdout.isatty()
    rows = []
    for item in items:
        j = view.judgements.get(item.filename)
        badge = j.status if j else "?"
        if j and j.reasons and j.status in ("blocked", "defective"):
            badge += f" ({j.reasons[0].message})"
        elif j and j.status == "cooldown" and j.cooldown_until is not None:
            badge += " " + time_left(j.cooldown_until, view.now)
        kind = item.kind.upper() + (f"/{item.awi_type}" if item.is_request else f"/{item.urgency}")
        # item text is escaped piped or not: `| less -R` or `| cat` must not replay an OSC 52
        rows.append([safe_line(f) for f in (item.filename, item.state, kind, item.target_repo, item.title, badge)])
    if not tty:
        for row in rows:
            _out("\t".join(row))
    else:
        import shutil

        if not rows:
            _out("no items" + ("" if args.status == "active" else f" (--status={args.status})"))
        for line in terminal_table(rows, shutil.get_terminal_size((120, 24)).columns, caps=(48, 10, 16, 24, 60)):
            _out(line)
    for d in view.store_defects:
        _err_line(f"store defect: {d.path}: {d.message}")
    return 0


def terminal_table(rows: list[list[str]], width: int, caps: Sequence[int] = ()) -> list[str]:
    """Rows as aligned columns measured in terminal cells (a CJK character is two), each
    column padded to its widest cell (at most its cap, longer cells cut with `…`), every
    line cut to `width` cells."""
    from .core.cells import cell_len, cut, fit

    if not rows:
        return []
    ncol = max(len(r) for r in rows)
    widths = []
    for c in range(ncol):
        w = max((cell_len(r[c]) for r in rows if c < len(r)), default=0)
        widths.append(min(w, caps[c]) if c < len(caps) else w)
    out = []
    for r in rows:
        cells = [fit(v, widths[c]) if c < ncol - 1 else cut(v, widths[c]) for c, v in enumerate(r)]
        out.append(cut("  ".join(cells).rstrip(), max(width - 1, 10)))
    return out


def cmd_show(svc: Any, args: argparse.Namespace) -> int:
    """One or several items; every name is read before anything is printed (all or nothing).
    Text in and out of an agent environment (process-feedbacks: JSON Lines by default is for
    `list` only; `show` keeps its text): several items each after a `==> wi/inbox/F.md <==`
    line naming its file; `--json` for JSON Lines."""
    from .core.store import item_path

    items = [svc.show(name) for name in args.filenames]
    if args.json:
        view = svc.queue({*STATES, *MQ.states})
        judged = svc.judge_from_files([i.filename for i in items], view)  # as the files say, not a cache
        held = svc.held_by(items)
        for item in items:
            name = item.filename
            j = judged[name][1] if name in judged else view.judgements.get(name)
            d = item_json(item, j, view.blocks.get(name), held.get(name))
            d["body"] = item.body
            d["plan_file_at"] = svc.plan_file_at(item.plan_file) if item.plan_file else None
            if _stale(args):
                d["stale"] = _stale(args)
            _write(sys.stdout, safe_json(_JSON.encode(d)) + "\n")
        return 0
    held = svc.held_by(items)
    for n, item in enumerate(items):
        if len(items) > 1:
            _out(("\n" if n else "") + f"==> {item_path(item.state, item.filename, item.queue)} <==")
        _out(item.text)
        for w in item.defects:
            _err_line(f"defect: {item.filename}: {w}" if len(items) > 1 else f"defect: {w}")
        if item.filename in held:  # on stderr, beside the defects: stdout is the stored text
            _err_line(f"{item.filename}: {held[item.filename].describe()}")
    return 0


#: the service of the command running now (`run`): `_report` asks it why a commit was not pushed
_SVC: Any = None

#: the warning a write whose push failed carries (store.remote): said in its one line instead
_UNPUSHED = ("unpushed commit", "the commit is kept locally")


def _push_said(out: Any) -> tuple[str, tuple[str, ...]]:
    """(` pushed` / ` not pushed: <why>`, the warnings left to print) for a write that made
    `out.commit`; the reason a push failed is said here, not again as a warning."""
    warnings = tuple(out.warnings)
    if out.pushed:
        return " pushed", warnings
    if out.pushed is False:
        # the warning (kept: it asks for `atk wi commit`) says why; the line says it short
        why = next((w for w in warnings if any(k in w for k in _UNPUSHED)), "")
        m = re.search(r"unpushed commits? \((.*)\); run `atk wi commit`", why, re.S)
        reason = m.group(1) if m else "the remote did not answer" if "did not answer" in why else "the push failed"
        return f" not pushed: {reason} (`atk wi commit` pushes it later)", warnings
    svc = _SVC
    if svc is not None and svc.store.upstream() is None:
        return " not pushed: no remote (no upstream branch is configured)", warnings
    if svc is not None and not svc.push_on_write:
        return " not pushed: --skip-push (run `atk wi commit` to push it)", warnings
    return " not pushed: no remote", warnings


def _line(out: Any) -> tuple[str, tuple[str, ...]]:
    """(the one line saying what `out`'s write did, the warnings to print beside it)."""
    if out.commit and out.op != "commit":  # `atk wi commit` says what it pushed in its message
        said, warnings = _push_said(out)
        return f"{out.message} ({out.commit[:10]}){said}", warnings
    return out.message, tuple(out.warnings)


def _report(out: Any) -> int:
    """What a write did, said one way (README "Say what was written"): warnings on stderr,
    then exactly one line `<verb> <file> (<sha>) pushed|not pushed: <why>` for a write that
    committed (the message alone for one that committed nothing: a no-op), on stdout; `add`
    and `edit` print the saved item on stdout instead, filename first (what they promise),
    and that line on stderr. A refusal is its message on stderr (exit 1 or 2)."""
    if not out.ok:
        for w in out.warnings:
            _err_line(f"warning: {w}")
        if out.code == "conflict":
            _out(out.message)  # what was not pushed and how to resolve it: the command's result
        else:
            _err(out.message)
        return out.exit_code or 1
    line, warnings = _line(out)
    for w in warnings:
        _err_line(f"warning: {w}")
    if out.op in ("add", "edit") and out.item is not None:
        _out(out.item.filename)
        _out(out.item.text)
        _write(sys.stderr, safe_text(line).rstrip("\n") + "\n")
    else:
        _out(line)
    return 0


def _choices(values: Sequence[str]) -> dict[int, str]:
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


def _resolve_arguments(svc: Any, args: argparse.Namespace) -> None:
    """Every item filename argument through the one resolver (without `.md`, a unique prefix)."""
    from .core.resolve import resolve_name, resolve_names

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
    from .core.resolve import resolve_name

    try:
        return resolve_name(svc.store, name, None)
    except AtkError:
        return name if name.endswith(".md") else name + ".md"


def _report_plan(svc: Any, out: Any) -> int:
    """`_report`, then where the saved item's plan file is when not in the store yet."""
    code = _report(out)
    if out.ok and out.item is not None:
        for note in svc.plan_notes(out.item):
            _err_line(f"note: {note}")
    return code


def cmd_edit(svc: Any, args: argparse.Namespace) -> int:
    """`edit F --plan-file P` goes through convert-to-plan (one place normalises plan_file);
    with a body as well, the body is saved next (a second commit)."""
    if args.whole_file:
        if args.message is not None or args.body_file or args.plan_file is not None:
            raise AtkError("--whole-file replaces everything: give no MESSAGE, --body-file or --plan-file with it", exit_code=2)
        return _report_plan(svc, svc.save_text(args.filename, _read_file(args.whole_file)))
    if args.plan_file is None:
        return _report_plan(svc, svc.edit(args.filename, _body(args)))
    has_body = args.message is not None or args.body_file
    body = _body(args) if has_body else None
    from .core.config import portable_plan_file

    same = svc.show(args.filename).plan_file in (args.plan_file, portable_plan_file(svc.root, args.plan_file))
    if body is not None and same:
        return _report_plan(svc, svc.edit(args.filename, body))  # the plan file is set already
    out = svc.convert_to_plan(args.filename, args.plan_file)
    if not out.ok or body is None:
        if out.ok:
            out.op = "edit"
            out.item = svc.show(args.filename)
        return _report_plan(svc, out)
    line, warnings = _line(out)  # two writes, two lines: the edit's stdout is its saved item
    for w in warnings:
        _err_line(f"warning: {w}")
    _write(sys.stderr, safe_text(line).rstrip("\n") + "\n")
    return _report_plan(svc, svc.edit(args.filename, body))


def _config_lines(store_option: str | None) -> list[str]:
    """`atk config`: every key atk reads, its resolved value and where it comes from."""
    from .core.config import DEFAULT_GIT_TIMEOUT, config_path, load_config
    from .core.plans import DEFAULT_PLANS_ROOT, plans_root

    cfg = load_config()
    in_file = f"config file {config_path()}"
    lines = []
    try:
        store = str(resolve_store(store_option))
        where = ("--store" if store_option else "$ATK_PRIVATE_NOTES" if os.environ.get("ATK_PRIVATE_NOTES")
                 else in_file)  # fmt: skip
    except ConfigError:
        store, where = "(none)", "not set: --store, $ATK_PRIVATE_NOTES or private_notes in the config file"
    lines.append(f"private_notes = {json.dumps(store, ensure_ascii=False)}  # {where}")
    raw = cfg.get("plans_root")
    lines.append(
        f"plans_root = {json.dumps(str(plans_root()), ensure_ascii=False)}  # "
        + (in_file if raw else f"default ({DEFAULT_PLANS_ROOT})")
    )
    git = cfg.get("git") if isinstance(cfg.get("git"), dict) else {}
    from .core.config import git_limits

    limits = git_limits(cfg)
    for key, value in limits.items():
        given = git.get(key)
        if isinstance(given, int | float) and not isinstance(given, bool) and float(given) == value:
            said = in_file
        elif key != "timeout" and value == limits["timeout"] and value != DEFAULT_GIT_TIMEOUT:
            said = "git.timeout (its default)"
        else:
            said = f"default ({DEFAULT_GIT_TIMEOUT:g} s)"
        lines.append(f"git.{key} = {value:g}  # {said}")
    shown = {"private_notes", "plans_root", "git.timeout", "git.push_timeout", "git.hook_timeout"}

    def walk(prefix: str, table: dict[str, Any]) -> None:
        for k, v in table.items():
            name = f"{prefix}{k}"
            if isinstance(v, dict):
                walk(name + ".", v)
            elif name not in shown:
                lines.append(f"{name} = {json.dumps(v, ensure_ascii=False, default=str)}  # {in_file}")

    walk("", cfg)
    return lines


def cmd_process_loop(svc: Any, args: argparse.Namespace) -> int:
    from .core.loop import ProcessLoop

    if args.max_parallel < 1:
        raise AtkError("--max-parallel takes a number of sessions >= 1", exit_code=2)
    loop = ProcessLoop(svc, args.run, max_parallel=args.max_parallel, interval=args.interval,
                       pull_interval=args.pull_interval, log=_err_line)
    return loop.run(once=args.once)


def run(argv: Sequence[str] | None = None) -> int:
    global _SVC
    _SVC = None
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.cmd == "completion":
            _write(sys.stdout, completion_script(args.shell, args.prog))
            return 0
        if args.cmd == "wi" and args.wicmd == "schema":  # needs no store
            from .core.schema import json_schema  # pydantic: imported for this command only

            _out(json_schema(args.which))
            return 0
        if args.cmd == "init":
            had_store = (Path(args.path).expanduser() / "wi").is_dir()
            root, created = init_store(args.path)
            if created and had_store:
                _out(f"{root} is already a store; added the feedback queue's folders (mq/<state>/)")
            else:
                _out(f"initialised store at {root}" if created else f"{root} is already a store; nothing changed")
                if created:
                    from .core.config import how_to_point_at

                    _out(how_to_point_at(root))
            return 0
        from .core.service import Service

        if args.cmd == "config" and args.action is None:
            if args.key is not None:
                parser.error("config: `atk config` prints everything; `atk config get KEY` prints one value")
            for line in _config_lines(args.store):
                _out(line)
            return 0
        if args.cmd == "config" and args.key is None:
            parser.error("config get: which key? private_notes or plans_root")
        if args.cmd == "config" and args.key == "plans_root":
            from .core.plans import plans_root

            _out(str(plans_root()))
            return 0
        root = resolve_store(args.store)
        if args.cmd == "config":
            # the resolved path, store or not yet: scripts build plan paths from it
            _out(str(root))
            return 0
        if is_agent_env():
            from .core.holds import agent_id_from_env

            agent_id_from_env()  # a bad ATK_AGENT_ID refuses every command (exit 2), reads too
        stale = _freshen_for_read(root, args)
        if args.cmd == "wi" and args.wicmd == "list" and cached_list(root, args, stale):
            return 0
        queue = "mq" if args.cmd == "mq" or getattr(args, "queue", None) == "mq" else "wi"
        if args.cmd == "elsewhere":
            queue = None  # the active items of both queues name the repositories
        svc = Service(root, only_repo=args.only_repo, pull=not args.skip_pull, push=not args.skip_push, queue=queue)
        svc.set_lock_wait_listener(lambda msg: msg and _err_line(msg))  # a write is not silent for 10 s
        _SVC = svc
        if args.cmd == "plans":
            from .cli_reports import cmd_plans_commit

            return cmd_plans_commit(svc, args)
        if args.cmd == "agents":
            from .cli_reports import cmd_agents

            return cmd_agents(svc, args)
        if args.cmd == "elsewhere":
            from .cli_elsewhere import cmd_elsewhere

            return cmd_elsewhere(svc, args)
        _resolve_arguments(svc, args)
        c = args.wicmd
        if args.cmd == "mq":
            from .cli_mq import run_mq_only

            done = run_mq_only(svc, args, _report)
            if done is not None:
                return done
        if c == "list":
            return cmd_list(svc, args)
        if c == "show":
            return cmd_show(svc, args)
        if c == "wait":
            from .cli_reports import cmd_wait

            return cmd_wait(svc, args, cmd_show)
        if c == "add":
            out = svc.add(
                kind=args.kind, target_repo=args.only_repo or "", body=_body(args), source=args.source,
                plan_file=args.plan_file, depends_on=args.depends_on, urgency=args.urgency,
                target_commit=args.target_commit, state=getattr(args, "add_state", "inbox"),
            )
            if out.ok and out.item is not None:  # the item is written: what the dashboard would warn about
                out.warnings = (*out.warnings, *svc.item_warnings(out.item))
            return _report_plan(svc, out)
        if c == "edit":
            return cmd_edit(svc, args)
        if c == "set-cooldown":
            from .core.itemmeta import parse_until, set_cooldown

            until = None if args.clear else parse_until(args.until, svc.clock(), future=True)
            return _report(set_cooldown(svc, args.filename, until))
        if c == "set-urgency":
            from .core.itemmeta import set_urgency

            return _report(set_urgency(svc, args.filename, args.level))
        if c == "process-loop":
            return cmd_process_loop(svc, args)
        if c == "unhold":
            return _report(svc.unhold(args.filename))
        if c == "hold":
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
            if args.depends_on and (args.dep_add or args.dep_remove):
                parser.error(
                    "set-dependencies: --depends-on replaces the whole list; --add/--remove change it: use one or the other"
                )
            return _report(
                svc.set_dependencies(args.filename, args.depends_on, add=args.dep_add, remove=args.dep_remove)
            )
        if c == "convert-to-plan":
            return _report(svc.convert_to_plan(args.filename, args.plan_file))
        if c == "answer":
            text = _read_file(args.text_file) if args.text_file else (args.text or "")
            seen = svc.local_body(args.filename)  # as read here: the pull may bring another question (SPEC §15)
            choices = _choices(args.choose)
            return _report(
                svc.answer(
                    args.filename, choices=choices, text=text, replace=args.replace, partial=args.partial, seen=seen
                )
            )
        if c == "comment":
            return _report(svc.comment(args.filename, _body(args, attr="text_file")))
        if c == "commit":
            from .cli_reports import cmd_commit

            return cmd_commit(svc, args)
        if c == "conflicts":
            from .cli_reports import cmd_conflicts

            return cmd_conflicts(svc, args)
        if c == "log":
            from .cli_reports import cmd_log

            return cmd_log(svc, args)
        if c == "stats":
            from .cli_reports import cmd_stats

            return cmd_stats(svc, args)
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
