"""The answer page's aiohttp application (SPEC §16, issue 41): routes and access rules. What a
page reads and writes is `decide.py`'s: the service's user-only writes (`svc.answers.answer`,
`svc.answers.comment`, with the paired device's `Atk-Device` trailer).

Access, in this order, on every request:

1. Host must be one of the hub's names (loopback with its port, the bind address, the public
   URL's host); an Origin header, when given, must be one of those origins; a POST must carry
   one (`host.webguard.origin_refusal`, the rules `atk-tui --serve` has), except on a one-tap
   link, which an app's HTTP action posts without one (its signature is its credential).
2. `/pair/CODE` needs a pairing code `atk hub pair` made (single-use, a few minutes).
   `/a/…` needs a one-tap link the hub signed (`links.check`). Everything else needs a paired
   device's credential cookie; without it the page asks to pair and nothing is written.
3. Every form carries a CSRF token (HMAC of the hub's key over the device, the pairing code or
   the link), checked on its POST.
4. Pairing and one-tap attempts are rate-limited per client address.

Every response: a strict Content-Security-Policy (nothing but this origin's style sheet and
font, no script at all, no framing), no caching, no referrer sent to other sites.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import html
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from aiohttp import web

from atk_tui.domain.errors import AtkError
from atk_tui.domain.model import is_valid_filename
from atk_tui.host.webguard import host_names, origin_refusal, page_host
from atk_tui.hub.web import devices as devs
from atk_tui.hub.web import links
from atk_tui.hub.web.decide import (
    Plan,
    accept_now,
    outcome_status,
    plan_accept,
    read_item,
    read_list,
    with_answer,
    write_answer,
    write_comment,
)
from atk_tui.hub.web.pages import (
    Form,
    Status,
    confirm_page,
    item_href,
    item_page,
    list_page,
    message_page,
    pair_page,
    unpaired_page,
)
from atk_tui.hub.web.statefiles import hub_key, save_address

if TYPE_CHECKING:
    from atk_tui.service import Service

STATIC = Path(__file__).resolve().parent / "static"
#: the dashboard's bundled CJK font (read as a file: the hub never imports the dashboard)
CJK_FONT = Path(__file__).resolve().parents[2] / "tui" / "fonts" / "atk-mono-cjk.woff2"
COOKIE = "atk-hub-device"
COOKIE_MAX_AGE = 400 * 24 * 3600  # browsers keep a cookie at most 400 days
CSP = (
    "default-src 'none'; style-src 'self'; font-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
#: requests allowed per client address and window (seconds), per kind of attempt
RATE_LIMITS: dict[str, tuple[int, float]] = {"pair": (20, 600.0), "link": (60, 600.0)}
QUEUES = ("wi", "mq")

#: why a question opened from a one-tap link was not answered by it (`?why=`): fixed texts,
#: never the query's own words
WHY: dict[str, str] = {
    "changed": "The one-tap link did not answer: the question changed since the notification was sent. "
    "Read it again and answer the new version.",
    "no-recommendation": "The one-tap link did not answer: not every question has a recommendation. "
    "Choose for the questions without one.",
    "answered": "The one-tap link did not answer: the question is answered already.",
}


class RateLimiter:
    """At most `limit` attempts of a kind per client address in a sliding `window`."""

    def __init__(self, limits: Mapping[str, tuple[int, float]]) -> None:
        self.limits = dict(limits)
        self.seen: dict[tuple[str, str], deque[float]] = {}

    def retry_after(self, kind: str, who: str, now: float | None = None) -> float | None:
        """Note one attempt; None when allowed, else the seconds until the next is."""
        limit, window = self.limits[kind]
        now = time.monotonic() if now is None else now
        times = self.seen.setdefault((kind, who), deque())
        while times and times[0] <= now - window:
            times.popleft()
        if len(times) >= limit:
            return max(times[0] + window - now, 1.0)
        times.append(now)
        if len(self.seen) > 4096:  # forget idle addresses
            for key in [k for k, v in self.seen.items() if not v]:
                del self.seen[key]
        return None


@dataclass
class Hub:
    """The answer page's settings and what it keeps between requests."""

    service_factory: Callable[[], Service]
    state_dir: Path
    public_url: str | None
    link_ttl_s: float
    bind_host: str
    port: int
    limits: Mapping[str, tuple[int, float]] = field(default_factory=lambda: dict(RATE_LIMITS))
    key: bytes = b""
    names: frozenset[str] = frozenset()
    origins: tuple[str, ...] = ()
    base_url: str = ""
    limiter: RateLimiter = field(init=False)
    last_view: Any = None  # the QueueView the list last showed (`read_list`)

    def __post_init__(self) -> None:
        self.key = hub_key(self.state_dir)
        self.limiter = RateLimiter(self.limits)
        self.bound(self.port)

    def bound(self, port: int) -> None:
        """The names, origins and address of the hub listening on `port` (`--port 0`: the
        port the system gave, learnt from the first connection)."""
        self.port = port
        local = f"http://{page_host(self.bind_host)}:{self.port}"
        self.base_url = (self.public_url or local).rstrip("/")
        extra: list[str] = []
        if self.public_url:
            netloc = urlsplit(self.public_url).netloc.lower()
            extra.append(netloc)
        self.names = host_names(self.bind_host, self.port, extra)
        first = urlsplit(self.base_url)
        local = sorted(f"{scheme}://{n}" for n in self.names for scheme in ("http", "https"))
        self.origins = (f"{first.scheme}://{first.netloc}".lower(), *local)

    def csrf(self, purpose: str, subject: str) -> str:
        mac = hmac.new(self.key, f"csrf\x1f{purpose}\x1f{subject}".encode(), hashlib.sha256).hexdigest()
        return mac[:40]

    def csrf_ok(self, given: object, purpose: str, subject: str) -> bool:
        return isinstance(given, str) and hmac.compare_digest(given.encode(), self.csrf(purpose, subject).encode())

    def secure(self, request: web.Request) -> bool:
        """Whether the browser reached the hub over HTTPS (the public URL, through a tunnel
        or proxy that speaks HTTPS): the cookie is then Secure."""
        public = urlsplit(self.public_url or "")
        return public.scheme == "https" and request.host.lower() == public.netloc.lower()


