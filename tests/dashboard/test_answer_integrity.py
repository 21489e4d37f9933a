"""The answer form records what it shows (SPEC §11): the highlight is the choice, "other — see
notes" and clearing, partial answers confirmed, and the user's words surviving races."""

from __future__ import annotations

import io

from rich.console import Console
from support.actions_support import Demo, dashboard, press_all, select, settle
from textual.widgets import Input, Static, TextArea

from atk_tui.service import Service
from atk_tui.tui.modals.answer import OTHER, AnswerScreen, OptionSet
from atk_tui.tui.modals.dialogs import ChoiceScreen, TextFormScreen

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
    out = Service(demo.root, actor="user").writes.add(kind="uwi", target_repo="acme/webapp", body=body)
    assert out.ok, out.message
    return out.files[0]


def highlight(os_: OptionSet) -> str | None:
    """The name of the highlighted row (what the keys point at), None for none."""
    return os_.highlighted


def form_state(screen: AnswerScreen) -> dict[int, tuple[str | None, str | None]]:
    """Per question: (recorded choice, highlighted row): the two must always agree."""
    return {o.question.number: (o.letter, highlight(o)) for o in screen.query(OptionSet)}


def summary(screen: AnswerScreen) -> str:
    return str(screen.query_one("#answer-help").render())


async def open_form(pilot, name: str) -> AnswerScreen:  # type: ignore[no-untyped-def]
    await select(pilot, name)
    await press_all(pilot, "a")
    form = pilot.app.screen
    assert isinstance(form, AnswerScreen)
    assert form.item.filename == name
    return form


async def test_the_highlight_starts_on_the_recommended_option_b(demo: Demo) -> None:
    async with dashboard(demo) as (_app, pilot):
        form = await open_form(pilot, demo["md-multi"])
        # Q2 recommends B: highlighted and recorded, not A
        assert form_state(form) == {1: ("A", "A"), 2: ("B", "B"), 3: ("A", "A")}
        assert "choices 1=A  2=B  3=A" in summary(form)


async def test_no_recommendation_means_nothing_preselected_and_a_letter_moves_the_highlight(demo: Demo) -> None:
    name = add_uwi(demo, NO_REC)
    async with dashboard(demo) as (_app, pilot):
        form = await open_form(pilot, name)
        assert form_state(form) == {1: (None, None)}
        assert "choices 1=-" in summary(form)
        await pilot.press("b")
        assert form_state(form) == {1: ("B", "B")}
        assert "choices 1=B" in summary(form)
        await pilot.press("a")
        assert form_state(form) == {1: ("A", "A")}


async def test_arrows_move_the_choice_with_the_highlight(demo: Demo) -> None:
    async with dashboard(demo) as (_app, pilot):
        form = await open_form(pilot, demo["cp-single"])
        assert form_state(form) == {1: ("B", "B")}
        await pilot.press("down")
        assert form_state(form) == {1: ("C", "C")}
        await pilot.press("down")
        assert form_state(form) == {1: (OTHER, OTHER)}  # the last row: "other — see notes"
        await pilot.press("down")  # stays there, never wraps to A unseen
        assert form_state(form) == {1: (OTHER, OTHER)}
        await press_all(pilot, "up", "up")
        assert form_state(form) == {1: ("B", "B")}
        assert "choices 1=B" in summary(form)


async def test_other_and_clear_keys(demo: Demo) -> None:
    async with dashboard(demo) as (_app, pilot):
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


async def test_clicking_an_option_picks_that_option(demo: Demo) -> None:
    async with dashboard(demo) as (_app, pilot):
        form = await open_form(pilot, demo["md-multi"])
        q2 = form.query_one("#q2", OptionSet)
        buttons = list(q2.query("RadioButton"))
        for index, expected in ((2, "C"), (0, "A"), (3, OTHER)):
            await pilot.click(buttons[index], offset=(4, 0))
            await settle(pilot)
            assert form_state(form)[2] == (expected, expected)


