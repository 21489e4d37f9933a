#!/usr/bin/env python3
"""Hostile input: generated item files, question bodies and configs, and a corpus of broken or
malicious files run through `atk wi list` (pty and --json) and the dashboard (tmux).

    python bench/fuzz.py [--examples N] [--mutations N] [--no-tmux] [--seed N]

Properties (hypothesis; tests/soak/test_hostile_corpus.py runs them at CI size with the same
strategies and checks):

* `items._parse` (what `parse_item` wraps in a last-resort `except`) never raises, so the
  safety net is never what answers; defects are non-empty strings; a file without defects has
  a valid kind, a target_repo and valid dependency names.
* `questions._parse` (what `parse_questions` wraps) never raises.
* `core.config.load_config` / `resolve_store` raise nothing but `ConfigError`, and
  `tui.config.load_tui_config` never raises and returns well-typed settings, on arbitrary TOML
  (and arbitrary bytes) in $XDG_CONFIG_HOME/atk/config.toml.

The corpus (`hostile_corpus()`): more than 40 kinds of broken or malicious files, committed
into a store, each with the defect `atk wi list` must name (or the escaped form its text must
be shown in). `check_list_outputs` and `check_dashboard` run the real binaries on it. Issue 10
added links out of the store (relative item link, a committed linked state folder, a linked
plan file: never read, named as store defects), conflict markers, OSC sequences in frontmatter
keys, closing/click markup in titles, U+061C, and a UWI with 10,000 questions.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import random
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atk_tui.domain.model import FILENAME_RE, RESERVED_KEYS, Item
from atk_tui.host.config import ConfigError, load_config, resolve_store
from atk_tui.itemfile import items as items_mod
from atk_tui.itemfile import questions as questions_mod
from atk_tui.text.textsafe import safe_line
from support.environ import patched_environ

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

# ---------------------------------------------------------------------------------------------
# properties


def check_item(filename: str, data: bytes) -> Item:
    """`_parse` must not raise (parse_item's catch-all must never be what answers)."""
    item = items_mod._parse(filename, "inbox", data, None)
    assert isinstance(item, Item)
    assert isinstance(item.defects, list) and all(isinstance(d, str) and d.strip() for d in item.defects)
    assert isinstance(item.title, str)
    assert item.fm_block + item.body == item.text
    if not item.defects:
        assert item.kind in ("awi", "uwi"), item.kind
        assert isinstance(item.target_repo, str) and item.target_repo.strip()
        assert all(FILENAME_RE.match(d) for d in item.depends_on)
        assert item.urgency in ("blocking", "next-review", "informational")
        assert item.cooldown_until is None or item.cooldown_until.tzinfo is not None
    wrapped = items_mod.parse_item(filename, "inbox", data)
    assert not any(d.startswith("could not be read:") for d in wrapped.defects), wrapped.defects
    return item


def check_questions(body: str) -> None:
    parsed = questions_mod._parse(body)
    assert parsed.form in ("markdown", "checkpoint", "free")
    assert parsed.questions, "at least one question"
    for q in parsed.questions:
        assert isinstance(q.text, str)
        assert q.recommendation is None or any(o.letter == q.recommendation for o in q.options)


def check_config(xdg: Path, data: bytes) -> None:
    """Write `data` as the config file and load it every way the programs do."""
    from textual.theme import BUILTIN_THEMES

    from atk_tui.tui.config import SORTS, load_tui_config

    path = xdg / "atk" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    with patched_environ(XDG_CONFIG_HOME=str(xdg), ATK_PRIVATE_NOTES=None):
        try:
            load_config()
        except ConfigError as exc:
            assert str(exc)
        try:
            resolve_store(None)
        except ConfigError as exc:
            assert str(exc)
        cfg = load_tui_config(set(BUILTIN_THEMES))
        assert isinstance(cfg.theme, str)
        assert isinstance(cfg.pull_interval, float) and cfg.pull_interval >= 0
        assert cfg.default_sort in SORTS
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in cfg.keys.items())
        assert all(isinstance(e, str) for e in cfg.errors)


# ---------------------------------------------------------------------------------------------
# strategies

_nasty_chars = st.sampled_from(
    [
        "\x00", "\x1b", "\x07", "\x9b", "\x9d", "\u202e", "\u2066", "\ufeff", "\r", "\r\n", "\t", "\x7f",
        "\u2028", "\u3000", "—", "：", "Ａ", "#", "-", ":", "*", "&", "!", "|", ">", "'",
        '"', "[", "]", "{", "}", "%", "@", "`", "\\", "回答", "質問",
    ]
)  # fmt: skip
_text = st.lists(st.one_of(st.characters(codec="utf-8"), _nasty_chars), max_size=40).map("".join)
_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), _text,
    st.sampled_from(["awi", "uwi", "blocking", "next-review", "informational", "acme/api",
                     "2026-11-30T09:00:00+09:00", "2026-11-30T09:00:00", "2026-11-30", "a.md",
                     "../../etc/passwd.md", "20261129-101500-x.md", "yes", "~", "null", "0x1F"]),
)  # fmt: skip
_values = st.recursive(
    _scalar, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_text, inner, max_size=4)),
    max_leaves=12,
)  # fmt: skip
_keys = st.one_of(st.sampled_from(RESERVED_KEYS), _text)


