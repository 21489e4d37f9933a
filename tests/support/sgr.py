"""What a terminal was told about colour and attributes: the SGR escapes (`ESC [ ... m`) of a
screen captured with them (`tmux capture-pane -e -p`).

`colour_codes` finds every code that sets a colour (NO_COLOR allows none: no-color.org);
`attributed_text` gives, per line, the text drawn with an attribute (reverse, underline...).
"""

from __future__ import annotations

import re

_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
#: SGR codes that set a colour: the 8 and bright 16 colours, foreground and background
_PALETTE = {*range(30, 38), *range(40, 48), *range(90, 98), *range(100, 108)}
#: SGR codes that set an attribute, and the codes that clear it
ATTRIBUTES = {
    "bold": (1, {0, 22}),
    "dim": (2, {0, 22}),
    "italic": (3, {0, 23}),
    "underline": (4, {0, 24}),
    "reverse": (7, {0, 27}),
    "strike": (9, {0, 29}),
}


def _codes(params: str) -> list[str]:
    return params.split(";") if params else ["0"]


def colour_codes(screen: str) -> list[str]:
    """Every SGR sequence of `screen` that sets a colour (`38;2;…`/`48;2;…` 24-bit, `38;5;…`/
    `48;5;…` 256 colours, 30-37/40-47/90-97/100-107, `58` underline colour), as written.
    39 and 49 (the terminal's own foreground and background) are no colour."""
    found = []
    for params in _SGR.findall(screen):
        for part in _codes(params):  # the first colour code is enough (38;5;n: n is its argument)
            head = part.split(":")[0]
            code = int(head) if head.isdigit() else -1
            if code in (38, 48, 58) or code in _PALETTE:
                found.append(params)
                break
    return found


def attributed_text(screen: str, attribute: str) -> list[str]:
    """Per line of `screen`, the characters drawn with `attribute` ("reverse", "underline",
    "bold", ...), runs joined by a space: what that line shows with it."""
    on_code, off_codes = ATTRIBUTES[attribute]
    out = []
    state = False
    for line in screen.split("\n"):
        runs: list[str] = []
        current: list[str] = []
        for i, piece in enumerate(_SGR.split(line)):  # text, parameters, text, ...
            if i % 2:
                for code in _codes(piece):
                    head = code.split(":")[0]
                    value = int(head) if head.isdigit() else -1
                    if value == on_code:
                        state = True
                    elif value in off_codes:
                        state = False
                continue
            if state:
                current.append(piece)
            elif current:
                runs.append("".join(current))
                current = []
        if current:
            runs.append("".join(current))
        out.append(" ".join(runs))
    return out
