"""A real `atk-tui --serve` for tests (issue 25), the clients that talk to it (plain HTTP with
any Host header, a real WebSocket client with any Origin and Host), and the short list of what
a web page the person visits could try (`SERVE_ATTACKS`): the browser tests, the hostile corpus
(tests/soak/test_hostile_corpus.py), the fault script (tests/support/faults.py) and
tests/browser/test_serve_guard.py use them."""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ATK_TUI = Path(sys.executable).with_name("atk-tui")
WAIT = 60.0  # seconds: a bound for what should take a moment (never reached when all is well)
EVIL = "evil.example"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """A running `atk-tui --serve` on 127.0.0.1:`port`; its output (stdout and stderr) read
    line by line as it comes, so a test can wait for a line rather than sleep."""

    def __init__(self, proc: subprocess.Popen, port: int) -> None:
        self.proc = proc
        self.port = port
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.url = ""
        self.token = ""

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self.lines.append("<exited>")
            self._cond.notify_all()

    def wait_for_line(self, pattern: str, start: int = 0, timeout: float = WAIT) -> str:
        """The first output line from `start` on that matches `pattern` (a regex)."""
        rx = re.compile(pattern)
        with self._cond:
            ok = self._cond.wait_for(
                lambda: any(rx.search(x) for x in self.lines[start:]) or "<exited>" in self.lines, timeout
            )
            found = [x for x in self.lines[start:] if rx.search(x)]
        if not found:
            why = "exited" if ok else "did not print it"
            raise AssertionError(f"atk-tui --serve {why}; no line matching {pattern!r} in:\n" + "\n".join(self.lines))
        return found[0]

    def mark(self) -> int:
        with self._cond:
            return len(self.lines)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def cookie(self) -> str:
        return f"atk-tui-token-{self.port}={self.token}"

    def get(
        self, path: str = "/", *, host: str | None = None, headers: dict[str, str] | None = None, method: str = "GET"
    ) -> http.client.HTTPResponse:
        """One plain HTTP request to the server, with the Host header given (a rebound DNS
        name reaches the same port with its own name)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT)
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host or f"127.0.0.1:{self.port}")
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.endheaders()
        resp = conn.getresponse()
        resp.read()
        conn.close()
        return resp

    def ws(
        self,
        *,
        origin: str | None,
        host: str | None = None,
        cookie: str | None = None,
        query: str = "",
        receive: bool = True,
    ) -> str:
        """Open the dashboard's WebSocket as a client would: "status 403" (the handshake's
        status when it is refused) or "open" (and, with `receive`, after the first frame the dashboard sends)."""
        from websockets.exceptions import InvalidStatus
        from websockets.sync.client import connect

        sock = socket.create_connection(("127.0.0.1", self.port), timeout=WAIT)
        uri = f"ws://{host or f'127.0.0.1:{self.port}'}/ws?width=80&height=24{query}"
        headers = {"Cookie": cookie} if cookie else {}
        try:
            with connect(
                uri,
                sock=sock,
                origin=origin,
                additional_headers=headers,
                proxy=None,
                open_timeout=WAIT,
                compression=None,
            ) as conn:
                if receive:
                    frame = conn.recv(timeout=WAIT)
                    assert frame, "the dashboard sent an empty frame"
                return "open"
        except InvalidStatus as exc:
            return f"status {exc.response.status_code}"
        finally:
            sock.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._reader.join(15)


@contextmanager
def serving(root: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """The real `atk-tui --serve --store ROOT` on a free port of 127.0.0.1, until the block
    ends; `Served.url` is the address it printed to open."""
    port = free_port()
    proc = subprocess.Popen(
        [str(ATK_TUI), "--serve", "--store", str(root), "--host", "127.0.0.1", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
        encoding="utf-8",
        errors="backslashreplace",
    )
    served = Served(proc, port)
    try:
        line = served.wait_for_line(r"atk-tui: serving .* (http://\S+)")
        served.url = re.search(r"(http://[^\s)]+)", line.split("serving", 1)[1]).group(1)  # type: ignore[union-attr]
        served.token = urllib.parse.parse_qs(urllib.parse.urlsplit(served.url).query).get("token", [""])[0]
        _wait_listening(served)
        yield served
    finally:
        served.stop()


def _wait_listening(served: Served) -> None:
    """Until the port takes a connection (the address is printed once it does; this only
    bounds the wait)."""
    for _ in range(int(WAIT / 0.05)):
        try:
            socket.create_connection(("127.0.0.1", served.port), timeout=WAIT).close()
            return
        except ConnectionRefusedError:
            if served.proc.poll() is not None:
                raise AssertionError("atk-tui --serve exited:\n" + "\n".join(served.lines)) from None
            threading.Event().wait(0.05)
    raise AssertionError("atk-tui --serve never listened")


# --------------------------------------------------------------------------------------------
# what a web page the person visits could try, in short form


@dataclass(frozen=True)
class Attack:
    """One request a foreign page (or a rebound DNS name) could make. `host`/`origin` may hold
    `{port}` and `{other}` (another local port); `token` is "cookie", "wrong-cookie",
    "other-port-cookie" (the right token in another port's cookie), "wrong-query",
    "right-query" or None; `reason` is what the refusal's log line must say."""

    name: str
    ws: bool
    origin: str | None
    reason: str
    host: str | None = None
    token: str | None = "cookie"
    path: str = "/"
    method: str = "GET"


SERVE_ATTACKS = [
    Attack("ws-foreign-origin", True, f"http://{EVIL}", f"Origin 'http://{EVIL}' is not this dashboard's page"),
    # same site as the dashboard (the cookie goes along), another port: another origin
    Attack("ws-other-local-port", True, "http://127.0.0.1:{other}", "Origin 'http://127.0.0.1:{other}' is not"),
    Attack("ws-null-origin", True, "null", "Origin 'null' is not"),
    Attack("ws-no-origin", True, None, "a WebSocket without an Origin header"),
    # DNS rebinding: the page's name now resolves to 127.0.0.1; Host and Origin are its own
    Attack(
        "ws-rebound-dns-name",
        True,
        f"http://{EVIL}:{{port}}",
        f"Host '{EVIL}:{{port}}' is not this server's",
        host=f"{EVIL}:{{port}}",
    ),
    Attack("ws-no-token", True, "{origin}", "no token", token=None),
    Attack("ws-wrong-token", True, "{origin}", "a wrong token in the cookie", token="wrong-cookie"),
    Attack(
        "page-rebound-dns-name", False, None, f"Host '{EVIL}:{{port}}' is not this server's", host=f"{EVIL}:{{port}}"
    ),
    Attack("page-no-token", False, None, "no token", token=None),
    Attack("page-wrong-token", False, None, "a wrong token in ?token=", token="wrong-query"),
    Attack("static-no-token", False, None, "no token", token=None, path="/static/js/textual.js"),
    Attack("post-foreign-origin", False, f"http://{EVIL}", f"Origin 'http://{EVIL}' is not", method="POST"),
    Attack("post-no-origin", False, None, "a 'POST' request without an Origin header", method="POST"),
    # the independent check's variants (issue 25): other names, ports, schemes and tokens
    Attack("ws-ipv6-literal-foreign-origin", True, f"http://{EVIL}", "Origin 'http://evil.example' is not",
           host="[::1]:{port}"),
    Attack("ws-right-host-wrong-port", True, "{origin}", "Host '127.0.0.1:{other}' is not this server's",
           host="127.0.0.1:{other}"),
    Attack("ws-host-without-port", True, "{origin}", "Host '127.0.0.1' is not this server's", host="127.0.0.1"),
    Attack("ws-https-origin", True, "https://127.0.0.1:{port}", "Origin 'https://127.0.0.1:{port}' is not"),
    Attack("ws-cookie-of-another-port", True, "{origin}", "no token (neither the cookie", token="other-port-cookie"),
    Attack("ws-query-token-foreign-origin", True, f"http://{EVIL}", "Origin 'http://evil.example' is not",
           token="right-query"),
    Attack("download-no-token", False, None, "no token", token=None, path="/download/x"),
    Attack("static-index-no-token", False, None, "no token", token=None, path="/static/"),
    Attack("delete-foreign-origin", False, f"http://{EVIL}", f"Origin 'http://{EVIL}' is not", method="DELETE"),
]  # fmt: skip


def run_attack(served: Served, attack: Attack, other_port: int = 1) -> str | None:
    """A problem (the attack got through, or its refusal was not logged), or None."""

    def fill(text: str) -> str:
        return text.format(port=served.port, other=other_port, origin=served.origin)

    origin = fill(attack.origin) if attack.origin is not None else None
    host = fill(attack.host) if attack.host is not None else None
    cookie = {
        "cookie": served.cookie,
        "wrong-cookie": f"atk-tui-token-{served.port}={'x' * 43}",
        "other-port-cookie": f"atk-tui-token-{other_port}={served.token}",
    }.get(attack.token or "")
    query = {"wrong-query": "&token=" + "x" * 43, "right-query": f"&token={served.token}"}.get(attack.token or "", "")
    start = served.mark()
    if attack.ws:
        got = served.ws(origin=origin, host=host, cookie=cookie, query=query, receive=False)
    else:
        headers = {"Cookie": cookie} if cookie else {}
        if origin is not None:
            headers["Origin"] = origin
        path = attack.path + ("?" + query[1:] if query else "")
        got = f"status {served.get(path, host=host, headers=headers, method=attack.method).status}"
    if got != "status 403":
        return f"{attack.name}: {got}, not refused (403)"
    try:
        served.wait_for_line("refused .*" + re.escape(fill(attack.reason)), start)
    except AssertionError:
        return f"{attack.name}: refused, but no log line saying {fill(attack.reason)!r}:\n" + "\n".join(
            served.lines[start:]
        )
    return None
