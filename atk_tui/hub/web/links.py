"""The one-tap link: "Accept recommended" from a notification (SPEC §16, issue 41).

A link is `BASE/a/QUEUE/FILENAME?d=DIGEST&t=ISSUED&n=NONCE&s=SIGNATURE`:

- `d` is the question's content digest when the notification was made
  (`service.writing.digest.question_digest`): the link answers only while the question reads the same;
- `t` is when it was made (seconds since the epoch): it expires `link_ttl_s` after (the hub's
  setting, 24 h by default);
- `n` is a random nonce: a link is spent the first time it answers (recorded in the hub's state
  directory) and refused after;
- `s` is HMAC-SHA256 over all of it with the hub's key (`statefiles.hub_key`, 0600 in the state
  directory): a link changed in any part, or made by anyone without the key, is refused.

Nothing in a link is secret but the signature; the page it leads to never shows it again.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from atk_tui.hub.web.statefiles import SPENT, changing, hub_key, web_dir

DEFAULT_TTL_S = 24 * 3600.0
_DIGEST_RE = re.compile(r"[0-9a-f]{64}")
_NONCE_RE = re.compile(r"[A-Za-z0-9_-]{16,64}")
_SIG_RE = re.compile(r"[A-Za-z0-9_-]{43}")
QUEUES = ("wi", "mq")


def _sign(key: bytes, *parts: str) -> str:
    mac = hmac.new(key, "\x1f".join(parts).encode("utf-8", "surrogateescape"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode("ascii").rstrip("=")


def _path(queue: str, filename: str) -> str:
    return f"{queue}/{quote(filename, safe='')}"


def accept_link(
    state_dir: Path, *, base_url: str, queue: str, filename: str, content_digest: str, now: float | None = None
) -> str:
    """A signed, single-use link that answers `queue`/`filename` with its recommended
    options while its questions' digest is `content_digest` (see the module's docstring).
    `now`: when it is made (tests make old ones)."""
    if queue not in QUEUES:
        raise ValueError(f"no queue {queue!r}")
    if not _DIGEST_RE.fullmatch(content_digest):
        raise ValueError("content_digest must be 64 lower-case hex digits (service.writing.digest.question_digest)")
    issued = str(int(time.time() if now is None else now))
    nonce = secrets.token_urlsafe(18)
    sig = _sign(hub_key(state_dir), "accept", queue, filename, content_digest, issued, nonce)
    return f"{base_url.rstrip('/')}/a/{_path(queue, filename)}?d={content_digest}&t={issued}&n={nonce}&s={sig}"


def open_link(base_url: str, queue: str, filename: str) -> str:
    """The answer page of `queue`/`filename` (a paired device opens it; for notifications
    without actions, or beside the one-tap action)."""
    return f"{base_url.rstrip('/')}/i/{_path(queue, filename)}"


@dataclass(frozen=True)
class Link:
    """A one-tap link as it came in (query values unchecked)."""

    queue: str
    filename: str
    digest: str
    issued: str
    nonce: str
    sig: str

    @classmethod
    def from_query(cls, queue: str, filename: str, query) -> Link:
        return cls(queue, filename, *(str(query.get(k, "")) for k in ("d", "t", "n", "s")))

    @property
    def query(self) -> str:
        return f"d={self.digest}&t={self.issued}&n={self.nonce}&s={self.sig}"


@dataclass(frozen=True)
class Refusal:
    code: str  # "tampered" | "expired" | "spent"
    reason: str


def check(state_dir: Path, link: Link, *, ttl_s: float = DEFAULT_TTL_S, now: float | None = None) -> Refusal | None:
    """Why `link` is refused (its signature, then its age, then whether it was spent), or None."""
    shaped = (
        link.queue in QUEUES
        and _DIGEST_RE.fullmatch(link.digest)
        and link.issued.isdigit()
        and len(link.issued) <= 12
        and _NONCE_RE.fullmatch(link.nonce)
        and _SIG_RE.fullmatch(link.sig)
    )
    good = _sign(hub_key(state_dir), "accept", link.queue, link.filename, link.digest, link.issued, link.nonce)
    if not shaped or not hmac.compare_digest(good, link.sig):
        return Refusal(
            "tampered",
            "this link is not one this hub signed (it was changed, cut short, or made elsewhere)",
        )
    now = time.time() if now is None else now
    if now > int(link.issued) + ttl_s:
        hours = ttl_s / 3600
        return Refusal("expired", f"this link expired (links last {hours:g} h after the notification)")
    when = spent_at(state_dir, link.nonce)
    if when is not None:
        return Refusal("spent", f"this link was used already ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(when))})")
    return None


def spent_at(state_dir: Path, nonce: str) -> float | None:
    from atk_tui.hub.web.statefiles import read_json

    entry = read_json(web_dir(state_dir) / SPENT).get(nonce)
    return float(entry[0]) if isinstance(entry, list) and entry else None


def spend(state_dir: Path, link: Link, *, ttl_s: float = DEFAULT_TTL_S, now: float | None = None) -> bool:
    """Mark `link` spent; False when it was already (another tap got there first). Entries
    whose link has expired are dropped (the expiry refuses those anyway)."""
    now = time.time() if now is None else now
    with changing(web_dir(state_dir) / SPENT) as data:
        for nonce, entry in list(data.items()):
            if not isinstance(entry, list) or len(entry) != 2 or float(entry[1]) < now:
                del data[nonce]
        if link.nonce in data:
            return False
        data[link.nonce] = [now, int(link.issued) + ttl_s + 24 * 3600]
        return True


def unspend(state_dir: Path, link: Link) -> None:
    """Give a link back when its answer wrote nothing (a busy store, the remote down), so
    the person can tap again."""
    with changing(web_dir(state_dir) / SPENT) as data:
        data.pop(link.nonce, None)


__all__ = ["DEFAULT_TTL_S", "Link", "Refusal", "accept_link", "check", "open_link", "spend", "unspend"]
