"""Who may talk to a local web server that acts as its user: the Host and Origin rules shared
by `atk-tui --serve` (tui/serve.py) and the hub's answer page (hub/web). Pure: no server here.

A page the person visits elsewhere can reach a port on loopback (cross-site requests) or
through DNS rebinding (a name of the attacker's that resolves to 127.0.0.1). Both carry a
tell: the Host header is not one of this server's names, or the Origin header is not its
page's origin.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable, Mapping

LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
SAFE_METHODS = ("GET", "HEAD")


def bracketed(host: str) -> str:
    """An IPv6 address in brackets, as a Host header has it; any other name as it is."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def page_host(host: str) -> str:
    """The name a page is served on for a server bound to `host`: a loopback or wildcard
    address is 127.0.0.1 (or [::1] for IPv6), any other name is itself."""
    h = host.strip().lower()
    if h in ("", "localhost", "127.0.0.1", "0.0.0.0"):
        return "127.0.0.1"
    if h in ("::", "::1", "[::]", "[::1]"):
        return "[::1]"
    return bracketed(h)


def addresses(host: str) -> set[str]:
    """The addresses `host` resolves to (what binding it listens on), bracketed when IPv6."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return set()
    return {bracketed(str(info[4][0]).split("%", 1)[0].lower()) for info in infos}


def host_names(host: str, port: int, extra: Iterable[str] = ()) -> frozenset[str]:
    """Every Host header value a server bound to `host`:`port` answers to: the loopback
    names, `host` and the addresses it resolves to, each with the port (and without it on
    port 80), plus `extra` (full `name[:port]` values, e.g. a tunnel's public name)."""
    names = {*LOOPBACK, page_host(host), bracketed(host.strip().lower())}
    names |= addresses(host.strip("[]"))
    names.discard("")
    with_port = {f"{n}:{port}" for n in names}
    if port == 80:  # a browser leaves the default port out of Host and Origin
        with_port |= names
    with_port |= {e.lower() for e in extra if e}
    return frozenset(with_port)


def shown(value: str, limit: int = 120) -> str:
    """A header value quoted for a log line: control characters escaped, ASCII only, bounded."""
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in value)
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    return "'" + text[:limit] + ("..." if len(text) > limit else "") + "'"


def origin_refusal(
    method: str,
    headers: Mapping[str, str],
    names: frozenset[str],
    origins: Iterable[str],
    *,
    page: str = "this dashboard's page",
    origin_optional: bool = False,
    quote: Callable[[str], str] = shown,
) -> str | None:
    """Why a request's Host or Origin header is refused, or None. `names`: the Host values
    allowed (`host_names`); `origins`: the page origins allowed, the first the one named in
    the refusal. A WebSocket upgrade, and a request that is not GET/HEAD, must carry an
    Origin (unless `origin_optional`: a request whose own content is its credential, e.g.
    a signed link an app posts to); any Origin given must be one of `origins`. `quote`: how a
    header value is shown in the reason."""
    allowed = [o.lower() for o in origins]
    host = headers.get("Host")
    if host is None:
        return "no Host header"
    if host.lower() not in names:
        return f"Host {quote(host)} is not this server's (DNS rebinding?); it answers to {allowed[0]}"
    origin = headers.get("Origin")
    if origin is None and "websocket" in headers.get("Upgrade", "").lower():
        return "a WebSocket without an Origin header"
    if origin is None and method not in SAFE_METHODS and not origin_optional:
        return f"a {quote(method)} request without an Origin header"
    if origin is not None and origin.lower() not in allowed:
        return f"Origin {quote(origin)} is not {page} ({allowed[0]})"
    return None


__all__ = [
    "LOOPBACK",
    "SAFE_METHODS",
    "addresses",
    "bracketed",
    "host_names",
    "origin_refusal",
    "page_host",
    "shown",
]
