"""The dashboard and hold ownership (SPEC §15, issue 24 points 3 and 4): releasing, moving,
removing or editing an item an agent holds asks first; the detail pane names the holder; an
edit session whose item left hold, moved, vanished or changed on the remote meanwhile (another
clone) says exactly what happened when the editor closes, keeps the text and offers only what
makes sense -- never "stays in hold" for an item that left. The editor is a function
(`make(editor=fn)`) that acts on a second clone of the demo's remote while it is "open"."""

from __future__ import annotations

from pathlib import Path

from support.actions_support import Demo, asks, dashboard, errors_shown, messages, press_all, select
from support.apps import screen_text
from support.storekit import clone, git
from test_edit_in_editor import ADDED, Editor, append, run_edit

from atk_tui.service import Service
from atk_tui.tui.modals.dialogs import ChoiceScreen


def other_clone(demo: Demo, tmp_path: Path) -> Service:
    """The person on another machine: a clone of the demo's remote."""
    remote = git(demo.root, "remote", "get-url", "origin").strip()
    return Service(clone(Path(remote), tmp_path / "laptop"), actor="user")


def detail_text(app) -> str:
    """The detail pane's metadata as shown (its rows joined up)."""
    return " ".join(" ".join(screen_text(app).split()).split("│"))


async def test_releasing_an_agents_hold_asks_first_the_persons_does_not(demo: Demo) -> None:
    agents, mine = demo["hold-plan"], demo["hold-edit"]
    async with dashboard(demo, agents) as (app, pilot):
        assert await asks(pilot, "u") == "Held by an agent"
        shown = app.screen.message.plain
        title = app.main.view.items[agents].title  # named by title, as the lists show it
        assert f"“{title}” is held by an unnamed agent since " in shown and "Release it to inbox anyway?" in shown
        await press_all(pilot, "n")
        assert demo.state(agents) == "hold" and demo.written() == []
        await asks(pilot, "u")
        await press_all(pilot, "y")
        assert demo.state(agents) == "inbox"
        await select(pilot, mine)  # the person's own hold: released at once
        await press_all(pilot, "u")
        assert not isinstance(app.screen, ChoiceScreen)
    assert demo.written() == [f"atk: unhold {agents}", f"atk: unhold {mine}"]
    assert demo.trailer() == "user"


async def test_removing_an_agents_hold_says_so_in_the_one_question(demo: Demo) -> None:
    name = demo["hold-plan"]
    async with dashboard(demo, name) as (app, pilot):
        assert await asks(pilot, "x") == "Remove?"
        assert "is held by an unnamed agent since" in app.screen.message.plain
        await press_all(pilot, "y")
    assert demo.state(name) is None


async def test_the_detail_pane_names_the_holder(demo: Demo) -> None:
    async with dashboard(demo, demo["hold-plan"]) as (app, pilot):
        text = detail_text(app)
        assert "held by" in text and "an unnamed agent since" in text and "UTC" in text
        await select(pilot, demo["hold-edit"])
        assert "held by" in detail_text(app) and "the user since" in detail_text(app)
        await select(pilot, demo["hand-svg-logo"])
        assert "held by" not in detail_text(app)


async def test_editing_an_agents_hold_asks_before_the_editor_opens(demo: Demo) -> None:
    name = demo["hold-plan"]
    editor = Editor(demo, name, append)
    async with dashboard(demo, name, editor=editor) as (app, pilot):
        assert await asks(pilot, "e") == "Held by an agent"
        assert "Edit it anyway?" in app.screen.message.plain
        await press_all(pilot, "n")
        assert editor.calls == [] and demo.written() == []
        await asks(pilot, "e")
        await press_all(pilot, "y")
    assert len(editor.calls) == 1
    assert demo.written() == [f"atk: edit {name}"]  # edited in place: the hold stays the agent's
    assert demo.state(name) == "hold"


# -- the edit session tells the truth -------------------------------------------------------


