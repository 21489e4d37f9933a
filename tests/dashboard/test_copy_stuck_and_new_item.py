"""From the board (issue 15 item 8): `y` copies the filename; `/` takes structured tokens."""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path

from support.apps import running, wait_for_screen
from support.tui_helpers import DEMO, keys_of_pane, press, screen_text, settle

SIZE = (120, 36)


async def test_y_copies_the_selected_filename(demo_store: Path) -> None:
    async with running(demo_store, SIZE) as (app, pilot):
        await press(pilot, "2")
        await press(pilot, "y")
        assert app.main.selected in keys_of_pane(app, "processing")
        assert app.clipboard == app.main.selected


async def test_structured_filter_tokens_with_fuzzy_text(demo_store: Path) -> None:
    async with running(demo_store, SIZE) as (app, pilot):
        await press(pilot, "slash")
        await pilot.press(*"kind:uwi urgency:blocking")
        await settle(pilot)
        view = app.main.view
        shown = keys_of_pane(app, "inbox")
        assert shown and all(view.items[k].kind == "uwi" and view.items[k].urgency == "blocking" for k in shown)
        await pilot.press(*" session")
        await settle(pilot)
        assert keys_of_pane(app, "inbox") == [DEMO["chain-uwi"]]  # fuzzy text on top of the tokens
        for _ in " session urgency:blocking":
            await pilot.press("backspace")
        await pilot.press(*" is:ready")
        await settle(pilot)
        shown = keys_of_pane(app, "inbox")
        assert shown and all(view.judgements[k].ready and view.items[k].kind == "uwi" for k in shown)
        assert len(shown) < len([k for k in view.items.values() if k.kind == "uwi" and k.state == "inbox"])
        for _ in "is:ready":
            await pilot.press("backspace")
        await pilot.press(*"is:stuck")
        await settle(pilot)
        assert "is:stuck is not one of blocked, ready" in screen_text(app)


async def test_S_lists_stuck_work_and_enter_jumps_to_it(demo_store: Path, monkeypatch) -> None:
    from datetime import timedelta

    from atk_tui.service.history import stuck
    from atk_tui.service.history.stuck import stuck_items

    monkeypatch.setattr(stuck, "STUCK_AFTER", timedelta(days=1))  # the demo's oldest moves are a day old
    STUCK_AFTER = stuck.STUCK_AFTER

    async with running(demo_store, SIZE) as (app, pilot):
        view = app.main.view
        found = stuck_items(app.service, view)
        assert found, "the demo has work in processing for days"
        for s in found:
            assert s.since is None or view.now - s.since >= STUCK_AFTER
            assert s.state == "processing" or (s.state == "inbox" and view.judgements[s.filename].status == "answered")
        fresh = [k for k in keys_of_pane(app, "processing") if k not in {s.filename for s in found}]
        await press(pilot, "S")
        assert type(app.screen).__name__ == "StuckScreen"
        text = screen_text(app)
        assert found[0].title[:20] in text
        for name in fresh:
            assert name not in text
        await press(pilot, "enter")
        assert type(app.screen).__name__ != "StuckScreen"
        assert app.main.selected == found[0].filename


async def opened(pilot, name: str) -> None:
    """Press `+` and wait for the form (a write worker waits on it: `settle` would wait forever)."""
    await pilot.press("plus")
    await wait_for_screen(pilot, name)


async def test_plus_creates_a_uwi_from_the_board_in_one_commit(demo_store: Path) -> None:
    from support.tui_helpers import git
    from textual.widgets import Input, Select, TextArea

    async with running(demo_store, SIZE) as (app, pilot):
        before = git(demo_store, "rev-parse", "HEAD").strip()
        await opened(pilot, "NewItemScreen")
        form = app.screen
        form.query_one("#kind", Select).value = "uwi"
        await pilot.pause()
        await pilot.pause()
        assert "## 質問" in form.query_one("#body", TextArea).text  # the UWI template
        form.query_one("#repo", Input).value = ""
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form  # no repo: refused, the form stays
        form.query_one("#repo", Input).value = "acme/new"
        form.query_one("#body", TextArea).text = "# Ship on Friday?\n\n## 質問\nShip?\n\n- A) yes\n- B) no\n"
        await press(pilot, "ctrl+s")
        await settle(pilot)
        assert type(app.screen).__name__ != "NewItemScreen"
        log = git(demo_store, "log", "--format=%s", f"{before}..HEAD").splitlines()
        assert len(log) == 1 and log[0].startswith("atk: add ")
        name = app.main.selected
        assert name and app.main.view.items[name].kind == "uwi"
        assert app.main.view.items[name].target_repo == "acme/new"
        assert app.main.view.items[name].title == "Ship on Friday?"


