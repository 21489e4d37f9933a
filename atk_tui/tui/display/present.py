"""How items look in the panes: badges, kinds, ages, sort orders. Item text is sanitised and
wrapped in `rich.text.Text`, never parsed as markup."""

from __future__ import annotations

import os
import re
from datetime import datetime
from functools import lru_cache, partial

from rich.text import Text

from atk_tui.domain.ages import age, time_left
from atk_tui.domain.model import URGENCIES, Item
from atk_tui.domain.readiness import Judgement
from atk_tui.service.history.deadlines import is_overdue
from atk_tui.text.textsafe import safe_line
from atk_tui.tui.display.rows import Column, Row

BADGE_STYLE = {
    "ready": "bold green",
    "blocked": "bold red",
    "cooldown": "bold yellow",
    "waiting": "bold magenta",
    "answered": "bold cyan",
    "hold": "bold blue",
    "editing": "bold blue",
    "planning": "dim blue",
    "terminal": "dim",
    "defective": "bold white on red",
}
#: The mark each status starts with, in the panes, the detail, the graph and the editor:
#: characters the common monospace fonts have (`⧗` was in none of 52 of them).
UNICODE_GLYPHS = {
    "ready": "✓",
    "blocked": "✗",
    "waiting": "?",
    "answered": "✓",
    "cooldown": "…",
    "hold": "‖",
    "editing": "✎",
    "planning": "◇",
    "terminal": "■",
    "defective": "⚠",
    "missing": "✗",
    "partial": "◐",
}
#: `[tui] glyphs = "ascii"`: for fonts or terminals without even those
ASCII_GLYPHS = {
    "ready": "+",
    "blocked": "x",
    "waiting": "?",
    "answered": "+",
    "cooldown": "~",
    "hold": "=",
    "editing": "e",
    "planning": "p",
    "terminal": "#",
    "defective": "!",
    "missing": "x",
    "partial": "%",
}
GLYPH_SETS = {"unicode": UNICODE_GLYPHS, "ascii": ASCII_GLYPHS}
STATUS_GLYPH = dict(UNICODE_GLYPHS)  # the set in use (`use_glyphs`); modules share this dict


def use_glyphs(name: str) -> None:
    """Switch every status mark to the `unicode` or `ascii` set (the dict is updated in place:
    the graph and the dependency editor hold a reference to it)."""
    STATUS_GLYPH.update(GLYPH_SETS[name])
    global PARTIAL_MARK
    PARTIAL_MARK = f"{STATUS_GLYPH['partial']} partly answered"


#: Statuses that ask for the user: without colour (NO_COLOR) they are drawn reversed, so they
#: stand out from the rest instead of fading to grey.
ATTENTION = frozenset({"blocked", "waiting", "defective"})


_MONOCHROME = [bool(os.environ.get("NO_COLOR"))]


def monochrome() -> bool:
    """NO_COLOR is set (no-color.org); the app says so at start (`set_monochrome`), since
    Textual takes NO_COLOR out of the environment."""
    return _MONOCHROME[0]


def set_monochrome(flag: bool) -> None:
    _MONOCHROME[0] = flag


def status_style(status: str) -> str:
    if monochrome():
        return "bold reverse" if status in ATTENTION else ("dim" if status == "terminal" else "")
    return BADGE_STYLE.get(status, "")


def urgency_style(urgency: str | None) -> str:
    if monochrome():
        return "bold reverse" if urgency == "blocking" else ("bold" if urgency == "next-review" else "")
    return "bold red" if urgency == "blocking" else ("yellow" if urgency == "next-review" else "dim")
_SHORT_REASON = {
    "defective": "defective",
    "plan-missing": "no plan file",
    "cooldown": "cooldown",
    "missing-dep": "missing dep",
    "self-dep": "self dep",
    "cycle": "cycle",
    "dep-active": "dep",
    "dep-hold": "dep on hold",
}
URGENCY_SHORT = {"blocking": "block", "next-review": "next", "informational": "info"}

