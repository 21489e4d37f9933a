"""Text and drawing: labels cut to terminal cells, the flat grids of line-direction bits, boxes and arrowheads (the only module that needs rich)."""

from __future__ import annotations

from codecs import charmap_decode
from collections.abc import Iterable, Sequence

from rich.cells import cell_len

from atk_tui.graph.model import _EXTRA_UNSAFE, _MASK_DECODE, _NOT_EDGE, _OR_EW, _OR_NS, _RUNS, EDGE_STYLE
from atk_tui.text.textsafe import safe_line

try:  # grapheme-aware splitting (rich >= 14); per-character measuring before that
    from rich.cells import split_graphemes as _split_graphemes
except ImportError:  # pragma: no cover - depends on the installed rich
    from rich.cells import get_character_cell_size as _char_size

    def _split_graphemes(text: str) -> tuple[list[tuple[int, int, int]], int]:
        spans = [(i, i + 1, _char_size(c)) for i, c in enumerate(text)]
        return spans, sum(s[2] for s in spans)


# --------------------------------------------------------------------------------------------
# text


def sanitize_label(text: str) -> str:
    """Untrusted text made safe for one line of a terminal: C0/C1 controls, DEL, bidi controls,
    line/paragraph separators and lone surrogates are shown escaped (``\\x1b``, ``\\u202e``)."""
    if text.isprintable():  # fast path: nothing to escape (isprintable is False for all of the above)
        return text
    text = safe_line(text)
    return _EXTRA_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def truncate_cells(text: str, max_cells: int) -> str:
    """`text` cut to at most `max_cells` terminal cells, ending in `…` when cut.

    Measured by `rich.cells` (double-width CJK, grapheme clusters), never cut inside a cluster.
    """
    if max_cells <= 0:
        return ""
    if cell_len(text) <= max_cells:
        return text
    budget = max_cells - 1
    spans, _total = _split_graphemes(text)
    used = end = 0
    for _start, stop, width in spans:
        if used + width > budget:
            break
        used += width
        end = stop
    return text[:end] + "…"


def _box_text(text: str, max_cells: int) -> str:
    """A label for a box line: sanitised, cut, and measuring the same between the box's spaces
    (a joiner at the end would swallow the padding after it)."""
    out = truncate_cells(sanitize_label(text), max_cells)
    if cell_len(" " + out + " ") != cell_len(out) + 2:
        out = truncate_cells(sanitize_label(text).replace("\u200d", "").replace("\ufe0f", ""), max_cells)
    return out


# --------------------------------------------------------------------------------------------
# drawing


def _shift(cell: int, shifts: list[tuple[int, int]]) -> int:
    """Character offset of a cell in a row whose overlays ending at cell `at` added `extra` chars."""
    offset = cell
    for at, extra in shifts:
        if at <= cell:
            offset += extra
    return offset


