"""The dashboard driven with Pilot on a copy of the demo store: panes, keys, sort, filter, jumps,
live refresh and the agent's read-only mode. No timing assertions: waits are bounded polls."""

from __future__ import annotations

from pathlib import Path

from support.apps import rendered_lines, running
from support.tui_helpers import DEMO, NOW, git, press, screen_text, settle
from textual import events
from textual.widgets import Input, Static

from atk_tui.domain.model import Item
from atk_tui.service import Service
from atk_tui.tui.app import AtkApp
from atk_tui.tui.config import SORTS
from atk_tui.tui.widgets.detail import DepTree, DetailPane
from atk_tui.tui.widgets.item_list import ItemList

SIZE = (120, 36)


def pane(app: AtkApp, name: str) -> ItemList:
    return app.main.query_one(f"#{name}", ItemList)


def keys_of(app: AtkApp, name: str) -> list[str]:
    return [row.key for row in pane(app, name).rows]


def focused_id(app: AtkApp) -> str | None:
    return app.focused.id if app.focused is not None else None


def detail_item(app: AtkApp) -> str | None:
    item = app.main.query_one(DetailPane).item
    return item.filename if item is not None else None


async def test_starts_on_inbox_with_every_pane_filled(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, _pilot):
        view = app.main.view
        assert view is not None
        assert focused_id(app) == "inbox"
        for state in ("inbox", "processing", "hold"):
            assert sorted(keys_of(app, state)) == sorted(i.filename for i in (i for i in view.items.values() if i.state == state))
        assert keys_of(app, "needs")[0] == DEMO["chain-uwi"]  # blocking, and blocks three items
        assert app.main.selected == keys_of(app, "inbox")[0] == detail_item(app)
        text = screen_text(app)
        assert "Inbox 24" in text and "Processing 3" in text and "Hold 2" in text and "Needs you 6" in text


async def test_tab_and_number_keys_move_between_panes(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, pilot):
        order = []
        for _ in range(5):
            await press(pilot, "tab")
            order.append(focused_id(app))
        # as they stand on the screen: the lists top to bottom, then the detail (its tree) on the right
        assert order == ["processing", "hold", "deps-tree", "needs", "inbox"]
        await press(pilot, "shift+tab")
        assert focused_id(app) == "needs"
        for key, expected in (("2", "processing"), ("3", "hold"), ("n", "needs"), ("1", "inbox")):
            await press(pilot, key)
            assert focused_id(app) == expected
            # the selection and the detail pane follow the focused pane's cursor
            assert app.main.selected == pane(app, expected).current_key == detail_item(app)


async def test_j_and_k_move_the_cursor_and_the_detail_follows(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, pilot):
        rows = keys_of(app, "inbox")
        await press(pilot, "j", "j")
        assert pane(app, "inbox").cursor == 2
        assert app.main.selected == rows[2] == detail_item(app)
        await press(pilot, "k")
        assert app.main.selected == rows[1] == detail_item(app)
        await press(pilot, "down", "up", "up", "up")  # the cursor stops at the top
        assert app.main.selected == rows[0]
        await press(pilot, "end")
        assert app.main.selected == rows[-1]


def _created(item: Item) -> float:
    return item.created.timestamp() if item.created else 0.0


async def test_s_cycles_the_sort_order(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, pilot):
        view = app.main.view
        assert view is not None
        inbox = [i for i in view.items.values() if i.state == "inbox"]
        assert app.main.sort_mode == SORTS[0] == "needs-you"
        needs_first = keys_of(app, "inbox")
        waiting = [n for n in needs_first if view.judgements[n].status == "waiting"]
        assert needs_first[: len(waiting)] == waiting  # unanswered questions lead

        selected = app.main.selected
        expected = {
            "oldest": [i.filename for i in sorted(inbox, key=lambda i: (_created(i), i.filename))],
            "newest": [i.filename for i in sorted(inbox, key=lambda i: (-_created(i), i.filename))],
            "title": [i.filename for i in sorted(inbox, key=lambda i: (i.title.casefold(), i.filename))],
        }
        for mode in ("oldest", "newest", "title"):
            await press(pilot, "s")
            assert app.main.sort_mode == mode
            assert keys_of(app, "inbox") == expected[mode]
            assert f"sort {mode}" in str(app.main.query_one("#status", Static).render())
            assert app.main.selected == selected  # re-sorting keeps the selection
        assert expected["oldest"] != expected["newest"]
        for _ in range(len(SORTS) - 3):
            await press(pilot, "s")
        assert app.main.sort_mode == "needs-you"
        assert keys_of(app, "inbox") == needs_first


