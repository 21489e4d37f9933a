"""`atk hub`'s command line (issue 40): its refusals, `status`, `--print-service`, one hub per
store, a clean stop; and the `[notify]` table it reads."""

from __future__ import annotations

import plistlib
import re
import signal
from datetime import time, timedelta

import pytest
from support.hubkit import HubProcess, atk, hub_status, write_notify_config

from atk_tui.host.config import ConfigError
from atk_tui.hub.config import notify_settings
from atk_tui.hub.notify import Message, redact, url_for


def test_a_non_loopback_bind_without_https_is_refused_saying_why(world) -> None:
    got = atk(world.env, "hub", "--store", str(world.root), "--bind", "0.0.0.0")
    assert got.returncode == 2
    assert "refused to serve the answer page on 0.0.0.0 over plain HTTP" in got.stderr
    assert "--insecure-http" in got.stderr and "tunnel" in got.stderr


def test_an_agent_environment_may_not_run_the_hub(world) -> None:
    got = atk(world.agent_env, "hub", "--store", str(world.root))
    assert got.returncode == 1 and "agent environment" in got.stderr


def test_print_service_gives_a_systemd_unit_and_a_launchd_plist(world) -> None:
    got = atk(world.env, "hub", "--store", str(world.root), "--port", "9000", "--print-service", "systemd")
    assert got.returncode == 0, got.stderr
    assert "[Service]" in got.stdout and "WantedBy=default.target" in got.stdout
    exec_line = next(ln for ln in got.stdout.splitlines() if ln.startswith("ExecStart="))
    assert exec_line.endswith(f"hub --store {world.root.resolve()} --port 9000")
    got = atk(world.env, "hub", "--store", str(world.root), "--print-service", "launchd")
    plist = plistlib.loads(got.stdout.encode())
    assert plist["ProgramArguments"][1:] == ["hub", "--store", str(world.root.resolve())]
    assert plist["RunAtLoad"] is True


def test_status_one_hub_per_store_and_a_clean_stop(world, ntfy) -> None:
    got = atk(world.env, "hub", "status", "--store", str(world.root))
    assert got.returncode == 0 and "no hub has run" in got.stdout
    world.configure({"urls": [ntfy.url()], "poll": 0.3})
    hub = world.hub()
    status = hub_status(world.env, world.root)
    assert status["running"] is True and status["pid"] == hub.proc.pid
    assert status["store"] == str(world.root.resolve())
    assert [t["name"] for t in status["targets"]] == [ntfy.url()]
    text = atk(world.env, "hub", "status", "--store", str(world.root)).stdout
    assert f"hub: running (pid {hub.proc.pid}" in text and f"target {ntfy.url()}: ok" in text
    assert "answer page: http://127.0.0.1:" in text or "answer page: the answer page is not available" in text
    second = HubProcess(world.root, world.env, ("--port", "0")).start()
    assert second.proc.wait(timeout=60) == 1
    assert "a hub already runs for this store (pid" in "\n".join(second.lines)
    assert hub.stop(signal.SIGINT) == 0
    assert hub.lines[-2:] == [hub.lines[-2], hub.lines[-1]] and hub.lines[-1].endswith("stopped")
    after = hub_status(world.env, world.root)
    assert after["running"] is False and after["stopped"]
    assert "hub: not running" in atk(world.env, "hub", "status", "--store", str(world.root)).stdout


def test_the_notify_table_defaults_and_per_urgency_settings() -> None:
    s = notify_settings({})
    assert s.route("blocking").push == "now" and s.route("next-review").push == "digest"
    assert s.route("informational").push == "never"
    assert s.route("blocking").answer_by == timedelta(minutes=30) and s.route("next-review").answer_by == timedelta(days=1)
    assert s.digest_every == timedelta(minutes=30) and s.quiet is None
    s = notify_settings({"notify": {"urls": ["ntfy://a/b"], "escalate_urls": ["mailto://x"], "quiet_hours": "22:30-07:00",
                                    "blocking": {"answer_by": "10m"},
                                    "next-review": {"urls": ["pover://u@t"], "push": "now", "during_quiet_hours": True}}})  # fmt: skip
    assert s.route("blocking").urls == ("ntfy://a/b",) and s.route("blocking").escalate_urls == ("mailto://x",)
    assert s.route("blocking").answer_by == timedelta(minutes=10)
    assert s.route("next-review").urls == ("pover://u@t",) and s.route("next-review").push == "now"
    assert s.all_urls == ("ntfy://a/b", "mailto://x", "pover://u@t")
    assert s.quiet == (time(22, 30), time(7, 0))
    assert s.in_quiet_hours(time(23, 0)) and s.in_quiet_hours(time(6, 59)) and not s.in_quiet_hours(time(12, 0))
    for bad, says in (({"push": "sometimes"}, "push takes"), ({"answer_by": "soon"}, "answer_by takes"),
                      ({"priority": "urgent"}, "priority takes")):  # fmt: skip
        with pytest.raises(ConfigError, match=says):
            notify_settings({"notify": {"blocking": bad}})
    with pytest.raises(ConfigError, match="quiet_hours"):
        notify_settings({"notify": {"quiet_hours": "late"}})


def test_a_bad_notify_table_stops_the_hub_saying_which_key(world) -> None:
    write_notify_config(world.home / "config", {"urls": "ntfy://x/y", "blocking": {"push": "sometimes"}})
    got = atk(world.env, "hub", "--store", str(world.root))
    assert got.returncode == 1 and "[notify.blocking] push takes now, digest, never" in got.stderr


def test_what_a_url_carries_and_what_the_log_shows_of_it() -> None:
    msg = Message("ask:wi/x.md", "T", "B", priority="max", click="http://h/i/wi/x.md",
                  actions=(("view", "Open", "http://h/i/wi/x.md"), ("http", "Accept recommended", "http://h/a/wi/x.md?s=1")))  # fmt: skip
    url = url_for("ntfy://ntfy.example/topic?priority=low", msg)
    assert "priority=max" in url and "cto=4" in url and "rto=8" in url
    assert "actions=view%2C%20Open%2C%20http%3A%2F%2Fh%2Fi%2Fwi%2Fx.md%2C%20clear%3Dtrue%3B%20http%2C%20Accept" in url
    assert "priority" not in url_for("mailto://user:pw@mail.example", msg)  # only ntfy takes them
    assert redact("ntfy://user:secret@ntfy.example/topic") == "ntfy://…@ntfy.example/topic"
    assert "token" not in redact("pover://userkey@apptoken") and "secret" not in redact("mailto://me:secret@gmail.com")


def test_configuration_md_names_every_notify_key_the_hub_reads() -> None:
    from pathlib import Path

    from atk_tui.hub.config import ROUTE_KEYS, TOP_KEYS

    text = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text(encoding="utf-8")
    body = text.split("\n## notify\n", 1)[1].split("\n## ", 1)[0]
    top, route = body.split("one table per urgency", 1)
    row = re.compile(r"^\| `([a-z_]+)` \|")
    assert {m.group(1) for ln in top.splitlines() if (m := row.match(ln))} == set(TOP_KEYS)
    assert {m.group(1) for ln in route.splitlines() if (m := row.match(ln))} == set(ROUTE_KEYS)
    with pytest.raises(ConfigError, match=re.escape("unknown [notify] setting 'url'")):
        notify_settings({"notify": {"url": "ntfy://x/y"}})
    with pytest.raises(ConfigError, match=re.escape("unknown [notify.blocking] setting 'answerby'")):
        notify_settings({"notify": {"blocking": {"answerby": "1h"}}})
