"""Merges of item text. `merge_texts`: the user's text merged into a newer stored version of
an item (`git merge-file`), the edit session's "no silent overwrite" (SPEC §11).
`merge_item`: the three-way merge of one item file over its parts (state, frontmatter keys,
`depends_on` as a set, body sections, the user-only sections), used when a pull replays a
commit that git could not rebase line by line (`store.remote`)."""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MERGE_LABELS = ("your text", "when you started", "stored now")


def merge_texts(base: bytes | None, stored: bytes, mine: bytes) -> tuple[bytes, int]:
    """Three-way merge of the user's text into the newer stored version (`git merge-file`):
    the result and how many conflicts are marked in it. Without a base every difference is
    a conflict."""
    with tempfile.TemporaryDirectory(prefix="atk-merge-") as tmp:
        paths = [Path(tmp, n) for n in ("mine", "base", "stored")]
        for path, data in zip(paths, (mine, base or b"", stored), strict=True):
            path.write_bytes(data)
        argv = ["git", "merge-file", "-p"]
        for label in MERGE_LABELS:
            argv += ["-L", label]
        proc = subprocess.run([*argv, *map(str, paths)], capture_output=True, check=False)
    if proc.returncode < 0 or proc.returncode > 127:
        # git could not merge (binary text?): both versions, one after the other
        both = b"<<<<<<< your text\n" + mine + b"\n=======\n" + stored + b"\n>>>>>>> stored now\n"
        return both, 1
    return proc.stdout, proc.returncode


# -- the three-way merge of one item over its parts (issue 39) ----------------------------

#: one side of an item merge: (state folder, file bytes), or None where the item is absent
Version = tuple[str, bytes] | None

_LEAD = "\x00lead"  # the frontmatter's leading comment or blank lines, before its first key
_DEPENDS = "depends_on"


@dataclass(frozen=True)
class ItemMerge:
    """What `merge_item` made: `result` (the merged version, None: the item is deleted) when
    `conflicts` is empty; else the parts both sides changed differently, by name ("state",
    "frontmatter key depends_on", "section '## 背景'", ...), and `result` None."""

    result: Version
    conflicts: tuple[str, ...] = ()
    #: the parts taken from each side ("state", "depends_on", "section '## x'" ...): what the
    #: merge brought together, for the one-line report
    parts: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.conflicts


_SAME = object()  # `_pick`'s "both sides changed the part differently"


def _pick(base: Any, mine: Any, theirs: Any) -> Any:
    """The three-way merge of one part: the side that changed it, either when both made the
    same change; `_SAME` when both changed it differently."""
    if mine == theirs:
        return mine
    if mine == base:
        return theirs
    if theirs == base:
        return mine
    return _SAME


def _ordered(base: list[str], mine: list[str], theirs: list[str], keep: set[str]) -> list[str]:
    """The merged order of the kept part names: theirs' order, with a part only mine has put
    right after the part that precedes it in mine (or first)."""
    out = [k for k in theirs if k in keep]
    for i, k in enumerate(mine):
        if k not in keep or k in out:
            continue
        before = next((p for p in reversed(mine[:i]) if p in out), None)
        out.insert(out.index(before) + 1 if before is not None else 0, k)
    return out


def _split_text(text: str) -> tuple[str, str, str, str] | None:
    """(opening delimiter line, frontmatter, closing delimiter line, body); None without a
    frontmatter block."""
    from atk_tui.itemfile.items import split_frontmatter

    parts = split_frontmatter(text)
    if parts is None:
        return None
    head, fm, body = parts
    opening = head[: head.index("\n") + 1]
    if not head.startswith(opening + fm):
        return None
    return opening, fm, head[len(opening) + len(fm) :], body


def _fm_parts(fm: str) -> dict[str, str] | None:
    """The frontmatter's top-level keys and their lines as written (None: a key repeated)."""
    from atk_tui.itemfile.items import frontmatter_chunks

    out: dict[str, str] = {}
    for key, text in frontmatter_chunks(fm):
        name = _LEAD if key is None else key
        if name in out:
            return None
        out[name] = text
    return out


