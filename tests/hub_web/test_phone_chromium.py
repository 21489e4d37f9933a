"""The answer page on a phone (issue 41): real headless Chromium through the DevTools protocol
at 360×640 CSS pixels with touch, against a real hub page on loopback. Pair through the
pairing URL, open the question from the needs-you list, tap a letter, type free text, submit,
see "committed and pushed"; the agent's `atk wi wait` on another clone returns with it.

Screenshots at 360×640 and 1280×800, dark and light, are taken on the way (into the test's
folder; with ATK_SCREENSHOTS_DIR set, there too: docs/screenshots/ is made that way)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.cdp import Browser
from support.hubweb_kit import UWI_CJK, Phone, atk_wait, close_page, make_world, png_size, serve_page
from support.storekit import UWI_BODY
from support.tools import need_tool

from atk_tui.hub.web.devices import devices, new_pairing

pytestmark = pytest.mark.e2e


def chromium_or_fail() -> str:
    if os.environ.get("ATK_SKIP_BROWSER") == "1":
        pytest.skip("ATK_SKIP_BROWSER=1: no browser test")
    return need_tool("chromium")


async def _shoot(phone: Phone, where: list[Path], name: str, size: tuple[int, int], *, mobile: bool) -> None:
    for dark in (False, True):
        await phone.resize(*size, mobile=mobile)
        await phone.scheme(dark)
        await phone.browser.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        shot = f"phone-{name}-{size[0]}x{size[1]}-{'dark' if dark else 'light'}.png"
        data = b""
        for folder in where:
            data = await phone.screenshot(folder / shot)
        assert png_size(data) == size


async def test_pair_open_and_answer_on_a_phone_in_chromium(tmp_path: Path) -> None:
    binary = chromium_or_fail()
    world = make_world(tmp_path, one=UWI_BODY, cjk=UWI_CJK)
    name = world.items["one"]
    page, _ = await serve_page(world)
    where = [tmp_path / "shots"] + ([Path(os.environ["ATK_SCREENSHOTS_DIR"])] if os.environ.get("ATK_SCREENSHOTS_DIR") else [])
    phone = Phone(Browser(binary, tmp_path / "profile"))
    waiting = atk_wait(world.agent, name)
    try:
        await phone.start()
        code = new_pairing(world.state)
        await phone.go(f"{page.origin}/pair/{code}")
        said = await phone.wait_text("Pair this device")
        assert "Name of this device" in said
        await phone.tap("#name")
        await phone.browser.evaluate("document.querySelector('#name').select()")
        await phone.type("pixel")
        await phone.tap("button[type=submit]")
        listing = await phone.wait_text("paired as pixel")
        assert "paired as pixel" in listing and [d.name for d in devices(world.state)] == ["pixel"]
        assert "Which email validation should be the project standard?" in listing
        # the device cookie is HttpOnly: the page's own script could not read it
        assert "atk-hub-device" not in (await phone.browser.evaluate("document.cookie") or "")
        await _shoot(phone, where, "list", (360, 640), mobile=True)
        await _shoot(phone, where, "list", (1280, 800), mobile=False)
        await phone.resize(360, 640)
        await phone.scheme(False)

        # the CJK question renders with the hub's own font
        await phone.tap(f'a[href="/i/wi/{world.items["cjk"]}"]')
        await phone.loaded()
        await phone.wait_text("どちらを標準にしますか？")
        fonts = await phone.browser.evaluate(
            "Promise.all([...document.fonts].map(f => f.load().then(() => [f.family, f.status], () => [f.family, 'error'])))"
        )
        assert ['"atk-cjk"', "loaded"] in fonts or ["atk-cjk", "loaded"] in fonts, fonts
        await _shoot(phone, where, "question-cjk", (360, 640), mobile=True)
        await phone.resize(360, 640)
        await phone.scheme(False)

        await phone.go(page.origin + "/")
        await phone.tap(f'a[href="/i/wi/{name}"]')
        await phone.loaded()
        said = await phone.wait_text("Question 1")
        assert "recommended" in said
        # usable at 360 px: nothing wider than the screen, every target at least 44 px high
        width = await phone.browser.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, width
        small = await phone.browser.evaluate(
            "[...document.querySelectorAll('label.opt, button, textarea, summary, header a, main a')]"
            ".map(e => e.getBoundingClientRect().height).filter(h => h < 44)"
        )
        assert small == [], small
        labelled = await phone.browser.evaluate(
            "[...document.querySelectorAll('input:not([type=hidden]), textarea')].every(e => e.labels && e.labels.length > 0)"
        )
        assert labelled
        await _shoot(phone, where, "question", (360, 640), mobile=True)
        await _shoot(phone, where, "question", (1280, 800), mobile=False)
        await phone.resize(360, 640)
        await phone.scheme(True)
        await phone.tap('input[name="q1"][value="C"]')
        checked = await phone.browser.evaluate("document.querySelector('input[name=q1]:checked').value")
        assert checked == "C"  # what the finger chose is what is highlighted
        await phone.tap("#notes")
        await phone.type("strict for auth, lenient for the newsletter form")
        await phone.tap("button[type=submit]")
        done = await phone.wait_text("committed and pushed")
        assert "Answer: committed and pushed" in done
        assert "Recorded:" in done and "- 1: C) Context-dependent" in done  # exactly what was written
        back = await phone.browser.evaluate("document.querySelector('main a').getBoundingClientRect().height")
        assert back >= 44
        await _shoot(phone, where, "done", (360, 640), mobile=True)
    finally:
        await phone.browser.close()
        await close_page(page)
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert "C) Context-dependent" in out and "lenient for the newsletter form" in out
    message = world.message()
    assert "Atk-Actor: user" in message and "Atk-Device: pixel" in message
    assert world.remote_head() == world.head()
