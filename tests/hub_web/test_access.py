"""Who may use the answer page (issue 41, SPEC §16): a paired device's cookie, Host and Origin
as `--serve` checks them, a CSRF token on every form, pairing links used once and for a few
minutes, rate limits, a strict CSP. A real aiohttp server on loopback; nothing refused writes."""

from __future__ import annotations

import re

import pytest
from support.hubweb_kit import Page, World, close_page, form_action, hidden, make_world, serve_page

from atk_tui.hub.web.devices import device_for, devices, new_pairing, revoke
from atk_tui.hub.web.statefiles import web_dir


@pytest.fixture
def world(tmp_path) -> World:
    return make_world(tmp_path)


@pytest.fixture
async def page(world: World):
    page, _ = await serve_page(world)
    yield page
    await close_page(page)


async def _question(page: Page, world: World) -> str:
    status, text = await page.get(f"/i/wi/{world.items['one']}")
    assert status == 200, text
    return text


def _fields(text: str, **extra: str) -> dict[str, str]:
    return {"csrf": hidden(text, "csrf"), "digest": hidden(text, "digest"), "q1": "B", "text": "from the phone", **extra}


async def test_without_a_paired_device_the_page_asks_to_pair_and_writes_nothing(world: World, page: Page) -> None:
    head, remote = world.head(), world.remote_head()
    name = world.items["one"]
    for path in ("/", f"/i/wi/{name}"):
        status, text = await page.get(path)
        assert status == 401
        assert "Pair this device first" in text and "atk hub pair" in text
        assert "Strict RFC 5322" not in text  # nothing of the store shown
    status, text = await page.post(f"/i/wi/{name}/answer", {"q1": "A", "text": "x", "csrf": "x", "digest": "x"})
    assert status == 401 and "Nothing was written" in text
    forged = {"Cookie": "atk-hub-device=0123456789abcdef.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}
    status, _ = await page.get("/", headers=forged)
    assert status == 401
    assert (world.head(), world.remote_head()) == (head, remote)
    assert "## 回答" not in world.body(name)


async def test_pairing_gives_an_httponly_strict_cookie_and_the_device_is_listed(world: World, page: Page) -> None:
    code = new_pairing(world.state)
    status, text = await page.get(f"/pair/{code}")
    assert status == 200 and 'name="name"' in text
    async with page.client.post(f"/pair/{code}", data={"csrf": hidden(text, "csrf"), "name": "pixel"},
                                headers={"Origin": page.origin}, allow_redirects=False) as r:  # fmt: skip
        assert r.status == 303 and r.headers["Location"] == "/"
        cookie = r.headers["Set-Cookie"]
    assert re.search(r"(?i)httponly", cookie) and re.search(r"(?i)samesite=strict", cookie)
    assert "secure" not in cookie.lower()  # plain http on loopback: a Secure cookie would not come back
    assert [d.name for d in devices(world.state)] == ["pixel"]
    status, text = await page.get("/")
    assert status == 200 and "paired as pixel" in text
    # the credential is kept hashed: the state directory alone does not let anyone in
    value = cookie.split(";")[0].split("=", 1)[1]
    assert value.split(".")[1] not in (web_dir(world.state) / "devices.json").read_text()


async def test_a_pairing_link_works_once_and_not_after_it_expires(world: World, page: Page) -> None:
    code = await page.pair(world.state)
    status, text = await page.get(f"/pair/{code}")
    assert status == 403 and "used already" in text
    old = new_pairing(world.state, ttl_s=60, now=0)
    status, text = await page.get(f"/pair/{old}")
    assert status == 403 and "expired" in text
    status, text = await page.get("/pair/not-a-code-this-hub-made-at-all")
    assert status == 403 and "not one this hub made" in text
    assert len(devices(world.state)) == 1


async def test_a_revoked_device_opens_nothing(world: World, page: Page) -> None:
    await page.pair(world.state, "tablet")
    assert (await page.get("/"))[0] == 200
    assert revoke(world.state, "TABLET") is not None
    status, text = await page.get("/")
    assert status == 401 and "Pair this device first" in text
    assert devices(world.state) == []


async def test_a_post_from_another_origin_is_refused(world: World, page: Page) -> None:
    await page.pair(world.state)
    text = await _question(page, world)
    head = world.head()
    status, said = await page.post(form_action(text), _fields(text), origin="http://evil.example")
    assert status == 403 and "Origin" in said and "Nothing was written" in said
    status, said = await page.post(form_action(text), _fields(text), origin=None)
    assert status == 403 and "without an Origin header" in said
    assert world.head() == head and "## 回答" not in world.body(world.items["one"])


async def test_a_forged_host_is_refused_dns_rebinding(world: World, page: Page) -> None:
    await page.pair(world.state)
    text = await _question(page, world)
    head = world.head()
    for method in ("get", "post"):
        headers = {"Host": f"rebind.evil.example:{page.port}"}
        if method == "get":
            status, said = await page.get("/", headers=headers)
        else:
            status, said = await page.post(form_action(text), _fields(text), headers=headers)
        assert status == 403 and "DNS rebinding" in said
    assert world.head() == head


async def test_a_form_without_its_csrf_token_is_refused(world: World, page: Page) -> None:
    await page.pair(world.state)
    text = await _question(page, world)
    head = world.head()
    for csrf in ("", "0" * 40, None):
        fields = _fields(text)
        if csrf is None:
            del fields["csrf"]
        else:
            fields["csrf"] = csrf
        status, said = await page.post(form_action(text), fields)
        assert status == 403 and "CSRF token" in said
    # another device's token is not this one's
    other, _ = await serve_page(world)
    try:
        await other.pair(world.state, "other")
        theirs = await _question(other, world)
        status, said = await page.post(form_action(text), _fields(text, csrf=hidden(theirs, "csrf")))
        assert status == 403 and "CSRF token" in said
    finally:
        await close_page(other)
    assert world.head() == head


async def test_every_response_has_a_strict_csp_and_the_page_loads_nothing_from_elsewhere(world: World, page: Page) -> None:
    await page.pair(world.state)
    for path in ("/", f"/i/wi/{world.items['one']}", "/no/such/page"):
        async with page.client.get(path) as r:
            csp = r.headers["Content-Security-Policy"]
            body = await r.text()
            assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp and "script-src" not in csp
            assert r.headers["X-Content-Type-Options"] == "nosniff" and r.headers["Referrer-Policy"] == "same-origin"
            assert "<script" not in body.lower()
            assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", body), "an external resource"
    async with page.client.get("/static/page.css") as r:
        css = await r.text()
        assert "@font-face" in css and "/static/atk-mono-cjk.woff2" in css and "http" not in css
    async with page.client.get("/static/atk-mono-cjk.woff2") as r:
        assert r.status == 200 and r.headers["Content-Type"] == "font/woff2"
        assert (await r.read())[:4] == b"wOF2"


async def test_pairing_attempts_are_rate_limited(world: World) -> None:
    page, _ = await serve_page(world, limits={"pair": (3, 600.0), "link": (3, 600.0)})
    try:
        said = [await page.get(f"/pair/guess-{n:04d}-aaaaaaaaaaaaaaaaaaaa") for n in range(3)]
        assert [s for s, _ in said] == [403, 403, 403]
        code = new_pairing(world.state)
        status, text = await page.get(f"/pair/{code}")  # even a good code waits now
        assert status == 429 and "Too many pair attempts" in text
        assert devices(world.state) == []
    finally:
        await close_page(page)


async def test_a_public_https_url_makes_the_cookie_secure_and_its_host_and_origin_allowed(world: World) -> None:
    page, _ = await serve_page(world, public_url="https://laptop.tailnet.example")
    try:
        code = new_pairing(world.state)
        headers = {"Host": "laptop.tailnet.example"}
        status, text = await page.get(f"/pair/{code}", headers=headers)
        assert status == 200
        async with page.client.post(f"/pair/{code}", data={"csrf": hidden(text, "csrf"), "name": "phone"},
                                    headers={**headers, "Origin": "https://laptop.tailnet.example"},
                                    allow_redirects=False) as r:  # fmt: skip
            assert r.status == 303
            cookie = r.headers["Set-Cookie"]
        assert "secure" in cookie.lower()
        value = cookie.split(";")[0].split("=", 1)[1]
        assert device_for(world.state, value) is not None
    finally:
        await close_page(page)


async def test_reached_through_a_tunnel_on_another_port(world: World) -> None:
    """An SSH tunnel (`ssh -L 9000:127.0.0.1:8765`) as the phone sees it: a TCP relay on another
    loopback port. Its Host is refused until --public-url names that address; then pairing and
    answering work through it."""
    import asyncio

    from aiohttp import ClientSession, CookieJar
    from support.serve import free_port

    hub_port, tunnel_port = free_port(), free_port()

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", hub_port)

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            finally:
                dst.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer), return_exceptions=True)

    tunnel = await asyncio.start_server(relay, "127.0.0.1", tunnel_port)
    origin = f"http://127.0.0.1:{tunnel_port}"
    try:
        for public, works in ((None, False), (origin, True)):
            from aiohttp.test_utils import TestServer

            server = TestServer(world.app(hub_port, public_url=public), host="127.0.0.1", port=hub_port)
            await server.start_server()
            try:
                async with ClientSession(cookie_jar=CookieJar(unsafe=True)) as s:
                    code = new_pairing(world.state)
                    async with s.get(f"{origin}/pair/{code}") as r:
                        text = await r.text()
                        assert (r.status == 200) is works, text
                    if not works:
                        assert "DNS rebinding" in text
                        continue
                    async with s.post(f"{origin}/pair/{code}", data={"csrf": hidden(text, "csrf"), "name": "tunnel"},
                                      headers={"Origin": origin}) as r:  # fmt: skip
                        assert r.status == 200 and "paired as tunnel" in await r.text()
                    async with s.get(f"{origin}/i/wi/{world.items['one']}") as r:
                        text = await r.text()
                    fields = {"csrf": hidden(text, "csrf"), "digest": hidden(text, "digest"), "q1": "B"}
                    async with s.post(origin + form_action(text), data=fields, headers={"Origin": origin}) as r:
                        assert "committed and pushed" in await r.text()
            finally:
                await server.close()
    finally:
        tunnel.close()
    assert "Atk-Device: tunnel" in world.message()


async def test_port_zero_learns_the_port_the_system_gave(world: World) -> None:
    """`atk hub --port 0`: the app is built before the port is known; the first connection
    tells it, and its Host rule and saved address follow."""
    import aiohttp
    from aiohttp.test_utils import TestClient, TestServer
    from support.serve import free_port

    from atk_tui.hub.web.statefiles import saved_address

    port = free_port()
    server = TestServer(world.app(0), host="127.0.0.1", port=port)
    client = TestClient(server, cookie_jar=aiohttp.CookieJar(unsafe=True))
    await client.start_server()
    page = Page(client, port)
    try:
        await page.pair(world.state)
        assert (await page.get("/"))[0] == 200
        assert saved_address(world.state) == f"http://127.0.0.1:{port}"
        status, said = await page.get("/", headers={"Host": "127.0.0.1:0"})
        assert status == 403 and "DNS rebinding" in said
    finally:
        await close_page(page)