def _deps(chunk: str | None) -> list[str] | None:
    """The filenames a `depends_on` entry lists (None: not a list of text)."""
    if chunk is None:
        return []
    from atk_tui.itemfile.items import fast_load

    data = fast_load(chunk)
    if data is None:
        try:
            import yaml

            data = yaml.safe_load(chunk)
        except Exception:  # any YAML failure: not a list that can be merged
            return None
    value = data.get(_DEPENDS) if isinstance(data, dict) else None
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return list(value)


def _merge_deps(base: str | None, mine: str | None, theirs: str | None) -> tuple[str | None, bool]:
    """`depends_on` as a set: both sides' additions and removals applied (the result keeps
    theirs' order, then mine's additions). (the entry's text, None: no key; False: not a
    list on some side, merged as a whole then)."""
    b, m, t = _deps(base), _deps(mine), _deps(theirs)
    if b is None or m is None or t is None:
        return None, False
    removed = (set(b) - set(m)) | (set(b) - set(t))
    merged = [d for d in dict.fromkeys([*t, *m]) if d not in removed]
    if merged == m:
        return mine, True
    if merged == t:
        return theirs, True
    if not merged:
        return None, True
    from atk_tui.itemfile.items import dump_value

    sample = theirs or mine or base or "\n"
    eol = "\r\n" if sample.rstrip(" \t").endswith("\r\n") else "\n"
    return dump_value(_DEPENDS, merged)[:-1] + eol, True


def _section_parts(body: str) -> tuple[list[str], dict[str, str], dict[str, str | None]]:
    """The body's H1/H2 sections: their names in order (the heading's key, numbered when it
    repeats; the text before the first heading is "\x00pre"), their text (heading line
    included), and which of them are user-only ("answer", "comment", else None)."""
    from atk_tui.itemfile import sections

    order: list[str] = []
    texts: dict[str, str] = {}
    kinds: dict[str, str | None] = {}
    seen: dict[str, int] = {}
    for sec in sections.split_sections(body):
        if sec.level == 0:
            key = "\x00pre"
        else:
            key = f"{sec.level} {sections.heading_key(sec.title)}"
        n = seen.get(key, 0)
        seen[key] = n + 1
        name = key if n == 0 else f"{key} #{n + 1}"
        order.append(name)
        texts[name] = body[sec.start : sec.end]
        kind = None
        if sec.level:
            kind = "answer" if sections.is_answer_heading(sec.title) else "comment" if sections.is_comment_heading(sec.title) else None
        kinds[name] = kind
    return order, texts, kinds


def _norm(text: str | None) -> str | None:
    """A section's text as compared: trailing blank lines and spaces do not count (a
    section that becomes the last one loses them when a comment is appended after it)."""
    return None if text is None else text.rstrip(" \t\r\n")


def _label(name: str, texts: dict[str, str]) -> str:
    if name == "\x00pre":
        return "the text before the first heading"
    line = texts.get(name, "").split("\n", 1)[0].strip()
    return f"section '{line}'" if line else f"section {name}"


