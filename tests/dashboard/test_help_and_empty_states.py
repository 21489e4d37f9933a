"""Issue 30, the first hour: the help screen lists every key that exists, an empty store says
what to do first, and the answer form never doubles a question's own number."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from support.apps import running
from support.tui_helpers import press, screen_text

from atk_tui.store import init_store
from atk_tui.tui.keymap import main_entries

SIZE = (160, 60)


async def test_the_help_screen_lists_every_binding_of_the_dashboard(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, pilot):
        await press(pilot, "question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(app.screen._table())
        text = console.export_text()
        missing = []
        for entry in main_entries():
            if entry.id and entry.id not in text:
                missing.append(f"{entry.id} ({', '.join(entry.keys)})")
            elif not entry.id and entry.description and entry.description not in text:
                missing.append(f"{entry.description!r} ({', '.join(entry.keys)})")
        assert missing == [], f"bindings the help screen does not list: {missing}"
        for key in ("N", "Notices", "Ctrl+C"):
            assert key in text


async def test_an_empty_store_says_what_to_do(app_factory, tmp_path: Path) -> None:
    root, _ = init_store(tmp_path / "notes")
    async with running(app_factory(root), SIZE) as (app, _pilot):
        text = screen_text(app)
        for words in ("Press + to add one", "atk wi add", "atk-tui --demo"):
            assert words in text, text


async def test_a_store_with_items_keeps_the_short_empty_texts(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, _pilot):
        assert "atk-tui --demo" not in screen_text(app)


def test_the_answer_form_heading_does_not_double_a_questions_own_number() -> None:
    from atk_tui.itemfile.question_lines import Question
    from atk_tui.tui.modals.answer import AnswerScreen

    def heading(number: int, text: str) -> str:
        return AnswerScreen._heading(Question(number, text, (), None, ""), current=False).plain.strip()

    assert heading(1, "Q1. Which login rule?") == "Q1. Which login rule?"
    assert heading(2, "Q2: Keep the cache?") == "Q2. Keep the cache?"
    assert heading(1, "Which login rule?") == "Q1. Which login rule?"
    assert heading(1, "Q10 rows or more?") == "Q1. Q10 rows or more?"


def test_the_editor_gets_a_short_name_in_the_scratch_folder(tmp_path: Path, monkeypatch) -> None:
    """vim said "Press ENTER" when the scratch file's whole path did not fit its message line:
    the editor now runs in the scratch folder on the bare filename (the item's name visible)."""
    import contextlib
    import subprocess

    from atk_tui.tui.writes import edit_session

    scratch = tmp_path / ("deep" * 20) / "20261129-051200-login-rule~1.md"
    scratch.parent.mkdir()
    scratch.write_text("x")
    calls = []
    monkeypatch.setenv("VISUAL", "true -u NONE")  # any editor on every PATH
    monkeypatch.setattr(subprocess, "call", lambda argv, cwd=None: calls.append((argv, cwd)) or 0)

    class App:
        def suspend(self):
            return contextlib.nullcontext()

    assert edit_session.run_real_editor(App(), scratch) == 0
    assert calls == [(["true", "-u", "NONE", "20261129-051200-login-rule~1.md"], scratch.parent)]


# -- the help screen: navigable, searchable, grouped once, one way to name a key (issue 43) ------


async def test_the_help_is_grouped_once_names_keys_one_way_and_lists_only_the_dashboards_keys(app_factory) -> None:
    from atk_tui.tui.screens.help import GROUPS, help_rows

    rows = help_rows()
    groups = [r.group for r in rows]
    assert [g for i, g in enumerate(groups) if i == 0 or groups[i - 1] != g] == list(GROUPS)  # each group once
    keys = [k for r in rows for k in r.keys]
    assert not [k for k in keys if k.startswith("^") or k in ("esc", "escape", "enter", "⏎") or "ctrl+" in k], keys
    assert "Esc" in keys and "Enter" in keys and "Ctrl+C" in keys and "Ctrl+P" in keys
    # Textual's own bindings (Ctrl+C "Copy selected text", Ctrl+Q) are not the dashboard's
    assert not [r for r in rows if "Copy selected text" in r.what or "Ctrl+Q" in r.keys]
    assert [r.keys for r in rows].count(["Ctrl+C"]) == 1
    # n means one thing: the needs-you pane (a filter's next match is said on the filter's row)
    n_rows = [r for r in rows if "n" in r.keys]
    assert len(n_rows) == 1 and "needs-you" in n_rows[0].what
    assert not [r for r in rows if r.what.startswith("Next match")]


async def test_the_help_scrolls_with_j_k_g_and_searches_with_slash(app_factory) -> None:
    async with running(app_factory(), (100, 24)) as (app, pilot):
        await press(pilot, "question_mark")
        help_screen = app.screen
        assert type(help_screen).__name__ == "HelpScreen"
        scroll = help_screen.query_one("#help-scroll")
        assert scroll.max_scroll_y > 0
        await press(pilot, "j", "j", "j")
        assert scroll.scroll_y == 3
        await press(pilot, "k")
        assert scroll.scroll_y == 2
        await press(pilot, "G")
        assert scroll.scroll_y == scroll.max_scroll_y
        await press(pilot, "g")
        assert scroll.scroll_y == 0
        await press(pilot, "slash", *"hold")
        assert help_screen.query_text == "hold"
        rows = help_screen.rows()
        assert rows and all("hold" in r.text() for r in rows)
        shown = screen_text(app)
        assert "Hold the selected items" in shown and "Refresh" not in shown
        await press(pilot, "escape")  # clears the search
        assert type(app.screen).__name__ == "HelpScreen" and help_screen.query_text == ""
        assert "Refresh" in screen_text(app) or scroll.max_scroll_y > 0
        await press(pilot, "escape")  # then closes
        assert app.screen is app.main
