"""Every text legible in every theme: at least WCAG AA contrast (4.5:1) against what is behind it.

The dashboard's colours come from the theme ($accent, $text-muted, $panel…), from Rich styles
on item text (a badge's `green`, a repo's `dim`) and from Textual's own widgets; 21 built-in
themes, light and dark, combine them with backgrounds nobody chose them for (under NO_COLOR
there is no colour to fix: `AtkApp.get_line_filters` leaves this filter out). One rule,
applied last to every line the app draws (`AtkApp.get_line_filters`): a piece of text whose
foreground is too close to its background keeps its hue and moves towards black or
white, whichever side has room, until it reads at `MINIMUM`. `dim` becomes an explicit colour
first (terminals draw it as they like), then meets the same rule. Lines and blocks (borders,
scrollbars, bars) are drawings, not text, and keep their colours. What already reads is left
as the theme made it.
"""

from __future__ import annotations

from functools import lru_cache

from rich.color import Color as RichColor
from rich.color import ColorType
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter

MINIMUM = 4.6  # WCAG AA is 4.5: a little over, so rounding in a terminal never falls under
DIM = 0.6  # how much of the foreground a dim text keeps (the rest is the background)
NOT_DIM = Style(dim=False)
#: box drawing, blocks, braille (a spinner): drawn, not read
DRAWING = frozenset(map(chr, [*range(0x2500, 0x25A0), *range(0x2800, 0x2900), 0x20]))


def _channel(c: int) -> float:
    s = c / 255
    return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4


def luminance(color: Color) -> float:
    return 0.2126 * _channel(color.r) + 0.7152 * _channel(color.g) + 0.0722 * _channel(color.b)


def contrast(a: Color, b: Color) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def readable(fg: Color, bg: Color, minimum: float = MINIMUM) -> Color:
    """`fg`, or the least change of it towards black or white that reads on `bg`."""
    if contrast(fg, bg) >= minimum:
        return fg
    white, black = Color(255, 255, 255), Color(0, 0, 0)
    # the side with more room: a light background takes a darker text
    target = black if contrast(black, bg) >= contrast(white, bg) else white
    low, high = 0.0, 1.0
    for _ in range(12):  # bisect the blend: the smallest step that reads
        mid = (low + high) / 2
        if contrast(fg.blend(target, mid), bg) >= minimum:
            high = mid
        else:
            low = mid
    return fg.blend(target, high)


def _true(color: RichColor | None, fallback: Color) -> Color | None:
    """A colour the terminal shows as given (None: the terminal's own palette decides)."""
    if color is None or color.is_default:
        return fallback
    if color.type not in (ColorType.TRUECOLOR, ColorType.EIGHT_BIT) and color.triplet is None:
        return None
    return Color.from_rich_color(color)


@lru_cache(4096)
def legible_style(style: Style, background: Color) -> Style:
    """`style` with a foreground that reads on its background (the same style when it does)."""
    bg = _true(style.bgcolor, background)
    fg = _true(style.color, Color(224, 224, 224) if background.brightness < 0.5 else Color(32, 32, 32))
    if fg is None or bg is None:
        return style
    if style.reverse:
        fg, bg = bg, fg
    if style.dim:
        fg = bg.blend(fg, DIM)
    better = readable(fg, bg)
    if better == fg and not style.dim:
        return style
    if style.reverse:
        return style + Style(color=bg.rich_color, bgcolor=better.rich_color, dim=False)
    return style + Style(color=better.rich_color, bgcolor=bg.rich_color, dim=False)


class Legible(LineFilter):
    """The last filter on every line: text at `MINIMUM` contrast (see the module's note)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        out = []
        for segment in segments:
            text, style, control = segment
            if style is None or control:
                out.append(segment)
                continue
            better = legible_style(style, background)
            if better is style or DRAWING.issuperset(text):
                out.append(segment)
            else:
                out.append(Segment(text, better, None))
        return out