async def test_item_unheld_elsewhere_while_editing_is_said_and_edit_again_holds_it_again(
    demo: Demo, tmp_path: Path
) -> None:
    name = demo["hand-svg-logo"]
    laptop = other_clone(demo, tmp_path)

    def released_elsewhere(text: str) -> tuple[str, int]:
        out = laptop.writes.unhold(name)  # the person's other machine releases it meanwhile
        assert out.ok, out.message
        return text + ADDED, 0

    def save_merged(text: str) -> tuple[str, int]:
        assert ADDED in text
        return text, 0

    editor = Editor(demo, name, released_elsewhere, save_merged)
    async with dashboard(demo, name, editor=editor) as (app, pilot):
        editor.app = app
        assert await asks(pilot, "e") == "Not saved"
        screen = app.screen
        shown = screen.message.plain
        assert f"{name} left hold while you edited it: it is in inbox now." in shown
        assert f"atk: unhold {name} — the user" in shown
        assert "stays in hold" not in shown and screen.escape_hint == "Esc: decide later (it stays in inbox)"
        assert "Your text is kept in" in shown
        assert demo.state(name) == "inbox" and ADDED not in demo.text(name)
        assert demo.scratch(name).read_text(encoding="utf-8").endswith(ADDED)
        # Edit again: held again, the editor opens on the stored version with the text merged
        await press_all(pilot, "e")
    assert editor.calls[1]["state"] == "hold" and ADDED in editor.calls[1]["text"]
    assert demo.state(name) == "inbox" and demo.text(name).endswith(ADDED)
    assert demo.written()[-3:] == [f"atk: hold {name}", f"atk: edit {name}", f"atk: unhold {name}"]
    assert not [m for m in messages(app) if "stays in hold" in m or "could not unhold" in m]


async def test_item_removed_elsewhere_while_editing_keeps_the_text_and_offers_no_edit(
    demo: Demo, tmp_path: Path
) -> None:
    name = demo["hand-svg-logo"]
    laptop = other_clone(demo, tmp_path)

    def removed_elsewhere(text: str) -> tuple[str, int]:
        assert laptop.writes.rm(name).ok
        return text + ADDED, 0

    _app, _, _, screen, _ = await run_edit(demo, name, removed_elsewhere, keys=("e",))
    assert isinstance(screen, ChoiceScreen)
    shown = screen.message.plain
    assert f"{name} was removed while you edited it." in shown and f"atk: rm {name}" in shown
    assert "stays in" not in shown and [c[0] for c in screen.choices] == ["discard"]
    assert demo.state(name) is None
    assert demo.scratch(name).read_text(encoding="utf-8").endswith(ADDED)


async def test_unchanged_editor_on_an_item_that_left_hold_says_so_and_releases_nothing(
    demo: Demo, tmp_path: Path
) -> None:
    name = demo["hand-svg-logo"]
    laptop = other_clone(demo, tmp_path)

    def moved_elsewhere(text: str) -> tuple[str, int]:
        assert laptop.writes.transition_command("start-processing", [name]).ok  # picked up elsewhere by the person's own move
        return text, 0

    app, _, base, _, _ = await run_edit(demo, name, moved_elsewhere, keys=("e",))
    assert demo.state(name) == "processing"
    said = messages(app)
    assert any(
        f"{name} left hold while you edited it: it is in processing now." in m and "Nothing to release" in m
        for m in said
    )
    assert not [m for m in said if "could not unhold" in m] and not errors_shown(app)
    assert demo.subjects_since(base)[-1] == f"atk: start-processing {name}"


async def test_changed_elsewhere_in_hold_says_by_whom(demo: Demo, tmp_path: Path) -> None:
    name = demo["hand-svg-logo"]
    laptop = other_clone(demo, tmp_path)

    def changed_elsewhere(text: str) -> tuple[str, int]:
        item = laptop.read(name)
        assert laptop.writes.save_text(name, item.text + "- 追記: from the laptop\n").ok
        return text + ADDED, 0

    _, _, _, screen, _ = await run_edit(demo, name, changed_elsewhere, keys=("e",))
    assert isinstance(screen, ChoiceScreen)
    shown = screen.message.plain
    assert f"{name} was changed by someone else while you edited it; it is still in hold." in shown
    assert f"atk: edit {name} — the user" in shown
    assert "The item stays in hold until you decide." in shown  # true: it is in hold


async def test_item_picked_up_elsewhere_while_editing_offers_to_edit_it_where_it_is(demo: Demo, tmp_path: Path) -> None:
    name = demo["hand-svg-logo"]
    laptop = other_clone(demo, tmp_path)

    def moved_elsewhere(text: str) -> tuple[str, int]:
        assert laptop.writes.transition_command("start-processing", [name]).ok
        return text + ADDED, 0

    _, _, _, screen, _ = await run_edit(demo, name, moved_elsewhere, keys=("e",))
    assert isinstance(screen, ChoiceScreen)
    shown = " ".join(screen.message.plain.split())
    assert f"{name} left hold while you edited it: it is in processing now." in shown
    assert (
        "Edit again opens the version stored now (it stays in processing), merged with your text; "
        "the save is then based on it."
    ) in shown
    assert screen.escape_hint == "Esc: decide later (it stays in processing)"
    assert demo.state(name) == "processing" and ADDED not in demo.text(name)
