"""The configuration model: every key of `~/.config/atk/config.toml` declared once, here (its
type, default, environment variable, bounds and help text), and read through one checker.

`host.config`, `tui.config`, `hub.config` and the service read their tables with `read_table`;
`atk wi schema --which config` prints the JSON Schema of `config_model()`, the pydantic model
built from these declarations; docs/configuration.md's key tables are `doc_table()`'s output
(`scripts/config_docs.py` writes them, tests/docs/test_docs_facts.py checks them).

Why the declarations are plain data and the pydantic model is built from them on demand:
`atk wi list` reads the config file on every run (the store, the read window). Measured on a
shared 2-core machine: `python -c pass` 25-36 ms, a warm `atk wi list` 110-180 ms wall (about
132 ms of CPU), importing pydantic and defining one model 120-180 ms, pydantic-settings and one
settings class 165-245 ms: either would nearly double the quick path. This module costs 0.7 ms
to import (with bytecode; plain classes, not dataclasses), `atk wi list`'s CPU time before and
after it differed by under 1 ms. The checker below is generic, driven by the declarations; a
test (tests/host/test_settings.py) proves it and the pydantic model take the same values.
"""

from __future__ import annotations

import os
import re
from datetime import time, timedelta
from typing import Any

#: where a value from the environment is cut (seconds): no limit of an hour or more is meant
ENV_MOST = 3600.0
_DURATION = re.compile(r"\A(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?\Z")
_CLOCK = re.compile(r"\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*")


class Key:
    """One setting. `kind` says what it takes (see `wanted`); `default` is what the program uses
    when the file says nothing (for a `[notify.<kind>]` key, a mapping kind -> default).
    (Plain classes, not dataclasses: this module is on every command's way, and making a
    dataclass costs a millisecond.)"""

    __slots__ = (
        "above",
        "choices",
        "default",
        "doc_default",
        "env",
        "follows",
        "help",
        "high",
        "kind",
        "low",
        "most",
        "name",
    )  # fmt: skip

    def __init__(
        self, name: str, kind: str, default: Any = None, *, help: str = "", env: str | None = None,
        low: float | None = None, above: float | None = None, high: float | None = None, most: float | None = None,
        choices: tuple[str, ...] = (), follows: str | None = None, doc_default: str | None = None,
    ) -> None:  # fmt: skip
        self.name, self.kind, self.default, self.help, self.env = name, kind, default, help, env
        self.low, self.above, self.high, self.most = low, above, high, most  # bounds: >= low, > above, <= high; cut at most
        self.choices, self.doc_default = choices, doc_default
        self.follows = follows  # the default is this key's value (at most `default`, when there is one)

    def __repr__(self) -> str:
        return f"Key({self.name!r}, {self.kind!r})"


class Table:
    """One table of the file. `on_error`: `refuse` (ConfigError naming the key), `report` (a
    message, and the default kept) or `ignore` (the default, silently). `open`: other keys
    allowed; `label`: messages name the table ("[elsewhere] interval"), or only the key."""

    __slots__ = ("keys", "label", "name", "on_error", "open")

    def __init__(self, name: str, *, keys: tuple[Key, ...], on_error: str, open: bool = False, label: bool = True) -> None:
        self.name, self.keys, self.on_error, self.open, self.label = name, keys, on_error, open, label

    def key(self, name: str) -> Key:
        return next(k for k in self.keys if k.name == name)


#: the kinds of `[notify.<kind>]`: the urgencies (domain.model.URGENCIES), agents' notices and
#: what afkkit left for the person on GitHub
NOTIFY_KINDS = ("blocking", "next-review", "informational", "notice", "elsewhere")


def _per_kind(*values: Any) -> dict[str, Any]:
    return dict(zip(NOTIFY_KINDS, values, strict=True))


