"""`atk hub` as a real process on loopback (issue 40): an agent on another clone files a
question, the hub follows the shared remote and apprise publishes to a local ntfy stand-in
(`ntfy://127.0.0.1:PORT/topic`) and to a real SMTP server. What was published is checked as
the phone would get it: title, priority, actions, and nothing of the body beyond that."""

from __future__ import annotations

import signal

from support.hubkit import (
    NtfyReceiver,
    SmtpReceiver,
    answer_as_person,
    atk,
    file_question,
    hub_status,
    read_status,
    wait_for_looks,
    wait_until,
)

SECRET = "SECRET-CONTEXT-abc123"


def test_an_agents_blocking_question_is_one_notification_with_its_facts_and_no_body(world, ntfy) -> None:
    world.configure({"urls": [ntfy.url("phone")], "poll": 0.3})
    hub = world.hub()
    name = file_question(world.agent_env, world.agent, title="Which database should the audit log use?")
    got = wait_until(ntfy.received, 30, "a notification")
    wait_for_looks(world.env, hub, 4)
    assert len(ntfy.received()) == 1, [p.title for p in ntfy.received()]
    p = got[0]
    assert p.topic == "phone"
    assert p.title == "Which database should the audit log use?"
    assert p.priority == "high"  # blocking
    assert "acme/webapp" in p.message and "blocking" in p.message and "ago" in p.message
    assert "Recommended: A) Postgres partitioned tables" in p.message
    # never the body beyond that: not its context, not its question text, not the other option
    for leaked in (SECRET, "2 GB a day", "Where should the audit log live", "ClickHouse"):
        assert leaked not in p.text(), leaked
    # the actions: Open (the answer page) and, every question having a recommendation, Accept recommended
    assert "view, Open, http://127.0.0.1:" in p.actions and f"/i/wi/{name}" in p.actions
    assert "http, Accept recommended, http://127.0.0.1:" in p.actions and f"/a/wi/{name}?d=" in p.actions
    assert p.click and p.click.endswith(f"/i/wi/{name}")
    line = hub.wait_for_line(f"new blocking question {name}")
    assert "acme/webapp" in line and "→ 1 target" in line
    assert hub.stop() == 0
    assert "stopped" in hub.lines[-1]


def test_a_restart_repeats_nothing_and_a_question_answered_meanwhile_is_not_announced(world, ntfy) -> None:
    world.configure({"urls": [ntfy.url()], "poll": 0.3})
    hub = world.hub()
    first = file_question(world.agent_env, world.agent, title="First question")
    wait_until(ntfy.received, 30, "the first notification")
    assert hub.stop() == 0
    # while the hub is down: one question filed and answered, one filed and left waiting
    answered = file_question(world.agent_env, world.agent, title="Answered while the hub was down")
    answer_as_person(world.env, world.root, answered)
    waiting = file_question(world.agent_env, world.agent, title="Filed while the hub was down")
    again = world.hub()
    wait_until(lambda: len(ntfy.received()) >= 2, 30, "the waiting question's notification")
    wait_for_looks(world.env, again, 4)
    titles = [p.title for p in ntfy.received()]
    assert titles == ["First question", "Filed while the hub was down"], titles
    assert again.count(first) == 0 and again.count(answered) == 0
    assert again.count(f"new blocking question {waiting}") == 1
    assert again.stop(signal.SIGINT) == 0  # Ctrl-C stops it as cleanly


def test_a_question_answered_before_it_is_sent_is_dropped(world) -> None:
    failing = NtfyReceiver(mode="fail")
    try:
        world.configure({"urls": [failing.url()], "poll": 0.3})
        hub = world.hub()
        name = file_question(world.agent_env, world.agent)
        hub.wait_for_line(f"new blocking question {name}")
        wait_until(lambda: failing.attempts >= 1, 30, "a first try")
        answer_as_person(world.env, world.root, name)
        hub.wait_for_line(f"answered or gone: {name}")
        failing.mode = "ok"  # the target works again: nothing is left to send for it
        wait_for_looks(world.env, hub, 4)
        status = wait_until(lambda: (s := read_status(world.env, world.root))["targets"][0]["pending"] == 0 and s, 30,
                            "an empty outbox")  # fmt: skip
        assert status["targets"][0]["pending"] == 0
        assert failing.received() == []
    finally:
        failing.close()


