"""Contrast of what the terminal shows: every piece of text against the background behind it,
as WCAG 2 computes it (relative luminance, (L1 + 0.05) / (L2 + 0.05)).

Read from `App.export_screenshot` (public API): its SVG draws each segment as a `<text>` whose
class carries the foreground (dim already blended in, reverse already swapped) and, when the
segment has a background, a `<rect>` at the same cell. Textual's line filters (NO_COLOR's
monochrome, ANSI colours to true colour) have been applied by then: the figures are those of
the colours that reach the terminal.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from textual.app import App

#: WCAG 2 AA for normal text
AA = 4.5
_CLASS = re.compile(r"\.(terminal-[\w-]+-r\d+) \{ ([^}]*) \}")
_RECT = re.compile(r'<rect fill="(#[0-9a-fA-F]{6})" x="([0-9.]+)" y="([0-9.]+)" width="[0-9.]+" height="[0-9.]+" shape-rendering="crispEdges"/>')
_TEXT = re.compile(r'<text class="([^"]*)" x="([0-9.]+)" y="([0-9.]+)" textLength="[0-9.]+" clip-path="[^"]*">(.*?)</text>')
_BACKGROUND = re.compile(r'<rect fill="(#[0-9a-fA-F]{6})" stroke="[^"]*" stroke-width="1" x="1" y="1"')
#: cells that draw rather than say: box lines, blocks (scrollbars, the stats bars), the braille
#: dots of a spinner; a piece made only of these (and spaces) is no text
_DRAWING = re.compile(r"[\s\u2500-\u259f\u2800-\u28ff▁-█▏▕]")


@dataclass(frozen=True)
class Piece:
    text: str
    fg: str
    bg: str
    row: int
    col: int

    @property
    def ratio(self) -> float:
        return contrast(self.fg, self.bg)


def luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(fg: str, bg: str) -> float:
    a, b = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def pieces(svg: str) -> list[Piece]:
    """Every piece of text on the screen with its foreground and the background behind it."""
    cell_w, line_h = 20 * 0.61, 20 * 1.22
    fills = {name: m.group(1) for name, css in _CLASS.findall(svg) if (m := re.search(r"fill: (#[0-9a-fA-F]{6})", css))}
    default = _BACKGROUND.search(svg)
    backdrop = default.group(1) if default else "#000000"
    cells: dict[tuple[int, int], str] = {}
    for fill, x, y in _RECT.findall(svg):
        cells[(round((float(y) - 1.5) / line_h), round(float(x) / cell_w))] = fill
    out = []
    for cls, x, y, raw in _TEXT.findall(svg):
        row, col = round((float(y) - 20) / line_h), round(float(x) / cell_w)
        text = html.unescape(raw).replace("\xa0", " ")
        out.append(Piece(text, fills.get(cls, "#ffffff"), cells.get((row, col), backdrop), row, col))
    return out


def is_text(text: str) -> bool:
    return bool(_DRAWING.sub("", text))


def low_contrast(app: App, minimum: float = AA) -> tuple[float, list[Piece]]:
    """The lowest ratio of any text on the app's screen now, and every piece below `minimum`."""
    shown = [p for p in pieces(app.export_screenshot()) if is_text(p.text)]
    lowest = min((p.ratio for p in shown), default=21.0)
    return lowest, [p for p in shown if p.ratio < minimum]
