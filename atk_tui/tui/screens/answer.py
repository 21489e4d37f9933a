"""`a`: answer a UWI inline. Each question's options, the recommended one marked and
preselected; a letter picks an option, ↑/↓ move, Tab goes to the next question, Enter
submits from anywhere but the free-text area (Ctrl+S submits from there too)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import RadioButton, RadioSet, Static, TextArea

from ...core.model import Item
from ...core.questions import ParsedQuestions, Question
from ...core.textsafe import safe_line, safe_text
from ..safe import safe_content
from .dialogs import DismissOnce

#: more questions than this and the form offers the free-text box only (with a message saying
#: so): a widget per option made a 1,000-question UWI take 25 s to open (issue 10)
FORM_MAX_QUESTIONS = 40


@dataclass
class AnswerResult:
    choices: dict[int, str] = field(default_factory=dict)  # question number -> letter
    text: str = ""


class OptionSet(RadioSet, inherit_bindings=False):
    """A RadioSet where a letter picks its option and Enter is left to the form (submit)."""

    BINDINGS = [
        Binding("down,right,j", "next_button", "Next option", show=False),
        Binding("up,left,k", "previous_button", "Previous option", show=False),
        Binding("space", "toggle_button", "Pick", show=False),
    ]

    def __init__(self, question: Question, *, id: str | None = None) -> None:
        buttons = []
        for opt in question.options:
            label = Text()
            label.append(f"{opt.letter}) ", style="bold")
            if question.recommendation == opt.letter:
                label.append("★ ", style="bold green")
            label.append(safe_line(opt.label))
            if opt.implications:
                label.append(f" — {safe_line(opt.implications)}", style="dim")
            buttons.append(RadioButton(label, value=question.recommendation == opt.letter, name=opt.letter))
        super().__init__(*buttons, id=id)
        self.question = question

    def on_mount(self) -> None:
        # start the highlight on the preselected (recommended) option
        pressed = self.pressed_index
        if pressed >= 0:
            self._selected = pressed

    @property
    def letter(self) -> str | None:
        btn = self.pressed_button
        return btn.name if btn is not None else None

    def pick(self, index: int) -> None:
        """Press option `index` at once. RadioSet settles its state through messages, so keys
        arriving together (`b Tab a Enter` from a fast typist or a paste) could submit the
        previous choice; here the state is exact before the next key is handled."""
        buttons = list(self.query(RadioButton))
        if not 0 <= index < len(buttons):
            return
        with self.prevent(RadioButton.Changed):
            for i, btn in enumerate(buttons):
                btn.value = i == index
        self._pressed_button = buttons[index]
        self._selected = index
        self.post_message(self.Changed(self, buttons[index]))

    def action_toggle_button(self) -> None:
        if self._selected is not None:
            self.pick(self._selected)

    def on_key(self, event) -> None:
        ch = (event.character or "").upper()
        if len(ch) == 1 and ch.isalpha():
            for i, btn in enumerate(self.query(RadioButton)):
                if btn.name == ch:
                    event.stop()
                    self.pick(i)
                    return


class AnswerScreen(DismissOnce, ModalScreen[AnswerResult | None]):
    DEFAULT_CSS = """
    AnswerScreen { align: center middle; }
    AnswerScreen > Vertical { width: 100; max-width: 98%; height: auto; max-height: 95%; border: round $accent; background: $surface; padding: 0 1; }
    AnswerScreen VerticalScroll { height: auto; max-height: 1fr; }
    AnswerScreen .q-text { margin-top: 1; text-style: bold; }
    AnswerScreen .q-context { color: $text-muted; margin-top: 1; }
    AnswerScreen OptionSet { width: 100%; border: none; padding: 0; background: $surface; }
    AnswerScreen OptionSet:focus { border: none; background: $boost; }
    AnswerScreen TextArea { height: 5; margin-top: 1; }
    AnswerScreen #answer-help { color: $text-muted; height: 1; }
    """
    BINDINGS = [
        Binding("enter", "submit", "Submit", show=True),
        # its own action: `submit` (Enter) is disabled in the text area, Ctrl+S never is
        Binding("ctrl+s", "submit_anywhere", "Submit", show=False, priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, item: Item, parsed: ParsedQuestions, *, replacing: bool = False) -> None:
        super().__init__()
        self.item = item
        self.parsed = parsed
        self.replacing = replacing

    def compose(self) -> ComposeResult:
        with Vertical() as v:
            v.border_title = safe_content(("Re-answer: " if self.replacing else "Answer: ") + safe_line(self.item.title)[:80])
            if self.has_options:
                v.border_subtitle = "★ recommended · letter/↑↓ pick · Tab next · Enter submit · Esc cancel"
            else:  # free text only: Enter is a newline there
                v.border_subtitle = "Ctrl+S submit · Esc cancel"
            with VerticalScroll():
                if self.parsed.context.strip():
                    ctx = safe_text(self.parsed.context.strip())
                    yield Static(Text(ctx[:600] + ("…" if len(ctx) > 600 else "")), classes="q-context")
                if self.too_many:
                    yield Static(self._too_many_text(), classes="q-text", id="too-many")
                for q in self.parsed.questions if not self.too_many else ():
                    yield Static(self._heading(q, current=False), classes="q-text", id=f"qt{q.number}")
                    if q.options:
                        yield OptionSet(q, id=f"q{q.number}")
                yield TextArea("", id="answer-text", soft_wrap=True)
            yield Static(self._help(), id="answer-help")

    @property
    def too_many(self) -> bool:
        return len(self.parsed.questions) > FORM_MAX_QUESTIONS

    def _too_many_text(self) -> Text:
        n = len(self.parsed.questions)
        return Text(
            f"This item asks {n:,} questions: more than the form shows ({FORM_MAX_QUESTIONS}). "
            "Write your answers in the box below (for example one line per question: \"Q1: A\"); "
            "every question and its options are in the item's body (`atk wi show`). Ctrl+S submits."
        )

    @property
    def has_options(self) -> bool:
        return not self.too_many and any(q.options for q in self.parsed.questions)

    @staticmethod
    def _heading(q: Question, *, current: bool) -> Text:
        # ▸ marks the question the keys go to (Tab moves it)
        return Text(("▸ " if current else "  ") + f"Q{q.number}. " + safe_text(q.text.strip()))

    def _help(self) -> Text:
        """What Enter would submit now, then how to add notes."""
        if not self.has_options:
            return Text("Write the answer in the box; Enter starts a new line, Ctrl+S submits.")
        picks = "  ".join(f"{o.question.number}={o.letter or '-'}" for o in self.query(OptionSet)) if self.is_mounted else ""
        t = Text()
        if picks:
            t.append("choices ")
            t.append(picks, style="bold")
            t.append(" · ")
        t.append("notes (optional) in the box, Ctrl+S submits from there")
        return t

    def _refresh_marks(self) -> None:
        focused = self.focused
        for q in self.parsed.questions if self.has_options else ():
            if q.options:
                self.query_one(f"#qt{q.number}", Static).update(self._heading(q, current=focused is self.query_one(f"#q{q.number}")))
        self.query_one("#answer-help", Static).update(self._help())

    def on_descendant_focus(self) -> None:
        self._refresh_marks()

    def on_mount(self) -> None:
        first = self.query(OptionSet).first() if self.query(OptionSet) else None
        (first or self.query_one("#answer-text", TextArea)).focus()
        self.query_one("#answer-text", TextArea).border_title = "notes (free text)" if self.has_options else "answer"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "submit" and isinstance(self.focused, TextArea):
            # Enter types a newline in the text area (Ctrl+S submits from there)
            return None
        return True

    def result(self) -> AnswerResult:
        choices = {}
        for os_ in self.query(OptionSet):
            if os_.letter:
                choices[os_.question.number] = os_.letter
        return AnswerResult(choices, self.query_one("#answer-text", TextArea).text)

    def action_submit_anywhere(self) -> None:
        self.action_submit()

    def action_submit(self) -> None:
        res = self.result()
        if not res.choices and not res.text.strip():
            self.notify("pick an option or write something (Esc cancels)", severity="warning")
            return
        self.dismiss(res)

    @on(RadioSet.Changed)
    def _changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self._refresh_marks()

    def action_cancel(self) -> None:
        self.dismiss(None)
