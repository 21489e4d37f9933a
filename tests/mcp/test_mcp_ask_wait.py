"""`ask` and `wait` over MCP, against a real `atk mcp` on an agent's clone of a bare remote while the
person answers on a clone of their own: the question's body reads back as the questions asked,
`ask` adds itself to an item's dependencies (the others kept), `wait` returns the answers once the
person's answer is pushed (the time it took is printed: `pytest -s`), says which are still open at
its timeout, and sends progress notifications while it waits."""

from __future__ import annotations

import subprocess
import time
from typing import Any

from support.mcpkit import AGENT_ID, ATK, World, server_env
from support.storekit import AWI_BODY

from atk_tui.itemfile.questions import parse_questions

QUESTIONS = [
    {
        "question": "Which email validation should be the project standard?",
        "options": [
            {"label": "Strict RFC 5322", "description": "rejects fewer valid addresses, harder to maintain"},
            {"label": "Simple regex", "description": "faster, may accept malformed addresses"},
        ],
        "recommendation": "A) consistent everywhere",
    },
    {
        "question": "Where do the tests go?",
        "options": [{"letter": "A", "label": "tests/auth/"}, {"letter": "B", "label": "next to the code"}],
        "recommendation": "A",
    },
]


def add(world: World, body: str = AWI_BODY) -> str:
    return world.agent.ok("wi_add", {"body": body, "target_repo": "acme/webapp"})["files"][0]


def ask(world: World, **kw: Any) -> dict[str, Any]:
    args = {"target_repo": "acme/webapp", "title": "Which validator?", "context": "Two patterns were found.",
            "questions": QUESTIONS, **kw}  # fmt: skip
    return world.agent.ok("ask", args)


class Progress:
    """A progress callback that keeps what it is told."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((progress, total, message))


def test_ask_files_the_question_format_and_adds_itself_to_a_dependent(world: World) -> None:
    before, original = add(world), add(world)
    world.agent.ok("wi_set_dependencies", {"filename": original, "add": [before]})
    out = ask(world, urgency="next-review", answer_by="2h", dependent=original[:-3])
    name = out["filename"]
    assert out["files"] == [name] and out["message"].startswith(f"added {name} (")
    rec = world.agent.ok("wi_show", {"filenames": [name]})["records"][0]
    assert (rec["kind"], rec["source"], rec["urgency"], rec["state"]) == ("uwi", "agent", "next-review", "inbox")
    assert rec["answer_by"] is not None and rec["answered"] is False
    parsed = parse_questions(rec["body"])
    assert parsed.form == "markdown" and parsed.context == "Two patterns were found."
    assert [(q.text, [(o.letter, o.label, o.implications) for o in q.options], q.recommendation) for q in parsed.questions] == [
        (QUESTIONS[0]["question"], [("A", "Strict RFC 5322", "rejects fewer valid addresses, harder to maintain"),
                                    ("B", "Simple regex", "faster, may accept malformed addresses")], "A"),
        (QUESTIONS[1]["question"], [("A", "tests/auth/", ""), ("B", "next to the code", "")], "A"),
    ]  # fmt: skip
    dependent = world.agent.ok("wi_show", {"filenames": [original]})["records"][0]
    assert dependent["depends_on"] == [before, name]  # added, the other kept
    assert dependent["status"] == "blocked"


def test_ask_refuses_what_would_not_read_back(world: World) -> None:
    r = world.agent.refused("ask", {"target_repo": "acme/webapp", "title": "T", "questions": [
        {"question": "Q?", "options": [{"label": "x"}, {"label": "y"}], "recommendation": "C) neither"}]})  # fmt: skip
    assert r["exit_code"] == 2 and "recommendation must start with one of its letters" in r["error"]
    r = world.agent.refused("ask", {"target_repo": "acme/webapp", "title": "T", "questions": [
        {"question": "Q?", "options": [{"label": "only one"}]}]})  # fmt: skip
    assert r["exit_code"] == 2  # the schema asks for two options at least
    r = world.agent.refused(
        "ask", {"target_repo": "acme/webapp", "title": "T", "questions": QUESTIONS, "dependent": "nothing-here"}
    )
    assert r["exit_code"] == 1 and "no item named nothing-here.md" in r["error"]


def test_wait_returns_the_answer_the_person_pushed_from_another_clone(world: World) -> None:
    name = ask(world)["filename"]
    progress = Progress()
    waiting = world.agent.start("wait", {"filenames": [name], "timeout": 120}, progress)
    time.sleep(1.5)  # the server is waiting (its first looks find nothing)
    assert not waiting.done()
    assert world.agent.ok("wi_show", {"filenames": [name]})["records"][0]["answered"] is False  # served meanwhile
    assert not waiting.done()
    person = world.person()
    out = person.answers.answer(
        name, choices={1: "A", 2: "B"}, text="Go with the strict one.", seen=person.answers.read_by_person(name)
    )
    assert out.ok and out.pushed, out.message
    pushed = time.monotonic()
    res = waiting.result(timeout=60)  # a guard against a hang, far above a look's second
    latency = time.monotonic() - pushed
    print(f"\nwait returned {latency:.2f} s after the person's answer was pushed")
    assert not res.is_error, res.content[0].text
    d = res.structured_content
    assert d["answered"] is True and d["still_open"] == []
    (rec,) = d["records"]
    assert rec["filename"] == name and rec["answered"] is True and rec["answer_partial"] is False
    assert "## 回答" in rec["body"] and "Go with the strict one." in rec["body"]
    assert progress.seen and all(total == 120 for _, total, _ in progress.seen)
    assert d["records"] == world.agent.ok("wi_show", {"filenames": [name]})["records"]


def test_wait_says_what_is_still_open_at_its_timeout(world: World) -> None:
    answered, open_ = ask(world)["filename"], ask(world, title="Another question?")["filename"]
    person = world.person()
    assert person.answers.answer(answered, choices={1: "B", 2: "A"}, seen=person.answers.read_by_person(answered)).ok
    progress = Progress()
    res = world.agent.call("wait", {"filenames": [answered, open_], "timeout": 2}, progress)
    assert not res.is_error, res.content[0].text
    d = res.structured_content
    assert d["answered"] is False and d["still_open"] == [open_]
    assert d["message"] == f"still waiting for an answer to {open_} after 2 s: call wait again"
    assert progress.seen and progress.seen[-1][1] == 2 and "1 of 2 still open" in (progress.seen[-1][2] or "")


def test_wait_refuses_what_is_not_a_question_as_the_cli_does(world: World) -> None:
    a = add(world)
    r = world.agent.refused("wait", {"filenames": [a], "timeout": 1})
    env = server_env(world.home, CLAUDECODE="1", ATK_AGENT_ID=AGENT_ID)
    proc = subprocess.run([str(ATK), "--store", str(world.store), "wi", "wait", a, "--timeout", "1"],
                          capture_output=True, text=True, env=env, check=False)  # fmt: skip
    assert (f"atk: {r['error']}", r["exit_code"]) == (proc.stderr.strip(), proc.returncode) and r["exit_code"] == 2
    r = world.agent.refused("wait", {"filenames": [a], "timeout": 600})  # above the bound MCP clients allow
    assert r["exit_code"] == 2 and "timeout" in r["error"]
