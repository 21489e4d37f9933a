"""The hub's answer page for tests (issue 41): a store with a bare remote and a second clone
(the agent's), the page served by a real aiohttp server on loopback, a client that pairs, and
what the agent's clone sees (`atk wi wait`, the commit's trailers).

Imported as `from support.hubweb_kit import ...`."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from atk_tui.hub.web import build_app
from atk_tui.hub.web.devices import new_pairing
from atk_tui.service import Service
from support.remotes import bare_with_clones
from support.serve import free_port
from support.storekit import UWI_BODY, git

ATK = Path(sys.executable).with_name("atk")

UWI_TWO = """# Where should the new auth tests live, and which runner?

## 質問 1
Where should the tests go?

- A) Next to the code -- easy to find
- B) Top-level (tests/auth/) -- one place for all of them

推奨: B

## 質問 2
Which runner?

- A) pytest -- what the project uses
- B) unittest -- no dependency

推奨: A
"""

UWI_NO_REC = """# Which logo colour?

## 質問
Which colour should the logo be?

- A) Blue -- calm
- B) Orange -- loud
"""

UWI_CJK = """# メール検証の標準はどれにしますか？

## 背景
ログインの実装中に二つの検証方法が見つかりました。

## 質問
どちらを標準にしますか？

- A) 厳密な RFC 5322 -- 正しいアドレスを拒否しにくい
- B) 簡単な正規表現 -- 速いが不正な形式を通すことがある

推奨: A) どこでも同じ動き
"""


@dataclass
class World:
    """The hub's clone (`hub`), the agent's clone (`agent`), their bare remote, the hub's
    state directory, and the items added."""

    tmp: Path
    remote: Path
    hub: Path
    agent: Path
    state: Path
    items: dict[str, str]

    def service(self, root: Path | None = None) -> Service:
        return Service(root or self.hub, actor="user")

    def app(self, port: int, *, public_url: str | None = None, ttl: float = 86400.0,
            limits: dict[str, tuple[int, float]] | None = None) -> web.Application:  # fmt: skip
        hub = self.hub
        return build_app(lambda: Service(hub, actor="user"), state_dir=self.state, public_url=public_url,
                         link_ttl_s=ttl, bind_host="127.0.0.1", port=port, rate_limits=limits)  # fmt: skip

    def head(self, root: Path | None = None) -> str:
        return git(root or self.hub, "rev-parse", "HEAD").strip()

    def message(self, rev: str = "HEAD", root: Path | None = None) -> str:
        return git(root or self.hub, "log", "-1", "--format=%B", rev)

    def remote_head(self) -> str:
        return git(self.remote, "rev-parse", "refs/heads/main").strip()

    def body(self, name: str) -> str:
        return self.service().read(name).body


def make_world(tmp: Path, **bodies: str) -> World:
    """A store (the hub's clone and the agent's) with one UWI per keyword (name -> body),
    added by an agent (its `--source` given) and pushed."""
    remote, clones = bare_with_clones(tmp, ("hub", "agent"))
    items: dict[str, str] = {}
    for key, body in (bodies or {"one": UWI_BODY}).items():
        svc = Service(clones["agent"], actor="agent")
        out = svc.writes.add(kind="uwi", target_repo="acme/webapp", body=body, source="confirmation-and-uwi")
        assert out.ok, out.message
        items[key] = out.files[0]
    git(clones["hub"], "pull", "-q", "--rebase")
    state = tmp / "hub-state"
    state.mkdir(mode=0o700)
    return World(tmp, remote, clones["hub"], clones["agent"], state, items)


class Page:
    """A client of the answer page on a real loopback server, with a cookie jar that keeps
    cookies for 127.0.0.1 (as a browser does)."""

    def __init__(self, client: TestClient, port: int) -> None:
        self.client = client
        self.port = port
        self.origin = f"http://127.0.0.1:{port}"

    async def get(self, path: str, **kw) -> tuple[int, str]:
        async with self.client.get(path, allow_redirects=kw.pop("allow_redirects", True), **kw) as r:
            return r.status, await r.text()

    async def post(self, path: str, data: dict | None = None, *, origin: str | None = "", **kw) -> tuple[int, str]:
        headers = dict(kw.pop("headers", {}))
        if origin is not None:
            headers["Origin"] = origin or self.origin
        async with self.client.post(path, data=data or {}, headers=headers, allow_redirects=kw.pop("allow_redirects", True),
                                    **kw) as r:  # fmt: skip
            return r.status, await r.text()

    async def pair(self, state: Path, name: str = "phone") -> str:
        code = new_pairing(state)
        status, text = await self.get(f"/pair/{code}")
        assert status == 200, text
        status, text = await self.post(f"/pair/{code}", {"csrf": hidden(text, "csrf"), "name": name})
        assert status == 200 and "Needs you" in text, text
        return code


def hidden(page: str, name: str) -> str:
    """The value of the page's hidden input `name`."""
    m = re.search(rf'<input type="hidden" name="{name}" value="([^"]*)"', page)
    assert m, f"no hidden {name} in the page:\n{page[:2000]}"
    return html.unescape(m.group(1))