HUB = web.AppKey("atk_hub_web", Hub)


# --------------------------------------------------------------------------- building the app


def build_app(
    service_factory: Callable[[], Service],
    *,
    state_dir: Path,
    public_url: str | None,
    link_ttl_s: float,
    bind_host: str,
    port: int,
    rate_limits: Mapping[str, tuple[int, float]] | None = None,
) -> web.Application:
    """The answer page for the hub's process. `service_factory()`: a Service of the store (one
    per request, run in a worker thread); `state_dir`: the hub's (`hub.paths.state_dir`);
    `public_url`: the address the person's browser uses (a tunnel's, e.g.
    https://laptop.tailnet.ts.net), else http://BIND:PORT; `link_ttl_s`: how long a one-tap
    link works; `rate_limits`: {"pair"|"link": (attempts, window seconds)}."""
    hub = Hub(service_factory, Path(state_dir), public_url, float(link_ttl_s), bind_host, int(port),
              dict(rate_limits or RATE_LIMITS))  # fmt: skip
    if hub.public_url or hub.port:  # --port 0: said once the first connection tells the port (_guard)
        save_address(hub.state_dir, hub.base_url)
    app = web.Application(middlewares=[_headers, _guard], client_max_size=256 * 1024)
    app[HUB] = hub
    app.router.add_get("/", list_view)
    app.router.add_get("/static/page.css", css)
    app.router.add_get("/static/atk-mono-cjk.woff2", font)
    app.router.add_get("/i/{queue}/{filename}", item_view)
    app.router.add_post("/i/{queue}/{filename}/answer", answer)
    app.router.add_post("/i/{queue}/{filename}/comment", comment)
    app.router.add_get("/a/{queue}/{filename}", accept_view)
    app.router.add_post("/a/{queue}/{filename}", accept)
    app.router.add_get("/pair/{code}", pair_view)
    app.router.add_post("/pair/{code}", pair)
    return app


def _hub(request: web.Request) -> Hub:
    return request.app[HUB]


