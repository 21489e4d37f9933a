"""The answer page's reads and writes (issue 41, SPEC §16): the needs-you list in the
dashboard's order, a question's form, the same user-only writes as the dashboard (Atk-Actor:
user with the device's trailer, committed and pushed, the stale-question refusal against what
the page showed), and a page that says exactly what happened."""

from __future__ import annotations

import html
import re
from datetime import UTC, timedelta

import pytest
from support.hubweb_kit import (
    UWI_CJK,
    UWI_TWO,
    Page,
    atk_wait,
    close_page,
    form_action,
    hidden,
    make_world,
    serve_page,
)
from support.storekit import AWI_BODY, UWI_BODY, git

from atk_tui.service import Service
from atk_tui.service.history.deadlines import overdue_first
from atk_tui.service.writing.itemmeta import set_urgency


@pytest.fixture
async def opened(tmp_path):
    world = make_world(tmp_path, one=UWI_BODY, two=UWI_TWO, cjk=UWI_CJK)
    page, _ = await serve_page(world)
    await page.pair(world.state)
    yield world, page
    await close_page(page)


async def _open(page: Page, name: str) -> str:
    status, text = await page.get(f"/i/wi/{name}")
    assert status == 200, text
    return text


def _post_fields(page_text: str, /, **choices: str) -> dict[str, str]:
    return {"csrf": hidden(page_text, "csrf"), "digest": hidden(page_text, "digest"), **choices}


async def test_the_list_is_the_dashboards_needs_you_order_with_urgency_age_and_repo(tmp_path) -> None:
    world = make_world(tmp_path, one=UWI_BODY, two=UWI_TWO, three=UWI_CJK)
    agent = Service(world.agent, actor="agent")
    # different urgencies, so the order is the dashboard's rule and not the order added
    for key, urgency in (("one", "informational"), ("two", "next-review")):
        out = set_urgency(agent, world.items[key], urgency)
        assert out.ok, out.message
    git(world.hub, "pull", "-q", "--rebase")
    page, _ = await serve_page(world)
    try:
        await page.pair(world.state)
        status, text = await page.get("/")
        assert status == 200
        shown = [html.unescape(m) for m in re.findall(r'<a href="/i/wi/([^"]+)">', text)]
        view = Service(world.hub).queue()
        expected = [i.filename for i in overdue_first([view.items[n] for n in view.needs_you], view.now)]
        assert shown == expected and len(shown) == 3
        assert expected[-1] == world.items["one"]  # informational last: the order is the rule's, not the adding
        assert "acme/webapp" in text and "asked " in text and 'class="badge blocking"' in text
    finally:
        await close_page(page)


async def test_a_letter_and_free_text_are_committed_and_pushed_as_the_user_from_the_device(opened) -> None:
    world, page = opened
    name = world.items["one"]
    waiting = atk_wait(world.agent, name)  # the agent, on its own clone, waits for the answer
    assert name in (await page.get("/"))[1]
    text = await _open(page, name)
    assert 'value="A" checked' in text and "recommended" in text  # the recommendation marked and preselected
    status, said = await page.post(form_action(text), _post_fields(text, q1="C", text="strict for auth 認証"))
    assert status == 200, said
    assert "committed and pushed" in said
    message = world.message()
    assert "Atk-Actor: user" in message and "Atk-Device: phone" in message
    assert world.remote_head() == world.head()
    assert name not in (await page.get("/"))[1]  # the list follows: answered, it needs you no more
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert "C) Context-dependent" in out and "strict for auth 認証" in out


async def test_a_question_that_changed_since_the_page_showed_it_is_refused_and_nothing_is_written(opened) -> None:
    world, page = opened
    name = world.items["one"]
    text = await _open(page, name)
    # meanwhile the agent rewords the question and pushes; the hub's clone has not pulled yet
    agent = Service(world.agent, actor="agent")
    body = agent.read(name).body.replace("Which approach should be the standard?", "Which approach for the API only?")
    assert agent.writes.edit(name, body).ok
    remote = world.remote_head()
    status, said = await page.post(form_action(text), _post_fields(text, q1="B", text="my notes stay"))
    assert status == 409
    assert "the question changed since you read it" in said and "Nothing was recorded" in said
    assert "Which approach for the API only?" in said  # the new version, to answer again
    assert "my notes stay" in said  # the person's text is not lost
    assert world.remote_head() == remote
    assert "## 回答" not in Service(world.agent).read(name).body


async def test_someone_else_answering_first_is_said_and_nothing_is_written(opened) -> None:
    world, page = opened
    name = world.items["one"]
    text = await _open(page, name)
    elsewhere = Service(world.agent, actor="user")  # the person, at the dashboard on another machine
    assert elsewhere.answers.answer(name, choices={1: "B"}).ok
    remote = world.remote_head()
    status, said = await page.post(form_action(text), _post_fields(text, q1="A"))
    assert status == 409 and "someone else answered first" in said
    assert world.remote_head() == remote
    assert "B) Simple regex" in Service(world.agent).read(name).body


async def test_a_partial_answer_needs_saying_so_and_then_is_added_to(opened) -> None:
    world, page = opened
    name = world.items["two"]
    text = await _open(page, name)
    head = world.head()
    status, said = await page.post(form_action(text), _post_fields(text, q1="A", q2=""))
    assert status == 409 and "a question has no answer yet" in said
    assert world.head() == head
    status, said = await page.post(form_action(text), _post_fields(text, q1="A", q2="", partial="1"))
    assert status == 200 and "committed and pushed" in said
    text = await _open(page, name)
    assert "Answered already in the partial answer: A" in text
    status, said = await page.post(form_action(text), _post_fields(text, q2="B", text="unittest after all"))
    assert status == 200 and "committed and pushed" in said
    item = Service(world.hub).read(name)
    assert item.answered and not item.answer_partial
    assert "- 1: A) Next to the code" in item.body and "- 2: B) unittest" in item.body


