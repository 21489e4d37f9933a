"""Comment, transitions (`h`/`u`, the `m` menu, `x`), bulk marks, undo (`z`), and the
agent environment where every write is refused (SPEC §5, §8, §10)."""

from __future__ import annotations

import pytest
from support.actions_support import (
    SIZE,
    Demo,
    asks,
    burst,
    dashboard,
    errors_shown,
    make,
    messages,
    press_all,
    select,
    settle,
    started,
)
from support.apps import rendered_lines
from textual.widgets import OptionList

from atk_tui.itemfile.items import parse_item
from atk_tui.service import Service
from atk_tui.tui.keys.bindings import PALETTE_ACTIONS
from atk_tui.tui.modals.dialogs import ChoiceScreen, MoveScreen, TextFormScreen
from atk_tui.tui.palette import WriteProvider
from atk_tui.tui.writes.commands import WRITE_ACTIONS

# -- comment -------------------------------------------------------------------------------


async def test_comment_creates_the_trailing_section(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    before = demo.text(name)
    assert "## ユーザーコメント" not in before
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "c")
        assert isinstance(app.screen, TextFormScreen)
        await press_all(pilot, *"Use the new logo in emails too.", "enter", *"Thanks!", "ctrl+s")
        assert app.screen is app.main
    assert demo.written() == [f"atk: comment {name}"]
    after = demo.text(name)
    assert after.startswith(before.rstrip("\n"))
    assert after.endswith("\n## ユーザーコメント\n\nUse the new logo in emails too.\nThanks!\n")


async def test_comment_appends_to_the_existing_section(demo: Demo) -> None:
    name = demo["comment"]
    before = demo.text(name)
    assert before.count("## ユーザーコメント") == 1
    async with dashboard(demo, name) as (_app, pilot):
        base = demo.head()
        await press_all(pilot, "c", *"And GitLab CI.", "ctrl+s")
    assert demo.subjects_since(base) == [f"atk: comment {name}"]
    after = demo.text(name)
    assert after.count("## ユーザーコメント") == 1
    assert after.startswith(before.rstrip("\n"))
    assert after.rstrip("\n").endswith("And GitLab CI.")


