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

from dataclasses import dataclass, field
from datetime import time, timedelta
from typing import Any

from atk_tui.host.config import load_config
from atk_tui.host.settings import NOTIFY_KINDS, TABLE, read_table

KINDS = NOTIFY_KINDS  # the urgencies (domain.model.URGENCIES), then notice and elsewhere
#: the keys of `[notify]` and of each `[notify.<urgency>]` / `[notify.notice]` table (`host.settings`)
TOP_KEYS = tuple(k.name for k in TABLE["notify"].keys)
ROUTE_KEYS = tuple(k.name for k in TABLE["notify.*"].keys)


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


def notify_settings(cfg: dict[str, Any] | None = None) -> NotifySettings:
    """The `[notify]` table, checked (ConfigError says which key is wrong and why)."""
    cfg = load_config() if cfg is None else cfg
    top = read_table("notify", cfg).values
    routes = {kind: Route(kind=kind, **read_table(f"notify.{kind}", cfg, parent=top).values) for kind in KINDS}
    every = tuple(dict.fromkeys(u for r in routes.values() for u in (*r.urls, *r.escalate_urls)))
    return NotifySettings(routes=routes, poll=top["poll"], digest_every=top["digest_every"] or timedelta(minutes=30),
                          quiet=top["quiet_hours"], link_ttl=top["link_ttl"] or timedelta(hours=24), all_urls=every)  # fmt: skip