# On a narrow pane the title keeps 16 cells: repo goes first, then kind/age (`Column.drop`).
PANE_COLUMNS = (
    Column("badge", 14, label="status"),
    Column("kind", 9, drop=2),
    Column("title", 0, min_width=16),
    Column("repo", 12, drop=3, middle=True),
    Column("age", 4, drop=1),
)
NEEDS_COLUMNS = (
    Column("urgency", 13),
    Column("blocks", 9),
    Column("title", 0, min_width=16),
    Column("repo", 14, drop=2, middle=True),
    Column("age", 4, drop=1),
)


PARTIAL_MARK = "◐ partly answered"


def badge(j: Judgement | None, now: datetime, *, partial: bool = False) -> Text:
    """`partial`: a partially answered UWI (SPEC §11) — it still needs the user."""
    if j is None:
        return Text("…", style="dim")
    status = j.status
    style = status_style(status)
    g = STATUS_GLYPH
    if status == "ready":
        return Text(f"{g['ready']} ready", style=style)
    if status == "waiting":
        return Text(f"{g['partial']} partly ans." if partial else f"{g['waiting']} needs answer", style=style)
    if status == "answered":
        return Text(f"{g['answered']} answered", style=style)
    if status == "cooldown" and j.cooldown_until:
        return Text(f"{g['cooldown']} {time_left(j.cooldown_until, now, compact=True)}", style=style)
    if status == "hold":
        return Text(f"{g['hold']} hold", style=style)
    if status == "editing":
        return Text(f"{g['editing']} editing", style=style)
    if status == "planning":
        return Text(f"{g['planning']} planning", style=style)
    if status == "terminal":
        return Text(f"{g['terminal']} done", style=style)
    if status == "defective":
        return Text(f"{g['defective']} defective", style=style)
    first = j.reasons[0].code if j.reasons else ""
    return Text(f"{g['blocked']} {_SHORT_REASON.get(first, 'blocked')}", style=style)


def kind_label(item: Item) -> Text:
    if item.is_question:
        return Text(f"{item.kind.upper()}·{URGENCY_SHORT.get(item.urgency, item.urgency)}", style="bold" if monochrome() else "magenta")
    name = "FB" if item.queue == "mq" else "AWI"  # a feedback item (mq) or a work item
    return Text(f"{name}·plan" if item.plan_file else name, style="cyan" if item.plan_file else "")


def title_text(item: Item) -> Text:
    return Text(safe_line(item.title))


def pane_row(item: Item, j: Judgement | None, now: datetime) -> Row:
    """A pane row; its cells are made when the row is first drawn."""
    return Row(item.filename, make=partial(pane_cells, item, j, now))


def pane_cells(item: Item, j: Judgement | None, now: datetime) -> tuple[Text, ...]:
    return (
        badge(j, now, partial=item.answer_partial),
        kind_label(item),
        title_text(item),
        Text(safe_line(item.target_repo), style="dim"),
        Text(age(item.created, now), style="dim"),
    )


def needs_row(item: Item, blocks: tuple[int, int] | None, now: datetime) -> Row:
    return Row(item.filename, make=partial(needs_cells, item, blocks, now))


def needs_cells(item: Item, blocks: tuple[int, int] | None, now: datetime) -> tuple[Text, ...]:
    _direct, total = blocks or (0, 0)
    urg = Text(item.urgency, style=urgency_style(item.urgency))
    blocks_text = Text(f"blocks {total}" if total else "", style="bold" if total else "dim")
    title = title_text(item)
    if item.answer_partial:  # still needs the user: the rest of the answer
        title = Text.assemble((f"{PARTIAL_MARK} · ", "bold reverse" if monochrome() else "bold magenta"), title)
    if is_overdue(item, now):  # past its answer-by time (SPEC §16): listed first, and marked
        title = Text.assemble(("overdue · ", "bold reverse" if monochrome() else "bold red"), title)
    return (urg, blocks_text, title, Text(safe_line(item.target_repo), style="dim"), Text(age(item.created, now), style="dim"))


def _created_key(item: Item) -> float:
    return item.created.timestamp() if item.created else 0.0