TABLES: tuple[Table, ...] = (
    Table("", on_error="refuse", open=True, keys=(
        Key("private_notes", "text", None, env="ATK_PRIVATE_NOTES",
            help="the store; `--store PATH` and `$ATK_PRIVATE_NOTES` win over it. Without any of the three, both "
                 "programs say how to set one (and `atk init PATH` makes a store)"),
        Key("plans_root", "text", "~/.claude/plans",
            help="the planning work root, where plans are written before `atk plans commit` moves them into the "
                 "store (`--plans-root` overrides)"),
    )),
    Table("git", on_error="ignore", open=True, keys=(
        Key("timeout", "seconds", 30.0, above=0, help="seconds for fetch/pull, and the default of the two below"),
        Key("push_timeout", "seconds", None, above=0, follows="timeout", help="seconds for a push"),
        Key("hook_timeout", "seconds", None, above=0, follows="timeout",
            help="seconds for each pre-commit / commit-msg / post-commit hook"),
        Key("pull_timeout", "seconds", 5.0, above=0, follows="timeout", env="ATK_PULL_TIMEOUT",
            doc_default="5 (at most `timeout`)",
            help="seconds the pull before a write may take; a remote that does not answer by then leaves the "
                 "commit made locally, unpushed, and the write says so (`$ATK_PULL_TIMEOUT` wins)"),
        Key("read_window", "seconds", 2.0, low=0, most=3600, env="ATK_READ_WINDOW",
            help="seconds a read trusts its last look at the remote (`$ATK_READ_WINDOW` wins; 0: ask every time)"),
        Key("read_timeout", "seconds", 3.0, above=0, most=3600, env="ATK_READ_TIMEOUT",
            help="seconds a read waits for the remote before answering from the local copy with a warning "
                 "(`$ATK_READ_TIMEOUT` wins)"),
    )),
    Table("tui", on_error="report", label=False, keys=(
        Key("theme", "text", "textual-dark",
            help="any Textual theme. A theme picked in the command palette (Ctrl+P, \"theme\") is remembered in "
                 "`~/.config/atk/tui-state.json` and wins over this (delete that file to go back)"),
        Key("pull_interval", "seconds", 60.0, low=0, help="seconds between pulls from the remote (0: never)"),
        Key("remote_check_interval", "seconds", 5.0, low=0,
            help="seconds between cheap looks at the remote (`git ls-remote` of the upstream branch, no objects "
                 "fetched); a pull only when it moved, so another clone's push shows within seconds (0: never)"),
        Key("default_sort", "choice", "needs-you", choices=("needs-you", "oldest", "newest", "title", "repo", "status"),
            help="the panes' order at start: `needs-you`, `oldest`, `newest`, `title`, `repo`, `status` "
                 "(`s` changes it)"),
        Key("narrow_preview", "choice", "bottom", choices=("bottom", "off"),
            help="below 100 columns: the detail under the lists (`bottom`) or in their place, shown with `l` "
                 "(`off`); `i` switches"),
        Key("glyphs", "choice", "unicode", choices=("unicode", "ascii"),
            help="status marks: `unicode` (✓ ✗ ‖ …) or `ascii` (+ x = ~)"),
        Key("desktop_notifications", "bool", False, help="`notify-send` for a new notice or blocking question"),
        Key("bell", "bool", True, help="ring the terminal bell for one (false: silent)"),
        Key("title_count", "bool", True, help="`atk-tui (3)` in the terminal title: notices + blocking questions"),
        Key("keys", "keymap", None, help="the `[tui.keys]` table below"),
    )),
    Table("elsewhere", on_error="report", keys=(
        Key("repos", "repos", (), doc_default="`[]`",
            help="GitHub repositories (`OWNER/REPO` or `HOST/OWNER/REPO`) looked at besides the `target_repo` "
                 "values of the active items that name one"),
        Key("interval", "seconds", 300.0, low=0,
            help="seconds between the dashboard's looks, the first once the queue's rows are drawn (0: only on "
                 "`u` in `E`)"),
        Key("timeout", "seconds", 20.0, above=0,
            help="seconds each `gh` command may take; then it is killed and the repository keeps its last rows"),
    )),
    Table("notify", on_error="refuse", keys=(
        Key("urls", "urls", (), doc_default="`[]`",
            help="apprise URLs every pushed urgency goes to (`ntfy://ntfy.sh/topic`, `pover://user@token`, "
                 "`mailtos://user:pass@gmail.com`, …)"),
        Key("escalate_urls", "urls", (), doc_default="`[]`",
            help="where a question near its deadline is announced again (none: the same `urls`)"),
        Key("poll", "seconds", 5.0, low=0.2, high=3600, help="seconds between the hub's looks at the remote (`--poll`)"),
        Key("digest_every", "duration", "30m", doc_default='`"30m"`',
            help="how often questions whose urgency says `push = \"digest\"` are gathered into one notification"),
        Key("quiet_hours", "clock-range", None,
            help="`\"22:00-07:00\"` (local time): what may not go then waits until they end"),
        Key("link_ttl", "duration", "24h", doc_default='`"24h"`',
            help="how long a notification's one-tap \"Accept recommended\" link works"),
    )),
    Table("notify.*", on_error="refuse", keys=(
        Key("push", "choice", _per_kind("now", "digest", "never", "now", "never"), choices=("now", "digest", "never"),
            help="`now`, `digest` (every `digest_every`) or `never`"),
        Key("urls", "urls", None, follows="urls", help="this urgency's targets instead"),
        Key("escalate_urls", "urls", None, follows="escalate_urls", help="this urgency's reminder targets instead"),
        Key("answer_by", "duration", _per_kind("30m", "1d", "", "", ""),
            help="a question's deadline unless it has its own `answer_by` (`30m`, `2h`, `1d`, or seconds)"),
        Key("remind_before", "duration", _per_kind("5m", "2h", "", "", ""),
            help="announce an unanswered question again this long before its deadline"),
        Key("during_quiet_hours", "bool", _per_kind(True, False, False, False, False),
            help="send even during `quiet_hours`"),
        Key("priority", "choice", _per_kind("high", "default", "low", "default", "default"),
            choices=("min", "low", "default", "high", "max"),
            help="ntfy's priority (`min`, `low`, `default`, `high`, `max`); a reminder goes one step higher"),
    )),
)  # fmt: skip
TABLE = {t.name: t for t in TABLES}


