"""Sending through apprise (https://github.com/caronc/apprise): one target per URL, each with
its own record of its last success and failure, retried with backoff.

apprise is imported here only, when the first notification is sent: never by the CLI's
start-up path. A send runs in a worker thread with apprise's own time limits (`cto`/`rto`
added to a URL that does not set them); what apprise logs while it fails is the reason kept.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from atk_tui.text.textsafe import safe_line

#: apprise's time limits unless the URL says otherwise: connect, read (seconds)
CONNECT_TIMEOUT = 4.0
READ_TIMEOUT = 8.0
BACKOFF_FIRST = 5.0
BACKOFF_MAX = 600.0
_NTFY = ("ntfy", "ntfys")
MAX_TITLE = 120  # characters of a title in a notification


@dataclass(frozen=True)
class Message:
    """One notification: already sanitised text, what ntfy can carry besides it."""

    key: str  # what it announces ("ask:<file>", "due:<file>", "digest:<time>", "notice:<file>")
    title: str
    body: str
    priority: str = "default"  # ntfy's: min, low, default, high, max
    click: str | None = None
    actions: tuple[tuple[str, str, str], ...] = ()  # (kind: view|http, label, url)
    tags: tuple[str, ...] = ()
    anytime: bool = False  # may go during quiet hours


def ago_words(seconds: float) -> str:
    """A span as a notification says it: `40 s`, `12 min`, `3 h 5 min`, `2 d`."""
    s = max(int(seconds), 0)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    if s < 86400:
        return f"{s // 3600} h {s % 3600 // 60} min" if s % 3600 // 60 else f"{s // 3600} h"
    return f"{s // 86400} d"


def one_line(text: str, n: int = MAX_TITLE) -> str:
    """Store text as one safe line of at most `n` characters (… when cut)."""
    text = safe_line(" ".join(text.split()))
    return text if len(text) <= n else text[: n - 1] + "…"


def redact(url: str) -> str:
    """The URL as the log and the status may show it: no password, token or user. A service
    whose address is a host shows it (ntfy also its topic); one whose URL is made of tokens
    (Pushover, Telegram, Slack, Discord …) shows its scheme and a short hash to tell two apart."""
    import hashlib

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port:
            host += f":{parts.port}"
    except ValueError:
        parts, host = None, ""
    scheme = parts.scheme.lower() if parts is not None else url.split(":", 1)[0].lower()
    who = "…@" if parts is not None and (parts.username or parts.password) else ""
    if parts is not None and scheme in ("ntfy", "ntfys", "json", "jsons", "xml", "xmls", "form", "forms"):
        return f"{scheme}://{who}{host}{parts.path}"
    if parts is not None and scheme in ("mailto", "mailtos", "matrix", "matrixs", "gotify", "gotifys"):
        return f"{scheme}://{who}{host}"
    return f"{scheme}://… #{hashlib.sha256(url.encode('utf-8', 'replace')).hexdigest()[:6]}"


def url_for(url: str, msg: Message) -> str:
    """`url` with what this message asks of the service: ntfy's priority, click, tags and
    actions, and apprise's time limits when the URL sets none."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    query.setdefault("cto", f"{CONNECT_TIMEOUT:g}")
    query.setdefault("rto", f"{READ_TIMEOUT:g}")
    if parts.scheme.lower() in _NTFY:
        query["priority"] = msg.priority
        if msg.click:
            query["click"] = msg.click
        if msg.tags:
            query["tags"] = ",".join(msg.tags)
        if msg.actions:
            query["actions"] = "; ".join(f"{kind}, {label}, {link}, clear=true" for kind, label, link in msg.actions)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query, quote_via=quote), parts.fragment))


class _Reasons(logging.Handler):
    """What apprise logs at warning level or above, per thread: the reason a send failed."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.by_thread: dict[int, list[str]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if record.levelno < logging.WARNING and not record.msg.startswith("Socket Exception"):
                return  # (the one debug line worth keeping: why a connection failed, "Read timed out")
            kept = self.by_thread.setdefault(record.thread or 0, [])
            kept.append(record.getMessage())
            del kept[:-8]
        except Exception: # a log line never breaks a send
            pass


_reasons = _Reasons()
_installed = threading.Lock()
_ready = False


def _apprise() -> Any:
    global _ready
    import apprise

    with _installed:
        if not _ready:
            logger = logging.getLogger("apprise")
            logger.addHandler(_reasons)
            if logger.getEffectiveLevel() > logging.DEBUG:
                logger.setLevel(logging.DEBUG)
            _ready = True
    return apprise


def load() -> None:
    """Import apprise now (its first import takes about a second)."""
    _apprise()


def send(url: str, msg: Message) -> str | None:
    """Send `msg` to one apprise URL now (blocking, bounded by apprise's time limits): None
    when it went, else why not (one line)."""
    apprise = _apprise()
    me = threading.get_ident()
    _reasons.by_thread.pop(me, None)
    try:
        # the service's plugin itself, called in this thread (Apprise.notify would hand it to a
        # thread of its own): what it logs while it fails is this send's reason
        plugin = apprise.Apprise.instantiate(url_for(url, msg))
        if not plugin:
            said = " ".join(_reasons.by_thread.pop(me, []))
            return safe_line(f"apprise cannot use {redact(url)}" + (f": {said}" if said else ""))[:300]
        ok = plugin.notify(title=msg.title, body=msg.body or msg.title)
    except Exception as exc: # a plugin's surprise is this target's failure
        return f"{type(exc).__name__}: {exc}"[:300]
    said = _reasons.by_thread.pop(me, [])
    if ok:
        return None
    main = next((s for s in reversed(said) if "ailed" in s or "rror" in s), said[-1] if said else "")
    detail = next((s.removeprefix("Socket Exception:").strip() for s in said if s.startswith("Socket Exception")), "")
    reason = f"{main} ({detail[:120]})" if detail and detail not in main else main
    return safe_line(" ".join(reason.split()))[:300] or "the service refused the notification"


@dataclass
class Target:
    """One URL: its outbox and its record (what `atk hub status` shows)."""

    url: str
    name: str
    last_ok: float | None = None
    last_fail: float | None = None
    reason: str | None = None
    failing_since: float | None = None
    retry_at: float = 0.0
    backoff: float = 0.0
    sent: int = 0
    outbox: list[Message] = field(default_factory=list)
    busy: bool = False

    def record(self) -> dict[str, Any]:
        return {
            "name": self.name, "last_ok": self.last_ok, "last_fail": self.last_fail, "reason": self.reason,
            "failing": self.failing_since is not None, "failing_since": self.failing_since,
            "retry_at": self.retry_at if self.failing_since is not None else None, "pending": len(self.outbox),
            "sent": self.sent,
        }  # fmt: skip

    def due(self, now: float) -> bool:
        return bool(self.outbox) and not self.busy and now >= self.retry_at

    def succeeded(self, now: float) -> bool:
        """Record a success; True when the target had been failing (it recovered)."""
        was = self.failing_since is not None
        self.last_ok, self.failing_since, self.backoff, self.retry_at, self.sent = now, None, 0.0, 0.0, self.sent + 1
        return was

    def failed(self, now: float, reason: str) -> bool:
        """Record a failure and when to try again; True when it is this streak's first (say it once)."""
        first = self.failing_since is None
        self.last_fail, self.reason = now, reason
        if first:
            self.failing_since = now
        self.backoff = BACKOFF_FIRST if first else min(self.backoff * 2, BACKOFF_MAX)
        self.retry_at = now + self.backoff
        return first
