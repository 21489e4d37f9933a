"""`atk-tui --serve`: the dashboard in a browser, which no other web page can drive (issue 25).

A local web server that acts as its user needs what Jupyter's has, or any page the person
visits can connect to the port (cross-site WebSocket hijacking) or reach it through DNS
rebinding, send keys and make commits as the person. Every request, on every route
textual-serve serves (the page, its static files, downloads, the terminal's WebSocket, and a
path that matches none), passes `Guard.check` first:

- the Host header is one of this server's names with its port: 127.0.0.1, localhost, [::1],
  the `--host` given and the addresses it resolves to. Anything else is refused: a rebound
  DNS name reaches the port, but its Host header is the attacker's name;
- a WebSocket upgrade, a request that is not GET/HEAD, and any request that carries an Origin
  header must come from the page's own origin (`Guard.origin`, e.g. http://127.0.0.1:8000); a
  WebSocket without an Origin is refused too;
- the secret token of this start (`secrets.token_urlsafe(32)`, or `$ATK_SERVE_TOKEN` for
  scripts) is in the cookie `atk-tui-token-PORT` (HttpOnly, SameSite=Strict, Path=/; the port
  in its name, since cookies ignore ports) or in `?token=`, compared with
  `hmac.compare_digest`. The page loaded with `?token=` sets the cookie and redirects to the
  same address without the token.

A refused request gets 403 and one line on stderr with the reason (header values sanitised,
a token never printed). The page is only ever served on `Guard.origin`: another allowed name
is redirected there, so the page's WebSocket is same-origin and carries the cookie.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import re
import secrets
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from atk_tui.host.webguard import SAFE_METHODS, host_names, origin_refusal, page_host
from atk_tui.text.textsafe import safe_line

if TYPE_CHECKING:
    from aiohttp import web
    from textual_serve.server import Server

TOKEN_ENV = "ATK_SERVE_TOKEN"
#: what a fixed token from $ATK_SERVE_TOKEN must look like: long enough not to be guessed,
#: and characters that go into a URL and a cookie as they are
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9._~-]{32,256}")


class TokenError(ValueError):
    """$ATK_SERVE_TOKEN is set to something that cannot be a token."""


def make_token(environ: dict[str, str] | os._Environ[str] | None = None) -> str:
    """A random token for this start, or the fixed one in $ATK_SERVE_TOKEN (taken out of the
    environment, so the dashboards textual-serve starts do not inherit it)."""
    env = os.environ if environ is None else environ
    fixed = env.pop(TOKEN_ENV, None)
    if not fixed:
        return secrets.token_urlsafe(32)
    if not TOKEN_SHAPE.fullmatch(fixed):
        raise TokenError(
            f"${TOKEN_ENV} must be 32 to 256 characters from A-Z a-z 0-9 . _ ~ - "
            "(e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return fixed


def _shown(value: str, limit: int = 120) -> str:
    """A header value quoted for the log: control characters escaped, ASCII only, bounded."""
    text = safe_line(value).encode("ascii", "backslashreplace").decode("ascii")
    return "'" + text[:limit] + ("..." if len(text) > limit else "") + "'"


def _redirect(location: str) -> web.Response:
    from aiohttp import web

    return web.Response(status=302, headers={"Location": location, "Cache-Control": "no-store"})


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class _LogLine(logging.Handler):
    """textual-serve's and aiohttp's log records, one sanitised line each on stderr: no
    traceback and no local variables (aiohttp's error for a malformed request showed the raw
    request, its cookie and so the token among them), the token never printed."""

    def __init__(self, token: str, log: Callable[[str], None] = _stderr) -> None:
        super().__init__(logging.INFO)
        self.token = token
        self.log = log

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            exc = record.exc_info[1] if record.exc_info else None
            if exc is not None:
                from aiohttp.http_exceptions import HttpProcessingError

                if isinstance(exc, HttpProcessingError):  # a request aiohttp could not parse: 400
                    peer = text.removeprefix("Error handling request").strip()
                    text = f"refused a bad request {peer}: {exc.message}".replace("  ", " ")
                else:
                    text = f"{text}: {type(exc).__name__}: {exc}"
            text = text.replace(self.token, "<token>") if self.token else text
            self.log(f"atk-tui: {_shown(text, 300)[1:-1]}")
        except Exception:  # a log line must never take the server down
            self.handleError(record)


@dataclass
class Guard:
    """Who may use this server: the token, the Host names and the page's origin."""

    token: str
    host: str  # what --host said (the address listened on)
    port: int
    log: Callable[[str], None] = _stderr
    names: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.names = host_names(self.host, self.port)

    @property
    def page(self) -> str:
        """host:port of the page (the Host and Origin it is served with)."""
        host = page_host(self.host)
        return host if self.port == 80 else f"{host}:{self.port}"

    @property
    def origin(self) -> str:
        return f"http://{self.page}"

    @property
    def url(self) -> str:
        """The address to open: the page with this start's token."""
        return f"{self.origin}/?token={self.token}"

    @property
    def cookie(self) -> str:
        return f"atk-tui-token-{self.port}"

    def _token_ok(self, given: str) -> bool:
        return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), self.token.encode())

    def check(self, method: str, headers, query, cookies) -> str | None:
        """Why this request is refused (its Host, its Origin, then its token), or None."""
        return self.check_origin(method, headers) or self.check_token(query, cookies)

    def check_origin(self, method: str, headers) -> str | None:
        """Why this request's Host or Origin header is refused, or None (the rules shared
        with the hub's answer page: `host.webguard.origin_refusal`)."""
        return origin_refusal(method, headers, self.names, (self.origin,), quote=_shown)

    def check_token(self, query, cookies) -> str | None:
        """Why this request's token is refused (`?token=` first, else the cookie), or None."""
        given = query.get("token")
        if given is not None:
            return None if self._token_ok(given) else "a wrong token in ?token="
        given = cookies.get(self.cookie)
        if given is None:
            return f"no token (neither the cookie {self.cookie} nor ?token=)"
        return None if self._token_ok(given) else f"a wrong token in the cookie {self.cookie}"

    def refuse(self, request: web.Request, reason: str) -> web.Response:
        from aiohttp import web

        peer = request.remote or "?"
        self.log(f"atk-tui: refused {request.method} {_shown(request.path)} from {peer}: {reason}")
        body = (
            f"atk-tui refused this request. Open the address atk-tui printed when it started "
            f"({self.origin}/?token=...); pages of other sites cannot use this dashboard.\n"
        )
        return web.Response(status=403, text=body, headers={"Cache-Control": "no-store"})

    def middleware(self):
        """The aiohttp middleware that puts `check` in front of every route."""
        from aiohttp import web

        @web.middleware
        async def atk_serve_guard(request: web.Request, handler):
            reason = self.check_origin(request.method, request.headers)
            if reason is not None:
                return self.refuse(request, reason)
            page = request.path == "/" and request.method in SAFE_METHODS
            if page and request.host.lower() != self.page:
                # another of this server's names: the page lives on one origin only, where its
                # WebSocket is same-origin and its cookie is (the token, if any, goes along)
                return _redirect(f"{self.origin}{request.rel_url}")
            reason = self.check_token(request.query, request.cookies)
            if reason is not None:
                return self.refuse(request, reason)
            if page and "token" in request.query:
                # the first load: the token goes into the cookie and out of the address bar
                # (and the history); the page proper is served on the next request
                target = request.rel_url.with_query([(k, v) for k, v in request.query.items() if k != "token"])
                found = _redirect(str(target))
                found.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict", path="/")
                return found
            response = await handler(request)
            if not response.prepared:  # not a WebSocket (nor a download, already under way)
                response.headers.setdefault("Content-Security-Policy", "frame-ancestors 'self'")
                response.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
                response.headers.setdefault("Referrer-Policy", "no-referrer")
            return response

        return atk_serve_guard