class ConfigError(Exception):
    """The config file, or a value in it, is not one atk can use (the message says why)."""


class BadValue(ValueError):
    """A value its key does not take; str() is the whole message."""


def table_of(name: str) -> Table:
    return TABLE["notify.*" if name.startswith("notify.") else name]


def where(table: str, key: str) -> str:
    t = table_of(table)
    return f"[{table}] {key}" if table and t.label else key


# -- the checker ------------------------------------------------------------------------------


def _seconds_wanted(key: Key) -> str:
    if key.high is not None:
        return f"a number of seconds between {key.low:g} and {key.high:g}"
    return f"a number of seconds {'>= ' + format(key.low, 'g') if key.low is not None else '> ' + format(key.above or 0, 'g')}"


def wanted(key: Key, refuse: bool = False) -> str:
    """What `key` takes, as a message says it."""
    if key.kind == "choice":
        return ", ".join(key.choices) if refuse else "one of " + ", ".join(key.choices)
    return {
        "seconds": _seconds_wanted(key), "bool": "true or false", "text": "a path (a string)",
        "duration": "a duration (30m, 2h, 1d, or seconds)", "urls": "a list of apprise URLs (strings)",
        "keymap": "a table of action ids to keys, e.g. hold = \"H\"", "repos": 'a list of "OWNER/REPO" strings',
        "clock-range": '"HH:MM-HH:MM" (local time)',
    }[key.kind]  # fmt: skip


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def _check(ok: bool, value: Any) -> Any:
    if not ok:
        raise BadValue
    return value


def _seconds(key: Key, value: Any) -> float:
    ok = _number(value) and (key.low is None or value >= key.low) and (key.above is None or value > key.above)
    _check(ok and (key.high is None or value <= key.high), value)
    return float(value) if key.most is None else min(float(value), key.most)


def _urls(key: Key, value: Any) -> tuple[str, ...]:
    value = [] if value is None else [value] if isinstance(value, str) else value
    _check(isinstance(value, list) and all(isinstance(u, str) and u.strip() for u in value), value)
    return tuple(u.strip() for u in value)


#: each kind's checker: the value as the program uses it, or BadValue
_CONVERT: dict[str, Any] = {
    "seconds": _seconds,
    "bool": lambda key, v: _check(isinstance(v, bool), v),
    "choice": lambda key, v: _check(v in key.choices, v),
    "text": lambda key, v: _check(isinstance(v, str), v),
    "duration": lambda key, v: _duration(v),
    "urls": _urls,
    "keymap": lambda key, v: dict(_check(isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str) and x for k, x in v.items()), v)),
    "repos": lambda key, v: tuple(_check(isinstance(v, list) and all(isinstance(r, str) for r in v), v)),
    "clock-range": lambda key, v: _clock_range(v),
}  # fmt: skip


def convert(key: Key, value: Any) -> Any:
    """The value `key` stands for, as the program uses it; BadValue (saying only what is wrong
    with the value, if more than that it is not one the key takes) when the key does not take it."""
    return _CONVERT[key.kind](key, value)


def _duration(value: Any) -> timedelta | None:
    """`30m`, `1d`, `2h30m`, `90s` or a number of seconds; "" or 0: none."""
    if value in ("", None, 0):
        return None
    m = _DURATION.match(value.strip()) if isinstance(value, str) else None
    if not _number(value) and (not m or not any(m.groups())):
        raise BadValue
    try:  # a span no clock reaches (inf, 10**12 days) is no duration either
        if _number(value):
            return timedelta(seconds=float(value)) if value > 0 else None
        d, h, mi, s = (int(g or 0) for g in m.groups())  # type: ignore[union-attr]
        return timedelta(days=d, hours=h, minutes=mi, seconds=s)
    except OverflowError:
        raise BadValue from None


