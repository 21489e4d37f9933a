"""`atk-tui --serve` in a real headless Chromium (issue 15 item 7): the real binary serves the
dashboard through textual-serve; the browser's keyboard answers a question, and the answer is
a commit in the store; `e` opens the in-app editor (a browser session cannot suspend); a narrow
window gets the bottom preview, as a narrow terminal does.

Chromium is Debian's `chromium` (`.ci/run` installs it). Without it this test fails, saying
so, unless ATK_SKIP_BROWSER=1 is set explicitly."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from cdp import Browser, find_chromium
from support.storekit import UWI_BODY, git

from atk_tui.core.service import Service
from atk_tui.core.store import init_store

pytestmark = pytest.mark.e2e

ATK_TUI = Path(sys.executable).with_name("atk-tui")


def chromium_or_fail() -> str:
    binary = find_chromium()
    if binary:
        return binary
    if os.environ.get("ATK_SKIP_BROWSER") == "1":
        pytest.skip("ATK_SKIP_BROWSER=1: no browser test")
    raise AssertionError(
        "no chromium on the PATH: install it (Debian: apt-get install -y chromium; .ci/run does) "
        "or set ATK_SKIP_BROWSER=1 to leave this test out explicitly"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(tmp_path: Path):
    """A store with one question, served by the real `atk-tui --serve` on a free port."""
    root, _ = init_store(tmp_path / "notes")
    out = Service(root, actor="agent").add(kind="uwi", target_repo="acme/webapp", body=UWI_BODY, source="test")
    assert out.ok, out.message
    port = free_port()
    env = {**os.environ, "ATK_SKIP_BROWSER": ""}
    server = subprocess.Popen(
        [str(ATK_TUI), "--serve", "--store", str(root), "--host", "127.0.0.1", "--port", str(port), "--theme", "textual-dark"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(600):  # bounded: until the server answers
            if server.poll() is not None:
                raise AssertionError(f"atk-tui --serve exited: {server.stdout.read() if server.stdout else ''}")
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    assert resp.status == 200
                    break
            except OSError:
                import time

                time.sleep(0.1)
        else:
            raise AssertionError("atk-tui --serve never answered")
        yield root, out.files[0], url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def subjects(root: Path) -> list[str]:
    return git(root, "log", "--format=%s").splitlines()


def test_answering_a_question_in_the_browser_makes_its_commit(served, tmp_path: Path) -> None:
    binary = chromium_or_fail()
    root, name, url = served

    async def drive() -> None:
        browser = Browser(binary, tmp_path / "profile")
        try:
            await browser.start()
            await browser.open(url)
            await browser.wait_for_text("Needs you")
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
            # the in-app editor: a browser session cannot hand the terminal to $EDITOR
            browser.mark()
            await browser.key("e")
            await browser.wait_for_text("Edit the file in the dashboard instead?")
            await browser.key("y")
            await browser.wait_for_text("Ctrl+S save")
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
    """About 77 columns: the bottom preview (tests/tui/test_narrow.py), in the browser too: the
    panes not focused are one title line each, the detail is drawn without `l`; `i` turns it off."""
    binary = chromium_or_fail()
    _root, name, url = served

    async def drive() -> None:
        browser = Browser(binary, tmp_path / "profile", window=(700, 700))
        try:
            await browser.start()
            await browser.open(url)
            await browser.wait_for_text(f"file {name[:40]}")  # the detail, without `l`
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
