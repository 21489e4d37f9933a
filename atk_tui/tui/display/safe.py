"""The dashboard's one way from a string to the screen (SPEC §14).

Every string that came from the store (titles, bodies, frontmatter keys and values, filenames,
commit trailers and subjects, error messages quoting any of them) reaches a widget through these:
control and bidi characters escaped by `text.textsafe`, then wrapped in `rich.text.Text` or
`textual.content.Content`, never parsed as markup. A `str` given to `border_title`,
`Table.add_row`, `DataTable`, `Tree` or the palette is parsed as markup (`[/x]` crashes,
`[@click=app.quit]` becomes a live action), so those sinks take what these return.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual.containers import Vertical
from textual.content import Content

from atk_tui.text.cells import cut_middle
from atk_tui.text.linebreak import line_starts
from atk_tui.text.textsafe import has_unsafe, safe_line, safe_text

__all__ = ["MiddleCut", "Wrapped", "notify_safe", "safe", "safe_block", "safe_content", "safe_line", "safe_rich", "safe_text"]


def safe(text: object, style: str = "") -> Text:
    """One line of untrusted text as a `Text` (newlines and tabs escaped too)."""
    return Text(safe_line(str(text)), style=style, end="")


def safe_block(text: object, style: str = "") -> Text:
    """Multi-line untrusted text as a `Text` (newlines and tabs kept)."""
    return Text(safe_text(str(text)), style=style, end="")


def safe_content(text: object) -> Content:
    """One line as a `Content`: for `border_title`/`border_subtitle`, palette entries and labels.
    Literal: `[WIP]` in a title shows as `[WIP]`."""
    return Content(safe_line(str(text)))


def framed(title: str, subtitle: str | None = None) -> Vertical:
    """A dialog's frame: a `Vertical` whose border shows `title` (untrusted: literal) and a
    key hint. Use as `with framed(...):` in `compose`."""
    frame = Vertical()
    frame.border_title = safe_content(title)
    if subtitle:
        frame.border_subtitle = subtitle
    return frame


def safe_rich(message: Text | str) -> Text:
    """A dialog's message: a `str` is untrusted text; a `Text` built by the app keeps its
    styles unless some part of it still holds a control character (then it is shown plain)."""
    if isinstance(message, str):
        return safe_block(message)
    if has_unsafe(message.plain.replace("\n", "").replace("\t", "")):
        return Text(safe_text(message.plain), style=message.style, end=message.end)
    return message


def notify_safe(target: Any, message: object, *, title: str = "", **kw: Any) -> None:
    """`target.notify` (an App, Screen or Widget) with the message and title made safe and
    never parsed as markup."""
    kw["markup"] = False
    target.notify(safe_text(str(message)), title=safe_line(title), **kw)


class Wrapped:
    """A `Text` wrapped where reading needs it, by `text.linebreak` (kinsoku; a word, filename or
    URL never split) at whatever width it is drawn: every wrapping site of item text in the
    dashboard draws through this (a `Static`, a table cell, a Markdown paragraph)."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        for line in self.text.split("\n", allow_blank=True):
            for part in line.divide(line_starts(line.plain, width)):
                part.rstrip()
                part.no_wrap, part.overflow, part.end = True, "crop", "\n"
                yield part

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text)


class MiddleCut:
    """One line (a filename, a repo) cut in the middle to the width it is drawn at, never
    wrapped: both ends stay readable (`text.cells.cut_middle`)."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        plain = self.text.plain
        yield Text(cut_middle(plain, options.max_width), style=self.text.style, no_wrap=True, end="")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(self.text.cell_len, 12), self.text.cell_len)
