"""The hub's settings: the `[notify]` table of the config file (docs/hub.md).

```toml
[notify]
urls = ["ntfy://ntfy.sh/my-topic"]       # apprise URLs for every pushed urgency
poll = 5                                 # seconds between looks at the remote
digest_every = "30m"                     # how often next-review questions are gathered
quiet_hours = "22:00-07:00"              # local time; empty: none
escalate_urls = ["mailto://..."]         # where a question near its deadline goes too

[notify.blocking]                        # one table per urgency (and `notice`)
push = "now"                             # now | digest | never
answer_by = "30m"                        # the default deadline of a question of this urgency
remind_before = "5m"                     # announce again this long before the deadline
during_quiet_hours = true                # send even in quiet hours
urls = [...]                             # instead of [notify] urls
escalate_urls = [...]                    # instead of [notify] escalate_urls
```

Nothing here is imported by the CLI's start-up path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import time, timedelta
from typing import Any

from atk_tui.domain.model import URGENCIES
from atk_tui.host.config import ConfigError, load_config

#: what each kind of thing that needs the person gets unless the config says otherwise
DEFAULTS: dict[str, dict[str, Any]] = {
    "blocking": {"push": "now", "answer_by": "30m", "remind_before": "5m", "during_quiet_hours": True,
                 "priority": "high"},
    "next-review": {"push": "digest", "answer_by": "1d", "remind_before": "2h", "during_quiet_hours": False,
                    "priority": "default"},
    "informational": {"push": "never", "answer_by": "", "remind_before": "", "during_quiet_hours": False,
                      "priority": "low"},
    "notice": {"push": "now", "answer_by": "", "remind_before": "", "during_quiet_hours": False,
               "priority": "default"},
    # what afkkit left for the person on GitHub (`atk elsewhere list`): pushed only when asked for
    "elsewhere": {"push": "never", "answer_by": "", "remind_before": "", "during_quiet_hours": False,
                  "priority": "default"},
}  # fmt: skip
KINDS = (*URGENCIES, "notice", "elsewhere")
#: the keys of `[notify]` and of each `[notify.<urgency>]` / `[notify.notice]` table (docs/configuration.md)
TOP_KEYS = ("urls", "escalate_urls", "poll", "digest_every", "quiet_hours", "link_ttl")
ROUTE_KEYS = ("push", "urls", "escalate_urls", "answer_by", "remind_before", "during_quiet_hours", "priority")
PUSH = ("now", "digest", "never")
_DURATION = re.compile(r"\A(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?\Z")


def parse_duration(value: Any, where: str) -> timedelta | None:
    """`30m`, `1d`, `2h30m`, `90s` or a number of seconds; "" or 0: none."""
    if value in ("", None, 0):
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return timedelta(seconds=float(value)) if value > 0 else None
    m = _DURATION.match(str(value).strip())
    if not isinstance(value, str) or not m or not any(m.groups()):
        raise ConfigError(f"{where} takes a duration (30m, 2h, 1d, or seconds), got {value!r}")
    d, h, mi, s = (int(g or 0) for g in m.groups())
    return timedelta(days=d, hours=h, minutes=mi, seconds=s)


@dataclass(frozen=True)
class Route:
    """How one urgency (or agent notices) reaches the person."""

    kind: str
    push: str
    urls: tuple[str, ...]
    answer_by: timedelta | None
    remind_before: timedelta | None
    escalate_urls: tuple[str, ...]
    during_quiet_hours: bool
    priority: str


@dataclass(frozen=True)
class NotifySettings:
    routes: dict[str, Route]
    poll: float = 5.0
    digest_every: timedelta = timedelta(minutes=30)
    quiet: tuple[time, time] | None = None
    link_ttl: timedelta = timedelta(hours=24)
    #: every URL any route names, in order (a target is one URL)
    all_urls: tuple[str, ...] = field(default=())

    def route(self, kind: str) -> Route:
        return self.routes.get(kind) or self.routes["blocking"]

    def in_quiet_hours(self, now_local: time) -> bool:
        if self.quiet is None:
            return False
        start, end = self.quiet
        if start <= end:
            return start <= now_local < end
        return now_local >= start or now_local < end


def _urls(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(u, str) and u.strip() for u in value):
        raise ConfigError(f"{where} takes a list of apprise URLs (strings), got {value!r}")
    return tuple(u.strip() for u in value)


def _quiet(value: Any) -> tuple[time, time] | None:
    if not value:
        return None
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*", str(value))
    if not isinstance(value, str) or not m:
        raise ConfigError(f"[notify] quiet_hours takes \"HH:MM-HH:MM\" (local time), got {value!r}")
    a, b, c, d = (int(g) for g in m.groups())
    if a > 23 or c > 23 or b > 59 or d > 59:
        raise ConfigError(f"[notify] quiet_hours: not a time of day in {value!r}")
    return time(a, b), time(c, d)


def notify_settings(cfg: dict[str, Any] | None = None) -> NotifySettings:
    """The `[notify]` table, checked (ConfigError says which key is wrong and why)."""
    cfg = load_config() if cfg is None else cfg
    table = cfg.get("notify", {})
    if not isinstance(table, dict):
        raise ConfigError("[notify] must be a table")
    unknown = sorted(k for k in table if k not in TOP_KEYS and k not in KINDS)
    if unknown:
        raise ConfigError(f"unknown [notify] setting {unknown[0]!r}; known: {', '.join((*TOP_KEYS, *KINDS))}")
    urls = _urls(table.get("urls"), "[notify] urls")
    escalate = _urls(table.get("escalate_urls"), "[notify] escalate_urls")
    routes: dict[str, Route] = {}
    for kind in KINDS:
        sub = table.get(kind, {})
        if not isinstance(sub, dict):
            raise ConfigError(f"[notify.{kind}] must be a table")
        odd = sorted(k for k in sub if k not in ROUTE_KEYS)
        if odd:
            raise ConfigError(f"unknown [notify.{kind}] setting {odd[0]!r}; known: {', '.join(ROUTE_KEYS)}")
        merged = {**DEFAULTS[kind], **sub}
        push = merged["push"]
        if push not in PUSH:
            raise ConfigError(f"[notify.{kind}] push takes {', '.join(PUSH)}, got {push!r}")
        if not isinstance(merged["during_quiet_hours"], bool):
            raise ConfigError(f"[notify.{kind}] during_quiet_hours takes true or false")
        priority = str(merged["priority"])
        if priority not in ("min", "low", "default", "high", "max"):
            raise ConfigError(f"[notify.{kind}] priority takes min, low, default, high or max, got {priority!r}")
        routes[kind] = Route(
            kind=kind,
            push=push,
            urls=_urls(sub["urls"], f"[notify.{kind}] urls") if "urls" in sub else urls,
            answer_by=parse_duration(merged["answer_by"], f"[notify.{kind}] answer_by"),
            remind_before=parse_duration(merged["remind_before"], f"[notify.{kind}] remind_before"),
            escalate_urls=_urls(sub["escalate_urls"], f"[notify.{kind}] escalate_urls") if "escalate_urls" in sub else escalate,
            during_quiet_hours=merged["during_quiet_hours"],
            priority=priority,
        )
    poll = table.get("poll", 5)
    if not isinstance(poll, int | float) or isinstance(poll, bool) or not 0.2 <= poll <= 3600:
        raise ConfigError(f"[notify] poll takes a number of seconds between 0.2 and 3600, got {poll!r}")
    digest = parse_duration(table.get("digest_every", "30m"), "[notify] digest_every") or timedelta(minutes=30)
    ttl = parse_duration(table.get("link_ttl", "24h"), "[notify] link_ttl") or timedelta(hours=24)
    every = tuple(dict.fromkeys(u for r in routes.values() for u in (*r.urls, *r.escalate_urls)))
    return NotifySettings(routes=routes, poll=float(poll), digest_every=digest, quiet=_quiet(table.get("quiet_hours")),
                          link_ttl=ttl, all_urls=every)  # fmt: skip
