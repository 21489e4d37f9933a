"""`a` answers a UWI inline, `A` accepts the recommendations (SPEC §7, §10)."""

from __future__ import annotations

from support.actions_support import (
    Demo,
    asks,
    burst,
    dashboard,
    errors_shown,
    messages,
    press_all,
    settle,
)

from atk_tui.itemfile.sections import answer_text
from atk_tui.tui.modals.answer import AnswerScreen, OptionSet


def answer_of(demo: Demo, key: str) -> str:
    text = demo.text(demo[key])
    assert text.count("## 回答") == 1, text
    ans = answer_text(text)
    assert ans is not None
    return ans.strip()


def picked(screen: AnswerScreen) -> dict[int, str | None]:
    return {o.question.number: o.letter for o in screen.query(OptionSet)}


async def test_top_question_with_the_recommended_option_is_two_keys_from_launch(demo: Demo) -> None:
    top = demo["chain-uwi"]
    async with dashboard(demo) as (app, pilot):
        base = demo.head()
        assert app.main.view.needs_you[0] == top
        assert app.main.selected == top  # the launch selection is the top question
        await press_all(pilot, "a")
        form = app.screen
        assert isinstance(form, AnswerScreen)
        assert form.item.filename == top
        assert picked(form) == {1: "A"}  # the recommendation, preselected
        assert isinstance(form.focused, OptionSet)
        assert form.focused._selected == 0  # and highlighted
        await press_all(pilot, "enter")
        assert not isinstance(app.screen, AnswerScreen)
        # the selection moved on to the next unanswered question: `a` answers it
        assert app.main.selected == demo["cp-multi"]
        await press_all(pilot, "a")
        assert isinstance(app.screen, AnswerScreen)
        assert app.screen.item.filename == demo["cp-multi"]
    assert demo.subjects_since(base) == [f"atk: answer {top}"]
    assert demo.trailer() == "user"
    assert answer_of(demo, "chain-uwi") == "- 1: A) Redis (永続化を有効にした専用クラスタ)"
    assert demo.text(top).rstrip().endswith("- 1: A) Redis (永続化を有効にした専用クラスタ)")  # the last H2
    assert f"answer {top}" not in " ".join(errors_shown(app))


async def test_another_option_by_its_letter_is_three_keys(demo: Demo) -> None:
    async with dashboard(demo) as (_app, pilot):
        base = demo.head()
        await press_all(pilot, "a", "c", "enter")
    assert demo.subjects_since(base) == [f"atk: answer {demo['chain-uwi']}"]
    assert answer_of(demo, "chain-uwi") == "- 1: C) 既存 Redis を共用"


async def test_arrow_keys_pick_an_option(demo: Demo) -> None:
    async with dashboard(demo) as (app, pilot):
        await press_all(pilot, "a", "down", "space")
        assert picked(app.screen) == {1: "B"}
        await press_all(pilot, "enter")
    assert answer_of(demo, "chain-uwi") == "- 1: B) PostgreSQL (既存クラスタに sessions 表)"


async def test_three_questions_by_letters_and_tab_with_a_note(demo: Demo) -> None:
    name = demo["md-multi"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "a")
        assert picked(app.screen) == {1: "A", 2: "B", 3: "A"}
        await pilot.press("b", "tab", "c", "tab")  # Q1 -> B, Q2 -> C, Q3 stays on its recommendation
        assert picked(app.screen) == {1: "B", 2: "C", 3: "A"}
        await press_all(pilot, "tab", *"keep v1 until March", "ctrl+s")
        assert not isinstance(app.screen, AnswerScreen)
    assert demo.written() == [f"atk: answer {name}"]
    assert answer_of(demo, "md-multi") == (
        "- 1: B) 独自形式 `{code, message, details}`\n"
        "- 2: C) 新規エンドポイントだけ\n"
        "- 3: A) `snake_case` (例: `session_expired`)\n"
        "\n"
        "keep v1 until March"
    )


async def test_enter_in_the_notes_is_a_newline_not_a_submit(demo: Demo) -> None:
    name = demo["free-text"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "a")
        form = app.screen
        assert isinstance(form, AnswerScreen)
        assert picked(form) == {}  # no options: the free-text area has the focus
        assert form.focused is form.query_one("#answer-text")
        await press_all(pilot, *"Weekdays 09:00-21:00 JST.", "enter", *"Say: no weekend support.")
        assert isinstance(app.screen, AnswerScreen)  # Enter typed a newline
        await press_all(pilot, "ctrl+s")
        assert not isinstance(app.screen, AnswerScreen)
    assert demo.written() == [f"atk: answer {name}"]
    assert answer_of(demo, "free-text") == "Weekdays 09:00-21:00 JST.\nSay: no weekend support."


