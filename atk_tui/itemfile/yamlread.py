"""An item's frontmatter as YAML (SPEC §4): where the block is (`split_frontmatter`), PyYAML on
first use with duplicate keys refused, and a fast reader for the shape most frontmatter has
(`fast_load`), exact to what PyYAML would read or deferring to it."""

from __future__ import annotations

import re
import warnings
from datetime import datetime
from typing import Any


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
_TOP_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]|$)")


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