def _merge_body(base: str, mine: str, theirs: str, mine_user: bool, theirs_user: bool) -> tuple[str | None, list[str], list[str]]:
    """(merged body or None, conflicts, parts merged)."""
    bo, bt, _ = _section_parts(base)
    mo, mt, mk = _section_parts(mine)
    to, tt, tk = _section_parts(theirs)
    kinds = {**mk, **tk}
    keep: dict[str, str] = {}
    ended: set[str] = set()  # kept from a side where it was the last section
    conflicts: list[str] = []
    parts: list[str] = []
    # an answer is to the question as the person read it: answered on one side while the
    # question's text changed on the other is a conflict, never an answer under a question
    # the person did not see (SPEC §11); a comment merges with an edit of other parts
    names = list(dict.fromkeys([*bo, *mo, *to]))

    def changed(side: dict[str, str], answer: bool) -> bool:
        return any((kinds.get(n) == "answer") == answer and kinds.get(n) != "comment"
                   and _norm(side.get(n)) != _norm(bt.get(n)) for n in names)

    if (changed(mt, True) and changed(tt, False)) or (changed(tt, True) and changed(mt, False)):
        conflicts.append("the question's text changed on one side while it was answered on the other")
        return None, conflicts, parts
    for name in dict.fromkeys([*bo, *mo, *to]):
        b, m, t = bt.get(name), mt.get(name), tt.get(name)
        picked = _pick(_norm(b), _norm(m), _norm(t))
        if kinds.get(name) is not None:
            # a user-only section: never dropped by a merge, the person's side kept
            if picked is None and (m is not None or t is not None) and not (mine_user and m is None) and not (theirs_user and t is None):
                picked = _norm(m if m is not None else t)
            elif picked is _SAME and mine_user != theirs_user:
                picked = _norm(m if mine_user else t)
        if picked is _SAME:
            conflicts.append(_label(name, {**bt, **mt, **tt}))
            continue
        if picked is None:
            continue
        # the raw text of the side the part comes from (theirs when both agree)
        side = (to, t) if _norm(t) == picked and t is not None else (mo, m) if _norm(m) == picked and m is not None else (bo, b)
        raw = side[1]
        if raw is None:
            continue
        keep[name] = raw
        if side[0] and side[0][-1] == name:
            ended.add(name)
        if _norm(m) != _norm(t):
            parts.append(_label(name, {**bt, **mt, **tt}))
    # sections both sides added at the same place (a heading renamed on both, two new
    # sections after the same one): their order is not the merge's to decide
    def added_at(order: list[str], other: list[str], kinds_of: dict[str, str | None]) -> set[str | None]:
        out: set[str | None] = set()
        for i, name in enumerate(order):
            if name in bt or name in other or name not in keep or kinds_of.get(name) is not None:
                continue
            out.add(next((p for p in reversed(order[:i]) if p in bt), None))
        return out

    if added_at(mo, to, mk) & added_at(to, mo, tk):
        conflicts.append("new sections added at the same place on both sides")
    if conflicts:
        return None, conflicts, parts
    order = _ordered(bo, mo, to, set(keep))
    out: list[str] = []
    for i, name in enumerate(order):
        raw = keep[name]
        if i + 1 < len(order) and name in ended and raw.strip():
            # it ended its side's body and is followed now: one blank line before the next heading
            raw = raw.rstrip(" \t\r\n") + ("\r\n\r\n" if raw.endswith("\r\n") else "\n\n")
        elif i + 1 < len(order) and not raw.endswith("\n"):
            raw += "\n"
        out.append(raw)
    return "".join(out), conflicts, parts


def _merge_fm(base: str, mine: str, theirs: str) -> tuple[str | None, list[str], list[str]]:
    bp, mp, tp = _fm_parts(base), _fm_parts(mine), _fm_parts(theirs)
    if bp is None or mp is None or tp is None:
        picked = _pick(base, mine, theirs)
        return (None, ["the frontmatter (a key repeats)"], []) if picked is _SAME else (picked, [], [])
    keep: dict[str, str] = {}
    conflicts: list[str] = []
    parts: list[str] = []
    for key in dict.fromkeys([*bp, *mp, *tp]):
        b, m, t = bp.get(key), mp.get(key), tp.get(key)
        picked = _pick(b, m, t)
        if picked is _SAME and key == _DEPENDS:
            picked, ok = _merge_deps(b, m, t)
            if not ok:
                picked = _SAME
        if picked is _SAME:
            conflicts.append("the frontmatter's leading lines" if key == _LEAD else f"frontmatter key {key}")
            continue
        if m != t:
            parts.append(key if key != _LEAD else "the frontmatter's leading lines")
        if picked is not None:
            keep[key] = picked
    if conflicts:
        return None, conflicts, parts
    order = _ordered(list(bp), list(mp), list(tp), set(keep))
    if _LEAD in order:  # leading comments stay first
        order.remove(_LEAD)
        order.insert(0, _LEAD)
    out = [keep[k] for k in order]
    for i in range(len(out) - 1):
        if not out[i].endswith("\n"):
            out[i] += "\n"
    return "".join(out), conflicts, parts


