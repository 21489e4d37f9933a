"""Make the monospace CJK font `atk-tui --serve` bundles (issue 29): Noto Sans Mono CJK JP
(SIL Open Font License 1.1), cut down to what Japanese items need, as WOFF2.

    apt-get install fonts-noto-cjk && pip install fonttools brotli
    python scripts/font_subset.py

Kept: ASCII, Latin-1 punctuation, general punctuation and arrows, CJK symbols and punctuation,
hiragana, katakana (and their phonetic extensions), the half-width and full-width forms, and the
2,965 kanji of JIS X 0208 level 1 (the common ones: every jōyō kanji but a handful). Written to
atk_tui/tui/fonts/ next to its licence; nothing here runs when the app does.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")  # Debian's fonts-noto-cjk
FAMILY = "Noto Sans Mono CJK JP"
OUT = Path(__file__).resolve().parent.parent / "atk_tui" / "tui" / "fonts" / "atk-mono-cjk.woff2"
RANGES = [(0x20, 0x7E), (0xA0, 0xFF), (0x2010, 0x2027), (0x2030, 0x203B), (0x2190, 0x2199), (0x2460, 0x2473),
          (0x25A0, 0x25CF), (0x3000, 0x303F), (0x3040, 0x309F), (0x30A0, 0x30FF), (0x31F0, 0x31FF), (0xFF01, 0xFF9F)]  # fmt: skip


def jis_level_1() -> set[int]:
    """The kanji of JIS X 0208 rows 16-47 (level 1), through Python's EUC-JP codec."""
    out = set()
    for row in range(0xB0, 0xD0):
        for cell in range(0xA1, 0xFF):
            try:
                out.add(ord(bytes((row, cell)).decode("euc_jp")))
            except UnicodeDecodeError:
                continue
    return out


def main() -> int:
    fonts = TTCollection(str(SOURCE)).fonts
    font = next(f for f in fonts if f["name"].getDebugName(1) == FAMILY)
    codepoints = {c for a, b in RANGES for c in range(a, b + 1)} | jis_level_1()
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["vert", "vrt2", "halt", "palt", "kern"]
    options.name_IDs = ["*"]  # the copyright and licence names stay in the font
    options.hinting = False
    sub = subset.Subsetter(options)
    sub.populate(unicodes=codepoints)
    sub.subset(font)
    OUT.parent.mkdir(exist_ok=True)
    font.flavor = "woff2"
    font.save(str(OUT))
    print(f"{OUT}: {OUT.stat().st_size:,} bytes, {len(font.getBestCmap()):,} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
