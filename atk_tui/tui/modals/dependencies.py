"""`d`: edit an item's `depends_on` (SPEC §5 set-dependencies, §10).

The current set is a list (Delete or `x` removes the highlighted one); a search box finds any
item, active or done, by title or filename (fuzzy, as the dashboard filter), and Enter adds
the highlighted result. What `set-dependencies` would refuse is shown live, before saving: a
name that is no item, the item itself, and a cycle, with its path (`a.md -> b.md -> a.md`).
Save (Ctrl+S) is refused while any of them is in the set, so nothing is written; the screen
returns the new list and the caller writes it through `svc.writes.set_dependencies` in a thread
(which checks everything again inside the store lock).

Results and the current set show item text as `rich.text.Text` — never markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from atk_tui.domain.model import TERMINAL, Item, deps_of, is_valid_filename
from atk_tui.domain.ops import Refusal
from atk_tui.service import QueueView
from atk_tui.text.textsafe import safe_line
from atk_tui.tui.display.present import STATUS_GLYPH, fuzzy_match, status_style
from atk_tui.tui.display.safe import framed
from atk_tui.tui.modals.dialogs import DIALOG_CSS

MAX_RESULTS = 50
SEARCH_AT_ONCE = 5_000  # up to this many names the results follow every keystroke


@dataclass(frozen=True, slots=True)
class Candidate:
    name: str
    title: str
    state: str
    status: str  # judgement status, `terminal` for done items
    hay: str  # what the search matches against, casefolded


def candidates(view: QueueView) -> list[Candidate]:
    """Every item a dependency may name: active ones with their titles, done ones by filename."""
    out: list[Candidate] = []
    for name, item in view.items.items():
        j = view.judgements.get(name)
        title = safe_line(item.title or name)
        out.append(Candidate(name, title, item.state, j.status if j else "blocked", f"{title} {name}".casefold()))
    for name, state in view.snapshot.states.items():
        if name not in view.items and state in TERMINAL:
            out.append(Candidate(name, name, state, "terminal", name.casefold()))
    out.sort(key=lambda c: (c.state in TERMINAL, c.name))
    return out


def search(pool: list[Candidate], query: str, limit: int = MAX_RESULTS) -> list[Candidate]:
    """Matches for `query`: a title or filename starting with it, then containing it, then
    fuzzy matches (each word in order inside a word, as the dashboard filter); active items
    before done ones. Fuzzy matching only runs while plain matches leave room (it is the slow
    part on a store of tens of thousands of names)."""
    needle = query.strip().casefold()
    if not needle:
        return []
    plain: list[tuple[int, bool, str, Candidate]] = []
    rest: list[Candidate] = []
    for c in pool:
        if needle in c.hay:
            starts = c.name.casefold().startswith(needle) or c.title.casefold().startswith(needle)
            plain.append((0 if starts else 1, c.state in TERMINAL, c.name, c))
        else:
            rest.append(c)
    plain.sort(key=lambda s: s[:3])
    found = [s[3] for s in plain[:limit]]
    if len(found) < limit:
        for c in rest:  # already in (active first, name) order
            if fuzzy_match(needle, c.hay):
                found.append(c)
                if len(found) >= limit:
                    break
    return found


_GLYPH = STATUS_GLYPH


def _status_text(status: str, state: str) -> Text:
    if status == "terminal":
        return Text(f"{_GLYPH['terminal']} {state:<10}", style=status_style("terminal"))
    return Text(f"{_GLYPH.get(status, '·')} {status:<10}", style=status_style(status))


class DependenciesScreen(ModalScreen[list[str] | None]):
    """Edit one item's dependencies; returns the new list, or None when cancelled."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="DependenciesScreen")
        + """
    DependenciesScreen > Vertical { width: 100; }
    DependenciesScreen .deps-label { margin-top: 1; text-style: bold; color: $text-muted; }
    DependenciesScreen #deps-current { height: auto; max-height: 8; min-height: 1; }
    DependenciesScreen #deps-results { height: auto; max-height: 10; min-height: 1; }
    DependenciesScreen #deps-verdict { margin-top: 1; height: auto; }
    DependenciesScreen #deps-verdict.refused { color: $text-error; }
    DependenciesScreen #deps-verdict.ok { color: $text-success; }
    DependenciesScreen .dialog-buttons { margin-top: 1; }
    """
    )

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True, id="deps.save"),
        Binding("escape", "cancel", "Cancel", id="deps.cancel"),
        Binding("delete,x", "remove", "Remove", id="deps.remove"),
    ]

    def __init__(self, item: Item, view: QueueView) -> None:
        super().__init__()
        self.item = item
        self.view = view
        self.rules = view.dependency_rules(item.filename)
        self.original = deps_of(item.depends_on)
        self.deps: list[str] = list(self.original)
        self.pool = candidates(view)
        self._by_name = {c.name: c for c in self.pool}
        self.refused: list[Refusal] = []
        self._search_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with framed(f"Dependencies of {safe_line(self.item.title)[:60]}", "Enter add · Delete/x remove · Ctrl+S save · Esc cancel"):
            yield Static(Text(safe_line(self.item.filename), style="dim"), classes="dialog-message")
            yield Static("", id="deps-current-label", classes="deps-label")
            yield OptionList(id="deps-current")
            yield Static(Text("Add: search by title or filename (active and done items)"), classes="deps-label")
            yield Input(placeholder="type to search…", id="deps-search")
            yield OptionList(id="deps-results")
            yield Static("", id="deps-verdict")
            with Horizontal(classes="dialog-buttons"):
                yield Button(Text("Save [^S]"), id="deps-save", variant="primary")
                yield Button(Text("Cancel [Esc]"), id="deps-cancel")

    def on_mount(self) -> None:
        self._show_current()
        self._show_results("")
        self.query_one("#deps-search", Input).focus()

    # -- the current set ------------------------------------------------------------------

    def _dep_prompt(self, name: str, refusal: Refusal | None) -> Text:
        c = self._by_name.get(name)
        if c is None:
            t = Text(f"{_GLYPH['missing']} missing    ", style=status_style("blocked"))
            t.append(safe_line(name))
        else:
            t = _status_text(c.status, c.state)
            t.append(" ")
            t.append(c.title)
            if c.title != c.name:
                t.append(f"  {safe_line(c.name)}", style="dim")
        if refusal is not None:
            t.append(f"  ✗ {refusal.code}", style="bold red")
        return t

    def _show_current(self, highlight: int | None = None) -> None:
        self.refused = self.rules.refusals(self.deps)
        by_dep = {r.filename: r for r in self.refused}
        lst = self.query_one("#deps-current", OptionList)
        keep = lst.highlighted if highlight is None else highlight
        lst.clear_options()
        if self.deps:
            lst.add_options([Option(self._dep_prompt(d, by_dep.get(d)), id=d) for d in self.deps])
            lst.highlighted = min(keep or 0, len(self.deps) - 1)
        else:
            lst.add_option(Option(Text("none: this item depends on nothing", style="dim italic"), disabled=True))
        label = Text(f"Depends on ({len(self.deps)})")
        if self.deps != self.original:
            label.append(f"  was {len(self.original)}", style="italic")
        self.query_one("#deps-current-label", Static).update(label)
        self._show_verdict()

    def _show_verdict(self) -> None:
        verdict = self.query_one("#deps-verdict", Static)
        verdict.set_class(bool(self.refused), "refused")
        verdict.set_class(not self.refused and self.deps != self.original, "ok")
        if self.refused:
            t = Text("✗ Save refused, nothing is written:\n", style="bold")
            for r in self.refused:
                t.append(f" • {safe_line(r.message)}\n")
            t.rstrip()
        elif self.deps != self.original:
            t = Text(f"✓ ready to save: {len(self.deps)} dependenc{'y' if len(self.deps) == 1 else 'ies'}")
        else:
            t = Text("no change yet", style="dim")
        verdict.update(t)
        self.query_one("#deps-save", Button).disabled = bool(self.refused)

    def add(self, name: str) -> None:
        if name in self.deps:
            self.notify(f"{name} is in the list already", severity="warning", markup=False, timeout=2)
            return
        self.deps.append(name)
        self._show_current(highlight=len(self.deps) - 1)
        self._show_results(self.query_one("#deps-search", Input).value)

    def action_remove(self) -> None:
        lst = self.query_one("#deps-current", OptionList)
        index = lst.highlighted
        if not self.deps or index is None or not 0 <= index < len(self.deps):
            return
        del self.deps[index]
        self._show_current(highlight=index)
        self._show_results(self.query_one("#deps-search", Input).value)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "remove":
            # `x` and Delete belong to the search box while it has the focus
            return isinstance(self.focused, OptionList) and self.focused.id == "deps-current"
        return True

    # -- search -------------------------------------------------------------------------

    def _show_results(self, query: str) -> None:
        found = search(self.pool, query)
        lst = self.query_one("#deps-results", OptionList)
        lst.clear_options()
        # nothing typed: no results box at all (an empty one looked like a second search box)
        lst.display = bool(query.strip())
        if not query.strip():
            return
        if not found:
            lst.border_title = "Matches: none"
            hint = f"no item matches {safe_line(query.strip())[:40]!r}"
            if is_valid_filename(query.strip()):
                hint += ": Enter adds the name as typed"
            lst.add_option(Option(Text(hint, style="dim italic"), disabled=True))
            return
        lst.border_title = f"Matches: {len(found)} (↓ to choose, Enter adds)"
        options = []
        for c in found:
            t = _status_text(c.status, c.state)
            t.append(" ")
            t.append(c.title)
            if c.title != c.name:
                t.append(f"  {safe_line(c.name)}", style="dim")
            if c.name in self.deps:
                t.append("  (added)", style="dim italic")
            elif c.name == self.item.filename:
                t.append("  this item", style="red")
            elif c.name in self.rules.dependents:
                t.append("  would make a cycle", style="red")
            options.append(Option(t, id=c.name))
        lst.add_options(options)
        lst.highlighted = 0

    @on(Input.Changed, "#deps-search")
    def _search_changed(self, event: Input.Changed) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
        if len(self.pool) <= SEARCH_AT_ONCE:
            self._show_results(event.value)
        else:  # a big store: search once typing pauses
            value = event.value
            self._search_timer = self.set_timer(0.1, lambda: self._show_results(value))

    @on(Input.Submitted, "#deps-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        if self._search_timer is not None:  # Enter before the debounced search ran
            self._search_timer.stop()
            self._search_timer = None
            self._show_results(event.value)
        lst = self.query_one("#deps-results", OptionList)
        index = lst.highlighted
        if index is not None and lst.option_count and not lst.get_option_at_index(index).disabled:
            option_id = lst.get_option_at_index(index).id
            if option_id is not None:
                self.add(option_id)
                return
        typed = event.value.strip()
        if is_valid_filename(typed):
            self.add(typed)  # shown as missing: save stays refused until it is removed

    def on_key(self, event) -> None:
        # from the search box, Down goes on into the results
        if event.key == "down" and isinstance(self.focused, Input):
            lst = self.query_one("#deps-results", OptionList)
            if lst.option_count and not lst.get_option_at_index(0).disabled:
                event.stop()
                lst.focus()

    @on(OptionList.OptionSelected, "#deps-results")
    def _result_chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.add(event.option.id)
            self.query_one("#deps-search", Input).focus()

    # -- save / cancel ------------------------------------------------------------------

    @on(Button.Pressed, "#deps-save")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#deps-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def action_save(self) -> None:
        if self.refused:
            self.notify("not saved: " + "; ".join(r.message for r in self.refused), severity="error", markup=False)
            return
        if self.deps == self.original:
            self.notify("dependencies unchanged", timeout=2)
            self.dismiss(None)
            return
        self.dismiss(list(self.deps))

    def action_cancel(self) -> None:
        self.dismiss(None)


def refusal_messages(filename: str, view: QueueView, deps: list[str]) -> list[str]:
    """What saving `deps` for `filename` would be refused for (empty: it may be saved)."""
    return [r.message for r in view.dependency_rules(filename).refusals(deps)]


__all__ = ["DependenciesScreen", "candidates", "refusal_messages", "search"]