@st.composite
def frontmatter_yaml(draw: st.DrawFn) -> str:
    """YAML text: dumped mappings (valid or not for atk), or hand-made lines that break YAML."""
    import yaml

    mode = draw(st.integers(0, 3))
    if mode == 0:
        mapping = draw(st.dictionaries(_keys, _values, max_size=8))
        if draw(st.booleans()):
            mapping.setdefault("kind", draw(st.sampled_from(["awi", "uwi"])))
            mapping.setdefault("target_repo", "acme/api")
        try:
            return yaml.safe_dump(mapping, allow_unicode=draw(st.booleans()), sort_keys=False)
        except yaml.YAMLError:
            return "kind: awi\n"
    if mode == 1:
        lines = ["kind: awi", "target_repo: acme/api"]
        for _ in range(draw(st.integers(0, 6))):
            lines.append(draw(st.sampled_from([
                "depends_on: [a.md, b.md]", "depends_on: a.md", "depends_on:\n  - x.md\n  - ../y.md",
                "cooldown_until: 2026-11-30T09:00:00", "cooldown_until: 2026-11-30T09:00:00Z",
                "created: 2026-13-45", "urgency: soon", "kind: question", "plan_file: /etc/passwd",
                "x: &a [1, 2]", "y: *a", "z: !!python/object/apply:os.system ['true']", "w: !!binary aGk=",
                "<<: {kind: uwi}", "? complex\n: key", "target_repo: ''", "target_repo: [a]", "note: |\n  multi\n  line",
                "commit: 0123456789", "source: 12", "kind: awi\nkind: uwi", "	tab: indented", "- a list item",
                "'unterminated: x", "key: \"\\x1b]52;c;aGk=\\x07\"", "%YAML 1.1", "---", "...",
            ])))  # fmt: skip
        if draw(st.booleans()):
            lines.append(f"{draw(_text)}: {draw(_text)}")
        draw(st.randoms()).shuffle(lines)
        return "\n".join(lines) + "\n"
    if mode == 2:
        return draw(_text) + "\n"
    return draw(st.text(max_size=300))


_body_lines = st.one_of(
    _text,
    st.sampled_from([
        "# Title", "# ", "#", "## 回答", "## Answer", "## ユーザーコメント", "## User comment", "## 質問", "## 質問 2",
        "## Question", "- A) Strict -- safer", "- B) Lenient", "推奨: A)", "Recommendation: B", "```", "~~~",
        "AWAITING_USER_INPUT", "---", "Options:", "1. Which?", "Urgency: blocking", "- 反映内容: x", "## 背景",
        "# \x1b]52;c;aGk=\x07 title", "# \u202eevil", "   ", "",
    ]),
)  # fmt: skip


@st.composite
def question_bodies(draw: st.DrawFn) -> str:
    lines = draw(st.lists(_body_lines, max_size=30))
    sep = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return sep.join(lines)


@st.composite
def item_files(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.one_of(
        st.just("20261129-101500-fuzz.md"), st.from_regex(FILENAME_RE, fullmatch=True),
        st.text(max_size=30).map(lambda t: t + ".md"),
    ))  # fmt: skip
    mode = draw(st.integers(0, 4))
    if mode == 0:
        return name, draw(st.binary(max_size=600))
    if mode == 1:
        return name, draw(st.text(max_size=600)).encode("utf-8", "surrogatepass")
    fm = draw(frontmatter_yaml())
    body = draw(question_bodies())
    opener = draw(st.sampled_from(["---\n", "---\r\n", "\ufeff---\n", "--- \n", "---"]))
    closer = draw(st.sampled_from(["---\n", "---\r\n", "...\n", "---", ""]))
    text = f"{opener}{fm}{closer}{body}"
    data = text.encode("utf-8", "surrogatepass")
    if mode == 4 and data:
        # byte-level damage
        buf = bytearray(data)
        for _ in range(draw(st.integers(1, 6))):
            pos = draw(st.integers(0, len(buf) - 1))
            buf[pos] = draw(st.integers(0, 255))
        data = bytes(buf)
    return name, data


_toml_keys = st.one_of(
    st.sampled_from(["private_notes", "theme", "pull_interval", "default_sort", "keys", "hold", "tui", "x"]),
    st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True),
)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)  # inf, -inf and nan are TOML floats too
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string is a JSON string for these characters
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    return '""'


_toml_scalar = st.one_of(
    st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False), st.text(max_size=40),
    st.sampled_from(["textual-dark", "nord", "needs-you", "oldest", "/tmp/x", "~/notes", "\x00", "H", "ctrl+x"]),
)  # fmt: skip
_toml_values = st.recursive(
    _toml_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_toml_keys, inner, max_size=3)),
    max_leaves=8,
)  # fmt: skip


