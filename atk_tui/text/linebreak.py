"""Where a line of item text may break, for Japanese and for tokens (issue 29): the one rule every
wrapping site of both front ends uses (`line_starts`, `wrap`).

- Kinsoku (JIS X 4051, simplified): no line starts with closing punctuation, the prolonged sound
  mark, iteration marks or small kana (`、。）」ー々っ`…), and no line ends with an opening
  bracket (`「（【`…): the character is carried over with its neighbour.
- A token is never split: a run of characters without spaces and without Japanese in it (an
  ASCII word, a filename, a path, a URL) moves to the next line whole. Only a token wider than
  the whole line is folded, as anything wider than the line must be.
- Japanese text breaks between any two characters where kinsoku allows; Latin text at spaces.

Widths are in terminal cells (`cells.cell_len`): a CJK character takes two.
"""

from __future__ import annotations

from itertools import pairwise

from rich.cells import get_character_cell_size

#: characters that never start a line (closing brackets and punctuation, small kana, marks)
NO_START = frozenset(
    "、。，．,.)）]］｝}〕〉》」』】〙〗〟’”!！?？:：;；‐゠–〜～ー・･ヽヾゝゞ々〻"
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ"
    "ｧｨｩｪｫｯｬｭｮ"
)
#: characters that never end a line (opening brackets)
NO_END = frozenset("(（[［{｛〔〈《「『【〘〖〝‘“")


def _is_cjk(ch: str) -> bool:
    """A character between which and its neighbours a Japanese line may break: wide ones
    (kana, kanji, full-width forms) and Japanese punctuation."""
    return get_character_cell_size(ch) == 2 or (ord(ch) > 0x2000 and (ch in NO_START or ch in NO_END))


def _may_break(text: str, i: int) -> bool:
    """May a line start at `text[i]` (0 < i < len(text))?"""
    before, ch = text[i - 1], text[i]
    if ch.isspace():
        return False  # spaces stay at the end of the line before (they hang)
    if ch in NO_START or before in NO_END:
        return False
    if before.isspace():
        return True
    return _is_cjk(before) or _is_cjk(ch)  # inside a token (no space, no Japanese): never


def line_starts(text: str, width: int) -> list[int]:
    """The offsets in `text` (one line, no newline) where each wrapped line after the first
    starts, for lines at most `width` cells wide (trailing spaces hang past the edge)."""
    starts: list[int] = []
    if width <= 0:
        return starts
    start, used, last_break = 0, 0, -1
    i = 0
    while i < len(text):
        ch = text[i]
        if i > start and _may_break(text, i):
            last_break = i
        size = get_character_cell_size(ch)
        if ch.isspace() or used + size <= width:
            used += size
            i += 1
            continue
        # `ch` does not fit: break at the last opportunity on this line, else fold here
        if last_break > start:
            cut = last_break
        else:
            cut = i if i > start else i + 1
            # a folded token still keeps kinsoku where it can: carry one character over
            while start + 1 < cut < len(text) and (text[cut] in NO_START or text[cut - 1] in NO_END):
                cut -= 1
        starts.append(cut)
        start, used, last_break = cut, 0, -1
        i = cut
        while i < len(text) and text[i].isspace():  # (no line starts with the spaces of a break)
            i += 1
        if i != cut:
            starts[-1] = start = i
    return starts


def wrap(text: str, width: int) -> list[str]:
    """`text` as lines of at most `width` cells (its own newlines kept), trailing spaces cut."""
    out: list[str] = []
    for para in text.split("\n"):
        bounds = [0, *line_starts(para, width), len(para)]
        out.extend(para[a:b].rstrip() for a, b in pairwise(bounds))
    return out
