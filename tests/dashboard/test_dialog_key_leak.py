"""Keys typed around a closing dialog never reach the screen below (issue 43).

A person types a burst ("redis") while a dialog closes: the keys carry the time they were typed
(`events.Key.time`), 0.1 s apart (ten keys a second, a fast typist), and arrive together, as
the terminal delivers them to an app that is still closing the dialog. None may write, open the
editor, or open another dialog; the dialog that asks (Discard what you typed?) is not answered
by them. A key typed after the burst, once the person has seen the screen, acts as usual.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.actions_support import SIZE, Demo, make, press_all, select, settle, started
from support.apps import build_app, recording, wait_for_screen
from textual import events
from textual.pilot import Pilot

from atk_tui.tui.keys.key_guard import DIALOG_KEY_GRACE
from atk_tui.tui.modals.dialogs import ChoiceScreen
from atk_tui.tui.textual_compat import event_clock

STEP = 0.1  # seconds between two keys of a burst: a fast typist


def typed(pilot: Pilot, keys: str | list[str], *, start: float, step: float = STEP) -> float:
    """Queue `keys` as typed `step` seconds apart from `start` (their `time`), all at once
    (the app reads them after it has handled what came before). Returns the last key's time."""
    app = pilot.app
    t = start
    for key in keys:
        char = key if len(key) == 1 else None
        event = events.Key(key, char)
        t += step
        event.time = t
        event.set_sender(app)
        app.post_message(event)
    return t


async def read_the_screen(pilot: Pilot, last: float) -> None:
    """Wait until the person has stopped typing (the burst's last key, `last`, may be stamped
    ahead of now) and read the screen: longer than the grace."""
    await pilot.pause(max(0.0, last - event_clock()) + DIALOG_KEY_GRACE + 0.05)


def person_app(demo: Demo, editor_calls: list[Path]):
    def editor(path: Path) -> int:
        editor_calls.append(path)
        return 0

    app = recording(build_app(demo.root, editor=editor, actor="user", dialog_key_grace=DIALOG_KEY_GRACE))
    pushed: list[str] = []
    push = app.push_screen

    def recording_push(screen, *args, **kw):
        pushed.append(type(screen).__name__)
        return push(screen, *args, **kw)

    app.push_screen = recording_push  # type: ignore[method-assign]
    app.pushed = pushed  # type: ignore[attr-defined]
    return app


#: (what opens the dialog, the item to select, its screen's class): every dialog and modal
#: screen a key opens from the dashboard
DIALOGS = [
    (["c"], "hand-svg-logo", "TextFormScreen"),
    (["m"], "hand-svg-logo", "MoveScreen"),
    (["x"], "hand-svg-logo", "ChoiceScreen"),
    (["d"], "hand-svg-logo", "DependenciesScreen"),
    (["a"], "cp-single", "AnswerScreen"),
    (["plus"], "hand-svg-logo", "NewItemScreen"),
    (["question_mark"], "hand-svg-logo", "HelpScreen"),
    (["H"], "hand-svg-logo", "HistoryScreen"),
    (["S"], "hand-svg-logo", "StuckScreen"),
    (["N"], "hand-svg-logo", "NoticesScreen"),
    (["v"], "hand-svg-logo", "GraphScreen"),
    (["L"], "hand-svg-logo", "ItemLogScreen"),
    (["E"], "hand-svg-logo", "ElsewhereScreen"),
]

#: keys that on the dashboard would edit (e), hold (p), open dialogs (d, m, c, x, ?), ...
BURSTS = ["redis", "pemcx", "a?dz"]


@pytest.mark.parametrize(("opener", "selected", "screen_name"), DIALOGS, ids=[d[2] + "-" + d[0][0] for d in DIALOGS])
async def test_a_burst_typed_as_a_dialog_closes_reaches_nothing(demo: Demo, opener, selected, screen_name) -> None:
    calls: list[Path] = []
    app = person_app(demo, calls)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await select(pilot, demo[selected])
        demo.started = demo.head()
        for burst in BURSTS:
            await press_all(pilot, *opener)
            await wait_for_screen(pilot, screen_name)
            app.pushed.clear()  # type: ignore[attr-defined]
            t = typed(pilot, ["escape"], start=event_clock())  # Esc closes it (or asks, below)
            last = typed(pilot, list(burst), start=t)
            await settle(pilot)
            assert app.screen is app.main, f"{burst!r} after Esc left {type(app.screen).__name__} open"
            assert app.pushed == [], f"{burst!r} after Esc opened {app.pushed}"  # type: ignore[attr-defined]
            await read_the_screen(pilot, last)
        assert demo.written() == []
        assert calls == []


async def test_the_discard_question_is_not_answered_by_the_burst(demo: Demo) -> None:
    """Esc on a typed comment asks "Discard what you typed?" ([n] keep, [y] discard): a burst
    typed on from the comment ("yes, redis") must not answer it, nor reach the list."""
    calls: list[Path] = []
    app = person_app(demo, calls)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await select(pilot, demo["hand-svg-logo"])
        demo.started = demo.head()
        await press_all(pilot, "c", *"draft")
        t = typed(pilot, ["escape"], start=event_clock())
        last = typed(pilot, list("yes redis"), start=t)
        await settle(pilot)
        assert isinstance(app.screen, ChoiceScreen) and app.screen.title_text == "Discard what you typed?"
        assert "Keys typed as the dialog closed were ignored" in [m for m, _ in app.notes]  # type: ignore[attr-defined]
        await read_the_screen(pilot, last)
        await press_all(pilot, "n")  # read, then answered: back to the comment, its text kept
        assert type(app.screen).__name__ == "TextFormScreen"
        assert app.screen._value() == "draft"  # type: ignore[attr-defined]
    assert demo.written() == [] and calls == []


async def test_keys_typed_after_the_burst_act(demo: Demo) -> None:
    """Only the burst is dropped: moving keys pass through it, and a key typed once the
    person has seen the dashboard (longer than the grace after the last key) acts."""
    app = make(demo.root)
    app.dialog_key_grace = DIALOG_KEY_GRACE
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await select(pilot, demo["hand-svg-logo"])
        before = app.main.selected
        await press_all(pilot, "m")
        esc = typed(pilot, ["escape"], start=event_clock(), step=0)
        await settle(pilot)  # the dialog is gone; then the keys typed just after the Esc are read
        last = typed(pilot, ["down", "x"], start=esc, step=0.05)  # x: remove, dropped
        await settle(pilot)
        assert app.main.selected != before  # `down` moved the cursor
        assert app.screen is app.main
        await read_the_screen(pilot, last)
        typed(pilot, ["question_mark"], start=event_clock(), step=0)
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"  # `?`, typed after a pause, opened the help


async def test_a_quick_key_after_a_dialog_acts_in_tests_without_the_grace(demo: Demo) -> None:
    """The test apps (`build_app`) press keys faster than anyone reads: no grace there."""
    app = make(demo.root)
    assert app.dialog_key_grace == 0
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await press_all(pilot, "m", "escape", "question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
