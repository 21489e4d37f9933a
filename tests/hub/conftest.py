"""Fixtures of the hub's tests: a shared remote with the person's clone (the hub's) and an
agent's clone, an ntfy stand-in, and the hub's own config and state homes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.hubkit import HubProcess, NtfyReceiver, hub_env, write_notify_config
from support.storekit import clone, make_remote_pair


@dataclass
class World:
    root: Path  # the person's clone: the hub follows it
    remote: Path
    agent: Path  # an agent's clone of the same remote
    home: Path
    env: dict[str, str]  # the person's (and the hub's) environment
    agent_env: dict[str, str]
    hubs: list[HubProcess]

    def configure(self, notify: dict) -> None:
        write_notify_config(self.home / "config", notify)

    def hub(self, *args: str) -> HubProcess:
        h = HubProcess(self.root, self.env, ("--port", "0", *args)).start()
        self.hubs.append(h)
        h.wait_for_line("looking every")
        return h


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    root, remote = make_remote_pair(tmp_path)
    agent = clone(remote, tmp_path / "agent")
    home = tmp_path / "home"
    w = World(root, remote, agent, home, hub_env(home), hub_env(home, agent=True), [])
    yield w
    for h in w.hubs:
        if h.proc is not None and h.proc.poll() is None:
            h.stop()


@pytest.fixture
def ntfy() -> Iterator[NtfyReceiver]:
    rx = NtfyReceiver()
    yield rx
    rx.close()
