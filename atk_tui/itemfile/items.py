"""Read one item file (SPEC §4).

Parsing never raises: a broken file becomes an `Item` whose `defects` say why. The
frontmatter text is kept exactly as found (`Item.fm_block`), so an operation that does not
change metadata writes the file back byte for byte; one that does (`set_keys`) rewrites
only the keys it owns, in place, and keeps every other line and the key order.
"""

from __future__ import annotations

import re
from datetime import UTC
from typing import Any

from atk_tui.domain.fields import FIELDS, TIMES
from atk_tui.domain.model import (
    ANSWER_HEADINGS,
    AWI_BULLETS,
    COMMENT_HEADINGS,
    FILENAME_PATTERN,
    QUESTION_KINDS,
    URGENCIES,
    Item,
    is_valid_filename,
)
from atk_tui.itemfile import sections
from atk_tui.itemfile.frontmatter_edit import (
    body_frontmatter,
    dump_value,
    frontmatter_chunks,
    merge_extra_keys,
    new_file_text,
    set_keys,
    with_frontmatter,
)
from atk_tui.itemfile.validation import _KIND_VALUES, _QUEUE_KINDS, validate_frontmatter
from atk_tui.itemfile.yamlread import DuplicateKey, _alias_check, _yaml, fast_load, split_frontmatter

#: what this module is asked for (reading one item file; writing one is in `frontmatter_edit`,
#: its frontmatter's YAML in `yamlread`, its checks in `validation`, named here as before)
__all__ = [
    "CONFLICT_DEFECT",
    "MAX_ITEM_BYTES",
    "PREVIEW_BYTES",
    "blob_sha",
    "body_frontmatter",
    "dump_value",
    "fast_load",
    "find_title",
    "frontmatter_chunks",
    "item_title",
    "lint_body",
    "merge_extra_keys",
    "new_file_text",
    "parse_item",
    "set_keys",
    "split_frontmatter",
    "validate_frontmatter",
    "with_frontmatter",
]

#: Larger files are listed as defective and only a preview of them is kept in memory.
MAX_ITEM_BYTES = 1024 * 1024
PREVIEW_BYTES = 64 * 1024


_H1_RE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$")
_FENCE_RE = re.compile(r"^[ \t]{0,3}(```|~~~)")


