"""`a`: answer a UWI inline. Each question's options, the recommended one marked and
preselected; a letter picks an option, ↑/↓ move, Tab goes to the next question, Enter
submits from anywhere but the free-text area (Ctrl+S submits from there too)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import RadioButton, RadioSet, Static, TextArea

from atk_tui.domain.model import Item
from atk_tui.itemfile import sections
from atk_tui.itemfile.questions import (
    OTHER,
    OTHER_LINE,
    ParsedQuestions,
    Question,
    answer_progress,
    typed_choices,
)
from atk_tui.text.linebreak import line_starts
from atk_tui.text.textsafe import safe_line, safe_text
from atk_tui.tui.display.safe import Wrapped, framed
from atk_tui.tui.modals.dialogs import ChoiceScreen, DismissOnce

OTHER_LABEL = OTHER_LINE  # the choice "other — see notes" (SPEC §11): the notes answer the question

#: more questions than this and the form offers the free-text box only (with a message saying
#: so): a widget per option made a 1,000-question UWI take 25 s to open (issue 10)
FORM_MAX_QUESTIONS = 40


@dataclass
class AnswerResult:
    """What the form submits. `choices` maps a question number to a letter or `OTHER`;
    `labels` to the chosen option's label as the user saw it (or `OTHER`), so that a form
    re-opened on a changed question keeps the user's choice by meaning, never by letter."""

    choices: dict[int, str] = field(default_factory=dict)
    text: str = ""
    labels: dict[int, str] = field(default_factory=dict)
    partial: bool = False


def _norm(label: str) -> str:
    return " ".join(label.split()).casefold()


def carry_over(kept: AnswerResult, parsed: ParsedQuestions) -> tuple[dict[int, str | None], list[str]]:
    """The user's kept choices mapped onto (possibly changed) questions by option label:
    number -> letter, `OTHER` or None (nothing preselected), and a line per choice that no
    longer exists."""
    picks: dict[int, str | None] = {}
    lost: list[str] = []
    for q in parsed.questions:
        label = kept.labels.get(q.number)
        if label is None:
            continue
        if label == OTHER:
            picks[q.number] = OTHER
            continue
        opt = next((o for o in q.options if _norm(o.label) == _norm(label)), None)
        picks[q.number] = opt.letter if opt is not None else None
        if opt is None:
            lost.append(f"Q{q.number}: your choice “{safe_line(label)[:60]}” is no longer an option")
    for number, label in kept.labels.items():
        if not any(q.number == number for q in parsed.questions):
            lost.append(f"Q{number} is gone (you had chosen “{safe_line(label)[:60]}”)")
    return picks, lost


class Choice(RadioButton):
    """An option's radio button whose mark has a shape, not only a colour: `●` chosen, blank
    not (NO_COLOR, a monochrome terminal, colour blindness: issue 29)."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  (Textual's name)
        return "●" if self.value else " "

    #: the button and the space after it: a wrapped label's next lines start under its text
    INDENT = 4

    def _label_lines(self, width: int) -> list[Content]:
        """The label wrapped to the button's width by `text.linebreak` (kinsoku, whole tokens):
        an option's implications are what the choice means, never cut off at the edge."""
        room = width - self.INDENT - 1
        label = self._label
        starts = line_starts(label.plain, room) if room > 0 else []
        return [part.rstrip() for part in label.divide(starts)] if starts else [label]

    def render(self) -> Content:
        lines = self._label_lines(self.content_region.width)
        if len(lines) == 1:
            return super().render()
        style = self.get_visual_style("toggle--label")
        first = Content.assemble(self._button, " ", lines[0].stylize_before(style))
        rest = [Content.assemble(" " * self.INDENT, line.stylize_before(style)) for line in lines[1:]]
        return Content("\n").join([first, *rest])

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._label_lines(width))


