"""Each write key's refusal rules are on its row of the bindings table (tui/keys/bindings.py,
issue 45 point 4): `write_refusal` asks the row's rules in order, the first refusal is what the
dimmed key says."""

from __future__ import annotations

from atk_tui.domain.model import Item
from atk_tui.tui.keys.bindings import WRITE_ACTIONS, WRITE_KEYS, Asked, an_item, write_refusal


def item(name: str, state: str = "inbox", kind: str = "awi", **kw) -> Item:
    return Item(filename=name, state=state, kind=kind, target_repo="acme/webapp", **kw)


def why(action: str, *targets: Item, can_undo: bool = False) -> str | None:
    return write_refusal(Asked(action, targets, "user", can_undo=can_undo))


def test_every_write_key_has_its_rules_on_its_row() -> None:
    assert {k.binding.action for k in WRITE_KEYS if k.rules} == WRITE_ACTIONS
    # every key but undo first needs an item
    assert {k.binding.action for k in WRITE_KEYS if k.rules[0] is an_item} == WRITE_ACTIONS - {"undo"}
    assert why("graph", item("a.md")) is None  # no write key: nothing to refuse


def test_each_rule_says_why() -> None:
    a, b, q = item("a.md"), item("b.md", state="hold"), item("q.md", kind="uwi", urgency="blocking")
    assert why("hold") == "no item selected"
    assert why("undo") == "nothing to undo in this session" and why("undo", can_undo=True) is None
    for action in ("edit", "answer", "comment", "dependencies"):
        assert why(action, a, b) == f"{action} works on one item at a time: Esc clears the marks"
    assert why("accept", a, b) == "none of the marked items is a question: mark questions (Space), then A"
    assert why("accept", a, q) is None  # the batch approval of the questions among the marked
    assert why("unhold", a) == "only held items are unheld (`atk wi hold F` holds one)"
    assert why("unhold", b) is None and why("move", a, b) is None
    broken = item("c.md", defects=["kind: must be awi or uwi"])
    assert why("move", broken) and why("move", broken) == why("hold", broken)  # core's defect refusal, both ways
    planned = Item(filename="p.md", state="planning", kind="feedback", target_repo="acme/webapp", queue="mq")
    assert "is being planned" in (why("move", planned) or "") and "is being planned" in (why("hold", planned) or "")