def _clock_range(value: Any) -> tuple[time, time] | None:
    if value in ("", None, 0):  # false too
        return None
    m = _CLOCK.fullmatch(value) if isinstance(value, str) else None
    if not m:
        raise BadValue
    a, b, c, d = (int(g) for g in m.groups())
    if a > 23 or c > 23 or b > 59 or d > 59:
        raise BadValue(f"not a time of day in {value!r}")
    return time(a, b), time(c, d)


def message(table: str, key: Key, value: Any, exc: BadValue | None = None) -> str:
    """What is wrong with `value` for `key` of `table`, in the table's own words."""
    refuse = table_of(table).on_error == "refuse"
    name = where(table, key.name)
    if exc is not None and str(exc):
        return f"{name}: {exc}"
    if key.kind == "keymap":
        return '[tui.keys] maps action ids to keys, e.g. hold = "H"'
    return f"{name} {'takes' if refuse else 'must be'} {wanted(key, refuse)}, got {value!r}"


def from_env(key: Key, environ: Any = None) -> Any:
    """The value `key`'s environment variable gives (None: not set, empty, or not a value the
    key takes: then the file decides). Numbers are cut at an hour."""
    raw = (os.environ if environ is None else environ).get(key.env or "", "").strip() if key.env else ""
    if not raw:
        return None
    if key.kind != "seconds":
        return raw
    try:
        value = float(raw)
    except ValueError:
        return None
    try:
        return min(convert(key, value), ENV_MOST)
    except BadValue:
        return None


class Read:
    """A table as read: `values` (every key, the defaults filled in, environment variables
    applied), `given` (the keys the file set, with a value the key takes), `errors` (messages)."""

    __slots__ = ("errors", "given", "values")

    def __init__(self, values: dict[str, Any], given: set[str], errors: list[str]) -> None:
        self.values, self.given, self.errors = values, given, errors


def read_table(name: str, cfg: dict[str, Any], environ: Any = None, parent: dict[str, Any] | None = None) -> Read:
    """Table `name` ("" the top level, "git", "notify.blocking", ...) of the parsed file `cfg`,
    checked key by key. With `on_error = "refuse"` the first error raises ConfigError; else
    it is in `errors` and the default kept. `parent`: `[notify]`'s values, for the keys of a
    `[notify.<kind>]` table that follow them."""
    t = table_of(name)
    kind = name.split(".", 1)[1] if "." in name else ""
    raw: Any = cfg
    for part in [p for p in (name.split(".", 1) if kind else [name]) if p]:
        raw = raw.get(part, {}) if isinstance(raw, dict) else None
    errors: list[str] = []

    def bad(text: str) -> None:
        if t.on_error == "refuse":
            raise ConfigError(text)
        if t.on_error == "report":
            errors.append(f"config: {text}")

    values: dict[str, Any] = {}
    given: set[str] = set()
    if not isinstance(raw, dict):
        bad(f"[{name}] must be a table" + ("" if t.on_error == "refuse" else "; using defaults"))
        raw = {}
    for key in t.keys:
        default = key.default[kind] if isinstance(key.default, dict) else key.default
        if key.kind in ("duration",):
            default = _duration(default)
        elif key.kind in ("urls", "repos") and default is not None:
            default = tuple(default)
        if key.name in raw:
            try:
                values[key.name] = convert(key, raw[key.name])
                given.add(key.name)
            except BadValue as exc:
                bad(message(name, key, raw[key.name], exc))
        if key.name not in values:
            if key.follows is not None:
                followed = (parent if kind else values).get(key.follows)  # type: ignore[union-attr]
                default = followed if default is None else min(default, followed)
            values[key.name] = default
        env = from_env(key, environ)
        if env is not None:
            values[key.name] = env
    unknown = [k for k in raw if k not in values and not (name == "notify" and k in NOTIFY_KINDS)]
    if unknown and not t.open:
        known = ", ".join(k.name for k in t.keys) + (", " + ", ".join(NOTIFY_KINDS) if name == "notify" else "")
        if t.on_error == "refuse":
            bad(f"unknown [{name}] setting {sorted(unknown)[0]!r}; known: {known}")
        else:
            bad(f"unknown [{name}] setting(s): {', '.join(sorted(unknown))}; settings: {known}")
    return Read(values, given, errors)


# -- the docs and the JSON Schema --------------------------------------------------------------


def _shown(value: Any) -> str:
    if value is None or value == "":
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return f"{value:g}"
    if isinstance(value, tuple | list) and not value:
        return "`[]`"
    return f"`{value}`"