async def test_other_with_text_answers_and_other_without_text_is_refused(opened) -> None:
    world, page = opened
    name = world.items["one"]
    text = await _open(page, name)
    status, said = await page.post(form_action(text), _post_fields(text, q1="other"))
    assert status == 409 and "other" in said.lower()
    status, said = await page.post(form_action(text), _post_fields(text, q1="other", text="use the framework's"))
    assert status == 200 and "committed and pushed" in said
    assert "other — see notes" in Service(world.hub).read(name).body


async def test_an_awi_is_read_only_with_a_comment_box(tmp_path) -> None:
    world = make_world(tmp_path, one=UWI_BODY)
    agent = Service(world.agent, actor="agent")
    out = agent.writes.add(kind="awi", target_repo="acme/webapp", body=AWI_BODY, source="wi-standards")
    assert out.ok, out.message
    git(world.hub, "pull", "-q", "--rebase")
    page, _ = await serve_page(world)
    try:
        await page.pair(world.state, "ipad")
        status, listing = await page.get("/")
        assert "Open work items" in listing and out.files[0] in listing
        text = await _open(page, out.files[0])
        assert "<textarea" in text and 'name="q1"' not in text and "replace the two validators" in text
        status, said = await page.post(form_action(text), _post_fields(text, text="please keep the old one for the CLI"))
        assert status == 200 and "Comment: committed and pushed" in said
        assert "Atk-Device: ipad" in world.message() and "Atk-Actor: user" in world.message()
        git(world.agent, "pull", "-q", "--rebase")
        assert "please keep the old one for the CLI" in Service(world.agent).read(out.files[0]).body
    finally:
        await close_page(page)


async def test_item_text_is_shown_escaped_never_as_html(tmp_path) -> None:
    hostile = UWI_BODY.replace(
        "# Which email validation should be the project standard?",
        '# Pick <script>alert(1)</script> <img src=x onerror=alert(2)> \u202eevil',
    ).replace("- B) Simple regex", '- B) <b onclick="x()">bold</b> regex')
    world = make_world(tmp_path, one=hostile)
    page, _ = await serve_page(world)
    try:
        await page.pair(world.state)
        for path in ("/", f"/i/wi/{world.items['one']}"):
            _, text = await page.get(path)
            assert "<script>" not in text and "<img" not in text and "<b onclick" not in text
            assert "&lt;script&gt;" in text
            assert "\u202e" not in text and "\\u202e" in text  # a bidi override shown, not obeyed
    finally:
        await close_page(page)


async def test_cjk_text_is_on_the_page_and_the_overdue_mark_shows(opened) -> None:
    world, page = opened
    name = world.items["cjk"]
    text = await _open(page, name)
    assert "どちらを標準にしますか？" in text and "厳密な RFC 5322" in text
    svc = Service(world.hub)
    item = svc.read(name)
    if not hasattr(item, "answer_by"):
        pytest.skip("no answer_by field in this tree")
    past = (svc.clock() - timedelta(hours=3)).replace(microsecond=0)
    stamp = past.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    rewritten = item.fm_block.replace("created:", f"answer_by: {stamp}\ncreated:", 1)
    assert "answer_by" in rewritten, item.fm_block
    (world.hub / "wi" / item.state / name).write_text(rewritten + item.body, encoding="utf-8")
    git(world.hub, "commit", "-qam", "answer_by")
    _status, listing = await page.get("/")
    assert 'class="badge overdue">overdue 3h' in listing
    first = re.search(r'<a href="/i/wi/([^"]+)">', listing).group(1)
    assert html.unescape(first) == name  # overdue first, as the dashboard shows them


async def test_the_remote_refusing_the_push_is_said_with_what_to_do(opened) -> None:
    world, page = opened
    hook = world.remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'refused by policy' >&2\nexit 1\n")
    hook.chmod(0o755)
    name = world.items["one"]
    text = await _open(page, name)
    remote = world.remote_head()
    _status, said = await page.post(form_action(text), _post_fields(text, q1="A"))
    assert "committed, not pushed" in said and "atk wi commit" in said
    assert world.remote_head() == remote and world.head() != remote
    assert "Atk-Device: phone" in world.message()


async def test_a_hub_whose_service_is_an_agents_writes_nothing(tmp_path) -> None:
    """The page's writes are the person's: a service that acts as an agent (a hub started in an
    agent environment, which `atk hub` refuses anyway) is refused by the service's user-only rule."""
    import aiohttp
    from aiohttp.test_utils import TestClient, TestServer
    from support.serve import free_port

    from atk_tui.hub.web import build_app

    world = make_world(tmp_path)
    port = free_port()
    app = build_app(lambda: Service(world.hub, actor="agent"), state_dir=world.state, public_url=None,
                    link_ttl_s=86400, bind_host="127.0.0.1", port=port)  # fmt: skip
    client = TestClient(TestServer(app, host="127.0.0.1", port=port), cookie_jar=aiohttp.CookieJar(unsafe=True))
    await client.start_server()
    page = Page(client, port)
    try:
        await page.pair(world.state)
        text = await _open(page, world.items["one"])
        head = world.head()
        status, said = await page.post(form_action(text), _post_fields(text, q1="A"))
        assert status == 409 and "the hub runs as an agent" in said
        assert world.head() == head
    finally:
        await close_page(page)
