"""The configuration model (atk_tui/host/settings.py): every key declared once; the loader's
checker and the pydantic model built from the declarations (`atk wi schema --which config`)
take the same values; the constants other modules keep are the model's."""

from __future__ import annotations

import math
from datetime import time, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from atk_tui.domain.model import URGENCIES
from atk_tui.host import config, settings
from atk_tui.host.config import ConfigError
from atk_tui.store import freshen

#: values of every shape a TOML file can hold, good and bad for some key
PROBES: list[Any] = [
    0, 1, -1, 0.1, 0.2, 5, 2.5, 3600, 4000, math.inf, True, False, "", "  ", "x", "30m", " 2h30m ", "1d", "90s", "soon",
    "22:00-07:00", "25:00-07:00", "now", "digest", "high", "nord", "needs-you", "bottom", "ascii", [], ["a/b"], [""],
    ["ntfy://a/b", " mailto://x "], [1], {}, {"hold": "H"}, {"hold": ""}, {"hold": 1},
]  # fmt: skip


def checker_takes(key: settings.Key, value: Any) -> bool:
    try:
        settings.convert(key, value)
    except settings.BadValue:
        return False
    return True


def model_takes(table: str, key: settings.Key, value: Any) -> bool:
    model = settings.config_model()
    doc: dict[str, Any] = {key.name: value}
    if table == "notify.*":
        doc = {"notify": {"blocking": doc}}
    elif table:
        doc = {table: doc}
    try:
        model.model_validate(doc)
    except ValidationError:
        return False
    return True


CASES = [(t.name, k) for t in settings.TABLES for k in t.keys]


@pytest.mark.parametrize(("table", "key"), CASES, ids=[f"{t or 'top'}.{k.name}" for t, k in CASES])
def test_the_checker_and_the_pydantic_model_take_the_same_values(table: str, key: settings.Key) -> None:
    disagree = [v for v in PROBES if checker_takes(key, v) != model_takes(table, key, v)]
    assert disagree == []
    assert any(checker_takes(key, v) for v in PROBES) and not all(checker_takes(key, v) for v in PROBES)


def test_every_key_is_declared_with_a_meaning_and_a_default_the_checker_takes() -> None:
    for table, key in CASES:
        assert key.help, f"{table}.{key.name} has no help text"
        defaults = key.default.values() if isinstance(key.default, dict) else [key.default]
        for d in defaults:
            assert d is None or checker_takes(key, list(d) if isinstance(d, tuple) else d), (table, key.name, d)


def test_the_constants_elsewhere_are_the_models() -> None:
    top, git = settings.TABLE[""], settings.TABLE["git"]
    assert top.key("plans_root").default == config.DEFAULT_PLANS_ROOT
    assert git.key("timeout").default == config.DEFAULT_GIT_TIMEOUT
    assert freshen.read_limits({}) == (git.key("read_window").default, git.key("read_timeout").default)  # a read's, from the model
    assert (git.key("read_window").env, git.key("read_timeout").env) == ("ATK_READ_WINDOW", "ATK_READ_TIMEOUT")
    assert settings.NOTIFY_KINDS[: len(URGENCIES)] == URGENCIES


def test_the_environment_wins_over_the_file_and_is_cut_at_an_hour() -> None:
    cfg = {"git": {"read_window": 7, "pull_timeout": 8}}
    got = settings.read_table("git", cfg, environ={"ATK_READ_WINDOW": "0", "ATK_PULL_TIMEOUT": "99999"}).values
    assert (got["read_window"], got["pull_timeout"]) == (0.0, 3600.0)
    got = settings.read_table("git", cfg, environ={"ATK_READ_WINDOW": "soon", "ATK_PULL_TIMEOUT": "-1"}).values
    assert (got["read_window"], got["pull_timeout"]) == (7.0, 8.0)  # not a value: the file decides


def test_what_each_table_does_with_a_bad_value() -> None:
    # [git]: the default, silently; [tui]: a message and the default; [notify]: refused
    assert settings.read_table("git", {"git": {"timeout": "x"}}).values["timeout"] == 30.0
    got = settings.read_table("tui", {"tui": {"bell": 1, "glyphs": "ascii"}})
    assert got.errors == ["config: bell must be true or false, got 1"] and got.values["glyphs"] == "ascii"
    with pytest.raises(ConfigError, match=r"^\[notify\] poll takes a number of seconds between 0.2 and 3600, got 0$"):
        settings.read_table("notify", {"notify": {"poll": 0}})
    with pytest.raises(ConfigError, match=r"quiet_hours: not a time of day in '25:00-07:00'"):
        settings.read_table("notify", {"notify": {"quiet_hours": "25:00-07:00"}})
    got = settings.read_table("notify", {"notify": {"quiet_hours": "22:00-07:00", "digest_every": "1h"}}).values
    assert got["quiet_hours"] == (time(22), time(7)) and got["digest_every"] == timedelta(hours=1)


def test_a_store_path_that_is_not_text_says_so(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "atk").mkdir()
    (tmp_path / "atk" / "config.toml").write_text("private_notes = 3\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("ATK_PRIVATE_NOTES", raising=False)
    with pytest.raises(config.NoStoreConfigured, match=r"private_notes takes a path \(a string\), got 3; no store configured"):
        config.resolve_store(None)