@st.composite
def config_files(draw: st.DrawFn) -> bytes:
    mode = draw(st.integers(0, 3))
    if mode == 0:
        return draw(st.binary(max_size=300))
    if mode == 1:
        return draw(st.text(max_size=300)).encode("utf-8", "surrogatepass")
    lines = []
    top = draw(st.dictionaries(st.sampled_from(["private_notes", "x"]), _toml_values, max_size=2))
    lines += [f"{k} = {_toml_value(v)}" for k, v in top.items()]
    tui = draw(st.dictionaries(st.sampled_from(["theme", "pull_interval", "default_sort", "keys", "extra"]),
                               _toml_values, max_size=5))  # fmt: skip
    if tui or draw(st.booleans()):
        lines.append(draw(st.sampled_from(["[tui]", "[[tui]]", "[tui.keys]", "[ tui ]"])))
        lines += [f"{k} = {_toml_value(v)}" for k, v in tui.items()]
    if mode == 3:
        lines.append(draw(st.sampled_from(["tui = 5", "[tui", "keys = {hold = }", "private_notes = \"\\u0000\"",
                                           "private_notes = '''\nmulti\n'''", "a.b.c = 1"])))  # fmt: skip
    return "\n".join(lines).encode("utf-8", "surrogatepass")


# ---------------------------------------------------------------------------------------------
# the corpus


@dataclass
class Case:
    kind: str  # what is hostile about it
    filename: str  # str, or bytes-decoded with surrogateescape for names that are not UTF-8
    data: bytes = b""
    state: str = "inbox"
    defect: str | None = None  # a substring of the defect `atk wi list` must name
    escaped: list[str] = field(default_factory=list)  # escaped forms the text must appear in
    special: str | None = None  # "symlink", "two-states", or one of LINK_SPECIALS
    link: str = "/etc/passwd"  # where a "symlink" case points
    answered: bool | None = None  # a question: whether `atk wi list` must count it answered


#: cases that are no regular item file (a linked folder, a linked plan): listed through their
#: store defect or readiness reason, never parsed as a file of their own
LINK_SPECIALS = ("state-dir-link", "plan-link")
#: the cases `atk wi list --json` has no row for
UNLISTED = ("symlink", "state-dir-link")


OK_FM = "---\nkind: awi\ntarget_repo: acme/api\ncreated: 2026-11-29T05:12:00Z\n---\n"


def _ok(title: str, body: str = "- 反映内容: x\n") -> bytes:
    return (OK_FM + f"# {title}\n\n{body}").encode("utf-8", "surrogatepass")


_TWO_Q = (
    "---\nkind: uwi\ntarget_repo: acme/api\n---\n# two questions\n\n## 質問 1\nFirst?\n\n- A) yes -- y\n- B) no -- n\n\n"
    "## 質問 2\nSecond?\n\n- A) yes -- y\n- B) no -- n\n"
).encode()


