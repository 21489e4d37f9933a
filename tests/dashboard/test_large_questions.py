"""A UWI with very many questions opens its answer form promptly (issue 10): past
`FORM_MAX_QUESTIONS` the form says so and offers the free-text box only, with a bounded number
of widgets, instead of a widget per option (1,000 questions took 25 s, 10,000 ~226 s). The detail
pane lists the first `DETAIL_MAX_QUESTIONS` and counts the rest. `bench/bench_answer_form.py`
prints the times."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

from bench_answer_form import uwi_body
from rich.console import Console
from support.actions_support import settle
from support.tui_helpers import build_app, screen_text

from atk_tui.store import init_store
from atk_tui.tui.modals.answer import FORM_MAX_QUESTIONS, AnswerScreen, OptionSet
from atk_tui.tui.widgets.detail import DETAIL_MAX_QUESTIONS, DetailPane


def _store(tmp_path: Path, n: int) -> tuple[Path, str]:
    root, _ = init_store(tmp_path / "store")
    name = f"2026-11-29-many-{n}.md"
    (root / "wi" / "inbox" / name).write_text(f"---\nkind: uwi\ntarget_repo: acme/webapp\nurgency: blocking\n---\n{uwi_body(n)}", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "add"], cwd=root, check=True)
    return root, name


async def _open_form(tmp_path: Path, n: int):
    root, name = _store(tmp_path, n)
    app = build_app(root)
    return app, name


async def test_a_thousand_questions_open_a_free_text_form(tmp_path: Path) -> None:
    app, name = await _open_form(tmp_path, 1000)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.main.jump_to(name)
        await settle(pilot)
        pane = app.main.query_one(DetailPane)
        questions = pane._questions(app.main.full_items[name])
        console = Console(width=100, record=True, file=io.StringIO())
        console.print(questions)
        listed = console.export_text()
        assert f"Q{DETAIL_MAX_QUESTIONS}. " in listed and f"Q{DETAIL_MAX_QUESTIONS + 1}. " not in listed
        assert f"… and {1000 - DETAIL_MAX_QUESTIONS:,} more questions" in listed
        await pilot.press("a")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, AnswerScreen)
        assert not form.query(OptionSet)  # no widget per question
        assert len(list(form.query("*"))) < 40
        assert "This item asks 1,000 questions" in screen_text(app)
        assert form.focused is form.query_one("#answer-text")
        await pilot.press(*"Q1: A", "enter", *"Q2: other", "enter", *"Q3: Z", "enter", *"why")
        res = form.result()
        # "Qn: X" lines naming a real option (or other) are choices; the rest stays the notes
        assert res.choices == {1: "A", 2: "other"}
        assert res.text == "Q3: Z\nwhy"
        assert form.missing(res)[:2] == [3, 4]  # the other 998 still need an answer


async def test_up_to_the_limit_every_question_has_its_options(tmp_path: Path) -> None:
    app, name = await _open_form(tmp_path, FORM_MAX_QUESTIONS)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.main.jump_to(name)
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, AnswerScreen)
        assert len(form.query(OptionSet)) == FORM_MAX_QUESTIONS
        assert "This item asks" not in screen_text(app)