async def test_filter_narrows_every_pane_and_escape_clears_it(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, pilot):
        full = {p: keys_of(app, p) for p in ("needs", "inbox", "processing", "hold")}
        await press(pilot, "slash")
        assert focused_id(app) == "filter"
        await press(pilot, *"redis")
        assert app.main.filter_text == "redis"
        assert keys_of(app, "inbox") == [DEMO["chain-uwi"]]
        assert keys_of(app, "needs") == [DEMO["chain-uwi"]]
        assert keys_of(app, "processing") == [DEMO["proc-healthz"]]  # fuzzy: "readiness"
        assert keys_of(app, "hold") == []
        text = screen_text(app)
        assert "Inbox 1/24" in text and "Processing 1/3" in text and "Hold 0/2" in text

        # a word found only in an item's body
        await press(pilot, *["backspace"] * 5, *"playwright")
        assert keys_of(app, "inbox") == [DEMO["cp-multi"]]

        await press(pilot, "escape")
        assert app.main.filter_text == ""
        assert not app.main.query_one("#filter", Input).has_class("shown")
        assert {p: keys_of(app, p) for p in full} == full
        assert focused_id(app) == "inbox"


async def test_keys_typed_right_after_slash_go_to_the_filter(app_factory, demo_store: Path) -> None:
    """A burst (a fast typist, a paste) reaches the app before the filter has focus; the keys
    must still land in the filter: `e` must not start an edit, `r` not refresh, `/` stays a `/`."""
    edits: list[Path] = []
    app = app_factory(editor=lambda path: edits.append(path) or 0)
    head = git(demo_store, "rev-parse", "HEAD")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for char in "/acme/webapp e":
            key = {"/": "slash", " ": "space"}.get(char, char)
            app.post_message(events.Key(key, char))  # all queued at once, as the driver does
        await settle(pilot)
        assert app.main.filter_text == "acme/webapp e"
        assert app.screen is app.main and edits == []
    assert git(demo_store, "rev-parse", "HEAD") == head


async def test_filter_submitted_with_enter_keeps_the_narrowed_panes(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, pilot):
        await press(pilot, "slash", *"acme/docs", "enter")
        assert focused_id(app) == "inbox"
        view = app.main.view
        assert view is not None
        shown = keys_of(app, "inbox")
        assert shown and all(view.items[n].target_repo == "acme/docs" for n in shown)
        await press(pilot, "escape")
        assert len(keys_of(app, "inbox")) == 24


async def test_enter_on_a_dependency_selects_that_item(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, pilot):
        assert app.main.jump_to(DEMO["chain-2"])
        await settle(pilot)
        assert detail_item(app) == DEMO["chain-2"]
        await press(pilot, "right")
        tree = app.main.query_one("#deps-tree", DepTree)
        assert app.focused is tree
        assert tree.cursor_node is not None and tree.cursor_node.data == DEMO["chain-1"]
        await press(pilot, "enter")
        assert app.main.selected == DEMO["chain-1"] == detail_item(app)
        assert focused_id(app) == "inbox"
        assert pane(app, "inbox").current_key == DEMO["chain-1"]

        # one level deeper in chain-2's tree: chain-1 depends on the question
        assert app.main.jump_to(DEMO["chain-2"])
        await settle(pilot)
        await press(pilot, "right", "down")
        assert tree.cursor_node is not None and tree.cursor_node.data == DEMO["chain-uwi"]
        await press(pilot, "enter")
        assert app.main.selected == DEMO["chain-uwi"] == detail_item(app)
        assert focused_id(app) == "inbox"

        # "Blocks" lists the items waiting on the question: Down past the (empty) "depends on"
        # tree goes there, and Enter jumps too
        await press(pilot, "right", "down")
        blocks = app.main.query_one("#blocks-tree", DepTree)
        assert app.focused is blocks
        assert blocks.cursor_node is not None and blocks.cursor_node.data == DEMO["chain-1"]
        await press(pilot, "up")
        assert app.focused is app.main.query_one("#deps-tree", DepTree)
        await press(pilot, "down", "enter")
        assert app.main.selected == DEMO["chain-1"]


