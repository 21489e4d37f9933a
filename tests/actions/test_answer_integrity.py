"""The answer form records what it shows (SPEC §11): the highlight is the choice, "other — see
notes" and clearing, partial answers confirmed, and the user's words surviving races."""

from __future__ import annotations

from actions_support import (  # noqa: F401 (fixtures)
    SIZE,
    Demo,
    demo_fixture,
    make,
    pilot_test,
    select,
    settle,
    started,
    template_fixture,
)
from textual.widgets import TextArea

from atk_tui.core.service import Service
from atk_tui.tui.screens.answer import OTHER, AnswerScreen, OptionSet
from atk_tui.tui.screens.dialogs import ChoiceScreen

NO_REC = """# Which log format should services use?

## 質問
Which log format should services use?

- A) JSON lines -- machine friendly
- B) logfmt -- human friendly
"""

TWO_QUESTIONS = """# Release plan for the session store

## 質問 1
Which branch should we release from?

- A) main -- always green
- B) release -- stabilised

推奨: B

## 質問 2
Which day should we release?

- A) Monday -- whole week to fix
- B) Friday -- quiet weekend
"""


def add_uwi(demo: Demo, body: str) -> str:
    out = Service(demo.root, actor="user").add(kind="uwi", target_repo="acme/webapp", body=body)
    assert out.ok, out.message
    return out.files[0]


def highlight(os_: OptionSet) -> str | None:
    """The name of the highlighted row (what the keys point at), None for none."""
    return None if os_._selected is None else os_._nodes[os_._selected].name


def form_state(screen: AnswerScreen) -> dict[int, tuple[str | None, str | None]]:
    """Per question: (recorded choice, highlighted row): the two must always agree."""
    return {o.question.number: (o.letter, highlight(o)) for o in screen.query(OptionSet)}


def summary(screen: AnswerScreen) -> str:
    return str(screen.query_one("#answer-help").render())


async def open_form(pilot, name: str) -> AnswerScreen:  # type: ignore[no-untyped-def]
    await select(pilot, name)
    await pilot.press("a")
    await settle(pilot)
    form = pilot.app.screen
    assert isinstance(form, AnswerScreen)
    assert form.item.filename == name
    return form


@pilot_test
async def test_the_highlight_starts_on_the_recommended_option_b(demo: Demo) -> None:
    app = make(demo.root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        form = await open_form(pilot, demo["md-multi"])
        # Q2 recommends B: highlighted and recorded, not A
        assert form_state(form) == {1: ("A", "A"), 2: ("B", "B"), 3: ("A", "A")}
        assert "choices 1=A  2=B  3=A" in summary(form)


@pilot_test
async def test_no_recommendation_means_nothing_preselected_and_a_letter_moves_the_highlight(demo: Demo) -> None:
    name = add_uwi(demo, NO_REC)
    app = make(demo.root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        form = await open_form(pilot, name)
        assert form_state(form) == {1: (None, None)}
        assert "choices 1=-" in summary(form)
        await pilot.press("b")
        assert form_state(form) == {1: ("B", "B")}
        assert "choices 1=B" in summary(form)
        await pilot.press("a")
        assert form_state(form) == {1: ("A", "A")}


@pilot_test
async def test_arrows_move_the_choice_with_the_highlight(demo: Demo) -> None:
    app = make(demo.root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        form = await open_form(pilot, demo["cp-single"])
        assert form_state(form) == {1: ("B", "B")}
        await pilot.press("down")
        assert form_state(form) == {1: ("C", "C")}
        await pilot.press("down")
        assert form_state(form) == {1: (OTHER, OTHER)}  # the last row: "other — see notes"
        await pilot.press("down")  # stays there, never wraps to A unseen
        assert form_state(form) == {1: (OTHER, OTHER)}
        await pilot.press("up", "up")
        await settle(pilot)
        assert form_state(form) == {1: ("B", "B")}
        assert "choices 1=B" in summary(form)


@pilot_test
async def test_other_and_clear_keys(demo: Demo) -> None:
    app = make(demo.root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        form = await open_form(pilot, demo["cp-multi"])
        await pilot.press("o")
        assert form_state(form)[1] == (OTHER, OTHER)
        assert "choices 1=other" in summary(form)
        await pilot.press("tab", "delete")
        assert form_state(form)[2] == (None, None)
        assert "2=-" in summary(form)
        await pilot.press("down")  # from no choice, ↓ picks the first option
        assert form_state(form)[2] == ("A", "A")
        await pilot.press("backspace")
        assert form_state(form)[2] == (None, None)
        res = form.result()
        assert res.choices == {1: OTHER}
        assert res.labels == {1: OTHER}


@pilot_test
async def test_clicking_an_option_picks_that_option(demo: Demo) -> None:
    app = make(demo.root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        form = await open_form(pilot, demo["md-multi"])
        q2 = form.query_one("#q2", OptionSet)
        buttons = list(q2.query("RadioButton"))
        for index, expected in ((2, "C"), (0, "A"), (3, OTHER)):
            await pilot.click(buttons[index], offset=(4, 0))
            await settle(pilot)
            assert form_state(form)[2] == (expected, expected)


@pilot_test
async def test_an_unanswered_question_asks_before_a_partial_submit(demo: Demo) -> None:
    name = add_uwi(demo, TWO_QUESTIONS)
    app = make(demo.root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        form = await open_form(pilot, name)
        assert form_state(form) == {1: ("B", "B"), 2: (None, None)}
        base = demo.head()
        await pilot.press("enter")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen)
        assert "Q2 has no answer — submit as partial?" in str(dialog.message)
        await pilot.press("n")  # keep answering: back in the form, choices intact
        await settle(pilot)
        assert app.screen is form
        assert form_state(form) == {1: ("B", "B"), 2: (None, None)}
        assert demo.head() == base
        # the notes alone do not answer an option question
        form.query_one("#answer-text", TextArea).insert("ship it")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is form
        await pilot.press("tab", "a", "enter")  # Q2 answered: no question asked
        await settle(pilot)
        assert not isinstance(app.screen, AnswerScreen | ChoiceScreen)
