"""Titles where the lists show titles (issue 43): a write's toast, the remove confirmation and
its dependents warning name items by title, never by filename."""

from __future__ import annotations

from support.actions_support import Demo, asks, dashboard, messages, press_all
from support.apps import screen_text


async def test_a_writes_toast_names_the_item_by_title(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        title = app.main.view.items[name].title
        await press_all(pilot, "p")
        assert demo.written() == [f"atk: hold {name}"]
        said = [m for m in messages(app) if "hold" in m.lower()]
        assert said and all(name not in m for m in said), said
        assert any(f"“{title[:30]}" in m for m in said), said


async def test_the_remove_confirmation_names_titles(demo: Demo) -> None:
    name = demo["chain-1"]  # chain-2 depends on it
    async with dashboard(demo, name) as (app, pilot):
        view = app.main.view
        await asks(pilot, "x")
        text = screen_text(app)
        assert f"Remove “{view.items[name].title[:20]}" in text
        assert view.items[demo["chain-2"]].title[:20] in text  # the dependent, by title
        assert name[:20] not in text and demo["chain-2"][:20] not in text
        await press_all(pilot, "n")
    assert demo.written() == []


async def test_the_move_dialogs_title_ends_a_long_title_with_an_ellipsis(demo: Demo) -> None:
    from types import SimpleNamespace

    from atk_tui.tui.display.present import quoted_title

    long = SimpleNamespace(title="A very long title " * 6, filename="x.md")
    assert quoted_title(long).endswith("…”") and len(quoted_title(long)) == 63
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "m")
        assert app.screen.title_text == f"Move {quoted_title(app.main.view.items[name])}"
        await press_all(pilot, "escape")
