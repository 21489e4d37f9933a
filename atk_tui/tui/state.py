"""What the dashboard remembers between runs, apart from the hand-written config file:
`$XDG_CONFIG_HOME/atk/tui-state.json` (the theme picked in the command palette). The config
file is never rewritten by the program; this file is, atomically."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from atk_tui.host.config import config_path


def state_path() -> Path:
    return config_path().with_name("tui-state.json")


def load_state() -> tuple[dict[str, Any], str | None]:
    """(the remembered values, an error message or None); a bad file is reported, not fatal."""
    path = state_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return {}, f"cannot read {path} ({exc}); delete it to start afresh"
    if not isinstance(data, dict):
        return {}, f"{path} is not a JSON object; delete it to start afresh"
    return data, None


def save_state(**changes: Any) -> str | None:
    """Merge `changes` into the state file (write to a temp file, then rename); an error message
    when it cannot be written, else None."""
    path = state_path()
    data, _ = load_state()
    data.update(changes)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tui-state.", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.write("\n")
        os.replace(tmp, path)
    except OSError as exc:
        return f"could not remember the theme in {path}: {exc}"
    return None
