"""The main screen at the three sizes issue 15 names, with and without NO_COLOR, and with the
ASCII glyphs (pytest-textual-snapshot). Update with --snapshot-update only after reading the
report."""

from __future__ import annotations

import pytest
from test_snapshots import steps

from atk_tui.tui.config import TuiConfig

SIZES = {"160x48": (160, 48), "100x30": (100, 30), "80x24": (80, 24)}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("colour", ["colour", "no_color"])
def test_main_screen(snap_compare, app_factory, monkeypatch: pytest.MonkeyPatch, size: str, colour: str) -> None:
    if colour == "no_color":
        monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(app_factory(), terminal_size=SIZES[size], run_before=steps())


def test_narrow_detail(snap_compare, app_factory) -> None:
    """80 columns, the bottom preview off, `l`: the detail pane in the lists' place, full width."""
    app = app_factory(config=TuiConfig(narrow_preview="off"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps("l"))


def test_bottom_preview_hold_pane(snap_compare, app_factory) -> None:
    """80 columns: `3` expands the hold pane (inbox and processing keep their title line), the
    detail under the lists shows its second item."""
    assert snap_compare(app_factory(), terminal_size=(80, 24), run_before=steps("3", "j"))


def test_bottom_preview_detail_focused(snap_compare, app_factory) -> None:
    """80 columns, `l` then PgDn: the detail under the lists has the focus and scrolls."""
    assert snap_compare(app_factory(), terminal_size=(80, 24), run_before=steps("l", "pagedown"))


def test_ascii_glyphs(snap_compare, app_factory) -> None:
    assert snap_compare(app_factory(config=TuiConfig(glyphs="ascii")), terminal_size=(120, 36), run_before=steps())