async def test_comment_escape_and_empty_write_nothing(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        await pilot.press("c", "ctrl+s")  # empty: refused, the form stays
        await settle(pilot)
        assert isinstance(app.screen, TextFormScreen)
        await press_all(pilot, *"draft", "escape")  # typed text: Esc asks before dropping it
        assert type(app.screen).__name__ == "ChoiceScreen"
        await press_all(pilot, "y")  # discard
        assert app.screen is app.main
    assert demo.written() == []
    assert "nothing to submit (Esc cancels)" in messages(app)


async def test_comment_is_disabled_on_a_uwi(demo: Demo) -> None:
    app = make(demo.root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)  # the top question is selected
        assert not app.screen.check_action("comment", ())
        base = demo.head()
        await press_all(pilot, "c")
        assert app.screen is app.main
    assert demo.subjects_since(base) == []


# -- hold / unhold ---------------------------------------------------------------------------


def footer_dimmed(app, description: str) -> bool:
    """Whether the key bar (the screen's last line, whatever widget draws it) shows
    `description` dimmed, i.e. faded against an always-enabled entry (Quit). Textual renders
    `dim` as a blended colour, so the colours are compared."""
    last = app.screen.size.height - 1
    bar = [seg for _, y, strip in rendered_lines(app) if y == last for seg in strip]

    def colour(word: str):
        found = [seg.style.color for seg in bar if seg.style is not None and word in seg.text.split()]
        assert found, f"{word!r} is not in the key bar: {''.join(seg.text for seg in bar)!r}"
        return found[0]

    return colour(description) != colour("Quit")


def binding_enabled(app, action: str) -> bool | None:
    """What the key bar is told: True enabled, False shown disabled, None not shown."""
    for _node, binding, enabled, _tooltip in app.screen.active_bindings.values():
        if binding.action == action:
            return enabled if binding.show else None
    return None


async def test_hold_then_unhold(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        # an inbox item cannot be unheld: disabled, and the footer shows it dimmed
        assert not app.screen.check_action("unhold", ())
        assert app.screen.check_action("hold", ())
        await pilot.pause()
        assert binding_enabled(app, "unhold") is False and binding_enabled(app, "hold") is True
        assert footer_dimmed(app, "Unhold")
        assert not footer_dimmed(app, "Hold")
        await press_all(pilot, "u")
        assert demo.written() == []

        await press_all(pilot, "p")
        assert demo.state(name) == "hold"
        # the cursor stays in the inbox (on the next item), ready for the next triage step
        assert app.main.selected != name
        assert app.main.view.items[app.main.selected].state == "inbox"
        await select(pilot, name)
        assert not app.screen.check_action("hold", ())
        assert app.screen.check_action("unhold", ())
        await pilot.pause()
        assert binding_enabled(app, "hold") is False
        assert footer_dimmed(app, "Hold")
        assert not footer_dimmed(app, "Unhold")
        await press_all(pilot, "u")
    assert demo.written() == [f"atk: hold {name}", f"atk: unhold {name}"]
    assert demo.state(name) == "inbox"
    assert demo.trailer() == "user"


async def test_hold_a_processing_item_is_the_explicit_move(demo: Demo) -> None:
    """`p` is inbox -> hold for the person too (SPEC §5): on a processing item it is dimmed,
    its reason names the explicit move, and the move menu's `p` holds it."""
    name = demo["proc-darkmode"]
    async with dashboard(demo, name) as (app, pilot):
        base = demo.head()
        assert not app.screen.check_action("hold", ())
        assert "explicit move" in (app.screen.disabled_reason("hold") or "")
        await press_all(pilot, "p")
        assert demo.subjects_since(base) == []
        await press_all(pilot, "m", "p")
    assert demo.subjects_since(base) == [f"atk: hold {name}"]
    assert demo.state(name) == "hold"


async def test_a_failed_transition_is_reported_and_changes_nothing(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        # an agent starts it behind the dashboard's back (the watcher is off)
        assert Service(demo.root, actor="agent").writes.transition_command("start-processing", [name]).ok
        base = demo.head()
        await press_all(pilot, "p")
    assert demo.subjects_since(base) == []
    assert demo.state(name) == "processing"
    title = Service(demo.root).read(name).title  # messages name items by title, as the lists do
    assert errors_shown(app) == [f"state conflict: “{title}” is in processing, not inbox"]


# -- the move menu ----------------------------------------------------------------------------


def menu_targets(screen: MoveScreen) -> list[str]:
    opts = screen.query_one("#targets", OptionList)
    return [opts.get_option_at_index(i).id for i in range(opts.option_count)]


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("hand-svg-logo", ["processing", "hold", "adopted", "rejected"]),
        ("hold-edit", ["inbox", "processing", "adopted", "rejected"]),
        ("proc-darkmode", ["inbox", "hold", "adopted", "rejected"]),
    ],
)
async def test_move_menu_lists_the_other_states(demo: Demo, key: str, expected: list[str]) -> None:
    async with dashboard(demo, demo[key]) as (app, pilot):
        await press_all(pilot, "m")
        assert isinstance(app.screen, MoveScreen)
        assert menu_targets(app.screen) == expected
        await press_all(pilot, "escape")
        assert app.screen is app.main


async def test_move_to_processing_by_letter(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "m", "s")  # s: start (p holds, in the menu as on the dashboard)
        assert app.screen is app.main
    assert demo.written() == [f"atk: start-processing {name}"]
    assert demo.state(name) == "processing"


async def test_p_in_the_move_menu_holds_as_on_the_dashboard(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "m")
        assert "[p] hold" in "\n".join(str(o.prompt) for o in app.screen.query_one(OptionList).options)
        await press_all(pilot, "p")
    assert demo.written() == [f"atk: hold {name}"]


async def test_move_to_adopted_confirms_and_takes_a_note(demo: Demo) -> None:
    name = demo["proc-darkmode"]
    before = demo.text(name)
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "m", "a")
        assert isinstance(app.screen, MoveScreen)
        assert app.screen.query_one("#note").has_focus
        # processing -> adopted is the agents' own move: confirmed (it closes the item), but
        # with no claim that agents never make it (SPEC §11)
        assert await asks(pilot, *"merged in #42", "enter") == "Move to adopted?"
        assert "Agents never" not in str(app.screen.message)
        await press_all(pilot, "y")
        assert app.screen is app.main
    assert demo.written() == [f"atk: adopt {name}"]
    assert demo.state(name) == "adopted"
    item = parse_item(name, "adopted", demo.text(name).encode())
    assert item.note == "merged in #42"
    assert not item.defects
    # only the note key was added to the frontmatter; the body is untouched
    assert demo.text(name).split("\n---\n", 1)[1] == before.split("\n---\n", 1)[1]