def doc_default(key: Key) -> str:
    if key.doc_default is not None:
        return key.doc_default
    if isinstance(key.default, dict):
        main = " / ".join(_shown(key.default[k]) for k in NOTIFY_KINDS[:4])
        odd = key.default["elsewhere"] != key.default["notice"]
        return main + (f" (elsewhere: {_shown(key.default['elsewhere'])})" if odd else "")
    if key.follows is not None:
        return f"`[notify] {key.follows}`" if key.kind == "urls" else f"`{key.follows}`"
    return _shown(key.default)


def doc_table(name: str) -> str:
    """Table `name`'s rows for docs/configuration.md (key, default, meaning)."""
    head = "default (blocking / next-review / informational / notice)" if name == "notify.*" else "default"
    rows = [f"| key | {head} | meaning |", "| --- | --- | --- |"]
    rows += [f"| `{k.name}` | {doc_default(k)} | {k.help} |" for k in TABLE[name].keys]
    return "\n".join(rows)


_MARKED = re.compile(r"(<!-- keys: (\S+) -->\n\n).*?(\n\n<!-- /keys -->)", re.DOTALL)


def render_doc(text: str) -> str:
    """`text` (docs/configuration.md) with each marked key table written from `TABLES`:
    `<!-- keys: git -->` ... `<!-- /keys -->` (`top` for the top level)."""
    return _MARKED.sub(lambda m: m.group(1) + doc_table("" if m.group(2) == "top" else m.group(2)) + m.group(3), text)


_PY_TYPES: dict[str, Any] = {}


def _field(key: Key) -> tuple[Any, Any]:
    """The pydantic type and field of `key`: its values in the file, checked by `convert` too."""
    from typing import Annotated, Literal

    from pydantic import AfterValidator, Field, StrictBool, StrictFloat, StrictInt, StrictStr

    def checked(value: Any) -> Any:
        try:
            convert(key, value)
        except BadValue as exc:
            raise ValueError(str(exc) or f"takes {wanted(key)}") from None
        return value

    number = StrictInt | StrictFloat
    ann: Any = {
        "seconds": Annotated[number, Field(ge=key.low, gt=key.above, le=key.high)],
        "bool": StrictBool,
        "choice": Literal[key.choices],  # type: ignore[valid-type]
        "text": StrictStr,
        # false, like "" and 0, says none
        "duration": Annotated[StrictStr, Field(pattern=r"^\s*(\d+d)?(\d+h)?(\d+m)?(\d+s)?\s*$")] | number | Literal[False],
        "urls": StrictStr | list[StrictStr],
        "keymap": dict[StrictStr, StrictStr],
        "repos": list[StrictStr],
        "clock-range": Annotated[StrictStr, Field(pattern=r"^\s*\d{1,2}:\d{2}\s*-\s*\d{1,2}:\d{2}\s*$|^$")] | Literal[False, 0],
    }[key.kind]
    default = key.default[NOTIFY_KINDS[0]] if isinstance(key.default, dict) else key.default
    extra = {"env": key.env} if key.env else None
    field = Field(list(default) if isinstance(default, tuple) else default, description=key.help, json_schema_extra=extra)
    return Annotated[ann | None, AfterValidator(checked)], field


def config_model() -> Any:
    """The pydantic model of the whole file, built from `TABLES` (imports pydantic: for `atk wi
    schema --which config` and the tests, never on a command's way)."""
    if "config" in _PY_TYPES:
        return _PY_TYPES["config"]
    from pydantic import ConfigDict, create_model

    def model(name: str, title: str, **more: Any) -> Any:
        t = table_of(name)
        fields = {k.name: _field(k) for k in t.keys}
        return create_model(title, __config__=ConfigDict(extra="allow" if t.open else "forbid"), **fields, **more)

    route = model("notify.*", "NotifyRoute")
    sub = {"git": model("git", "Git"), "tui": model("tui", "Tui"), "elsewhere": model("elsewhere", "Elsewhere"),
           "notify": model("notify", "Notify", **{k: (route | None, None) for k in NOTIFY_KINDS})}  # fmt: skip
    _PY_TYPES["config"] = create_model(
        "Config",
        __config__=ConfigDict(extra="allow", title="atk config file"),
        __doc__="`~/.config/atk/config.toml` ($XDG_CONFIG_HOME/atk/config.toml): every key optional.",
        **{k.name: _field(k) for k in TABLE[""].keys},
        **{name: (m | None, None) for name, m in sub.items()},
    )
    return _PY_TYPES["config"]
