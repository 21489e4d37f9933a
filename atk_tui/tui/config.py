"""The `[tui]` table of ~/.config/atk/config.toml. A bad value gives a message and the default."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from atk_tui.host.config import ConfigError, load_config

SORTS = ("needs-you", "oldest", "newest", "title", "repo", "status")
ALERT_FLAGS = ("desktop_notifications", "bell", "title_count")
GLYPHS = ("unicode", "ascii")
NARROW_PREVIEWS = ("bottom", "off")  # below 100 columns: the detail under the lists, or in their place


@dataclass
class TuiConfig:
    theme: str = "textual-dark"
    pull_interval: float = 60.0  # seconds between pulls from the remote; 0 turns pulling off
    # seconds between cheap looks at the remote (`git ls-remote` of the upstream branch; a
    # pull only when it moved); 0 turns them off
    remote_check_interval: float = 5.0
    default_sort: str = "needs-you"
    keys: dict[str, str] = field(default_factory=dict)  # action id -> key(s), e.g. {"hold": "H"}
    desktop_notifications: bool = False  # notify-send for a new notice or blocking question
    bell: bool = True  # ring the terminal bell for a new notice or blocking question
    title_count: bool = True  # "atk-tui (3)" in the terminal title: notices + blocking questions
    glyphs: str = "unicode"  # status marks: "unicode" (✓ ✗ ‖ …) or "ascii" (+ x = ~)
    narrow_preview: str = "bottom"  # narrow terminals: "bottom" (gh-dash) or "off" (`l` shows the detail)
    errors: list[str] = field(default_factory=list)


def load_tui_config(themes: set[str] | None = None) -> TuiConfig:
    cfg = TuiConfig()
    try:
        raw: Any = load_config().get("tui", {})
    except ConfigError as exc:
        cfg.errors.append(f"{exc}; using defaults")
        return cfg
    if not isinstance(raw, dict):
        cfg.errors.append("config: [tui] must be a table; using defaults")
        return cfg
    theme = raw.get("theme")
    if theme is not None:
        if isinstance(theme, str) and (themes is None or theme in themes):
            cfg.theme = theme
        else:
            valid = f"; themes: {', '.join(sorted(themes))}" if themes else ""
            cfg.errors.append(f"config: unknown theme {theme!r}; using {cfg.theme}{valid}")
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
    for key in ("pull_interval", "remote_check_interval"):  # seconds
        value = raw.get(key)
        if value is None:
            continue
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            setattr(cfg, key, float(value))
        else:
            cfg.errors.append(f"config: {key} must be a number of seconds >= 0, got {value!r}")
    for key, choices in (("default_sort", SORTS), ("glyphs", GLYPHS), ("narrow_preview", NARROW_PREVIEWS)):
        value = raw.get(key)
        if value is None:
            continue
        if value in choices:
            setattr(cfg, key, value)
        else:
            cfg.errors.append(f"config: {key} must be one of {', '.join(choices)}, got {value!r}")
    keys = raw.get("keys")
    if keys is not None:
        if isinstance(keys, dict) and all(isinstance(k, str) and isinstance(v, str) and v for k, v in keys.items()):
            cfg.keys = dict(keys)
        else:
            cfg.errors.append("config: [tui.keys] maps action ids to keys, e.g. hold = \"H\"")
    for flag in ALERT_FLAGS:
        value = raw.get(flag)
        if value is None:
            continue
        if isinstance(value, bool):
            setattr(cfg, flag, value)
        else:
            cfg.errors.append(f"config: {flag} must be true or false, got {value!r}")
    known = {"theme", "pull_interval", "remote_check_interval", "default_sort", "keys", "glyphs", "narrow_preview", *ALERT_FLAGS}
    unknown = set(raw) - known
    if unknown:
        cfg.errors.append(f"config: unknown [tui] setting(s): {', '.join(sorted(unknown))}; settings: {', '.join(sorted(known))}")
    return cfg