async def test_left_goes_back_from_the_detail_to_the_panes(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, pilot):
        await press(pilot, "2", "right")
        assert isinstance(app.focused, DepTree)
        await press(pilot, "left")
        assert focused_id(app) == "processing"


async def test_a_commit_by_someone_else_shows_up_and_the_selection_stays(app_factory, demo_store: Path) -> None:
    async with running(app_factory(watch=True), SIZE) as (app, pilot):
        rows = keys_of(app, "inbox")
        target = DEMO["comment"]  # a ready AWI in the middle of the inbox
        assert app.main.jump_to(target)
        await settle(pilot)
        before = rows.index(target)
        # an agent holds an item listed above the selection, in another process's service
        other = next(
            n for n in rows[:before] if app.main.view.items[n].kind == "awi" and not app.main.view.items[n].defects
        )
        out = Service(demo_store, actor="agent").writes.transition_command("hold", [other])
        assert out.ok, out.message

        for _ in range(200):  # bounded: the watcher polls the store every 0.5 s
            await pilot.pause(0.05)
            if other in keys_of(app, "hold"):
                break
        else:
            raise AssertionError("the hold made outside the app never appeared")
        await settle(pilot)
        assert other not in keys_of(app, "inbox")
        assert keys_of(app, "inbox").index(target) == before - 1
        assert app.main.selected == target == pane(app, "inbox").current_key == detail_item(app)
        assert focused_id(app) == "inbox"
        assert "Hold 3" in screen_text(app)


async def test_a_new_item_added_elsewhere_appears(app_factory, demo_store: Path) -> None:
    async with running(app_factory(watch=True), SIZE) as (app, pilot):
        selected = app.main.selected
        svc = Service(demo_store, actor="agent", clock=lambda: NOW)
        out = svc.writes.add(
            kind="uwi",
            target_repo="acme/api",
            source="process-wi",
            urgency="blocking",
            body="# Brand new question?\n\nShould we?\n",
        )
        assert out.ok, out.message
        name = out.files[0]
        for _ in range(200):
            await pilot.pause(0.05)
            if name in keys_of(app, "needs"):
                break
        else:
            raise AssertionError("the new question never appeared")
        assert name in keys_of(app, "inbox")
        assert app.main.selected == selected


async def test_agent_environment_opens_read_only(app_factory, demo_store: Path) -> None:
    edits: list[Path] = []

    def editor(path: Path) -> int:
        edits.append(path)
        return 0

    app = app_factory(actor="agent", editor=editor)
    head = git(demo_store, "rev-parse", "HEAD")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.read_only
        banner = app.main.query_one("#banner", Static)
        assert banner.display and banner.has_class("shown")
        assert "READ-ONLY" in screen_text(app) and "agent environment" in screen_text(app)
        # every write key is refused: nothing is committed, no editor opens, no form is pushed
        await press(pilot, "p", "e", "a", "c", "m", "x", "u", "z", "A")
        await press(pilot, "n", "a", "A")
        assert app.screen is app.main
        assert edits == []
    assert git(demo_store, "rev-parse", "HEAD") == head
    assert git(demo_store, "status", "--porcelain") == ""


async def test_user_app_has_no_banner(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, _pilot):
        assert not app.read_only
        assert not app.main.query("#banner")  # made only for a read-only dashboard
        assert "READ-ONLY" not in screen_text(app)


