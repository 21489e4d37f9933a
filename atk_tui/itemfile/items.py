"""Read and write one item file (SPEC §4).

Parsing never raises: a broken file becomes an `Item` whose `defects` say why. The
frontmatter text is kept exactly as found (`Item.fm_block`), so an operation that does not
change metadata writes the file back byte for byte; one that does (`set_keys`) rewrites
only the keys it owns, in place, and keeps every other line and the key order.
"""

from __future__ import annotations

import re
import warnings
from datetime import UTC, date, datetime
from typing import Any

from atk_tui.domain.fields import FIELDS, TIMES, Field
from atk_tui.domain.model import (
    ANSWER_HEADINGS,
    AWI_BULLETS,
    COMMENT_HEADINGS,
    FILENAME_PATTERN,
    KINDS,
    QUESTION_KINDS,
    RESERVED_KEYS,
    URGENCIES,
    Item,
    is_valid_filename,
)
from atk_tui.itemfile import sections

#: Larger files are listed as defective and only a preview of them is kept in memory.
MAX_ITEM_BYTES = 1024 * 1024
PREVIEW_BYTES = 64 * 1024


class _YAML:
    """PyYAML, imported on first use: a listing served from the cache never needs it."""

    def __init__(self) -> None:
        self.mod: Any = None

    def __call__(self) -> Any:
        if self.mod is None:
            import yaml

            self.loader = getattr(yaml, "CSafeLoader", None)
            if self.loader is None:  # pragma: no cover - depends on how PyYAML was built
                self.loader = yaml.SafeLoader
                warnings.warn(
                    "PyYAML was built without libyaml: item files load about 7x slower. "
                    "Reinstall PyYAML with libyaml available for full speed.",
                    RuntimeWarning,
                    stacklevel=3,
                )
            self.loader = _unique_keys_loader(yaml, self.loader)
            self.resolver = yaml.resolver.Resolver()
            self.mod = yaml
        return self.mod

    def load(self, text: str) -> Any:
        """`text` loaded with the safe loader (libyaml's when available)."""
        return self().load(text, Loader=self.loader)


class DuplicateKey(ValueError):
    """A mapping of the frontmatter names the same key twice (`kind: awi` … `kind: uwi`):
    YAML would keep the last silently; an item saying two things is defective instead."""

    def __init__(self, key: Any) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key


def _unique_keys_loader(yaml: Any, base: Any) -> Any:
    """`base` (a safe loader) refusing a mapping that names a key twice (`DuplicateKey`);
    keys merged in by `<<` may be overridden, as YAML's merge key means."""
    merge = "tag:yaml.org,2002:merge"

    class UniqueKeys(base):  # type: ignore[misc,valid-type]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: set[Any] = set()
                for key_node, _value in node.value:
                    if key_node.tag == merge:
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        if key in seen:
                            raise DuplicateKey(key)
                        seen.add(key)
                    except TypeError:  # unhashable: PyYAML says so itself
                        pass
            return super().construct_mapping(node, deep=deep)

    return UniqueKeys


_yaml = _YAML()


_OPEN_RE = re.compile(r"\A(\ufeff)?---[ \t]*\r?\n")
#: the closing line, after the "\n" ending the line before it (a search starting at that
#: "\n", found by a fast scan for it: what `^` in MULTILINE mode finds, sooner)
_CLOSE_RE = re.compile(r"\n((?:---|\.\.\.)[ \t]*(?:\r?\n|\Z))")
_H1_RE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$")
_FENCE_RE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_TOP_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]|$)")


