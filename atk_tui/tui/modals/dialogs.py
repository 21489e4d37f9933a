"""Small modal dialogs: a choice (confirm, edit-again/discard), a text form, a move menu."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from atk_tui.domain.model import TERMINAL
from atk_tui.tui.display.safe import framed, safe_rich

if TYPE_CHECKING:
    from atk_tui.service import PendingChange

DIALOG_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{ width: 80; max-width: 95%; height: auto; max-height: 90%; border: round $accent; background: $surface; padding: 1 2; }}
{name} .dialog-message {{ margin-bottom: 1; }}
{name} .dialog-buttons {{ height: auto; align-horizontal: right; }}
{name} Button {{ margin-left: 1; }}
"""


class DismissOnce:
    """A modal that closes once. `Screen.dismiss` pops whatever screen is on top, so two keys
    arriving together (`y` and `n`, Enter and Esc: a paste, a fast typist) would otherwise close
    the dialog and then the dashboard under it."""

    _dismissed = False

    def dismiss(self, result: object = None) -> AwaitComplete:
        if self._dismissed:
            return AwaitComplete.nothing()
        self._dismissed = True
        return super().dismiss(result)  # type: ignore[misc]


class ChoiceScreen(DismissOnce, ModalScreen[str | None]):
    """A message and a few choices, each with a key. Escape returns None."""

    DEFAULT_CSS = DIALOG_CSS.format(name="ChoiceScreen")
    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(
        self, title: str, message: Text | str, choices: list[tuple[str, str, str]], *, danger: bool = False, escape_hint: str | None = None
    ) -> None:
        """`choices`: (value, key, label); the first is the default (Enter). `escape_hint` says
        what Escape does, when that is more than "cancel"."""
        super().__init__()
        self.title_text = title
        self.escape_hint = escape_hint
        self.message = safe_rich(message)
        self.choices = choices
        self.danger = danger

    def compose(self) -> ComposeResult:
        with framed(self.title_text, self.escape_hint):  # literal: `[WIP]` stays, `[/x]` is text
            yield Static(self.message, classes="dialog-message")
            with Horizontal(classes="dialog-buttons"):
                for i, (value, key, label) in enumerate(self.choices):
                    variant = ("error" if self.danger else "primary") if i == 0 else "default"
                    yield Button(Text(f"{label} [{key}]"), id=f"choice-{value}", variant=variant)

    def on_mount(self) -> None:
        self.query(Button).first().focus()

    def on_key(self, event) -> None:
        if event.key == "escape":  # here, in the order keys came: a letter typed after it picks nothing
            event.stop()
            self.dismiss(None)
            return
        for value, key, _ in self.choices:
            if event.key == key or event.character == key:
                event.stop()
                self.dismiss(value)
                return

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss((event.button.id or "").removeprefix("choice-"))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def confirm(title: str, message: str | Text, yes: str = "Yes", *, danger: bool = False) -> ChoiceScreen:
    return ChoiceScreen(title, message, [("yes", "y", yes), ("no", "n", "No")], danger=danger)


