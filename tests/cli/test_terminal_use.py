"""The command line as a terminal user meets it (issue 15 item 5): shell completion generated
from the parser, output measured in terminal cells, "no items", `atk-tui --demo` cleaning up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.fuzz import run_on_pty
from support.storekit import add_item

from atk_tui.cli.main import run
from atk_tui.cli.output import terminal_table
from atk_tui.cli.parser import completion_script
from atk_tui.text.cells import cell_len, cut, fit

BIN = Path(sys.executable).parent
ATK = BIN / "atk"


def in_terminal(args: list[str], cols: int = 80, env: dict[str, str] | None = None) -> str:
    """Run a real binary with a pseudo-terminal `cols` wide as stdout/stderr; what it printed."""
    return run_on_pty(args, env or os.environ.copy(), cols=cols, rows=24).decode("utf-8").replace("\r\n", "\n")


# --- cells ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "width", "expected"),
    [
        ("abc", 5, "abc"),
        ("abcdef", 4, "abc…"),
        ("ログインのルール", 5, "ログ…"),  # 2+2+1
        ("ログインのルール", 4, "ロ…"),  # the third cell would split a wide character: left out
        ("aログ", 5, "aログ"),
        ("abc", 0, ""),
    ],
)
def test_cut_measures_cells_and_never_splits_a_wide_character(text: str, width: int, expected: str) -> None:
    assert cut(text, width) == expected
    assert cell_len(cut(text, width)) <= width


def test_fit_pads_to_exactly_the_width() -> None:
    for text in ("ログインのルール", "abc", "aログ", ""):
        for width in range(1, 12):
            assert cell_len(fit(text, width)) == width, (text, width)


def test_terminal_table_aligns_cjk_and_latin_rows_by_cells() -> None:
    rows = [["a.md", "ログインのルール", "end"], ["bbbbbbbb.md", "login rule", "end"]]
    lines = terminal_table(rows, 200)
    # the third column starts at the same cell on both lines
    starts = [cell_len(line[: line.index("end")]) for line in lines]
    assert starts[0] == starts[1]
    assert all(cell_len(line) <= 199 for line in terminal_table(rows, 20))


# --- atk wi list in a terminal ----------------------------------------------------------


def test_list_in_an_80_column_terminal_cuts_rows_by_display_width(svc, store: Path) -> None:
    add_item(svc, body="# ログインのルールを統一するかどうかを決めてほしいという長いタイトルの質問です\n\n本文\n")
    add_item(svc, body="# a plain latin title that is also rather long for an eighty column terminal\n\nbody\n")
    out = in_terminal([str(ATK), "wi", "list", "--store", str(store)], cols=80)
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 2, out
    for line in lines:
        assert cell_len(line) <= 79, (cell_len(line), line)
        assert line.startswith("ready  ") and "…" in line, line  # status first, the title cut (issue 44)
    # columns line up in cells: the filename column starts at the same cell on both rows
    assert len({cell_len(line[: line.index("2026")]) for line in lines}) == 1, out


def test_an_empty_listing_in_a_terminal_says_no_items(store: Path) -> None:
    assert in_terminal([str(ATK), "wi", "list", "--store", str(store)]).strip() == "no items"
    assert in_terminal([str(ATK), "wi", "list", "--status", "hold", "--store", str(store)]).strip() == "no items (--status=hold)"


def test_an_empty_listing_piped_prints_nothing(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["wi", "list", "--store", str(store)]) == 0
    assert capsys.readouterr().out == ""


def test_piped_rows_stay_tab_separated_and_uncut(svc, store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    title = "ログインのルールを統一するかどうかを決めてほしいという長いタイトルの質問です" * 2
    add_item(svc, body=f"# {title}\n\nbody\n")
    assert run(["wi", "list", "--store", str(store)]) == 0
    row = capsys.readouterr().out.rstrip("\n")
    assert row.split("\t")[4] == title


# --- completion -------------------------------------------------------------------------


def bash_complete(line: str) -> list[str]:
    """What bash offers for `line` (cursor at its end) with `atk completion bash` loaded."""
    words = line.split(" ")
    script = completion_script("bash")
    prog = f"""
{script}
COMP_WORDS=({' '.join(repr(w) if w else "''" for w in words)})
COMP_CWORD={len(words) - 1}
COMP_LINE={line!r}
COMP_POINT={len(line)}
_shtab_atk atk "{words[-1]}" "{words[-2]}"
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    out = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_bash_completion_completes_commands_and_options_from_the_parser() -> None:
    assert bash_complete("atk w") == ["wi"]
    assert bash_complete("atk wi start") == ["start-processing"]
    assert set(bash_complete("atk wi set-urgency F ")) >= {"blocking", "next-review", "informational"}
    assert "--partial" in bash_complete("atk wi answer --p")
    assert "completion" in bash_complete("atk c")


