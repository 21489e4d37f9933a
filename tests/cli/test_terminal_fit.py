"""`atk` as a terminal user meets it (issue 44): `atk wi list` rows with the status and the
title first, fitted to 80 and 120 columns (the filename shortened in its middle; whole with
`--wide`, piped and in `--json`), the same from the warm fast path (`cli.quicklist`) and the
full command line; "did you mean" for a mistyped command or option."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.fuzz import run_on_pty
from support.listingkit import settle
from support.storekit import add_item

from atk_tui.cli.output import list_table
from atk_tui.text.cells import cell_len

BIN = Path(sys.executable).parent
ATK = str(BIN / "atk")
LONG_TITLE = "Rate-limit the login endpoint so that brute force attempts are slowed down"
CJK_TITLE = "ログインのルールを統一するかどうかを決めてほしいという質問"


def in_terminal(args: list[str], cols: int) -> list[str]:
    out = run_on_pty([ATK, *args], os.environ.copy(), cols=cols, rows=24).decode("utf-8").replace("\r\n", "\n")
    return [line for line in out.splitlines() if line.strip()]


@pytest.fixture
def listed(svc, store: Path) -> dict[str, str]:
    """Two items with long titles and long filenames; their filenames by title."""
    a = add_item(svc, body=f"# {LONG_TITLE}\n\n- 反映内容: x\n", target_repo="acme/web-frontend-service")
    q = add_item(svc, kind="uwi", body=f"# {CJK_TITLE}\n\n## 質問\nWhich?\n\n- A) one\n- B) two\n", target_repo="acme/web")
    settle(store)  # older than git's racy window, as a store is between commands: a listing is cached
    return {LONG_TITLE: a, CJK_TITLE: q}


def test_at_80_columns_each_row_starts_with_its_status_and_title_and_fits(listed: dict[str, str], store: Path) -> None:
    lines = in_terminal(["wi", "list", "--store", str(store)], 80)
    assert len(lines) == 2, lines
    for line in lines:
        assert cell_len(line) <= 79, (cell_len(line), line)
    by_status = {line.split()[0]: line for line in lines}
    assert set(by_status) == {"ready", "waiting"}, lines
    # the title comes right after the status, readable (at least its first words)
    assert by_status["ready"].split(None, 1)[1].startswith("Rate-limit the login")
    assert by_status["waiting"].split(None, 1)[1].startswith("ログインのルール")
    # the filename is there, shortened in the middle: both of its ends kept
    name = listed[LONG_TITLE]
    tail = by_status["ready"].rstrip().split()[-1]
    assert "…" in tail and name.startswith(tail.split("…")[0]) and name.endswith(tail.split("…")[1]), tail


def test_at_120_columns_state_kind_and_repository_show_too(listed: dict[str, str], store: Path) -> None:
    lines = in_terminal(["wi", "list", "--store", str(store)], 120)
    assert all(cell_len(line) <= 119 for line in lines), lines
    ready = next(line for line in lines if line.startswith("ready"))
    for word in ("inbox", "AWI/normal", "acme/web-f", "-service"):  # the repository: both ends
        assert word in ready, ready
    # the columns line up in cells, the CJK title's row too
    assert len({cell_len(line[: line.index("inbox")]) for line in lines}) == 1, lines


def test_wide_keeps_the_filename_and_title_whole(listed: dict[str, str], store: Path) -> None:
    text = "\n".join(in_terminal(["wi", "list", "--wide", "--store", str(store)], 80))
    for title, name in listed.items():
        assert name in text and title in text


def test_piped_and_json_rows_keep_the_filename_whole(listed: dict[str, str], store: Path) -> None:
    env = {**os.environ, "COLUMNS": "80"}
    piped = subprocess.run([ATK, "wi", "list", "--store", str(store)], capture_output=True, text=True, env=env, check=True)
    rows = [line.split("\t") for line in piped.stdout.splitlines()]
    assert {r[0] for r in rows} == set(listed.values()) and {r[4] for r in rows} == set(listed)
    records = subprocess.run([ATK, "wi", "list", "--json", "--store", str(store)], capture_output=True, text=True, check=True)
    assert {json.loads(line)["filename"] for line in records.stdout.splitlines()} == set(listed.values())


@pytest.mark.parametrize("cols", [80, 120])
def test_the_fast_path_and_the_full_command_line_print_the_same_rows(listed: dict[str, str], store: Path, cols: int) -> None:
    """The first listing runs the full command line (and fills the cache); the second is
    printed by the warm fast path (`cli.quicklist`, with the full command line unloadable)."""
    cold = in_terminal(["wi", "list", "--store", str(store)], cols)
    code = (
        "import sys; sys.modules['atk_tui.cli.main'] = None; "  # a miss would import it: ImportError
        f"sys.argv = ['atk', 'wi', 'list', '--store', {str(store)!r}]; "
        "from atk_tui.cli.quicklist import main; main()"
    )
    out = run_on_pty([sys.executable, "-c", code], os.environ.copy(), cols=cols, rows=24).decode().replace("\r\n", "\n")
    warm = [line for line in out.splitlines() if line.strip()]
    assert warm == cold and len(cold) == 2, out
    # --wide too
    wide_cold = in_terminal(["wi", "list", "--wide", "--status", "all", "--store", str(store)], cols)
    wide_warm = in_terminal(["wi", "list", "--wide", "--status", "all", "--store", str(store)], cols)
    assert wide_cold == wide_warm


def test_list_table_drops_repository_kind_then_state_as_the_terminal_narrows() -> None:
    row = ["20261201-101010-a-rather-long-filename-for-an-item.md", "processing", "AWI/normal", "acme/a-long-repository", LONG_TITLE, "ready"]
    wide = list_table([row], 200)[0]
    assert all(word in wide for word in ("processing", "AWI/normal", "acme/a-long-repository"))
    at80 = list_table([row], 80)[0]
    assert "acme/" not in at80 and at80.startswith("ready  Rate-limit")
    at60 = list_table([row], 60)[0]
    assert "processing" not in at60 and cell_len(at60) <= 59
    assert list_table([row], 80, wide=True)[0].endswith(row[0])


# --- did you mean -------------------------------------------------------------------------


def atk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ATK, *args], capture_output=True, text=True)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["wi", "lsit"], "did you mean 'list'?"),
        (["mq", "shw", "x"], "did you mean 'show'?"),
        (["wii", "list"], "did you mean 'wi'?"),
        (["wi", "start-procesing", "x"], "did you mean 'start-processing'?"),
    ],
)
def test_a_mistyped_command_gets_the_nearest_one_not_the_whole_list(args: list[str], said: str) -> None:
    proc = atk(*args)
    assert proc.returncode == 2
    assert said in proc.stderr, proc.stderr
    assert "set-dependencies" not in proc.stderr, "the error lists every command again"
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_a_mistyped_option_gets_the_nearest_one_with_its_commands_usage(store: Path) -> None:
    proc = atk("wi", "list", "--stauts", "all", "--store", str(store))
    assert proc.returncode == 2
    assert "did you mean --status?" in proc.stderr, proc.stderr
    assert "usage: atk wi list" in proc.stderr, proc.stderr
    proc = atk("wi", "hold", "x", "--skip-psuh", "--store", str(store))
    assert proc.returncode == 2 and "did you mean --skip-push?" in proc.stderr and "usage: atk wi hold" in proc.stderr


def test_nothing_close_gets_no_guess() -> None:
    proc = atk("wi", "zzzzzz")
    assert proc.returncode == 2 and "unknown command 'zzzzzz'" in proc.stderr and "did you mean" not in proc.stderr


def test_every_option_and_argument_of_every_command_says_what_it_is() -> None:
    """`atk init --help` had no word for `path`; no command's --help leaves one out."""
    import argparse

    from atk_tui.cli.parser import build_parser

    bare = []

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*words, name])
            elif not action.option_strings and not action.help:
                bare.append(" ".join([*words, action.dest]))

    walk(build_parser(), ["atk"])
    assert bare == []
