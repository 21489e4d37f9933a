"""The `answer_by` frontmatter key (SPEC §16): a question's own deadline, from `atk wi add
--answer-by` or the body's frontmatter, validated by the field table, in `--json`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.clikit import Atk

from atk_tui.domain.fields import BY_NAME
from atk_tui.itemfile.items import parse_item
from atk_tui.service import Service
from atk_tui.service.writing.itemmeta import parse_answer_by
from atk_tui.store import AtkError

QUESTION = "# Ship on Friday?\n\n## 質問\nShip?\n\n- A) yes\n- B) no\n\n推奨: A) yes\n"


def test_the_field_table_has_answer_by_as_a_question_time() -> None:
    f = BY_NAME["answer_by"]
    assert (f.shape, f.question_only) == ("time", True)
    text = b"---\nkind: uwi\ntarget_repo: a/b\nanswer_by: 2026-12-05T15:00:00+09:00\n---\n# Q\n"
    item = parse_item("20261205-120000-q.md", "inbox", text)
    assert item.answer_by == datetime(2026, 12, 5, 6, 0, tzinfo=UTC) and not item.defects
    bad = parse_item("20261205-120000-q.md", "inbox", text.replace(b"2026-12-05T15:00:00+09:00", b"soon"))
    assert bad.defective and "answer_by" in bad.defects[0]


def test_parse_answer_by_takes_a_time_or_a_duration() -> None:
    now = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    assert parse_answer_by("30m", now) == datetime(2026, 12, 5, 12, 30, tzinfo=UTC)
    assert parse_answer_by("1d2h", now) == datetime(2026, 12, 6, 14, 0, tzinfo=UTC)
    assert parse_answer_by("2026-12-05T18:00:00+09:00", now) == datetime(2026, 12, 5, 9, 0, tzinfo=UTC)
    assert parse_answer_by("2026-12-05T18:00:00", now) == datetime(2026, 12, 5, 18, 0, tzinfo=UTC)
    with pytest.raises(AtkError, match="--answer-by takes"):
        parse_answer_by("tomorrow", now)


def test_atk_wi_add_answer_by_writes_the_key_and_json_shows_it(store: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    atk = Atk(store, capsys)
    body = tmp_path / "q.md"
    body.write_text(QUESTION)
    rc, out, err = atk("wi", "add", "--kind", "uwi", "--target-repo", "acme/webapp", "--body-file", str(body),
                       "--answer-by", "2026-12-05T15:00:00Z", "--skip-pull")  # fmt: skip
    assert rc == 0, err
    name = out.split()[0]
    text = (store / "wi" / "inbox" / name).read_text()
    assert "answer_by: 2026-12-05T15:00:00Z" in text or "answer_by: 2026-12-05T15:00:00+00:00" in text
    rc, out, err = atk("wi", "show", name, "--json", "--skip-pull")
    assert rc == 0, err
    assert json.loads(out.splitlines()[0])["answer_by"].startswith("2026-12-05T15:00:00")


def test_answer_by_goes_with_a_question_only(svc: Service) -> None:
    out = svc.writes.add(kind="awi", target_repo="a/b", body="# do it\n", answer_by=datetime(2026, 12, 5, tzinfo=UTC))
    assert not out.ok and "--answer-by goes with --kind uwi only" in out.message


def test_the_body_frontmatter_may_carry_answer_by(svc: Service) -> None:
    body = "---\nanswer_by: 2026-12-06T00:00:00Z\n---\n" + QUESTION
    out = svc.writes.add(kind="uwi", target_repo="a/b", body=body)
    assert out.ok, out.message
    assert out.item is not None and out.item.answer_by == datetime(2026, 12, 6, tzinfo=UTC)

