"""The private parts of Textual the dashboard relies on (`atk_tui/tui/textual_compat.py`), each
checked against the installed Textual: an upgrade that renames or changes one fails here, by
name, not somewhere in a key press."""

from __future__ import annotations

from pathlib import Path

from support.apps import build_app, settle
from textual.binding import Binding

from atk_tui.tui import textual_compat
from atk_tui.tui.keys import bindings
from atk_tui.tui.screens.main import MainScreen


def test_character_to_key_names_keys_as_textual_does() -> None:
    assert textual_compat.character_to_key("?") == "question_mark"
    assert textual_compat.character_to_key("+") == "plus"
    assert textual_compat.character_to_key("a") == "a"


async def test_bindings_by_key_lists_a_screens_bindings_and_applies_a_keymap(demo_store: Path) -> None:
    app = build_app(demo_store)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        found = textual_compat.bindings_by_key(screen)
        hold = next(k.binding for k in bindings.WRITE_KEYS if k.binding.id == "hold")
        assert [b.action for b in found[hold.key]] == ["hold"]
        assert all(isinstance(b, Binding) for bound in found.values() for b in bound)
        remapped = textual_compat.bindings_by_key(screen, {"hold": "ctrl+h"})
        assert "hold" in [b.action for b in remapped["ctrl+h"]]
        assert "hold" not in [b.action for b in remapped.get(hold.key, [])]
        assert [b.action for b in textual_compat.bindings_by_key(screen)[hold.key]] == ["hold"]  # unchanged


def test_event_clock_is_the_clock_events_are_stamped_with() -> None:
    from textual import events

    before = textual_compat.event_clock()
    key = events.Key("a", "a")
    assert before <= key.time <= textual_compat.event_clock()


async def test_can_suspend_asks_the_driver(demo_store: Path) -> None:
    app = build_app(demo_store)
    assert textual_compat.can_suspend(app) is False  # no driver before it runs
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert textual_compat.can_suspend(app) is False  # headless: nothing to hand the terminal to


def test_text_area_type_is_textuals_once_imported() -> None:
    from textual.widgets import TextArea

    assert textual_compat.text_area_type() is TextArea


async def test_keep_reverse_in_visual_styles_draws_a_reversed_option_under_no_color(monkeypatch) -> None:
    """`Widget.get_visual_style` (its cache included) as the patch expects: a component class's
    `text-style: reverse` reaches the drawn option under NO_COLOR, and only there."""
    from textual.app import App
    from textual.geometry import Region
    from textual.widgets import OptionList

    class Probe(App):
        CSS = "OptionList > .option-list--option-highlighted { text-style: reverse; }"

        def compose(self):
            yield OptionList("first", "second")

    async def highlighted_reversed() -> bool:
        app = Probe()
        async with app.run_test(size=(40, 6)) as pilot:
            await pilot.pause()
            options = app.query_one(OptionList)
            strips = options.render_lines(Region(0, 0, options.outer_size.width, options.outer_size.height))
            return any(seg.style is not None and seg.style.reverse and "first" in seg.text for s in strips for seg in s)

    textual_compat.keep_reverse_in_visual_styles()
    textual_compat.keep_reverse_in_visual_styles()  # installed once
    monkeypatch.setenv("NO_COLOR", "1")
    assert await highlighted_reversed()
    monkeypatch.delenv("NO_COLOR")
    assert not await highlighted_reversed()  # with colour: as Textual draws it