async def test_empty_free_text_answer_is_not_submitted(demo: Demo) -> None:
    name = demo["free-text"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "a", "ctrl+s")
        assert isinstance(app.screen, AnswerScreen)
        await press_all(pilot, "escape")
        assert not isinstance(app.screen, AnswerScreen)
    assert demo.written() == []
    assert any("pick an option or write something" in m for m in messages(app))


async def test_escape_cancels_without_writing(demo: Demo) -> None:
    async with dashboard(demo) as (app, pilot):
        base = demo.head()
        await press_all(pilot, "a", "b", "escape")
        assert app.screen is app.main
    assert demo.subjects_since(base) == []
    assert answer_text(demo.text(demo["chain-uwi"])) is None


async def test_re_answer_asks_first_then_replaces(demo: Demo) -> None:
    name = demo["answered-uwi"]
    assert "Unleash" in answer_of(demo, "answered-uwi")
    async with dashboard(demo, name) as (app, pilot):
        assert await asks(pilot, "a") == "Replace the answer?"
        await press_all(pilot, "n")
        assert app.screen is app.main
        assert demo.written() == []

        await press_all(pilot, "a", "y")
        form = app.screen
        assert isinstance(form, AnswerScreen)
        assert form.replacing
        await press_all(pilot, "a", "enter")
    assert demo.written() == [f"atk: answer {name}"]
    assert answer_of(demo, "answered-uwi") == "- 1: A) LaunchDarkly"  # replaced, the old note gone


async def test_accept_recommendation_is_one_key(demo: Demo) -> None:
    name = demo["post-approval"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "A")
        assert app.screen is app.main
    assert demo.written() == [f"atk: answer {name}"]
    assert answer_of(demo, "post-approval") == "- 1: A) Approve"


async def test_accept_answers_every_question_with_its_recommendation(demo: Demo) -> None:
    name = demo["md-multi"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "A")
        # on to the next question, still one key away
        assert app.main.selected in app.main.view.needs_you
        assert app.main.selected != name
    assert answer_of(demo, "md-multi") == (
        "- 1: A) RFC 7807 (problem+json)\n- 2: B) `Accept` ヘッダーで選択\n- 3: A) `snake_case` (例: `session_expired`)"
    )


async def test_accept_refuses_a_question_without_recommendation(demo: Demo) -> None:
    """A free-text question has nothing to accept: it is not answered with a blanket "approved"."""
    name = demo["free-text"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "A")
    assert demo.written() == []
    assert any("no recommendation" in m for m in messages(app))


async def test_accept_refuses_an_answered_question(demo: Demo) -> None:
    name = demo["answered-uwi"]
    before = demo.text(name)
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "A")
    assert demo.written() == []
    assert demo.text(name) == before
    assert any("already answered" in m for m in messages(app))


async def test_a_on_an_awi_opens_the_top_question_and_A_stays_refused(demo: Demo) -> None:
    """The help: `a` answers the selected question, or the top one. `A` would answer a question
    the person does not see: refused on an AWI."""
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        assert app.screen.check_action("answer", ())
        assert not app.screen.check_action("accept", ())
        base = demo.head()
        await press_all(pilot, "A")
        assert app.screen is app.main
        await press_all(pilot, "a")
        assert isinstance(app.screen, AnswerScreen)
        assert app.screen.item.filename == app.main.view.needs_you[0]
        await press_all(pilot, "escape")
    assert demo.subjects_since(base) == []


async def test_a_letter_and_enter_arriving_together_submit_that_letter(demo: Demo) -> None:
    """`c Enter` in one burst (a fast typist, tmux, a paste): the pick lands before the submit."""
    top = demo["chain-uwi"]
    async with dashboard(demo) as (app, pilot):
        base = demo.head()
        await press_all(pilot, "a")
        burst(pilot, "c", "enter")
        await settle(pilot)
        assert app.screen is app.main
    assert demo.subjects_since(base) == [f"atk: answer {top}"]
    assert answer_of(demo, "chain-uwi") == "- 1: C) 既存 Redis を共用"


async def test_the_form_shows_the_current_question_and_the_choices(demo: Demo) -> None:
    async with dashboard(demo, demo["cp-multi"]) as (app, pilot):
        await press_all(pilot, "a")
        form = app.screen

        def shown(wid: str) -> str:
            from rich.text import Text
            from textual.widgets import Static

            content = form.query_one(wid, Static).content
            content = getattr(content, "text", content)  # a `Wrapped` draws its Text
            return content.plain if isinstance(content, Text) else str(content)

        assert shown("#qt1").startswith("▸ Q1.") and shown("#qt2").startswith("  Q2.")
        assert "choices 1=A  2=B" in shown("#answer-help")
        await press_all(pilot, "b", "tab")
        assert shown("#qt1").startswith("  Q1.") and shown("#qt2").startswith("▸ Q2.")
        assert "choices 1=B  2=B" in shown("#answer-help")