def test_the_completion_command_prints_each_shell_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["completion", "bash"]) == 0
    assert "complete -o bashdefault -F _shtab_atk atk" in capsys.readouterr().out
    assert run(["completion", "zsh"]) == 0
    z = capsys.readouterr().out
    assert z.startswith("#compdef atk") and "start-processing" in z
    assert run(["completion", "fish"]) == 0
    f = capsys.readouterr().out
    assert "complete -c atk" in f and "start-processing" in f
    assert run(["completion", "bash", "--prog", "atk-tui"]) == 0
    t = capsys.readouterr().out
    assert "--demo" in t and "--keep" in t and "atk-tui" in t


def test_completion_through_the_console_script() -> None:
    out = subprocess.run([str(ATK), "completion", "fish"], capture_output=True, text=True, check=True).stdout
    assert "complete -c atk" in out


# --- atk-tui --demo cleans up ------------------------------------------------------------


def test_demo_keep_without_demo_is_a_usage_error() -> None:
    proc = subprocess.run([str(BIN / "atk-tui"), "--keep"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "--keep goes with --demo" in proc.stderr


def _demo_dirs(tmp: Path) -> set[str]:
    return {p.name for p in tmp.iterdir() if p.name.startswith("atk-demo-")}


@pytest.mark.parametrize("keep", [False, True])
def test_demo_store_is_deleted_on_exit_unless_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str], keep: bool) -> None:
    import atk_tui.__main__ as entry

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read again
    seen: list[Path] = []

    def fake_run(root: Path, args: object) -> int:  # the app itself is exercised elsewhere
        seen.append(root)
        assert (root / ".git").is_dir()
        return 0

    monkeypatch.setattr(entry, "_run", fake_run)
    with pytest.raises(SystemExit) as exc:
        entry.main(["--demo", *(["--keep"] if keep else [])])
    assert exc.value.code == 0
    err = capsys.readouterr().err
    assert len(seen) == 1 and seen[0].is_relative_to(tmp_path)
    if keep:
        assert seen[0].is_dir()
        assert f"demo store kept at {seen[0]}" in err
    else:
        assert _demo_dirs(tmp_path) == set()
        assert "kept" not in err


# --- a write waiting for the store lock says so on stderr --------------------------------


def test_a_write_waiting_for_the_lock_says_so_on_stderr(store: Path) -> None:
    from filelock import FileLock

    lock = FileLock(str(store / ".git" / "atk.lock"))
    with lock:
        env = {**os.environ, "ATK_LOCK_TIMEOUT": "0.5"}
        proc = subprocess.run([str(ATK), "wi", "add", "# t\n\nbody", "--target-repo", "acme/x", "--store", str(store)],
                              capture_output=True, text=True, env=env)
    assert proc.returncode == 1
    assert "waiting for the store lock" in proc.stderr, proc.stderr
    assert "store busy" in proc.stderr
    proc = subprocess.run([str(ATK), "wi", "add", "# t\n\nbody", "--target-repo", "acme/x", "--store", str(store)], capture_output=True, text=True)
    assert proc.returncode == 0 and "waiting" not in proc.stderr  # a free lock: no message


def test_host_and_port_go_with_serve() -> None:
    proc = subprocess.run([str(BIN / "atk-tui"), "--port", "9000"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--host and --port go with --serve" in proc.stderr


def test_serve_refuses_a_path_that_is_not_a_store(tmp_path: Path) -> None:
    proc = subprocess.run([str(BIN / "atk-tui"), "--serve", "--store", str(tmp_path), "--port", "1"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "is not an atk store" in proc.stderr  # exit 1 as atk's (issue 44)
