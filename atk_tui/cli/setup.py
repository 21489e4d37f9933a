"""The `atk` commands that need no store: `init`, `config`, `wi schema` (and `completion`, beside
the parser it prints: `cli.parser`)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from atk_tui.cli.output import say
from atk_tui.host.config import ConfigError, resolve_store

#: each takes the parser (for its usage errors) and the arguments, and needs no store


#: what a store holds at its top: anything else in a git repository makes it someone's code
STORE_ENTRIES = frozenset({".git", "wi", "mq", "plans", "notices"})


def other_files(path: Path) -> list[str]:
    """The entries of a git repository at `path` that no store has (a code repository's
    README, src/ …); [] when `path` is no repository, is a store, or holds only a store's."""
    try:
        if not (path / ".git").exists() or (path / "wi").is_dir():
            return []
        return sorted(e for e in os.listdir(path) if e not in STORE_ENTRIES)
    except OSError:  # init_store says what is wrong with the path
        return []


def cmd_init(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from atk_tui.domain.errors import AtkError
    from atk_tui.service import init_store

    path = Path(args.path).expanduser()
    try:
        had_store = (path / "wi").is_dir()
    except OSError:  # init_store says what is wrong with the path
        had_store = False
    others = other_files(path)
    if others and not getattr(args, "force", False):
        shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        raise AtkError(
            f"{path.resolve()} is a git repository that holds other files ({shown}); nothing changed. atk init would "
            "commit its wi/, mq/ and plans/ folders there. Make the store in a folder of its own (atk init ~/notes), "
            f"or, to make this repository the store, run: atk init --force {args.path}",
            exit_code=1,
        )
    root, created = init_store(args.path)
    if created and had_store:
        say(f"{root} is already a store; added the feedback queue's folders (mq/<state>/)")
    else:
        say(f"initialised store at {root}" if created else f"{root} is already a store; nothing changed")
        if created:
            from atk_tui.host.config import how_to_point_at

            say(how_to_point_at(root))
    return 0


def cmd_config(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.action is None:
        if args.key is not None:
            parser.error("config: `atk config` prints everything; `atk config get KEY` prints one value")
        for line in config_lines(args.store):
            say(line)
        return 0
    if args.key is None:
        parser.error("config get: which key? private_notes or plans_root")
    if args.key == "plans_root":
        from atk_tui.host.config import plans_root

        say(str(plans_root()))
        return 0
    # the resolved path, store or not yet: scripts build plan paths from it
    say(str(resolve_store(args.store)))
    return 0


def cmd_schema(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from atk_tui.itemfile.schema import json_schema  # pydantic: imported for this command only

    say(json_schema(args.which))
    return 0



def config_lines(store_option: str | None) -> list[str]:
    """`atk config`: every key atk reads, its resolved value and where it comes from."""
    from atk_tui.host.config import DEFAULT_PLANS_ROOT, config_path, load_config, plans_root

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
    from atk_tui.host.settings import TABLE, from_env, read_table

    git = read_table("git", cfg)  # every [git] key, declared in host.settings
    for key in TABLE["git"].keys:
        value = git.values[key.name]
        default = git.values[key.follows] if key.follows and key.default is None else key.default
        if from_env(key) is not None:
            said = f"${key.env}"
        elif key.name in git.given:
            said = in_file
        elif key.follows in git.given and value == git.values[key.follows]:
            said = f"git.{key.follows} (its default)"
        else:
            said = f"default ({default:g} s)"
        lines.append(f"git.{key.name} = {value:g}  # {said}")
    shown = {"private_notes", "plans_root", *(f"git.{k.name}" for k in TABLE["git"].keys)}

    def walk(prefix: str, table: dict[str, Any]) -> None:
        for k, v in table.items():
            name = f"{prefix}{k}"
            if isinstance(v, dict):
                walk(name + ".", v)
            elif name not in shown:
                lines.append(f"{name} = {json.dumps(v, ensure_ascii=False, default=str)}  # {in_file}")

    walk("", cfg)
    return lines
