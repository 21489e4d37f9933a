"""The hub in tests (tests/hub, bench/hub_latency.py): a local HTTP receiver standing in for an
ntfy server, a real SMTP server (aiosmtpd), the config file's `[notify]` table, and `atk hub`
as a real process on loopback with its log read line by line.

No part of the product is replaced: apprise publishes to the receiver exactly as it would to
ntfy.sh (`ntfy://127.0.0.1:PORT/topic` is ntfy over plain HTTP), and sends mail to the SMTP
server as it would to any.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ATK = Path(sys.executable).with_name("atk")


@dataclass
class Published:
    """One POST the receiver took: what apprise's ntfy plugin published."""

    at: float
    path: str
    headers: dict[str, str]
    payload: dict[str, Any]

    @property
    def title(self) -> str:
        return str(self.payload.get("title", ""))

    @property
    def message(self) -> str:
        return str(self.payload.get("message", ""))

    @property
    def topic(self) -> str:
        return str(self.payload.get("topic", ""))

    @property
    def priority(self) -> str | None:
        return self.headers.get("x-priority")

    @property
    def actions(self) -> str:
        return self.headers.get("x-actions", "")

    @property
    def click(self) -> str | None:
        return self.headers.get("x-click")

    def text(self) -> str:
        """Everything the phone would show or carry."""
        return "\n".join([self.title, self.message, self.actions, self.click or ""])


class NtfyReceiver:
    """An HTTP server on 127.0.0.1 that records what is published to it. `mode`: "ok" (200,
    as ntfy answers), "fail" (500), "hang" (answers nothing for `hang_s`)."""

    def __init__(self, mode: str = "ok", hang_s: float = 30.0) -> None:
        self.mode = mode
        self.hang_s = hang_s
        self.got: list[Published] = []
        self.attempts = 0
        self.lock = threading.Lock()
        kit = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                with kit.lock:
                    kit.attempts += 1
                    mode = kit.mode
                if mode == "hang":
                    time.sleep(kit.hang_s)
                    return
                if mode == "fail":
                    body = b'{"code":50001,"http":500,"error":"the test receiver fails on purpose"}'
                    self.send_response(500)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                try:
                    payload = json.loads(raw.decode("utf-8"))
                except ValueError:
                    payload = {"raw": raw.decode("utf-8", "replace")}
                with kit.lock:
                    kit.got.append(Published(time.time(), self.path, {k.lower(): v for k, v in self.headers.items()}, payload))
                body = json.dumps({"id": "x", "time": int(time.time()), "event": "message"}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, topic: str = "atk") -> str:
        return f"ntfy://127.0.0.1:{self.port}/{topic}"

    def received(self) -> list[Published]:
        with self.lock:
            return list(self.got)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class SmtpReceiver:
    """A real SMTP server (aiosmtpd) on 127.0.0.1 that keeps every message it is given."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.messages: list[Any] = []
        kit = self

        class Keep:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                from email import message_from_bytes, policy

                kit.messages.append(message_from_bytes(envelope.content, policy=policy.default))
                return "250 OK"

        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.controller = Controller(Keep(), hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def url(self, to: str = "me@example.invalid") -> str:
        return f"mailto://127.0.0.1:{self.port}?from=hub@example.invalid&to={to}&mode=insecure"

    def close(self) -> None:
        self.controller.stop()


def write_notify_config(config_home: Path, notify: dict[str, Any], extra: str = "") -> Path:
    """The config file with this `[notify]` table (values: strings, numbers, booleans, lists of
    strings, and sub-tables of those)."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(str(v))

    lines = ["[notify]"]
    subs = {k: v for k, v in notify.items() if isinstance(v, dict)}
    lines += [f"{k} = {value(v)}" for k, v in notify.items() if not isinstance(v, dict)]
    for name, table in subs.items():
        lines.append(f'\n[notify."{name}"]')
        lines += [f"{k} = {value(v)}" for k, v in table.items()]
    path = config_home / "atk" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(extra + "\n".join(lines) + "\n")
    return path


