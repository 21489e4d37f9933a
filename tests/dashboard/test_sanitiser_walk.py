"""Hostile text never reaches the terminal raw and no markup from the store takes effect (SPEC §14).

A store whose items carry escape sequences (C0, C1, OSC 2/8/52, CSI, DCS, bidi controls) and
markup (`[/x]`, `[/]`, `[@click=…]`, `[bold]`, `[link=…]`) in titles, bodies, frontmatter keys
and values, questions, notes, commit subjects and trailers, a dependency name and a file name.
Every screen and dialog is opened and every widget's rendered lines are walked (what the screen
is composed of): no segment holds a control or bidi character, no segment carries an `@click` action
or a link from the store, and the markup shows literally.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from rich.console import Console
from rich.segment import Segment
from support.actions_support import settle
from support.apps import press, rendered_lines, wait_for_text
from support.hostile_text import ADOPTED, AWI, AWI2, ENTITIES, LINE, MARKUP, TITLE, UWI, make_hostile_store
from support.tui_helpers import build_app, screen_text

from atk_tui.text.textsafe import UNSAFE_CHARS
from atk_tui.tui.app import AtkApp

SIZE = (150, 50)


def _segment_problems(where: str, seg: Segment) -> list[str]:
    problems = []
    bad = UNSAFE_CHARS.findall(seg.text)
    if bad:
        problems.append(f"{where}: raw control characters {bad!r} in {seg.text!r}")
    style = seg.style
    if style is not None:
        click = style.meta.get("@click")
        if click is not None:
            problems.append(f"{where}: an @click action {click!r} on {seg.text!r}")
        if style.link:
            problems.append(f"{where}: a link {style.link!r} on {seg.text!r}")
    return problems


def walk(app: AtkApp) -> list[str]:
    """Render every widget of the current screen (toasts and modals included) through its public
    line API; return what is wrong."""
    problems: list[str] = []
    for widget, _, strip in rendered_lines(app):
        for seg in strip:
            problems += _segment_problems(f"{type(widget).__name__}#{widget.id}", seg)
    return sorted(set(problems))


def assert_clean(app: AtkApp, what: str, *literals: str) -> None:
    problems = walk(app)
    assert not problems, f"{what}:\n" + "\n".join(problems[:20])
    text = screen_text(app)
    for lit in literals:
        assert lit in text, f"{what}: {lit!r} is not shown literally:\n{text}"


async def _select(pilot, name: str) -> None:
    assert pilot.app.main.jump_to(name)
    await settle(pilot)


async def main_and_detail(pilot) -> None:
    app = pilot.app
    assert_clean(app, "main screen", "[WIP]", "[/x]", "store defect")
    shown = {
        AWI: ("[WIP]", "[@click=app.quit]key", "[bold]k2", "[link=https://x]v2"),
        UWI: ("[WIP]", "[@click=app.quit]v", "Q1. [WIP] [/x]"),
        AWI2: ("[WIP]", "[bold]k2", "contains NUL"),
    }
    for name, literals in shown.items():
        await _select(pilot, name)
        assert_clean(app, f"detail of {name}", *literals)


async def answer(pilot) -> None:
    await _select(pilot, UWI)
    await press(pilot, "a")
    assert type(pilot.app.screen).__name__ == "AnswerScreen"
    assert_clean(pilot.app, "answer form", "Answer: [WIP] [/x]", "B) [/] plain", "A) [@click=screen.submit]yes")


async def _open_on_awi(pilot, key: str, screen: str, what: str, *literals: str) -> None:
    """Select the hostile AWI, press `key`, check `screen` opened and is clean."""
    await _select(pilot, AWI)
    await press(pilot, key)
    assert type(pilot.app.screen).__name__ == screen
    assert_clean(pilot.app, what, *literals)


async def comment(pilot) -> None:
    await _open_on_awi(pilot, "c", "TextFormScreen", "comment form", "Comment on [WIP] [/x]")


async def move(pilot) -> None:
    await _open_on_awi(pilot, "m", "MoveScreen", "move dialog", "Move “[WIP] [/x]")


async def remove(pilot) -> None:
    await _open_on_awi(pilot, "x", "ChoiceScreen", "rm confirm")


async def dependencies(pilot) -> None:
    await _open_on_awi(pilot, "d", "DependenciesScreen", "dependencies dialog", "Dependencies of [WIP] [/x]")
    await press(pilot, *"hostile")
    assert_clean(pilot.app, "dependencies search", "[WIP] [/x]")


async def graph(pilot) -> None:
    await _open_on_awi(pilot, "v", "GraphScreen", "graph", "[WIP]")


async def history(pilot) -> None:
    await press(pilot, "H")
    assert type(pilot.app.screen).__name__ == "HistoryScreen"
    await settle(pilot)
    assert_clean(pilot.app, "history", "[WIP] [/x]", ADOPTED)
    # the item's commits: hostile subjects and `Atk-Actor` trailers, shown literally
    meta = pilot.app.screen.query_one("#detail-meta")
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(meta.content)
    shown = console.export_text()
    assert "history" in shown and "[/] edit" in shown and "add [WIP] [/x]" in shown, shown
    assert "[@click=app.qui…" in shown, shown  # the trailer, cut to its column


async def help_screen(pilot) -> None:
    await press(pilot, "question_mark")
    assert type(pilot.app.screen).__name__ == "HelpScreen"
    assert_clean(pilot.app, "help")


async def palette(pilot) -> None:
    await press(pilot, "ctrl+p")
    await settle(pilot)
    # the discover list (which providers' hits come first is not fixed) holds no store text raw
    assert_clean(pilot.app, "palette (discover)")
    await press(pilot, *"WIP")
    await settle(pilot)
    # a jump hit: the title, escaped, then the filename (a line only the palette draws)
    hit = f"\\x9c  {AWI}"
    await wait_for_text(pilot, hit)  # the palette lists its hits in the background
    assert_clean(pilot.app, "palette (jump)", hit)
    for _ in "WIP":
        await press(pilot, "backspace")
    await press(pilot, *"hostile")
    await settle(pilot)
    await wait_for_text(pilot, AWI)
    assert_clean(pilot.app, "palette (search)", AWI)


async def toasts(pilot) -> None:
    app = pilot.app
    short = "[/x] [@click=app.quit]Q \x1b]52;c;Y3VybA==\x07\x9b2J\u202e\u061c"
    app.main.jump_to(f"{short}.md")  # "no item named …"
    app.report_error(f"cannot read {short}: boom")
    app.notify(short, title=short)
    await settle(pilot)
    assert_clean(app, "toasts", "no item named [/x] [@click=app.quit]Q", "cannot read [/x] [@click=app.quit]Q")


async def notices(pilot) -> None:
    app = pilot.app
    out = app.service.notify(f"{MARKUP} {LINE}\nsecond line {MARKUP}", source=f"agent {MARKUP} {LINE}")
    assert out.ok, out.message
    await press(pilot, "r")
    await settle(pilot)
    assert_clean(app, "notice strip", "[WIP] [/x]")
    await press(pilot, "N")
    assert type(app.screen).__name__ == "NoticesScreen"
    assert_clean(app, "notices screen", "[WIP] [/x]")


async def elsewhere(pilot) -> None:
    """GitHub's text (issue 31): titles, labels, the stop report's Markdown, gh's error line."""
    from atk_tui.service.elsewhere.afkkit import Elsewhere, ReadyIssue, ReadyQueue, Waiting

    app = pilot.app
    report = f"# {TITLE}\n\n{ENTITIES} {MARKUP}\n\n- {LINE}\n\n```\n{LINE}\n```"
    rows = [Waiting(repo="acme/web", number=12, kind="issue", label="needs-planning", title=TITLE, url="https://github.com/acme/web/issues/12",
                    since=None, reason=TITLE, comment=report)]  # fmt: skip
    queue = ReadyQueue("acme/web", (ReadyIssue("acme/web", 40, TITLE, "https://github.com/acme/web/issues/40", None, MARKUP, 1, 1),), True, 0)
    app.elsewhere._show(Elsewhere(fetched=None, repos=["acme/web"], waiting=rows, ready=[queue], problem=f"gh: {LINE}", skipped=[TITLE]))
    await press(pilot, "E")
    assert type(app.screen).__name__ == "ElsewhereScreen"
    assert_clean(app, "elsewhere", "[WIP] [/x]")
    await press(pilot, "tab", "down")
    assert_clean(app, "elsewhere (ready)", "[WIP] [/x]")


SCENARIOS: dict[str, Callable[..., Awaitable[None]]] = {
    f.__name__: f
    for f in (main_and_detail, answer, comment, move, remove, dependencies, graph, history, help_screen, palette, toasts, notices, elsewhere)
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_hostile_text_is_inert_on_every_screen(tmp_path: Path, scenario: str) -> None:
    root = make_hostile_store(tmp_path)
    app = build_app(root)
    async with app.run_test(size=SIZE, notifications=True) as pilot:  # toasts drawn too
        await settle(pilot)
        await SCENARIOS[scenario](pilot)
