"""Read and write one item file (SPEC §4).

Parsing never raises: a broken file becomes an `Item` whose `defects` say why. The
frontmatter text is kept exactly as found (`Item.head`), so an operation that does not
change metadata writes the file back byte for byte; one that does (`set_keys`) rewrites
only the keys it owns, in place, and keeps every other line and the key order.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from datetime import UTC, date, datetime
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from . import sections
from .model import AWI_BULLETS, RESERVED_KEYS, Item, is_valid_filename

#: Larger files are listed as defective and only a preview of them is kept in memory.
MAX_ITEM_BYTES = 1024 * 1024
PREVIEW_BYTES = 64 * 1024

try:
    _Loader: type = yaml.CSafeLoader
    LIBYAML = True
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader
    LIBYAML = False
    warnings.warn(
        "PyYAML was built without libyaml: item files load about 7x slower. "
        "Reinstall PyYAML with libyaml available for full speed.",
        RuntimeWarning,
        stacklevel=2,
    )

_OPEN_RE = re.compile(r"\A(\ufeff)?---[ \t]*\r?\n")
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.M)
_H1_RE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$")
_FENCE_RE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_TOP_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]|$)")


def blob_sha(data: bytes) -> str:
    """The git blob SHA-1 of `data` (what `git hash-object` prints)."""
    h = hashlib.sha1(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


class Frontmatter(BaseModel):
    """The reserved keys and their types. Unknown keys are allowed and kept."""

    model_config = ConfigDict(extra="allow", strict=True)

    kind: Literal["awi", "uwi"]
    source: str | None = None
    target_repo: str
    target_commit: str | None = None
    plan_file: str | None = None
    depends_on: list[str] | None = None
    cooldown_until: datetime | None = None
    created: datetime | None = None
    urgency: Literal["blocking", "next-review", "informational"] | None = None
    note: str | None = None
    commit: str | None = None

    @field_validator("source", "note", "target_commit", "commit", mode="before")
    @classmethod
    def _scalar_to_str(cls, v: Any) -> Any:
        # YAML reads `commit: 1234567` as an int and `note: yes` as a bool; the user meant text.
        if isinstance(v, bool | int | float):
            return str(v)
        return v

    @field_validator("target_repo")
    @classmethod
    def _repo_not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v

    @field_validator("cooldown_until", "created", mode="before")
    @classmethod
    def _parse_time(cls, v: Any) -> Any:
        if isinstance(v, datetime):
            return v
        if isinstance(v, date):
            raise ValueError("needs a time and a timezone, e.g. 2026-11-30T09:00:00+09:00")
        if isinstance(v, str):
            try:
                return datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
            except ValueError as exc:
                raise ValueError(f"not an ISO 8601 date-time: {v!r}") from exc
        return v

    @field_validator("cooldown_until")
    @classmethod
    def _needs_tz(cls, v: datetime | None) -> datetime | None:
        if v is not None and v.tzinfo is None:
            raise ValueError("needs a timezone, e.g. 2026-11-30T09:00:00+09:00")
        return v

    @field_validator("depends_on")
    @classmethod
    def _dep_names(cls, v: list[str] | None) -> list[str] | None:
        for name in v or ():
            if not is_valid_filename(name):
                raise ValueError(f"bad filename {name!r} (must be a plain item filename like 20261129-101500-x.md)")
        return v


def _describe_error(err: dict[str, Any]) -> str:
    loc = ".".join(str(p) for p in err.get("loc", ())) or "frontmatter"
    typ = err.get("type", "")
    if typ == "missing":
        return f"{loc}: required"
    if typ == "literal_error":
        allowed = err.get("ctx", {}).get("expected", "")
        return f"{loc}: {err.get('input')!r} is not one of {allowed}"
    if typ in ("string_type", "list_type", "datetime_type"):
        want = {"string_type": "text", "list_type": "a list", "datetime_type": "a date-time"}[typ]
        return f"{loc}: must be {want}, got {type(err.get('input')).__name__}"
    msg = str(err.get("msg", "invalid"))
    msg = msg.removeprefix("Value error, ")
    return f"{loc}: {msg}"


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
    close = _CLOSE_RE.search(text, m.end())
    if not close:
        return None
    return text[: close.end()], text[m.end() : close.start()], text[close.end() :]


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


def lint_body(item: Item) -> list[str]:
    """Warnings for a normal AWI body that misses the seed's fixed bullets (never errors)."""
    if item.kind != "awi" or item.plan_file:
        return []
    present = set()
    for line in item.body.splitlines():
        s = line.lstrip()
        if s[:1] in "-*":
            label = re.split(r"[:：]", s[1:].strip(), maxsplit=1)[0].strip()
            present.add(label)
    out = []
    for bullet in AWI_BULLETS:
        if bullet == "適用範囲" and item.source is None:
            continue
        if bullet not in present:
            out.append(f"missing bullet: {bullet}")
    return out


