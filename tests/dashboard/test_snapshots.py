"""Snapshot tests of the dashboard on the demo store (pytest-textual-snapshot).

Deterministic by construction: the demo store is made for a fixed `now` and the app's clock is
frozen at it, the theme is explicit, the watcher is off, the status line shows a fixed store
label instead of the tmp path, the filter's cursor does not blink, and every test waits for the
app to settle (workers and debounce timers) instead of sleeping. Keys are pressed inside
`run_before` so that each press is followed by `settle`.

Update with `pytest tests/dashboard/test_snapshots.py --snapshot-update` only after reading the report.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.tui_helpers import DEMO, build_app, frozen_clock, press, settle
from textual.pilot import Pilot
from textual.widgets import Input

from atk_tui.service import Service
from atk_tui.tui.app import AtkApp
from atk_tui.tui.config import TuiConfig

WIDE = (120, 36)
NARROW = (80, 24)

# Markup, a Textual variable, an unclosed tag, an SGR colour and an OSC 52 clipboard write.
HOSTILE_TITLE = "Literal [bold red]x[/] [$accent]y [/ \x1b[31mred\x1b]52;c;aGk=\x07 end"
HOSTILE_BODY = f"""# {HOSTILE_TITLE}

- 反映内容: show [bold red]x[/] and [$accent]y and [/ as typed
- 反映先: [link=https://example.invalid]acme/webapp[/link]
- 理由: \x1b[2J\x1b[H escape sequences \x1b]8;;https://example.invalid\x07link\x1b]8;;\x07 stay visible
- メリット: none, see [the docs](https://example.invalid/x) and <https://example.invalid/y>
- デメリット: なし
- 完成条件: the dashboard shows every character literally
"""


def add_hostile_item(root: Path) -> str:
    svc = Service(root, clock=frozen_clock, actor="user", pull=False, push=False)
    out = svc.writes.add(kind="awi", target_repo="acme/[b]webapp[/b]", body=HOSTILE_BODY)
    assert out.ok, out.message
    return out.files[0]


def steps(*keys: str, jump: str | None = None, before: Callable[[AtkApp], None] | None = None):
    """A `run_before` that settles, optionally selects an item, then presses `keys`."""

    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, AtkApp)
        await settle(pilot)
        for inp in app.query(Input):
            inp.cursor_blink = False
        if before is not None:
            before(app)
        if jump is not None:
            assert app.main.jump_to(jump)
            await settle(pilot)
        await press(pilot, *keys)
        for inp in app.query(Input):  # one the keys made (the filter's, say): no blink either
            inp.cursor_blink = False
        await pilot.app.workers.wait_for_complete()

    return run_before


def test_main_wide(snap_compare, app_factory) -> None:
    assert snap_compare(app_factory(), terminal_size=WIDE, run_before=steps())


def test_main_narrow(snap_compare, app_factory) -> None:
    assert snap_compare(app_factory(), terminal_size=NARROW, run_before=steps())


def test_needs_you_focused(snap_compare, app_factory) -> None:
    """`n` focuses the needs-you pane; `j` moves to the second question, whose detail shows."""
    assert snap_compare(app_factory(), terminal_size=WIDE, run_before=steps("n", "j"))


def test_detail_blocked_awi(snap_compare, app_factory) -> None:
    """chain-2 waits on chain-1, which waits on the unanswered chain-uwi."""
    assert snap_compare(app_factory(), terminal_size=WIDE, run_before=steps(jump=DEMO["chain-2"]))


def test_detail_multi_question_uwi(snap_compare, app_factory) -> None:
    assert snap_compare(app_factory(), terminal_size=WIDE, run_before=steps(jump=DEMO["md-multi"]))


def test_detail_defective(snap_compare, app_factory) -> None:
    assert snap_compare(app_factory(), terminal_size=WIDE, run_before=steps(jump=DEMO["defective"]))


def test_history(snap_compare, app_factory) -> None:
    assert snap_compare(app_factory(), terminal_size=WIDE, run_before=steps("H"))


def test_help(snap_compare, app_factory) -> None:
    assert snap_compare(app_factory(), terminal_size=WIDE, run_before=steps("question_mark"))


def test_filter_active(snap_compare, app_factory) -> None:
    """`/` opens the filter; typing narrows every pane (counts become shown/total)."""
    assert snap_compare(app_factory(), terminal_size=WIDE, run_before=steps("slash", *"session"))


def test_agent_read_only_banner(snap_compare, app_factory) -> None:
    app = app_factory(actor="agent")
    assert app.read_only
    assert snap_compare(app, terminal_size=WIDE, run_before=steps())


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
def test_untrusted_text_shown_literally(snap_compare, app_factory, demo_store: Path, size) -> None:
    """Markup and escape sequences in an item's title, repo and body appear as typed."""
    name = add_hostile_item(demo_store)
    assert snap_compare(app_factory(), terminal_size=size, run_before=steps(jump=name))


# -- three sizes, NO_COLOR, ASCII --------------------------------------------------------------
# The main screen at the three sizes issue 15 names, with and without NO_COLOR, and with the
# ASCII glyphs (pytest-textual-snapshot). Update with --snapshot-update only after reading the
# report.


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


# -- both queues -------------------------------------------------------------------------------
# Snapshots of the dashboard with both queues (issue 12): the demo store with its feedback
# queue, frozen clock, explicit theme, no watcher (see test_snapshots.py).


def test_both_queues(snap_compare, mq_store: Path) -> None:
    """Feedback items and TBDs beside the work items; the TBD in needs-you with the UWIs;
    editing and planning items in the Hold pane."""
    assert snap_compare(build_app(mq_store), terminal_size=WIDE, run_before=steps())


def test_feedback_queue_only(snap_compare, mq_store: Path) -> None:
    """Q: only the feedback queue."""
    assert snap_compare(build_app(mq_store), terminal_size=WIDE, run_before=steps("Q"))
