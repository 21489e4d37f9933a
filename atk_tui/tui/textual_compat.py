"""The private parts of Textual the dashboard relies on, in one place (issue 27).

Textual offers no public way to do these; each is a one-line use of a private name, kept here
so that a Textual upgrade that renames one breaks this module's test
(`tests/dashboard/test_textual_compat.py`), loudly and by name, instead of a key, the help screen or
the editor hand-off somewhere in the app. textual is pinned exactly (pyproject.toml); the
one private name of textual-serve (`Server._make_app`) is `tui/serve.py`'s, with its own test.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.binding import Binding
    from textual.dom import DOMNode


def character_to_key(character: str) -> str:
    """Textual's name for the key that types `character` (`?` -> `question_mark`): what a
    remapped key is compared by (`textual.keys._character_to_key`)."""
    from textual.keys import _character_to_key

    return _character_to_key(character)


def bindings_by_key(node: DOMNode, keymap: dict[str, str] | None = None) -> dict[str, list[Binding]]:
    """`node`'s bindings by key, in the order they are defined, with `keymap` (binding id ->
    keys) applied when given (`DOMNode._bindings`, a `BindingsMap`)."""
    found = node._bindings
    if keymap:
        found = found.copy()
        found.apply_keymap(keymap)
    return {key: list(bindings) for key, bindings in found.key_to_bindings.items()}


def can_suspend(app: App[Any]) -> bool:
    """Whether `App.suspend` can hand the terminal to another program now (not in a browser,
    not headless): the driver's word (`App._driver`)."""
    driver = getattr(app, "_driver", None)
    return bool(driver is not None and driver.can_suspend)


def text_area_type() -> type | None:
    """`TextArea`, if it has been imported: its module (syntax themes and all) is loaded by
    the dialogs that make one, never on the way to the first frame, so a check for it must
    not import it (`textual.widgets._text_area`)."""
    module = sys.modules.get("textual.widgets._text_area")
    return getattr(module, "TextArea", None) if module is not None else None


def event_clock() -> float:
    """Now, on the clock an event's `time` is stamped with (`textual._time.get_time`): what a
    key's age is measured by."""
    from textual._time import get_time

    return get_time()


def keep_reverse_in_visual_styles() -> None:
    """Let `text-style: reverse` of a widget or its component class reach what it draws under
    NO_COLOR. Textual's `Widget.get_visual_style` (what `OptionList`, `RadioButton`, `Button`
    draw their content with) builds its style without `reverse`; under NO_COLOR reverse is what
    shows a dialog's highlighted option (nocolor.tcss). Installed once; the style of an app
    with colour is left exactly as Textual makes it."""
    from dataclasses import replace

    from textual.widget import Widget

    original = Widget.get_visual_style
    if getattr(original, "keeps_reverse", False):
        return

    def get_visual_style(self: Widget, *component_classes: str, partial: bool = False) -> Any:
        style = original(self, *component_classes, partial=partial)
        if style.reverse or not getattr(self.app, "no_color", False):
            return style
        found = [self.get_component_styles(name) for name in component_classes] or [self.styles]
        if any(styles.text_style.reverse for styles in found):
            style = replace(style, reverse=True)
            # in Textual's own cache (cleared with the styles): the next call returns it as it is
            self._visual_style_cache[(self._pseudo_classes_cache_key, component_classes, partial)] = style
        return style

    setattr(get_visual_style, "keeps_reverse", True)  # noqa: B010  (a mark on a function)
    setattr(Widget, "get_visual_style", get_visual_style)  # noqa: B010
