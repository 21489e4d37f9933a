"""The detail pane: metadata, blocked reasons, dependencies, questions, then the body.

The pane's geometry is constant: a box of a fixed size in the screen (`height: 1fr` in the body,
`width: 2fr`), whose scrollbar's column is always kept (`scrollbar-gutter: stable`: the text never
re-wraps when a long item needs the scrollbar). Showing an item changes what is inside the box,
never the box: Textual re-arranges the pane's children only (its arrangement cache is cleared up
to the first ancestor of a fixed size), and only once the cursor rests, never per key.

The item shows once the cursor rests (`tui/screens/detail_follow.py`), with its body's Markdown rendered in
a thread (`prepare_body`: Rich renders it to lines at the pane's width), so neither a held key
nor a long body waits on it; without a rendering (`body`), the body shows as plain text.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static, Tree

from atk_tui.domain.ages import dated, stamp, time_left
from atk_tui.domain.fields import FIELDS, TIMES
from atk_tui.domain.model import RESERVED_KEYS, Item
from atk_tui.domain.readiness import Judgement
from atk_tui.host.config import PLAN_PREFIX
from atk_tui.itemfile.sections import answer_text
from atk_tui.service.core.holds import Holder
from atk_tui.text.textsafe import safe_line, safe_markdown, safe_text
from atk_tui.tui.display import present
from atk_tui.tui.display.present import badge, status_style
from atk_tui.tui.display.safe import MiddleCut, Wrapped, safe

if TYPE_CHECKING:  # itemfile.questions is imported where an item's questions are first read
    from atk_tui.itemfile.questions import ParsedQuestions

PREVIEW_LINES = 60
ONE_LINE_FIELDS = frozenset({"file", "repo", "plan", "target"})  # cut in the middle, never wrapped


def history_subject(subject: str, filename: str) -> str:
    """A commit subject in an item's own history: the item's filename left out (the pane is
    that item's, under its title: `atk: adopt 20261202-111857-upstream-timeout-default.md`
    reads `atk: adopt`); any other item it names stays as git has it."""
    if filename and filename in subject:
        subject = " ".join(subject.replace(filename, " ").split())
    return subject


def plan_shown(value: str) -> str:
    """A `plan_file` value as a person reads it: the plan's path inside the store
    (`plans/2026/12/x.md`), not the shell command substitution the agent skills write
    (`$(atk config get private_notes)/...`, which read like a command left unexpanded)."""
    value = value.strip()
    if value.startswith(PLAN_PREFIX):
        return value[len(PLAN_PREFIX) :].lstrip("/") or value
    return value
DETAIL_MAX_QUESTIONS = 100  # questions listed with their options; the rest are counted
MARKDOWN_MAX_LINES = 1500  # longer bodies stay as plain text: rendering them costs seconds


class DepTree(Tree[str]):
    """"Depends on" / "Blocks" as a small tree; Enter jumps to the item."""

    DEFAULT_CSS = """
    DepTree { height: auto; max-height: 10; background: $surface; padding: 0 1; scrollbar-size-horizontal: 0; }
    """

    BINDINGS = [
        # back to the panes (the screen's action; a screen without it ignores the key)
        Binding("left,h", "screen.focus_panes", "Back to the panes", show=False),
    ]

    class JumpRequested(Message):
        def __init__(self, filename: str) -> None:
            super().__init__()
            self.filename = filename

    def on_focus(self) -> None:
        # entering the tree lands on its first item, so Enter jumps at once
        if self.cursor_line < 0 and self.last_line >= 0:
            self.cursor_line = 0

    def on_blur(self) -> None:
        # forget the line on leaving: `Tree.clear` keeps it, so a tree refilled for another item
        # was entered on the old line (its second item, or one Down away from "Blocks")
        self.set_reactive(Tree.cursor_line, -1)
        self.refresh()

    def action_cursor_down(self) -> None:
        # past the last "depends on" node, on into the "blocks" tree
        if self.id == "deps-tree" and self.cursor_line >= self.last_line:
            self.screen.focus_next(DepTree)
            return
        super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if self.id == "blocks-tree" and self.cursor_line <= 0:
            previous = self.screen.focus_previous(DepTree)
            if isinstance(previous, DepTree):  # back onto its last line, where Down left it
                previous.cursor_line = previous.last_line
            return
        super().action_cursor_up()

    def on_tree_node_selected(self, event: Tree.NodeSelected[str]) -> None:
        event.stop()
        if event.node.data:
            self.post_message(self.JumpRequested(event.node.data))


class PreRendered:
    """A Rich renderable rendered ahead (in a thread) to lines at `width`: drawing it at that
    width yields the lines, at any other width (a resize) it renders the original again."""

    def __init__(self, renderable: RenderableType, width: int, lines: list[list[Segment]]) -> None:
        self.renderable = renderable
        self.width = width
        self.lines = lines

    @classmethod
    def ahead(cls, renderable: RenderableType, console: Console, options: ConsoleOptions) -> PreRendered:
        """`renderable` rendered now with `options` (at their width)."""
        return cls(renderable, options.max_width, console.render_lines(renderable, options, pad=False, new_lines=False))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width != self.width:
            yield self.renderable
            return
        new_line = Segment.line()
        for line in self.lines:
            yield from line
            yield new_line


def markdown_body(item: Item) -> RenderableType | None:
    """The body as a Rich `Markdown` renderable, or None (not loaded, defective, or so long that
    rendering it would cost seconds: it stays plain text).

    A Rich `Markdown`, not Textual's `Markdown` widget: that one mounts a widget per block, which
    took hundreds of milliseconds per item and held up the keys pressed meanwhile. Links are not
    made clickable (`hyperlinks=False`), and the text was made safe first (`safe_markdown`)."""
    if not item.complete or item.defects:
        return None
    body = safe_markdown(item.body)
    if body.count("\n") > MARKDOWN_MAX_LINES:
        return None
    return _markdown_class()(literal_checkpoints(body), hyperlinks=False, code_theme="ansi_dark")


@lru_cache(1)
def _markdown_class() -> type:
    """Rich's `Markdown` whose paragraphs wrap as `Wrapped` does (kinsoku, whole tokens)."""
    from rich.markdown import Markdown, Paragraph  # markdown-it: imported on first use, not at start-up

    class BreakingParagraph(Paragraph):
        def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
            self.text.justify = self.justify
            yield Wrapped(self.text)

    class BodyMarkdown(Markdown):
        elements = {**Markdown.elements, "paragraph_open": BreakingParagraph}

    return BodyMarkdown


