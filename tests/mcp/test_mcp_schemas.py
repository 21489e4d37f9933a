"""The tools' schemas follow the tables (no server needed): every frontmatter key `add` takes is
an argument of `wi_add`/`mq_add` described by its row, every transition row with a command is a
tool whose arguments are what the row takes; and `ask`'s rendering reads back or is refused."""

from __future__ import annotations

import inspect

import pytest

from atk_tui.domain.errors import AtkError
from atk_tui.domain.fields import FIELDS
from atk_tui.domain.ops import MQ as MQ_RULES
from atk_tui.domain.ops import WI as WI_RULES
from atk_tui.itemfile.questions import parse_questions
from atk_tui.mcpserver.ask import render
from atk_tui.mcpserver.tools import all_tools
from atk_tui.service.writing.writes import Writes

TOOLS = {t.name: t for t in all_tools()}


@pytest.mark.parametrize("queue", ["wi", "mq"])
def test_add_takes_every_key_the_table_and_the_service_take(queue: str) -> None:
    props = TOOLS[f"{queue}_add"].schema["properties"]
    takes = inspect.signature(Writes.add).parameters
    for f in FIELDS:
        if f.name in takes and not f.by_atk and f.name not in ("kind", "source"):
            assert props[f.name]["description"].startswith(f.description), f.name
        elif f.name != "kind":
            assert f.name not in props, f.name  # atk writes it, or the server's --source says it


@pytest.mark.parametrize(("queue", "rules"), [("wi", WI_RULES), ("mq", MQ_RULES)])
def test_every_transition_with_a_command_is_a_tool_taking_what_its_row_takes(queue: str, rules) -> None:
    for op, row in rules.transitions.items():
        name = f"{queue}_{op.replace('-', '_')}"
        if not row.command:
            assert name not in TOOLS
            continue
        props = TOOLS[name].schema["properties"]
        assert ("filenames" in props) == row.several and ("filename" in props) != row.several
        assert ("note" in props) == row.takes_note and ("commit" in props) == row.takes_commit
        assert ("plan_file" in props) == row.takes_plan
        assert ("state" in props) == row.named_from
        if row.named_from:
            assert set(props["state"]["enum"]) == set(row.agent_from)


def test_ask_renders_what_reads_back() -> None:
    body = render("Pick one", "", [{"question": "Which?", "options": [{"label": "x", "description": "the x"}, {"label": "y"}],
                                    "recommendation": "B"}])  # fmt: skip
    assert body == "# Pick one\n\n## 質問\nWhich?\n\n- A) x -- the x\n- B) y\n\n推奨: B) y\n"
    (q,) = parse_questions(body).questions
    assert [o.label for o in q.options] == ["x", "y"] and q.recommendation == "B"


@pytest.mark.parametrize(
    ("question", "why"),
    [
        (
            {"question": "Q?", "options": [{"label": "x"}, {"label": "y"}], "recommendation": "Yes, x"},
            "must start with one of its letters",
        ),
        (
            {"question": "Q?", "options": [{"label": "x", "letter": "A"}, {"label": "y", "letter": "A"}]},
            "one letter to two options",
        ),
        ({"question": "Q?", "options": [{"label": "x"}]}, "at least two options"),
        ({"question": "Q?", "options": [{"label": "   "}, {"label": "y"}]}, "is empty"),
        ({"question": "Q?", "options": [{"label": "a -- b"}, {"label": "y"}]}, "do not read back as given"),
    ],
)
def test_ask_refuses_a_question_that_would_not_read_back(question: dict, why: str) -> None:
    with pytest.raises(AtkError) as exc:
        render("T", "", [question])
    assert exc.value.exit_code == 2 and why in exc.value.message