class OptionSet(RadioSet, inherit_bindings=False):
    """One question's options and "other — see notes". The highlighted row IS the choice
    that will be recorded: a letter, ↑/↓ or a click moves both at once; `o` picks "other";
    Delete/Backspace clears the choice (the question is then unanswered). Enter is left to
    the form (submit)."""

    BINDINGS = [
        Binding("down,right,j", "next_button", "Next option", show=False),
        Binding("up,left,k", "previous_button", "Previous option", show=False),
        Binding("space", "toggle_button", "Pick", show=False),
        Binding("delete,backspace", "clear", "Clear", show=False),
    ]

    def __init__(self, question: Question, *, initial: str | object | None = ..., id: str | None = None) -> None:
        """`initial`: the letter (or `OTHER`) chosen at first, None for none; by default the
        recommendation (none when there is no recommendation)."""
        start = question.recommendation if initial is ... else initial
        buttons = []
        for opt in question.options:
            label = Text()
            label.append(f"{opt.letter}) ", style="bold")
            if question.recommendation == opt.letter:
                label.append("★ ", style="bold green")
            label.append(safe_line(opt.label))
            if opt.implications:
                label.append(f" — {safe_line(opt.implications)}", style="dim")
            buttons.append(Choice(label, value=start == opt.letter, name=opt.letter))
        other = Text()
        other.append(f"{self.other_key(question) or '*'}) ", style="bold")
        other.append(OTHER_LABEL, style="italic")
        buttons.append(Choice(other, value=start == OTHER, name=OTHER))
        super().__init__(*buttons, id=id)
        self.question = question
        self._initial = next((i for i, b in enumerate(buttons) if b.value), None)
        self._settled = False

    @staticmethod
    def other_key(question: Question) -> str | None:
        """`o` picks "other" unless an option is lettered O (then ↑/↓ reach it)."""
        return None if question.option("O") is not None else "o"

    def action_next_button(self) -> None:
        if not self._settled:
            # RadioSet's mount highlights the first option whatever is pressed: the highlight
            # starts on the preselected option instead (none when nothing is preselected)
            self._settled = True
            self._selected = self._initial
            return
        self._step(1)

    def action_previous_button(self) -> None:
        self._step(-1)

    def _step(self, delta: int) -> None:
        count = len(self.children)
        current = self.pressed_index
        if current < 0:
            index = 0 if delta > 0 else count - 1
        else:
            index = max(0, min(count - 1, current + delta))
        if index != current:
            self.pick(index)

    @property
    def letter(self) -> str | None:
        """The recorded choice: a letter, `OTHER`, or None."""
        btn = self.pressed_button
        return btn.name if btn is not None else None

    @property
    def highlighted(self) -> str | None:
        """The name of the highlighted row (what the keys point at), None for none: it must
        always be the recorded choice (`letter`)."""
        return None if self._selected is None else self.query(RadioButton)[self._selected].name

    @property
    def label(self) -> str | None:
        """The chosen option's label (what the user saw), `OTHER`, or None."""
        letter = self.letter
        if letter is None or letter == OTHER:
            return letter
        opt = self.question.option(letter)
        return opt.label if opt is not None else None

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

    def pick_letter(self, letter: str | None) -> None:
        if letter is None:
            self.action_clear()
            return
        for i, btn in enumerate(self.query(RadioButton)):
            if btn.name == letter:
                self.pick(i)
                return

    def action_clear(self) -> None:
        with self.prevent(RadioButton.Changed):
            for btn in self.query(RadioButton):
                btn.value = False
        self._pressed_button = None
        self._selected = None
        self.post_message(self.Cleared(self))

    class Cleared(Message):
        def __init__(self, option_set: OptionSet) -> None:
            super().__init__()
            self.option_set = option_set

    def action_toggle_button(self) -> None:
        if self._selected is not None:
            self.pick(self._selected)

    def on_key(self, event) -> None:
        ch = (event.character or "").upper()
        if len(ch) != 1 or not ch.isalpha():
            return
        if ch == "O" and self.other_key(self.question):
            event.stop()
            self.pick_letter(OTHER)
            return
        if self.question.option(ch) is not None:
            event.stop()
            self.pick_letter(ch)