def test_past_the_deadline_the_escalation_arrives_by_email(world, ntfy) -> None:
    smtp = SmtpReceiver()
    try:
        world.configure({"urls": [ntfy.url()], "escalate_urls": [smtp.url("me@example.invalid")], "poll": 0.3,
                         "blocking": {"remind_before": "1s"}})  # fmt: skip
        hub = world.hub()
        name = file_question(world.agent_env, world.agent, title="Ship the migration tonight?", answer_by="6s")
        wait_until(ntfy.received, 30, "the first notification")
        msg = wait_until(lambda: smtp.messages, 40, "the escalation email")[0]
        hub.wait_for_line(f": {name}")
        assert "Ship the migration tonight?" in msg["Subject"]
        assert msg["Subject"].startswith(("Due soon", "Overdue"))
        text = msg.get_body(preferencelist=("plain", "html")).get_content()
        assert "acme/webapp" in text and "Recommended: A) Postgres partitioned tables" in text
        assert SECRET not in text and "ClickHouse" not in text
        wait_for_looks(world.env, hub, 4)
        assert len(smtp.messages) == 1 and len(ntfy.received()) == 1  # each once: the phone, then the email
        status = hub_status(world.env, world.root)
        assert name in status["overdue"]
        got = atk(world.env, "hub", "status", "--store", str(world.root))
        assert "overdue: 1" in got.stdout and name in got.stdout
    finally:
        smtp.close()


def test_a_failing_target_is_retried_reported_once_and_never_stops_the_others(world, ntfy) -> None:
    failing = NtfyReceiver(mode="fail")
    hanging = NtfyReceiver(mode="hang", hang_s=60)
    try:
        slow = hanging.url() + "?rto=1&cto=1"  # apprise's own time limit, short for the test
        world.configure({"urls": [failing.url(), slow, ntfy.url()], "poll": 0.3})
        hub = world.hub()
        one = file_question(world.agent_env, world.agent, title="One")
        two = file_question(world.agent_env, world.agent, title="Two")
        wait_until(lambda: len(ntfy.received()) >= 2, 40, "both notifications at the working target")
        wait_until(lambda: failing.attempts >= 2, 40, "a retry at the failing target")
        status = wait_until(
            lambda: (s := hub_status(world.env, world.root)) and all(t["failing"] for t in s["targets"][:2]) and s, 40,
            "both bad targets failing in the status",
        )
        bad, slowest, good = status["targets"]
        assert "500" in bad["reason"] or "50001" in bad["reason"] or "fails on purpose" in bad["reason"], bad
        assert "time" in slowest["reason"].lower(), slowest  # read timed out
        assert not good["failing"] and good["sent"] == 2
        assert bad["pending"] == 2  # kept, tried again with backoff
        # said once per failing target, not once per question
        assert hub.count(f"target {status['targets'][0]['name']} failed") == 1
        text = atk(world.env, "hub", "status", "--store", str(world.root)).stdout
        assert "FAILING since" in text and bad["reason"][:20] in text
        assert {p.title for p in ntfy.received()} == {"One", "Two"}
        # the store is never held up: a write on the hub's own clone goes through meanwhile
        answer_as_person(world.env, world.root, one)
        hub.wait_for_line(f"answered or gone: {one}")
        del two
    finally:
        failing.close()
        hanging.close()


def test_a_next_review_question_waits_for_the_digest_and_informational_is_not_pushed(world, ntfy) -> None:
    world.configure({"urls": [ntfy.url()], "poll": 0.3, "digest_every": "3s"})
    hub = world.hub()
    later = file_question(world.agent_env, world.agent, title="Rename the module?", urgency="next-review")
    fyi = file_question(world.agent_env, world.agent, title="FYI: the build is slow", urgency="informational")
    hub.wait_for_line(f"new informational question {fyi}")
    hub.wait_for_line(f"new next-review question {later}")
    got = wait_until(ntfy.received, 30, "the digest")
    assert len(got) == 1
    assert got[0].title == "1 question for your next review"
    assert "Rename the module?" in got[0].message and "FYI" not in got[0].text()
    wait_for_looks(world.env, hub, 4)
    assert len(ntfy.received()) == 1