def blob_sha(data: bytes) -> str:
    """The git blob SHA-1 of `data` (what `git hash-object` prints)."""
    import hashlib  # only parsing needs it; a cached listing does not

    h = hashlib.sha1(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


_KIND_VALUES = KINDS
_URGENCY_VALUES = URGENCIES
#: the valid kinds per queue (domain/queues.py; kept here as data so parsing imports nothing more)
_QUEUE_KINDS: dict[str, tuple[str, ...]] = {"wi": _KIND_VALUES, "mq": ("feedback", "tbd")}
_TZ_HINT = "e.g. 2026-11-30T09:00:00+09:00"


def _one_of(values: tuple[str, ...]) -> str:
    quoted = [repr(v) for v in values]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _time_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], _kinds: tuple[str, ...]) -> None:
    key = f.name
    if v is None:
        out[key] = None
        return
    if isinstance(v, datetime):
        dt = v
    elif isinstance(v, date):
        errors.append(f"{key}: needs a time and a timezone, {_TZ_HINT}")
        return
    elif isinstance(v, str):
        try:
            dt = datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
        except ValueError:
            errors.append(f"{key}: not an ISO 8601 date-time: {v!r}")
            return
    else:
        errors.append(f"{key}: must be a date-time, got {type(v).__name__}")
        return
    if f.shape == "zoned-time" and dt.tzinfo is None:
        errors.append(f"{key}: needs a timezone, {_TZ_HINT}")
        return
    if dt.year in (1, 9999) and dt.tzinfo is not None:
        try:
            dt.astimezone(UTC)  # 9999-12-31T23:00-05:00 is past the last time there is
        except OverflowError:
            errors.append(f"{key}: out of range (before year 1 or after 9999 in UTC): {v!r}")
            return
    out[key] = dt


def _text_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], _kinds: tuple[str, ...]) -> None:
    if v is None or type(v) is str:  # the usual, decided at once
        out[f.name] = v
        return
    if f.shape == "text" and isinstance(v, bool | int | float):
        out[f.name] = str(v)  # YAML reads `commit: 1234567` as an int and `note: yes` as a bool
    else:
        errors.append(f"{f.name}: must be text, got {type(v).__name__}")


def _kind_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], kinds: tuple[str, ...]) -> None:
    if isinstance(v, str) and v in kinds:
        out[f.name] = v
    else:
        errors.append(f"{f.name}: {v!r} is not one of {_one_of(kinds)}")


def _repo_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], _kinds: tuple[str, ...]) -> None:
    if not isinstance(v, str):
        errors.append(f"{f.name}: must be text, got {type(v).__name__}")
    elif not v.strip():
        errors.append(f"{f.name}: must not be empty")
    else:
        out[f.name] = v


def _filenames_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], _kinds: tuple[str, ...]) -> None:
    key = f.name
    if v is None:
        out[key] = None
    elif not isinstance(v, list):
        errors.append(f"{key}: must be a list, got {type(v).__name__}")
    else:
        wrong = [f"{key}.{i}: must be text, got {type(d).__name__}" for i, d in enumerate(v) if not isinstance(d, str)]
        bad = next((d for d in v if not is_valid_filename(d)), None) if not wrong else None
        if wrong:
            errors.extend(wrong)
        elif bad is not None:
            errors.append(f"{key}: bad filename {bad!r} (must be a plain item filename like 20261129-101500-x.md)")
        else:
            out[key] = v


def _urgency_value(f: Field, v: Any, errors: list[str], out: dict[str, Any], _kinds: tuple[str, ...]) -> None:
    if v is None or (isinstance(v, str) and v in _URGENCY_VALUES):
        out[f.name] = v
    else:
        errors.append(f"{f.name}: {v!r} is not one of {_one_of(_URGENCY_VALUES)}")


#: how a value of each shape (`domain.fields`) is checked: into `out`, or an error
_CHECKS = {
    "kind": _kind_value, "repo": _repo_value, "text": _text_value, "string": _text_value,
    "filenames": _filenames_value, "time": _time_value, "zoned-time": _time_value, "urgency": _urgency_value,
}  # fmt: skip
_CHECKED = tuple((f, _CHECKS[f.shape]) for f in FIELDS)


def validate_frontmatter(data: dict[str, Any], kinds: tuple[str, ...] = _KIND_VALUES) -> tuple[dict[str, Any], list[str]]:
    """The reserved keys (`domain.fields`) of a loaded frontmatter mapping, typed (None when
    absent), and every validation error (in key order, one message per problem). Unknown keys
    are allowed and ignored here.

    Hand-written rather than a pydantic model: the rules are few, and this is on the path
    of every listing (importing pydantic alone takes longer than listing a warm queue).
    """
    errors: list[str] = []
    out: dict[str, Any] = {}
    for f, check in _CHECKED:
        if f.name in data:
            check(f, data[f.name], errors, out, kinds)
        elif f.required:
            errors.append(f"{f.name}: required")
        else:
            out[f.name] = None
    return out, errors


