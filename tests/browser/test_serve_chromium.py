"""`atk-tui --serve` in a real headless Chromium (issue 15 item 7): the real binary serves the
dashboard through textual-serve; the browser's keyboard answers a question, and the answer is
a commit in the store; `e` opens the in-app editor (a browser session cannot suspend); a narrow
window gets the bottom preview, as a narrow terminal does. The browser opens the address
`--serve` printed, with its token (issue 25), and a page of another origin cannot connect.

Chromium is Debian's `chromium` (`.ci/run` installs it). Without it this test fails, saying
so, unless ATK_SKIP_BROWSER=1 is set explicitly."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from support.cdp import Browser
from support.pixels import Ink, decode_png, find_text, ink, screen_cells
from support.serve import serving
from support.storekit import UWI_BODY, git
from support.tools import need_tool

from atk_tui.service import Service
from atk_tui.store import init_store
from atk_tui.tui.keys.key_guard import DIALOG_KEY_GRACE

pytestmark = pytest.mark.e2e


def chromium_or_fail() -> str:
    if os.environ.get("ATK_SKIP_BROWSER") == "1":
        pytest.skip("ATK_SKIP_BROWSER=1: no browser test")
    return need_tool("chromium")


@pytest.fixture
def served(tmp_path: Path):
    """A store with one question, served by the real `atk-tui --serve` on a free port; the
    address to open is the one it printed (with its token)."""
    root, _ = init_store(tmp_path / "notes")
    out = Service(root, actor="agent").writes.add(kind="uwi", target_repo="acme/webapp", body=UWI_BODY, source="test")
    assert out.ok, out.message
    with serving(root, "--theme", "textual-dark", env={**os.environ, "ATK_SKIP_BROWSER": ""}) as server:
        yield root, out.files[0], server


async def open_in_app_editor(browser: Browser) -> None:
    """`e` in a browser session: it offers the in-app editor (no terminal to hand to $EDITOR)."""
    browser.mark()
    await browser.key("e")
    await browser.wait_for_text("Edit the file in the dashboard instead?")
    await asyncio.sleep(DIALOG_KEY_GRACE)  # read the question: keys typed as it opens are dropped
    await browser.key("y")
    await browser.wait_for_text("Ctrl+S save")
    await asyncio.sleep(DIALOG_KEY_GRACE)  # the editor is read before typing into it


def subjects(root: Path) -> list[str]:
    return git(root, "log", "--format=%s").splitlines()


def test_answering_a_question_in_the_browser_makes_its_commit(served, tmp_path: Path) -> None:
    binary = chromium_or_fail()
    root, name, server = served

    async def drive() -> None:
        browser = Browser(binary, tmp_path / "profile")
        try:
            await browser.start()
            await browser.open(server.url)
            await browser.wait_for_text("Needs you")
            # the first load put the token in a cookie the page's scripts cannot read, and took
            # it out of the address bar
            assert await browser.evaluate("location.href") == f"{server.origin}/"
            assert await browser.evaluate("document.cookie") == ""
            await browser.wait_for_text("email validation")
            await browser.evaluate("document.querySelector('.xterm-helper-textarea').focus(), true")
            browser.mark()
            await browser.key("a")
            await browser.wait_for_text("Answer:")
            await browser.key("b")
            await browser.key("enter")
            for _ in range(300):  # bounded: until the answer's commit is in the store
                if f"atk: answer {name}" in subjects(root):
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError(f"no answer commit; the browser showed:\n{browser.screen_text()[-3000:]}")
            await asyncio.sleep(DIALOG_KEY_GRACE)  # a person sees the form close before the next key
            # the in-app editor: a browser session cannot hand the terminal to $EDITOR
            await open_in_app_editor(browser)
            await browser.key("escape")
        finally:
            await browser.close()

    asyncio.run(drive())
    (path,) = root.glob(f"wi/*/{name}")  # `e` held it while the editor was open
    text = path.read_text(encoding="utf-8")
    assert "## 回答" in text
    assert "B" in text.split("## 回答", 1)[1]
    assert subjects(root).count(f"atk: answer {name}") == 1


def test_a_narrow_browser_window_shows_the_detail_under_the_lists(served, tmp_path: Path) -> None:
    """About 77 columns: the bottom preview (tests/dashboard/test_narrow.py), in the browser too: the
    panes not focused are one title line each, the detail is drawn without `l`; `i` turns it off."""
    binary = chromium_or_fail()
    _root, name, server = served

    async def drive() -> None:
        browser = Browser(binary, tmp_path / "profile", window=(700, 700))
        try:
            await browser.start()
            await browser.open(server.url)
            # the detail, without `l` (a long filename is cut in the middle: both ends shown)
            await browser.wait_for_text(f"file {name[:17]}")
            await browser.wait_for_text(name[-10:])
            await browser.wait_for_text("╭─ Hold 0 ")
            # the collapsed processing pane: its title line, then at once the hold pane's
            assert re.search(r"╭─ Processing 0 ─+╮\s*╭─ Hold 0 ", browser.screen_text()), browser.screen_text()[-3000:]
            await browser.evaluate("document.querySelector('.xterm-helper-textarea').focus(), true")
            await browser.key("i")
            for _ in range(300):  # bounded: until the hold pane is drawn whole (its rows' line under its title)
                if re.search(r"╭─ Hold 0 ─+╮\s*│", browser.screen_text()):
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError(f"`i` did not bring the lists back full height:\n{browser.screen_text()[-3000:]}")
        finally:
            await browser.close()

    asyncio.run(drive())


FOREIGN_PAGE = """<!doctype html><title>another site</title><script>
window.attempt = new Promise(done => {
  const ws = new WebSocket("ws://127.0.0.1:PORT/ws?width=80&height=24");
  ws.onopen = () => { done("open"); ws.close(); };
  ws.onclose = (e) => done("closed " + e.code);
});
</script>"""


@contextmanager
def another_site(html: str) -> Iterator[int]:
    """A second local web server (127.0.0.1, another port) serving one page: its port."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)