FONTS = Path(__file__).resolve().parent / "fonts"
FONT_ROUTE = "/atk-fonts/"
#: the page's fonts, served by this server (issue 29): no web font host is asked, and CJK text
#: has glyphs on a machine without CJK fonts. textual-serve's terminal draws in "Roboto Mono"
#: (its script names the family): Latin from the Roboto Mono textual-serve ships, CJK from the
#: bundled Noto Sans Mono CJK JP subset (fonts/OFL.txt), each for its own `unicode-range`.
FONT_CSS = """<style>
@font-face { font-family: "Roboto Mono"; font-display: block; src: url("{static}fonts/RobotoMono-VariableFont_wght.ttf") format("truetype"); unicode-range: U+0000-2FFF; }
@font-face { font-family: "Roboto Mono"; font-display: block; src: url("{fonts}atk-mono-cjk.woff2") format("woff2"); unicode-range: U+3000-30FF, U+31F0-31FF, U+4E00-9FFF, U+FF01-FF9F; }
</style>""".replace("{fonts}", FONT_ROUTE)
_WEB_FONT_LINK = re.compile(r"<link[^>]*fonts\.googleapis\.com[^>]*>", re.DOTALL)
#: The terminal draws each glyph once into a texture atlas and keeps it: drawn before the CJK
#: face had loaded (a `unicode-range` face loads only when first asked for), every Japanese
#: character stayed a box (issue 43). So the CJK face is preloaded, and textual-serve's start
#: (its `window.onload`, which opens the terminal and connects) waits until both faces are
#: loaded (bounded: a font that never comes delays the dashboard 8 s, not forever).
FONT_WAIT = """<link rel="preload" href="{fonts}atk-mono-cjk.woff2" as="font" type="font/woff2" crossorigin>
<script>
(function () {
  var start = window.onload;
  if (typeof start !== "function") return;
  window.onload = function (event) {
    var face = '16px "Roboto Mono"';
    var loads = [document.fonts.load(face, "A"), document.fonts.load(face, "\u4fdd\u3042\u30a2")];
    var late = new Promise(function (done) { setTimeout(done, 8000); });
    Promise.race([Promise.allSettled(loads), late]).then(function () {
      document.body.dataset.atkFonts = document.fonts.check(face, "\u4fdd") ? "loaded" : "missing";
      start.call(window, event);
    });
  };
})();
</script>""".replace("{fonts}", FONT_ROUTE)