def prepare_body(item: Item, console: Console, options: ConsoleOptions | None) -> RenderableType | None:
    """`markdown_body`, rendered to lines with `options` (the pane's width: `body_options`).
    Thread-safe: called from a worker thread, off the key path."""
    md = markdown_body(item)
    if md is None or options is None:
        return md
    return PreRendered.ahead(md, console, options)


class DetailPane(VerticalScroll):
    DEFAULT_CSS = """
    DetailPane {
        height: 1fr; padding: 0 1; background: $surface;
        scrollbar-size-vertical: 1; scrollbar-gutter: stable; overflow-x: hidden;
    }
    DetailPane > #detail-meta { margin-bottom: 1; }
    DetailPane > #detail-reasons { margin-bottom: 1; color: $text; }
    DetailPane > #detail-questions { margin-bottom: 1; }
    DetailPane > .dep-title { text-style: bold; color: $text-muted; }
    DetailPane > #blocks-tree { margin-bottom: 1; }
    DetailPane > #detail-preview { color: $text; }
    """

    # as a pager (less, vim): j/k scroll the focused pane, like the arrows it already takes
    BINDINGS = [Binding("j", "scroll_down", show=False), Binding("k", "scroll_up", show=False)]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.item: Item | None = None
        self._parsed: tuple[tuple[str, str], ParsedQuestions] | None = None
        #: the last rendered body: (filename, body text), the rendering
        self._body: tuple[tuple[str, str], RenderableType] | None = None
        self._made = False  # the sections under the metadata (`_sections`)
        self.border_title = "Detail"

    def compose(self) -> ComposeResult:
        # what the first frame shows: the item's sections are made with the first item (`_sections`)
        yield Static(Text("Select an item to see it here.", style="dim"), id="detail-meta")

    def _sections(self) -> None:
        """The sections under the metadata, made (hidden) the first time they are needed: the
        dashboard's first frame shows no item, and the trees and the sections it would have
        composed, styled and laid out hidden cost a tenth of that frame."""
        if self._made:
            return
        self._made = True
        trees = DepTree("depends on", id="deps-tree"), DepTree("blocks", id="blocks-tree")
        for tree in trees:
            tree.show_root = False
            tree.guide_depth = 2
        sections = (
            Static("", id="detail-reasons"),
            Static("", id="detail-questions"),
            Static(Text("Depends on", style="bold"), classes="dep-title", id="deps-title"),
            trees[0],
            Static(Text("Blocks", style="bold"), classes="dep-title", id="blocks-title"),
            trees[1],
            Static("", id="detail-preview"),
        )
        for section in sections:
            section.display = False  # as `clear` leaves them
        self.mount(*sections)

    def deps_tree(self) -> DepTree:
        """The "depends on" tree (where `l` / → goes from a list)."""
        self._sections()
        return self.query_one("#deps-tree", DepTree)

    def _show_deps(self, visible: bool) -> None:
        for wid in ("deps-title", "deps-tree", "blocks-title", "blocks-tree"):
            self.query_one(f"#{wid}").display = visible

    def clear(self, message: str = "Select an item to see it here.") -> None:
        self.item = None
        self.query_one("#detail-meta", Static).update(Text(message, style="dim"))
        if not self._made:
            return  # nothing shown yet: the sections do not exist
        for wid in ("detail-reasons", "detail-questions", "detail-preview"):
            self._set_text(wid, Text())
        self._show_deps(False)

    def show(
        self,
        item: Item,
        judgement: Judgement | None,
        *,
        now: datetime,
        items: dict[str, Item],
        states: dict[str, str],
        judgements: dict[str, Judgement],
        dependents: list[str],
        blocks: tuple[int, int] | None,
        history: list | None = None,
        body: RenderableType | None = None,
        holder: Holder | None = None,
    ) -> None:
        """Show the item: its body as `body` (from `prepare_body`), else as the Markdown
        rendered for it last, else as plain text (its Markdown follows: `set_body`)."""
        self.item = item
        self._sections()
        meta = self._meta(item, judgement, now, blocks, history, holder)
        self.query_one("#detail-meta", Static).update(self._ahead(meta))
        self._set_text("detail-reasons", self._reasons(item, judgement))
        self._show_deps(True)  # before filling the trees: a hidden tree does not count its lines
        self._fill_tree("deps-tree", item.depends_on, items, states, judgements, now)
        self._fill_tree("blocks-tree", dependents, items, states, judgements, now)
        self.query_one("#deps-title", Static).update(Text(f"Depends on ({len(item.depends_on)})", style="bold"))
        self.query_one("#blocks-title", Static).update(Text(f"Blocks ({len(dependents)})", style="bold"))
        self._set_text("detail-questions", self._ahead(self._questions(item)) if item.complete else None)
        rendered = body if body is not None else self.rendered_body(item)
        if rendered is None or not self.set_body(item, rendered):
            if item.complete:
                lines = safe_text(item.body).splitlines()
                preview = "\n".join(lines[:PREVIEW_LINES])
                if len(lines) > PREVIEW_LINES:
                    preview += f"\n… {len(lines) - PREVIEW_LINES} more lines"
                self._set_text("detail-preview", Wrapped(Text(preview)))
            else:
                self._set_text("detail-preview", Text("loading…", style="dim"))
        self.scroll_home(animate=False)

    def rendered_body(self, item: Item) -> RenderableType | None:
        """The body rendered for `item` last, if its text is the same and the pane's width too
        (a resized pane has it rendered again, off the UI thread)."""
        if not item.complete or self._body is None or self._body[0] != (item.filename, item.body):
            return None
        rendered = self._body[1]
        options = self.body_options()
        if isinstance(rendered, PreRendered) and options is not None and rendered.width != options.max_width:
            return None
        return rendered

    def set_body(self, item: Item, body: RenderableType) -> bool:
        """Swap the rendered body in, if `item` is still the one shown."""
        if self.item is None or self.item.filename != item.filename or not item.complete:
            return False
        self._body = ((item.filename, item.body), body)
        self._set_text("detail-preview", body)
        return True

    def body_options(self) -> ConsoleOptions | None:
        """How the body is rendered: at the preview's width (as `Static` renders it), or None
        while the pane takes no room (a narrow terminal's lists in its place)."""
        preview = self.query_one("#detail-preview", Static).size.width if self._made else 0
        width = preview or self.scrollable_content_region.width
        if width <= 0:
            return None
        return self.app.console_options.update(highlight=False, width=width, height=None).update_width(width)

    async def render_body(self, item: Item) -> None:
        """Replace the plain preview by the rendered Markdown (when the body is not huge)."""
        body = markdown_body(item)
        if body is not None:
            self.set_body(item, body)

    # -- pieces ------------------------------------------------------------------------

    def _ahead(self, content: RenderableType | None) -> RenderableType | None:
        """A grid or a group rendered once, now, at the pane's width: Textual renders a section
        twice per layout (its height, then its lines), and a shown item takes two layouts."""
        options = self.body_options()
        if content is None or isinstance(content, (str, Text)) or options is None:
            return content
        return PreRendered.ahead(content, self.app.console, options)

    def _set_text(self, wid: str, content: RenderableType | None) -> None:
        """Fill a section; an empty one takes no room (no blank lines between sections)."""
        if isinstance(content, Text):
            content.rstrip()
            if not content.plain:
                content = None
        static = self.query_one(f"#{wid}", Static)
        static.update(content if content is not None else "")
        static.display = content is not None

    def _meta(
        self,
        item: Item,
        j: Judgement | None,
        now: datetime,
        blocks: tuple[int, int] | None,
        history: list | None,
        holder: Holder | None = None,
    ) -> RenderableType:
        t = Text()
        t.append(safe_line(item.title), style="bold")
        t.append("\n")
        t.append_text(badge(j, now, partial=item.answer_partial))
        t.append(f"  {safe_line(item.state)}  ", style="dim")
        if item.is_question:
            t.append(f"{item.kind.upper()} · {safe_line(str(item.urgency))}", style="magenta")
            if item.answered:
                t.append(" · answered", style="cyan")
            elif item.answer_partial:
                from atk_tui.itemfile.questions import answer_progress

                missing = answer_progress(item.body).missing
                which = ", ".join(f"Q{n}" for n in missing)
                t.append(f" · {present.PARTIAL_MARK} ({which} unanswered): still needs you", style=status_style("waiting"))
        else:
            t.append(f"{'FEEDBACK' if item.queue == 'mq' else 'AWI'} · {safe_line(str(item.awi_type))}", style="cyan")
        rows: list[tuple[str, str]] = [("file", item.filename), ("repo", item.target_repo or "—")]
        if holder is not None:  # SPEC §15: whose hold it is (the person may release an agent's, after a question)
            since = dated(holder.since, now) if holder.since else holder.when()
            rows.append(("held by", f"{holder.who()} since {since}"))
        rows.append(("source", item.source if item.source is not None else "(human)"))
        if item.created:
            rows.append(("created", dated(item.created, now)))
        for f in FIELDS:  # the frontmatter keys with a row of their own (domain.fields)
            value = getattr(item, f.name) if f.label else None
            if value and f.name in TIMES:  # a time still to come: how long until; else when
                value = f"{time_left(value, now) if value > now else 'over'} (until {stamp(value)})"
            elif value and f.name == "plan_file":
                value = plan_shown(value)
            if value:
                rows.append((f.label, value))
        if blocks and blocks[1]:
            rows.append(("blocks", f"{blocks[0]} directly, {blocks[1]} in all"))
        if item.complete:
            extra = [k for k in item.data if k not in RESERVED_KEYS]
            for k in extra:
                rows.append((k, repr(item.data[k]) if not isinstance(item.data[k], str) else item.data[k]))
        # a grid, so that a long value (a filename) wraps inside its own column
        grid = Table.grid(padding=(0, 1))
        # a long key (any frontmatter key an item carries) is cut, never crowding out the values
        grid.add_column(style="dim", justify="right", no_wrap=True, max_width=24, overflow="ellipsis")
        grid.add_column(overflow="fold")
        for k, v in rows:  # a frontmatter key is untrusted too (SPEC §14)
            # a filename or a repo keeps both ends on one line; other values wrap (whole tokens)
            grid.add_row(safe(k), MiddleCut(safe(v)) if k in ONE_LINE_FIELDS else Wrapped(safe(v)))
        parts: list[RenderableType] = [t, grid]
        if history:
            hist = Table.grid(padding=(0, 1))
            hist.add_column(style="dim", no_wrap=True)
            hist.add_column(style="dim", no_wrap=True, max_width=16, overflow="ellipsis")  # the Atk-Actor trailer
            hist.add_column()
            for h in history[:8]:  # a filename in a subject wraps whole, never split (Wrapped)
                hist.add_row(Text(f"{h.date:%Y-%m-%d %H:%M}"), safe(h.actor), Wrapped(safe(history_subject(h.subject, item.filename))))
            parts += [Text("history", style="bold dim"), hist]
        return Group(*parts)

    def _reasons(self, item: Item, j: Judgement | None) -> Text:
        t = Text()
        if item.defects:
            t.append("Defects\n", style="bold red")
            for d in item.defects:
                t.append(f" • {safe_line(d)}\n", style="red")
        if j and j.reasons and not item.defects:
            t.append("Blocked because\n", style=status_style("blocked"))
            for r in j.reasons:
                t.append(f" • {safe_line(r.message)}\n")
        if j and j.answered_deps:
            for name in j.answered_deps:
                t.append(f" • {safe_line(name)}: answered, awaiting pickup\n", style="cyan")
        if item.warnings:
            t.append("Body lint\n", style="bold yellow")
            for w in item.warnings:
                t.append(f" • {safe_line(w)}\n", style="yellow")
        return t

    def _questions(self, item: Item) -> RenderableType | None:
        """Each question with its options in a grid (a wrapped option keeps its indent), the
        recommended one marked; then the saved answer."""
        if not item.is_question:
            return None
        # the last item's questions are kept: a 10,000-question body takes ~0.4 s to parse, and
        # the pane is shown again for the same item (a refresh, moving back to it)
        key = (item.filename, item.body)  # comparing the text is a memcmp, parsing it is not
        if self._parsed is not None and self._parsed[0] == key:
            parsed = self._parsed[1]
        else:
            from atk_tui.itemfile.questions import parse_questions

            parsed = parse_questions(item.body)
            self._parsed = (key, parsed)
        parts: list[RenderableType] = []
        for q in parsed.questions[:DETAIL_MAX_QUESTIONS]:
            head = Text()
            head.append(f"Q{q.number}. ", style="bold magenta")
            head.append(safe_text(q.text.strip()), style="bold")  # its line breaks as line breaks
            parts.append(Wrapped(head))
            if not q.options:
                continue
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True)
            grid.add_column(overflow="fold")
            for o in q.options:
                rec = q.recommendation == o.letter
                label = Text(safe_line(o.label), style="bold green" if rec else "")
                if rec:
                    label.append("  ★ recommended", style="green")
                if o.implications:
                    label.append("\n" + safe_line(o.implications), style="dim")
                grid.add_row(Text(f" {o.letter})", style="bold green" if rec else "bold"), Wrapped(label))
            parts.append(grid)
        more = len(parsed.questions) - DETAIL_MAX_QUESTIONS
        if more > 0:  # thousands of rows would stall the pane: the body below still has them all
            parts.append(Text(f"… and {more:,} more questions (all of them are in the body below)", style="dim"))
        ans = answer_text(item.body)
        if ans and ans.strip():
            parts.append(Text("Answer", style="bold cyan"))
            parts.append(Text(safe_text(ans.strip()), style="cyan"))
        return Group(*parts) if parts else None

    def _fill_tree(self, tid: str, names: list[str], items: dict[str, Item], states: dict[str, str], judgements: dict[str, Judgement], now: datetime) -> None:
        tree = self.query_one(f"#{tid}", DepTree)
        tree.clear()
        if not names:
            tree.root.add_leaf(Text("none", style="dim"))
            self._measure(tree)
            return
        seen: set[str] = set()

        def add(parent, name: str, depth: int, down: bool) -> None:
            label = self._dep_label(name, items, states, judgements, now)
            other = items.get(name)
            children = []
            if depth < 2 and other is not None and name not in seen:
                children = other.depends_on if down else []
            seen.add(name)
            if children:
                node = parent.add(label, data=name, expand=True)
                for c in children[:20]:
                    add(node, c, depth + 1, down)
            else:
                parent.add_leaf(label, data=name)

        for n in names[:100]:
            add(tree.root, n, 0, tid == "deps-tree")
        tree.root.expand()
        self._measure(tree)

    @staticmethod
    def _measure(tree: DepTree) -> None:
        """Count the tree's lines now (`last_line` builds them), so that its height is right in
        the layout that shows it: a `Tree` learns its height when it is drawn, and a tree whose
        height is still 0 is never drawn."""
        _ = tree.last_line

    @staticmethod
    def _dep_label(name: str, items: dict[str, Item], states: dict[str, str], judgements: dict[str, Judgement], now: datetime) -> Text:
        t = Text()
        state = states.get(name)
        if state is None:
            t.append("✗ missing  ", style="bold red")
            t.append(safe_line(name))
            return t
        other = items.get(name)
        if other is None:
            t.append(f"■ {state}  ", style="dim")
            t.append(safe_line(name), style="dim")
            return t
        t.append_text(badge(judgements.get(name), now))
        t.append(f" [{state}] ", style="dim")
        t.append(safe_line(other.title))
        return t


def literal_checkpoints(body: str) -> str:
    """`body` with every AWAITING_USER_INPUT block fenced as a code block, so Markdown shows it
    as written (`auth/__tests__/` is a path, not emphasis; `---` is not a heading underline)."""
    from atk_tui.itemfile.questions import checkpoint_spans

    spans = checkpoint_spans(body)
    if not spans:
        return body
    lines = body.split("\n")
    for start, end in reversed(spans):
        lines[start:end] = ["````text", *lines[start:end], "````"]
    return "\n".join(lines)


