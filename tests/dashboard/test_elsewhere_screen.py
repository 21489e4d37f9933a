"""The Elsewhere screen (`E`, issue 31): what waits for the person on GitHub, beside the queue.
Pilot tests through a fake `gh` on the PATH (support/ghkit.py) and snapshots at 80×24 and
160×48. No test reaches the network."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest
from support.apps import build_app, make_recorded, press, screen_text, settle, wait_for_text, wait_until
from support.clock import NOW
from support.ghkit import WAITING, FakeGh, seed_repos, write_config
from textual.pilot import Pilot

from atk_tui.service import Service
from atk_tui.service.elsewhere.afkkit import HOW_TO_INSTALL, HOW_TO_LOG_IN
from atk_tui.tui.app import AtkApp
from atk_tui.tui.screens.elsewhere import ElsewhereScreen
from atk_tui.tui.widgets.item_list import ItemList

COUNT = f"· {len(WAITING)} elsewhere (E)"


@pytest.fixture
def root(svc: Service) -> Path:
    seed_repos(svc)
    return svc.root


def waiting_keys(app: AtkApp) -> list[str]:
    return [r.key for r in app.screen.query_one("#elsewhere-waiting", ItemList).rows]


async def test_the_count_in_the_header_and_the_rows_on_e(root: Path, fake_gh: FakeGh) -> None:
    app = build_app(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert f"Needs you 0 {COUNT}" in screen_text(app)
        await press(pilot, "E")
        assert isinstance(app.screen, ElsewhereScreen)
        assert sorted(waiting_keys(app)) == sorted(WAITING)
        text = screen_text(app)
        assert "as of just now · left out (not OWNER/REPO): local-notes" in text
        assert "Stopped: the test gate failed" in text and "#30 PR" in text
        assert "1   #42    critical" in text and "-   #43" in text  # the run order; the stacked one skipped
        assert "no priority labels: ordered by age" in text
        await press(pilot, "E")  # E again (or Esc) goes back
        assert app.screen is app.main
    assert fake_gh.only_reads()


async def test_keys_detail_open_copy_and_look(root: Path, fake_gh: FakeGh) -> None:
    app = make_recorded(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await press(pilot, "E", "down", "down")  # #18: its stop report as Markdown in the detail
        text = screen_text(app)
        assert "acme/web #18  in-progress  waited 9h" in text
        assert "pnpm test exited with exit code 1:" in text and "FAIL src/session.test.ts" in text
        await press(pilot, "y")
        assert app.clipboard == "https://github.com/acme/web/issues/18"
        fake_gh.reset_calls()
        await press(pilot, "enter")
        await wait_until(pilot, lambda: fake_gh.calls(), "gh view --web")
        assert fake_gh.calls() == [["issue", "view", "18", "--repo=acme/web", "--web"]]
        await settle(pilot)
        assert ("opened acme/web#18 in the browser", "information") in app.notes
        await press(pilot, "down")  # the PR of #21: opened as a PR
        fake_gh.reset_calls()
        await press(pilot, "o")
        await wait_until(pilot, lambda: fake_gh.calls(), "gh pr view --web")
        assert fake_gh.calls() == [["pr", "view", "30", "--repo=acme/web", "--web"]]
        await settle(pilot)
        await press(pilot, "tab")  # the ready queue: its repository row, then its issues
        assert app.screen.focused.id == "elsewhere-ready"
        assert "acme/api" in screen_text(app) and "Run order: no priority labels: ordered by age" in screen_text(app)
        await press(pilot, "down")
        await press(pilot, "y")
        assert app.clipboard == "https://github.com/acme/api/issues/8"
        fake_gh.reset_calls()
        await press(pilot, "u")  # a new look, in a worker
        await settle(pilot)
        assert [c[:2] for c in fake_gh.calls()].count(["issue", "list"]) == 10  # five labels, two repositories
        assert fake_gh.only_reads()
        assert not [n for n in app.notes if n[1] == "error"]


async def test_the_first_frame_does_not_wait_for_github(root: Path, fake_gh: FakeGh) -> None:
    """gh held on purpose: the rows are drawn, the screen opens, and the look lands later."""
    fake_gh.scenario(gated=True)
    app = build_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_text(pilot, "Inbox 3")
        await wait_until(pilot, lambda: app.elsewhere.looking and fake_gh.calls(), "the look to start")
        shown = screen_text(app)
        assert "Inbox 3" in shown and "elsewhere" not in shown  # the queue is there; GitHub not yet
        await pilot.press("E")
        await wait_until(pilot, lambda: isinstance(app.screen, ElsewhereScreen), "the screen")
        assert "looking at GitHub…" in screen_text(app)
        fake_gh.release()
        await wait_until(pilot, lambda: not app.elsewhere.looking, "the look to end")
        await settle(pilot)
        assert sorted(waiting_keys(app)) == sorted(WAITING)
        await press(pilot, "escape")
        assert COUNT in screen_text(app)


async def test_offline_start_from_the_cache(root: Path, svc: Service, fake_gh: FakeGh, monkeypatch: pytest.MonkeyPatch) -> None:
    svc.clock.now = NOW - timedelta(hours=2)
    assert svc.elsewhere.refresh().waiting  # a look two hours ago
    monkeypatch.setenv("ATK_GH", "/nonexistent/gh")  # now: no gh
    app = make_recorded(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert COUNT in screen_text(app)  # the last look's rows, before any look
        await press(pilot, "E")
        assert sorted(waiting_keys(app)) == sorted(WAITING)
        assert f"as of 2h ago · {HOW_TO_INSTALL}" in screen_text(app)
        assert not [n for n in app.notes if n[1] == "error"]  # one line, no error toast


async def test_logged_out_is_one_line_saying_what_to_run(root: Path, fake_gh: FakeGh) -> None:
    fake_gh.scenario(mode="logged-out")
    app = make_recorded(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert "elsewhere" not in screen_text(app)
        await press(pilot, "E")
        text = screen_text(app)
        assert f"never looked · {HOW_TO_LOG_IN}" in text
        assert waiting_keys(app) == []
        assert not [n for n in app.notes if n[1] in ("error", "warning")]
        fake_gh.scenario()  # `gh auth login` done: u looks again
        await press(pilot, "u")
        assert sorted(waiting_keys(app)) == sorted(WAITING) and HOW_TO_LOG_IN not in screen_text(app)


async def test_the_interval_is_configurable(root: Path, fake_gh: FakeGh) -> None:
    write_config("[elsewhere]\ninterval = 0\n")  # only on `u`
    app = build_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert fake_gh.calls() == []
        await press(pilot, "E")
        assert "never looked at GitHub from this store: u looks now" in screen_text(app)
        await press(pilot, "u")
        assert sorted(waiting_keys(app)) == sorted(WAITING)
    write_config("[elsewhere]\ninterval = 0.2\n")
    fake_gh.reset_calls()
    app = build_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        lists = lambda: [c for c in fake_gh.calls() if c[:2] == ["pr", "list"]]  # noqa: E731 (one per repository and look)
        await wait_until(pilot, lambda: len(lists()) >= 6, "three looks")
        app.elsewhere.stop()  # (a look under way ends with the test)


async def test_the_demo_does_not_look_by_itself(root: Path, fake_gh: FakeGh) -> None:
    app = build_app(root, look_elsewhere=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "E")
        assert fake_gh.calls() == [] and "u looks now" in screen_text(app)


async def test_quitting_kills_a_gh_that_does_not_answer(root: Path, fake_gh: FakeGh) -> None:
    """A gh held past any time limit (`gate` never released) does not keep the dashboard open."""
    fake_gh.scenario(gated=True)
    app = build_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: fake_gh.pids(), "gh to start")
        await pilot.press("q")
    (pid,) = fake_gh.pids()
    for _ in range(500):  # bounded: gh's own time limit (20 s) is far later
        if not fake_gh.running(pid):
            break
        time.sleep(0.01)
    assert not fake_gh.running(pid)


# -- snapshots ------------------------------------------------------------------------------------


def _on_elsewhere(*keys: str):
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await press(pilot, "E", *keys)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_elsewhere_snapshot(snap_compare, root: Path, fake_gh: FakeGh, size: tuple[int, int]) -> None:
    assert snap_compare(build_app(root), terminal_size=size, run_before=_on_elsewhere("down", "down"))


def test_elsewhere_logged_out_snapshot(snap_compare, root: Path, fake_gh: FakeGh) -> None:
    fake_gh.scenario(mode="logged-out")
    assert snap_compare(build_app(root), terminal_size=(80, 24), run_before=_on_elsewhere())
