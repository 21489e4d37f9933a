"""`atk mcp`'s tools, over stdio with the SDK's own client, against one real server on an agent's
clone of a bare remote: the tool list (generated from the tables; no user-only writes), every
tool, every refusal as the CLI says it, the records equal to `atk … --json`, the resources, and
docs/mcp.md's tool list equal to the server's."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.mcpkit import AGENT_ID, ATK, World, server_env
from support.storekit import AWI_BODY, UWI_BODY, git

from atk_tui.domain.ops import MQ as MQ_RULES
from atk_tui.domain.ops import WI as WI_RULES
from atk_tui.mcpserver.tools import tool_table

DOCS = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"


def cli(world: World, *args: str) -> subprocess.CompletedProcess[str]:
    """`atk --store <the agent's clone> …` as the same agent, as a real process."""
    env = server_env(world.home, CLAUDECODE="1", ATK_AGENT_ID=AGENT_ID)
    return subprocess.run(
        [str(ATK), "--store", str(world.store), *args], capture_output=True, text=True, env=env, check=False
    )


def cli_json(world: World, *args: str) -> list[dict[str, Any]]:
    proc = cli(world, *args)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def cli_refusal(world: World, *args: str) -> tuple[str, int]:
    proc = cli(world, *args)
    assert proc.returncode != 0, proc.stdout
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("atk: warning:")]
    return "\n".join(lines).removeprefix("atk: "), proc.returncode


def add(world: World, queue: str = "wi", body: str = AWI_BODY, **kw: Any) -> str:
    res = world.agent.ok(f"{queue}_add", {"body": body, "target_repo": "acme/webapp", **kw})
    (name,) = res["files"]
    return name


def last_trailers(root: Path) -> tuple[str, str]:
    out = git(
        root,
        "log",
        "-1",
        "--format=%s|%(trailers:key=Atk-Actor,valueonly,separator=)|%(trailers:key=Atk-Agent,valueonly,separator=)",
    )
    subject, actor, agent = out.strip().split("|")
    return subject, f"{actor}/{agent}"


# -- the tool list --------------------------------------------------------------------------------


def expected_names() -> set[str]:
    """SPEC §17 from the tables: each queue's verbs, its transitions with a command, and the four
    tools of neither queue; no answer, no comment."""
    names = {"ask", "wait", "notify", "plans_commit"}
    for q, rules in (("wi", WI_RULES), ("mq", MQ_RULES)):
        names |= {f"{q}_{v}" for v in ("list", "show", "add", "edit", "rm", "set_dependencies", "convert_to_plan",
                                         "set_cooldown", "set_urgency")}  # fmt: skip
        names |= {f"{q}_{op.replace('-', '_')}" for op, row in rules.transitions.items() if row.command}
    return names


def test_the_tools_are_the_agent_verbs_of_both_queues(world: World) -> None:
    tools = {t.name: t for t in world.agent.tools()}
    assert set(tools) == expected_names()
    assert not [n for n in tools if n.endswith(("_answer", "_comment", "_dismiss"))]
    # a transition's arguments are its row's
    adopt = tools["wi_adopt"].input_schema
    assert set(adopt["properties"]) == {"filename", "note", "commit"} and adopt["required"] == ["filename"]
    back = tools["wi_return_to_inbox"].input_schema["properties"]["state"]
    assert back["enum"] == ["processing", "rejected"]
    assert tools["wi_start_processing"].input_schema["required"] == ["filenames"]
    assert tools["mq_finish_planning"].input_schema["required"] == ["filenames", "plan_file"]
    # add's keys are the field table's, described as the table describes them
    from atk_tui.domain.fields import BY_NAME

    props = tools["wi_add"].input_schema["properties"]
    assert {"target_repo", "depends_on", "urgency", "answer_by", "plan_file", "cooldown_until"} <= set(props)
    assert "source" not in props and "created" not in props and "note" not in props
    assert props["depends_on"]["description"].startswith(BY_NAME["depends_on"].description)
    assert props["kind"]["enum"] == ["awi", "uwi"] and tools["mq_add"].input_schema["properties"]["kind"]["enum"] == [
        "feedback",
        "tbd",
    ]
    assert tools["mq_add"].input_schema["properties"]["state"]["enum"] == ["inbox", "planning"]
    assert tools["wi_list"].input_schema["properties"]["status"]["enum"][:5] == [
        "active",
        "processable",
        "ready",
        "blocked",
        "all",
    ]
    assert tools["wait"].input_schema["properties"]["timeout"]["maximum"] == 240


@pytest.mark.parametrize("name", ["wi_answer", "wi_comment", "mq_answer", "mq_comment"])
def test_user_only_writes_do_not_exist(world: World, name: str) -> None:
    r = world.agent.refused(name, {"filename": "x", "text": "A"})
    assert r["exit_code"] == 2 and "user-only writes are not tools" in r["error"]


def test_docs_list_the_servers_tools(world: World) -> None:
    text = DOCS.read_text(encoding="utf-8")
    m = re.search(r"<!-- tools: generated by `atk mcp --list-tools` -->\n(.*?)<!-- /tools -->", text, re.S)
    assert m, "docs/mcp.md has no generated tool list"
    assert m.group(1) == tool_table(world.agent.tools())


def test_list_tools_prints_the_servers_list(world: World) -> None:
    proc = subprocess.run([str(ATK), "mcp", "--list-tools"], capture_output=True, text=True, check=True,
                          env=server_env(world.home))  # fmt: skip
    assert proc.stdout == tool_table(world.agent.tools())


# -- records: the same as `atk … --json` ----------------------------------------------------------


def test_list_and_show_records_equal_the_clis(world: World) -> None:
    a = add(world)
    u = add(world, body=UWI_BODY, kind="uwi", urgency="next-review")
    add(world, depends_on=[u])
    f = add(world, "mq", body=AWI_BODY.replace("# Use", "# Feedback: use"))
    listed = world.agent.ok("wi_list")["records"]
    assert listed == cli_json(world, "wi", "list", "--json")
    assert {a, u} <= {r["filename"] for r in listed}
    for status in ("ready", "blocked", "all"):
        assert world.agent.ok("wi_list", {"status": status})["records"] == cli_json(
            world, "wi", "list", f"--status={status}", "--json"
        )
    assert world.agent.ok("wi_list", {"text": "validator", "kind": "awi"})["records"] == cli_json(
        world, "wi", "list", "--text", "validator", "--kind", "awi", "--json"
    )
    assert world.agent.ok("wi_list", {"count": True}) == {"count": len(listed)}
    assert world.agent.ok("mq_list")["records"] == cli_json(world, "mq", "list", "--json")
    shown = world.agent.ok("wi_show", {"filenames": [a, u]})["records"]
    assert shown == cli_json(world, "wi", "show", a, u, "--json")
    assert shown[1]["urgency"] == "next-review" and shown[0]["body"].startswith("# Use one email validator")
    assert world.agent.ok("mq_show", {"filenames": [f]})["records"] == cli_json(world, "mq", "show", f, "--json")
    # a unique prefix names an item, as on the command line
    assert world.agent.ok("wi_show", {"filenames": [a[:-3]]})["records"][0]["filename"] == a


# -- every write, as the agent ---------------------------------------------------------------------


def test_the_wi_writes(world: World) -> None:
    ag = world.agent
    a, b = add(world), add(world)
    assert last_trailers(world.store) == (f"atk: add {b}", f"agent/{AGENT_ID}")
    rec = ag.ok("wi_show", {"filenames": [a]})["records"][0]
    assert rec["source"] == "agent" and rec["kind"] == "awi"

    out = ag.ok("wi_hold", {"filename": a})
    assert out["message"].startswith(f"hold {a} (") and out["message"].endswith(" pushed")
    assert out["records"][0]["state"] == "hold" and out["pushed"] is True
    assert ag.ok("wi_unhold", {"filename": a})["records"][0]["state"] == "inbox"
    again = ag.ok("wi_unhold", {"filename": a})  # in inbox already: a no-op that says so
    assert "already in inbox" in again["message"] and again["commit"] is None
    ag.ok("wi_start_processing", {"filenames": [a, b]})
    sha = "a" * 40
    adopted = ag.ok("wi_adopt", {"filename": a, "note": "done", "commit": sha})["records"][0]
    assert (adopted["state"], adopted["note"], adopted["commit"]) == ("adopted", "done", sha)
    assert ag.ok("wi_reject", {"filename": b, "note": "no"})["records"][0]["state"] == "rejected"
    back = ag.ok("wi_return_to_inbox", {"filename": b, "state": "rejected"})["records"][0]
    assert back["state"] == "inbox" and back["note"] is None

    c, d = add(world), add(world)
    ag.ok("wi_set_dependencies", {"filename": b, "add": [c]})
    ag.ok("wi_set_dependencies", {"filename": b, "add": [d]})
    assert ag.ok("wi_show", {"filenames": [b]})["records"][0]["depends_on"] == [c, d]
    ag.ok("wi_set_dependencies", {"filename": b, "remove": [c]})
    assert ag.ok("wi_show", {"filenames": [b]})["records"][0]["depends_on"] == [d]
    ag.ok("wi_set_dependencies", {"filename": b, "depends_on": [c]})
    assert ag.ok("wi_show", {"filenames": [b]})["records"][0]["depends_on"] == [c]
    ag.ok("wi_set_dependencies", {"filename": b, "depends_on": []})
    assert ag.ok("wi_show", {"filenames": [b]})["records"][0]["depends_on"] in (None, [])

    cool = ag.ok("wi_set_cooldown", {"filename": c, "until": "2h"})["records"][0]
    assert cool["cooldown_until"] and cool["status"] == "cooldown"
    assert ag.ok("wi_set_cooldown", {"filename": c, "clear": True})["records"][0]["cooldown_until"] is None

    plans = world.home / "plans"
    (plans / "2026" / "12").mkdir(parents=True)
    (plans / "2026" / "12" / "login-plan.md").write_text("# The plan\n", encoding="utf-8")
    committed = ag.ok(
        "plans_commit", {"paths": [str(plans / "2026" / "12" / "login-plan.md")], "plans_root": str(plans)}
    )
    (stored,) = committed["stored"]
    assert stored.endswith("/login-plan.md") and committed["commit"]
    planned = ag.ok("wi_convert_to_plan", {"filename": c, "plan_file": stored})["records"][0]
    assert (planned["plan_file"], planned["type"]) == (stored, "plan")

    # edit: the person's comment stays as stored
    person = world.person()
    assert person.answers.comment(d, "keep the old API too").ok
    edited = ag.ok("wi_edit", {"filename": d, "body": "# Use one validator, edited\n\n- 反映内容: one\n"})["records"][0]
    assert edited["title"] == "Use one validator, edited" and "keep the old API too" in edited["body"]

    u = add(world, body=UWI_BODY, kind="uwi")
    assert (
        ag.ok("wi_set_urgency", {"filename": u, "level": "informational"})["records"][0]["urgency"] == "informational"
    )
    # d holds the person's comment: removing it is theirs (exit 2, as `atk wi rm` says)
    r = ag.refused("wi_rm", {"filename": d})
    assert (r["error"], r["exit_code"]) == cli_refusal(world, "wi", "rm", d) and r["code"] == "user-only"
    gone = ag.ok("wi_rm", {"filename": u})
    assert gone["message"].startswith(f"rm {u} (") and "records" not in gone
    assert u not in {r["filename"] for r in ag.ok("wi_list", {"status": "all"})["records"]}
    note = ag.ok("notify", {"message": "three items need you"})
    assert note["message"].startswith("notified ") and last_trailers(world.store)[1] == f"agent/{AGENT_ID}"


def test_the_mq_writes(world: World) -> None:
    ag = world.agent
    f = add(world, "mq", body=AWI_BODY.replace("# Use", "# Feedback: use"))
    rec = ag.ok("mq_show", {"filenames": [f]})["records"][0]
    assert rec["kind"] == "feedback" and rec["state"] == "inbox"
    ag.ok("mq_hold", {"filename": f})
    ag.ok("mq_unhold", {"filename": f})
    ag.ok("mq_start_processing", {"filenames": [f]})
    ag.ok("mq_return_to_inbox", {"filename": f})
    ag.ok("mq_start_processing", {"filenames": [f]})
    assert ag.ok("mq_adopt", {"filename": f, "note": "done"})["records"][0]["state"] == "adopted"
    g = add(world, "mq", body=AWI_BODY.replace("# Use", "# Feedback two: use"))
    ag.ok("mq_start_processing", {"filenames": [g]})
    ag.ok("mq_reject", {"filename": g})
    t = add(world, "mq", body=UWI_BODY, kind="tbd")
    ag.ok("mq_set_urgency", {"filename": t, "level": "blocking"})
    h = add(world, "mq", body=AWI_BODY.replace("# Use", "# Feedback three: use"))
    ag.ok("mq_set_dependencies", {"filename": h, "add": [t]})
    ag.ok("mq_set_cooldown", {"filename": h, "until": "1d"})
    ag.ok("mq_edit", {"filename": h, "body": "# Feedback three, edited\n"})
    plan = "$(atk config get private_notes)/plans/2026/12/login-plan.md"
    ag.ok("mq_convert_to_plan", {"filename": h, "plan_file": plan})
    r = ag.refused("mq_rm", {"filename": g})
    assert (r["error"], r["exit_code"]) == cli_refusal(world, "mq", "rm", g)
    ag.ok("mq_rm", {"filename": h})
    assert ag.ok("mq_list", {"status": "all"})["records"] == cli_json(world, "mq", "list", "--status=all", "--json")


# -- refusals: the CLI's message and exit code as a tool error ----------------------------------------


def test_a_refusal_is_the_clis_message_and_code(world: World) -> None:
    ag = world.agent
    a = add(world)
    ag.ok("wi_start_processing", {"filenames": [a]})
    r = ag.refused("wi_hold", {"filename": a})
    assert (r["error"], r["exit_code"]) == cli_refusal(world, "wi", "hold", a)
    assert r["exit_code"] == 1 and r["code"] == "state" and r["text"].splitlines()[0] == r["error"]
    r = ag.refused("wi_show", {"filenames": ["no-such-item"]})
    assert (r["error"], r["exit_code"]) == cli_refusal(world, "wi", "show", "no-such-item")
    # a body with a user-only heading: the agent may not write it (exit 2)
    r = ag.refused("wi_add", {"body": AWI_BODY + "\n## 回答\n\n- 1: A\n", "target_repo": "acme/webapp"})
    assert r["exit_code"] == 2 and "回答" in r["error"]
    # the arguments are checked against the schema first: a usage error, exit 2
    r = ag.refused("wi_adopt", {"filename": a, "commit": "not-a-sha"})
    assert r["exit_code"] == 2 and "commit" in r["error"]
    r = ag.refused("wi_set_dependencies", {"filename": a, "depends_on": [a]})
    assert (r["error"], r["exit_code"]) == cli_refusal(world, "wi", "set-dependencies", a, "--depends-on", a)


def test_an_item_the_person_holds_is_refused(world: World) -> None:
    a = add(world)
    person = world.person()
    assert person.writes.transition_command("hold", [a]).ok  # on the person's clone, pushed
    for tool, args, line in (
        ("wi_unhold", {"filename": a}, ("wi", "unhold", a)),
        ("wi_edit", {"filename": a, "body": "# changed\n"}, ("wi", "edit", a, "# changed\n")),
        ("wi_rm", {"filename": a}, ("wi", "rm", a)),
    ):
        r = world.agent.refused(tool, args)
        assert r["code"] == "held" and "the user" in r["error"], r["error"]
        assert (r["error"], r["exit_code"]) == cli_refusal(world, *line)
    assert world.agent.ok("wi_show", {"filenames": [a]})["records"][0]["state"] == "hold"


# -- resources ----------------------------------------------------------------------------------------


def test_items_and_the_ready_list_are_resources(world: World) -> None:
    a = add(world)
    f = add(world, "mq", body=AWI_BODY.replace("# Use", "# Feedback four: use"))
    uris = {str(r.uri) for r in world.agent.resources()}
    assert {f"atk://wi/{a}", f"atk://mq/{f}", "atk://wi/ready", "atk://mq/ready"} <= uris
    assert {t.uri_template for t in world.agent.templates()} == {"atk://wi/{filename}", "atk://mq/{filename}"}
    assert world.agent.read(f"atk://wi/{a}") == (world.store / "wi" / "inbox" / a).read_text(encoding="utf-8")
    assert world.agent.read(f"atk://mq/{f}") == (world.store / "mq" / "inbox" / f).read_text(encoding="utf-8")
    ready = [json.loads(line) for line in world.agent.read("atk://wi/ready").splitlines()]
    assert ready == world.agent.ok("wi_list", {"status": "ready"})["records"] and a in {r["filename"] for r in ready}