async def test_a_note_typed_in_one_burst_stays_a_note(demo: Demo) -> None:
    """`a` then the note at once: the note's letters (the i of "fixed in") never pick a target."""
    name = demo["proc-darkmode"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "m")
        burst(pilot, "a", *"fixed in #42", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ChoiceScreen)
        await press_all(pilot, "y")
    assert demo.written() == [f"atk: adopt {name}"]
    assert parse_item(name, "adopted", demo.text(name).encode()).note == "fixed in #42"


async def test_move_to_adopted_declined_changes_nothing(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "m", "a", "enter", "n")
        assert app.screen is app.main
    assert demo.written() == []
    assert demo.state(name) == "inbox"


async def test_reject_without_a_note(demo: Demo) -> None:
    name = demo["proc-darkmode"]
    async with dashboard(demo, name) as (app, pilot):
        # processing -> rejected is the agent flow's own move: no confirmation
        await press_all(pilot, "m", "x", "enter")
        assert app.screen is app.main
    assert demo.written() == [f"atk: reject {name}"]
    assert demo.state(name) == "rejected"
    assert "note:" not in demo.text(name)


# -- rm -----------------------------------------------------------------------------------------


async def test_rm_asks_then_removes(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        assert await asks(pilot, "x") == "Remove?"
        await press_all(pilot, "n")
        assert demo.written() == []
        await press_all(pilot, "x", "y")
        assert name not in app.main.view.items
    assert demo.written() == [f"atk: rm {name}"]
    assert demo.state(name) is None


async def test_rm_is_disabled_for_a_processing_item(demo: Demo) -> None:
    name = demo["proc-darkmode"]
    async with dashboard(demo, name) as (app, pilot):
        assert not app.screen.check_action("remove", ())
        base = demo.head()
        await press_all(pilot, "x")
        assert app.screen is app.main
    assert demo.subjects_since(base) == []
    assert demo.state(name) == "processing"


# -- bulk ---------------------------------------------------------------------------------------


async def mark(pilot, demo: Demo, *keys: str) -> list[str]:
    names = [demo[k] for k in keys]
    for name in names:
        await select(pilot, name)
        await pilot.press("space")
    await settle(pilot)
    assert sorted(pilot.app.main.marked()) == sorted(names)
    return names


async def test_bulk_hold_is_one_commit(demo: Demo) -> None:
    async with dashboard(demo) as (app, pilot):
        names = await mark(pilot, demo, "hand-svg-logo", "agent-index", "lint")
        base = demo.head()
        await press_all(pilot, "p")
        assert app.main.marked() == []
    assert demo.subjects_since(base) == ["atk: hold 3 items"]
    assert [demo.state(n) for n in names] == ["hold"] * 3


async def test_bulk_move_and_rm(demo: Demo) -> None:
    async with dashboard(demo) as (app, pilot):
        moved = await mark(pilot, demo, "hand-svg-logo", "agent-index")
        base = demo.head()
        await press_all(pilot, "m")
        assert menu_targets(app.screen) == ["processing", "hold", "adopted", "rejected"]
        await press_all(pilot, "s")  # start processing
        assert [demo.state(n) for n in moved] == ["processing"] * 2

        removed = await mark(pilot, demo, "lint", "hold-plan")  # inbox and hold together
        await press_all(pilot, "x")
        assert isinstance(app.screen, ChoiceScreen)
        assert "Remove 2 items?" in app.screen.message.plain
        await press_all(pilot, "y")
    assert demo.subjects_since(base) == ["atk: start-processing 2 items", "atk: rm 2 items"]
    assert [demo.state(n) for n in removed] == [None, None]


async def test_bulk_rm_disabled_when_a_marked_item_is_processing(demo: Demo) -> None:
    async with dashboard(demo) as (app, pilot):
        await mark(pilot, demo, "hand-svg-logo", "proc-darkmode")
        assert not app.screen.check_action("remove", ())
        assert not app.screen.check_action("unhold", ())
        assert not app.screen.check_action("hold", ())  # hold is inbox -> hold, for the person too
        assert not app.screen.check_action("edit", ())  # one item at a time
        await pilot.press("escape")  # clears the marks
        await settle(pilot)
        assert app.main.marked() == []


# -- undo ---------------------------------------------------------------------------------------


async def test_undo_a_hold(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        assert not app.screen.check_action("undo", ())  # nothing to undo yet
        base = demo.head()
        await press_all(pilot, "p")
        assert demo.state(name) == "hold"
        await press_all(pilot, "z")
        assert not app.screen.check_action("undo", ())
    assert demo.subjects_since(base) == [f"atk: hold {name}", f"atk: undo hold {name}"]
    assert demo.state(name) == "inbox"


async def test_undo_refused_after_an_agent_touched_the_item(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "p")
        agent = Service(demo.root, actor="agent")
        rewrite = "# ヘッダーのロゴを SVG に差し替える\n\n- 反映内容: agent rewrote it\n"
        assert agent.writes.edit(name, rewrite).code == "held"  # the person's hold (SPEC §15)...
        assert Service(demo.root, actor="user").writes.edit(name, rewrite).ok  # ...changed in another session of theirs
        await press_all(pilot, "z")
        assert not app.screen.check_action("undo", ())  # that refusal is final: z moves on
    assert demo.written() == [f"atk: hold {name}", f"atk: edit {name}"]
    assert demo.state(name) == "hold"
    refused = errors_shown(app)
    assert len(refused) == 1
    assert refused[0].startswith(f"cannot undo 'atk: hold {name}': the item changed since (")
    assert refused[0].endswith(f" atk: edit {name})")


async def test_undo_an_edit_session_reverts_hold_edit_unhold_as_one(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    before = demo.text(name)

    def editor(path):
        path.write_text(path.read_text(encoding="utf-8") + "- 追記: more\n", encoding="utf-8")
        return 0

    async with dashboard(demo, name, editor=editor) as (app, pilot):
        base = demo.head()
        await press_all(pilot, "e")
        assert demo.text(name) == before + "- 追記: more\n"
        await press_all(pilot, "z")
        assert not app.screen.check_action("undo", ())  # one session, one undo
    assert demo.subjects_since(base) == [
        f"atk: hold {name}",
        f"atk: edit {name}",
        f"atk: unhold {name}",
        f"atk: undo edit {name}",
    ]
    assert demo.text(name) == before
    assert demo.state(name) == "inbox"


async def test_undo_steps_back_through_several_writes(demo: Demo) -> None:
    a, b = demo["hand-svg-logo"], demo["agent-index"]
    async with dashboard(demo, a) as (_app, pilot):
        await press_all(pilot, "p")
        await select(pilot, b)
        await press_all(pilot, "p")
        base = demo.head()
        await press_all(pilot, "z")
        await press_all(pilot, "z")
    assert demo.subjects_since(base) == [f"atk: undo hold {b}", f"atk: undo hold {a}"]
    assert demo.state(a) == demo.state(b) == "inbox"


async def test_undo_is_a_session_stack_over_writes_to_one_item(demo: Demo) -> None:
    """Issue 17: hold, then move to processing, then z twice: each step is undone, the second
    one not refused because the first undo touched the same item."""
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, "p")
        await select(pilot, name)
        await press_all(pilot, "m")
        await press_all(pilot, "s")  # start processing
        assert demo.state(name) == "processing"
        await press_all(pilot, "z")
        assert demo.state(name) == "hold"
        await press_all(pilot, "z")
        assert not app.screen.check_action("undo", ())
        assert app.screen.disabled_reason("undo") == "nothing to undo in this session"
    assert demo.written() == [
        f"atk: hold {name}",
        f"atk: start-processing {name}",
        f"atk: undo start-processing {name}",
        f"atk: undo hold {name}",
    ]
    assert demo.state(name) == "inbox"
    assert not errors_shown(app)


async def test_a_dimmed_key_says_why_when_pressed(demo: Demo) -> None:
    """A key the selection does not allow is dimmed, and pressing it tells the reason."""
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        assert app.screen.check_action("unhold", ()) is None
        base = demo.head()
        await press_all(pilot, "u")
    assert demo.subjects_since(base) == []
    assert "only held items are unheld (`atk wi hold F` holds one)" in messages(app)


# -- agent environment ------------------------------------------------------------------------


async def test_agent_environment_refuses_every_write(demo: Demo) -> None:
    async with dashboard(demo, actor="agent") as (app, pilot):
        assert app.read_only
        banner = app.main.query_one("#banner")
        assert "READ-ONLY" in str(banner.render())
        base = demo.head()
        for key in ("chain-uwi", "hand-svg-logo", "hold-edit", "proc-darkmode"):
            await select(pilot, demo[key])
            for action in sorted(WRITE_ACTIONS):
                assert app.screen.check_action(action, ()) is None, action
            await press_all(pilot, "e", "a", "A", "c", "p", "u", "m", "x", "z", "space", "p")
            assert app.screen is app.main
    assert demo.subjects_since(base) == []
    assert demo.clean()
    assert not errors_shown(app)


# -- keys arriving together never close the dashboard -------------------------------------------


@pytest.mark.parametrize(
    ("key", "open_keys", "together", "subjects"),
    [
        ("hand-svg-logo", ("x",), ("y", "n"), ["atk: rm {name}"]),  # rm: yes, then no
        ("hand-svg-logo", ("x",), ("n", "y"), []),
        ("hand-svg-logo", ("m",), ("p", "s"), ["atk: hold {name}"]),  # the first letter wins
        ("hand-svg-logo", ("c",), ("ctrl+s", "escape"), []),  # nothing typed: refused, then Esc
        ("chain-uwi", ("a",), ("enter", "escape"), ["atk: answer {name}"]),
    ],
)
async def test_a_dialog_closes_once(
    demo: Demo, key: str, open_keys: tuple[str, ...], together: tuple[str, ...], subjects: list[str]
) -> None:
    name = demo[key]
    async with dashboard(demo, name) as (app, pilot):
        await press_all(pilot, *open_keys)
        assert app.screen is not app.main
        burst(pilot, *together)
        await settle(pilot)
        assert app.screen is app.main  # the dashboard is still there
        assert len(app.screen_stack) == 1  # the dashboard (the first screen)
    assert demo.written() == [s.format(name=name) for s in subjects]


async def test_the_palette_offers_every_write_and_runs_it_as_its_key(demo: Demo) -> None:
    """Issue 17: hold, unhold, answer, accept, comment, edit, move, remove and undo are in the
    command palette; one chosen there does what its key does, or says why not."""
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):
        provider = WriteProvider(app.screen)
        assert {"Hold", "Unhold"} <= {h.text async for h in provider.search("hold")}
        assert "Undo" in {h.text async for h in provider.search("undo")}
        assert {"Hold", "Unhold", "Answer", "Accept recommendations", "Comment", "Edit", "Move", "Remove", "Undo"} == {
            t for _, t, _ in PALETTE_ACTIONS
        }
        base = demo.head()
        app.palette_action(app.screen, "unhold")  # an inbox item: refused with the reason
        await settle(pilot)
        assert demo.subjects_since(base) == []
        assert "only held items are unheld (`atk wi hold F` holds one)" in messages(app)
        app.palette_action(app.screen, "hold")
        await settle(pilot)
    assert demo.subjects_since(base) == [f"atk: hold {name}"]
