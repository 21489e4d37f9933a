"""Japanese text in the detail pane and the answer form breaks by kinsoku and never inside a
token (issue 29): what the terminal shows, at 80 columns."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from support.apps import build_app, settle, wait_for_screen
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static

from atk_tui.service import Service
from atk_tui.text.linebreak import NO_END, NO_START
from atk_tui.tui.widgets.detail import DetailPane

SENTENCE = "セッションストアに Redis か PostgreSQL のどちらを使うか、決めてください。「推奨」は src/session/store.py を参照。"
TOKENS = ("Redis", "PostgreSQL", "src/session/store.py")
BODY = f"""# 保存先を決める

## 背景
{SENTENCE * 3}

## 質問
{SENTENCE}

- A) Redis を使う。{SENTENCE}
- B) PostgreSQL を使う、「既存」の src/session/store.py に合わせる。

推奨: A)
"""


def drawn(widget: Widget) -> str:
    """The widget's lines as drawn (`Widget.render_lines`), scrolled into view or not."""
    w, h = widget.outer_size
    return "\n".join(strip.text for strip in widget.render_lines(Region(0, 0, w, h)))


def check_lines(text: str) -> list[str]:
    """The lines shown; fails on a kinsoku break or a token split across lines."""
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    for before, line in pairwise(lines):
        assert line[0] not in NO_START, f"a line starts with {line[0]!r}:\n{before}\n{line}"
        assert before[-1] not in NO_END, f"a line ends with {before[-1]!r}:\n{before}\n{line}"
    shown = "\n".join(lines)
    for token in TOKENS:
        assert shown.count(token) >= 1, f"{token!r} split across lines:\n{shown}"
    return lines


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_detail_and_answer_form_break_japanese_as_it_is_read(demo_store: Path, size: tuple[int, int]) -> None:
    out = Service(demo_store, actor="agent").writes.add(kind="uwi", target_repo="acme/api", body=BODY, source="t", urgency="blocking")
    assert out.ok, out.message
    name = out.files[0]
    app = build_app(demo_store)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert app.main.jump_to(name)
        await settle(pilot)
        pane = app.main.query_one(DetailPane)
        body = pane.query_one("#detail-preview", Static)
        shown = check_lines(drawn(body))
        assert sum(line.count("Redis") for line in shown) >= 3  # the body is there, not a stub
        questions = pane.query_one("#detail-questions", Static)
        check_lines(drawn(questions))
        await pilot.press("a")
        await wait_for_screen(pilot, "AnswerScreen")
        await settle(pilot)
        for static in app.screen.query(".q-text"):
            check_lines(drawn(static))
