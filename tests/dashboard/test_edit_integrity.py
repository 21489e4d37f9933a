"""The edit flow never overwrites and never loses (SPEC §11): a save whose base changed is
merged, not written over; a hold that was not pushed is asked about; a session that cannot
suspend edits in the dashboard without holding first; kept text is never overwritten and is
offered again. The editor is a function here (`make(editor=fn)`); real vim: the tmux tests."""

from __future__ import annotations

import subprocess

from support.actions_support import (
    Demo,
    asks,
    dashboard,
    errors_shown,
    messages,
    press_all,
    select,
    settle,
)
from test_edit_in_editor import ADDED, Editor, append, break_yaml, fix_yaml, run_edit
from textual.widgets import TextArea

from atk_tui.service import Service
from atk_tui.service.writing.editing import merge_texts
from atk_tui.tui.modals.dialogs import ChoiceScreen, InAppEditorScreen

AGENT_LINE = "- 追記 (agent): the favicon is out of scope\n"
FIRST = "- 反映内容: ヘッダーのロゴ画像を PNG (2 種の解像度) から単一の SVG に替える"


def someone_else_appends(demo: Demo, name: str, line: str = AGENT_LINE) -> None:
    svc = Service(demo.root, actor="user")  # another session of the user, or a colleague
    item = svc.read(name)
    out = svc.writes.save_text(name, item.text + line)
    assert out.ok, out.message


def test_merge_texts_merges_and_marks_conflicts() -> None:
    base = b"a\nb\nc\n"
    merged, conflicts = merge_texts(base, b"a\nb\nc\nd\n", b"A\nb\nc\n")
    assert (merged, conflicts) == (b"A\nb\nc\nd\n", 0)
    merged, conflicts = merge_texts(base, b"a\nB2\nc\n", b"a\nB1\nc\n")
    assert conflicts == 1
    assert b"<<<<<<< your text\nB1\n" in merged and b"B2\n>>>>>>> stored now\n" in merged