def test_a_page_of_another_origin_cannot_open_the_dashboard(served, tmp_path: Path) -> None:
    """Issue 25: the person has the dashboard open (the cookie is set, and a page on another
    port of 127.0.0.1 is the same site, so the browser sends it along); a page there opens
    `new WebSocket("ws://127.0.0.1:PORT/ws")`. Its Origin is not the dashboard's: refused, and
    logged."""
    binary = chromium_or_fail()
    _root, _name, server = served

    async def drive() -> tuple[str, int]:
        browser = Browser(binary, tmp_path / "profile")
        try:
            await browser.start()
            await browser.open(server.url)
            await browser.wait_for_text("Needs you")
            with another_site(FOREIGN_PAGE.replace("PORT", str(server.port))) as other:
                start = server.mark()
                await browser.open(f"http://127.0.0.1:{other}/")
                for _ in range(600):  # bounded: until the page's script has run
                    if await browser.evaluate("typeof window.attempt") == "object":
                        break
                    await asyncio.sleep(0.1)
                else:
                    raise AssertionError("the other site's page never ran its script")
                result = await browser.evaluate("window.attempt")
                assert result != "open", "a page of another origin opened the dashboard's WebSocket"
                refused = rf"refused GET '/ws' from 127\.0\.0\.1: Origin 'http://127\.0\.0\.1:{other}' is not"
                await asyncio.to_thread(server.wait_for_line, refused, start)
                return result, other
        finally:
            await browser.close()

    result, _other = asyncio.run(drive())
    assert result.startswith("closed "), result


