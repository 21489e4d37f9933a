"""The answer page inside the real `atk hub` process (issues 40 and 41 together): an agent on
another clone files a question, the hub notifies a local ntfy stand-in, the notification's
"Accept recommended" action is POSTed as ntfy's app does, and the agent's `atk wi wait`
returns with the recommendation, committed as the user. `atk hub pair` prints the running hub's
address, and the pairing it makes works on the hub's page."""

from __future__ import annotations

import os
import re
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

from support.hubkit import ATK, HubProcess, NtfyReceiver, atk, file_question, hub_env, wait_until, write_notify_config
from support.hubweb_kit import hidden
from support.storekit import clone, git, make_remote_pair


def _post(url: str, data: bytes = b"", headers: dict[str, str] | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url, data=data, method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_the_notifications_accept_action_answers_through_the_running_hub(tmp_path: Path) -> None:
    root, remote = make_remote_pair(tmp_path)
    agent = clone(remote, tmp_path / "agent")
    home = tmp_path / "home"
    env, agent_env = hub_env(home), hub_env(home, agent=True)
    ntfy = NtfyReceiver()
    write_notify_config(home / "config", {"urls": [ntfy.url("phone")], "poll": 0.3})
    hub = HubProcess(root, env, ("--port", "0")).start()
    try:
        hub.wait_for_line("looking every")
        name = file_question(agent_env, agent, title="Which database should the audit log use?")
        got = wait_until(ntfy.received, 30, "a notification")
        accept = re.search(r"http, Accept recommended, ([^,;\s]+)", got[0].actions)
        assert accept, got[0].actions
        origin = re.match(r"http://127\.0\.0\.1:\d+", accept.group(1)).group(0)
        # before the page was asked anything (--port 0): atk hub pair names the running hub's address
        paired = atk({**env, "ATK_PRIVATE_NOTES": str(root)}, "hub", "pair", "--no-qr")
        assert paired.returncode == 0, paired.stderr
        url = re.search(r"(http://\S+/pair/\S+)", paired.stdout).group(1)
        assert url.startswith(origin + "/pair/"), (url, origin)

        waiting = subprocess.Popen([str(ATK), "wi", "wait", name, "--timeout", "90"], cwd=agent,
                                   env={**agent_env, "ATK_PRIVATE_NOTES": str(agent)},
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        status, said = _post(accept.group(1))  # ntfy's app: a POST, no Origin, no cookie
        assert status == 200 and "committed and pushed" in said, said
        out, err = waiting.communicate(timeout=120)
        assert waiting.returncode == 0, err
        assert "A) Postgres partitioned tables" in out
        message = git(remote, "log", "-1", "--format=%B", "main")
        assert "Atk-Actor: user" in message and "Atk-Via: one-tap link" in message
        assert _post(accept.group(1))[0] == 409  # a second tap: used already

        # its pairing works on the hub's page
        with urllib.request.urlopen(url, timeout=60) as r:
            form = r.read().decode()
        data = f"csrf={hidden(form, 'csrf')}&name=hubphone".encode()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        req = urllib.request.Request(url, data=data, method="POST", headers={"Origin": origin})
        with opener.open(req, timeout=60) as r:
            assert "paired as hubphone" in r.read().decode()
        listed = atk({**env, "ATK_PRIVATE_NOTES": str(root)}, "hub", "devices")
        assert "hubphone" in listed.stdout
    finally:
        assert hub.stop() == 0
        ntfy.close()
    assert os.path.isdir(root)
