"""The dashboard's key map: binding id -> keys, as defined and as remapped by `[tui.keys]`.

One place answers "which key does X" (messages name it: `for_dashboard`), "which ids exist"
(the help screen prints them, config errors list them) and "does this remap clash" (refused with
both bindings named)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.keys import format_key


@dataclass(frozen=True)
class KeyEntry:
    id: str | None
    keys: tuple[str, ...]
    description: str
    scope: str  # "global" (the app), "main" (the triage screen), or the screen/widget class


def _split(keys: str) -> tuple[str, ...]:
    return tuple(k.strip() for k in keys.split(",") if k.strip())


def main_entries() -> list[KeyEntry]:
    """Every binding live on the triage screen (`bindings.TRIAGE`): the app's, the screen's
    and the focused list's (where a remapped key could shadow another one)."""
    from atk_tui.tui.keys.bindings import TRIAGE

    return [KeyEntry(b.id, _split(b.key), b.description, scope) for scope, table in TRIAGE for b in table if isinstance(b, Binding)]


def binding_ids() -> set[str]:
    """Every binding id of the app, its screens, dialogs and widgets: what `[tui.keys]` may name."""
    # imported here: only a config with key overrides pays for it
    import importlib
    import pkgutil

    from textual.dom import DOMNode

    from atk_tui.tui import modals, screens, widgets

    for pkg in (screens, modals, widgets):  # the app imports some screens only when they open
        for mod in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"{pkg.__name__}.{mod.name}")
    ids: set[str] = set()
    stack: list[type] = [DOMNode]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        for b in cls.__dict__.get("BINDINGS", ()):
            if isinstance(b, Binding) and b.id:
                ids.add(b.id)
    return ids


def _normal(key: str) -> str:
    from atk_tui.tui.textual_compat import character_to_key

    return character_to_key(key) if len(key) == 1 else key


def keys_for(binding_id: str, keymap: dict[str, str] | None = None) -> tuple[str, ...]:
    if keymap and binding_id in keymap:
        return _split(keymap[binding_id])
    for e in main_entries():
        if e.id == binding_id:
            return e.keys
    return ()


def key_label(binding_id: str, keymap: dict[str, str] | None = None) -> str:
    """The key a message names for `binding_id` (its first key, as shown in the footer)."""
    keys = keys_for(binding_id, keymap)
    return format_key(keys[0]) if keys else binding_id


def clashes(keymap: dict[str, str]) -> list[tuple[str, str]]:
    """(binding id, message) for every remapped key that another binding of the triage screen already
    uses (after the remap): `hold = "H"` would shadow History."""
    entries = main_entries()
    effective: list[tuple[str, str | None, str]] = []  # (normalised key, id, description)
    for e in entries:
        keys = _split(keymap[e.id]) if e.id and e.id in keymap else e.keys
        for k in keys:
            effective.append((_normal(k), e.id, e.description or e.id or "?"))
    out: list[tuple[str, str]] = []
    for bid, keys in keymap.items():
        for k in _split(keys):
            nk = _normal(k)
            for other_key, other_id, other_desc in effective:
                if other_key == nk and other_id != bid:
                    label = f"{other_id!r} ({other_desc})" if other_id else f"{other_desc!r}"
                    out.append(
                        (
                            bid,
                            f"config: [tui.keys] {bid} = {k!r} clashes with {label}, which {format_key(k)} already does; "
                            f"pick another key (or remap {other_id or 'that binding'} too)",
                        )
                    )
    return out


def checked_keymap(keymap: dict[str, str], known_ids: set[str]) -> tuple[dict[str, str], list[str]]:
    """The `[tui.keys]` entries that may be applied, and a message for each refused one: an
    unknown id (the valid ids listed) or a key that clashes with another binding (both named)."""
    errors: list[str] = []
    unknown = sorted(set(keymap) - known_ids)
    if unknown:
        errors.append(
            f"config: [tui.keys] names no binding: {', '.join(unknown)}; binding ids: {', '.join(sorted(known_ids))} "
            "(the help screen, ?, lists them with their keys)"
        )
    ok = {k: v for k, v in keymap.items() if k in known_ids}
    refused = clashes(ok)
    errors.extend(msg for _, msg in refused)
    bad = {bid for bid, _ in refused}
    ok = {k: v for k, v in ok.items() if k not in bad}
    return ok, errors