def _html(text: str, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html", charset="utf-8", headers=headers)


def _secure_headers(request: web.Request, response: web.StreamResponse) -> None:
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    # not "no-referrer": with it a browser posts a form with `Origin: null` (the Fetch rules), which the
    # Origin check refuses; "same-origin" sends no address (a link's signature) to anyone else
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Frame-Options"] = "DENY"
    if not request.path.startswith("/static/"):
        response.headers["Cache-Control"] = "no-store"


def _redirect(location: str) -> web.Response:
    return web.Response(status=303, headers={"Location": location})


@web.middleware
async def _headers(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        _secure_headers(request, exc)
        raise
    _secure_headers(request, response)
    return response


@web.middleware
async def _guard(request: web.Request, handler: Any) -> web.StreamResponse:
    hub = _hub(request)
    if hub.port == 0:  # listening on a port the system chose: the one this connection reached
        sockname = request.transport.get_extra_info("sockname") if request.transport else None
        if sockname:
            hub.bound(int(sockname[1]))
            save_address(hub.state_dir, hub.base_url)
    reason = origin_refusal(
        request.method,
        request.headers,
        hub.names,
        hub.origins,
        page="this hub's page",
        origin_optional=request.path.startswith("/a/"),
    )
    if reason is not None:
        return _html(message_page("Refused", Status("bad", "Refused", (f"Refused: {reason}. Nothing was written.",))), 403)
    kind = "pair" if request.path.startswith("/pair/") else "link" if request.path.startswith("/a/") else None
    if kind is not None:
        wait = hub.limiter.retry_after(kind, request.remote or "?")
        if wait is not None:
            said = f"Too many {kind} attempts from this address; try again in {int(wait) + 1} s. Nothing was written."
            return _html(message_page("Slow down", Status("bad", "Too many attempts", (said,))), 429,
                         {"Retry-After": str(int(wait) + 1)})  # fmt: skip
    return await handler(request)


async def css(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC / "page.css", headers={"Content-Type": "text/css; charset=utf-8"})


async def font(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(CJK_FONT, headers={"Content-Type": "font/woff2"})


# --------------------------------------------------------------------------- who is asking


def _device(request: web.Request) -> devs.Device | None:
    return devs.device_for(_hub(request).state_dir, request.cookies.get(COOKIE))


def _target(request: web.Request) -> tuple[str, str]:
    queue, filename = request.match_info["queue"], request.match_info["filename"]
    if queue not in QUEUES or not is_valid_filename(filename):
        raise web.HTTPNotFound(text="no such item", content_type="text/plain")
    return queue, filename


async def _run(request: web.Request, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """`fn(service, ...)` in a worker thread with a new Service of the store."""
    factory = _hub(request).service_factory

    def call() -> Any:
        return fn(factory(), *args, **kw)

    return await asyncio.to_thread(call)


def _trailers(device: devs.Device | None, via: str | None = None) -> tuple[str, ...]:
    out = []
    if device is not None:
        out.append(f"Atk-Device: {device.name}")
    if via:
        out.append(f"Atk-Via: {via}")
    return tuple(out)


# --------------------------------------------------------------------------- reading


async def list_view(request: web.Request) -> web.StreamResponse:
    device = _device(request)
    if device is None:
        return _html(unpaired_page(), 401)
    needs, others, notes = await _run(request, read_list, _hub(request))
    return _html(list_page(needs, others, device=device.name, notes=notes))


async def _item_response(
    request: web.Request, device: devs.Device, queue: str, filename: str, *,
    status: Status | None = None, form: Form | None = None, code: int = 200,
) -> web.Response:  # fmt: skip
    hub = _hub(request)
    try:
        view, _ = await _run(request, read_item, queue, filename)
    except AtkError as exc:
        lines = (exc.message, *(status.lines if status else ()))
        st = Status("bad", status.heading if status else "No such item", lines, (("/", "Back to the list"),))
        return _html(message_page("Not found", st, device=device.name), 404 if status is None else code)
    return _html(item_page(view, csrf=hub.csrf("device", device.id), device=device.name, status=status, form=form), code)


async def item_view(request: web.Request) -> web.StreamResponse:
    queue, filename = _target(request)
    device = _device(request)
    if device is None:
        why = WHY.get(request.query.get("why", ""))
        return _html(unpaired_page(why or ""), 401)
    why = WHY.get(request.query.get("why", ""))
    status = Status("warn", "Not answered by the link", (why,)) if why else None
    return await _item_response(request, device, queue, filename, status=status)


# --------------------------------------------------------------------------- writing


def _form_of(post: Mapping[str, Any]) -> Form:
    choices: dict[int, str] = {}
    for key, value in post.items():
        if key.startswith("q") and key[1:].isdigit() and isinstance(value, str):
            v = value.strip()
            choices[int(key[1:])] = v if v == "other" or (len(v) == 1 and v.isalpha()) else ""
    text = post.get("text")
    return Form(choices, text.replace("\r\n", "\n") if isinstance(text, str) else "", post.get("partial") == "1")


async def _posted(request: web.Request) -> tuple[devs.Device | None, Mapping[str, Any], web.Response | None]:
    """The device and form of a POST to an item, or the response refusing it."""
    device = _device(request)
    if device is None:
        return None, {}, _html(unpaired_page(), 401)
    post = await request.post()
    if not _hub(request).csrf_ok(post.get("csrf"), "device", device.id):
        st = Status("bad", "Refused", ("Refused: the form's CSRF token is missing or wrong. Nothing was written.",),
                    (("/", "Back to the list"),))  # fmt: skip
        return device, post, _html(message_page("Refused", st, device=device.name), 403)
    return device, post, None


async def answer(request: web.Request) -> web.StreamResponse:
    queue, filename = _target(request)
    device, post, refused = await _posted(request)
    if refused is not None:
        return refused
    assert device is not None
    form = _form_of(post)
    shown = str(post.get("digest", ""))
    try:
        out = await _run(request, write_answer, queue, filename, form, shown, _trailers(device))
    except AtkError as exc:
        from atk_tui.service import Outcome

        out = Outcome(False, "answer", exc.message, (filename,), code=exc.code or "missing")
    status = outcome_status(out, queue, filename, "Answer")
    if out.ok:
        return _html(message_page("Answered", with_answer(status, out), device=device.name))
    keep = Form({} if out.code == "changed" else form.choices, form.text, form.partial)
    return await _item_response(request, device, queue, filename, status=status, form=keep, code=409)


async def comment(request: web.Request) -> web.StreamResponse:
    queue, filename = _target(request)
    device, post, refused = await _posted(request)
    if refused is not None:
        return refused
    assert device is not None
    text = str(post.get("text", "")).replace("\r\n", "\n")
    try:
        out = await _run(request, write_comment, queue, filename, text, str(post.get("digest", "")), _trailers(device))
    except AtkError as exc:
        from atk_tui.service import Outcome

        out = Outcome(False, "comment", exc.message, (filename,), code=exc.code or "missing")
    status = outcome_status(out, queue, filename, "Comment")
    if out.ok:
        return _html(message_page("Commented", status, device=device.name))
    return await _item_response(request, device, queue, filename, status=status, form=Form(text=text), code=409)


# --------------------------------------------------------------------------- one tap


def _link_refused(request: web.Request, refusal: links.Refusal, device: devs.Device | None) -> web.Response:
    queue, filename = _target(request)
    todo = "Nothing was written."
    opened = ((item_href(queue, filename), "Open the question"),) if device else ()
    status = {"tampered": 403, "expired": 410, "spent": 409}[refusal.code]
    st = Status("bad", "Refused: " + refusal.reason, (todo,), opened)
    return _html(message_page("Link refused", st, device=device.name if device else None), status)


async def accept_view(request: web.Request) -> web.StreamResponse:
    """A one-tap link opened in a browser: a page with one button (a GET never writes: link
    previews and prefetches open links too)."""
    queue, filename = _target(request)
    hub = _hub(request)
    link = links.Link.from_query(queue, filename, request.query)
    device = _device(request)
    refusal = await asyncio.to_thread(links.check, hub.state_dir, link, ttl_s=hub.link_ttl_s)
    if refusal is not None:
        return _link_refused(request, refusal, device)
    try:
        plan = await _run(request, plan_accept, link)
    except AtkError as exc:
        return _html(message_page("Not found", Status("bad", "No such question", (exc.message,))), 404)
    if plan.why:
        return _not_accepted(request, plan, device, browser=True)
    action = f"/a/{queue}/{quote(filename, safe='')}?{link.query}"
    return _html(confirm_page(plan.title, plan.shown, action, hub.csrf("link", link.sig), device=device.name if device else None))


def _not_accepted(request: web.Request, plan: Plan, device: devs.Device | None, *, browser: bool) -> web.Response:
    queue, filename = _target(request)
    target = f"{item_href(queue, filename)}?why={plan.why}"
    if browser:
        return _redirect(target)
    st = Status("warn", "Not answered", (f"Not answered: {plan.detail}. Nothing was written.", WHY[plan.why]),
                ((target, "Open the question"),))  # fmt: skip
    return _html(message_page("Not answered", st, device=device.name if device else None), 409)


async def accept(request: web.Request) -> web.StreamResponse:
    """The one-tap answer: a notification app's HTTP action (no Origin, no cookie) or the
    confirm page's button (same origin, with its CSRF token)."""
    queue, filename = _target(request)
    hub = _hub(request)
    link = links.Link.from_query(queue, filename, request.query)
    device = _device(request)
    browser = "Origin" in request.headers
    refusal = await asyncio.to_thread(links.check, hub.state_dir, link, ttl_s=hub.link_ttl_s)
    if refusal is not None:
        return _link_refused(request, refusal, device)
    if browser:
        post = await request.post()
        if not hub.csrf_ok(post.get("csrf"), "link", link.sig):
            st = Status("bad", "Refused", ("Refused: the form's CSRF token is missing or wrong. Nothing was written.",))
            return _html(message_page("Refused", st), 403)
    if not await asyncio.to_thread(links.spend, hub.state_dir, link, ttl_s=hub.link_ttl_s):
        return _link_refused(request, links.Refusal("spent", "this link was used already"), device)
    try:
        plan, out = await _run(request, accept_now, link, _trailers(device, "one-tap link"))
    except AtkError as exc:
        await asyncio.to_thread(links.unspend, hub.state_dir, link)
        return _html(message_page("Not found", Status("bad", "No such question", (exc.message, "Nothing was written."))), 404)
    if out is None or (not out.ok and out.commit is None):
        await asyncio.to_thread(links.unspend, hub.state_dir, link)  # nothing written: the link may be tapped again
    if out is None:
        return _not_accepted(request, plan, device, browser=browser)
    status = with_answer(outcome_status(out, queue, filename, "Accepted the recommendation"), out)
    if out.ok:
        return _html(message_page("Accepted", status, device=device.name if device else None))
    return _html(message_page("Not saved", status, device=device.name if device else None), 409)


# --------------------------------------------------------------------------- pairing


async def pair_view(request: web.Request) -> web.StreamResponse:
    hub = _hub(request)
    code = request.match_info["code"]
    refusal = await asyncio.to_thread(devs.pairing_refusal, hub.state_dir, code)
    if refusal:
        return _html(pair_page(code, "", refusal=refusal), 403)
    return _html(pair_page(code, hub.csrf("pair", code)))


async def pair(request: web.Request) -> web.StreamResponse:
    hub = _hub(request)
    code = request.match_info["code"]
    post = await request.post()
    if not hub.csrf_ok(post.get("csrf"), "pair", code):
        return _html(pair_page(code, "", refusal="Refused: the form's CSRF token is missing or wrong. Not paired."), 403)
    try:
        device, credential = await asyncio.to_thread(devs.pair, hub.state_dir, code, str(post.get("name", "")))
    except devs.PairError as exc:
        return _html(pair_page(code, "", refusal=str(exc)), 403)
    response = _redirect("/")
    response.set_cookie(COOKIE, credential, max_age=COOKIE_MAX_AGE, path="/", httponly=True,
                        samesite="Strict", secure=hub.secure(request))  # fmt: skip
    response.text = f"paired as {html.escape(device.name)}"
    return response