def page_template(server: Server) -> str:
    """textual-serve's page with its web font link (a third-party host) replaced by the fonts
    this server serves, and its terminal started once they are loaded (`FONT_WAIT`)."""
    page = (Path(server.templates_path) / "app_index.html").read_text(encoding="utf-8")
    css = FONT_CSS.replace("{static}", "{{ config.static.url }}")
    page, n = _WEB_FONT_LINK.subn(css, page)
    if not n:
        page = page.replace("</head>", css + "\n</head>", 1)
    # after textual-serve's script (in the head), which sets the `window.onload` it wraps
    return page.replace("</head>", FONT_WAIT + "\n</head>", 1)


async def font_file(request: web.Request) -> web.StreamResponse:
    from aiohttp import web

    name = request.match_info["name"]
    path = FONTS / name
    if name != path.name or path.suffix != ".woff2" or not path.is_file():
        raise web.HTTPNotFound()
    return web.FileResponse(path, headers={"Content-Type": "font/woff2", "Cache-Control": "max-age=86400"})


async def guarded_app(server: Server, guard: Guard) -> web.Application:
    """textual-serve's aiohttp app (page, static files, downloads, WebSocket) with the guard
    in front of every route. `Server._make_app` is the one private name of textual-serve used:
    it has no public hook that hands over its app before it is frozen. If it goes away this
    fails at start (an AttributeError, nothing served), and tests/browser/test_serve_guard.py
    fails loudly."""
    from aiohttp import web

    app = await server._make_app()
    if not isinstance(app, web.Application) or app.frozen:
        raise RuntimeError("textual-serve's Server._make_app no longer returns an unfrozen aiohttp Application")
    app.middlewares.append(guard.middleware())
    import aiohttp_jinja2
    import jinja2

    aiohttp_jinja2.setup(app, loader=jinja2.DictLoader({"app_index.html": page_template(server)}))
    app.router.add_get(FONT_ROUTE + "{name}", font_file)
    return app


def serve(
    command: str, *, host: str, port: int, title: str, announce: Callable[[Guard], None], token: str | None = None
) -> None:
    """Serve `command` (one dashboard per browser tab) behind a `Guard` until SIGINT/SIGTERM.
    `announce(guard)` is called once the port is listening (it prints the address to open)."""
    from aiohttp import web
    from textual_serve.server import Server

    guard = Guard(token or make_token(), host, port)

    class _Server(Server):
        async def on_startup(self, app: web.Application) -> None:
            """textual-serve prints its logo and the address without the token here: nothing."""

        def initialize_logging(self) -> None:
            """One sanitised line per record (`_LogLine`), not rich tracebacks with locals."""
            logging.basicConfig(level=logging.INFO, handlers=[_LogLine(guard.token)], force=True)

    server = _Server(command, host=host, port=port, title=title, public_url=guard.origin)
    server.initialize_logging()
    loop = asyncio.new_event_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, server.request_exit)
        loop.add_signal_handler(signal.SIGTERM, server.request_exit)
    except NotImplementedError:  # pragma: no cover - not on Linux
        pass
    web.run_app(
        guarded_app(server, guard),
        host=host,
        port=port,
        handle_signals=False,
        loop=loop,
        print=lambda *_: announce(guard),
        # no access log: it would print each first load's token, and request lines raw;
        # the refusals are logged by the guard
        access_log=None,
    )