class CommitScreen(ChoiceScreen):
    """`P` with files in the work tree: every change it would commit as the user's, the
    user's decisions among them marked (`svc.conflicts.pending_changes`, the list `atk wi commit`
    prints), scrolled when long; y commits exactly these, n or Esc commits nothing."""

    DEFAULT_CSS = DIALOG_CSS.format(name="CommitScreen") + """
    CommitScreen > Vertical { width: 110; }
    CommitScreen VerticalScroll { height: auto; max-height: 24; }
    """

    def __init__(self, changes: Sequence[PendingChange]) -> None:
        decisions = sum(1 for c in changes if c.notes)
        n = len(changes)
        text = Text(
            f"Commit {n} change{'s' if n != 1 else ''} in the work tree as yours (Atk-Actor: user)? They were not made "
            "through atk: an agent working in this store may have written them.\n"
        )
        if decisions:
            verb = "carry" if decisions != 1 else "carries"
            text.append(f"{decisions} {verb} your decisions (marked !).\n", style="bold")
        for c in changes:
            text.append("\n")
            text.append(("! " if c.notes else "  ") + c.describe(), style="bold" if c.notes else "")
        choices = [("yes", "y", "Commit as mine"), ("no", "n", "Cancel")]
        super().__init__("Commit the work tree", text, choices, danger=bool(decisions))
        self.changes = list(changes)

    def compose(self) -> ComposeResult:
        with framed(self.title_text, "y commit these · n or Esc cancel"):
            with VerticalScroll():
                yield Static(self.message, classes="dialog-message", id="commit-list")
            with Horizontal(classes="dialog-buttons"):
                for i, (value, key, label) in enumerate(self.choices):
                    variant = ("error" if self.danger else "primary") if i == 0 else "default"
                    yield Button(Text(f"{label} [{key}]"), id=f"choice-{value}", variant=variant)


ResultT = TypeVar("ResultT")


class KeepsTypedText(DismissOnce, ModalScreen[ResultT]):
    """A form holding text the person typed: Esc (a priority binding: a text area with
    `tab_behavior="indent"` would take the first Esc, as in a browser) cancels at once when
    nothing was changed, and asks before it throws typed text away."""

    def typed_changed(self) -> bool:  # the form says whether anything typed would be lost
        raise NotImplementedError

    def action_cancel(self) -> None:
        if not self.typed_changed():
            self.dismiss(None)
            return

        def answered(choice: str | None) -> None:
            if choice == "discard":
                self.dismiss(None)

        self.app.push_screen(
            ChoiceScreen(
                "Discard what you typed?", "The text you typed here is not saved anywhere yet.",
                # a yes/no question: y and n, as every other one (issue 43: it was k and d)
                [("keep", "n", "Keep editing"), ("discard", "y", "Discard")], escape_hint="Esc keeps editing",
            ),
            answered,
        )  # fmt: skip