def test_an_agents_notice_is_pushed(world, ntfy) -> None:
    world.configure({"urls": [ntfy.url()], "poll": 0.3})
    hub = world.hub()
    got = atk(world.agent_env, "agents", "notify", "# The nightly run is stuck\n\nsee the log", "--source", "agent",
              "--store", str(world.agent))  # fmt: skip
    assert got.returncode == 0, got.stderr
    p = wait_until(ntfy.received, 30, "the notice")[0]
    assert p.title == "Notice: The nightly run is stuck"
    assert "see the log" not in p.text()
    hub.wait_for_line("notice ")


def test_quiet_hours_hold_what_may_wait_and_blocking_goes_anyway(world, ntfy) -> None:
    from datetime import datetime, timedelta

    now = datetime.now().astimezone()
    quiet = f"{(now - timedelta(hours=1)):%H:%M}-{(now + timedelta(hours=1)):%H:%M}"
    world.configure({"urls": [ntfy.url()], "poll": 0.3, "quiet_hours": quiet, "next-review": {"push": "now"}})
    hub = world.hub()
    later = file_question(world.agent_env, world.agent, title="Can wait till morning", urgency="next-review")
    file_question(world.agent_env, world.agent, title="Blocks the release")
    got = wait_until(ntfy.received, 30, "the blocking notification")
    hub.wait_for_line(f"new next-review question {later}")
    status = wait_for_looks(world.env, hub, 4)
    assert [p.title for p in ntfy.received()] == ["Blocks the release"]
    assert got[0].priority == "high"
    assert status["targets"][0]["pending"] == 1  # the next-review one, held until the quiet hours end


def test_without_the_answer_page_the_notification_carries_no_links(world, ntfy) -> None:
    world.configure({"urls": [ntfy.url()], "poll": 0.3})
    hub = world.hub("--no-web")
    file_question(world.agent_env, world.agent, title="No page today")
    p = wait_until(ntfy.received, 30, "the notification")[0]
    assert p.title == "No page today" and "Recommended: A) Postgres partitioned tables" in p.message
    assert p.actions == "" and p.click is None  # nothing to open: no button leads nowhere
    assert read_status(world.env, world.root)["web"] is None
    assert hub.count("the answer page:") == 0


def test_the_accept_button_as_ntfy_presses_it_answers_and_the_hub_lets_the_question_go(world, ntfy) -> None:
    import urllib.request

    world.configure({"urls": [ntfy.url()], "poll": 0.3})
    hub = world.hub()
    name = file_question(world.agent_env, world.agent, title="Accept from the phone?")
    p = wait_until(ntfy.received, 30, "the notification")[0]
    link = next(a.split(", ")[2] for a in p.actions.split("; ") if a.startswith("http, Accept recommended"))
    # ntfy's HTTP action: a POST to the link, no body, no cookie, no Origin
    with urllib.request.urlopen(urllib.request.Request(link, data=b"", method="POST"), timeout=60) as reply:
        assert reply.status == 200
    hub.wait_for_line(f"answered or gone: {name}")
    shown = atk(world.agent_env, "wi", "show", name, "--store", str(world.agent), "--json")
    import json

    record = json.loads(shown.stdout.splitlines()[0])
    assert record["answered"] is True and "A) Postgres partitioned tables" in record["body"]


def test_a_first_start_on_a_busy_store_sends_one_summary_not_a_flood(world, ntfy) -> None:
    world.configure({"urls": [ntfy.url()], "poll": 0.3})
    for n in range(7):
        file_question(world.agent_env, world.agent, title=f"Waiting before the hub {n}")
    hub = world.hub()
    got = wait_until(ntfy.received, 30, "the summary")
    hub.wait_for_line("first look: 7 questions already waiting")
    later = file_question(world.agent_env, world.agent, title="Filed after the start")
    wait_until(lambda: len(ntfy.received()) >= 2, 30, "the next question's own notification")
    wait_for_looks(world.env, hub, 3)
    titles = [p.title for p in ntfy.received()]
    assert titles == ["7 questions are waiting for you", "Filed after the start"], titles
    assert "Waiting before the hub 0" in got[0].message and "Waiting before the hub 6" in got[0].message
    assert hub.count(f"new blocking question {later}") == 1
