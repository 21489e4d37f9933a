"""What a browser actually drew (issue 43: Japanese drawn as boxes): a PNG screenshot decoded
without an imaging library, the cells of the terminal text a textual-serve page was sent, and
whether a cell holds a glyph or the empty box a font without it draws ("tofu")."""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass

from rich.cells import cell_len


@dataclass
class Image:
    width: int
    height: int
    pixels: list[bytearray]  # one row of RGB triples per line

    def rgb(self, x: int, y: int) -> tuple[int, int, int]:
        row = self.pixels[y]
        return row[3 * x], row[3 * x + 1], row[3 * x + 2]


def decode_png(data: bytes) -> Image:
    """An 8-bit RGB or RGBA, non-interlaced PNG (what Chromium's screenshots are) as RGB rows."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = color = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytearray] = []
    prev = bytearray(stride)
    i = 0
    for _ in range(height):
        filt, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if filt == 1:
                line[x] = (line[x] + a) & 0xFF
            elif filt == 2:
                line[x] = (line[x] + b) & 0xFF
            elif filt == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(line)
        prev = line
    if bpp == 4:
        rows = [bytearray(b for k in range(0, stride, 4) for b in row[k : k + 3]) for row in rows]
    return Image(width, height, rows)


_SEQ = re.compile(r"\x1b(?:\[([0-9;?<>=]*)([ -/]*)([@-~])|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-B]|[=>78])")


def screen_cells(stream: str) -> dict[tuple[int, int], str]:
    """The terminal's cells after `stream` (what a textual-serve page was sent): (row, column)
    -> character, 0-based, a wide character in its first cell. Enough of a terminal for what
    Textual writes: cursor positioning, text, and clearing the screen."""
    cells: dict[tuple[int, int], str] = {}
    row = col = 0
    pos = 0
    for m in _SEQ.finditer(stream + "\x1b7"):
        for ch in stream[pos : m.start()]:
            if ch == "\r":
                col = 0
            elif ch == "\n":
                row += 1
            elif ch >= " ":
                width = cell_len(ch)
                cells[(row, col)] = ch
                if width == 2:
                    cells[(row, col + 1)] = ""
                col += width
        pos = m.end()
        params, final = m.group(1), m.group(3)
        if final == "H" and params is not None and "?" not in params:
            nums = [int(n) if n else 1 for n in params.split(";")] if params else [1, 1]
            row, col = nums[0] - 1, (nums[1] if len(nums) > 1 else 1) - 1
        elif final == "J" and params in ("2", "3"):
            cells.clear()
    return cells


def find_text(cells: dict[tuple[int, int], str], text: str) -> list[tuple[int, int]]:
    """Where `text` starts in `cells` (row, column), top to bottom."""
    found = []
    for row in sorted({r for r, _ in cells}):
        cols = sorted(c for r, c in cells if r == row and cells[(r, c)] != "")  # a character's first cell
        line = "".join(cells[(row, c)] for c in cols)
        at = line.find(text)
        while at >= 0:
            found.append((row, cols[at]))
            at = line.find(text, at + 1)
    return found


@dataclass
class Ink:
    """A cell's pixels against its background: how much of it is drawn, and how much of that
    lies inside its drawn frame (a box's inside is empty; a character's strokes cross it)."""

    drawn: float  # share of the cell's pixels that differ from its background
    inside: float  # share of the pixels inside the drawn bounding box, a quarter in from each side


def ink(image: Image, left: float, top: float, width: float, height: float, scale: float = 1.0) -> Ink:
    x0, y0 = round(left * scale), round(top * scale)
    x1, y1 = round((left + width) * scale), round((top + height) * scale)
    counts: dict[tuple[int, int, int], int] = {}
    for y in range(y0, y1):
        for x in range(x0, x1):
            px = image.rgb(x, y)
            counts[px] = counts.get(px, 0) + 1
    bg = max(counts, key=counts.__getitem__)
    marked = [(x, y) for y in range(y0, y1) for x in range(x0, x1) if sum(abs(a - b) for a, b in zip(image.rgb(x, y), bg, strict=True)) > 120]
    total = max(1, (x1 - x0) * (y1 - y0))
    if not marked:
        return Ink(0.0, 0.0)
    xs, ys = [x for x, _ in marked], [y for _, y in marked]
    bx0, bx1, by0, by1 = min(xs), max(xs), min(ys), max(ys)
    qx, qy = (bx1 - bx0) / 4, (by1 - by0) / 4
    inner = [(x, y) for x, y in marked if bx0 + qx < x < bx1 - qx and by0 + qy < y < by1 - qy]
    area = max(1.0, (bx1 - bx0 - 2 * qx) * (by1 - by0 - 2 * qy))
    return Ink(len(marked) / total, len(inner) / area)
