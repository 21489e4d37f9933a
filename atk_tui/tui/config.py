"""The `[tui]` table of ~/.config/atk/config.toml, as `host.settings` declares it. A bad value
gives a message and the default."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from atk_tui.host.config import ConfigError, load_config
from atk_tui.host.settings import TABLE, read_table

_TUI = TABLE["tui"]
SORTS: tuple[str, ...] = _TUI.key("default_sort").choices
ALERT_FLAGS = ("desktop_notifications", "bell", "title_count")


def _default(name: str) -> Any:
    return _TUI.key(name).default


@dataclass
class TuiConfig:
    """The settings as the dashboard uses them (each key's meaning: `host.settings`)."""

    theme: str = _default("theme")
    pull_interval: float = _default("pull_interval")
    remote_check_interval: float = _default("remote_check_interval")
    default_sort: str = _default("default_sort")
    keys: dict[str, str] = field(default_factory=dict)  # action id -> key(s), e.g. {"hold": "H"}
    desktop_notifications: bool = _default("desktop_notifications")
    bell: bool = _default("bell")
    title_count: bool = _default("title_count")
    glyphs: str = _default("glyphs")
    narrow_preview: str = _default("narrow_preview")
    errors: list[str] = field(default_factory=list)


def load_tui_config(themes: set[str] | None = None) -> TuiConfig:
    cfg = TuiConfig()
    try:
        raw: Any = load_config().get("tui", {})
    except ConfigError as exc:
        cfg.errors.append(f"{exc}; using defaults")
        return cfg
    # the theme is checked against the themes Textual has, known only here
    theme = raw.pop("theme", None) if isinstance(raw, dict) else None
    got = read_table("tui", {"tui": raw})
    cfg.errors += got.errors
    for name in got.given:
        setattr(cfg, name, got.values[name])
    if theme is not None:
        if isinstance(theme, str) and (themes is None or theme in themes):
            cfg.theme = theme
        else:
            valid = f"; themes: {', '.join(sorted(themes))}" if themes else ""
            cfg.errors.insert(0, f"config: unknown theme {theme!r}; using {cfg.theme}{valid}")
    from atk_tui.tui.state import load_state

    state, state_error = load_state()
    if state_error:
        cfg.errors.append(f"config: {state_error}")
    picked = state.get("theme")
    if picked is not None:  # the theme last picked in the command palette wins over the file's
        if isinstance(picked, str) and (themes is None or picked in themes):
            cfg.theme = picked
        else:
            cfg.errors.append(f"config: the remembered theme {picked!r} is unknown; using {cfg.theme}")
    return cfg