async def test_changed_meanwhile_edit_again_opens_a_merge_and_saves_on_the_newer_version(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    before = demo.text(name)

    def user_edits_while_someone_else_saves(text: str) -> tuple[str, int]:
        someone_else_appends(demo, name)  # while the editor is open
        return text.replace(FIRST, FIRST + " (SVG は 1 ファイル)"), 0

    def save_merge(text: str) -> tuple[str, int]:
        return text, 0  # :wq on what the merge shows

    app, editor, _base, screen, _ = await run_edit(demo, name, user_edits_while_someone_else_saves, save_merge, keys=("e", "e"))
    assert not isinstance(screen, ChoiceScreen)
    merged_shown = editor.calls[1]["text"]
    # the second session shows the newer stored version with the user's change merged in
    assert AGENT_LINE in merged_shown and "(SVG は 1 ファイル)" in merged_shown
    final = demo.text(name)
    assert AGENT_LINE in final and "(SVG は 1 ファイル)" in final  # nothing overwritten
    assert final != before
    assert demo.state(name) == "inbox"
    assert demo.scratch_files() == []
    assert not errors_shown(app)[1:]


async def test_a_conflict_is_marked_and_markers_are_not_saved_unasked(demo: Demo) -> None:
    name = demo["hand-svg-logo"]

    def conflicting(text: str) -> tuple[str, int]:
        svc = Service(demo.root, actor="user")
        item = svc.read(name)
        assert svc.writes.save_text(name, item.text.replace(FIRST, FIRST + " — theirs")).ok
        return text.replace(FIRST, FIRST + " — mine"), 0

    def keep_markers(text: str) -> tuple[str, int]:
        assert "<<<<<<< your text" in text and "— mine" in text and "— theirs" in text
        return text, 0

    def resolve(text: str) -> tuple[str, int]:
        lines = [ln for ln in text.splitlines(keepends=True) if not ln.startswith(("<<<<<<<", "=======", ">>>>>>>"))]
        lines = [ln for ln in lines if "— theirs" not in ln]
        return "".join(lines), 0

    # e: edit; e: edit again (merge); n: do not save the markers -> back in the editor
    _app, editor, base, _screen, _ = await run_edit(demo, name, conflicting, keep_markers, resolve, keys=("e", "e", "n"))
    assert len(editor.calls) == 3
    final = demo.text(name)
    assert "— mine" in final and "<<<<<<<" not in final
    assert demo.subjects_since(base)[-2:] == [f"atk: edit {name}", f"atk: unhold {name}"]


async def test_hold_not_pushed_asks_before_the_editor_opens(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    subprocess.run(["git", "remote", "set-url", "origin", str(demo.root / "no-such-remote.git")], cwd=demo.root, check=True)
    editor = Editor(demo, name, append)
    async with dashboard(demo, name, editor=editor) as (app, pilot):
        await press_all(pilot, "e")
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen)
        assert "not pushed: agents elsewhere may still take this item — edit anyway?" in str(dialog.message)
        assert editor.calls == []
        await press_all(pilot, "n")
        assert editor.calls == []
        assert demo.state(name) == "inbox"  # the hold is undone
        await press_all(pilot, "e")
        await pilot.press("y")  # edit anyway
        await settle(pilot)
    assert len(editor.calls) == 1 and editor.calls[0]["state"] == "hold"
    assert demo.text(name).endswith(ADDED)


async def test_without_suspend_nothing_is_held_and_the_dashboard_edits_in_place(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    async with dashboard(demo, name) as (app, pilot):  # no injected editor: the real path
        app.can_suspend = lambda: False  # headless Pilot cannot suspend
        base = demo.head()
        assert await asks(pilot, "e") == "Edit here?"
        assert demo.head() == base  # nothing held before the answer
        await press_all(pilot, "n")
        assert demo.head() == base and demo.scratch_files() == []
        await press_all(pilot, "e")
        await press_all(pilot, "y")
        ed = app.screen
        assert isinstance(ed, InAppEditorScreen)
        assert demo.state(name) == "hold"
        area = ed.query_one(TextArea)
        area.insert(ADDED, area.document.end)
        await press_all(pilot, "ctrl+s")
        assert app.screen is app.main
    assert demo.subjects_since(base) == [f"atk: hold {name}", f"atk: edit {name}", f"atk: unhold {name}"]
    assert demo.text(name).endswith(ADDED)
    assert demo.scratch_files() == []


async def test_kept_text_is_never_overwritten_and_is_offered_on_the_next_e(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    # session 1: invalid, Esc: the text is kept (in hold)
    await run_edit(demo, name, break_yaml, keys=("e", "escape"))
    first = demo.scratch(name)
    kept = first.read_text(encoding="utf-8")
    assert "acme/webapp: oops" in kept

    # session 2: the next e offers it; "start afresh" keeps it where it is
    def other_text(text: str) -> tuple[str, int]:
        assert "oops" not in text  # the stored version
        return text.replace("target_repo: acme/webapp\n", "target_repo: acme/webapp: again\n"), 0

    _, editor, _, _screen, _ = await run_edit(demo, name, other_text, keys=("e", "f", "escape"))
    assert editor.calls[0]["path"] != first
    assert first.read_text(encoding="utf-8") == kept  # never overwritten
    assert len([n for n in demo.scratch_files() if n.endswith(".md")]) == 2

    # session 3: resume the first kept text, fix it, save: kept text cleaned up
    async with dashboard(demo, editor=Editor(demo, name, fix_yaml)) as (app, pilot):
        # at start the dashboard says which item has kept text
        assert any("kept editor text" in m and name in m for m in messages(app))
        await select(pilot, name)
        assert await asks(pilot, "e") == "Kept text"
        await pilot.press("d")  # discard both kept texts, then edit afresh
        await settle(pilot)
    assert demo.scratch_files() == []


async def test_resuming_kept_text_merges_it_with_what_changed_since(demo: Demo) -> None:
    name = demo["hand-svg-logo"]
    await run_edit(demo, name, break_yaml, keys=("e", "escape"))  # kept, the item in hold
    svc = Service(demo.root, actor="user")  # the stored version moves on (another session)
    stored = svc.read(name).text
    assert svc.writes.save_text(name, stored.replace("- デメリット: なし", "- デメリット: favicon は別途")).ok

    def fix(text: str) -> tuple[str, int]:
        assert "acme/webapp: oops" in text  # the kept text…
        assert "favicon は別途" in text  # …merged with the newer stored version
        return fix_yaml(text)

    _app, editor, base, _screen, _ = await run_edit(demo, name, fix, keys=("e", "r"))
    assert len(editor.calls) == 1
    final = demo.text(name)
    assert "favicon は別途" in final and ADDED in final and "oops" not in final
    assert demo.subjects_since(base) == [f"atk: edit {name}"]  # it was in hold already: stays
    assert demo.scratch_files() == []
