"""NO_COLOR means no colour (no-color.org; issue 43: "NO_COLOR still emits 24-bit grey").

Textual turns NO_COLOR into greys (24-bit colours, `Monochrome`) and the dashboard's `Legible`
filter could add colours back; now the terminal is sent no colour at all (the terminal's own
foreground and background), and what colour told is shown by attributes (nocolor.tcss): the
cursor row of a list and the option a dialog highlights reversed, the focused pane framed heavy.

The real binary in tmux (the escapes the terminal receives, `capture-pane -e`), and every
screen of the dashboard headless (the segments each widget draws, after the line filters).
"""

from __future__ import annotations

import re
import shlex
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rich.segment import Segment
from support.apps import build_app, running, settle
from support.screens import SCREENS, prepared
from support.sgr import attributed_text, colour_codes
from support.tmux import ATK_TUI, Tmux
from textual.command import CommandList
from textual.filter import ANSIToTruecolor, Monochrome
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, RadioButton, TextArea

from atk_tui.demo import create_demo_store
from atk_tui.tui.app import AtkApp
from atk_tui.tui.display.legible import Legible
from atk_tui.tui.keys.key_guard import DIALOG_KEY_GRACE
from atk_tui.tui.widgets.footer import KeyFooter
from atk_tui.tui.widgets.item_list import ItemList

# -- in a real terminal ------------------------------------------------------------------------


def _captured(tmux: Tmux) -> str:
    """The pane with its escapes: what the terminal was told to draw."""
    return tmux.run("capture-pane", "-e", "-p", "-t", "e2e")


def _shown(tmux: Tmux, *texts: str) -> str:
    """Wait until the pane shows every one of `texts`, nothing still loading, and two captures
    agree (a whole frame); then the pane with its escapes."""
    last = [""]

    def ready(screen: str) -> bool:
        if all(t in screen for t in texts) and "Loading" not in screen and screen == last[0]:
            return True
        last[0] = screen
        return False

    tmux.wait_for(ready, " and ".join(texts))
    return _captured(tmux)


def _close(tmux: Tmux, gone: str) -> None:
    """Esc, then wait until `gone` (the dialog's text) is off the screen, and as long again as
    a person takes to look at the screen under it: keys typed while a dialog closes are
    dropped (`DIALOG_KEY_GRACE`)."""
    tmux.send("Escape")
    tmux.wait_for(lambda screen: gone not in screen, f"{gone!r} closed")
    time.sleep(DIALOG_KEY_GRACE + 0.2)


def _no_colour(screen: str, where: str) -> None:
    codes = colour_codes(screen)
    assert not codes, f"{where}: colour escapes under NO_COLOR: {sorted(set(codes))[:12]}"


def _focused_pane_rows(screen: str) -> list[int]:
    """The line numbers of the rows inside the heavy frame (the focused pane): ┏ … ┗."""
    lines = _plain(screen).split("\n")
    top = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    bottom = next(i for i, line in enumerate(lines) if i > top and line.startswith("┗"))
    return list(range(top + 1, bottom))


def _plain(screen: str) -> str:
    return re.sub(r"\x1b\[[0-9;:]*m", "", screen)


