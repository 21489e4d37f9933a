"""One tap (issue 41, SPEC §16): the notification's "Accept recommended" link answers with the
recommended options only while every question has one and the question reads as it did; the
link is signed by the hub's key, single-use, expiring and bound to the question's content.
Replayed, expired, tampered or reworded: refused with the reason, nothing written."""

from __future__ import annotations

import time
from urllib.parse import quote

import pytest
from support.hubweb_kit import UWI_NO_REC, UWI_TWO, Page, World, close_page, hidden, make_world, serve_page
from support.storekit import UWI_BODY, git

from atk_tui.hub.web.links import accept_link, open_link
from atk_tui.service import Service
from atk_tui.service.writing.digest import question_digest


@pytest.fixture
async def tapped(tmp_path):
    world = make_world(tmp_path, one=UWI_BODY, two=UWI_TWO, norec=UWI_NO_REC)
    page, _ = await serve_page(world)
    yield world, page
    await close_page(page)


def _link(world: World, page: Page, key: str = "one", **kw) -> str:
    name = world.items[key]
    digest = question_digest(Service(world.hub).read(name))
    url = accept_link(world.state, base_url=page.origin, queue="wi", filename=name, content_digest=digest, **kw)
    assert url.startswith(page.origin + "/a/wi/")
    return url[len(page.origin):]


def _untouched(world: World) -> tuple[str, str]:
    return world.head(), world.remote_head()


async def test_the_app_action_answers_with_the_recommendation_as_the_user(tapped) -> None:
    world, page = tapped
    path = _link(world, page, "two")
    status, said = await page.post(path, origin=None)  # ntfy's http action: a POST, no Origin, no cookie
    assert status == 200 and "committed and pushed" in said
    body = Service(world.hub).read(world.items["two"]).body
    assert "- 1: B) Top-level (tests/auth/)" in body and "- 2: A) pytest" in body
    message = world.message()
    assert "Atk-Actor: user" in message and "Atk-Via: one-tap link" in message
    assert world.remote_head() == world.head()


async def test_a_replayed_link_is_refused(tapped) -> None:
    world, page = tapped
    path = _link(world, page)
    assert (await page.post(path, origin=None))[0] == 200
    before = _untouched(world)
    status, said = await page.post(path, origin=None)
    assert status == 409 and "used already" in said and "Nothing was written" in said
    assert _untouched(world) == before


async def test_an_expired_link_is_refused(tapped) -> None:
    world, page = tapped
    path = _link(world, page, now=time.time() - 2 * 86400)
    before = _untouched(world)
    status, said = await page.post(path, origin=None)
    assert status == 410 and "expired" in said and "Nothing was written" in said
    status, said = await page.get(path)
    assert status == 410
    assert _untouched(world) == before and "## 回答" not in world.body(world.items["one"])


async def test_a_tampered_link_is_refused(tapped, tmp_path) -> None:
    world, page = tapped
    path = _link(world, page)
    other = world.items["two"]
    forged = [
        path.replace("d=", "d=0", 1).replace("&t=", "&t=", 1)[:-1],  # digest and signature cut
        path.replace(quote(world.items["one"], safe=""), quote(other, safe="")),  # another question
        path[:-2] + ("AA" if not path.endswith("AA") else "BB"),  # the signature changed
        path.replace("&t=", "&t=9"),  # a later issue time (a longer life)
        path.replace("&n=", "&n=x"),  # another nonce (a second use)
    ]
    elsewhere = tmp_path / "other-hub"
    elsewhere.mkdir(mode=0o700)
    digest = question_digest(Service(world.hub).read(world.items["one"]))
    url = accept_link(elsewhere, base_url=page.origin, queue="wi", filename=world.items["one"], content_digest=digest)
    forged.append(url[len(page.origin):])  # signed by another hub's key
    before = _untouched(world)
    for bad in forged:
        status, said = await page.post(bad, origin=None)
        assert status == 403 and "not one this hub signed" in said, bad
    assert _untouched(world) == before
    assert (await page.post(path, origin=None))[0] == 200  # the real one still works