def parse_item(filename: str, state: str, data: bytes, *, blob: str | None = None) -> Item:
    """Build an `Item` from file bytes. Never raises."""
    try:
        return _parse(filename, state, data, blob)
    except Exception as exc:
        return Item(
            filename=filename,
            state=state,
            body="",
            title=filename.removesuffix(".md"),
            defects=[f"could not be read: {type(exc).__name__}: {exc}"],
            size=len(data),
            blob=blob or blob_sha(data),
        )


def _parse(filename: str, state: str, data: bytes, blob: str | None) -> Item:
    defects: list[str] = []
    size = len(data)
    if not is_valid_filename(filename):
        defects.append("bad filename (must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\\.md$)")
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
    item = Item(filename=filename, state=state, size=size, blob=blob or blob_sha(data))
    parts = split_frontmatter(text)
    if parts is None:
        item.body = text
        if size:
            defects.append("no frontmatter (the file must start with a '---' line and close it with another)")
    else:
        item.head, item.fm_text, item.body = parts
        _load_meta(item, defects)
    if truncated:
        item.body += "\n\n[… preview only: the rest of the file is not shown]\n"
    item.title = find_title(item.body) or filename.removesuffix(".md")
    if item.kind == "uwi":
        item.answered = sections.is_answered(item.body)
    else:
        item.has_comment = bool((sections.comment_text(item.body) or "").strip())
    item.defects = defects
    if not defects:
        item.warnings = lint_body(item)
    return item


def _load_meta(item: Item, defects: list[str]) -> None:
    try:
        data = yaml.load(item.fm_text or "", Loader=_Loader)
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()
        defects.append("YAML error: " + " ".join(x.strip() for x in first[:3]))
        return
    if data is None:
        data = {}
    if not isinstance(data, dict):
        defects.append(f"frontmatter is not a mapping (got {type(data).__name__})")
        return
    if _alias_check(data):
        defects.append("frontmatter uses YAML anchors/aliases, which are not allowed")
        return
    bad_keys = [k for k in data if not isinstance(k, str)]
    if bad_keys:
        defects.append(f"frontmatter keys must be text (got {bad_keys[0]!r})")
        return
    item.data = data
    try:
        fm = Frontmatter.model_validate(data)
    except ValidationError as exc:
        defects.extend(_describe_error(e) for e in exc.errors())
        _best_effort(item, data)
        return
    item.kind = fm.kind
    item.source = fm.source
    item.target_repo = fm.target_repo
    item.target_commit = fm.target_commit
    item.plan_file = fm.plan_file
    item.depends_on = list(fm.depends_on or [])
    item.cooldown_until = fm.cooldown_until
    item.created = fm.created if fm.created is None or fm.created.tzinfo else fm.created.replace(tzinfo=UTC)
    item.urgency = fm.urgency or "blocking"
    item.note = fm.note
    item.commit = fm.commit
    if fm.kind == "uwi" and fm.plan_file:
        defects.append("plan_file: only an AWI can have a plan file")


def _best_effort(item: Item, data: dict[str, Any]) -> None:
    """Fill what is readable from a mapping that failed validation, for display only."""
    if data.get("kind") in ("awi", "uwi"):
        item.kind = data["kind"]
    for key in ("target_repo", "source", "plan_file", "note"):
        if isinstance(data.get(key), str):
            setattr(item, key, data[key])
    deps = data.get("depends_on")
    if isinstance(deps, list):
        item.depends_on = [d for d in deps if isinstance(d, str)]
    if data.get("urgency") in ("blocking", "next-review", "informational"):
        item.urgency = data["urgency"]


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
    out = yaml.safe_dump(value, allow_unicode=True, default_flow_style=True, width=10**9)
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
        entries[-1][1][-1] += "\n"
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
            out.append(dump_value(key, value))
            out.extend(tail)
        else:
            out.extend(chunk)
    for key, value in updates.items():
        if key not in done and value is not None:
            out.append(dump_value(key, value))
    result = "".join(out)
    _verify(fm_text, result, updates)
    return result


def _verify(before: str, after: str, updates: dict[str, Any]) -> None:
    try:
        old = yaml.load(before, Loader=_Loader) or {}
        new = yaml.load(after, Loader=_Loader) or {}
    except yaml.YAMLError as exc:
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


def render(head: str, body: str) -> str:
    return head + body


def new_file_text(meta: dict[str, Any], body: str) -> str:
    """The text of a new item: frontmatter in RESERVED_KEYS order, then the body."""
    fm = "".join(dump_value(k, meta[k]) for k in RESERVED_KEYS if meta.get(k) is not None)
    if body and not body.endswith("\n"):
        body += "\n"
    return f"---\n{fm}---\n{body}"


def with_frontmatter(head: str, old_fm: str, new_fm: str) -> str:
    """`head` with its YAML part replaced by `new_fm` (delimiters kept exactly)."""
    m = _OPEN_RE.match(head)
    if m is None or head[m.end() : m.end() + len(old_fm)] != old_fm:
        raise ValueError("item head does not hold the given frontmatter")
    return head[: m.end()] + new_fm + head[m.end() + len(old_fm) :]
