"""Real remotes for many-clone tests: a bare repository served by `git daemon` on 127.0.0.1
(git://, an ephemeral port, pushes enabled), a TCP relay in front of it that adds latency and
drops connections, and a remote that never answers."""

from __future__ import annotations

import contextlib
import random
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from support.storekit import git

START_WAIT = 30.0  # seconds for the daemon to listen (never hit when all is well)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_listening(port: int, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"git daemon exited with {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@contextlib.contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """`git daemon` serving every bare repository under `base` on 127.0.0.1 (receive-pack
    on); yields the URL prefix `git://127.0.0.1:PORT` (append `/name.git`)."""
    for attempt in range(5):
        port = _free_port()
        proc = subprocess.Popen(
            ["git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack", f"--base-path={base}",
             "--listen=127.0.0.1", f"--port={port}", "--informative-errors", str(base)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            _wait_listening(port, proc)
        except RuntimeError:
            proc.kill()
            proc.wait()
            if attempt == 4:
                raise
            continue
        break
    try:
        yield f"git://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class FlakyRelay:
    """A TCP relay on 127.0.0.1 to `target_port` that delays each connection by `latency`
    seconds and refuses (closes at once) a fraction `drop` of them, from a seeded random
    source: a slow, unreliable network in front of a real git daemon."""

    def __init__(self, target_port: int, *, latency: float = 0.05, drop: float = 0.2, seed: int = 7) -> None:
        self.target = target_port
        self.latency, self.drop = latency, drop
        self.rng = random.Random(seed)
        self.dropped = self.relayed = 0
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self.rng.random() < self.drop:
                self.dropped += 1
                conn.close()
                continue
            self.relayed += 1
            threading.Thread(target=self._relay, args=(conn,), daemon=True).start()

    def _relay(self, conn: socket.socket) -> None:
        time.sleep(self.latency)
        try:
            up = socket.create_connection(("127.0.0.1", self.target), timeout=30)
        except OSError:
            conn.close()
            return

        def pump(a: socket.socket, b: socket.socket) -> None:
            try:
                while data := a.recv(65536):
                    b.sendall(data)
            except OSError:
                pass
            finally:
                with contextlib.suppress(OSError):
                    b.shutdown(socket.SHUT_WR)

        t = threading.Thread(target=pump, args=(up, conn), daemon=True)
        t.start()
        pump(conn, up)
        t.join(timeout=60)
        conn.close()
        up.close()

    def close(self) -> None:
        self._stop.set()
        self.sock.close()
        self._thread.join(timeout=5)


class SilentRemote:
    """A TCP port on 127.0.0.1 that accepts connections and never says a word: a remote
    that hangs (git:// to it waits until the read's time limit)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.url = f"git://127.0.0.1:{self.port}/store.git"

    def close(self) -> None:
        self.sock.close()


def bare_with_clones(tmp: Path, names: tuple[str, ...] = ("a", "b")) -> tuple[Path, dict[str, Path]]:
    """A bare remote holding a new store, and a clone of it per name (the first one made
    it, the rest cloned), each with upstream `origin/main`."""
    from support.storekit import clone, make_remote_pair

    first, remote = make_remote_pair(tmp, names[0])
    clones = {names[0]: first}
    for name in names[1:]:
        clones[name] = clone(remote, tmp / name)
        git(clones[name], "config", "user.name", f"clone {name}")
        git(clones[name], "config", "user.email", f"{name}@example.invalid")
    return remote, clones


def point_at(clones: dict[str, Path], url: str) -> None:
    """Every clone's `origin` set to `url` (the same remote reached another way)."""
    for root in clones.values():
        git(root, "remote", "set-url", "origin", url)
        git(root, "fetch", "-q", "origin")
