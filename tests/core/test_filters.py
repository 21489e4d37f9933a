"""The structured filter (issue 15 item 8): `repo:`, `kind:`, `urgency:`, `is:` and free text."""

from __future__ import annotations

import pytest
from support.storekit import UWI_BODY, add_item

from atk_tui.core.filters import Query, matches, parse_query


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
        ("kind:bug", "kind:bug is not one of awi, uwi"),
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