class AnswerScreen(DismissOnce, ModalScreen[AnswerResult | None]):
    DEFAULT_CSS = """
    AnswerScreen { align: center middle; }
    AnswerScreen > Vertical { width: 100; max-width: 98%; height: auto; max-height: 95%; border: round $accent; background: $surface; padding: 0 1; }
    AnswerScreen VerticalScroll { height: auto; max-height: 1fr; }
    AnswerScreen .q-text { margin-top: 1; text-style: bold; }
    AnswerScreen .q-context { color: $text-muted; margin-top: 1; }
    AnswerScreen OptionSet { width: 100%; border: none; padding: 0; background: $surface; }
    AnswerScreen OptionSet:focus { border: none; background: $boost; }
    /* an option wraps (its implications are what the choice means), it is not cut at the edge */
    AnswerScreen Choice { width: 1fr; height: auto; text-wrap: nowrap; text-overflow: clip; }
    AnswerScreen TextArea { height: 5; margin-top: 1; }
    AnswerScreen #answer-help { color: $text-muted; height: 1; }
    """
    BINDINGS = [
        Binding("enter", "submit", "Submit", show=True),
        # its own action: `submit` (Enter) is disabled in the text area, Ctrl+S never is
        Binding("ctrl+s", "submit_anywhere", "Submit", show=False, priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(
        self,
        item: Item,
        parsed: ParsedQuestions,
        *,
        replacing: bool = False,
        kept: AnswerResult | None = None,
        notice: str | None = None,
        base: bytes | None = None,
    ) -> None:
        """`kept`: the user's earlier choices and text (a form re-opened after the question
        changed or a write failed): choices are matched by option label; `notice` says why."""
        super().__init__()
        self.item = item
        self.parsed = parsed
        self.replacing = replacing
        self.kept = kept
        self.notice = notice
        #: the item's bytes the form was made from: a refreshed queue is checked against them
        self.base = base
        self.changed_meanwhile = False
        self.initial: dict[int, str | None] = {}
        self.lost: list[str] = []
        if kept is not None:
            self.initial, self.lost = carry_over(kept, parsed)

    def compose(self) -> ComposeResult:
        title = ("Re-answer: " if self.replacing else "Answer: ") + safe_line(self.item.title)[:80]
        if self.has_options:
            keys = "★ rec · a-z/↑↓ pick · o other · Tab next · Enter submit · Esc cancel"  # (fits 80 columns)
        else:  # free text only: Enter is a newline there
            keys = "Ctrl+S submit · Esc cancel"
        with framed(title, keys):
            if self.notice or self.lost:
                yield Static(Text("\n".join([self.notice or "", *self.lost]).strip(), style="bold yellow"), id="answer-notice")
            with VerticalScroll():
                if self.parsed.context.strip():
                    ctx = safe_text(self.parsed.context.strip())
                    yield Static(Wrapped(Text(ctx[:600] + ("…" if len(ctx) > 600 else ""))), classes="q-context")
                if self.too_many:
                    yield Static(Wrapped(self._too_many_text()), classes="q-text", id="too-many")
                for q in self.parsed.questions if not self.too_many else ():
                    yield Static(Wrapped(self._heading(q, current=False)), classes="q-text", id=f"qt{q.number}")
                    if q.options:
                        if q.number in self.initial:
                            yield OptionSet(q, initial=self.initial[q.number], id=f"q{q.number}")
                        else:
                            yield OptionSet(q, id=f"q{q.number}")
                yield TextArea(self.kept.text if self.kept else "", id="answer-text", soft_wrap=True)
            yield Static(self._help(), id="answer-help")

    @property
    def too_many(self) -> bool:
        return len(self.parsed.questions) > FORM_MAX_QUESTIONS

    def _too_many_text(self) -> Text:
        n = len(self.parsed.questions)
        return Text(
            f"This item asks {n:,} questions: more than the form shows ({FORM_MAX_QUESTIONS}). "
            "Write your answers in the box below, one line per question: \"Q1: A\" (or \"Q2: other\" and "
            "your words after); "
            "every question and its options are in the item's body (`atk wi show`). Ctrl+S submits."
        )

    @property
    def has_options(self) -> bool:
        return not self.too_many and any(q.options for q in self.parsed.questions)

    @staticmethod
    def _heading(q: Question, *, current: bool) -> Text:
        # ▸ marks the question the keys go to (Tab moves it); a question's text is shown as
        # written: its line breaks are line breaks, control characters escaped
        text = q.text.strip()
        # a question written "Q1. Which…" keeps its own number: not "Q1. Q1. Which…"
        own = re.match(rf"Q{q.number}\s*[.:．：)]\s*", text, re.IGNORECASE)
        return Text(("▸ " if current else "  ") + f"Q{q.number}. " + safe_text(text[own.end():] if own else text))

    def _help(self) -> Text:
        """What Enter would submit now — exactly what the highlights show — then the notes."""
        if not self.has_options:
            return Text("Write the answer in the box; Enter starts a new line, Ctrl+S submits.")
        picks = "  ".join(f"{o.question.number}={o.letter or '-'}" for o in self.query(OptionSet)) if self.is_mounted else ""
        t = Text()
        if picks:
            t.append("choices ")
            t.append(picks, style="bold")
            t.append(" · ")
        t.append("Del clears one · notes (optional) in the box, Ctrl+S submits there")
        return t

    def _refresh_marks(self) -> None:
        focused = self.focused
        for q in self.parsed.questions if self.has_options else ():
            if q.options:
                self.query_one(f"#qt{q.number}", Static).update(Wrapped(self._heading(q, current=focused is self.query_one(f"#q{q.number}"))))
        self.query_one("#answer-help", Static).update(self._help())

    def on_descendant_focus(self) -> None:
        self._refresh_marks()

    def on_mount(self) -> None:
        if self.base is not None:
            self.app.queue_signal.subscribe(self, self._queue_refreshed)
        first = self.query(OptionSet).first() if self.query(OptionSet) else None
        (first or self.query_one("#answer-text", TextArea)).focus()
        self.query_one("#answer-text", TextArea).border_title = "notes (free text)" if self.has_options else "answer"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "submit" and isinstance(self.focused, TextArea):
            # Enter types a newline in the text area (Ctrl+S submits from there)
            return None
        return True

    def result(self, *, partial: bool = False) -> AnswerResult:
        choices: dict[int, str] = {}
        labels: dict[int, str] = {}
        for os_ in self.query(OptionSet):
            if os_.letter:
                choices[os_.question.number] = os_.letter
                labels[os_.question.number] = os_.label or os_.letter
        text = self.query_one("#answer-text", TextArea).text
        if self.too_many:  # no option rows: "Q1: A" lines of the box are the choices
            choices, text = typed_choices(text, self.parsed)
            for number, letter in choices.items():
                q = next(q for q in self.parsed.questions if q.number == number)
                opt = q.option(letter) if letter != OTHER else None
                labels[number] = opt.label if opt is not None else OTHER
        return AnswerResult(choices, text, labels, partial)

    def missing(self, res: AnswerResult) -> list[int]:
        """Questions the submit would leave without an answer, by the service's own rule
        (`questions.answer_progress` on the body as it would be saved)."""
        labels: dict[int, str] = {}
        for number, choice in res.choices.items():
            q = next((q for q in self.parsed.questions if q.number == number), None)
            opt = q.option(choice) if q is not None and choice != OTHER else None
            labels[number] = opt.display if opt is not None else OTHER_LINE
        body = sections.set_answer(self.item.body, sections.format_answer(labels, res.text))
        return list(answer_progress(body, self.parsed).missing)

    def action_submit_anywhere(self) -> None:
        self.action_submit()

    def action_submit(self) -> None:
        if self._dismissed:
            return
        # the result is taken now: keys arriving after Enter (a paste) cannot change it
        res = self.result()
        if not res.choices and not res.text.strip():
            self.notify("pick an option or write something (Esc cancels)", severity="warning")
            return
        missing = self.missing(res)
        if missing:
            self._confirm_partial(res, missing)
            return
        self.dismiss(res)

    @work(group="write")  # "write": test helpers know a worker parked on a dialog
    async def _confirm_partial(self, res: AnswerResult, missing: list[int]) -> None:
        names = ", ".join(f"Q{n}" for n in missing)
        verb = "has" if len(missing) == 1 else "have"
        ok = await self.app.push_screen_wait(
            ChoiceScreen(
                "Partial answer?",
                Text(f"{names} {verb} no answer — submit as partial?\n\nA partial answer still needs you and still blocks what depends on it."),
                [("yes", "y", "Submit as partial"), ("no", "n", "Keep answering")],
            )
        )
        if ok == "yes":
            res.partial = True
            self.dismiss(res)

    def _queue_refreshed(self, _view: object) -> None:
        if not self.changed_meanwhile:
            self._check_changed()

    @work(thread=True, exclusive=True, group="answer-check", exit_on_error=False)
    def _check_changed(self) -> None:
        """The store was refreshed (a pull brought another clone's push, an edit): whether this
        question's file is still the one the form shows."""
        try:
            now = self.app.service.read_bytes(self.item.filename)
        except Exception:
            now = None
        if now != self.base:
            self.app.call_from_thread(self._say_changed, now is None)

    def _say_changed(self, gone: bool) -> None:
        if self.changed_meanwhile or self._dismissed:
            return
        self.changed_meanwhile = True
        text = (
            "⚠ This question was moved or removed while the form was open (another clone, or an edit). "
            if gone
            else "⚠ This question changed while the form was open (pushed from another clone, or edited): "
            "what you see may not be what it asks now. "
        ) + "A submit is checked against the current version and refused if it differs; nothing is lost."
        found = self.query("#answer-notice")
        if found:  # beside what the form already says (a write refused a moment ago), never over it
            before = "\n".join([self.notice or "", *self.lost]).strip()
            found.first(Static).update(Text(f"{before}\n{text}".strip(), style="bold yellow"))
        else:
            self.query_one(VerticalScroll).mount(Static(Text(text, style="bold yellow"), id="answer-notice"), before=0)

    @on(RadioSet.Changed)
    def _changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self._refresh_marks()

    @on(OptionSet.Cleared)
    def _cleared(self, event: OptionSet.Cleared) -> None:
        event.stop()
        self._refresh_marks()

    def action_cancel(self) -> None:
        self.dismiss(None)