# --- a fast path for the frontmatter most items have ---------------------------------
#
# Most frontmatter is `key: value` lines with plain scalars, flow lists of filenames and
# ISO timestamps. Loading that with PyYAML costs most of an item's parse time (its
# constructor is pure Python even with libyaml), so such text is read here directly; any
# line outside that narrow shape sends the whole text to PyYAML. Plain scalars are typed
# with PyYAML's own implicit resolver, so a value reads exactly as PyYAML would read it
# (`yes` stays a bool, `0x1f` an int: those just take the slow path).

_FAST_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):[ ]+([^ ].*?)[ ]*")
_FAST_PLAIN = re.compile(r"[A-Za-z0-9_$(./][A-Za-z0-9 _$()./+=;~^-]*")
#: a block value may also hold `#`, `:` and `,` (notes: "merged in acme/api#9356"), just not
#: a comment (" #"), a mapping (": ") or a trailing ":"
_FAST_BLOCK = re.compile(r"[A-Za-z0-9_$(./][A-Za-z0-9 _$()./+=;~^,#:-]*")
_FAST_LIST = re.compile(r"\[([A-Za-z0-9 _$()./+=;~^,-]*)\]")
_FAST_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:Z|[+-][0-9]{2}:[0-9]{2})")
_STR_TAG = "tag:yaml.org,2002:str"
_TIME_TAG = "tag:yaml.org,2002:timestamp"
_SLOW = object()


_tags: dict[str, str] = {}

#: the characters PyYAML's implicit resolvers start with (`yaml.resolver.Resolver`): a plain
#: scalar starting with any other is a string. Its letters start only these words.
_RESOLVED_FIRST = frozenset("!&*+-.0123456789<=~FNOTYfnoty")
_LETTER_WORDS = {
    **dict.fromkeys(("yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
                     "on", "On", "ON", "off", "Off", "OFF"), "tag:yaml.org,2002:bool"),
    **dict.fromkeys(("null", "Null", "NULL"), "tag:yaml.org,2002:null"),
}  # fmt: skip


def _tag(value: str) -> str:
    """PyYAML's implicit tag for a plain scalar: a letter-first one from the table above (a
    one-item read need not import PyYAML), the rest from PyYAML, memoised (keys and most
    values repeat)."""
    first = value[:1]
    if first and (first not in _RESOLVED_FIRST or first.isalpha()):
        return _LETTER_WORDS.get(value, _STR_TAG)
    tag = _tags.get(value)
    if tag is None:
        if len(_tags) > 4096:
            _tags.clear()
        yaml = _yaml()
        tag = _tags[value] = _yaml.resolver.resolve(yaml.ScalarNode, value, (True, False))
    return tag


def _fast_scalar(value: str) -> Any:
    """The value of one plain scalar, or `_SLOW` when PyYAML should decide."""
    if value.endswith(".md"):
        return value  # no implicit YAML type (number, bool, null, time) ends in ".md"
    tag = _TIME_TAG if _FAST_TIME.fullmatch(value) else _tag(value)
    if tag == _STR_TAG:
        return value
    if tag == _TIME_TAG and _FAST_TIME.fullmatch(value):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return _SLOW  # e.g. month 13: let PyYAML report it
    return _SLOW


def _fast_line(line: str) -> tuple[str, Any] | None:
    """One `key: value` line as `fast_load` reads it, or None when PyYAML should decide."""
    m = _FAST_LINE.fullmatch(line)
    if m is None:
        return None
    key, raw = m.group(1), m.group(2)
    if _tag(key) != _STR_TAG:
        return None
    if raw[0] == "[":
        lm = _FAST_LIST.fullmatch(raw)
        if lm is None:
            return None
        inner = lm.group(1)
        values: list[Any] = []
        if inner.strip():
            for part in inner.split(","):
                part = part.strip()
                if not part or not _FAST_PLAIN.fullmatch(part):
                    return None
                v = _fast_scalar(part)
                if v is _SLOW:
                    return None
                values.append(v)
        return key, values
    if _FAST_TIME.fullmatch(raw):  # what `_fast_scalar` makes of a time, without matching it again
        try:
            return key, datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            return None  # e.g. month 13: let PyYAML report it
    if not _FAST_PLAIN.fullmatch(raw) and (
        not _FAST_BLOCK.fullmatch(raw) or " #" in raw or ": " in raw or raw[-1] == ":"
    ):
        return None
    v = _fast_scalar(raw)
    return None if v is _SLOW else (key, v)


