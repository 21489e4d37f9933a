"""Facts the docs state that the code decides: the config keys, the keys of the README, the
version and the CHANGELOG, the examples `--help` ends with (issue 30)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from atk_tui.host import settings
from atk_tui.host.config import git_limits
from atk_tui.itemfile import schema
from atk_tui.service.elsewhere import afkkit as elsewhere
from atk_tui.store import freshen
from atk_tui.tui.config import ALERT_FLAGS, load_tui_config
from atk_tui.tui.keymap import key_label, main_entries

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ROW_KEY = re.compile(r"^\| `([a-z_]+)` \|")


def documented(section: str) -> set[str]:
    """The keys in the table under `## <section>` of docs/configuration.md."""
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return {m.group(1) for line in body.splitlines() if (m := ROW_KEY.match(line))}


def tui_known(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The [tui] keys the loader knows, as its own error message lists them."""
    (tmp_path / "atk").mkdir()
    (tmp_path / "atk" / "config.toml").write_text("[tui]\nno_such_setting = 1\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (error,) = [e for e in load_tui_config().errors if "unknown [tui] setting" in e]
    return {k.strip() for k in error.split("settings: ", 1)[1].split(",")}


def test_configuration_md_names_every_key_the_code_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    known = tui_known(tmp_path, monkeypatch)
    assert set(ALERT_FLAGS) <= known
    assert documented("tui") == known == {k.name for k in settings.TABLE["tui"].keys}
    git = set(git_limits({})) | {"read_window", "read_timeout"}
    assert documented("git") == git == {k.name for k in settings.TABLE["git"].keys}
    assert freshen.read_limits({}) == (2.0, 3.0)
    top = {k.name for k in settings.TABLE[""].keys}
    assert documented("Top level") == top == {"private_notes", "plans_root"}
    # the JSON Schema agents read (`atk wi schema --which config`) has the same keys
    fields = schema.Config.model_fields
    assert set(fields) - {"git", "tui", "elsewhere", "notify"} == top
    assert set(fields["git"].annotation.__args__[0].model_fields) == git
    assert set(fields["tui"].annotation.__args__[0].model_fields) == known
    assert documented("elsewhere") == set(elsewhere.DEFAULTS) == set(fields["elsewhere"].annotation.__args__[0].model_fields)


def test_the_key_tables_are_written_from_the_model() -> None:
    """docs/configuration.md's key tables are the model's (`scripts/config_docs.py` writes them)."""
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert text.count("<!-- keys: ") == len(settings.TABLES) == text.count("<!-- /keys -->")
    assert settings.render_doc(text) == text, "run .venv/bin/python scripts/config_docs.py"
    # a doc that says another default, or lacks a key, is rewritten: the check can fail
    drifted = text.replace("| `timeout` | 30 |", "| `timeout` | 60 |").replace("| `bell` | true |", "| `bel` | true |")
    assert drifted != text and settings.render_doc(drifted) == text
    script = subprocess.run([sys.executable, str(ROOT / "scripts" / "config_docs.py"), "--check"], capture_output=True, text=True)
    assert script.returncode == 0, script.stderr


KEY_ROW = re.compile(r"^\| `([^`]+)` \| .+ \| `([a-z_.]+)` \|$")


@pytest.mark.parametrize("doc", ["README.md", "docs/user-guide.md"])
def test_the_key_tables_match_the_bindings(doc: str) -> None:
    rows = [m.groups() for line in (ROOT / doc).read_text(encoding="utf-8").splitlines() if (m := KEY_ROW.match(line))]
    assert len(rows) >= 10, f"{doc}: no key table found"
    ids = {e.id for e in main_entries() if e.id}
    for key, binding_id in rows:
        assert binding_id in ids, f"{doc}: {binding_id!r} is no binding id"
        assert key_label(binding_id) == key, f"{doc}: {binding_id} is {key_label(binding_id)!r}, the table says {key!r}"


def test_the_user_guide_lists_every_binding_id() -> None:
    text = (ROOT / "docs" / "user-guide.md").read_text(encoding="utf-8")
    missing = sorted(e.id for e in main_entries() if e.id and f"`{e.id}`" not in text)
    assert missing == []


def test_the_version_printed_is_the_changelogs_latest_release() -> None:
    out = subprocess.run([str(BIN / "atk"), "--version"], capture_output=True, text=True, check=True).stdout.split()
    tui = subprocess.run([str(BIN / "atk-tui"), "--version"], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "atk" and tui[0] == "atk-tui" and out[1] == tui[1]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.MULTILINE)
    assert releases, "CHANGELOG.md has no released version (`## [X.Y.Z] - YYYY-MM-DD`)"
    assert out[1] == releases[0], f"--version prints {out[1]}, the CHANGELOG's latest release is {releases[0]}"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(rf'^version = "{re.escape(releases[0])}"$', pyproject, re.MULTILINE)
    assert "## [Unreleased]" in changelog


@pytest.mark.parametrize("prog", ["atk", "atk-tui"])
def test_help_ends_with_three_examples(prog: str) -> None:
    out = subprocess.run([str(BIN / prog), "--help"], capture_output=True, text=True, check=True).stdout.rstrip()
    tail = out.split("\nexamples:\n")
    assert len(tail) == 2, f"{prog} --help has no examples section at its end"
    lines = tail[1].splitlines()
    assert len(lines) == 3 and all(line.startswith(f"  {prog} ") for line in lines), lines
