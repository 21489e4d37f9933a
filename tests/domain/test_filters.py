"""The structured filter (issue 15 item 8): `repo:`, `kind:`, `urgency:`, `is:` and free text."""

from __future__ import annotations

import pytest
from support.storekit import UWI_BODY, add_item

from atk_tui.domain.filters import Query, matches, parse_query


def test_tokens_and_free_text_are_split() -> None:
    q = parse_query("repo:acme/api kind:UWI is:blocked  session store")
    assert q == Query(text="session store", repos=("acme/api",), kinds=("uwi",), flags=("blocked",))
    assert q.structured and not q.errors


def test_plain_text_is_not_structured() -> None:
    q = parse_query("redis session")
    assert q.text == "redis session" and not q.structured and not q.errors


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("kind:bug", "kind:bug is not one of awi, uwi, feedback, tbd"),
        ("urgency:now", "urgency:now is not one of blocking, next-review, informational"),
        ("is:stuck", "is:stuck is not one of blocked, ready"),
        ("colour:red", "unknown filter colour:; filters: repo:, kind:, urgency:, is:"),
        ("repo:", "repo: needs a value"),
    ],
)
def test_a_bad_token_lists_the_valid_values(query: str, message: str) -> None:
    q = parse_query(query)
    assert any(message in e for e in q.errors), q.errors


def test_a_bad_token_is_matched_as_text() -> None:
    assert parse_query("kind:bug").text == "kind:bug"
    assert parse_query("see https://x.invalid/a").errors == ()


def test_matches_against_items_and_judgements(svc) -> None:
    awi = add_item(svc, target_repo="acme/api")
    uwi = add_item(svc, body=UWI_BODY, kind="uwi", target_repo="acme/webapp", urgency="blocking")
    view = svc.queue(("inbox",))
    a, u = view.items[awi], view.items[uwi]
    ja, ju = view.judgements[awi], view.judgements[uwi]

    def hits(text: str) -> set[str]:
        q = parse_query(text)
        return {i.filename for i, j in ((a, ja), (u, ju)) if matches(q, i, j)}

    assert hits("repo:api") == {awi}
    assert hits("repo:api repo:webapp") == {awi, uwi}  # one key: alternatives
    assert hits("kind:uwi") == {uwi}
    assert hits("is:uwi") == {uwi}
    assert hits("urgency:blocking") == {uwi}
    assert hits("urgency:informational") == set()
    assert hits("is:ready") == {awi}
    assert hits("is:waiting") == {uwi}
    assert hits("is:ready kind:uwi") == set()  # different keys: all must hold


def test_the_feedback_queue_s_kinds_filter_too(mq_store) -> None:
    """The board shows both queues: `kind:tbd` / `is:feedback` pick the feedback queue's items."""
    from atk_tui.service import Service

    view = Service(mq_store, actor="user").queue()
    by_kind: dict[str, set[str]] = {}
    for name, item in view.items.items():
        by_kind.setdefault(item.kind, set()).add(name)
    assert by_kind.get("tbd") and by_kind.get("feedback"), sorted(by_kind)
    for kind, token in (("tbd", "kind:tbd"), ("feedback", "is:feedback")):
        q = parse_query(token)
        assert not q.errors
        assert {n for n, i in view.items.items() if matches(q, i, view.judgements.get(n))} == by_kind[kind]