async def test_an_unanswered_question_asks_before_a_partial_submit(demo: Demo) -> None:
    name = add_uwi(demo, TWO_QUESTIONS)
    async with dashboard(demo) as (app, pilot):
        form = await open_form(pilot, name)
        assert form_state(form) == {1: ("B", "B"), 2: (None, None)}
        base = demo.head()
        await press_all(pilot, "enter")
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
        await press_all(pilot, "enter")
        assert isinstance(app.screen, ChoiceScreen)
        await press_all(pilot, "escape")
        assert app.screen is form
        await pilot.press("tab", "a", "enter")  # Q2 answered: no question asked
        await settle(pilot)
        assert not isinstance(app.screen, AnswerScreen | ChoiceScreen)


def agent_edit(demo: Demo, name: str, change) -> None:  # type: ignore[no-untyped-def]
    """Someone else (an agent) edits the item's body while the form is open."""
    svc = Service(demo.root, actor="agent")
    item = svc.read(name)
    new = change(item.body)
    assert new != item.body
    out = svc.writes.edit(name, new)
    assert out.ok, out.message


def reorder_q2(body: str) -> str:
    """md-multi's question 2 with options A and C swapped (labels move to other letters)."""
    a = "- A) 一括切り替え -- 次のメジャーで全エンドポイントを変える。クライアントの同時更新が必要"
    c = "- C) 新規エンドポイントだけ -- 既存は変えない。混在は解消しない"
    assert a in body and c in body
    return (
        body.replace(a, "@@A@@")
        .replace(c, "- A) 新規エンドポイントだけ -- 既存は変えない。混在は解消しない")
        .replace("@@A@@", "- C) 一括切り替え -- 次のメジャーで全エンドポイントを変える。クライアントの同時更新が必要")
    )


async def test_options_reordered_meanwhile_nothing_is_written_and_the_choice_follows_its_label(demo: Demo) -> None:
    name = demo["md-multi"]
    async with dashboard(demo) as (app, pilot):
        form = await open_form(pilot, name)
        await pilot.press("b", "tab", "c", "tab", "tab", *"keep v1 until March")
        assert form_state(form)[2] == ("C", "C")  # 新規エンドポイントだけ
        agent_edit(demo, name, reorder_q2)
        base = demo.head()
        await press_all(pilot, "ctrl+s")
        assert demo.head() == base  # nothing written over the agent's version
        again = app.screen
        assert isinstance(again, AnswerScreen) and again is not form
        notice = str(again.query_one("#answer-notice").render())
        assert "changed while you were answering" in notice
        # the NEW question, with the user's choice by label: now letter A
        new_a = again.query_one("#q2", OptionSet).question.option("A")
        assert new_a is not None and new_a.label == "新規エンドポイントだけ"
        assert form_state(again) == {1: ("B", "B"), 2: ("A", "A"), 3: ("A", "A")}
        assert again.query_one("#answer-text", TextArea).text == "keep v1 until March"
        await press_all(pilot, "ctrl+s")
        assert not isinstance(app.screen, AnswerScreen)
    assert demo.subjects_since(base) == [f"atk: answer {name}"]
    text = demo.text(name)
    assert "- A) 新規エンドポイントだけ" in text  # the agent's reordering is kept
    assert "- 2: A) 新規エンドポイントだけ\n" in text
    assert "keep v1 until March" in text


async def test_a_failed_answer_write_keeps_the_choices_and_text_with_a_retry(demo: Demo) -> None:
    name = demo["cp-single"]
    async with dashboard(demo) as (app, pilot):
        form = await open_form(pilot, name)
        await pilot.press("c", "tab", *"cost matters most")
        # the item is removed meanwhile (another session)
        assert Service(demo.root, actor="user").writes.rm([name]).ok
        base = demo.head()
        await press_all(pilot, "ctrl+s")
        assert demo.head() == base
        again = app.screen
        assert isinstance(again, AnswerScreen) and again is not form
        assert "Not saved" in str(again.query_one("#answer-notice").render())
        assert form_state(again) == {1: ("C", "C")}
        assert again.query_one("#answer-text", TextArea).text == "cost matters most"
        # restored (z in the other session): the retry saves the kept answer
        assert Service(demo.root, actor="user").writes.undo(demo.head()).ok
        await press_all(pilot, "ctrl+s")
        assert not isinstance(app.screen, AnswerScreen)
    assert "- 1: C) Keep on-demand" in demo.text(name)
    assert "cost matters most" in demo.text(name)