@asynccontextmanager
async def new_item_form(demo_store: Path):
    """The dashboard with the `+` form open: (app, pilot, form); nothing may be committed."""
    from support.tui_helpers import git

    async with running(demo_store, SIZE) as (app, pilot):
        before = git(demo_store, "rev-parse", "HEAD").strip()
        await opened(pilot, "NewItemScreen")
        yield app, pilot, app.screen
        assert git(demo_store, "rev-parse", "HEAD").strip() == before


async def test_esc_cancels_the_new_item_form(demo_store: Path) -> None:
    async with new_item_form(demo_store) as (app, pilot, _form):
        await press(pilot, "escape")
        assert type(app.screen).__name__ != "NewItemScreen"


async def test_the_untouched_template_or_no_title_is_not_saved(demo_store: Path) -> None:
    from textual.widgets import Input, TextArea

    async with new_item_form(demo_store) as (app, pilot, form):
        form.query_one("#repo", Input).value = "acme/new"
        for body in (form.query_one("#body", TextArea).text, "no heading at all\n", "#  \n\n- 反映内容: x\n"):
            form.query_one("#body", TextArea).text = body
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert app.screen is form, body  # refused: the form stays, with the text


async def test_esc_in_the_body_asks_before_dropping_typed_text(demo_store: Path) -> None:
    from textual.widgets import TextArea

    async with new_item_form(demo_store) as (app, pilot, form):
        body = form.query_one("#body", TextArea)
        body.focus()
        await pilot.pause()
        body.text = "# My own words\n"
        await pilot.press("escape")  # one Esc, from inside the text area
        await wait_for_screen(pilot, "ChoiceScreen")
        await pilot.press("n")  # keep editing
        await pilot.pause()
        assert app.screen is form and body.text == "# My own words\n"
        await pilot.press("escape")
        await wait_for_screen(pilot, "ChoiceScreen")
        await pilot.press("y")  # discard
        await settle(pilot)
        assert type(app.screen).__name__ not in ("NewItemScreen", "ChoiceScreen")


async def test_the_template_is_a_labelled_form_that_passes_its_own_lint(demo_store: Path) -> None:
    """Issue 43: the `+` template failed the dashboard's own lint at once (missing 適用範囲), its
    text had to be deleted, and the repo field had no label. The template is now the item's
    shape with nothing to delete: a title and the bullets filled in, it is written lint-clean."""
    from support.tui_helpers import git
    from textual.widgets import Input, TextArea

    from atk_tui.itemfile.items import lint_body, parse_item
    from atk_tui.tui.screens.new_item import AWI_TEMPLATE

    async with running(demo_store, SIZE) as (app, pilot):
        before = git(demo_store, "rev-parse", "HEAD").strip()
        await opened(pilot, "NewItemScreen")
        form = app.screen
        assert str(form.query_one("#repo", Input).border_title) == "target repo"
        body = form.query_one("#body", TextArea)
        assert body.text == AWI_TEMPLATE and "- 適用範囲: " in body.text
        form.query_one("#repo", Input).value = "acme/new"
        filled = "".join(line + ("A title of mine" if line == "# " else "x" if line.endswith(": ") else "") + "\n" for line in body.text.splitlines())
        body.text = filled
        await press(pilot, "ctrl+s")
        await settle(pilot)
        assert type(app.screen).__name__ != "NewItemScreen"
        assert len(git(demo_store, "log", "--format=%s", f"{before}..HEAD").splitlines()) == 1
        name = app.main.selected
        item = parse_item(name, "inbox", (demo_store / "wi" / "inbox" / name).read_bytes())
        assert item.title == "A title of mine"
        assert lint_body(item) == []
