"""`atk`'s command line, declared once: every command, its options and help, and the function
that runs it (`set_defaults(run=...)`; `cli.main.run` calls `args.run(svc, args)`).

The item commands `atk wi` and `atk mq` share are declared once for both queues (`cli.items`);
their transitions come from the transition table (`domain.ops`), one command per row."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from atk_tui.cli import commands, elsewhere, reports, setup
from atk_tui.cli.items import Nouns, add_item_commands
from atk_tui.domain.model import KINDS, STATES
from atk_tui.domain.ops import TRANSITIONS
from atk_tui.text.textsafe import safe_text
from atk_tui.version import VersionAction

EPILOG = """\
exit codes (one per kind of failure, the same for atk-tui):
  0  success (also a read answered from the local copy when the remote is down)
  1  refused or failed: state conflict, a hold of someone else, validation, store
     busy, git error, no store or not a store, a time limit (wait)
  2  usage error (an unknown command or option: the nearest is suggested), or a
     user-only write (answer, comment, a body with '## 回答' (answer) or
     '## ユーザーコメント' (user comment) in any heading form, a commit changing one)
     attempted from an agent environment
  3  wait: a named item is nowhere, on this clone nor on the remote (it pulls first)
  130  interrupted (Ctrl-C); a write not yet committed is rolled back

the store: --store PATH, else $ATK_PRIVATE_NOTES, else private_notes in
$XDG_CONFIG_HOME/atk/config.toml. Agent environment: any of AI_AGENT, CODEX_CI,
CLAUDECODE, CURSOR_AGENT, ATK_AGENT_ID, ATK_LOOP_SESSION set non-empty.
"""


EXAMPLES = """

examples:
  atk wi list --status=ready                        # what an agent can pick up (JSON Lines for an agent)
  atk wi show 20261129-051200-login-rule            # one item, by filename or a unique prefix
  atk wi add --kind uwi --target-repo acme/web --source agent --body-file q.md   # ask the person
