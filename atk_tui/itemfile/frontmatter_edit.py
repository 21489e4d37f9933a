"""Writing an item's frontmatter (SPEC §4): only the keys atk owns are rewritten, in place,
every other line kept byte for byte (`set_keys`); a new item's text; a body that brings its
own frontmatter (`add`/`edit --body-file`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from atk_tui.domain.model import RESERVED_KEYS
from atk_tui.itemfile.yamlread import _OPEN_RE, _TOP_KEY_RE, _alias_check, _yaml, split_frontmatter


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
