"""Issue 43, the rest of the list: what the history's age measures, the plan row, the history
detail's commit subjects (titles where the lists show titles, a filename never split)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from support.actions_support import Demo, asks, dashboard, press_all
from support.apps import build_app, recording, screen_text, settle, wait_until
from support.clock import NOW
from support.storekit import Clock, add_item

from atk_tui.demo import create_demo_store
from atk_tui.service import Service
from atk_tui.store import init_store
from atk_tui.tui.modals.dialogs import InAppEditorScreen


async def test_history_age_is_the_age_of_the_move_not_of_the_item(tmp_path: Path) -> None:
    """An item added three days ago and adopted a moment ago is `now` in the history, not `3d`."""
    root = tmp_path / "store"
    init_store(root)
    now = datetime.now(UTC).replace(microsecond=0)
    svc = Service(root, actor="user", clock=Clock(now - timedelta(days=3)))
    name = add_item(svc)
    old = add_item(svc)
    assert svc.writes.transition_command("start-processing", [name, old]).ok
    assert svc.writes.transition_command("adopt", [name]).ok
    app = build_app(root, clock=lambda: datetime.now(UTC))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        screen = app.screen
        await wait_until(pilot, lambda: screen.moved is not None, "the history index")
        await settle(pilot)
        row = screen.query_one("#terminal").rows[0]
        assert row.key == name
        assert row.cells[-1].plain in ("now", "1m"), row.cells[-1].plain
        assert "3d" not in screen_text(app).split("History 1")[1].split("\n")[2]


async def test_history_detail_names_no_filename_split_mid_name(tmp_path: Path) -> None:
    """The item's own commits say what was done (`atk: adopt`), not its filename folded over
    three lines."""
    root = create_demo_store(tmp_path, NOW)
    app = build_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        key = app.screen.query_one("#terminal").current_key
        shown = screen_text(app)
        assert "atk: adopt" in shown or "atk: reject" in shown
        stem = key.removesuffix(".md")
        assert stem[:20] not in shown.split("history")[-1], shown


async def test_plan_row_reads_as_a_path_in_the_store(tmp_path: Path) -> None:
    """`plan plans/YYYY/MM/x.md`, not `plan $(atk config get …` (a command left unexpanded)."""
    root = create_demo_store(tmp_path, NOW)
    app = build_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        item = next(i for i in app.queue.snapshot.items.values() if i.plan_file and i.state == "processing")
        lst = app.screen.query_one("#processing")
        lst.focus()
        assert lst.select_key(item.filename)
        await settle(pilot)
        shown = screen_text(app)
        assert "$(atk" not in shown
        rel = item.plan_file.split(")/", 1)[1]
        assert f"plan {rel}" in shown, shown


async def test_in_a_browser_edit_here_is_asked_once_a_session(demo: Demo) -> None:
    """Where the terminal cannot be handed to $EDITOR (a browser), `e` asks "Edit here?" the
    first time; once agreed, the next `e` opens the dashboard's editor at once. A "no" is
    asked again."""
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        app.can_suspend = lambda: False  # as under textual-serve
        assert await asks(pilot, "e") == "Edit here?"
        await press_all(pilot, "n")
        assert await asks(pilot, "e") == "Edit here?"  # a "no" is not remembered
        await press_all(pilot, "y")
        assert isinstance(app.screen, InAppEditorScreen)
        await press_all(pilot, "escape")  # nothing changed: the hold is let go
        assert app.screen is app.main
        assert demo.state(name) == "inbox"
        await press_all(pilot, "e")
        assert isinstance(app.screen, InAppEditorScreen), app.screen  # not asked again
        await press_all(pilot, "escape")
    async with dashboard(demo, name) as (app, pilot):  # another session (a browser tab): asked
        app.can_suspend = lambda: False
        assert await asks(pilot, "e") == "Edit here?"


async def test_the_empty_store_hint_is_whole_at_every_size(tmp_path: Path) -> None:
    """The needs-you strip of an empty store says all of its hint (wrapped at whole words, a
    command never split), not cut at the pane's edge at 120 or 80 columns."""
    root = tmp_path / "store"
    init_store(root)
    for size in ((200, 60), (120, 36), (80, 24)):
        app = build_app(root)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            shown = screen_text(app)
            words = " ".join(line.strip(" │") for line in shown.splitlines())
            assert "opens a sample store to look around." in " ".join(words.split()), (size, shown)
            assert "`atk-tui --demo`" in shown and "`atk wi add`" in shown, (size, shown)


