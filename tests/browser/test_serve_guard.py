"""Issue 25: `atk-tui --serve` cannot be driven by a web page. Against the real binary (a
subprocess on a free port) with plain HTTP and a real WebSocket client: the tokenised address
works (page, cookie, WebSocket), and what else is refused and logged. The attacks themselves,
in short form, are `support.serve.SERVE_ATTACKS` (run by tests/soak/test_hostile_corpus.py and the
fault script); here are the flows, the guard's rules and its one hook into textual-serve."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.serve import ATK_TUI, serving

from atk_tui.service import Service
from atk_tui.store import init_store
from atk_tui.tui.serve import TOKEN_ENV, Guard, TokenError, guarded_app, make_token

UWI = "# Which retry policy?\n\n## 質問\nWhich?\n\n- A) Fixed -- simple\n- B) Exponential -- kind\n\n推奨: B)\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root, _ = init_store(tmp_path / "notes")
    assert Service(root, actor="agent").writes.add(kind="uwi", target_repo="acme/api", body=UWI, source="test").ok
    return root


def test_the_printed_address_the_cookie_and_the_websocket(root: Path) -> None:
    with serving(root) as s:
        assert s.url.startswith(f"http://127.0.0.1:{s.port}/?token=") and len(s.token) >= 40
        # the first load with ?token=: the cookie, and the address without the token
        first = s.get(f"/?token={s.token}&fontsize=14")
        assert first.status == 302 and first.getheader("Location") == "/?fontsize=14"
        cookie = first.getheader("Set-Cookie")
        assert cookie.startswith(f"atk-tui-token-{s.port}={s.token};")
        assert {"HttpOnly", "Path=/", "SameSite=Strict"} <= {p.strip() for p in cookie.split(";")}
        # later loads: the cookie alone
        page = s.get("/?fontsize=14", headers={"Cookie": s.cookie})
        assert page.status == 200 and "frame-ancestors 'self'" in page.getheader("Content-Security-Policy")
        assert s.get("/static/js/textual.js", headers={"Cookie": s.cookie}).status == 200
        # the page's own WebSocket: its origin, the cookie; the dashboard draws into it
        assert s.ws(origin=s.origin, cookie=s.cookie) == "open"
        # a script: the token in the query instead of the cookie (still with the page's origin)
        assert s.ws(origin=s.origin, query=f"&token={s.token}") == "open"
        # the same requests without the token are refused
        assert s.get("/").status == 403 and s.ws(origin=s.origin) == "status 403"
        assert not [x for x in s.lines if s.token in x and "serving" not in x], "the token was logged"


def test_another_name_of_this_server_is_sent_to_the_page_s_origin(root: Path) -> None:
    """localhost and [::1] are this server too: the page is served on one origin only (where
    its WebSocket is same-origin and its cookie is), the token going along."""
    with serving(root) as s:
        for name in ("localhost", "[::1]", "LOCALHOST"):
            resp = s.get(f"/?token={s.token}", host=f"{name}:{s.port}")
            assert resp.status == 302, name
            assert resp.getheader("Location") == f"http://127.0.0.1:{s.port}/?token={s.token}"
        # and only the page: a WebSocket or a static file under another name of this server goes
        # on (with the page's origin and the token)
        assert s.get("/static/js/textual.js", host=f"localhost:{s.port}", headers={"Cookie": s.cookie}).status == 200


def test_refusals_are_logged_one_line_each_sanitised(root: Path) -> None:
    with serving(root) as s:
        start = s.mark()
        # (a raw ESC in a header is refused by the HTTP parser itself; a bidi override and an
        # 8-bit CSI get through it)
        hostile = "http://evil.example\u202e\u2066".encode() + b"\x9b2J"
        assert s.get("/", headers={"Cookie": s.cookie, "Origin": hostile}).status == 403  # type: ignore[dict-item]
        line = s.wait_for_line("refused GET '/'", start)
        assert line.isascii() and "Origin 'http://evil.example\\u202e\\u2066\\udc9b2J'" in line, line
        assert "is not this dashboard's page (http://127.0.0.1:" in line
        assert s.ws(origin="http://evil.example", cookie=s.cookie) == "status 403"
        line = s.wait_for_line("refused GET '/ws'", start)
        assert "from 127.0.0.1: Origin 'http://evil.example' is not" in line


def test_a_fixed_token_from_the_environment(root: Path) -> None:
    token = "fixed-token-for-a-script-0123456789abcdef"
    with serving(root, env={**os.environ, TOKEN_ENV: token}) as s:
        assert s.token == token
        assert s.ws(origin=s.origin, cookie=s.cookie) == "open"


def test_a_weak_fixed_token_is_refused_at_start(root: Path) -> None:
    proc = subprocess.run(
        [str(ATK_TUI), "--serve", "--store", str(root), "--port", "1"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, TOKEN_ENV: "1234"},
    )
    assert proc.returncode == 2 and f"${TOKEN_ENV} must be 32 to 256 characters" in proc.stderr


def test_help_says_what_a_browser_needs() -> None:
    out = subprocess.run([str(ATK_TUI), "--help"], capture_output=True, text=True, timeout=60).stdout
    flat = " ".join(out.split())
    assert "?token=" in flat and "cookie" in flat and "Origin" in flat and "DNS rebinding" in flat
    assert "default 127.0.0.1" in flat


# --------------------------------------------------------------------------------------------
# the guard's rules, without a server


def test_the_names_a_server_answers_to(monkeypatch: pytest.MonkeyPatch) -> None:
    g = Guard("t" * 43, "127.0.0.1", 8000, log=lambda _: None)
    assert g.origin == "http://127.0.0.1:8000" and g.url == f"http://127.0.0.1:8000/?token={'t' * 43}"
    assert {"127.0.0.1:8000", "localhost:8000", "[::1]:8000"} <= g.names
    assert not {"127.0.0.1", "localhost:8001", "evil.example:8000", "127.0.0.1.evil.example:8000"} & g.names
    assert Guard("t", "0.0.0.0", 8000, log=print).origin == "http://127.0.0.1:8000"
    assert Guard("t", "::1", 8000, log=print).origin == "http://[::1]:8000"
    assert "10.1.2.3:8000" in Guard("t", "10.1.2.3", 8000, log=print).names
    import socket

    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: [(socket.AF_INET, 1, 6, "", ("192.0.2.7", 0))])
    named = Guard("t", "MyBox.example", 9000, log=print)  # the name given and the address it is bound on
    assert named.origin == "http://mybox.example:9000" and {"mybox.example:9000", "192.0.2.7:9000"} <= named.names
    assert "localhost" in Guard("t", "localhost", 80, log=print).names  # no port in Host on port 80


def test_the_checks_in_order() -> None:
    g = Guard("s" * 43, "127.0.0.1", 8000, log=print)
    ok = {"Host": "127.0.0.1:8000"}
    cookies = {g.cookie: "s" * 43}
    assert g.check("GET", ok, {}, cookies) is None
    assert g.check("GET", ok, {"token": "s" * 43}, {}) is None
    assert "no Host header" in g.check("GET", {}, {}, cookies)
    assert "DNS rebinding" in g.check("GET", {"Host": "evil.example:8000"}, {}, cookies)
    assert "without an Origin" in g.check("GET", {**ok, "Upgrade": "WebSocket"}, {}, cookies)
    assert g.check("GET", {**ok, "Upgrade": "websocket", "Origin": "http://127.0.0.1:8000"}, {}, cookies) is None
    assert "Origin 'http://localhost:8000'" in g.check("GET", {**ok, "Origin": "http://localhost:8000"}, {}, cookies)
    assert "without an Origin" in g.check("POST", ok, {}, cookies)
    assert "no token" in g.check("GET", ok, {}, {})
    assert "wrong token in ?token=" in g.check("GET", ok, {"token": "s" * 42}, cookies)
    assert "wrong token in the cookie" in g.check("GET", ok, {}, {g.cookie: "x"})
    assert "no token" in g.check("GET", ok, {}, {"atk-tui-token-8001": "s" * 43})  # another port's cookie


def test_tokens() -> None:
    assert make_token({}) != make_token({}) and len(make_token({})) >= 43
    env = {TOKEN_ENV: "a" * 32}
    assert make_token(env) == "a" * 32 and TOKEN_ENV not in env  # the dashboards do not inherit it
    for weak in ("a" * 31, "has space" * 8, "é" * 40):
        with pytest.raises(TokenError):
            make_token({TOKEN_ENV: weak})


# --------------------------------------------------------------------------------------------
# the one private name of textual-serve the guard relies on


async def test_textual_serve_app_has_the_guard_on_every_route() -> None:
    """`guarded_app` takes textual-serve's aiohttp app from `Server._make_app`: if textual-serve
    renames it, changes what it returns, or adds a route, this fails, saying so."""
    from aiohttp.test_utils import TestClient, TestServer
    from textual_serve.server import Server

    assert hasattr(Server, "_make_app"), "textual-serve's Server._make_app is gone: see atk_tui/tui/serve.py guarded_app"
    logged: list[str] = []
    guard = Guard("k" * 43, "127.0.0.1", 8000, log=logged.append)
    app = await guarded_app(Server("true", host="127.0.0.1", port=8000, public_url=guard.origin), guard)
    assert any(getattr(m, "__name__", "") == "atk_serve_guard" for m in app.middlewares)
    routes = {r.canonical for r in app.router.resources()}
    # textual-serve's four, and the bundled fonts' (atk_tui/tui/serve.py FONT_ROUTE)
    assert routes == {"/", "/ws", "/download/{key}", "/static", "/atk-fonts/{name}"}, f"textual-serve's routes changed: {routes}"
    client = TestClient(TestServer(app))
    await client.start_server()
    try:
        paths = ["/", "/ws", "/download/x", "/static/js/textual.js", "/static/", "/nothing-here", "/atk-fonts/atk-mono-cjk.woff2"]
        for path in paths:
            resp = await client.get(path, headers={"Host": "127.0.0.1:8000"})
            assert resp.status == 403, path
        for path in ("/static/js/textual.js", "/", "/atk-fonts/atk-mono-cjk.woff2"):
            resp = await client.get(path, headers={"Host": "127.0.0.1:8000", "Cookie": f"{guard.cookie}={'k' * 43}"})
            assert resp.status == 200, path
        page = await (await client.get("/", headers={"Host": "127.0.0.1:8000", "Cookie": f"{guard.cookie}={'k' * 43}"})).text()
        assert "fonts.googleapis.com" not in page and "/atk-fonts/atk-mono-cjk.woff2" in page  # no web font host
    finally:
        await client.close()
    assert len(logged) == len(paths) and all("no token" in x for x in logged)


def test_a_malformed_request_is_one_log_line_without_the_token(root: Path) -> None:
    """aiohttp's own errors (a header too large, a bad request line) were logged as rich
    tracebacks with every local variable, the raw request with its cookie among them (the
    token, cut short): one sanitised line each now, the token never in it (issue 25 audit)."""
    import socket

    with serving(root) as s:
        start = s.mark()
        for request in (
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{s.port}\r\nCookie: {s.cookie}\r\nX-Big: {'b' * 9000}\r\n\r\n",
            f"GET /?token={s.token}\x7f HTTP/1.1\r\nHost: 127.0.0.1:{s.port}\r\nCookie: {s.cookie}\r\n\r\n",
        ):
            with socket.create_connection(("127.0.0.1", s.port), timeout=60) as conn:
                conn.sendall(request.encode())
                assert conn.recv(100).startswith(b"HTTP/1.0 400")
        s.wait_for_line("bad request", start)
        assert s.ws(origin=s.origin, cookie=s.cookie) == "open"  # the server goes on
        logged = s.lines[start:]
        assert not [x for x in logged if s.token[:8] in x], logged
        assert len([x for x in logged if x.startswith("atk-tui: ")]) == len(logged) == 2, logged
