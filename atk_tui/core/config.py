"""Where the store is and what the environment says (SPEC §3, §8)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

AGENT_ENV_VARS = ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT")
PLAN_PREFIX = "$(atk config get private_notes)"


class ConfigError(Exception):
    pass


def is_agent_env(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return any(env.get(v) for v in AGENT_ENV_VARS)


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "atk" / "config.toml"


def load_config() -> dict[str, Any]:
    """The whole config file ({} when absent). Raises ConfigError with a clear message."""
    path = config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc


HOW_TO_SET = (
    "no store configured. Set one of: the --store PATH option; the ATK_PRIVATE_NOTES environment "
    "variable; or `private_notes = \"/path/to/notes\"` in {cfg}. Create a store with `atk init PATH`."
)


def resolve_store(option: str | None = None) -> Path:
    """--store, then $ATK_PRIVATE_NOTES, then private_notes in the config file."""
    if option:
        return Path(option).expanduser().resolve()
    env = os.environ.get("ATK_PRIVATE_NOTES")
    if env:
        return Path(env).expanduser().resolve()
    cfg = load_config()
    value = cfg.get("private_notes")
    if isinstance(value, str) and value.strip():
        return Path(value).expanduser().resolve()
    raise ConfigError(HOW_TO_SET.format(cfg=config_path()))


def resolve_plan_file(root: Path, plan_file: str) -> Path | None:
    """The file a `plan_file` value names, or None when it would leave the store."""
    value = plan_file.strip()
    if value.startswith(PLAN_PREFIX):
        rel = value[len(PLAN_PREFIX) :].lstrip("/")
        path = (root / rel).resolve()
    else:
        path = Path(value).expanduser()
        path = (path if path.is_absolute() else root / path).resolve()
    try:
        path.relative_to(root)
    except ValueError:
        return None
    return path
