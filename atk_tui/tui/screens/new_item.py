"""`+`: create an AWI or a UWI from the board (Backlog.md style): kind, target repo and the
body from a template; Ctrl+S saves it to inbox (one commit), Esc cancels."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Label, Select, TextArea

from atk_tui.domain.model import AWI_BULLETS
from atk_tui.tui.display.safe import framed
from atk_tui.tui.modals.dialogs import KeepsTypedText

# The templates are the item's shape, with nothing to delete (issue 43: the filler text had to be
# deleted, and the AWI one failed the dashboard's own lint, missing 適用範囲): the title line
# and each bullet wi-standards asks for, empty; `FIELD_HINTS` says under the form what goes where.
AWI_TEMPLATE = "# \n\n" + "".join(f"- {bullet}: \n" for bullet in AWI_BULLETS)

UWI_TEMPLATE = "# \n\n## 背景\n\n\n## 質問\n\n\n- A) \n- B) \n\n推奨: \n"

FIELD_HINTS = {
    "awi": "# the title · 反映内容 what to change · 反映先 where · 理由 why · 適用範囲 scope · "
    "メリット / デメリット for and against · 完成条件 how to tell it is done",
    "uwi": "# the question in one line · 背景 what the agent found · 質問 what to decide · "
    "A) B) the options · 推奨 the one you recommend",
}

TEMPLATES = {"awi": AWI_TEMPLATE, "uwi": UWI_TEMPLATE}


class NewItemScreen(KeepsTypedText[dict | None]):
    """Returns {"kind", "target_repo", "body"}, or None when cancelled."""

    BINDINGS = [
        Binding("ctrl+s", "submit", "Save", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    DEFAULT_CSS = """
    NewItemScreen { align: center middle; }
    NewItemScreen > Vertical { width: 100; max-width: 95%; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    NewItemScreen Horizontal { height: auto; }
    NewItemScreen Select { width: 16; }
    NewItemScreen #repo { width: 1fr; }
    NewItemScreen TextArea { height: 1fr; }
    NewItemScreen #hints { color: $text-muted; height: auto; width: 1fr; }
    """

    def __init__(self, repo: str = "") -> None:
        super().__init__()
        self.repo = repo

    def compose(self) -> ComposeResult:
        with framed("New item (to inbox)", "Ctrl+S save · Esc cancel"):
            with Horizontal():
                kind = Select([("AWI", "awi"), ("UWI", "uwi")], value="awi", allow_blank=False, id="kind")
                kind.border_title = "kind"
                yield kind
                repo = Input(self.repo, placeholder="owner/name", id="repo")
                repo.border_title = "target repo"  # a label, not only a placeholder that typing hides
                yield repo
            yield Label("body (the first # heading is the title)")
            yield TextArea(AWI_TEMPLATE, id="body", soft_wrap=True, tab_behavior="indent")
            yield Label(FIELD_HINTS["awi"], id="hints")

    def on_mount(self) -> None:
        self.query_one("#body", TextArea).cursor_location = (0, 2)  # after "# ": the title comes first
        self.query_one("#repo", Input).focus()

    @on(Select.Changed, "#kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        body = self.query_one("#body", TextArea)
        if body.text in TEMPLATES.values():  # only an untouched template follows the kind
            body.text = TEMPLATES[str(event.value)]
        self.query_one("#hints", Label).update(FIELD_HINTS[str(event.value)])

    def action_submit(self) -> None:
        repo = self.query_one("#repo", Input).value.strip()
        if not repo:
            self.notify("a target repo is needed (owner/name)", severity="warning")
            self.query_one("#repo", Input).focus()
            return
        body = self.query_one("#body", TextArea).text
        problem = template_problem(body)
        if problem:
            self.notify(problem, severity="warning")
            self.query_one("#body", TextArea).focus()
            return
        self.dismiss({"kind": str(self.query_one("#kind", Select).value), "target_repo": repo, "body": body})

    def typed_changed(self) -> bool:
        return self.query_one("#body", TextArea).text not in TEMPLATES.values() or bool(
            self.query_one("#repo", Input).value.strip() and self.query_one("#repo", Input).value != self.repo
        )


def template_problem(body: str) -> str | None:
    """Why a new item's body cannot be saved yet: the untouched template, or no title of its
    own (no `# ` heading, or the template's placeholder heading)."""
    if body.strip() in {t.strip() for t in TEMPLATES.values()}:
        return "the template is unchanged: write the item first (its title on the `# ` line), or Esc to cancel"
    first = next((ln for ln in body.splitlines() if ln.startswith("# ")), None)
    if first is None or not first[2:].strip():
        return "the item needs a title: write it on the `# ` line at the top"
    return None