@dataclass
class HubProcess:
    """`atk hub --store STORE` running as its own process, its stdout read line by line."""

    store: Path
    env: dict[str, str]
    args: tuple[str, ...] = ()
    lines: list[str] = field(default_factory=list)
    proc: subprocess.Popen[str] | None = None
    _q: queue.Queue[str] = field(default_factory=queue.Queue)

    def start(self) -> HubProcess:
        self.proc = subprocess.Popen(
            [str(ATK), "hub", "--store", str(self.store), *self.args], env=self.env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

        def read() -> None:
            assert self.proc is not None and self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line.rstrip("\n"))
                self._q.put(line)

        threading.Thread(target=read, daemon=True).start()
        return self

    def wait_for_line(self, needle: str, timeout: float = 30.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in list(self.lines):
                if needle in line:
                    return line
            if self.proc is not None and self.proc.poll() is not None and not any(needle in ln for ln in self.lines):
                time.sleep(0.2)
                if not any(needle in ln for ln in self.lines):
                    raise AssertionError(f"the hub exited ({self.proc.returncode}) without {needle!r}:\n" + "\n".join(self.lines))
            time.sleep(0.05)
        raise AssertionError(f"no {needle!r} in the hub's log within {timeout} s:\n" + "\n".join(self.lines))

    def count(self, needle: str) -> int:
        return sum(1 for ln in self.lines if needle in ln)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            rc = self.proc.wait()
            raise AssertionError("the hub did not stop on " + signal.Signals(sig).name + ":\n" + "\n".join(self.lines)) from None
        time.sleep(0.1)
        return rc


def wait_until(check: Callable[[], Any], timeout: float = 30.0, what: str = "the condition") -> Any:
    """Poll `check` until it returns something true (returned), or fail naming `what`."""
    end = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > end:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.05)


def hub_env(home: Path, *, agent: bool = False) -> dict[str, str]:
    """The environment of a hub (or an agent) process in a test: its own config and state
    homes under `home`, no agent variable unless `agent`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT", "ATK_AGENT_ID", "ATK_LOOP_SESSION")}  # fmt: skip
    env["XDG_CONFIG_HOME"] = str(home / "config")
    env["XDG_STATE_HOME"] = str(home / "state")
    env["PYTHONUNBUFFERED"] = "1"
    env["ATK_READ_WINDOW"] = "0"  # a read asks the remote every time: what one clone pushed, the next command sees
    if agent:
        env["CLAUDECODE"] = "1"
    return env


def atk(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`atk ARGS` as its own process."""
    return subprocess.run([str(ATK), *args], env=env, text=True, capture_output=True, check=False, cwd=cwd)


QUESTION = """# Which database should the audit log use?

## 背景
The audit log grows by 2 GB a day. SECRET-CONTEXT-abc123 must never leave the store.

## 質問
Where should the audit log live?

- A) Postgres partitioned tables -- one system to run
- B) ClickHouse -- fast scans, one more system

推奨: A) Postgres partitioned tables
"""


def file_question(env: dict[str, str], clone: Path, *, title: str = "", urgency: str = "blocking",
                  answer_by: str | None = None, body: str = QUESTION, repo: str = "acme/webapp") -> str:  # fmt: skip
    """An agent on `clone` files a question (`atk wi add`, committed and pushed); its filename."""
    text = body if not title else body.replace("Which database should the audit log use?", title, 1)
    path = clone.parent / f".q-{time.monotonic_ns()}.md"
    path.write_text(text)
    args = ["wi", "add", "--store", str(clone), "--kind", "uwi", "--target-repo", repo, "--source", "agent",
            "--urgency", urgency, "--body-file", str(path)]  # fmt: skip
    if answer_by:
        args += ["--answer-by", answer_by]
    got = atk(env, *args)
    path.unlink()
    assert got.returncode == 0, got.stderr
    return got.stdout.split()[0] if not got.stdout.startswith("{") else json.loads(got.stdout.splitlines()[0])["filename"]


def hub_status(env: dict[str, str], store: Path) -> dict[str, Any]:
    """`atk hub status --json` for `store`."""
    got = atk(env, "hub", "status", "--store", str(store), "--json")
    assert got.returncode == 0, got.stderr
    return json.loads(got.stdout)


def read_status(env: dict[str, str], store: Path) -> dict[str, Any]:
    """The hub's status.json as it is now ({} before the first)."""
    from atk_tui.hub.paths import store_key

    path = Path(env["XDG_STATE_HOME"]) / "atk" / "hub" / store_key(store) / "status.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def wait_for_looks(env: dict[str, str], hub: HubProcess, more: int = 3, timeout: float = 30.0) -> dict[str, Any]:
    """Wait until the running `hub` has looked at its store `more` more times than now (after
    what it saw then, everything it would send is queued); its status then."""
    assert hub.proc is not None

    def mine() -> dict[str, Any]:
        got = read_status(env, hub.store)
        return got if got.get("pid") == hub.proc.pid and not got.get("stopped") else {}

    start = mine().get("looks", 0)
    return wait_until(lambda: (s := mine()).get("looks", 0) >= start + more and s, timeout, f"{more} more looks at the store")


def answer_as_person(env: dict[str, str], store: Path, name: str, letter: str = "A") -> None:
    """The person reads the question (`atk wi show`), then answers it (`atk wi answer`)."""
    shown = atk(env, "wi", "show", name, "--store", str(store))
    assert shown.returncode == 0, shown.stderr
    got = atk(env, "wi", "answer", name, "--choose", letter, "--store", str(store))
    assert got.returncode == 0, got.stderr