#: frontmatter lines read as text values (`kind: awi`, `target_repo: acme/api`: most lines
#: repeat from item to item), memoised
_text_lines: dict[str, tuple[str, str]] = {}


def fast_load(fm_text: str) -> dict[str, Any] | None:
    """`fm_text` loaded as `yaml.load(fm_text, CSafeLoader)` would, or None when it is not
    in the simple shape this reader handles (then use PyYAML)."""
    out: dict[str, Any] = {}
    memo = _text_lines
    for line in fm_text.split("\n"):
        if not line:
            continue
        hit = memo.get(line)
        if hit is None:
            hit = _fast_line(line)
            if hit is None:
                return None
            if type(hit[1]) is str:
                if len(memo) > 4096:
                    memo.clear()
                memo[line] = hit
        key = hit[0]
        if key in out:
            return None
        out[key] = hit[1]
    return out


def _alias_check(obj: Any) -> bool:
    """True when a container is reachable twice (YAML anchors/aliases): refused outright,
    which also defuses 'billion laughs' documents before anything walks them."""
    seen: set[int] = set()
    stack = [obj]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict | list):
            if id(cur) in seen:
                return True
            seen.add(id(cur))
            stack.extend(cur.values() if isinstance(cur, dict) else cur)
    return False


def split_frontmatter(text: str) -> tuple[str, str, str] | None:
    """Split `text` into (head, yaml, body); None when there is no frontmatter block."""
    m = _OPEN_RE.match(text)
    if not m:
        return None
    close = _CLOSE_RE.search(text, m.end() - 1)  # the opening line's own "\n" first
    if not close:
        return None
    return text[: close.end()], text[m.end() : close.start(1)], text[close.end() :]


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


# --- writing -------------------------------------------------------------------------


def dump_value(key: str, value: Any) -> str:
    """One `key: value` YAML entry (with a trailing newline), lists in flow style."""
    if isinstance(value, list):
        inner = ", ".join(_dump_scalar(v) for v in value)
        return f"{key}: [{inner}]\n"
    return f"{key}: {_dump_scalar(value)}\n"