"""


class Rebuild(Exception):
    """The command line needs the whole parser: it names a command `build_parser(argv)` did
    not build, or it is a usage error (said by the whole parser, as always)."""


class Parser(argparse.ArgumentParser):
    """argparse, with its usage errors escaped: they quote the arguments (which may hold a
    filename copied from a hostile store) and must not emit raw control characters.

    `wanted`: build only the commands named in it (the words of the command line); the others
    are kept by name, unbuilt. Building every command's options costs ~100 ms, most of a
    one-item `atk wi show`."""

    def __init__(self, *args: Any, wanted: frozenset[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.wanted = wanted

    def add_subparsers(self, **kwargs: Any) -> Any:
        action = super().add_subparsers(**kwargs)
        wanted = self.wanted
        if wanted is not None:
            build = action.add_parser

            def add_parser(name: str, **kw: Any) -> Any:
                if name in wanted:
                    return build(name, wanted=wanted, **kw)
                action.choices[name] = unbuilt = _Unbuilt()
                return unbuilt

            action.add_parser = add_parser
        return action

    #: the parser of the deepest (sub)command the command line reached: a mistyped option is
    #: said with that command's usage and options, not the top level's
    reached: Parser | None = None

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        Parser.reached = self
        return super().parse_known_args(args, namespace)

    def error(self, message: str):  # type: ignore[override]
        if self.wanted is not None:
            raise Rebuild
        where = self
        if message.startswith("unrecognized arguments:") and Parser.reached is not None:
            where = Parser.reached
        said = did_you_mean(where, message)
        if not said.startswith("unknown command"):  # its usage would list every command again
            where.print_usage(sys.stderr)
        message = said
        where.exit(2, safe_text(f"{where.prog}: error: {message}\n"))


def _choices(parser: argparse.ArgumentParser) -> list[str]:
    return [c for a in parser._actions if isinstance(a, argparse._SubParsersAction) for c in a.choices]


def did_you_mean(parser: argparse.ArgumentParser, message: str) -> str:
    """argparse's message for a mistyped command or option, with the nearest right spelling:
    `unknown command 'lsit'; did you mean 'list'?` instead of the 24 commands in a row, and
    `unrecognized arguments: --stauts; did you mean --status?`."""
    import difflib
    import re

    m = re.match(r"argument [^:]+: invalid choice: '?([^' ]*)'? \(choose from .*\)$", message, re.S)
    if m and (commands := _choices(parser)):
        word = m.group(1)
        near = difflib.get_close_matches(word, commands, n=3, cutoff=0.6)
        said = f"unknown command {word!r}"
        if near:
            said += "; did you mean " + " or ".join(repr(n) for n in near) + "?"
        return said + f" (`{parser.prog} --help` lists all {len(commands)})"
    m = re.match(r"unrecognized arguments: (.*)$", message, re.S)
    if m:
        options = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
        hints = []
        unknown = [w.split("=", 1)[0] for w in m.group(1).split() if w.startswith("--")]
        for name in unknown:
            if near := difflib.get_close_matches(name, options, n=1, cutoff=0.6):
                hints.append(f"did you mean {near[0]} (for {name})?" if len(unknown) > 1 else f"did you mean {near[0]}?")
        if hints:
            return f"{message}; " + "; ".join(hints)
    return message


class _Unbuilt:
    """A command `build_parser(argv)` skipped: declaring it does nothing; choosing it asks
    for the whole parser."""

    def __getattr__(self, name: str) -> Any:
        return self._declare

    def _declare(self, *args: Any, **kwargs: Any) -> _Unbuilt:
        return self

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        raise Rebuild


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


def global_options(p: argparse.ArgumentParser, *, suppress: bool, command: str | None = None) -> None:
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


def common_options() -> argparse.ArgumentParser:
    """The global options of a command that takes no item (config, plans commit, agents …)."""
    p = Parser(add_help=False)
    global_options(p, suppress=True, command="config")
    return p


def item_command(sub: Any, name: str, help_: str, epilog: str) -> argparse.ArgumentParser:
    """An `atk wi`/`atk mq` command, with the global options said for it (`--target-repo`)."""
    import textwrap  # argparse's own import: no cost

    p = sub.add_parser(
        name, help=help_, description=textwrap.fill(help_, 78), epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    global_options(p, suppress=True, command=name)
    p.set_defaults(item_names=True)
    return p


#: `atk wi conflicts` lists this many at most unless `--limit` says otherwise (issue 38)
CONFLICTS_SHOWN = 200
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
        from atk_tui.cli.tui_args import build_parser as tui_parser

        parser = tui_parser()
    else:
        parser = build_parser()
    return _install_header(shtab.complete(parser, shell=shell), shell, prog)


def cmd_completion(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from atk_tui.cli.output import write_text

    write_text(sys.stdout, completion_script(args.shell, args.prog))
    return 0


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


#: the shared item commands' runners (`cli.items` declares them; transitions: `cmd_transition`)
ITEM_RUNS: dict[str, Any] = {
    "list": commands.cmd_list, "show": commands.cmd_show, "wait": reports.cmd_wait, "log": reports.cmd_log,
    "add": commands.cmd_add, "edit": commands.cmd_edit, "rm": commands.cmd_rm, "move": commands.cmd_move,
    "set-dependencies": commands.cmd_set_dependencies, "convert-to-plan": commands.cmd_convert_to_plan,
    "answer": commands.cmd_answer, "comment": commands.cmd_comment, "commit": reports.cmd_commit,
    "set-cooldown": commands.cmd_set_cooldown, "set-urgency": commands.cmd_set_urgency,
}  # fmt: skip
#: the item commands that only read: each brings in what the remote has first (SPEC §15;
#: `wait` looks at the remote itself, once a second)
READS = ("list", "show", "log", "stats", "conflicts")


def _wire(ps: dict[str, argparse.ArgumentParser], transitions: Any) -> None:
    for name, p in ps.items():
        run = commands.cmd_transition if name in transitions else ITEM_RUNS[name]
        p.set_defaults(run=run, reads=name in READS)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line parsed by a parser that built only the commands it names; the whole
    parser when it asks for help, names a command the first did not build, or is wrong."""
    words = list(sys.argv[1:] if argv is None else argv)
    if not {"-h", "--help"} & set(words):
        try:
            return build_parser(words).parse_args(words)
        except Rebuild:
            pass
    return build_parser().parse_args(words)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Every command, each with `run` (what runs it), `needs_store`, `item_names` (its item
    arguments go through the resolver) and `reads` (it brings in the remote's commits first).
    With `argv`, only the commands its words name are built (`Parser`'s `wanted`)."""
    parser = Parser(
        wanted=None if argv is None else frozenset(w for w in argv if not w.startswith("-")),
        prog="atk",
        description="Work items in a git store, for agents and people.",
        epilog=EPILOG + EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(needs_store=True, item_names=False, reads=False)
    parser.add_argument("--version", action=VersionAction)
    global_options(parser, suppress=False)
    common = common_options()
    sub = parser.add_subparsers(dest="cmd", required=True, metavar="{init,config,wi,mq,plans,agents,elsewhere,mcp,hub,completion}")

    p = sub.add_parser(
        "init", help="make PATH a store (git init, the state folders of both queues and plans/, one commit)",
        description="Make PATH a store: `git init` when it is no repository yet, the state folders of the work-item "
        "queue (wi/: inbox, processing, hold, adopted, rejected) and of the feedback queue (mq/: those and editing, "
        "planning), each kept by a .gitkeep, and plans/; one commit. On a store it changes nothing and says so. It "
        "refuses a file, a folder of other files that is no repository, and, without --force, a git repository "
        "that holds other files (a code repository: the store is best a repository of its own).",
    )
    p.add_argument("path", help="the store's folder: new, empty, or a git repository (made if missing; ~ is expanded)")
    p.add_argument(
        "--force", action="store_true",
        help="make a git repository that already holds other files a store (wi/, mq/ and plans/ are committed there)",
    )
    p.set_defaults(run=setup.cmd_init, needs_store=False)

    p = sub.add_parser(
        "completion", help="print a shell completion script (`atk completion --help` and the user guide's Shell completion say where to put it)",
        description="Print the completion script for SHELL, generated from this parser. bash: "
        "atk completion bash > ~/.local/share/bash-completion/completions/atk; zsh: "
        "atk completion zsh > ~/.zfunc/_atk (with fpath+=~/.zfunc before compinit); fish: "
        "atk completion fish > ~/.config/fish/completions/atk.fish",
    )
    p.add_argument("shell", choices=COMPLETION_SHELLS)
    p.add_argument("--prog", choices=["atk", "atk-tui"], default="atk", help="the command to complete (default: atk)")
    p.set_defaults(run=cmd_completion, needs_store=False)

    p = sub.add_parser(
        "config",
        help="print the resolved configuration (every key, and where its value comes from); `get KEY` prints one value",
        parents=[common],
    )
    p.add_argument("action", nargs="?", choices=["get"])
    p.add_argument("key", nargs="?", choices=["private_notes", "plans_root"])
    p.set_defaults(run=setup.cmd_config, needs_store=False)

    wi = sub.add_parser("wi", help="work item commands", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    w = wi.add_subparsers(dest="wicmd", required=True)

    def cmd(name: str, help_: str) -> argparse.ArgumentParser:
        return item_command(w, name, help_, EPILOG)

    ps = add_item_commands(
        cmd,
        Nouns(
            question="UWI",
            request="AWI",
            kinds=KINDS,
            default_kind="awi",
            status_help="active (default), processable, ready, blocked, all, or a state",
            queue="wi",
            transitions=TRANSITIONS,
            states=STATES,
        ),
    )
    p = ps["conflicts"] = cmd("conflicts", "list commits set aside by `atk wi commit`; show one; apply one side")
    p.add_argument("action", nargs="?", choices=["list", "show", "apply"], default="list")
    p.add_argument("ref", nargs="?", help="refs/atk/conflicts/<sha>, or the SHA (a prefix will do)")
    p.add_argument("--limit", type=int, default=CONFLICTS_SHOWN, metavar="N",
                   help=f"list: the oldest N conflicts (default {CONFLICTS_SHOWN}; a warning says how many more)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--mine", action="store_true", help="apply: keep the set-aside commit's version")
    g.add_argument("--theirs", action="store_true", help="apply: keep the remote's version, drop the set-aside commit")
    p = ps["stats"] = cmd("stats", "how long questions have waited for the user, and what they blocked")
    p.add_argument("--since", metavar="DATE", help="the period: a date (2026-11-01), a time with a timezone, or a duration back (7d, 12h); default 30d")
    p.add_argument("--json", action="store_true", help="one JSON object, for scripts")
    p = ps["process-loop"] = cmd("process-loop", "the resident loop: start CMD for ready work, at most N at once")
    p.add_argument(
        "--run",
        required=True,
        dest="command",
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
    ITEM_RUNS.update({"conflicts": reports.cmd_conflicts, "stats": reports.cmd_stats,
                      "process-loop": commands.cmd_process_loop})  # fmt: skip
    _wire(ps, TRANSITIONS)
    p = cmd("schema", "print the JSON Schema of an item's frontmatter, the config file or the --json record")
    p.add_argument("--which", choices=["item", "config", "record"], default="item")
    p.set_defaults(run=setup.cmd_schema, needs_store=False)

    from atk_tui.cli.mq import add_mq_parser
    from atk_tui.domain.ops import MQ

    _wire(add_mq_parser(sub, EPILOG, item_command), MQ.transitions)

    plans = sub.add_parser("plans", help="plan files", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    pl = plans.add_subparsers(dest="planscmd", required=True)
    p = pl.add_parser(
        "commit", parents=[common], epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        help="move plan files (and same-stem companions) from the planning root into the store's plans/YYYY/MM/",
    )
    # bare (as wi-standards writes it): every plan this store's items name that is still under the
    # planning root (issue 39)
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("--plans-root", help="the planning work root (default: plans_root in the config, else ~/.claude/plans)")
    p.set_defaults(run=reports.cmd_plans_commit)

    agents = sub.add_parser("agents", help="notices from agents to the user", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ag = agents.add_subparsers(dest="agentscmd", required=True)
    p = ag.add_parser("notify", parents=[common], help="leave a notice for the user (one commit)")
    p.add_argument("message", nargs="?")
    p.add_argument("--body-file", help="read the notice from this file: an absolute path ('-' for stdin)")
    p.add_argument("--source", help="who sends it (e.g. process-wi)")
    p.set_defaults(run=reports.cmd_agents)
    p = ag.add_parser("notices", parents=[common], help="list notices (JSON Lines in an agent environment)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true")
    g.add_argument("--no-json", action="store_true")
    p.set_defaults(run=reports.cmd_agents, reads=True)
    p = ag.add_parser("dismiss", parents=[common], help="dismiss a notice (user only)")
    p.add_argument("filenames", nargs="+", metavar="filename")
    p.set_defaults(run=reports.cmd_agents)

    el = sub.add_parser("elsewhere", help=elsewhere.HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    e = el.add_subparsers(dest="elsewherecmd", required=True)
    p = e.add_parser(
        "list", help="the waiting issues and PRs, one a line (JSON Lines in an agent environment)",
        description=elsewhere.DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    global_options(p, suppress=True, command="elsewhere")
    p.add_argument("--ready", action="store_true", help="the ready queue in afkkit's run order instead")
    p.add_argument("--cached", action="store_true", help="answer from the last look (no gh, no network), with its age")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="JSON Lines (the default in an agent environment)")
    g.add_argument("--no-json", action="store_true", help="text, also in an agent environment")
    p.set_defaults(run=elsewhere.cmd_elsewhere)

    from atk_tui.cli.mcp import add_mcp_parser  # argparse only: the MCP SDK is imported when `atk mcp` runs

    add_mcp_parser(sub, common, EPILOG)
    from atk_tui.cli.hub import add_hub_parser  # argparse only: the hub, apprise and aiohttp load when `atk hub` runs

    add_hub_parser(sub, common, EPILOG)
    _describe_positionals(parser)
    return parser


#: what a positional argument declared without a help of its own means, by its name
POSITIONAL_HELP = {
    "filename": "the item: its filename (.md may be left off) or a part of it that names one item",
    "filenames": "items, each as its filename (.md may be left off) or a part of it that names one item",
    "message": "the text (--body-file or --text-file for quotes and newlines)",
    "shell": "the shell to complete in",
    "level": "the urgency: blocking, next-review or informational",
    "paths": "plan files: their paths under the planning root (plans_root), or absolute",
    "key": "the key to print",
}


def _describe_positionals(parser: argparse.ArgumentParser) -> None:
    """Every positional argument of every built command says what it is in --help."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                if isinstance(sub, argparse.ArgumentParser):
                    _describe_positionals(sub)
        elif not action.option_strings and action.help is None:
            if action.dest == "action":
                action.help = f"what to do (default: {action.default})" if action.default else "what to do"
            else:
                action.help = POSITIONAL_HELP.get(action.dest)
