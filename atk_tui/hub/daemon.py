"""`atk hub`: the resident process on the person's side (SPEC §16).

Every `poll` seconds it looks at the remote through the same path as a read (`freshen`: one
`git ls-remote`, a fetch and a fast-forward only when the remote moved; never a merge), and
when the store changed it loads the queue (`Service.queue`, incrementally) and the notices.
What needs the person and is new to it becomes one notification (routed by urgency: at once,
in the next digest, or not pushed), a question near its deadline one more; what was answered
meanwhile is dropped before it is sent. What it told the person is kept in its state
directory, so a restart repeats nothing.

Sending runs in worker threads, one at a time per target, bounded by apprise's time limits;
a failing target keeps its outbox, is tried again with backoff and is reported once per
streak. Nothing here takes the store lock but a read's fast-forward (bounded, as a read's),
so the dashboard, the CLI and writes are never held up.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from atk_tui.hub import notify
from atk_tui.hub.config import NotifySettings
from atk_tui.hub.notify import Message, Target, ago_words, one_line
from atk_tui.hub.state import ANNOUNCED, STATUS, RunLock, iso_time, read_json, write_json
from atk_tui.service.history.deadlines import deadline

#: on its first look ever, more questions than this already waiting are announced in one summary
FIRST_LOOK_MAX = 5


class HubError(Exception):
    """Why the hub cannot start (a second hub, a bad config): said on stderr, exit 1."""


class Hub:
    """One hub for one store. `run()` until `stop()` (or SIGINT/SIGTERM)."""

    def __init__(
        self,
        root: Path,
        settings: NotifySettings,
        state_dir: Path,
        *,
        bind: str = "127.0.0.1",
        port: int = 8765,
        public_url: str | None = None,
        web: bool = True,
        log: Callable[[str], None] = print,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.root = Path(root)
        self.settings = settings
        self.state_dir = state_dir
        self.bind, self.port, self.public_url = bind, port, public_url
        self.want_web = web
        self._log = log
        self.clock = clock
        self.mu = threading.RLock()
        self.targets: dict[str, Target] = {u: Target(u, notify.redact(u)) for u in settings.all_urls}
        saved = read_json(state_dir / ANNOUNCED)
        self.items: dict[str, dict[str, Any]] = saved.get("items", {}) if isinstance(saved.get("items"), dict) else {}
        self.notices: dict[str, float] = saved.get("notices", {}) if isinstance(saved.get("notices"), dict) else {}
        self.elsewhere: dict[str, float] = saved.get("elsewhere", {}) if isinstance(saved.get("elsewhere"), dict) else {}
        self.elsewhere_problem: str | None = None
        self.last_digest: float = float(saved.get("last_digest") or 0.0)
        for url, msgs in (saved.get("outbox") or {}).items():
            if url in self.targets and isinstance(msgs, list):
                self.targets[url].outbox = [Message(**{**m, "actions": tuple(tuple(a) for a in m.get("actions", ())),
                                                       "tags": tuple(m.get("tags", ()))}) for m in msgs]  # fmt: skip
        self.first_look = not (state_dir / ANNOUNCED).exists()
        self.view: Any = None
        self.signature: tuple | None = None
        self.pull_problem: str | None = None
        self.last_look: float | None = None
        self.last_failure: dict[str, Any] | None = saved.get("last_failure")
        self.web_url: str | None = None
        self.web_problem: str | None = None
        self.looks = 0
        self._lock = RunLock(state_dir)
        self._svc: Any = None
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pool = ThreadPoolExecutor(max_workers=max(2, len(self.targets) + 1), thread_name_prefix="atk-hub-send")
        self.started = self.clock()

    # ------------------------------------------------------------------ logging and state

    def log(self, line: str) -> None:
        stamp = datetime.now().astimezone().strftime("%H:%M:%S")
        self._log(f"{stamp} {line}")

    def service(self) -> Any:
        if self._svc is None:
            from atk_tui.service import Service

            self._svc = Service(self.root, actor="user")
        return self._svc

    def save(self) -> None:
        with self.mu:
            outbox = {
                url: [{"key": m.key, "title": m.title, "body": m.body, "priority": m.priority, "click": m.click,
                       "actions": [list(a) for a in m.actions], "tags": list(m.tags), "anytime": m.anytime}
                      for m in t.outbox]
                for url, t in self.targets.items() if t.outbox
            }  # fmt: skip
            data = {"items": self.items, "notices": self.notices, "last_digest": self.last_digest, "outbox": outbox,
                    "last_failure": self.last_failure, "elsewhere": self.elsewhere}  # fmt: skip
            data = json.loads(json.dumps(data))  # a copy, taken while nothing changes it
        write_json(self.state_dir / ANNOUNCED, data)

    def status(self) -> dict[str, Any]:
        now = self.clock()
        with self.mu:
            overdue = sorted(f for f, r in self.items.items() if r.get("due") is not None and now >= r["due"])
            return {
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "store": str(self.root),
                "started": iso_time(self.started),
                "last_look": iso_time(self.last_look),
                "poll_seconds": self.settings.poll,
                "looks": self.looks,
                "pull_problem": self.pull_problem,
                "web": self.web_url,
                "web_problem": self.web_problem,
                "elsewhere_problem": self.elsewhere_problem,
                "targets": [dict(t.record(), last_ok=iso_time(t.last_ok), last_fail=iso_time(t.last_fail),
                                 failing_since=iso_time(t.failing_since), retry_at=iso_time(t.retry_at) if t.failing_since else None)
                            for t in self.targets.values()],
                "waiting": len(self.items),
                "announced": sum(1 for r in self.items.values() if r.get("announced")),
                "overdue": overdue,
                "last_failure": self.last_failure,
            }

    def write_status(self) -> None:
        write_json(self.state_dir / STATUS, self.status())

    # ------------------------------------------------------------------ links

    def base_url(self) -> str | None:
        if self.public_url:
            return self.public_url.rstrip("/")
        return self.web_url

    def _links(self, item: Any, questions: Any) -> tuple[str | None, tuple[tuple[str, str, str], ...]]:
        base = self.base_url()
        if base is None:
            return None, ()
        try:
            from atk_tui.hub.web.links import accept_link, open_link
        except ImportError:
            return None, ()
        opened = open_link(base, item.queue, item.filename)
        actions: list[tuple[str, str, str]] = [("view", "Open", opened)]
        if questions and all(q.recommendation for q in questions):
            try:
                from atk_tui.service.writing.digest import question_digest

                link = accept_link(self.state_dir, base_url=base, queue=item.queue, filename=item.filename,
                                   content_digest=question_digest(item))  # fmt: skip
                actions.append(("http", "Accept recommended", link))
            except (ImportError, ValueError, OSError) as exc:
                self.log(f"no accept link for {item.filename}: {exc}")
        return opened, tuple(actions)

    # ------------------------------------------------------------------ what is announced

    def _question_message(self, item: Any, route: Any, now: float, *, due_soon: float | None = None) -> Message:
        from atk_tui.itemfile.questions import parse_questions

        questions = parse_questions(item.body).questions if item.body else ()
        created = item.created.timestamp() if item.created else now
        recs = []
        for q in questions:
            if q.recommendation:
                opt = q.option(q.recommendation)
                label = opt.display if opt else q.recommendation
                recs.append(label if len(questions) == 1 else f"{q.number}: {label}")
        noun = "question" if item.queue == "wi" else "TBD"
        lines = [f"{one_line(item.target_repo, 80)} · {item.urgency} {noun} · asked {ago_words(now - created)} ago"]
        lines.append(f"Recommended: {one_line('; '.join(recs), 160)}" if recs else "No recommended option")
        priority = route.priority
        title = one_line(item.title or item.filename)
        if due_soon is not None:
            left = due_soon - now
            lines.append(f"Overdue by {ago_words(-left)}" if left <= 0 else f"Answer by {ago_words(left)} from now")
            title = one_line(("Overdue: " if left <= 0 else "Due soon: ") + (item.title or item.filename))
            priority = {"min": "low", "low": "default", "default": "high", "high": "max", "max": "max"}[priority]
        click, actions = self._links(item, questions)
        key = f"{'due' if due_soon is not None else 'ask'}:{item.queue}/{item.filename}"
        return Message(key, title, "\n".join(lines), priority=priority, click=click, actions=actions,
                       tags=("question",) if due_soon is None else ("alarm_clock",),
                       anytime=route.during_quiet_hours)  # fmt: skip

    _batch: list[tuple[tuple[str, ...], Message]] | None = None

    def _queue(self, urls: tuple[str, ...], msg: Message) -> int:
        if self._batch is not None:
            self._batch.append((urls, msg))
            return len(urls)
        with self.mu:
            for url in urls:
                t = self.targets.get(url)
                if t is not None:
                    t.outbox.append(msg)
        if self._wake is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake.set)
        return len(urls)

    def _quiet_now(self, route: Any) -> bool:
        if route.during_quiet_hours or self.settings.quiet is None:
            return False
        return self.settings.in_quiet_hours(datetime.fromtimestamp(self.clock()).astimezone().time())

    def react(self, view: Any, notices: list[Any]) -> None:
        """What changed since the last look becomes notifications (see the module's doc)."""
        now = self.clock()
        svc = self.service()
        waiting = {f: view.items[f] for f in view.needs_you if f in view.items}
        with self.mu:
            # answered, moved out or removed: forget it, and drop what was not sent yet
            gone = [f for f in self.items if f not in waiting]
            for f in gone:
                self.items.pop(f, None)
            if gone:
                dead = {f"{kind}:{q}/{f}" for f in gone for kind in ("ask", "due") for q in ("wi", "mq")}
                for t in self.targets.values():
                    dropped = [m for m in t.outbox if m.key in dead]
                    if dropped:
                        t.outbox = [m for m in t.outbox if m.key not in dead]
                for f in gone:
                    self.log(f"answered or gone: {f} (nothing more is sent for it)")
        self._batch = [] if self.first_look else None
        for name, listed in waiting.items():
            with self.mu:
                rec = self.items.get(name)
            due_dt = deadline(listed, self._answer_by())
            due = due_dt.timestamp() if due_dt else None
            route = self.settings.route(listed.urgency)
            lead = route.remind_before.total_seconds() if route.remind_before else 0.0
            near = due is not None and now >= due - lead and route.push != "never"
            if rec is not None:
                rec["due"], rec["urgency"] = due, listed.urgency
                if not near or rec.get("reminded"):
                    continue
            try:
                item = svc.read(name, listed.state, listed.queue)
            except Exception as exc: # a file that vanished meanwhile: the next look
                self.log(f"could not read {name}: {exc}")
                continue
            repo, title = one_line(listed.target_repo, 60), one_line(item.title, 80)
            if rec is None:
                rec = {"seen": now, "urgency": listed.urgency, "due": due, "announced": None, "reminded": None,
                       "digest": None, "queue": listed.queue}  # fmt: skip
                if near:  # new and already near its deadline: one notification, the reminder
                    urls = tuple(dict.fromkeys((*route.urls, *route.escalate_urls)))
                    n = self._queue(urls, self._question_message(item, route, now, due_soon=due))
                    rec["announced"] = rec["reminded"] = now
                    self.log(f"new {listed.urgency} question {name} ({repo}), {'overdue' if now >= due else 'due soon'}: "
                             f"{title} → {n} target{'s' if n != 1 else ''}")  # fmt: skip
                elif route.push == "now" and route.urls:
                    n = self._queue(route.urls, self._question_message(item, route, now))
                    rec["announced"] = now
                    self.log(f"new {listed.urgency} question {name} ({repo}): {title} → {n} target{'s' if n != 1 else ''}")
                elif route.push == "digest" and route.urls:
                    self.log(f"new {listed.urgency} question {name} ({repo}): {title} → the next digest")
                else:
                    self.log(f"new {listed.urgency} question {name} ({repo}): {title} (not pushed: {route.push or 'no URLs'})")
                with self.mu:
                    self.items[name] = rec
                continue
            # near its deadline: once more, to the escalation list when there is one
            urls = route.escalate_urls or route.urls
            n = self._queue(urls, self._question_message(item, route, now, due_soon=due)) if urls else 0
            rec["reminded"] = now
            self.log(f"{'overdue' if now >= due else 'due soon'}: {name} ({repo}) {title} → {n} target{'s' if n != 1 else ''}")
        batch, self._batch = self._batch, None
        if batch is not None and len(batch) > FIRST_LOOK_MAX:
            # the hub's first start on a store where much already waits: one summary, not a flood
            urls = tuple(dict.fromkeys(u for us, _ in batch for u in us))
            lines = [f"- {m.title}" for _, m in batch[:15]] + ([f"… and {len(batch) - 15} more"] if len(batch) > 15 else [])
            self._queue(urls, Message(f"summary:{int(now)}", f"{len(batch)} questions are waiting for you", "\n".join(lines),
                                      priority="high", click=self.base_url(), tags=("inbox_tray",), anytime=True))  # fmt: skip
            self.log(f"first look: {len(batch)} questions already waiting → one summary to {len(urls)} target(s)")
        elif batch:
            for urls, msg in batch:
                self._queue(urls, msg)
        self._digest(waiting, now)
        self._notices(notices, now)
        self.save()

    def _answer_by(self) -> dict[str, timedelta | None]:
        return {k: r.answer_by for k, r in self.settings.routes.items()}

    def _digest(self, waiting: dict[str, Any], now: float) -> None:
        """Every `digest_every`: one notification per route set for what waits in a digest."""
        if now - self.last_digest < self.settings.digest_every.total_seconds():
            return
        by_urls: dict[tuple[str, ...], list[tuple[str, Any]]] = {}
        for name, item in waiting.items():
            route = self.settings.route(item.urgency)
            rec = self.items.get(name)
            if route.push != "digest" or not route.urls or rec is None or rec.get("digest"):
                continue
            if self._quiet_now(route):
                continue
            by_urls.setdefault(route.urls, []).append((name, item))
        if not by_urls:
            if self.last_digest == 0.0:
                self.last_digest = now  # the first digest comes one period after the hub starts
            return
        if self.last_digest == 0.0:
            self.last_digest = now
            return
        self.last_digest = now
        for urls, entries in by_urls.items():
            lines = []
            for name, item in entries:
                created = item.created.timestamp() if item.created else now
                lines.append(f"- {one_line(item.target_repo, 60)}: {one_line(item.title, 80)} ({item.urgency}, {ago_words(now - created)})")
                self.items[name]["digest"] = now
                self.items[name]["announced"] = now
            n = len(entries)
            base = self.base_url()
            msg = Message(f"digest:{int(now)}", f"{n} question{'s' if n != 1 else ''} for your next review",
                          "\n".join(lines[:20]) + (f"\n… and {n - 20} more" if n > 20 else ""),
                          priority="default", click=base, tags=("inbox_tray",))  # fmt: skip
            self._queue(urls, msg)
            self.log(f"digest: {n} question{'s' if n != 1 else ''} → {len(urls)} target{'s' if len(urls) != 1 else ''}")

    def _notices(self, notices: list[Any], now: float) -> None:
        route = self.settings.route("notice")
        present = {n.filename for n in notices}
        for f in [f for f in self.notices if f not in present]:
            self.notices.pop(f, None)
        for n in notices:
            if n.filename in self.notices:
                continue
            self.notices[n.filename] = now
            # (notices already there when the hub first starts are not news)
            if route.push == "now" and route.urls and not self.first_look:
                age = f" · {ago_words(now - n.created.timestamp())} ago" if n.created else ""
                msg = Message(f"notice:{n.filename}", one_line("Notice: " + n.title),
                              f"from {one_line(n.source or 'an agent', 60)}{age}", priority=route.priority,
                              click=self.base_url(), tags=("speech_balloon",))  # fmt: skip
                self._queue(route.urls, msg)
                self.log(f"notice {n.filename}: {one_line(n.title, 80)} → {len(route.urls)} target(s)")

    def react_elsewhere(self, found: Any) -> None:
        """What afkkit left for the person on GitHub and is new to the hub: one notification each
        (`[notify.elsewhere] push = "now"`); a row that no longer waits is forgotten."""
        route = self.settings.route("elsewhere")
        now = self.clock()
        problem = found.problem or None
        if problem != self.elsewhere_problem and problem:
            self.log(f"GitHub: {one_line(problem, 160)}")
        self.elsewhere_problem = problem
        if found.fetched is None:
            return
        rows = {f"{w.repo}#{w.number}:{w.label}": w for w in found.waiting}
        with self.mu:
            for key in [k for k in self.elsewhere if k not in rows]:
                self.elsewhere.pop(key, None)
        for key, w in rows.items():
            if key in self.elsewhere:
                continue
            self.elsewhere[key] = now
            since = f" · waiting {ago_words(now - w.since.timestamp())}" if w.since else ""
            msg = Message(f"gh:{key}", one_line(f"{w.repo}#{w.number}: {w.title}"),
                          f"GitHub {w.kind} · {one_line(w.label, 40)}{since}", priority=route.priority,
                          click=w.url if w.url.startswith("https://") else None, tags=("octopus",),
                          anytime=route.during_quiet_hours)  # fmt: skip
            n = self._queue(route.urls, msg)
            self.log(f"elsewhere: {w.repo}#{w.number} ({w.label}) {one_line(w.title, 80)} → {n} target{'s' if n != 1 else ''}")
        self.save()

    async def _elsewhere_loop(self) -> None:
        """Every `[elsewhere] interval` seconds (at least 10), a look at GitHub through `gh`
        (read-only, bounded by `[elsewhere] timeout`), as the dashboard's Elsewhere view looks."""
        svc = self.service()
        interval = max(float(svc.elsewhere.settings().interval or 300.0), 10.0)
        while True:
            view = self.view
            repos = sorted({i.target_repo for i in view.items.values()}) if view is not None else None
            try:
                found = await asyncio.to_thread(svc.elsewhere.refresh, repos)
                await asyncio.to_thread(self.react_elsewhere, found)
            except Exception as exc:  # one failed look never ends the hub
                self.log(f"elsewhere: the look failed: {type(exc).__name__}: {exc}")
            await asyncio.sleep(interval)

    # ------------------------------------------------------------------ looking at the store

    def look(self) -> None:
        """One look (in a worker thread): pull as a read does, and react when anything changed."""
        from atk_tui.service.reading.freshen import freshen
        from atk_tui.service.reading.watch import store_signature

        found = freshen(self.root, window=0)
        self.looks += 1
        if found.stale != self.pull_problem:
            if found.stale:
                self.log(f"the remote: {found.stale} (following the local copy meanwhile)")
            elif self.pull_problem:
                self.log("the remote answers again")
        self.pull_problem = found.stale
        sig = store_signature(self.root)
        svc = self.service()
        if sig != self.signature or self.view is None:
            self.view = svc.queue(previous=self.view)
            self.signature = sig
            notices = svc.notices()
            self._last_notices = notices
        else:
            notices = getattr(self, "_last_notices", [])
        self.react(self.view, notices)
        self.first_look = False
        self.last_look = self.clock()
        self.write_status()

    # ------------------------------------------------------------------ sending

    def _send_one(self, target: Target, msg: Message) -> None:
        reason = notify.send(target.url, msg)
        now = self.clock()
        with self.mu:
            target.busy = False
            if reason is None:
                target.outbox = [m for m in target.outbox if m is not msg]
                if target.succeeded(now):
                    self.log(f"target {target.name} works again; {len(target.outbox)} waiting to be sent")
                self.log(f"sent to {target.name}: {msg.title}")
            else:
                if target.failed(now, reason):
                    self.log(f"target {target.name} failed: {reason} (trying again with backoff; said once)")
                self.last_failure = {"target": target.name, "at": iso_time(now), "reason": reason}
        try:
            self.save()
            self.write_status()
        except OSError:
            pass
        if self._wake is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    async def _pump(self) -> None:
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        while True:
            now = self.clock()
            wait = 1.0
            with self.mu:
                for t in self.targets.values():
                    msg = self._next(t) if t.due(now) else None
                    if msg is not None:
                        t.busy = True
                        loop.run_in_executor(self._pool, self._send_one, t, msg)
                    elif t.outbox and not t.busy and now < t.retry_at:
                        wait = min(wait, max(t.retry_at - now, 0.05))
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=wait)
            except TimeoutError:
                pass

    def _next(self, target: Target) -> Message | None:
        """The first message of the target's outbox that may go now: in quiet hours only one
        whose urgency says `during_quiet_hours` (blocking, by default); the rest wait."""
        if not target.outbox:
            return None
        if self.settings.quiet is None or not self.settings.in_quiet_hours(
            datetime.fromtimestamp(self.clock()).astimezone().time()
        ):
            return target.outbox[0]
        return next((m for m in target.outbox if m.anytime), None)

    # ------------------------------------------------------------------ running

    async def _start_web(self) -> Any:
        if not self.want_web:
            return None
        try:
            from aiohttp import web

            from atk_tui.hub.web import build_app
        except ImportError as exc:
            self.web_problem = f"the answer page is not available in this build ({exc})"
            self.log(self.web_problem + "; notifications only")
            return None
        from atk_tui.service import Service

        app = build_app(lambda: Service(self.root, actor="user"), state_dir=self.state_dir, public_url=self.public_url,
                        link_ttl_s=self.settings.link_ttl.total_seconds(), bind_host=self.bind, port=self.port)  # fmt: skip
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.bind, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            self.web_problem = f"could not serve the answer page on {self.bind}:{self.port}: {exc.strerror or exc}"
            self.log(self.web_problem + "; notifications only")
            return None
        port = self.port
        sockets = getattr(site, "_server", None)
        if sockets is not None and getattr(sockets, "sockets", None):
            port = sockets.sockets[0].getsockname()[1]
        host = f"[{self.bind}]" if ":" in self.bind else self.bind
        self.web_url = f"http://{host}:{port}"
        self.log(f"the answer page: {self.web_url}" + (f" (public: {self.public_url})" if self.public_url else ""))
        return runner

    def stop(self) -> None:
        if self._stop is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)

    _stop: asyncio.Event | None = None

    async def run(self) -> int:
        held = self._lock.acquire()
        if held is not None:
            raise HubError(
                f"a hub already runs for this store (pid {held or 'unknown'}); `atk hub status` shows it"
            )
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._wake = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self._loop.add_signal_handler(sig, self._stop.set)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
        runner = None
        pump = gh = None
        try:
            self.write_status()  # `atk hub status` says it runs from here on
            names = ", ".join(t.name for t in self.targets.values()) or "none ([notify] urls in the config)"
            self.log(f"hub for {self.root} (pid {os.getpid()}); targets: {names}")
            if self.targets:  # apprise loads once, before the first question (about a second)
                await asyncio.to_thread(notify.load)
            runner = await self._start_web()
            self.write_status()
            self.log(f"looking every {self.settings.poll:g} s")
            pump = asyncio.create_task(self._pump())
            route = self.settings.route("elsewhere")
            gh = asyncio.create_task(self._elsewhere_loop()) if route.push == "now" and route.urls else None
            while not self._stop.is_set():
                try:
                    await asyncio.to_thread(self.look)
                except Exception as exc: # one bad look never ends the hub
                    self.log(f"look failed: {type(exc).__name__}: {exc}")
                try:
                    await asyncio.wait_for(self._stop.wait(), timeout=self.settings.poll)
                except TimeoutError:
                    pass
            self.log("stopping")
        finally:
            if pump is not None:
                pump.cancel()
            if gh is not None:
                gh.cancel()
            if runner is not None:
                await runner.cleanup()
            self._pool.shutdown(wait=False, cancel_futures=True)
            try:
                self.save()
                status = self.status()
                status["stopped"] = iso_time(self.clock())
                write_json(self.state_dir / STATUS, status)
            finally:
                self._lock.release()
        self.log("stopped")
        return 0
