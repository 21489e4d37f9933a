"""NO_COLOR (no-color.org): the last filter on every line, in place of Textual's.

Textual turns NO_COLOR into greys (`Monochrome`: 24-bit colours), or, with native ANSI colours,
into `NoColor`. Here no colour at all reaches the terminal: every piece of text in the
terminal's own foreground on its own background, whatever the theme, Rich styles or widgets
asked for. `dim` goes too: a terminal draws it as a fainter colour of its own choosing, under
WCAG AA on many; what dim meant is said otherwise (a key that cannot act: struck through,
widgets/footer.py). Reverse, bold, italic, underline and strike stay: they are what shows the
cursor, the focus and the attention states under NO_COLOR (nocolor.tcss, present.py).
"""

from __future__ import annotations

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter

#: the terminal's own colours, and no dim
PLAIN = Style(color=RichColor.default(), bgcolor=RichColor.default(), dim=False)


class Plain(LineFilter):
    """No colour and no dim on any segment (see the module's note)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        plain = PLAIN
        return [Segment(text, None if style is None else style + plain, control) for text, style, control in segments]
