"""Where the store is and what the environment says (SPEC §3, §8)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from atk_tui.host.settings import ConfigError, read_table

#: each of these set (non-empty) marks an agent environment: the agent tools' own markers, an
#: agent session's name (`ATK_AGENT_ID`, SPEC §15: a session that names itself is an agent
#: whatever else it sets) and a process-loop session's own variable (`ATK_LOOP_SESSION`:
#: every program the loop starts is an agent, issue 38)
AGENT_ENV_VARS = ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT", "ATK_AGENT_ID", "ATK_LOOP_SESSION")
PLAN_PREFIX = "$(atk config get private_notes)"
CONFIG_MAX_BYTES = 1 << 20  # the config file read at most (a few lines in practice)


def is_agent_env(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """Whether this process runs for an agent: any of `AGENT_ENV_VARS` set, non-empty."""
    env = os.environ if environ is None else environ
    return any(env.get(v) for v in AGENT_ENV_VARS)


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "atk" / "config.toml"


def load_config() -> dict[str, Any]:
    """The whole config file ({} when absent). Raises ConfigError with a clear message."""
    from atk_tui.host.regular import read_regular_text

    path = config_path()
    try:
        # a regular file only, never blocking (issue 38: a named pipe there hung every command)
        text = read_regular_text(path, CONFIG_MAX_BYTES + 1, follow=True)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from exc
    if len(text.encode("utf-8")) > CONFIG_MAX_BYTES:
        raise ConfigError(f"{path} is larger than {CONFIG_MAX_BYTES // 1024} KiB: not a config file atk reads")
    import tomllib  # only when the config file is read

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc


class NoStoreConfigured(ConfigError):
    """No --store, no ATK_PRIVATE_NOTES, no `private_notes` in the config file (both binaries
    exit 1 for it, as for any refusal)."""


def how_to_point_at(root: Path) -> str:
    """What `atk init` prints after making a store: the two ways to make it the store."""
    return (
        f"to use it, either run  export ATK_PRIVATE_NOTES={shlex.quote(str(root))}\n"
        f"or put  private_notes = \"{root}\"  in {config_path()}"
    )


HOW_TO_SET = (
    "no store configured. Set one of: the --store PATH option; the ATK_PRIVATE_NOTES environment "
    "variable; or `private_notes = \"/path/to/notes\"` in {cfg}. Create a store with `atk init PATH`."
)


def _store_path(value: str, where: str) -> Path:
    try:
        path = Path(value).expanduser().resolve()
    except (ValueError, RuntimeError, OSError) as exc:
        # a NUL byte, `~nosuchuser/...`, a symlink loop
        raise ConfigError(f"the store path from {where} is unusable ({value[:200]!r}): {exc}") from exc
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        pass  # not there: the command says what to do
    except OSError as exc:  # a name too long, a folder that may not be looked into
        raise ConfigError(f"the store path from {where} is unusable ({value[:200]!r}): {exc.strerror}") from None
    return path


def resolve_store(option: str | None = None) -> Path:
    """--store, then $ATK_PRIVATE_NOTES, then private_notes in the config file."""
    if option:
        return _store_path(option, "--store")
    env = os.environ.get("ATK_PRIVATE_NOTES")
    if env:
        return _store_path(env, "$ATK_PRIVATE_NOTES")
    cfg = load_config()
    try:
        value = top_level("private_notes", cfg)
    except ConfigError as exc:  # not text: no store configured, and why
        raise NoStoreConfigured(f"{exc}; " + HOW_TO_SET.format(cfg=config_path())) from None
    if value and value.strip():
        return _store_path(value, f"private_notes in {config_path()}")
    raise NoStoreConfigured(HOW_TO_SET.format(cfg=config_path()))


def top_level(key: str, cfg: dict[str, Any] | None = None) -> Any:
    """A top-level key of the config file (`host.settings`), checked (ConfigError says what is
    wrong); its environment variable is left to the caller (who says where a value is from)."""
    cfg = load_config() if cfg is None else cfg
    return read_table("", {key: cfg[key]} if key in cfg else {}, environ={}).values[key]


def plan_file_path(base: str, plan_file: str) -> str:
    """The normalised path a `plan_file` value spells, before any check (see `resolve_plan_file`)."""
    value = plan_file.strip()
    if value.startswith(PLAN_PREFIX):
        path = os.path.join(base, value[len(PLAN_PREFIX) :].lstrip("/"))
    else:
        path = os.path.join(base, os.path.expanduser(value))
    return os.path.normpath(path)


def resolve_plan_file(root: Path, plan_file: str, dirs: dict[str, str] | None = None) -> Path | None:
    """The file a `plan_file` value names, or None when it would leave the store (also
    through a symbolic link).

    `dirs` memoises resolved folders across calls (pass one dict for a batch, e.g. every item
    of a listing: most plan files share a few `plans/YYYY/MM` folders, and resolving symbolic
    links costs a system call per path component)."""
    base = str(root)
    path = plan_file_path(base, plan_file)
    real_base = _real(base, dirs)
    if not _inside(path, base) and not _inside(path, real_base):
        return None
    parent, name = os.path.split(path)
    real = os.path.join(_real(parent, dirs), name)
    if os.path.islink(real):
        real = os.path.realpath(real)
    if not _inside(real, real_base):
        return None
    return Path(path)


def _real(path: str, dirs: dict[str, str] | None) -> str:
    if dirs is None:
        return os.path.realpath(path)
    got = dirs.get(path)
    if got is None:
        got = dirs[path] = os.path.realpath(path)
    return got


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def portable_plan_file(root: Path, value: str) -> str | None:
    """The portable form of a `--plan-file` value (SPEC §3, §11):
    ``$(atk config get private_notes)/<path inside the store>``, whether it was given in that
    form, as an absolute path inside the store (as a shell expands the command substitution)
    or relative to the store. None when it would leave the store."""
    value = value.strip()
    base = os.path.normpath(str(root))
    if value.startswith(PLAN_PREFIX):
        rel = value[len(PLAN_PREFIX) :].lstrip("/")
    else:
        path = os.path.expanduser(value)
        if os.path.isabs(path):
            path = os.path.normpath(path)
            real_base = os.path.realpath(base)
            real = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
            if _inside(path, base) and path != base:
                rel = os.path.relpath(path, base)
            elif _inside(real, real_base) and real != real_base:
                rel = os.path.relpath(real, real_base)
            else:
                return None
        else:
            rel = path
    rel = os.path.normpath(rel).replace(os.sep, "/")
    if rel in ("", ".") or rel.startswith("../") or rel == "..":
        return None
    portable = f"{PLAN_PREFIX}/{rel}"
    return portable if resolve_plan_file(root, portable) is not None else None


def git_limits(cfg: dict[str, Any] | None = None) -> dict[str, float]:
    """Time limits for the child processes of a write, from the config file's `[git]` table
    (`host.settings`: timeout, push_timeout, hook_timeout, pull_timeout; $ATK_PULL_TIMEOUT
    first). A missing, unreadable or non-positive value falls back to the default."""
    values = git_settings(cfg)
    return {k: values[k] for k in ("timeout", "push_timeout", "hook_timeout", "pull_timeout")}


def git_settings(cfg: dict[str, Any] | None = None) -> dict[str, float]:
    """Every key of `[git]`, the environment applied (an unreadable file: the defaults)."""
    if cfg is None:
        try:
            cfg = load_config()
        except ConfigError:
            cfg = {}
    return read_table("git", cfg).values


def planning_root_file(plan_file: str, planning: Path | None = None) -> Path | None:
    """Where a `plan_file` value's plan is while it is still being written: the file of the
    same name directly under the planning work root (`plans_root`, default ~/.claude/plans),
    before `atk plans commit` moves it into the store. wi-standards: the portable value names
    the same plan in either place. None when the value names no `plans/YYYY/MM/<name>` or
    the config cannot say where the root is."""
    import re

    m = re.search(r"(?:^|/)plans/\d{4}/\d{2}/([A-Za-z0-9][A-Za-z0-9._-]{0,200})\Z", plan_file.strip())
    if m is None:
        return None
    if planning is None:
        planning = _planning_root()
    return None if planning is None else planning / m.group(1)


DEFAULT_PLANS_ROOT = "~/.claude/plans"  # as host.settings declares it (tests/host/test_settings.py)
DEFAULT_GIT_TIMEOUT = 30.0  # likewise


def plans_root(option: str | None = None) -> Path:
    """--plans-root, else `plans_root` in the config file, else ~/.claude/plans."""
    return Path(os.path.expanduser(option or top_level("plans_root") or DEFAULT_PLANS_ROOT)).resolve()


def _planning_root() -> Path | None:
    try:
        return plans_root()
    except (ConfigError, OSError, RuntimeError, ValueError):
        return None


def plan_file_place(root: Path, plan_file: str) -> str | None:
    """Which place holds the plan a `plan_file` value names: "store" (plans/YYYY/MM/ of the
    store), "planning root" (not committed yet: `atk plans commit` moves it), or None
    (neither: the plan is missing)."""
    p = resolve_plan_file(root, plan_file)
    if p is not None and os.path.isfile(p):
        return "store"
    q = planning_root_file(plan_file)
    if q is not None and q.is_file() and not q.is_symlink():
        return "planning root"
    return None


def plan_files_missing(root: Path, values: Iterable[str]) -> list[str]:
    """The `plan_file` values among `values` that name no plan file (SPEC §6 rule 1), in the
    store or, before `atk plans commit`, in the planning work root (wi-standards: the value
    names the same plan in either place): the one rule the listing and its cache both apply."""
    dirs: dict[str, str] = {}  # resolved plan folders, shared by the batch
    in_store = [v for v in values if not (p := resolve_plan_file(root, v, dirs)) or not os.path.isfile(p)]
    planning = _planning_root() if in_store else None
    return [v for v in in_store if (q := planning_root_file(v, planning)) is None or not q.is_file() or q.is_symlink()]