def merge_item(
    base: Version, mine: Version, theirs: Version, *, mine_user: bool = False, theirs_user: bool = False, filename: str = ""
) -> ItemMerge:
    """The three-way merge of one item file over its parts (issue 39): its state (the folder
    it is in), each frontmatter key (`depends_on` as a set: the additions and removals of
    both sides applied), each H1/H2 body section, and the user-only sections (the answer,
    the comment), which a merge never drops and where the person's side (`mine_user`,
    `theirs_user`) is kept. Only a part both sides changed differently is a conflict.
    `mine` is the change being replayed, `theirs` what the other side has now. Pure."""
    if mine == theirs:
        return ItemMerge(mine)
    if mine == base:
        return ItemMerge(theirs)
    if theirs == base:
        return ItemMerge(mine)
    if mine is None or theirs is None:
        return ItemMerge(None, ("the item was removed on one side and changed on the other",))
    if base is None:
        return ItemMerge(None, ("the item was added on both sides with different contents",))
    conflicts: list[str] = []
    parts: list[str] = []
    state = _pick(base[0], mine[0], theirs[0])
    if state is _SAME:
        conflicts.append(f"state ({mine[0]} on one side, {theirs[0]} on the other)")
    elif mine[0] != theirs[0]:
        parts.append("state")
    try:
        texts = [v[1].decode("utf-8") for v in (base, mine, theirs)]
    except UnicodeDecodeError:
        return ItemMerge(None, (*conflicts, "the text (not UTF-8)"))
    merged_text = _merge_text(*texts, mine_user, theirs_user, conflicts, parts)
    if conflicts or merged_text is None or state is _SAME:
        return ItemMerge(None, tuple(conflicts) or ("the text",))
    data = merged_text.encode("utf-8")
    if filename and data not in (mine[1], theirs[1]):
        from atk_tui.itemfile.items import parse_item

        before = {d for v in (mine, theirs) for d in parse_item(filename, v[0], v[1]).defects}
        after = [d for d in parse_item(filename, state, data).defects if d not in before]
        if after:
            return ItemMerge(None, (f"the merged item would be defective ({after[0]})",))
    return ItemMerge((state, data), (), tuple(dict.fromkeys(parts)))


def _merge_text(base: str, mine: str, theirs: str, mine_user: bool, theirs_user: bool, conflicts: list[str], parts: list[str]) -> str | None:
    picked = _pick(base, mine, theirs)
    if picked is not _SAME:
        return picked
    sb, sm, st = _split_text(base), _split_text(mine), _split_text(theirs)
    if sb is None or sm is None or st is None:
        if sb is None and sm is None and st is None:
            body, found, took = _merge_body(base, mine, theirs, mine_user, theirs_user)
            conflicts += found
            parts += took
            return body
        conflicts.append("the frontmatter (added or removed on one side)")
        return None
    opening = _pick(sb[0], sm[0], st[0])
    if opening is _SAME:
        conflicts.append("the frontmatter's opening line")
    fm, found, took = _merge_fm(sb[1], sm[1], st[1])
    conflicts += found
    parts += took
    close = _pick(sb[2], sm[2], st[2])
    if close is _SAME:
        conflicts.append("the frontmatter's closing line")
    body, found, took = _merge_body(sb[3], sm[3], st[3], mine_user, theirs_user)
    conflicts += found
    parts += took
    if conflicts or fm is None or body is None:  # (a part both changed differently is a conflict)
        return None
    if fm and not fm.endswith("\n"):
        fm += "\n"
    return opening + fm + close + body