def test_esc_in_the_browser_backs_out_of_the_editor_and_the_new_item_form(served, tmp_path: Path) -> None:
    """Issue 29: in a browser the in-app editor's text area took Esc (it indents with Tab), and
    the `+` form needed two Esc and dropped the typed text. One Esc now asks before anything
    typed is dropped; with nothing typed it closes at once."""
    binary = chromium_or_fail()
    root, name, server = served
    before = subjects(root)

    async def drive() -> None:
        browser = Browser(binary, tmp_path / "profile")
        try:
            await browser.start()
            await browser.open(server.url)
            await browser.wait_for_text("email validation")
            await browser.evaluate("document.querySelector('.xterm-helper-textarea').focus(), true")
            await open_in_app_editor(browser)
            await browser.key("x")  # typed into the text area
            browser.mark()
            await browser.key("escape")  # one Esc, from inside the text area
            await browser.wait_for_text("Discard what you typed?")
            await asyncio.sleep(DIALOG_KEY_GRACE)
            browser.mark()
            await browser.key("y")
            await browser.wait_for_text("Needs you")
            await asyncio.sleep(DIALOG_KEY_GRACE)  # keys typed as a dialog closes are dropped (issue 43)
            browser.mark()
            await browser.key("+")
            await browser.wait_for_text("New item (to inbox)")
            browser.mark()
            await browser.key("escape")  # nothing typed: closes at once
            await browser.wait_for_text("Needs you")
        finally:
            await browser.close()

    asyncio.run(drive())
    # the edit was discarded: nothing but the edit session's hold and unhold, and the item is back
    made = subjects(root)[: len(subjects(root)) - len(before)]
    assert all(s in (f"atk: hold {name}", f"atk: unhold {name}") for s in made), made
    assert list(root.glob(f"wi/inbox/{name}"))


#: the font family textual-serve's script gives the terminal
TERMINAL_FONTS = "'Roboto Mono', Monaco, 'Courier New', monospace"
JAPANESE_UWI = UWI_BODY.replace("# Which email validation should be the project standard?", "# 保存先を決める：セッションストア")


def test_cjk_text_is_drawn_with_the_bundled_font(tmp_path: Path) -> None:
    """Issue 29: the page asked a web font host for Roboto Mono and left CJK to the machine's
    fonts (tofu where there are none). It now loads only fonts this server serves, and CJK text
    in the terminal's font family is drawn with the bundled Noto Sans Mono CJK JP subset (a web
    font, `isCustomFont`), whatever the machine has installed."""
    binary = chromium_or_fail()
    root, _ = init_store(tmp_path / "notes")
    assert Service(root, actor="agent").writes.add(kind="uwi", target_repo="acme/webapp", body=JAPANESE_UWI, source="test").ok
    with serving(root, "--theme", "textual-dark", env={**os.environ, "ATK_SKIP_BROWSER": ""}) as server:

        async def drive() -> tuple[list[str], list[str], list[dict]]:
            browser = Browser(binary, tmp_path / "profile")
            try:
                await browser.start()
                await browser.open(server.url)
                await browser.wait_for_text("セッションストア")
                faces = await browser.evaluate(
                    "document.fonts.load('16px \"Roboto Mono\"', '保存先を決める').then(fs => fs.map(f => f.status + ' ' + f.unicodeRange))"
                )
                await browser.evaluate(
                    "(() => { const s = document.createElement('span'); s.id = 'probe';"
                    f" s.style.fontFamily = {TERMINAL_FONTS!r};"
                    " s.textContent = '保存先を決める、セッション。'; document.body.appendChild(s); return true })()"
                )
                await browser.send("DOM.enable")
                await browser.send("CSS.enable")
                # the probe's fonts once it is laid out (asked at once, a loaded machine had not
                # drawn it yet: no fonts at all); bounded
                await browser.evaluate("document.fonts.ready.then(() => new Promise(done => requestAnimationFrame(() => done(true))))")
                used: list[dict] = []
                for _ in range(50):
                    doc = await browser.send("DOM.getDocument")
                    node = await browser.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"], "selector": "#probe"})
                    used = (await browser.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]}))["fonts"]
                    if used:
                        break
                    await asyncio.sleep(0.1)
                loaded = await browser.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
                return faces, loaded, used
            finally:
                await browser.close()

        faces, loaded, used = asyncio.run(drive())
    assert any(f.startswith("loaded ") and "U+4E00" in f.upper() for f in faces), faces
    assert f"{server.origin}/atk-fonts/atk-mono-cjk.woff2" in loaded, loaded
    assert all(url.startswith(server.origin) for url in loaded), loaded  # no web font host
    assert [f["familyName"] for f in used if f["isCustomFont"]] == ["Noto Sans Mono CJK JP"], used
    assert sum(f["glyphCount"] for f in used if f["isCustomFont"]) == len("保存先を決める、セッション。"), used