@pytest.mark.e2e
def test_no_color_sends_no_colour_and_reverses_the_cursor_in_tmux(tmux: Tmux, tmp_path: Path) -> None:
    store = create_demo_store(tmp_path / "demo", datetime.now(UTC))
    tmux.type(f"NO_COLOR=1 {shlex.quote(str(ATK_TUI))} --store {shlex.quote(str(store))}")
    tmux.send("Enter")

    main = _shown(tmux, "Inbox", "Processing", "Hold", "Detail", " file ")
    _no_colour(main, "the main screen")
    reversed_rows = attributed_text(main, "reverse")
    cursor = [i for i in _focused_pane_rows(main) if "acme/" in reversed_rows[i]]
    assert len(cursor) == 1, (
        "the focused list's cursor row (its title and repo) is drawn reversed, once:\n"
        + "\n".join(reversed_rows[i] for i in _focused_pane_rows(main))
    )

    # an inbox item cannot be unheld: the footer's key struck through (neither a fainter colour nor
    # dim is sent), and nothing at all dim (SGR 2: a terminal's own faint colour)
    assert any("Unhold" in line for line in attributed_text(main, "strike")), _plain(main).splitlines()[-1]
    assert not any(line.strip() for line in attributed_text(main, "dim")), attributed_text(main, "dim")

    tmux.send("m")  # the move dialog: the highlighted state reversed
    move = _shown(tmux, "now in:")
    _no_colour(move, "the move dialog")
    states = ("processing", "hold", "adopted", "rejected", "inbox")
    highlighted = [run for run in attributed_text(move, "reverse") if len(run) > 20]
    assert any(s in run for run in highlighted for s in states), _plain(move)
    _close(tmux, "now in:")

    tmux.send("a")  # the answer form: the chosen option reversed
    form = _shown(tmux, "Answer:", "Esc cancel")
    _no_colour(form, "the answer form")
    assert any("A) " in run for run in attributed_text(form, "reverse")), _plain(form)
    _close(tmux, "Answer:")

    tmux.send("v")  # the graph: the focused item's box reversed
    graph = _shown(tmux, "follow links")
    _no_colour(graph, "the graph")
    assert any("┌" in run for run in attributed_text(graph, "reverse")), _plain(graph)
    _close(tmux, "follow links")

    tmux.send("?")
    help_screen = _shown(tmux, "what it does")
    _no_colour(help_screen, "the help")
    _close(tmux, "what it does")
    tmux.send("q")
    tmux.wait_until(lambda: tmux.display("#{alternate_on}") == "0", "the terminal given back")


# -- every screen, headless --------------------------------------------------------------------


def _drawn(app: AtkApp) -> list[tuple[str, Segment]]:
    """Every segment every visible widget draws now (the line filters applied), with the
    widget's name: the active screen and, under a dialog, the screens it stands on."""
    screens = []
    for screen in reversed(app.screen_stack):
        screens.append(screen)
        if not isinstance(screen, ModalScreen):
            break
    out = []
    for screen in screens:
        for widget in screen.walk_children(with_self=True):
            if not getattr(widget, "display", False) or not widget.is_on_screen:
                continue
            size = widget.outer_size
            for strip in widget.render_lines(Region(0, 0, size.width, size.height)):
                out.extend((type(widget).__name__, segment) for segment in strip)
    return out


def _coloured(segment: Segment) -> bool:
    style = segment.style
    if style is None:
        return False
    return bool(style.dim) or any(c is not None and not c.is_default for c in (style.color, style.bgcolor))


