"""The pydantic schema (core/schema.py) and the hand-written validator on the hot path agree;
`atk wi schema` prints it; the `--json` record and the config file fit it."""

from __future__ import annotations

import json
import typing
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from support.storekit import UWI_BODY, add_item

from atk_tui.cli.main import run
from atk_tui.cli.output import item_json
from atk_tui.domain.model import Kind, State, Status, Urgency
from atk_tui.itemfile import schema
from atk_tui.itemfile.items import validate_frontmatter
from atk_tui.service import Service

JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 10**8), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12), st.lists(st.text(max_size=6), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=1),
    st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 1, 1)),
)
TIMES = st.one_of(
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)),
    st.sampled_from(["2026-11-30T09:00:00+09:00", "2026-11-30T09:00:00Z", "2026-11-30T09:00:00", "2026-11-30", "yesterday", " 2026-11-30T09:00:00Z "]),
)
FILENAMES = st.sampled_from(["a.md", "20261129-101500-x.md", "../x.md", "b c.md", "x", ".md", "ok_1.md"])
VALUES = {
    "kind": st.one_of(st.sampled_from(["awi", "uwi", "AWI", ""]), JUNK),
    "source": st.one_of(st.sampled_from(["process-wi"]), JUNK),
    "target_repo": st.one_of(st.sampled_from(["acme/api", "", "  "]), JUNK),
    "target_commit": JUNK,
    "plan_file": st.one_of(st.sampled_from(["$(atk config get private_notes)/plans/2026/11/p.md"]), JUNK),
    "depends_on": st.one_of(st.none(), st.lists(FILENAMES, max_size=3), st.lists(st.one_of(FILENAMES, st.integers()), max_size=2), JUNK),
    "cooldown_until": st.one_of(TIMES, JUNK),
    "created": st.one_of(TIMES, JUNK),
    "urgency": st.one_of(st.sampled_from(["blocking", "next-review", "informational", "urgent"]), JUNK),
    "note": JUNK,
    "commit": st.one_of(st.integers(), JUNK),
    "x-custom": JUNK,
}


@st.composite
def frontmatters(draw: st.DrawFn) -> dict[str, object]:
    keys = draw(st.sets(st.sampled_from(sorted(VALUES))))
    # mostly valid mappings, so both the accepting and the refusing sides are exercised
    base: dict[str, object] = {"kind": "awi", "target_repo": "acme/api"} if draw(st.booleans()) else {}
    return {**base, **{k: draw(VALUES[k]) for k in keys}}


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frontmatters())
def test_validator_and_schema_agree(data: dict[str, object]) -> None:
    typed, errors = validate_frontmatter(dict(data))
    try:
        model = schema.Frontmatter.model_validate(dict(data))
    except ValidationError as exc:
        assert errors, f"the schema refuses what the validator accepts: {exc}"
        return
    assert not errors, f"the validator refuses what the schema accepts: {errors}"
    for key, value in typed.items():
        assert getattr(model, key) == value, key


def test_vocabularies_match_the_enums() -> None:
    assert typing.get_args(schema.KindName) == Kind.values()
    assert typing.get_args(schema.UrgencyName) == Urgency.values()
    assert typing.get_args(schema.StateName) == State.values()
    assert typing.get_args(schema.StatusName) == Status.values()


def test_json_records_fit_the_schema(svc: Service) -> None:
    a = add_item(svc)
    add_item(svc, kind="uwi", body=UWI_BODY, depends_on=[a])
    view = svc.queue()
    assert len(view.items) == 2
    for item in view.items.values():
        record = item_json(item, view.judgements.get(item.filename), view.blocks.get(item.filename))
        schema.Record.model_validate(record)
    with pytest.raises(ValidationError):
        schema.Record.model_validate({**record, "state": "done"})


def test_config_schema() -> None:
    schema.Config.model_validate({"private_notes": "/n", "git": {"timeout": 5}, "tui": {"pull_interval": 0, "bell": False}})
    with pytest.raises(ValidationError):
        schema.Config.model_validate({"tui": {"default_sort": "random"}})


@pytest.mark.parametrize("which", ["item", "config", "record"])
def test_atk_wi_schema_prints_json_schema(which: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["wi", "schema"] + ([] if which == "item" else ["--which", which])
    assert run(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == schema.MODELS[which].model_json_schema()
    if which == "item":
        assert set(printed["required"]) == {"kind", "target_repo"}
        assert printed["properties"]["urgency"]["anyOf"][0]["enum"] == list(Urgency.values())


def test_naive_and_aware_times_follow_the_rules() -> None:
    jst = timezone(timedelta(hours=9))
    ok = {"kind": "awi", "target_repo": "r", "created": datetime(2026, 1, 1), "cooldown_until": datetime(2026, 1, 1, tzinfo=jst)}
    assert validate_frontmatter(ok)[1] == []
    schema.Frontmatter.model_validate(ok)
    bad = {**ok, "cooldown_until": datetime(2026, 1, 1)}
    assert validate_frontmatter(bad)[1]
    with pytest.raises(ValidationError):
        schema.Frontmatter.model_validate(bad)
