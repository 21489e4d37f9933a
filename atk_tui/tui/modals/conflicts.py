"""Set-aside push conflicts (SPEC §11, `atk wi conflicts`): the commits `atk wi commit` kept
aside because they conflicted with the remote. The dialog lists them, shows both versions of
each file (as a diff: what is stored now → what was set aside), and applies one side."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from atk_tui.service import Conflict
from atk_tui.text.textsafe import safe_line, safe_text
from atk_tui.tui.display.safe import framed
from atk_tui.tui.modals.dialogs import DIALOG_CSS, DismissOnce

MAX_DIFF_LINES = 400


@dataclass(frozen=True)
class Resolution:
    ref: str
    keep: str  # "mine" (the set-aside version) or "theirs" (what the remote has now)


def describe(versions: list[tuple[str, bytes | None, bytes | None]]) -> Text:
    """Both versions of every file, as a unified diff from the stored one to the set-aside one."""
    out = Text()
    for path, mine, theirs in versions:
        out.append(f"{safe_line(path)}\n", style="bold")
        if mine is None:
            out.append("  set aside: the file removed\n", style="yellow")
        if theirs is None:
            out.append("  stored now: no such file\n", style="yellow")
        a = (theirs or b"").decode("utf-8", errors="replace").splitlines()
        b = (mine or b"").decode("utf-8", errors="replace").splitlines()
        diff = list(difflib.unified_diff(a, b, "stored now (theirs)", "set aside (mine)", lineterm="", n=2))
        if not diff:
            out.append("  (the same in both)\n", style="dim")
        for line in diff[:MAX_DIFF_LINES]:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else ""
            out.append(safe_text(line) + "\n", style=style)
        if len(diff) > MAX_DIFF_LINES:
            out.append(f"  … {len(diff) - MAX_DIFF_LINES} more lines (`atk wi conflicts show` prints all)\n", style="dim")
        out.append("\n")
    return out


class ConflictsScreen(DismissOnce, ModalScreen[Resolution | None]):
    DEFAULT_CSS = DIALOG_CSS.format(name="ConflictsScreen") + """
    ConflictsScreen > Vertical { width: 110; height: 90%; }
    ConflictsScreen #conflict-list { height: auto; max-height: 8; }
    ConflictsScreen #conflict-versions { height: 1fr; border: round $panel-lighten-2; }
    ConflictsScreen .dialog-buttons { margin-top: 1; }
    """
    BINDINGS = [
        Binding("m", "keep('mine')", "Keep mine"),
        Binding("t", "keep('theirs')", "Keep theirs"),
        Binding("escape", "cancel", "Close"),
    ]

    def __init__(self, conflicts: list[Conflict], versions: dict[str, list[tuple[str, bytes | None, bytes | None]]]) -> None:
        super().__init__()
        self.conflicts = conflicts
        self.versions = versions

    def compose(self) -> ComposeResult:
        with framed(f"Set-aside conflicts ({len(self.conflicts)})", "↑↓ choose · m keep mine · t keep theirs · Esc close"):
            yield Static(
                Text(
                    "These commits were not pushed: the remote changed the same files. Keep mine writes the "
                    "set-aside version over the remote's (one new commit, pushed); keep theirs drops it."
                ),
                classes="dialog-message",
            )
            yield OptionList(
                *[
                    Option(Text(f"{c.commit[:10]}  {safe_line(c.subject)}  ({c.when[:16]}, {len(c.files)} file{'s' if len(c.files) != 1 else ''})"), id=c.ref)
                    for c in self.conflicts
                ],
                id="conflict-list",
            )
            with VerticalScroll(id="conflict-versions"):
                yield Static("", id="conflict-diff")
            with Horizontal(classes="dialog-buttons"):
                yield Button(Text("Keep mine [m]"), id="keep-mine", variant="primary")
                yield Button(Text("Keep theirs [t]"), id="keep-theirs")
                yield Button(Text("Close [Esc]"), id="close")

    def on_mount(self) -> None:
        lst = self.query_one("#conflict-list", OptionList)
        lst.highlighted = 0
        lst.focus()
        self._show(0)

    @property
    def current(self) -> Conflict | None:
        index = self.query_one("#conflict-list", OptionList).highlighted
        return self.conflicts[index] if index is not None and 0 <= index < len(self.conflicts) else None

    def _show(self, index: int | None) -> None:
        if index is None or not 0 <= index < len(self.conflicts):
            return
        c = self.conflicts[index]
        self.query_one("#conflict-diff", Static).update(describe(self.versions.get(c.ref, [])))

    @on(OptionList.OptionHighlighted, "#conflict-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(event.option_index)

    def action_keep(self, keep: str) -> None:
        c = self.current
        if c is not None:
            self.dismiss(Resolution(c.ref, keep))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "keep-mine":
            self.action_keep("mine")
        elif event.button.id == "keep-theirs":
            self.action_keep("theirs")
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