def blob_sha(data: bytes) -> str:
    """The git blob SHA-1 of `data` (what `git hash-object` prints)."""
    import hashlib  # only parsing needs it; a cached listing does not

    h = hashlib.sha1(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


def find_title(body: str) -> str | None:
    """The first H1 outside fenced code, or None."""
    fenced = False
    for line in body.splitlines():
        if _FENCE_RE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            m = _H1_RE.match(line)
            if m:
                return m.group(1).strip()
    return None


#: a bullet line's label: after the `-` or `*` (blanks before and after it), up to the first
#: colon, ASCII or fullwidth (then stripped); lines are split at "\n" only, after
#: `_ODD_LINE_ENDS` (the other line ends of `str.splitlines`, all whitespace) became "\n"
_BULLET_LABEL = re.compile(r"\n[^\S\n]*[-*][^\S\n]*([^:：\n]*)")  # over "\n" + the body
_ODD_LINE_ENDS = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def lint_body(item: Item) -> list[str]:
    """Warnings for a normal AWI body that misses wi-standards' fixed bullets (never errors)."""
    if item.kind != "awi" or item.plan_file:
        return []
    body = item.body
    if _ODD_LINE_ENDS.search(body):
        body = _ODD_LINE_ENDS.sub("\n", body)  # the lines `str.splitlines` sees (and some empty ones)
    present = {label.strip() for label in _BULLET_LABEL.findall("\n" + body)}
    out = []
    for bullet in AWI_BULLETS:
        if bullet == "適用範囲" and item.source is None:
            continue
        if bullet not in present:
            out.append(f"missing bullet: {bullet}")
    return out


#: Characters NFKC may turn into a user-only heading's letters (fullwidth/halfwidth forms,
#: compatibility ideographs, styled letters) or that hide them (entities, format characters):
#: a body holding none of them and none of the hints below has no user-only heading.
_NFKC_HINT = re.compile("[&\u00ad\u061c\u180e\U000e0000-\U000e007f\u200b-\u206f\ufeff\u2e80-\u2fdf\u2460-\u24ff\uf900-\ufaff\uff00-\uffef\U0001d400-\U0001d7ff]")

#: Substrings every casefolded user-only heading contains (SPEC §8; see sections.heading_key).
_ANSWER_HINTS = tuple({h.casefold().split()[-1] for h in ANSWER_HEADINGS})
_COMMENT_HINTS = tuple({h.casefold().split()[-1] for h in COMMENT_HEADINGS})


_CONFLICT_START = re.compile(r"^<<<<<<<(?: |$)", re.M)
_CONFLICT_END = re.compile(r"^>>>>>>>(?: |$)", re.M)
CONFLICT_DEFECT = (
    "has git conflict markers (<<<<<<< … >>>>>>>) left by an unfinished merge or rebase: "
    "resolve the conflict in the file and `git add` it (or finish/abort the rebase)"
)


def parse_item(
    filename: str, state: str, data: bytes, *, blob: str | None = None, size: int | None = None, queue: str = "wi"
) -> Item:
    """Build an `Item` from file bytes. Never raises. `size`: the file's real size when `data`
    holds only its start (a file over the size limit need not be read whole). `queue`: the
    queue whose folder holds it (its kinds are the valid ones, domain/queues.py)."""
    try:
        return _parse(filename, state, data, blob, size, queue)
    except Exception as exc:
        return Item(
            queue=queue,
            filename=filename,
            state=state,
            body="",
            title=filename.removesuffix(".md"),
            defects=[f"could not be read: {type(exc).__name__}: {exc}"],
            size=len(data),
            blob=blob or blob_sha(data),
        )


def _parse(
    filename: str, state: str, data: bytes, blob: str | None, real_size: int | None = None, queue: str = "wi"
) -> Item:
    defects: list[str] = []
    size = len(data) if real_size is None else max(real_size, len(data))
    if not is_valid_filename(filename):
        defects.append(f"bad filename (must match ^{FILENAME_PATTERN}$)")
    if size == 0:
        defects.append("empty file")
    raw = data
    truncated = False
    if size > MAX_ITEM_BYTES:
        defects.append(f"file too large ({size / 1_000_000:.1f} MB; the limit is 1 MiB)")
        raw = data[:PREVIEW_BYTES]
        truncated = True
    if b"\0" in raw:
        defects.append("contains NUL bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not (truncated and exc.start >= len(raw) - 4):
            defects.append(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})")
        text = raw.decode("utf-8", errors="replace")
    item = Item(filename=filename, state=state, size=size, blob=blob or blob_sha(data), queue=queue)
    if queue != "wi":
        item.kind = _QUEUE_KINDS[queue][0]
    if "<<<<<<<" in text and _CONFLICT_START.search(text) and _CONFLICT_END.search(text):
        # first: the reason a listing shows for a file an unfinished merge or rebase left
        defects.insert(0, CONFLICT_DEFECT)
    parts = split_frontmatter(text)
    if parts is None:
        item.body = text
        if size:
            defects.append("no frontmatter (the file must start with a '---' line and close it with another)")
    else:
        item.fm_block, item.fm_text, item.body = parts
        _load_meta(item, defects)
    if truncated:
        item.body += "\n\n[… preview only: the rest of the file is not shown]\n"
    item.title = item_title(item.body, item.kind, filename)
    # the sections read here are ATX H2s (`sections`): a body without "##" has none, and
    # the section scan runs only when a heading could match (heading titles compare
    # casefolded, after NFKC: see `_NFKC_HINT`)
    h2 = "##" in item.body
    if item.kind in QUESTION_KINDS:
        folded = item.body.casefold()
        maybe = h2 and (any(h in folded for h in _ANSWER_HINTS) or bool(_NFKC_HINT.search(folded)))
        if maybe and sections.is_answered(item.body):
            from atk_tui.itemfile.questions import answer_progress  # only for UWIs with an answer

            progress = answer_progress(item.body)
            item.answered = progress.complete
            item.answer_partial = not progress.complete
        if item.fm_text is not None and not item.data.get("urgency") and ("urgency" in folded or "緊急度" in folded):
            from atk_tui.itemfile.questions import checkpoint_urgency

            urgency = checkpoint_urgency(item.body)
            if urgency:
                item.urgency = urgency  # SPEC §11: the checkpoint's when the frontmatter has none
    elif h2:
        folded = item.body.casefold()
        item.has_comment = (any(h in folded for h in _COMMENT_HINTS) or bool(_NFKC_HINT.search(folded))) and bool(
            (sections.comment_text(item.body) or "").strip()
        )
    item.defects = defects
    if not defects:
        item.warnings = lint_body(item)
    return item


def _load_meta(item: Item, defects: list[str]) -> None:
    try:
        data = fast_load(item.fm_text or "")
        fast = data is not None  # no anchors, aliases or odd keys possible then
        if data is None:
            data = _yaml.load(item.fm_text or "")
    except DuplicateKey as exc:
        defects.append(f"frontmatter: {exc} (a key may be given once: which one counts would be a guess)")
        return
    except _yaml().YAMLError as exc:
        first = str(exc).strip().splitlines()
        defects.append("YAML error: " + " ".join(x.strip() for x in first[:3]))
        return
    except (ValueError, OverflowError, RecursionError) as exc:
        # a value YAML resolves but cannot build, e.g. the date `2026-13-45` (ValueError)
        defects.append(f"YAML error: bad value: {exc}")
        return
    if data is None:
        data = {}
    if not isinstance(data, dict):
        defects.append(f"frontmatter is not a mapping (got {type(data).__name__})")
        return
    if not fast and _alias_check(data):
        defects.append("frontmatter uses YAML anchors/aliases, which are not allowed")
        return
    bad_keys = [] if fast else [k for k in data if not isinstance(k, str)]
    if bad_keys:
        defects.append(f"frontmatter keys must be text (got {bad_keys[0]!r})")
        return
    item.data = data
    fm, errors = validate_frontmatter(data, _QUEUE_KINDS.get(item.queue, _KIND_VALUES))
    if errors:
        defects.extend(errors)
        _best_effort(item, data)
        return
    for name, value in fm.items():
        if value is not None:
            setattr(item, name, value)
    item.depends_on = list(item.depends_on)  # the item's own list (the mapping's stays as read)
    for name in TIMES:  # a time without a zone is UTC (a zoned-time has one: checked above)
        t = getattr(item, name)
        if t is not None and t.tzinfo is None:
            setattr(item, name, t.replace(tzinfo=UTC))
    if fm["kind"] in QUESTION_KINDS and fm["plan_file"]:
        defects.append(f"plan_file: only {'a feedback item' if item.queue == 'mq' else 'an AWI'} can have a plan file")


def _best_effort(item: Item, data: dict[str, Any]) -> None:
    """Fill what is readable from a mapping that failed validation, for display only."""
    for f in FIELDS:
        v = data.get(f.name)
        if f.shape == "kind":
            if v in _QUEUE_KINDS.get(item.queue, _KIND_VALUES):
                item.kind = v
        elif f.shape in ("repo", "text", "string"):
            if isinstance(v, str):
                setattr(item, f.name, v)
        elif f.shape == "filenames":
            if isinstance(v, list):
                setattr(item, f.name, [d for d in v if isinstance(d, str)])
        elif f.shape == "urgency" and v in URGENCIES:
            setattr(item, f.name, v)


def item_title(body: str, kind: str | None, filename: str = "") -> str:
    """An item's title: its first H1; else, for a question (UWI, TBD), "Decision needed: "
    and its first question (a checkpoint without an H1 names its question so); else the
    body's first line; the filename stem only for an empty body."""
    h1 = find_title(body)
    if h1:
        return h1
    if kind in QUESTION_KINDS and body.strip():
        from atk_tui.itemfile.questions import parse_questions

        parsed = parse_questions(body)
        if parsed.form != "free" and parsed.questions:
            first = next((ln.strip() for ln in parsed.questions[0].text.splitlines() if ln.strip()), "")
            if first:
                return f"Decision needed: {first}"[:200]
    for line in body.splitlines():
        text = line.strip().lstrip("#").strip()
        if text and not _FENCE_RE.match(line) and text not in ("---", "AWAITING_USER_INPUT"):
            return text[:200]
    return filename.removesuffix(".md")