async def test_history_and_help_open_and_close(app_factory) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 80)) as pilot:  # tall enough for the whole help
        await settle(pilot)
        await press(pilot, "H")
        assert type(app.screen).__name__ == "HistoryScreen"
        history = app.screen.query_one("#terminal", ItemList)
        on_disk = [p for s in ("adopted", "rejected") for p in (app.service.root / "wi" / s).glob("*.md")]
        assert len(history.rows) == len(on_disk) >= 8  # every adopted and rejected item of the demo
        await press(pilot, "escape")
        assert app.screen is app.main
        await press(pilot, "question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        text = screen_text(app)
        for words in ("filter", "History", "Quit", "Sort", "Refresh", "↑ k", "Shift+Tab"):
            assert words in text
        await press(pilot, "escape")
        assert app.screen is app.main


async def test_quit_key_exits(app_factory) -> None:
    async with running(app_factory(), SIZE) as (app, pilot):
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (0, None)


# -- untrusted text ------------------------------------------------------------------------

CONTROL = set(map(chr, [*range(0x00, 0x20), *range(0x7F, 0xA0)])) - {"\n"}


def assert_no_control_characters(app: AtkApp) -> None:
    """No control character in any text sent to the terminal, and no hyperlink (OSC 8) either:
    a link from an item would be a clickable escape sequence the user did not ask for."""
    for _, _, strip in rendered_lines(app):
        for seg in strip:
            bad = CONTROL & set(seg.text)
            assert not bad, f"control characters {sorted(map(ord, bad))} in {seg.text!r}"
            assert seg.style is None or not seg.style.link, f"a hyperlink in {seg.text!r}"


async def test_item_text_is_never_markup_and_never_a_control_sequence(app_factory, demo_store: Path) -> None:
    from test_snapshots import add_hostile_item  # the item of the snapshot test

    name = add_hostile_item(demo_store)
    app = app_factory()
    async with app.run_test(size=(120, 70)) as pilot:  # tall: the whole body is on screen
        await settle(pilot)
        assert app.main.jump_to(name)
        await settle(pilot)
        # the Markdown body follows the plain preview after a debounce; on a loaded machine it
        # can land after the app first looks idle, so wait for it (bounded), then check it all
        for _ in range(200):
            if "https://example.invalid/x" in screen_text(app):
                break
            await pilot.pause(0.05)
        text = screen_text(app)
        # markup shows as typed (markup would have eaten the brackets)
        assert "Literal [bold red]x[/] [$accent]y [/" in text
        assert "acme/[b]webapp[/b]" in text
        # escape sequences show escaped, in the list, the detail title and the rendered body
        assert text.count("\\x1b[31mred\\x1b]52;c;aGk=\\x07") >= 2
        assert "\\x1b[2J\\x1b[H" in text
        assert "https://example.invalid/x" in text  # a Markdown link shows its address, unlinked
        assert "[link=https://example.invalid]" in text or "[link=" in text
        assert_no_control_characters(app)
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\x07" not in svg

        # the same in the history view once the item is adopted, with a hostile note
        svc = Service(demo_store, actor="user", clock=lambda: NOW, pull=False, push=False)
        assert svc.writes.move([name], "adopted", note="note [red]n[/] \x1b]52;c;aGk=\x07").ok
        await press(pilot, "H")
        history = app.screen.query_one("#terminal", ItemList)
        assert history.select_key(name)
        await settle(pilot)
        text = screen_text(app)
        assert "note [red]n[/] \\x1b]52;c;aGk=\\x07" in text
        assert "Literal [bold red]x[/]" in text
        assert_no_control_characters(app)


async def test_command_palette_shows_item_titles_literally(app_factory, demo_store: Path) -> None:
    from test_snapshots import add_hostile_item

    name = add_hostile_item(demo_store)
    async with running(app_factory(), SIZE) as (app, pilot):
        await press(pilot, "ctrl+p", *"Literal")
        await settle(pilot)
        text = screen_text(app)
        assert "[bold red]x[/]" in text
        assert "\\x1b[31m" in text
        assert_no_control_characters(app)
        await press(pilot, "enter")  # "jump to item"
        assert app.screen is app.main
        assert app.main.selected == name == detail_item(app)


async def test_read_only_write_keys_say_why(app_factory, demo_store: Path) -> None:
    """A write key in read-only mode is not silent: a toast names the reason."""
    app = app_factory(actor="agent")
    notes: list[str] = []
    notify = app.notify

    def recording(message, *a, **kw):  # type: ignore[no-untyped-def]
        notes.append(str(message))
        return notify(message, *a, **kw)

    app.notify = recording  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("e", "a", "p", "x"):
            notes.clear()
            await press(pilot, key)
            assert any(n.startswith("read-only: agent environment detected") for n in notes), (key, notes)
        notes.clear()
        await press(pilot, "j")  # a navigation key says nothing
        assert notes == []