def hostile_corpus(marker: Path) -> list[Case]:
    """Broken and malicious files. `marker` is a path a successful code-execution attack would create."""
    laughs = "".join(
        f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9) if i else ', '.join(['lol'] * 9)}]\n" for i in range(10)
    )
    deep = "kind: awi\ntarget_repo: acme/api\nx: " + "[" * 20000 + "]" * 20000 + "\n"
    deep_map = (
        "kind: awi\ntarget_repo: acme/api\nx:\n"
        + "".join("  " * i + f"k{i}:\n" for i in range(1, 3000))
        + "  " * 3000
        + "v: 1\n"
    )
    c = [
        Case("yaml-python-tag", "20261129-000001-python-tag.md",
             f"---\nkind: awi\ntarget_repo: acme/api\nx: !!python/object/apply:os.system ['touch {marker}']\n---\n# rce\n".encode(),
             defect="YAML error"),
        Case("yaml-python-name", "20261129-000002-python-name.md",
             b"---\nkind: !!python/name:os.system awi\ntarget_repo: acme/api\n---\n# rce 2\n", defect="YAML error"),
        Case("billion-laughs", "20261129-000003-billion-laughs.md",
             f"---\nkind: awi\ntarget_repo: acme/api\n{laughs}---\n# laughs\n".encode(), defect="anchors/aliases"),
        Case("huge-body-50mb", "20261129-000004-huge-body.md", OK_FM.encode() + b"# huge\n\n" + b"x" * (50 * 1024 * 1024),
             defect="file too large"),
        Case("nul-bytes", "20261129-000005-nul-bytes.md", _ok("nul\x00title"), defect="NUL"),
        Case("rtl-override-title", "20261129-000006-rtl.md", _ok("invoice \u202egnp.exe"), escaped=["\\u202e"]),
        Case("osc52-clipboard-title", "20261129-000007-osc52.md", _ok("copy \x1b]52;c;cm0gLXJmIH4=\x07 me"),
             escaped=["\\x1b]52;c;cm0gLXJmIH4=\\x07"]),
        Case("osc8-hyperlink-title", "20261129-000008-osc8.md", _ok("click \x1b]8;;http://x.invalid\x1b\\here\x1b]8;;\x1b\\"),
             escaped=["\\x1b]8;;http://x.invalid"]),
        Case("csi-clear-screen-title", "20261129-000009-csi.md", _ok("wipe \x1b[2J\x1b[H\x1b[31mred"), escaped=["\\x1b[2J"]),
        Case("c1-controls-title", "20261129-000010-c1.md", _ok("c1 \x9b31m \x9d0;owned\x9c end"), escaped=["\\x9b", "\\x9d"]),
        Case("invalid-utf8", "20261129-000011-invalid-utf8.md", OK_FM.encode() + b"# bad \xff\xfe bytes\n", defect="not valid UTF-8"),
        Case("bom", "20261129-000012-bom.md", b"\xef\xbb\xbf" + _ok("with a BOM")),
        Case("crlf", "20261129-000013-crlf.md", _ok("crlf line ends").replace(b"\n", b"\r\n")),
        Case("huge-yaml-key", "20261129-000014-huge-key.md",
             f"---\nkind: awi\ntarget_repo: acme/api\n{'k' * 200_000}: v\n---\n# huge key\n".encode()),
        Case("deeply-nested-yaml", "20261129-000015-deep-yaml.md", f"---\n{deep}---\n# deep\n".encode(), defect=""),
        Case("deeply-nested-mapping", "20261129-000016-deep-map.md", f"---\n{deep_map}---\n# deep map\n".encode(), defect=""),
        Case("no-frontmatter", "20261129-000017-no-frontmatter.md", b"# just markdown\n", defect="no frontmatter"),
        Case("unterminated-frontmatter", "20261129-000018-unterminated.md", b"---\nkind: awi\ntarget_repo: a\n# t\n",
             defect="no frontmatter"),
        Case("frontmatter-not-a-mapping", "20261129-000019-list-fm.md", b"---\n- a\n- b\n---\n# list\n", defect="not a mapping"),
        Case("wrong-types", "20261129-000020-wrong-types.md",
             b"---\nkind: 5\ntarget_repo: [a]\ndepends_on: x.md\n---\n# types\n", defect="kind"),
        Case("path-traversal-dependency", "20261129-000021-traversal.md",
             b"---\nkind: awi\ntarget_repo: acme/api\ndepends_on: [../../etc/passwd.md]\n---\n# traversal\n", defect="bad filename"),
        Case("cooldown-without-timezone", "20261129-000022-cooldown.md",
             b"---\nkind: awi\ntarget_repo: acme/api\ncooldown_until: 2026-11-30T09:00:00\n---\n# tz\n", defect="timezone"),
        Case("unknown-kind-and-urgency", "20261129-000023-unknown-kind.md",
             b"---\nkind: question\ntarget_repo: acme/api\nurgency: now\n---\n# kind\n", defect="kind"),
        Case("empty-file", "20261129-000024-empty.md", b"", defect="empty file"),
        Case("escape-in-filename", "20261129-\x1b]52;c;aGk=\x07.md", _ok("evil name"), defect="bad filename",
             escaped=["\\x1b]52;c;aGk=\\x07"]),
        Case("non-utf8-filename", os.fsdecode(b"20261129-000026-\xff\xfe.md"), _ok("latin-1 name"), defect="bad filename"),
        Case("rich-markup-title", "20261129-000027-markup.md", _ok("[bold red]not bold[/] [link=http://x.invalid]l[/link]"),
             escaped=["[bold red]not bold[/]"]),
        Case("escape-in-target-repo", "20261129-000028-repo-escape.md",
             b"---\nkind: awi\ntarget_repo: \"acme/\\e]52;c;aGk=\\a\"\n---\n# repo escape\n", escaped=["\\x1b]52;c;aGk="]),
        Case("symlink-to-etc-passwd", "20261129-000029-symlink.md", special="symlink"),
        Case("same-name-in-two-states", "20261129-000030-twice.md", _ok("twice"), special="two-states",
             defect="2 states"),
        Case("zero-width-and-bidi-isolates", "20261129-000031-bidi.md", _ok("a\u2066b\u2069c\u200fd\ufeffe"),
             escaped=["\\u2066"]),
        Case("del-and-backspace", "20261129-000032-del.md", _ok("del\x7f back\x08\x08\x08spaced"), escaped=["\\x7f", "\\x08"]),
        Case("very-long-title", "20261129-000033-long-title.md", _ok("W" * 20000)),
        Case("hostile-uwi-options", "20261129-000034-uwi.md",
             ("---\nkind: uwi\ntarget_repo: acme/api\n---\n# pick \x1b[5m\n\n## 質問\nWhich?\n\n"
              "- A) \x1b]52;c;aGk=\x07 -- clip\n- B) [red]markup[/red] -- x\n\n推奨: A)\n").encode(), escaped=["\\x1b[5m"]),
        Case("duplicate-keys", "20261129-000035-dup-keys.md", b"---\nkind: awi\nkind: uwi\ntarget_repo: a\n---\n# dup\n",
             defect="duplicate key 'kind'"),
        Case("yaml-merge-key", "20261129-000036-merge.md",
             b"---\nbase: &b {kind: awi, target_repo: acme/api}\n<<: *b\n---\n# merge\n"),
        Case("old-mac-cr-only", "20261129-000037-cr.md", _ok("carriage returns").replace(b"\n", b"\r"), defect="no frontmatter"),
        # issue 10
        Case("symlink-relative-out-of-store", "20261129-000038-rel-link.md", special="symlink", link="../../../outside.md"),
        Case("symlinked-state-folder", "20261129-000039-planted.md", _ok("planted outside the store"), state="adopted",
             special="state-dir-link"),
        Case("symlinked-plan-file", "20261129-000040-plan-link.md",
             (OK_FM.replace("created:", "plan_file: $(atk config get private_notes)/plans/evil.md\ncreated:")
              + "# plan through a link\n").encode(), special="plan-link"),
        Case("conflict-markers", "20261129-000041-conflict.md",
             (OK_FM + "<<<<<<< HEAD\n# mine\n=======\n# theirs\n>>>>>>> abc123 (edit)\n").encode(), defect="conflict markers"),
        Case("osc-in-frontmatter-key", "20261129-000042-key-osc.md",
             b'---\nkind: awi\ntarget_repo: acme/api\n"\\e]52;c;Y3VybCBldmlsIHwgc2g=\\e\\\\x": 1\n"\\e]2;owned\\a": 2\n---\n# key osc\n'),
        Case("markup-close-tags-title", "20261129-000043-close-tags.md", _ok("[/j] and [/] and [@click=app.push]go[/]"),
             escaped=["[/j] and [/] and [@click=app.push]go[/]"]),
        Case("arabic-letter-mark-title", "20261129-000044-alm.md", _ok("alm \u061c here"),
             escaped=["\\u061c"] if safe_line("\u061c") != "\u061c" else []),
        Case("uwi-10000-questions", "20261129-000045-many-questions.md",
             ("---\nkind: uwi\ntarget_repo: acme/api\n---\n# many\n\n## 質問\n"
              + "".join(f"{i}. Question {i}?\n   - A) yes -- y\n   - B) no -- n\n" for i in range(1, 10001))).encode(),
             # listed (--status all) but not in the dashboard's walk: its forms are the TUI's part of issue 10
             state="rejected"),
        Case("atk-trailer-markup-title", "20261129-000046-trailer.md", _ok("Atk-Actor: [/x] [@click=screen.submit]s[/]"),
             escaped=["[@click=screen.submit]s[/]"]),
        # issue 25
        Case("newline-tab-in-filename", "20261129-000047-x.md\n\tatk: all good\t.md", _ok("fake stderr line"),
             defect="bad filename", escaped=["\\x0a\\x09atk: all good"]),
        Case("uwi-empty-choice-line", "20261129-000048-empty-choice.md", _TWO_Q + "\n## 回答\n\n- 1: A) yes\n- 2:\n".encode(),
             answered=False),
        Case("uwi-other-without-text", "20261129-000049-bare-other.md",
             _TWO_Q + "\n## 回答\n\n- 1: A) yes\n- 2: other — see notes\n".encode(), answered=False),
        Case("uwi-complete-answer", "20261129-000050-complete.md",
             _TWO_Q + "\n## 回答\n\n- 1: A) yes\n- 2: other — see notes\n\nneither, a third way\n".encode(), answered=True),
        Case("cooldown-past-year-9999", "20261129-000051-cooldown-9999.md",
             b"---\nkind: awi\ntarget_repo: acme/api\ncooldown_until: 9999-12-31T23:59:59-05:00\n---\n# far\n", defect="out of range"),
        Case("duplicate-nested-key", "20261129-000052-dup-nested.md",
             b"---\nkind: awi\ntarget_repo: acme/api\nx: {a: 1, a: 2}\n---\n# dup nested\n", defect="duplicate key 'a'"),
        # issue 25, the independent check's variants
        Case("uwi-letter-not-an-option", "20261129-000053-no-such-option.md",
             _TWO_Q + "\n## 回答\n\n- 1: A) yes\n- 2: C) maybe\n".encode(), answered=False),
        Case("uwi-zero-width-answer", "20261129-000054-zero-width.md",
             _TWO_Q + "\n## 回答\n\n- 1: A) yes\n- 2: \u200b\u2060\ufeff\u3164\n".encode(), answered=False),
        Case("uwi-other-with-invisible-notes", "20261129-000055-invisible-notes.md",
             _TWO_Q + "\n## 回答\n\n- 1: A) yes\n- 2: other — see notes\n\n\u200b\u00ad\n".encode(), answered=False),
        Case("duplicate-key-quoted", "20261129-000056-dup-quoted.md",
             b"---\nkind: awi\ntarget_repo: acme/api\n'kind': uwi\n---\n# dup quoted\n", defect="duplicate key 'kind'"),
        Case("duplicate-key-escaped", "20261129-000057-dup-escaped.md",
             b'---\nkind: awi\ntarget_repo: acme/api\n"k\\x69nd": uwi\n---\n# dup escaped\n', defect="duplicate key 'kind'"),
    ]  # fmt: skip
    return c