async def test_a_question_reworded_after_the_notification_is_refused(tapped) -> None:
    world, page = tapped
    name = world.items["one"]
    path = _link(world, page)
    agent = Service(world.agent, actor="agent")
    body = agent.read(name).body.replace("- B) Simple regex", "- B) A hand-written parser")
    assert agent.writes.edit(name, body).ok
    # the hub's clone has not pulled yet: the write's own pull finds the change
    before = world.remote_head()
    status, said = await page.post(path, origin=None)
    assert status == 409 and "changed since you read it" in said
    assert world.remote_head() == before and "## 回答" not in agent.read(name).body
    # pulled: the link sees the change at once, and the browser is sent to the question
    git(world.hub, "pull", "-q", "--rebase")
    status, said = await page.post(path, origin=None)
    assert status == 409 and "changed since the notification" in said
    await page.pair(world.state)
    async with page.client.get(path, allow_redirects=False) as r:
        assert r.status == 303 and r.headers["Location"].endswith("?why=changed")
    status, said = await page.get(path)
    assert status == 200 and "the question changed since the notification was sent" in said
    assert "A hand-written parser" in said
    assert world.remote_head() == before


async def test_without_a_recommendation_for_every_question_the_link_opens_the_question(tapped) -> None:
    world, page = tapped
    path = _link(world, page, "norec")
    before = _untouched(world)
    status, said = await page.post(path, origin=None)
    assert status == 409 and "has no recommendation" in said and "Nothing was written" in said
    await page.pair(world.state)
    status, said = await page.get(path)
    assert status == 200 and "not every question has a recommendation" in said and 'name="q1"' in said
    assert _untouched(world) == before
    assert (await page.post(path, origin=None))[0] == 409  # refused again, for the same reason (not "used")


async def test_a_link_opened_in_a_browser_asks_once_then_answers_with_the_device_named(tapped) -> None:
    world, page = tapped
    await page.pair(world.state, "pixel")
    path = _link(world, page)
    before = _untouched(world)
    status, text = await page.get(path)  # a GET never writes (previews and prefetches open links too)
    assert status == 200 and "Accept recommended" in text and "A) Strict RFC 5322" in text
    assert _untouched(world) == before
    status, said = await page.post(path, {})  # the browser's POST carries an Origin: its form's token is needed
    assert status == 403 and "CSRF" in said
    status, said = await page.post(path, {"csrf": "0" * 40}, origin="http://evil.example")
    assert status == 403 and "Origin" in said
    assert _untouched(world) == before
    status, said = await page.post(path, {"csrf": hidden(text, "csrf")})
    assert status == 200 and "committed and pushed" in said
    assert "Atk-Device: pixel" in world.message() and "Atk-Via: one-tap link" in world.message()


async def test_link_attempts_are_rate_limited(tmp_path) -> None:
    world = make_world(tmp_path)
    page, _ = await serve_page(world, limits={"pair": (3, 600.0), "link": (2, 600.0)})
    try:
        path = _link(world, page)
        assert (await page.get(path + "x"))[0] == 403
        assert (await page.get(path + "y"))[0] == 403
        status, said = await page.post(path, origin=None)
        assert status == 429 and "Too many link attempts" in said
        assert "## 回答" not in world.body(world.items["one"])
    finally:
        await close_page(page)


def test_links_say_where_they_go_and_refuse_a_digest_that_is_not_one(tmp_path) -> None:
    assert open_link("https://h.example/", "wi", "a b.md") == "https://h.example/i/wi/a%20b.md"
    with pytest.raises(ValueError):
        accept_link(tmp_path, base_url="http://x", queue="wi", filename="a.md", content_digest="abc")
    key = tmp_path / "web" / "link.key"
    accept_link(tmp_path, base_url="http://x", queue="wi", filename="a.md", content_digest="0" * 64)
    assert key.stat().st_mode & 0o777 == 0o600