def sort_items(items: list[Item], judgements: dict[str, Judgement], blocks: dict[str, tuple[int, int]], mode: str) -> list[Item]:
    if mode == "newest":
        return sorted(items, key=lambda i: (-_created_key(i), i.filename))
    if mode == "title":
        return sorted(items, key=lambda i: (i.title.casefold(), i.filename))
    if mode == "repo":
        return sorted(items, key=lambda i: (i.target_repo, _created_key(i), i.filename))
    if mode == "status":
        order = ("waiting", "defective", "ready", "answered", "cooldown", "blocked", "hold", "editing", "planning", "terminal")

        def st(i: Item) -> int:
            j = judgements.get(i.filename)
            return order.index(j.status) if j and j.status in order else len(order)

        return sorted(items, key=lambda i: (st(i), _created_key(i), i.filename))
    if mode == "needs-you":

        def key(i: Item) -> tuple:
            j = judgements.get(i.filename)
            c = i.created
            if j is None or j.status != "waiting":  # (most items: no urgency or blocks looked up)
                return (1, 0, 0, c.timestamp() if c else 0.0, i.filename)
            urg = URGENCIES.index(i.urgency) if i.urgency in URGENCIES else 9
            return (0, urg, -(blocks.get(i.filename, (0, 0))[1]), c.timestamp() if c else 0.0, i.filename)

        return sorted(items, key=key)
    return sorted(items, key=lambda i: (_created_key(i), i.filename))  # oldest


_SEPARATORS = r"\s\-_/.:,;()\[\]{}\"'`"
_TOKEN_SPLIT = re.compile(f"[{_SEPARATORS}]+")
_WORD = re.compile(f"[^{_SEPARATORS}]+")


def fuzzy_match(needle: str, hay: str) -> bool:
    """Each word of `needle` (case-insensitive) is a substring of `hay`, or the characters of the
    word appear in order inside one word of `hay` that starts with the same character (`rds`
    finds "redis", `sess` "session").

    Matching a subsequence across the whole line would let any long title match a short needle."""
    folded, tokens = _prepared(hay)
    for word in needle.casefold().split():
        if word in folded:
            continue
        first = word[0]
        if not any(t[0] == first and _subsequence(word, t) for t in tokens):
            return False
    return True


@lru_cache(maxsize=65536)
def _prepared(hay: str) -> tuple[str, tuple[str, ...]]:
    """`hay` case-folded and cut into words, once per text: the filter tries every item on every
    keystroke."""
    folded = hay.casefold()
    return folded, tuple(t for t in _TOKEN_SPLIT.split(folded) if t)


def match_spans(needle: str, text: str) -> list[tuple[int, int]]:
    """Where the words of `needle` match `text` (one cell's text), as `fuzzy_match` matches them:
    each case-insensitive occurrence of a word, else the characters of the word inside each word
    of `text` that starts with its first character and holds it as a subsequence. The filter's
    highlight in the rows."""
    spans: list[tuple[int, int]] = []
    for word in needle.casefold().split():
        hits = [m.span() for m in _pattern(word).finditer(text)]
        if hits:
            spans.extend(hits)
            continue
        for m in _WORD.finditer(text):
            token = m.group().casefold()
            if len(token) != len(m.group()) or token[0] != word[0] or not _subsequence(word, token):
                continue  # (a case fold that changes the length: the offsets would be wrong)
            pos = 0
            for ch in word:
                pos = token.find(ch, pos)
                spans.append((m.start() + pos, m.start() + pos + 1))
                pos += 1
    return spans


def contains(text: str, needle: str) -> bool:
    """`needle` in `text`, ignoring case, without a case-folded copy of `text`: the filter
    searches every body on every keystroke, and copies of 10,000 bodies cost tens of MiB."""
    return _pattern(needle).search(text) is not None


@lru_cache(maxsize=256)
def _pattern(needle: str) -> re.Pattern[str]:
    return re.compile(re.escape(needle), re.IGNORECASE)


def _subsequence(word: str, token: str) -> bool:
    if len(word) > len(token):
        return False
    pos = 0
    for ch in word:
        pos = token.find(ch, pos)
        if pos < 0:
            return False
        pos += 1
    return True


def quoted_title(item) -> str:
    """An item as a message names it: its title, quoted and bounded (never its filename)."""
    from atk_tui.text.textsafe import safe_line

    title = safe_line(item.title).strip() or item.filename
    return f"“{title[:60]}{'…' if len(title) > 60 else ''}”"