async def test_screenshot_without_a_downloads_folder_goes_home_and_says_where(tmp_path: Path, monkeypatch) -> None:
    """The palette's Screenshot with no ~/Downloads: saved in the home folder, the toast naming
    the file and why there (Textual said only "Failed to save screenshot")."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    root = tmp_path / "store"
    init_store(root)
    app = recording(build_app(root))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.action_screenshot()
        await settle(pilot)
    saved = list(home.glob("atk-tui *.svg"))
    assert len(saved) == 1 and "<svg" in saved[0].read_text(encoding="utf-8")
    assert (f"Screenshot saved to {saved[0]} ({home / 'Downloads'} does not exist)", "information") in app.notes


async def test_screenshot_that_cannot_be_written_says_where_and_why(tmp_path: Path, monkeypatch) -> None:
    home = tmp_path / "not-a-folder"
    home.write_text("a file where the home folder should be\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    root = tmp_path / "store"
    init_store(root)
    app = recording(build_app(root))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.action_screenshot()
        await settle(pilot)
    errors = [m for m, sev in app.notes if sev == "error"]
    assert len(errors) == 1 and errors[0].startswith(f"Could not save the screenshot to {home}/atk-tui "), errors
    assert errors[0].endswith(": Not a directory"), errors


async def test_the_demo_shows_sample_escalations_under_E(tmp_path: Path) -> None:
    """`E` in the demo shows afkkit's sample escalations and ready queue at once (the demo
    never looks at GitHub; before, it showed nothing until `u` said gh was missing)."""
    root = create_demo_store(tmp_path, NOW, elsewhere=True)
    app = build_app(root, look_elsewhere=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        shown = screen_text(app)
        assert type(app.screen).__name__ == "ElsewhereScreen", shown
        assert "Rate-limit the public search endpoint" in shown, shown
        assert "Return 503 with Retry-After" in shown
        assert "sample rows, not read from GitHub" in shown


async def test_the_answer_form_does_not_scroll_at_200x60(tmp_path: Path) -> None:
    """Every question of the demo, and one of three questions with three long options each and
    a long background, fits the answer form at 200x60 without scrolling (issue 43 saw it
    scroll there); at 80x24 the long one scrolls, as it must."""
    from textual.containers import VerticalScroll

    root = create_demo_store(tmp_path, NOW, feedback_queue=True)
    svc = Service(root, actor="agent", clock=Clock(NOW))
    qs = []
    for n in range(1, 4):
        opts = "\n".join(
            f"- {c}) Option {c} of question {n} -- " + "what choosing it means for the deploy, the cost and the people on call; " * 2
            for c in "ABC"
        )
        qs.append(f"### Q{n}. Which approach should question {n} take for the rollout of the new session store?\n{opts}\n推奨: A) the safest")
    body = "# Three choices for the rollout\n## 背景\n" + "What was found while working. " * 20 + "\n## 質問\n" + "\n\n".join(qs) + "\n"
    big = add_item(svc, body=body, kind="uwi", source="process-wi", target_repo="acme/api")
    for size in ((200, 60), (80, 24)):
        app = build_app(root)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            names = [r.key for r in app.main.query_one("#needs").rows] if size == (200, 60) else [big]
            assert big in names or size != (200, 60)
            for name in names:
                assert app.main.jump_to(name)
                await settle(pilot)
                await pilot.press("a")
                await settle(pilot)
                assert type(app.screen).__name__ == "AnswerScreen", (size, name)
                scroll = app.screen.query_one(VerticalScroll).max_scroll_y
                assert (scroll == 0) == (size == (200, 60)), (size, name, scroll)
                await pilot.press("escape")
                await settle(pilot)
