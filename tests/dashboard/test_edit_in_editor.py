"""`e`: edit in $EDITOR with automatic hold/unhold (SPEC §10), every branch, with an injected
editor function (`make_app(editor=fn)`); the real editor path is covered by the tmux tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.actions_support import SIZE, Demo, dashboard, errors_shown, make, messages, press_all, select, started
from support.storekit import git

from atk_tui.itemfile.items import parse_item
from atk_tui.service import Service
from atk_tui.tui.modals.dialogs import ChoiceScreen

ADDED = "- 追記: the logo must also be used in the favicon\n"


class Editor:
    """Stands in for $EDITOR: each call applies the next edit to the scratch file and returns
    its exit status; it records what the world looked like while it was open."""

    def __init__(self, demo: Demo, filename: str, *edits) -> None:
        self.demo = demo
        self.filename = filename
        self.edits = list(edits)
        self.calls: list[dict[str, object]] = []
        self.app = None

    def __call__(self, path: Path) -> int:
        self.calls.append(
            {
                "path": path,
                "state": self.demo.state(self.filename),
                "paused": self.app._watch_paused if self.app else None,
                "text": path.read_text(encoding="utf-8"),
            }
        )
        edit = self.edits.pop(0)
        if isinstance(edit, int):
            return edit
        new, code = edit(path.read_text(encoding="utf-8"))
        path.write_text(new, encoding="utf-8")
        return code


def append(text: str) -> tuple[str, int]:
    return text + ADDED, 0


def break_yaml(text: str) -> tuple[str, int]:
    assert "target_repo: acme/webapp\n" in text
    return text.replace("target_repo: acme/webapp\n", "target_repo: acme/webapp: oops\n") + ADDED, 0


def fix_yaml(text: str) -> tuple[str, int]:
    return text.replace("target_repo: acme/webapp: oops\n", "target_repo: acme/webapp\n"), 0


async def run_edit(demo: Demo, filename: str, *edits, keys: tuple[str, ...] = ("e",), editor_cls=Editor):
    editor = editor_cls(demo, filename, *edits)
    app = make(demo.root, editor=editor)
    editor.app = app
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await select(pilot, filename)
        base = demo.head()
        for key in keys:
            await press_all(pilot, key)
        screen = app.screen
        paused_after = app._watch_paused
    return app, editor, base, screen, paused_after


@pytest.fixture
def inbox_awi(demo: Demo) -> str:
    name = demo["hand-svg-logo"]
    assert demo.state(name) == "inbox"
    return name


async def test_inbox_unchanged_holds_then_unholds_without_edit(demo: Demo, inbox_awi: str) -> None:
    before = demo.text(inbox_awi)
    app, editor, base, _, paused_after = await run_edit(demo, inbox_awi, 0)
    assert demo.subjects_since(base) == [f"atk: hold {inbox_awi}", f"atk: unhold {inbox_awi}"]
    assert len(editor.calls) == 1
    call = editor.calls[0]
    assert call["path"] == demo.scratch(inbox_awi)
    assert call["state"] == "hold"  # held (and committed) before the editor opened
    assert call["paused"] == 1  # the live watcher is paused while the editor is open
    assert paused_after == 0
    assert demo.state(inbox_awi) == "inbox"
    assert demo.text(inbox_awi) == before
    assert not demo.scratch(inbox_awi).exists()
    assert "unchanged" in messages(app)
    assert demo.clean()


async def test_inbox_changed_valid_commits_hold_edit_unhold(demo: Demo, inbox_awi: str) -> None:
    before = demo.text(inbox_awi)
    app, editor, base, _, _ = await run_edit(demo, inbox_awi, append)
    assert demo.subjects_since(base) == [f"atk: hold {inbox_awi}", f"atk: edit {inbox_awi}", f"atk: unhold {inbox_awi}"]
    assert editor.calls[0]["state"] == "hold"
    assert demo.state(inbox_awi) == "inbox"
    assert demo.text(inbox_awi) == before + ADDED
    assert demo.trailer() == "user"
    assert not demo.scratch(inbox_awi).exists()
    sha = git(demo.root, "rev-parse", "HEAD~1").strip()[:7]  # the edit (the unhold came after)
    title = parse_item(inbox_awi, "inbox", demo.text(inbox_awi).encode()).title  # a message names it by its title
    assert f"saved “{title}” ({sha}, pushed)" in messages(app)  # which commit, and that it is pushed
    assert not errors_shown(app)
    assert demo.clean()


async def test_inbox_invalid_keeps_text_and_hold_and_asks(demo: Demo, inbox_awi: str) -> None:
    before = demo.text(inbox_awi)
    _, _, base, screen, _ = await run_edit(demo, inbox_awi, break_yaml)
    assert isinstance(screen, ChoiceScreen)
    assert screen.title_text == "Not saved"
    shown = screen.message.plain
    assert "YAML" in shown or "yaml" in shown
    assert f".git/atk-edit/{demo.scratch(inbox_awi).name}" in shown
    # the app was closed with the dialog open: the item stays held, the text is kept
    assert demo.subjects_since(base) == [f"atk: hold {inbox_awi}"]
    assert demo.state(inbox_awi) == "hold"
    assert demo.text(inbox_awi) == before
    kept = demo.scratch(inbox_awi).read_text(encoding="utf-8")
    assert "target_repo: acme/webapp: oops" in kept and kept.endswith(ADDED)


async def test_invalid_then_edit_again_then_valid(demo: Demo, inbox_awi: str) -> None:
    before = demo.text(inbox_awi)
    _, editor, base, screen, _ = await run_edit(demo, inbox_awi, break_yaml, fix_yaml, keys=("e", "e"))
    assert not isinstance(screen, ChoiceScreen)
    # the second editor session starts from the user's (broken) text, not from the store
    assert "acme/webapp: oops" in editor.calls[1]["text"]
    assert editor.calls[1]["state"] == "hold"
    assert demo.subjects_since(base) == [f"atk: hold {inbox_awi}", f"atk: edit {inbox_awi}", f"atk: unhold {inbox_awi}"]
    assert demo.state(inbox_awi) == "inbox"
    assert demo.text(inbox_awi) == before + ADDED
    assert not demo.scratch(inbox_awi).exists()
    assert demo.clean()


async def test_invalid_then_discard(demo: Demo, inbox_awi: str) -> None:
    before = demo.text(inbox_awi)
    app, editor, base, screen, _ = await run_edit(demo, inbox_awi, break_yaml, keys=("e", "d"))
    assert not isinstance(screen, ChoiceScreen)
    assert len(editor.calls) == 1
    assert demo.subjects_since(base) == [f"atk: hold {inbox_awi}", f"atk: unhold {inbox_awi}"]
    assert demo.state(inbox_awi) == "inbox"
    assert demo.text(inbox_awi) == before
    assert not demo.scratch(inbox_awi).exists()
    assert "changes discarded" in messages(app)


async def test_invalid_then_escape_leaves_it_in_hold_with_the_text(demo: Demo, inbox_awi: str) -> None:
    app, _, base, screen, paused_after = await run_edit(demo, inbox_awi, break_yaml, keys=("e", "escape"))
    assert not isinstance(screen, ChoiceScreen)
    assert demo.subjects_since(base) == [f"atk: hold {inbox_awi}"]
    assert demo.state(inbox_awi) == "hold"
    assert demo.scratch(inbox_awi).read_text(encoding="utf-8").endswith(ADDED)
    assert any(f".git/atk-edit/{demo.scratch(inbox_awi).name}" in m for m in messages(app))
    assert paused_after == 0


async def test_editor_exit_status_aborts_and_unholds(demo: Demo, inbox_awi: str) -> None:
    before = demo.text(inbox_awi)

    def quit_with_error(text: str) -> tuple[str, int]:
        return text + "half-typed line\n", 1  # like vim's :cq after typing

    app, _, base, _, _ = await run_edit(demo, inbox_awi, quit_with_error)
    assert demo.subjects_since(base) == [f"atk: hold {inbox_awi}", f"atk: unhold {inbox_awi}"]
    assert demo.state(inbox_awi) == "inbox"
    assert demo.text(inbox_awi) == before
    assert not demo.scratch(inbox_awi).exists()
    assert any("exited with status 1" in m for m in messages(app))


async def test_editor_missing_says_so_before_holding(demo: Demo, inbox_awi: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "/nonexistent")
    before = demo.text(inbox_awi)
    app = make(demo.root)  # editor=None: the real-editor path (it fails before suspending)
    app.can_suspend = lambda: True  # a terminal (headless Pilot cannot suspend)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await select(pilot, inbox_awi)
        base = demo.head()
        await press_all(pilot, "e")
        assert app._watch_paused == 0
    assert errors_shown(app) == ["editor not found: '/nonexistent' (set $VISUAL or $EDITOR)"]
    assert demo.subjects_since(base) == []  # said before anything was held
    assert demo.state(inbox_awi) == "inbox"
    assert demo.text(inbox_awi) == before


async def test_hold_item_unchanged_makes_no_commit(demo: Demo) -> None:
    name = demo["hold-edit"]
    _, _, base, _, _ = await run_edit(demo, name, 0)
    assert demo.subjects_since(base) == []
    assert demo.state(name) == "hold"


@pytest.mark.parametrize(
    ("key", "state", "keys"),
    [
        pytest.param("hold-edit", "hold", ("e",), id="hold"),
        # processing: after the warning is confirmed
        pytest.param("proc-darkmode", "processing", ("e", "y"), id="processing"),
    ],
)
async def test_edit_in_place_keeps_the_state(demo: Demo, key: str, state: str, keys: tuple[str, ...]) -> None:
    name = demo[key]
    before = demo.text(name)
    _, editor, base, screen, _ = await run_edit(demo, name, append, keys=keys)
    assert not isinstance(screen, ChoiceScreen)
    assert editor.calls[0]["state"] == state
    assert demo.subjects_since(base) == [f"atk: edit {name}"]
    assert demo.state(name) == state
    assert demo.text(name) == before + ADDED


async def test_processing_item_edit_warns_first(demo: Demo) -> None:
    _, editor, base, screen, _ = await run_edit(demo, demo["proc-darkmode"], append, keys=("e",))
    # a warning comes first: nothing ran before "y"
    assert isinstance(screen, ChoiceScreen)
    assert screen.title_text == "Edit while processing?"
    assert editor.calls == []
    assert demo.subjects_since(base) == []


async def test_processing_edit_declined_changes_nothing(demo: Demo) -> None:
    name = demo["proc-darkmode"]
    _, editor, base, screen, _ = await run_edit(demo, name, append, keys=("e", "n"))
    assert not isinstance(screen, ChoiceScreen)
    assert editor.calls == []
    assert demo.subjects_since(base) == []
    assert demo.state(name) == "processing"


async def test_terminal_item_is_read_only(demo: Demo, inbox_awi: str) -> None:
    editor = Editor(demo, inbox_awi, append)
    async with dashboard(demo, inbox_awi, editor=editor) as (app, pilot):
        # adopted behind the dashboard's back (the watcher is off, the pane still shows it)
        assert Service(demo.root, actor="user").writes.move([inbox_awi], "adopted").ok
        base = demo.head()
        await press_all(pilot, "e")
    assert editor.calls == []
    assert demo.subjects_since(base) == []
    assert demo.state(inbox_awi) == "adopted"
    assert "adopted items are read-only" in messages(app)


async def test_defective_item_can_be_fixed_in_the_editor(demo: Demo) -> None:
    """SPEC §4: a defective item can be opened and edited (here: its YAML repaired)."""
    name = demo["defective"]
    assert "target_repo: acme/api: local" in demo.text(name)

    def repair(text: str) -> tuple[str, int]:
        return text.replace("target_repo: acme/api: local", "target_repo: acme/api"), 0

    app, editor, base, _, _ = await run_edit(demo, name, repair)
    assert len(editor.calls) == 1
    assert f"atk: edit {name}" in demo.subjects_since(base)
    assert demo.state(name) == "inbox"
    assert "target_repo: acme/api\n" in demo.text(name)
    assert not errors_shown(app)