class _Canvas:
    """A row-major grid of line-direction masks and style ids, plus text overlays (boxes,
    arrowheads) laid over it. Lines are slice operations on flat bytearrays (a vertical line is
    an extended slice with step = width), so drawing costs no Python work per cell."""

    __slots__ = ("cycle_rows", "height", "masks", "overlays", "styles", "width")

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.masks = bytearray(width * height)
        self.styles = bytearray(b"\x01") * (width * height)  # blank cells count as edge
        self.cycle_rows = bytearray(height)  # rows with a cycle-edge line: their styles need a scan
        self.overlays: list[list[tuple[int, str, int, int]]] = [[] for _ in range(height)]  # x, text, cells, style

    def hline(self, row: int, x0: int, x1: int, style: int) -> None:
        """A horizontal line over cells x0..x1-1."""
        if x1 > x0:
            a = row * self.width
            masks = self.masks
            masks[a + x0 : a + x1] = masks[a + x0 : a + x1].translate(_OR_EW)
            self.styles[a + x0 : a + x1] = bytes((style,)) * (x1 - x0)
            if style == 2:
                self.cycle_rows[row] = 1

    def vline(self, col: int, r0: int, r1: int, style: int) -> None:
        """A vertical line over rows r0+1..r1-1 (the ends are marked separately)."""
        count = r1 - r0 - 1
        if count > 0:
            w = self.width
            a, b = (r0 + 1) * w + col, r1 * w + col
            masks = self.masks
            masks[a:b:w] = masks[a:b:w].translate(_OR_NS)
            self.styles[a:b:w] = bytes((style,)) * count
            if style == 2:
                self.cycle_rows[r0 + 1 : r1] = b"\x01" * count

    def mark(self, row: int, col: int, bits: int, style: int) -> None:
        i = row * self.width + col
        self.masks[i] |= bits
        self.styles[i] = style
        if style == 2:
            self.cycle_rows[row] = 1

    def overlay(self, row: int, x: int, text: str, cells: int, style: int) -> None:
        """Text covering `cells` cells from x (its own cell width, whatever its length)."""
        self.overlays[row].append((x, text, cells, style))
        a = row * self.width + x
        self.styles[a : a + cells] = bytes((style,)) * cells

    def render(self, style_keys: Sequence[str]) -> tuple[list[str], list[tuple[int, int, int, str]]]:
        """The lines, and spans tiling each of them: what is not a box or a cycle edge is `edge`."""
        width, styles, cycle_rows = self.width, self.styles, self.cycle_rows
        view = memoryview(self.masks)
        lines: list[str] = []
        spans: list[tuple[int, int, int, str]] = []
        for r in range(self.height):
            base = r * width
            text = charmap_decode(view[base : base + width], "strict", _MASK_DECODE)[0]
            row_overlays = self.overlays[r]
            if not row_overlays and not cycle_rows[r]:
                lines.append(text)
                spans.append((r, 0, width, EDGE_STYLE))
                continue
            row_overlays.sort()
            parts = []
            at = 0
            if not cycle_rows[r]:
                # no cycle line here: the overlays alone say where the styles change
                delta = 0  # characters minus cells so far (wide and combining characters)
                edge_from = 0
                for x, piece, cells, style in row_overlays:
                    parts.append(text[at:x])
                    parts.append(piece)
                    at = x + cells
                    if style != 1:
                        start = x + delta
                        if start > edge_from:
                            spans.append((r, edge_from, start, EDGE_STYLE))
                        edge_from = start + len(piece)
                        spans.append((r, start, edge_from, style_keys[style]))
                    delta += len(piece) - cells
                parts.append(text[at:])
                lines.append("".join(parts))
                if edge_from < width + delta:
                    spans.append((r, edge_from, width + delta, EDGE_STYLE))
                continue
            shifts: list[tuple[int, int]] = []  # (cell where a wide/combining overlay ends, extra chars)
            for x, piece, cells, _style in row_overlays:
                parts.append(text[at:x])
                parts.append(piece)
                at = x + cells
                if len(piece) != cells:
                    shifts.append((at, len(piece) - cells))
            parts.append(text[at:])
            lines.append("".join(parts))
            at = 0
            for stretch in _NOT_EDGE.finditer(styles, base, base + width):
                piece = stretch.group()
                first = stretch.start() - base
                if first > at:
                    spans.append((r, _shift(at, shifts), _shift(first, shifts), EDGE_STYLE))
                if piece.count(piece[0]) == len(piece):  # one style: the common case
                    runs: Iterable[tuple[int, int]] = ((first, first + len(piece)),)
                else:
                    runs = [(first + m.start(), first + m.end()) for m in _RUNS.finditer(piece)]
                for start, stop in runs:
                    spans.append((r, _shift(start, shifts), _shift(stop, shifts), style_keys[styles[base + start]]))
                at = first + len(piece)
            if at < width:
                spans.append((r, _shift(at, shifts), _shift(width, shifts), EDGE_STYLE))
        return lines, spans