def build_hostile_store(tmp: Path) -> tuple[Path, list[Case]]:
    """A store with the corpus committed (in one commit, with git itself)."""
    from atk_tui.store import init_store

    root, _ = init_store(tmp / "hostile")
    marker = tmp / "PWNED"
    cases = hostile_corpus(marker)
    for case in cases:
        folder = root / "wi" / case.state
        path = os.path.join(os.fsencode(folder), os.fsencode(case.filename))
        if case.special == "symlink":
            os.symlink(case.link, path)
            continue
        if case.special == "state-dir-link":
            # a committed state folder that is a link out of the store, holding a planted item
            outside = tmp / "outside-store"
            outside.mkdir(exist_ok=True)
            (outside / case.filename).write_bytes(case.data)
            subprocess.run(["git", "rm", "-q", "-r", f"wi/{case.state}"], cwd=root, check=True, capture_output=True)
            shutil.rmtree(root / "wi" / case.state, ignore_errors=True)
            os.symlink(outside, root / "wi" / case.state)
            continue
        if case.special == "plan-link":
            os.symlink("/etc/passwd", root / "plans" / "evil.md")
        with open(path, "wb") as fh:
            fh.write(case.data)
        if case.special == "two-states":
            with open(os.path.join(os.fsencode(root / "wi" / "hold"), os.fsencode(case.filename)), "wb") as fh:
                fh.write(case.data)
    subprocess.run(["git", "add", "-A", "wi", "plans"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-q", "-m", "hostile corpus"], cwd=root, check=True, capture_output=True)
    return root, cases


# ---------------------------------------------------------------------------------------------
# running the real binaries

RAW_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def run_on_pty(argv: list[str], env: dict[str, str], cols: int = 4000, rows: int = 50, timeout: float = 120) -> bytes:
    """Run `argv` with stdout/stderr on a pseudo-terminal; return every byte it wrote."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR  # keep the program's own line ends
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    env = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}  # the pty's size decides
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    out = bytearray()
    deadline = time.time() + timeout
    while True:
        if time.time() > deadline:
            proc.kill()
            raise TimeoutError(f"{argv[:3]} did not finish on the pty")
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the other side is closed
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            # drain what is left
            while select.select([master], [], [], 0.05)[0]:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    break
                out += chunk
            break
    proc.wait(timeout=10)
    os.close(master)
    return bytes(out)


def atk_path() -> str:
    exe = BIN / "atk"
    return str(exe) if exe.exists() else "atk"


def check_list_outputs(root: Path, cases: list[Case], env: dict[str, str]) -> dict[str, Any]:
    """`atk wi list` as JSON (piped), as text (piped) and as text on a tty. Returns counts."""
    problems: list[str] = []
    base = [atk_path(), "wi", "list", "--status", "all", "--store", str(root)]
    proc = subprocess.run([*base, "--json"], capture_output=True, env=env, timeout=300)
    if proc.returncode != 0:
        problems.append(f"--json exit {proc.returncode}: {proc.stderr[-500:]!r}")
    rows = {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        rec = json.loads(line)
        rows[rec["filename"]] = rec
    text = subprocess.run([*base, "--no-json"], capture_output=True, env=env, timeout=300)
    if text.returncode != 0:
        problems.append(f"--no-json exit {text.returncode}")
    text_out = text.stdout.decode("utf-8", "replace")
    tty = run_on_pty([*base, "--no-json"], env)
    tty_text = tty.decode("utf-8", "replace")
    if b"\x1b" in tty:
        idx = tty.index(b"\x1b")
        problems.append(f"raw ESC on the tty near {tty[max(idx - 40, 0) : idx + 20]!r}")
    for ch in RAW_UNSAFE.findall(tty_text.replace("\r\n", "\n")):
        problems.append(f"raw control/bidi character U+{ord(ch):04X} on the tty")
        break
    if "Traceback" in tty_text or "Traceback" in text_out:
        problems.append("a traceback in the list output")
    for case in cases:
        name = case.filename  # JSON carries undecodable bytes as \udcXX escapes: the same str
        if case.special == "symlink":
            if f"{case.filename}: is a symbolic link" not in tty_text:
                problems.append(f"{case.kind}: the symlink store defect is not named on the tty")
            if name in rows:
                problems.append(f"{case.kind}: a symbolic link was listed as an item")
            continue
        if case.special == "state-dir-link":
            if f"wi/{case.state} is a symbolic link" not in tty_text:
                problems.append(f"{case.kind}: the linked state folder is not named as a store defect")
            if name in rows or "planted outside" in text_out or "planted outside" in tty_text:
                problems.append(f"{case.kind}: an item outside the store was listed")
            continue
        rec = rows.get(name)
        if rec is not None and case.special == "plan-link":
            if not any("plan file missing" in r for r in rec["reasons"]):
                problems.append(f"{case.kind}: a plan file reached through a link counts as present: {rec['reasons']}")
            if "root:" in json.dumps(rec):
                problems.append(f"{case.kind}: the linked plan file was read")
        if rec is None:
            problems.append(f"{case.kind}: {name!r} missing from --json")
            continue
        if case.defect is not None:
            if not rec["defects"]:
                problems.append(f"{case.kind}: no defect in --json")
            elif case.defect and not any(case.defect in d for d in rec["defects"]):
                problems.append(f"{case.kind}: defect {case.defect!r} not named: {rec['defects']}")
            first = rec["reasons"][0] if rec["reasons"] else ""
            line = next((ln for ln in text_out.splitlines() if "defective" in ln and (first in ln)), None)
            if not first or line is None:
                problems.append(f"{case.kind}: the text row does not name the defect ({first!r})")
        for esc in case.escaped:
            if esc not in tty_text:
                problems.append(f"{case.kind}: {esc!r} not shown escaped on the tty")
        if case.answered is not None and rec["answered"] is not case.answered:
            problems.append(f"{case.kind}: answered is {rec['answered']!r}, not {case.answered!r}")
    # stderr goes through the same sanitiser: one record a line, no raw tab (issue 25)
    err_text = text.stderr.decode("utf-8", "replace")
    if "\t" in err_text or any(not line.startswith("atk: ") for line in err_text.splitlines()):
        problems.append(f"a raw line break or tab on stderr: {err_text[:300]!r}")
    for ch in RAW_UNSAFE.findall(err_text.replace("\n", "")):
        problems.append(f"raw control/bidi character U+{ord(ch):04X} on stderr")
        break
    return {"json_rows": len(rows), "tty_bytes": len(tty), "problems": problems}


TMUX_CONF = "set -g set-clipboard on\nset -g remain-on-exit on\nset -g history-limit 100\n"


def check_dashboard(
    root: Path, cases: list[Case], env: dict[str, str], tmp: Path, *, steps: int | None = None
) -> dict[str, Any]:
    """The real `atk-tui --store` in tmux: loads, every item row and detail page is shown with
    its control characters escaped, nothing is interpreted (no OSC 52 buffer, no OSC in the
    escaped capture), and it does not crash while walking through every item."""
    tmux = shutil.which("tmux")
    if tmux is None:
        return {"skipped": "tmux not installed", "problems": []}
    sock = f"atk-fuzz-{os.getpid()}"
    conf = tmp / "tmux.conf"
    conf.write_text(TMUX_CONF)
    exe = BIN / "atk-tui"
    cmd = f"{exe if exe.exists() else 'atk-tui'} --store {root}"
    problems: list[str] = []
    tenv = dict(env, TERM="xterm-256color")

    def t(*args: str, check: bool = True) -> str:
        proc = subprocess.run([tmux, "-L", sock, "-f", str(conf), *args], capture_output=True, text=True, env=tenv,
                              timeout=30, errors="replace")  # fmt: skip
        if check and proc.returncode != 0:
            raise RuntimeError(f"tmux {args[0]}: {proc.stderr}")
        return proc.stdout

    frames: list[str] = []
    try:
        t("new-session", "-d", "-s", "fuzz", "-x", "250", "-y", "160", cmd)
        deadline = time.time() + 60
        screen = ""
        while time.time() < deadline:
            screen = t("capture-pane", "-p", "-t", "fuzz")
            if re.search(r"Inbox \d+", screen) and "Loading" not in screen:
                break
            if t("display-message", "-p", "-t", "fuzz", "#{pane_dead}").strip() == "1":
                break
            time.sleep(0.2)
        else:
            problems.append("the dashboard did not show the queue within 60 s")
        frames.append(screen)
        n_rows = len(cases) if steps is None else steps
        for _ in range(n_rows):
            t("send-keys", "-t", "fuzz", "Down")
            time.sleep(0.35)
            frames.append(t("capture-pane", "-p", "-t", "fuzz"))
        t("send-keys", "-t", "fuzz", "Tab")  # processing / hold panes too
        time.sleep(0.3)
        t("send-keys", "-t", "fuzz", "Tab")
        time.sleep(0.5)
        frames.append(t("capture-pane", "-p", "-t", "fuzz"))
        escaped = t("capture-pane", "-p", "-e", "-t", "fuzz")
        dead = t("display-message", "-p", "-t", "fuzz", "#{pane_dead}").strip() == "1"
        buffers = t("list-buffers", check=False).strip()
    finally:
        t("kill-server", check=False)
    text = "\n".join(frames)
    if dead:
        problems.append("the dashboard exited: " + frames[-1][-800:])
    if "Traceback" in text:
        problems.append("a traceback on screen")
    if buffers:
        problems.append(f"an OSC 52 clipboard write reached tmux: {buffers[:200]!r}")
    non_sgr = re.findall(r"\x1b(?!\[[0-9;:]*m)..", escaped)
    if non_sgr:
        problems.append(f"escape sequences other than colours in the pane: {non_sgr[:5]!r}")
    for ch in RAW_UNSAFE.findall(text):
        problems.append(f"raw control/bidi character U+{ord(ch):04X} on screen")
        break
    shown = [esc for case in cases for esc in case.escaped if esc[:12] in text]
    if not any("\\x1b]52" in s for s in shown):
        problems.append("the OSC 52 title is not shown escaped (\\x1b]52) anywhere")
    return {"frames": len(frames), "escaped_forms_seen": len(shown), "problems": problems}


# ---------------------------------------------------------------------------------------------
# the bench run


def run_property(name: str, strategy: st.SearchStrategy, check, examples: int, seed: int) -> int:
    count = 0

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=True)  # fmt: skip
    @given(strategy)
    def prop(x: Any) -> None:
        nonlocal count
        count += 1
        check(x)

    prop._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
    t0 = time.time()
    prop()
    print(f"  {name:12} {count:>8} examples  {time.time() - t0:6.1f} s")
    return count


def mutate_corpus(cases: list[Case], n: int, seed: int) -> int:
    """Random byte mutations of the corpus files (the 50 MB one trimmed), parsed directly."""
    rng = random.Random(seed)
    seeds = [(c.filename, c.data[:4096]) for c in cases if c.data]
    for _ in range(n):
        name, data = rng.choice(seeds)
        buf = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            op = rng.random()
            pos = rng.randrange(len(buf) + 1)
            if op < 0.4 and buf:
                buf[min(pos, len(buf) - 1)] = rng.randrange(256)
            elif op < 0.7:
                buf[pos:pos] = rng.choice([b"\n", b"---\n", b": ", b"&a ", b"*a", b"!!", b"\x1b]52;", b"\xff", b"\x00",
                                           b"[", b"{", b"\r", b"## \xe5\x9b\x9e\xe7\xad\x94\n", b"- A) x\n"])  # fmt: skip
            else:
                del buf[pos : pos + rng.randint(1, 16)]
        check_item(name, bytes(buf))
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=100_000, help="hypothesis examples in total (split over 3 targets)")
    ap.add_argument("--mutations", type=int, default=100_000, help="random byte mutations of the corpus")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-tmux", action="store_true")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="atk-fuzz-"))
    env = {k: v for k, v in os.environ.items() if k not in ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT")}
    env.update(XDG_CONFIG_HOME=str(tmp / "xdg"), GIT_CONFIG_NOSYSTEM="1")
    os.environ.update(XDG_CONFIG_HOME=str(tmp / "xdg"))
    total = 0
    failed = False
    try:
        print("hypothesis:")
        per = args.examples // 3
        xdg = tmp / "cfg"
        total += run_property("items", item_files(), lambda fx: check_item(*fx), per + args.examples % 3, args.seed)
        total += run_property("questions", question_bodies(), check_questions, per, args.seed)
        total += run_property("configs", config_files(), lambda b: check_config(xdg, b), per, args.seed)
        t0 = time.time()
        root, cases = build_hostile_store(tmp)
        n = mutate_corpus(cases, args.mutations, args.seed)
        print(f"  {'mutations':12} {n:>8} examples  {time.time() - t0:6.1f} s")
        print(f"generated examples in total: {total + n}")
        print(f"corpus: {len(cases)} kinds of hostile files committed to {root}")
        if (tmp / "PWNED").exists():
            print("FAIL: the YAML python tag executed code")
            failed = True
        t0 = time.time()
        lists = check_list_outputs(root, cases, env)
        print(f"atk wi list (--json, piped text, pty): {lists['json_rows']} rows, {len(lists['problems'])} problems, "
              f"{time.time() - t0:.1f} s")  # fmt: skip
        for p in lists["problems"]:
            print("  - " + p)
        failed |= bool(lists["problems"])
        if not args.no_tmux:
            t0 = time.time()
            dash = check_dashboard(root, cases, env, tmp)
            print(f"dashboard in tmux: {dash.get('frames', 0)} frames, {dash.get('escaped_forms_seen', 0)} escaped forms seen, "
                  f"{len(dash['problems'])} problems, {time.time() - t0:.1f} s {dash.get('skipped', '')}")  # fmt: skip
            for p in dash["problems"]:
                print("  - " + p)
            failed |= bool(dash["problems"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