def form_action(page: str) -> str:
    m = re.search(r'<form method="post" action="([^"]*)"', page)
    assert m, page[:2000]
    return html.unescape(m.group(1))


async def serve_page(world: World, **kw) -> tuple[Page, TestServer]:
    """The answer page on a real server at 127.0.0.1:PORT and a client for it (close both
    with `close_page`)."""
    port = free_port()
    server = TestServer(world.app(port, **kw), host="127.0.0.1", port=port)
    client = TestClient(server, cookie_jar=aiohttp.CookieJar(unsafe=True))
    await client.start_server()
    return Page(client, port), server


async def close_page(page: Page) -> None:
    await page.client.close()


def atk_wait(root: Path, name: str, timeout: float = 60.0) -> subprocess.Popen:
    """The agent's `atk wi wait NAME` on its own clone, started now (an agent environment)."""
    env = {**os.environ, "AI_AGENT": "1", "ATK_PRIVATE_NOTES": str(root)}
    return subprocess.Popen([str(ATK), "wi", "wait", name, "--timeout", str(timeout)], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


# --------------------------------------------------------------------------- a phone's browser


class Phone:
    """Headless Chromium through the DevTools protocol (`support.cdp.Browser`) with a phone's
    viewport: `Emulation.setDeviceMetricsOverride` at `width`×`height` CSS pixels, touch on."""

    def __init__(self, browser, width: int = 360, height: int = 640, scale: float = 1.0) -> None:
        self.browser = browser
        self.size = (width, height, scale)

    async def start(self) -> None:
        b = self.browser
        await b.start()
        target = await b.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = await b.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, session=False)
        b.session = attached["sessionId"]
        await b.send("Page.enable")
        await self.resize(*self.size)

    async def resize(self, width: int, height: int, scale: float = 1.0, *, mobile: bool = True) -> None:
        await self.browser.send("Emulation.setDeviceMetricsOverride",
                                {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile})  # fmt: skip
        await self.browser.send("Emulation.setTouchEmulationEnabled", {"enabled": mobile, "maxTouchPoints": 5})

    async def scheme(self, dark: bool) -> None:
        await self.browser.send("Emulation.setEmulatedMedia",
                                {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})  # fmt: skip

    async def go(self, url: str) -> None:
        await self.browser.send("Page.navigate", {"url": url})
        await self.loaded()

    async def loaded(self, timeout: float = 60) -> None:
        import asyncio

        for _ in range(int(timeout / 0.1)):
            state = await self.browser.evaluate("document.readyState + ' ' + location.href")
            if state and state.startswith("complete") and "about:blank" not in state:
                await self.browser.evaluate("document.fonts.ready.then(() => true)")
                return
            await asyncio.sleep(0.1)
        raise AssertionError("the page never finished loading")

    async def text(self) -> str:
        return await self.browser.evaluate("document.body ? document.body.innerText : ''") or ""

    async def wait_text(self, wanted: str, timeout: float = 60) -> str:
        import asyncio

        for _ in range(int(timeout / 0.1)):
            now = await self.text()
            if wanted in now:
                return now
            await asyncio.sleep(0.1)
        raise AssertionError(f"the page never said {wanted!r}; it says:\n{await self.text()}")

    async def tap(self, selector: str) -> None:
        """A tap at the middle of the element (scrolled into view first), as a finger makes it."""
        import json

        box = await self.browser.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        assert box, f"nothing on the page matches {selector}"
        x, y = box
        point = [{"x": x, "y": y}]
        await self.browser.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
        await self.browser.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    async def type(self, text: str) -> None:
        await self.browser.send("Input.insertText", {"text": text})

    async def screenshot(self, path: Path) -> bytes:
        import base64

        shot = await self.browser.send("Page.captureScreenshot", {"format": "png"})
        data = base64.b64decode(shot["data"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return data


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
