"""The filter's hits emphasised in the rows (issue 17): the matched characters of the free text,
styled by the `item-list--match` component class (bold and underlined, so NO_COLOR shows them);
the structured tokens emphasise nothing. Item text stays text: the spans go on a `Text`."""

from __future__ import annotations

from support.actions_support import dashboard
from support.apps import DEMO
from support.tui_helpers import keys_of_pane, press

from atk_tui.tui.app import AtkApp
from atk_tui.tui.display.present import match_spans
from atk_tui.tui.widgets.item_list import ItemList

WIDE = (160, 48)


def emphasised(app: AtkApp, pane: str, key: str) -> str:
    """The characters of `key`'s row (on screen) drawn bold and underlined (the match style)."""
    lst = app.main.query_one(f"#{pane}", ItemList)
    y = lst.header + [row.key for row in lst.rows].index(key) - int(lst.scroll_offset.y)
    assert lst.header <= y < lst.size.height, f"{key} is scrolled out of {pane}"
    return "".join(seg.text for seg in lst.render_line(y) if seg.style is not None and seg.style.underline and seg.style.bold)


def on_screen(app: AtkApp, pane: str) -> list[str]:
    lst = app.main.query_one(f"#{pane}", ItemList)
    top = int(lst.scroll_offset.y)
    return [row.key for row in lst.rows[top : top + lst.size.height - lst.header]]


def title_of(app: AtkApp, key: str) -> str:
    return app.main.view.items[key].title


async def test_the_matched_words_are_emphasised_in_every_row(demo) -> None:
    async with dashboard(demo) as (app, pilot):
        await press(pilot, "slash", *"セッション")  # "session", in the demo's titles
        rows = [k for k in keys_of_pane(app, "inbox") if "セッション" in title_of(app, k)]
        assert len(rows) >= 3  # (the others match in their filename or body)
        for key in rows:
            assert emphasised(app, "inbox", key) == "セッション", key
        assert emphasised(app, "needs", DEMO["chain-uwi"]) == "セッション"


async def test_a_fuzzy_word_emphasises_the_characters_it_matched(demo) -> None:
    async with dashboard(demo) as (app, pilot):
        await press(pilot, "slash", *"rds")
        assert DEMO["chain-uwi"] in keys_of_pane(app, "inbox")
        assert emphasised(app, "inbox", DEMO["chain-uwi"]) == "Rds"  # R-e-d-i-s, in "Redis"


async def test_structured_tokens_emphasise_nothing(demo) -> None:
    async with dashboard(demo) as (app, pilot):
        await press(pilot, "slash", *"repo:acme/docs")
        rows = keys_of_pane(app, "inbox")
        assert rows  # the repo column shows acme/docs in each: the token picked them, not text
        assert all(emphasised(app, "inbox", key) == "" for key in rows)
        await press(pilot, "space", *"docs")  # free text next to the token: that is emphasised
        assert any(emphasised(app, "inbox", key) for key in keys_of_pane(app, "inbox"))

        await press(pilot, "escape")  # no filter: no emphasis
        assert on_screen(app, "inbox")
        assert all(emphasised(app, "inbox", key) == "" for key in on_screen(app, "inbox"))


def test_match_spans_are_offsets_into_the_text_shown() -> None:
    assert match_spans("redis", "Session store: Redis or Postgres?") == [(15, 20)]
    assert match_spans("sess rds", "Session store: Redis") == [(0, 4), (15, 16), (17, 18), (19, 20)]
    assert match_spans("[b]", "Literal [b]x[/b]") == [(8, 11)]  # markup is text like any other
    assert match_spans("zz", "Redis") == []


def test_filter_highlight_snapshot(snap_compare, app_factory) -> None:
    """160×48 with a structured token and free text: the rows' hits emphasised, the token not."""
    from support.apps import settle
    from textual.widgets import Input

    async def run_before(pilot) -> None:
        await settle(pilot)
        for inp in pilot.app.query(Input):
            inp.cursor_blink = False
        await press(pilot, "slash", *"kind:awi checkout redsgn")
        for inp in pilot.app.query(Input):  # the filter's input is made by `/`: a blink is a coin toss
            inp.cursor_blink = False
        await settle(pilot)  # the filter applies after its debounce: the rows it leaves, drawn

    assert snap_compare(app_factory(), terminal_size=WIDE, run_before=run_before)
