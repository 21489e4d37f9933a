"""A minimal Chrome DevTools Protocol client over `websockets`: enough to open a page in
headless Chromium, type into it, and watch the terminal output a textual-serve page receives."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import websockets

ANSI = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-B]|[=>78])")


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "chromium-headless-shell", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """Headless Chromium with a DevTools websocket; one page at a time."""

    def __init__(self, binary: str, profile: Path, window: tuple[int, int] = (1400, 900)) -> None:
        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--remote-debugging-port=0", f"--user-data-dir={profile}", f"--window-size={window[0]},{window[1]}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )
        self.ws: Any = None
        self._id = 0
        self._pending: dict[int, asyncio.Future] = {}
        self.events: asyncio.Queue = asyncio.Queue()
        self.session: str | None = None
        self.screen_bytes = b""  # what the page's terminal websocket received, decoded frames
        self.sent: list[str] = []  # the text frames the page sent (keys, ["resize", {...}])

    def _devtools_url(self) -> str:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                return m.group(1)
        raise AssertionError(f"chromium exited ({self.proc.wait()}) without a DevTools endpoint")

    async def start(self) -> None:
        url = await asyncio.to_thread(self._devtools_url)
        self.ws = await websockets.connect(url, max_size=None)
        asyncio.get_running_loop().create_task(self._reader())

    async def _reader(self) -> None:
        async for raw in self.ws:
            msg = json.loads(raw)
            if "id" in msg and msg["id"] in self._pending:
                self._pending.pop(msg["id"]).set_result(msg)
            elif msg.get("method") == "Network.webSocketFrameReceived":
                resp = msg["params"]["response"]
                data = base64.b64decode(resp["payloadData"]) if resp.get("opcode") == 2 else resp["payloadData"].encode()
                self.screen_bytes += data
            elif msg.get("method") == "Network.webSocketFrameSent":
                resp = msg["params"]["response"]
                if resp.get("opcode") == 1:
                    self.sent.append(resp["payloadData"])

    async def send(self, method: str, params: dict | None = None, *, session: bool = True) -> dict:
        self._id += 1
        fut = asyncio.get_running_loop().create_future()
        self._pending[self._id] = fut
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        await self.ws.send(json.dumps(msg))
        reply = await asyncio.wait_for(fut, 60)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    async def open(self, url: str) -> None:
        target = await self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = await self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, session=False)
        self.session = attached["sessionId"]
        await self.send("Network.enable")
        await self.send("Page.enable")
        await self.send("Page.navigate", {"url": url})

    def screen_text(self) -> str:
        """Everything the terminal was sent, escape sequences removed (text of every frame)."""
        return ANSI.sub("", self.screen_bytes.decode("utf-8", "replace"))

    async def wait_for_text(self, text: str, timeout: float = 60) -> None:
        """Until the terminal has been sent `text` since the last `mark()` (bounded poll)."""
        for _ in range(int(timeout / 0.1)):
            if text in ANSI.sub("", self.screen_bytes[self._mark:].decode("utf-8", "replace")):
                return
            await asyncio.sleep(0.1)
        shown = ANSI.sub("", self.screen_bytes[self._mark :].decode("utf-8", "replace"))
        raise AssertionError(f"the browser never showed {text!r}; since the mark it showed:\n{shown[-4000:]}")

    async def settle(self, quiet: float = 0.5, timeout: float = 20) -> None:
        """Until the terminal has been sent nothing for `quiet` seconds (bounded by `timeout`),
        then two animation frames: what the page shows is then what it was sent (xterm.js parses
        what arrives and draws it later, much later on a loaded machine)."""
        seen, still = len(self.screen_bytes), 0.0
        for _ in range(int(timeout / 0.05)):
            await asyncio.sleep(0.05)
            if len(self.screen_bytes) != seen:
                seen, still = len(self.screen_bytes), 0.0
            elif (still := still + 0.05) >= quiet:
                break
        await self.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))")

    _mark = 0

    def mark(self) -> None:
        self._mark = len(self.screen_bytes)

    async def evaluate(self, expr: str) -> Any:
        out = await self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        return out.get("result", {}).get("value")

    async def key(self, key: str) -> None:
        """One key press as the browser's keyboard makes it (xterm.js turns it into terminal input)."""
        special = {
            "enter": ("Enter", "Enter", 13, "\r"),
            "escape": ("Escape", "Escape", 27, ""),
            "tab": ("Tab", "Tab", 9, "\t"),
        }
        if key in special:
            k, code, vk, text = special[key]
            down = {"type": "keyDown", "key": k, "code": code, "windowsVirtualKeyCode": vk, "text": text}
        elif key.startswith("ctrl+"):
            ch = key[5:]
            down = {"type": "rawKeyDown", "key": ch, "code": f"Key{ch.upper()}", "modifiers": 2,
                    "windowsVirtualKeyCode": ord(ch.upper())}
        else:
            code = f"Key{key.upper()}" if key.isalpha() else ""
            down = {"type": "keyDown", "key": key, "code": code, "text": key,
                    "windowsVirtualKeyCode": ord(key.upper()) if key.isalpha() else ord(key),
                    "modifiers": 8 if key.isupper() else 0}
        await self.send("Input.dispatchKeyEvent", down)
        await self.send("Input.dispatchKeyEvent", {k: v for k, v in down.items() if k != "text"} | {"type": "keyUp"})

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait()