@pytest.mark.parametrize("screen", list(SCREENS))
async def test_no_screen_draws_a_colour_under_no_color(
    screen: str, demo_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = build_app(prepared(screen, demo_store, tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await SCREENS[screen](pilot)
        filters = app.get_line_filters()
        assert filters[-1] is app._plain
        assert not any(isinstance(f, (Monochrome, ANSIToTruecolor, Legible)) for f in filters), filters
        drawn = _drawn(app)
        assert drawn, "nothing drawn: the check would pass on nothing"
        coloured = [(name, seg.text, str(seg.style)) for name, seg in drawn if _coloured(seg)]
        assert not coloured, f"{screen}: coloured or dim segments under NO_COLOR: {coloured[:8]}"


def _reversed_text(widget) -> list[str]:
    size = widget.outer_size
    rows = []
    for strip in widget.render_lines(Region(0, 0, size.width, size.height)):
        rows.append("".join(seg.text for seg in strip if seg.style is not None and seg.style.reverse))
    return rows


async def test_cursor_rows_and_highlighted_options_are_reversed(
    demo_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What colour showed, attributes show: the focused list's cursor row, the move dialog's
    highlighted state, the answer form's chosen option, the palette's command reversed, a
    disabled key struck through; the app with colour draws none of them
    reversed (the attribute is NO_COLOR's)."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = build_app(demo_store)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        focused = app.screen.focused
        assert isinstance(focused, ItemList)
        rows = _reversed_text(focused)
        assert sum(1 for row in rows if len(row.strip()) > focused.size.width // 2) == 1, rows
        footer = app.screen.query_one(KeyFooter)
        struck = [
            seg.text
            for strip in footer.render_lines(Region(0, 0, footer.size.width, 1))
            for seg in strip
            if seg.style and seg.style.strike
        ]
        assert "Unhold " in struck, (
            "a key that cannot act is struck through in the footer (an inbox item cannot be unheld)"
        )
        await SCREENS["move menu"](pilot)
        options = app.screen.query_one(OptionList)
        assert any(len(row.strip()) > 10 for row in _reversed_text(options)), _reversed_text(options)
        await pilot.press("escape")
        await settle(pilot)
        await SCREENS["answer form"](pilot)
        chosen = [b for b in app.screen.query(RadioButton) if b.has_class("-selected") and b.parent.has_focus]
        assert chosen, "no option highlighted in the focused question"
        assert any(row.strip() for row in _reversed_text(chosen[0])), "the highlighted option is not reversed"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+p")  # the palette: the command Enter runs, while its input has the focus
        await pilot.press("t", "h", "e", "m", "e")
        await settle(pilot)
        commands = app.screen.query_one(CommandList)
        assert any("Theme" in row for row in _reversed_text(commands)), _reversed_text(commands)
    monkeypatch.delenv("NO_COLOR")
    coloured = build_app(demo_store)
    async with coloured.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        rows = _reversed_text(coloured.screen.focused)
        assert not any(len(row.strip()) > coloured.screen.focused.size.width // 2 for row in rows)
        await SCREENS["move menu"](pilot)
        options = coloured.screen.query_one(OptionList)
        assert not any(len(row.strip()) > 10 for row in _reversed_text(options)), "reverse is for NO_COLOR only"


async def test_one_line_inputs_keep_no_frame_under_no_color(demo_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A focused input is framed heavy under NO_COLOR, except the inputs drawn on one line
    without a frame (the help's search, the filter box of a narrow terminal): a frame would
    cover their only line."""
    monkeypatch.setenv("NO_COLOR", "1")
    async with running(demo_store, (80, 24)) as (app, pilot):
        await pilot.press("slash")
        await settle(pilot)
        box = app.main.query_one("#filter")
        assert box.has_focus and box.region.height == 1 and box.styles.border_top[0] in ("", "none"), box.styles.border
        await pilot.press("escape")
        await settle(pilot)
        await SCREENS["help"](pilot)
        await pilot.press("slash")
        await settle(pilot)
        search = app.screen.query_one("#help-search")
        assert search.has_focus and search.styles.border_top[0] in ("", "none"), search.styles.border
    async with running(demo_store, (120, 36)) as (app, pilot):
        await pilot.press("slash")
        await settle(pilot)
        box = app.main.query_one("#filter")
        assert box.has_focus and box.styles.border_top[0] == "heavy", box.styles.border


@pytest.mark.parametrize("screen", ["answer form", "move menu", "graph", "help", "dependencies"])
def test_screen_snapshot_under_no_color(
    snap_compare, demo_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, screen: str
) -> None:
    """The dialogs and screens under NO_COLOR as the terminal gets them (pytest-textual-snapshot:
    only the terminal's own two colours in the SVG). Update with --snapshot-update only after
    reading the report."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await SCREENS[screen](pilot)
        for field in (*pilot.app.screen.query(Input), *pilot.app.screen.query(TextArea)):
            field.cursor_blink = False  # a blinking cursor is a coin toss in a snapshot
        await settle(pilot)

    assert snap_compare(
        build_app(prepared(screen, demo_store, tmp_path)), terminal_size=(120, 36), run_before=run_before
    )
