"""`atk hub pair`, `atk hub devices`, `atk hub revoke NAME` (issue 41), run as the person runs
them: the real `atk` in a subprocess, the hub's state directory under $XDG_STATE_HOME."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from atk_tui.hub.paths import state_dir
from atk_tui.hub.web.devices import devices, pair, pairing_refusal
from atk_tui.hub.web.statefiles import save_address
from atk_tui.store import init_store

ATK = Path(sys.executable).with_name("atk")


@pytest.fixture
def store(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    root, _ = init_store(tmp_path / "notes")
    return root


def atk(store: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "ATK_PRIVATE_NOTES": str(store), **env}
    return subprocess.run([str(ATK), "hub", *args], capture_output=True, text=True, env=full, timeout=60)


def test_pair_prints_a_one_time_url_and_its_qr_code(store: Path) -> None:
    out = atk(store, "pair")
    assert out.returncode == 0, out.stderr
    url = re.search(r"http://127\.0\.0\.1:\d+/pair/(\S+)", out.stdout)
    assert url, out.stdout
    assert pairing_refusal(state_dir(store), url.group(1)) is None
    assert "█" in out.stdout or "▀" in out.stdout  # the QR code, drawn with blocks
    assert "works once" in out.stdout


def test_pair_uses_the_address_the_running_hub_is_reached_at(store: Path) -> None:
    save_address(state_dir(store), "https://laptop.tailnet.example")
    out = atk(store, "pair", "--no-qr", "--minutes", "3")
    assert out.returncode == 0, out.stderr
    assert re.search(r"https://laptop\.tailnet\.example/pair/\S+", out.stdout)
    assert "█" not in out.stdout


def test_pair_is_refused_in_an_agent_environment(store: Path) -> None:
    out = atk(store, "pair", AI_AGENT="1")
    assert out.returncode == 2 and "agent environment" in out.stderr
    assert "/pair/" not in out.stdout
    assert not (state_dir(store) / "web" / "pairings.json").exists()


def test_devices_lists_and_revoke_ends_one(store: Path) -> None:
    out = atk(store, "devices")
    assert out.returncode == 0 and "no paired devices" in out.stdout
    code = re.search(r"/pair/(\S+)", atk(store, "pair", "--no-qr").stdout).group(1)
    pair(state_dir(store), code, "pixel 8")
    out = atk(store, "devices")
    assert out.returncode == 0 and "pixel 8" in out.stdout and "NAME" in out.stdout
    out = atk(store, "revoke", "Pixel 8")
    assert out.returncode == 0 and "revoked pixel 8" in out.stdout
    assert devices(state_dir(store)) == []
    out = atk(store, "revoke", "pixel 8")
    assert out.returncode == 1 and "no paired device" in out.stderr