async def test_a_partial_answer_is_saved_as_partial_after_confirmation(demo: Demo) -> None:
    name = add_uwi(demo, TWO_QUESTIONS)
    async with dashboard(demo) as (app, pilot):
        await open_form(pilot, name)
        base = demo.head()
        await press_all(pilot, "enter")
        assert isinstance(app.screen, ChoiceScreen)
        await press_all(pilot, "y")
        assert not isinstance(app.screen, AnswerScreen | ChoiceScreen)
        assert demo.subjects_since(base) == [f"atk: answer {name}"]
        item = Service(demo.root).read(name)
        assert item.answer_partial and not item.answered
        # still needs the user: listed in needs-you, marked as partially answered
        assert name in app.main.view.needs_you


async def test_other_with_notes_is_recorded_as_other(demo: Demo) -> None:
    name = demo["cp-single"]
    async with dashboard(demo) as (app, pilot):
        await open_form(pilot, name)
        await press_all(pilot, "o", "tab", *"only the batch workers on spot", "ctrl+s")
        assert not isinstance(app.screen, AnswerScreen | ChoiceScreen)
    text = demo.text(name)
    assert "- 1: other — see notes\n\nonly the batch workers on spot" in text
    assert Service(demo.root).read(name).answered


def add_line(body: str) -> str:
    return body.rstrip("\n") + "\n\n- 追記 (agent): measured again on Monday\n"


async def test_a_comment_on_a_changed_item_is_kept_and_added_to_the_new_version(demo: Demo) -> None:
    name = demo["lint"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "c")
        assert isinstance(app.screen, TextFormScreen)
        await pilot.press(*"please keep the placeholder colour")
        agent_edit(demo, name, add_line)
        base = demo.head()
        await press_all(pilot, "ctrl+s")
        assert demo.head() == base
        again = app.screen
        assert isinstance(again, TextFormScreen)
        assert "changed while you were writing" in str(again.prompt)
        assert again.query_one("#text", TextArea).text == "please keep the placeholder colour"
        await press_all(pilot, "ctrl+s")
        assert not isinstance(app.screen, TextFormScreen)
    assert demo.subjects_since(base) == [f"atk: comment {name}"]
    text = demo.text(name)
    assert "measured again on Monday" in text and "please keep the placeholder colour" in text


async def test_a_failed_comment_keeps_the_text_with_a_retry(demo: Demo) -> None:
    name = demo["lint"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "c")
        await pilot.press(*"do not lazy-load the hero image")
        assert Service(demo.root, actor="user").writes.rm([name]).ok
        await press_all(pilot, "ctrl+s")
        again = app.screen
        assert isinstance(again, TextFormScreen)
        assert "Not saved" in str(again.prompt)
        assert again.query_one("#text", TextArea).text == "do not lazy-load the hero image"
        assert Service(demo.root, actor="user").writes.undo(demo.head()).ok
        await press_all(pilot, "ctrl+s")
        assert not isinstance(app.screen, TextFormScreen)
    assert "do not lazy-load the hero image" in demo.text(name)


async def test_a_move_note_survives_a_failed_move(demo: Demo) -> None:
    name = demo["proc-darkmode"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "m", "a")
        await press_all(pilot, *"merged in #42", "enter")
        assert isinstance(app.screen, ChoiceScreen)  # Move to adopted?
        agent_edit(demo, name, add_line)  # meanwhile
        base = demo.head()
        await press_all(pilot, "y")
        assert demo.head() == base and demo.state(name) == "processing"
        again = app.screen
        assert isinstance(again, TextFormScreen)
        assert "changed since you opened the menu" in str(again.prompt)
        assert again.query_one("#text", Input).value == "merged in #42"
        await press_all(pilot, "enter")
        assert app.screen is app.main
    assert demo.state(name) == "adopted"
    assert "note: 'merged in #42'" in demo.text(name)


