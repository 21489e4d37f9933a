"""The dependency editor (`d`): the current set, search over every item, live refusals (missing,
self, cycle with its path) that keep Save from writing anything, and the write itself."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from support.apps import make_recorded
from support.graph_support import (
    MISSING,
    SIZE,
    build_app,
    chain_store,
    diamond_store,
    git,
    item_text,
    missing_store,
    new_store,
    press,
    service,
    settle,
    write_items,
)
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, Static

from atk_tui.domain.readiness import format_cycle
from atk_tui.tui.app import AtkApp
from atk_tui.tui.modals.dependencies import DependenciesScreen, candidates, search
from atk_tui.tui.screens.main import MainScreen


def editor(app: AtkApp) -> DependenciesScreen:
    screen = app.screen
    assert isinstance(screen, DependenciesScreen), screen
    return screen


def verdict(app: AtkApp) -> str:
    return editor(app).query_one("#deps-verdict", Static).content.plain


def option_texts(app: AtkApp, wid: str) -> list[str]:
    lst = editor(app).query_one(f"#{wid}", OptionList)
    return [lst.get_option_at_index(i).prompt.plain for i in range(lst.option_count)]


async def open_editor(pilot: Pilot, filename: str) -> None:
    app = pilot.app
    await settle(pilot)
    assert app.main.jump_to(filename)
    await settle(pilot)
    await press(pilot, "d")
    for inp in editor(app).query(Input):
        inp.cursor_blink = False


@asynccontextmanager
async def editing(root: Path, filename: str) -> AsyncIterator[tuple[AtkApp, Pilot]]:
    """The app on `root` with the dependency editor of `filename` open."""
    app = build_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_editor(pilot, filename)
        yield app, pilot


async def type_text(pilot: Pilot, text: str) -> None:
    await pilot.press(*text)
    await settle(pilot)


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def run_editor(filename: str, query: str) -> Callable[[Pilot], object]:
    async def run_before(pilot: Pilot) -> None:
        await open_editor(pilot, filename)
        await type_text(pilot, query)
        await press(pilot, "enter")

    return run_before


def test_snapshot_refused_cycle(snap_compare, tmp_path: Path) -> None:
    """Adding an item that depends on this one: the cycle's path, and Save refused."""
    root, (_done, a, _b, _c, _d) = chain_store(tmp_path)
    assert snap_compare(build_app(root), terminal_size=SIZE, run_before=run_editor(a, "dashboard"))


async def test_add_and_save_writes_one_commit(tmp_path: Path) -> None:
    root, (a, b, c, _d) = diamond_store(tmp_path)
    async with editing(root, c) as (app, pilot):
        assert option_texts(app, "deps-current")[0].startswith("✓ ready")
        await type_text(pilot, "api endp")
        assert option_texts(app, "deps-results")[0].startswith("✗ blocked")
        assert b in option_texts(app, "deps-results")[0]
        await press(pilot, "enter")
        assert editor(app).deps == [a, b]
        assert verdict(app) == "✓ ready to save: 2 dependencies"
        before = head(root)
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, MainScreen)
        assert git(root, "log", "-1", "--format=%s").strip() == f"atk: set-dependencies {c}"
        assert head(root) != before
        assert app.main.view.items[c].depends_on == [a, b]


async def test_remove_with_x_and_delete(tmp_path: Path) -> None:
    root, (_a, b, c, d) = diamond_store(tmp_path)
    async with editing(root, d) as (app, pilot):
        assert editor(app).deps == [b, c]
        await type_text(pilot, "x")  # in the search box, x is a letter
        assert editor(app).deps == [b, c]
        editor(app).query_one("#deps-current", OptionList).focus()
        await press(pilot, "x")
        assert editor(app).deps == [c]
        await press(pilot, "delete")
        assert editor(app).deps == []
        assert "none" in option_texts(app, "deps-current")[0]
        await press(pilot, "ctrl+s")
        assert app.main.view.items[d].depends_on == []
        assert "depends_on" not in (root / "wi" / "inbox" / d).read_text()


async def test_cycle_is_refused_live_and_nothing_is_written(tmp_path: Path) -> None:
    root, (_done, a, b, c, _d) = chain_store(tmp_path)
    async with editing(root, a) as (app, pilot):
        await type_text(pilot, "redirect")
        assert "would make a cycle" in option_texts(app, "deps-results")[0]
        await press(pilot, "enter")
        path = format_cycle((a, c, b))
        assert verdict(app).endswith(f"that would make a dependency cycle: {path}")
        assert editor(app).query_one("#deps-save", Button).disabled
        before = head(root)
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, DependenciesScreen)  # still open: nothing written
        assert head(root) == before
        # the service agrees on the cycle: the CLI's `set-dependencies --add` is refused, nothing written
        refused = service(root).writes.set_dependencies(a, add=[c])
        assert not refused.ok and refused.code == "cycle" and path in refused.message
        assert head(root) == before
        editor(app).query_one("#deps-current", OptionList).focus()
        await press(pilot, "x")
        assert verdict(app) == "no change yet"
        await press(pilot, "escape")
        assert isinstance(app.screen, MainScreen) and head(root) == before


