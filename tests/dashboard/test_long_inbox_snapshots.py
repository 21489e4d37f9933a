"""Snapshots of the main screen with a long inbox (issue 43) at 80×24, 120×36 and 200×60: the
demo store with 40 more inbox items, so the lists must share the height by what they hold
(tests/dashboard/test_pane_heights.py checks the rule; these show it). Deterministic as
test_snapshots.py: fixed filenames and text, frozen clock, explicit theme, no watcher.

Update with `--snapshot-update` only after reading the report."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.storekit import git
from support.tui_helpers import DEMO, build_app, settle
from textual.pilot import Pilot

SIZES = {"80x24": (80, 24), "120x36": (120, 36), "200x60": (200, 60)}
EXTRA = 40


def long_inbox(root: Path) -> Path:
    """The demo store with `EXTRA` more work items in its inbox (copies of one, renamed and
    retitled, in one commit)."""
    source = root / "wi" / "inbox" / DEMO["hand-svg-logo"]
    text = source.read_text(encoding="utf-8")
    title = next(line for line in text.splitlines() if line.startswith("# "))
    for n in range(EXTRA):
        name = f"{DEMO['hand-svg-logo'][:15]}-long-inbox-{n:02d}.md"
        (root / "wi" / "inbox" / name).write_text(text.replace(title, f"# Long inbox item {n:02d}: tidy the backlog"), encoding="utf-8")
    git(root, "add", "wi/inbox")
    git(root, "-c", "user.name=test", "-c", "user.email=t@t.invalid", "commit", "-q", "-m", "test: a long inbox")
    return root


@pytest.mark.parametrize("size", list(SIZES))
def test_main_screen_with_a_long_inbox(snap_compare, demo_store: Path, size: str) -> None:
    root = long_inbox(demo_store)

    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)

    assert snap_compare(build_app(root), terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", list(SIZES))
def test_main_screen_with_a_long_inbox_at_its_end(snap_compare, demo_store: Path, size: str) -> None:
    """`G`: the last inbox row selected, in view."""
    root = long_inbox(demo_store)

    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("G")
        await settle(pilot)

    assert snap_compare(build_app(root), terminal_size=SIZES[size], run_before=run_before)