class TextFormScreen(KeepsTypedText[str | None]):
    """A multi-line text area (comment) or a one-line input (note). Ctrl+S submits."""

    DEFAULT_CSS = DIALOG_CSS.format(name="TextFormScreen") + """
    TextFormScreen TextArea { height: 12; }
    """
    BINDINGS = [
        Binding("ctrl+s", "submit", "Submit", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, title: str, prompt: str | Text, *, multiline: bool = True, initial: str = "", allow_empty: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.prompt = safe_rich(prompt)
        self.multiline = multiline
        self.initial = initial
        self.allow_empty = allow_empty

    def compose(self) -> ComposeResult:
        with framed(self.title_text, "Ctrl+S submit · Esc cancel" if self.multiline else "Enter submit · Esc cancel"):
            yield Static(self.prompt, classes="dialog-message")
            if self.multiline:
                yield TextArea(self.initial, id="text", soft_wrap=True, show_line_numbers=False)
            else:
                yield Input(self.initial, id="text")

    def on_mount(self) -> None:
        self.query_one("#text").focus()

    def _value(self) -> str:
        w = self.query_one("#text")
        return w.text if isinstance(w, TextArea) else w.value

    def action_submit(self) -> None:
        value = self._value()
        if not value.strip() and not self.allow_empty:
            self.notify("nothing to submit (Esc cancels)", severity="warning")
            return
        self.dismiss(value)

    @on(Input.Submitted, "#text")
    def _submitted(self) -> None:
        self.action_submit()

    def typed_changed(self) -> bool:
        return self._value() != self.initial


class InAppEditorScreen(KeepsTypedText[str | None]):
    """The whole item file in a text area, for sessions that cannot hand the terminal to
    $EDITOR (a browser). Ctrl+S returns the text, Esc cancels (nothing saved)."""

    DEFAULT_CSS = DIALOG_CSS.format(name="InAppEditorScreen") + """
    InAppEditorScreen > Vertical { width: 110; height: 90%; padding: 0 1; }
    InAppEditorScreen TextArea { height: 1fr; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, filename: str, text: str) -> None:
        super().__init__()
        self.filename = filename
        self.text = text

    def compose(self) -> ComposeResult:
        with framed(f"Edit {self.filename}", "Ctrl+S save · Esc cancel (nothing saved)"):
            yield TextArea(self.text, id="text", soft_wrap=True, show_line_numbers=True, tab_behavior="indent")

    def on_mount(self) -> None:
        self.query_one("#text", TextArea).focus()

    def action_save(self) -> None:
        self.dismiss(self.query_one("#text", TextArea).text)

    def typed_changed(self) -> bool:
        return self.query_one("#text", TextArea).text != self.text


@dataclass
class MoveChoice:
    to_state: str
    note: str | None


class MoveScreen(DismissOnce, ModalScreen[MoveChoice | None]):
    """The moves valid for the selection; adopt/reject offer a note."""

    DEFAULT_CSS = DIALOG_CSS.format(name="MoveScreen") + """
    MoveScreen OptionList { height: auto; max-height: 10; }
    MoveScreen Input { margin-top: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    LABELS = {
        "inbox": "inbox (back to the queue)",
        "processing": "processing (start)",
        "hold": "hold (out of automatic processing)",
        "editing": "editing (mq: the user is editing it)",
        "adopted": "adopted (done)",
        "rejected": "rejected (not done)",
    }
    # p holds, as on the dashboard (issue 43: p here was processing); s starts processing
    KEYS = {"inbox": "i", "processing": "s", "hold": "p", "editing": "e", "adopted": "a", "rejected": "x"}

    def __init__(self, title: str, current: set[str], targets: list[str]) -> None:
        super().__init__()
        self.title_text = title
        self.current = current
        self.targets = targets
        self.chosen: str | None = None

    def compose(self) -> ComposeResult:
        with framed(self.title_text, "letter or ↑↓ Enter · Esc cancel"):
            yield Static(Text(f"now in: {', '.join(sorted(self.current))}"), classes="dialog-message")
            yield OptionList(*[Option(Text(f"[{self.KEYS[t]}] {self.LABELS[t]}"), id=t) for t in self.targets], id="targets")
            note = Input(placeholder="note for adopt/reject (optional), Enter to confirm", id="note")
            note.display = False
            yield note

    def on_mount(self) -> None:
        self.query_one("#targets", OptionList).focus()

    def on_key(self, event) -> None:
        if event.key == "escape":  # here, in the order keys came: a letter typed after it picks nothing
            event.stop()
            self.action_cancel()
            return
        if self.chosen:
            # keys typed on before the note box had the focus (a fast typist, a paste) belong
            # to the note: they must never pick another target ("fixed in #42" has an i)
            if isinstance(self.focused, Input) and event.character and event.character.isprintable():
                event.stop()
                self.query_one("#note", Input).insert_text_at_cursor(event.character)
            return
        if isinstance(self.focused, Input):
            return
        for t in self.targets:
            if event.character == self.KEYS[t]:
                event.stop()
                self._choose(t)
                return

    @on(OptionList.OptionSelected, "#targets")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if self.chosen:  # an Enter meant for the note box
            self._submit_note()
            return
        self._choose(event.option.id or "")

    def _choose(self, target: str) -> None:
        if target in TERMINAL:
            self.chosen = target
            note = self.query_one("#note", Input)
            note.display = True
            note.border_title = f"note for {target}"
            self.set_focus(note)  # at once: `focus()` would wait behind keys already queued
        else:
            self.dismiss(MoveChoice(target, None))

    def _submit_note(self) -> None:
        if self.chosen:
            self.dismiss(MoveChoice(self.chosen, self.query_one("#note", Input).value.strip() or None))

    @on(Input.Submitted, "#note")
    def _note(self) -> None:
        self._submit_note()

    def action_cancel(self) -> None:
        self.dismiss(None)