def _dump_scalar(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    out = _yaml().safe_dump(value, allow_unicode=True, default_flow_style=True, width=10**9)
    out = out.removesuffix("\n").removesuffix("\n...")
    return out


def set_keys(fm_text: str, updates: dict[str, Any]) -> str:
    """Rewrite only the top-level keys in `updates` (None removes a key), in place.

    Every other line stays byte for byte and keeps its position; new keys go at the end.
    Raises ValueError when the result would not load back as the same mapping.
    """
    for key in updates:
        if key not in RESERVED_KEYS:
            raise ValueError(f"{key} is not a key atk owns")
    lines = fm_text.splitlines(keepends=True)
    eol = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"  # new lines match the file's
    entries: list[tuple[str | None, list[str]]] = []
    for line in lines:
        m = _TOP_KEY_RE.match(line)
        if m:
            entries.append((m.group(1), [line]))
        elif entries:
            entries[-1][1].append(line)
        else:
            entries.append((None, [line]))
    if lines and not lines[-1].endswith("\n"):
        entries[-1][1][-1] += eol
    done: set[str] = set()
    out: list[str] = []
    for key, chunk in entries:
        if key in updates:
            if key in done:
                continue
            done.add(key)
            value = updates[key]
            if value is None:
                # keep comment/blank lines that followed the removed entry
                out.extend(line for line in chunk[1:] if not line.strip() or line.lstrip().startswith("#"))
                continue
            tail = [line for line in chunk[1:] if not line.strip() or (line.startswith("#"))]
            out.append(dump_value(key, value)[:-1] + eol)
            out.extend(tail)
        else:
            out.extend(chunk)
    for key, value in updates.items():
        if key not in done and value is not None:
            out.append(dump_value(key, value)[:-1] + eol)
    result = "".join(out)
    _verify(fm_text, result, updates)
    return result


def _verify(before: str, after: str, updates: dict[str, Any]) -> None:
    try:
        old = _yaml.load(before) or {}
        new = _yaml.load(after) or {}
    except _yaml().YAMLError as exc:
        # e.g. a line inside a multi-line flow collection that looks like a top-level key
        raise ValueError(f"the frontmatter layout is too unusual to rewrite safely ({getattr(exc, 'problem', None) or exc})") from None
    if not isinstance(old, dict) or not isinstance(new, dict):
        raise ValueError("rewriting the frontmatter did not give a mapping")
    for key in set(old) | set(new):
        if key in updates:
            continue
        if old.get(key) != new.get(key):
            raise ValueError(f"rewriting the frontmatter would change {key!r}")
    if list(k for k in new if k not in updates) != list(k for k in old if k not in updates):
        raise ValueError("rewriting the frontmatter would change the key order")


def new_file_text(meta: dict[str, Any], body: str, extra: str = "") -> str:
    """The text of a new item: frontmatter in RESERVED_KEYS order, then `extra` (the body's
    own non-reserved keys, exactly as written), then the body."""
    fm = "".join(dump_value(k, meta[k]) for k in RESERVED_KEYS if meta.get(k) is not None) + extra
    if body and not body.endswith("\n"):
        body += "\n"
    return f"---\n{fm}---\n{body}"


def with_frontmatter(head: str, old_fm: str, new_fm: str) -> str:
    """`head` with its YAML part replaced by `new_fm` (delimiters kept exactly)."""
    m = _OPEN_RE.match(head)
    if m is None or head[m.end() : m.end() + len(old_fm)] != old_fm:
        raise ValueError("item head does not hold the given frontmatter")
    return head[: m.end()] + new_fm + head[m.end() + len(old_fm) :]


# --- a body that brings its own frontmatter (`add`/`edit --body-file`) ----------------


def frontmatter_chunks(fm_text: str) -> list[tuple[str | None, str]]:
    """`fm_text` cut at its top-level keys: (key, the key's lines as written), in order; a
    leading comment or blank line has key None. Joined, the chunks are `fm_text` again."""
    chunks: list[tuple[str | None, str]] = []
    for line in fm_text.splitlines(keepends=True):
        m = _TOP_KEY_RE.match(line)
        if m:
            chunks.append((m.group(1), line))
        elif chunks:
            chunks[-1] = (chunks[-1][0], chunks[-1][1] + line)
        else:
            chunks.append((None, line))
    return chunks


def body_frontmatter(body: str) -> tuple[dict[str, Any], str, str] | None:
    """A body that starts with its own frontmatter block: (the loaded mapping, the text of
    its non-reserved keys exactly as written, the body after the block); None when the body
    has no frontmatter. Raises ValueError, saying why, when the block is not a YAML mapping
    with text keys."""
    parts = split_frontmatter(body)
    if parts is None:
        return None
    _head, fm_text, rest = parts
    try:
        data = _yaml.load(fm_text) if fm_text.strip() else {}
    except _yaml().YAMLError as exc:
        first = str(exc).strip().splitlines()
        raise ValueError("its frontmatter is not valid YAML: " + " ".join(x.strip() for x in first[:3])) from None
    except (OverflowError, RecursionError) as exc:
        raise ValueError(f"its frontmatter has a bad value: {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"its frontmatter is not a mapping (got {type(data).__name__})")
    if _alias_check(data):
        raise ValueError("its frontmatter uses YAML anchors/aliases, which are not allowed")
    if any(not isinstance(k, str) for k in data):
        raise ValueError("its frontmatter keys must be text")
    extra = "".join(text for key, text in frontmatter_chunks(fm_text) if key is not None and key not in RESERVED_KEYS)
    if extra and not extra.endswith("\n"):
        extra += "\n"
    return data, extra, rest


def merge_extra_keys(fm_text: str, extra: str) -> str:
    """`fm_text` with the non-reserved keys of `extra` (as `body_frontmatter` returns them):
    a key already there has its lines replaced by `extra`'s, a new one is added at the end;
    every other line stays byte for byte."""
    if not extra:
        return fm_text
    given = dict(c for c in frontmatter_chunks(extra) if c[0] is not None)
    out: list[str] = []
    done: set[str] = set()
    for key, text in frontmatter_chunks(fm_text):
        if key in given:
            if key not in done:
                out.append(given[key])
                done.add(key)
            continue
        out.append(text)
    if out and not out[-1].endswith("\n"):
        out[-1] += "\n"
    out.extend(text for key, text in given.items() if key not in done)
    return "".join(out)


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