async def test_self_and_missing_are_refused(tmp_path: Path) -> None:
    root, (login, _signup, _missing) = missing_store(tmp_path)
    async with editing(root, login) as (app, pilot):
        assert editor(app).deps == [MISSING]
        assert "✗ missing" in option_texts(app, "deps-current")[0]
        assert f"no item named {MISSING}" in verdict(app)
        await type_text(pilot, "login endpoint")
        assert "this item" in option_texts(app, "deps-results")[0]
        await press(pilot, "enter")
        assert f"{login} cannot depend on itself" in verdict(app)
        before = head(root)
        await press(pilot, "ctrl+s")
        assert head(root) == before and isinstance(app.screen, DependenciesScreen)
        # remove both: the set is empty and may be saved
        current = editor(app).query_one("#deps-current", OptionList)
        current.focus()
        await press(pilot, "delete", "delete")
        assert editor(app).deps == [] and "ready to save" in verdict(app)
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, MainScreen)
        assert app.main.view.items[login].depends_on == []


async def test_typed_unknown_name_is_flagged_missing(tmp_path: Path) -> None:
    root, (a, _b, _c, _d) = diamond_store(tmp_path)
    async with editing(root, a) as (app, pilot):
        await type_text(pilot, "20991231-000000-nothing.md")
        assert "Enter adds the name as typed" in option_texts(app, "deps-results")[0]
        await press(pilot, "enter")
        assert "no item named 20991231-000000-nothing.md" in verdict(app)


async def test_done_items_can_be_dependencies(tmp_path: Path) -> None:
    root, (done, _a, _b, c, d) = chain_store(tmp_path)
    async with editing(root, d) as (app, pilot):
        await type_text(pilot, "groundwork")
        first = option_texts(app, "deps-results")[0]
        assert first.startswith("■ adopted") and done in first
        await press(pilot, "enter", "ctrl+s")
        assert app.main.view.items[d].depends_on == [c, done]


async def test_results_are_never_markup(tmp_path: Path) -> None:
    root = new_store(tmp_path)
    hostile = "[bold red]x[/] [$accent]y"
    target, other = "20261129-050000-hostile.md", "20261129-050100-other.md"
    write_items(root, {("inbox", target): item_text(hostile), ("inbox", other): item_text("Other")})
    async with editing(root, other) as (app, pilot):
        await type_text(pilot, "bold")
        assert "[bold red]x[/] [$accent]y" in option_texts(app, "deps-results")[0]


async def test_read_only_refuses(tmp_path: Path) -> None:
    root, (a, _b, _c, _d) = diamond_store(tmp_path)
    app = make_recorded(root, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.jump_to(a)
        await press(pilot, "d")
        assert isinstance(app.screen, MainScreen)
        app.main.action_dependencies()  # as the command palette would: refused all the same
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert any("read-only" in m for m, _ in app.notes)


def test_rules_agree_with_the_service(tmp_path: Path) -> None:
    """The dashboard's rules (the view's) and the service's write (`set-dependencies --add`, as
    the CLI calls it) find the same cycles; a dependency added where there is none is taken
    back before the next pair."""
    root, names = chain_store(tmp_path)
    svc = service(root)
    for item in names[1:]:
        for dep in names:
            if dep == item:
                continue
            mine = svc.queue().dependency_rules(item).cycle_through(dep)
            before = list(svc.show(item).depends_on)
            out = svc.writes.set_dependencies(item, add=[dep])
            assert (mine is None) == (out.code != "cycle"), (item, dep, out.message)
            if mine is not None:
                assert not out.ok and {n for n in names if n in out.message} == set(mine), out.message
            elif out.ok and list(svc.show(item).depends_on) != before:
                assert svc.writes.set_dependencies(item, before).ok


def test_search_ranks_substrings_first(tmp_path: Path) -> None:
    root, _names = chain_store(tmp_path)
    pool = candidates(service(root).queue())
    assert [c.name for c in search(pool, "")] == []
    found = search(pool, "session")
    assert found[0].title.startswith("Session store")  # title starts with it
    assert {c.title for c in found} >= {
        "Pick the session store",
        "Redirect on session expiry",
        "Persist login sessions",
    }
    assert search(pool, "sess dash")[0].title == "Session store dashboard"  # words, fuzzy


async def test_big_store_search_is_debounced(tmp_path: Path, monkeypatch) -> None:
    """Past `SEARCH_AT_ONCE` names the results wait for typing to pause; Enter still adds the
    match for what was typed."""
    from atk_tui.tui.modals import dependencies

    monkeypatch.setattr(dependencies, "SEARCH_AT_ONCE", 1)
    root, (a, b, c, d) = diamond_store(tmp_path)
    async with editing(root, d) as (app, pilot):
        await pilot.press(*"shared", "enter")
        await settle(pilot)
        assert editor(app).deps == [b, c, a]