async def test_needs_you_and_the_detail_pane_show_a_partial_answer(demo: Demo) -> None:
    name = add_uwi(demo, TWO_QUESTIONS)
    out = Service(demo.root, actor="user").answers.answer(name, choices={1: "B"}, partial=True)
    assert out.ok, out.message
    async with dashboard(demo) as (app, pilot):
        view = app.main.view
        assert name in view.needs_you  # still needs the user
        needs = app.main.query_one("#needs")
        row = next(r for r in needs.rows if r.key == name)
        assert "◐ partly answered" in row.cells[2].plain
        inbox = app.main.query_one("#inbox")
        row = next(r for r in inbox.rows if r.key == name)
        assert row.cells[0].plain.startswith("◐ partly")
        await select(pilot, name)
        console = Console(width=400, record=True, file=io.StringIO())
        console.print(app.main.query_one("#detail-meta", Static).content)
        meta = console.export_text()
        assert "partly answered (Q2 unanswered): still needs you" in meta
        # a re-answer starts from a confirmation that says so
        await press_all(pilot, "a")
        assert isinstance(app.screen, ChoiceScreen)
        assert "partially answered already" in str(app.screen.message)


async def test_the_form_counts_missing_questions_by_the_services_rule(demo: Demo) -> None:
    """The form asks about exactly what core's `answer_progress` calls missing: with two
    option questions, notes alone answer neither (each needs a choice or "other")."""
    name = add_uwi(demo, TWO_QUESTIONS)
    async with dashboard(demo) as (app, pilot):
        form = await open_form(pilot, name)
        await pilot.press("delete")  # clear Q1's recommendation: no choice anywhere
        assert form_state(form) == {1: (None, None), 2: (None, None)}
        form.query_one("#answer-text", TextArea).insert("release from main on Tuesday, not Friday")
        assert form.missing(form.result()) == [1, 2]
        await press_all(pilot, "enter")
        assert isinstance(app.screen, ChoiceScreen)
        assert "Q1, Q2 have no answer — submit as partial?" in str(app.screen.message)
        await press_all(pilot, "n")
        await pilot.press("o", "tab", "o")  # "other — see notes" for both: complete
        assert form.missing(form.result()) == []
        await press_all(pilot, "enter")
        assert not isinstance(app.screen, AnswerScreen | ChoiceScreen)
    item = Service(demo.root).read(name)
    assert item.answered and not item.answer_partial
    assert "- 1: other — see notes\n- 2: other — see notes" in demo.text(name)


async def test_a_choice_whose_option_was_removed_meanwhile_is_not_guessed(demo: Demo) -> None:
    name = demo["md-multi"]
    async with dashboard(demo) as (app, pilot):
        await open_form(pilot, name)
        await pilot.press("tab", "c")  # Q2: 新規エンドポイントだけ
        agent_edit(demo, name, lambda body: body.replace("- C) 新規エンドポイントだけ -- 既存は変えない。混在は解消しない\n", ""))
        base = demo.head()
        await press_all(pilot, "enter")
        again = app.screen
        assert isinstance(again, AnswerScreen)
        assert demo.head() == base
        notice = str(again.query_one("#answer-notice").render())
        assert "Q2: your choice “新規エンドポイントだけ” is no longer an option" in notice
        # Q2 has nothing preselected (never another option in its place); Q1, Q3 kept
        assert form_state(again) == {1: ("A", "A"), 2: (None, None), 3: ("A", "A")}


async def test_a_busy_store_keeps_the_comment_with_a_retry(demo: Demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from atk_tui.store import GitStore

    name = demo["lint"]
    monkeypatch.setenv("ATK_LOCK_TIMEOUT", "0.2")
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "c")
        await pilot.press(*"keep the blur-up placeholder")
        base = demo.head()
        with GitStore(demo.root).locked():  # another writer holds the store
            await press_all(pilot, "ctrl+s")
            again = app.screen
            assert isinstance(again, TextFormScreen)
            assert "Not saved" in str(again.prompt)
            assert again.query_one("#text", TextArea).text == "keep the blur-up placeholder"
            assert demo.head() == base
        await pilot.press("ctrl+s")  # the lock is free now: the retry saves
        await settle(pilot)
        assert not isinstance(app.screen, TextFormScreen)
    assert demo.subjects_since(base) == [f"atk: comment {name}"]
    assert "keep the blur-up placeholder" in demo.text(name)