TITLE = "保存先を決める"


async def drawn_cells(browser: Browser, since: int = 0) -> tuple[list[tuple[str, Ink]], dict]:
    """Every character of `TITLE` where the terminal shows it (the needs-you row, the inbox
    row, the detail), with the ink its cell holds on a screenshot of what Chromium drew, once
    the page has drawn all it was sent (a screenshot taken while a frame was still arriving
    showed half a row, seen once in CI)."""
    await browser.settle()
    shot = await browser.send("Page.captureScreenshot", {"format": "png"})
    image = decode_png(base64.b64decode(shot["data"]))
    left, top, width, height, scale = await browser.evaluate(
        "(() => { const r = document.querySelector('.xterm-screen').getBoundingClientRect();"
        " return [r.left, r.top, r.width, r.height, window.devicePixelRatio] })()"
    )
    size = [json.loads(f)[1] for f in browser.sent if f.startswith('["resize"')][-1]
    cw, ch = width / size["width"], height / size["height"]
    cells = screen_cells(browser.screen_bytes[since:].decode("utf-8", "replace"))
    found = find_text(cells, TITLE)
    assert found, f"{TITLE} is not on the terminal"
    out = []
    for row, col in found:
        for k, char in enumerate(TITLE):
            out.append((char, ink(image, left + (col + 2 * k) * cw, top + row * ch, 2 * cw, ch, scale)))
    return out, size


def test_japanese_is_drawn_not_boxes_on_first_load_and_after_a_resize(tmp_path: Path) -> None:
    """Issue 43: on a machine without CJK fonts the terminal drew every Japanese character of
    the first screen as an empty box (it drew before the bundled font had loaded, and kept its
    drawing); after a resize only what was redrawn showed Japanese. Checked on what Chromium
    drew: each character's cell on a screenshot has strokes across its middle (a box's middle
    is empty), on the first load and after the window is resized."""
    binary = chromium_or_fail()
    root, _ = init_store(tmp_path / "notes")
    assert Service(root, actor="agent").writes.add(kind="uwi", target_repo="acme/webapp", body=JAPANESE_UWI, source="test").ok
    with serving(root, "--theme", "textual-dark", env={**os.environ, "ATK_SKIP_BROWSER": ""}) as server:

        async def drive() -> tuple[list, list, str]:
            browser = Browser(binary, tmp_path / "profile", window=(1000, 700))
            try:
                await browser.start()
                await browser.open(server.url)
                await browser.wait_for_text("セッションストア")
                await browser.wait_for_text("acme/webapp")
                first, size = await drawn_cells(browser)
                fonts = await browser.evaluate("document.body.dataset.atkFonts")
                since = len(browser.screen_bytes)
                browser.mark()
                await browser.send("Emulation.setDeviceMetricsOverride", {"width": 1300, "height": 800, "deviceScaleFactor": 1, "mobile": False})
                for _ in range(300):  # bounded: until the page has told the dashboard its new size
                    if [f for f in browser.sent if f.startswith('["resize"')][-1] != json.dumps(["resize", size]).replace(" ", ""):
                        break
                    await asyncio.sleep(0.1)
                await browser.wait_for_text("セッションストア")
                await browser.wait_for_text("acme/webapp")
                resized, _ = await drawn_cells(browser, since)
                return first, resized, fonts
            finally:
                await browser.close()

        first, resized, fonts = asyncio.run(drive())
    for when, cells in (("first load", first), ("after a resize", resized)):
        assert len(cells) >= 2 * len(TITLE), (when, cells)  # the needs-you row and the detail, at least
        boxes = [char for char, got in cells if got.inside < 0.2]
        assert not boxes, f"{when}: drawn as boxes: {''.join(boxes)} {cells}"
    assert fonts == "loaded"  # the page waited for the font before it started the terminal
