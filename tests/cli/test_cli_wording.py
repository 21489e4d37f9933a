"""Issue 17, the command-line lines: ages and cooldowns said in words, the pushed SHA after a
rebase, git's meaningful lines for a failed pull, what leaving `rejected` clears, what
`--target-repo` does per command, and `add`'s lint warnings. Real stores, a bare remote."""

from __future__ import annotations

import re
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from support.clikit import Atk
from support.clock import NOW
from support.storekit import AWI_BODY, Clock, add_item, clone, git

from atk_tui.cli.parser import TARGET_REPO_ITEMS, target_repo_help
from atk_tui.domain.ages import age, ago, time_left
from atk_tui.itemfile.items import parse_item
from atk_tui.service import Service
from atk_tui.store import git_error_lines, push_failure_reason

# --- 1. one relative-time function: "just now", never "now ago" -------------------------


@pytest.mark.parametrize(
    ("back", "said"),
    [
        (timedelta(0), "just now"),
        (timedelta(seconds=59), "just now"),
        (timedelta(seconds=-5), "just now"),  # a clock a little behind the item's
        (timedelta(minutes=3), "3m ago"),
        (timedelta(hours=2, minutes=59), "2h ago"),
        (timedelta(days=5), "5d ago"),
        (timedelta(days=15), "2w ago"),
    ],
)
def test_ago_says_just_now_then_units(back: timedelta, said: str) -> None:
    assert ago(NOW - back, NOW) == said
    assert "now ago" not in ago(NOW - back, NOW)


def test_the_compact_age_and_a_naive_time() -> None:
    assert age(NOW, NOW) == "now"
    assert age(None, NOW) == "?" and ago(None, NOW) == "unknown"
    naive = (NOW - timedelta(hours=2)).replace(tzinfo=None)  # taken as UTC, as readiness does
    assert age(naive, NOW) == "2h"


def test_time_left_in_words_and_compact() -> None:
    until = NOW + timedelta(hours=2, minutes=10)
    assert time_left(until, NOW) == "2h 10m left"
    assert time_left(until, NOW, compact=True) == "2h10m left"
    assert time_left(NOW + timedelta(seconds=20), NOW) == "<1m left"
    assert time_left(NOW + timedelta(days=3, hours=4), NOW, compact=True) == "3d4h left"


# --- 2. the text listing says a cooldown's time left ---------------------------------------


def test_text_list_says_the_cooldown_time_left(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    atk = Atk(store, capsys)
    svc = Service(store, actor="user")
    name = add_item(svc)
    rc, out, err = atk("wi", "set-cooldown", name, "--until", "130m")
    assert rc == 0, err
    rc, out, err = atk("wi", "list", "--no-json")  # piped: tab-separated, uncut
    assert rc == 0, err
    row = next(line for line in out.splitlines() if line.startswith(name))
    status = row.split("\t")[-1]
    assert re.fullmatch(r"cooldown 2h (9|10)m left", status), row


# --- 3. after a rebase retry the printed SHA is the pushed one -----------------------------


def _push_from_elsewhere(remote: Path, tmp: Path) -> None:
    """Another machine pushes a commit first: our next push is behind and must rebase."""
    other = clone(remote, tmp / "other")
    (other / "elsewhere.txt").write_text("made on another machine\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "elsewhere")
    git(other, "push", "-q")


@pytest.mark.parametrize(
    "command",
    [("hold",), ("set-cooldown", "--until", "2h"), ("start-processing",), ("rm",)],
    ids=lambda c: c[0],
)
def test_the_printed_sha_is_the_pushed_one_after_a_rebase(
    remote_store: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    root, remote = remote_store
    name = add_item(Service(root, clock=Clock(), actor="user"))
    _push_from_elsewhere(remote, tmp_path)
    before = git(root, "rev-parse", "HEAD").strip()
    # no pull before the write: the push is refused as behind, pulled with a rebase, retried
    rc, out, err = Atk(root, capsys)("wi", command[0], name, *command[1:], "--skip-pull")
    assert rc == 0, err
    head = git(root, "rev-parse", "HEAD").strip()
    pushed = git(remote, "rev-parse", "refs/heads/main").strip()
    assert head == pushed != before
    assert git(root, "log", "-1", "--format=%s", "HEAD~1").strip() == "elsewhere"  # it did rebase
    printed = re.search(r"\(([0-9a-f]{10})\) pushed\s*$", out)
    assert printed, out
    assert head.startswith(printed.group(1)), (out, head)


def test_the_service_reports_the_rebased_commit(remote_store: tuple[Path, Path], tmp_path: Path) -> None:
    root, remote = remote_store
    svc = Service(root, clock=Clock(), actor="user", pull=False)
    _push_from_elsewhere(remote, tmp_path)
    out = svc.writes.add(kind="awi", target_repo="acme/webapp", body=AWI_BODY)
    assert out.ok and out.pushed, out
    assert out.commit == git(root, "rev-parse", "HEAD").strip() == git(remote, "rev-parse", "main").strip()


# --- 4. a failed pull says git's meaningful lines ------------------------------------------

NO_REPO = """\
fatal: '/gone/store-remote.git' does not appear to be a git repository
fatal: Could not read from remote repository.

Please make sure you have the correct access rights
and the repository exists.
"""


def test_git_error_lines_keeps_the_fatal_lines_not_the_boilerplate() -> None:
    said = git_error_lines(NO_REPO)
    assert "'/gone/store-remote.git' does not appear to be a git repository" in said
    assert "Could not read from remote repository." in said
    assert "repository exists" not in said and "access rights" not in said
    assert git_error_lines("hint: try again\nsomething broke\n") == "something broke"
    assert git_error_lines("") == "unknown error"
    assert "does not appear to be a git repository" in push_failure_reason(NO_REPO)


def _lose_the_remote(remote: Path) -> None:
    remote.rename(remote.with_name("moved-away.git"))


def test_a_failed_pull_and_push_say_why(remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    root, remote = remote_store
    name = add_item(Service(root, clock=Clock(), actor="user"))
    _lose_the_remote(remote)
    rc, _out, err = Atk(root, capsys)("wi", "hold", name)
    assert rc == 0, err  # the write is kept locally
    pull = next(line for line in err.splitlines() if "could not pull from the remote" in line)
    assert "does not appear to be a git repository" in pull and "Could not read from remote repository" in pull, pull
    assert not pull.rstrip().endswith("and the repository exists."), pull
    push = next(line for line in err.splitlines() if "unpushed commit" in line)
    assert "does not appear to be a git repository" in push, push


def test_a_failed_fetch_says_why(remote_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """`atk wi commit` fetches (then rebases, setting conflicts aside): the same lines."""
    root, remote = remote_store
    add_item(Service(root, clock=Clock(), actor="user", push=False))
    _lose_the_remote(remote)
    _rc, _out, err = Atk(root, capsys)("wi", "commit")
    fetch = next(line for line in err.splitlines() if "could not pull from the remote" in line)
    assert "does not appear to be a git repository" in fetch, fetch
    assert "repository exists" not in fetch, fetch


def test_a_pull_failing_in_the_push_retry_says_why(
    remote_store: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The push is refused as behind, and the pull that should let it retry fails: git's reason
    (not "hit a conflict"). Pushes go to the real remote, fetches to a path that is gone."""
    root, remote = remote_store
    name = add_item(Service(root, clock=Clock(), actor="user"))
    _push_from_elsewhere(remote, tmp_path)
    git(root, "config", "remote.origin.pushurl", str(remote))
    git(root, "config", "remote.origin.url", str(tmp_path / "gone.git"))
    rc, _out, err = Atk(root, capsys)("wi", "hold", name, "--skip-pull")
    assert rc == 0, err
    said = next(line for line in err.splitlines() if "unpushed commit" in line)
    assert "does not appear to be a git repository" in said and "conflict" not in said, said


def test_a_conflict_in_the_push_retry_is_still_called_one(
    remote_store: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, remote = remote_store
    name = add_item(Service(root, clock=Clock(), actor="user"))
    other = clone(remote, tmp_path / "other")
    path = other / "wi" / "inbox" / name
    path.write_text(path.read_text() + "\nchanged on another machine\n")
    git(other, "commit", "-q", "-am", "elsewhere")
    git(other, "push", "-q")
    rc, _out, err = Atk(root, capsys)("wi", "edit", name, "# Changed here\n\nnew body\n", "--skip-pull")
    assert rc == 0, err
    said = next(line for line in err.splitlines() if "unpushed commit" in line)
    assert "rebase onto the remote hit a conflict" in said, said


# --- 5. leaving rejected clears the reject's note, and says so -----------------------------


@pytest.mark.parametrize("queue", ["wi", "mq"])
def test_return_from_rejected_clears_the_note_and_says_so(
    store: Path, capsys: pytest.CaptureFixture[str], queue: str
) -> None:
    atk = Atk(store, capsys)
    kind = [] if queue == "wi" else ["--kind", "feedback"]
    rc, out, err = atk(queue, "add", "--target-repo", "acme/webapp", *kind, AWI_BODY)
    assert rc == 0, err
    name = out.splitlines()[0]
    for step in (("start-processing", name), ("reject", name, "--note", "a duplicate")):
        rc, out, err = atk(queue, *step)
        assert rc == 0, err
    path = store / queue / "rejected" / name
    assert "note: a duplicate" in path.read_text()
    rc, out, err = atk(queue, "return-to-inbox", name, "--state=rejected")
    assert rc == 0, err
    text = (store / queue / "inbox" / name).read_text()
    assert parse_item(name, "inbox", text.encode(), queue=queue).note is None
    assert "note:" not in text
    assert "cleared the note 'a duplicate'" in err and "history" in err, err  # a note beside the one line
    assert out.startswith(f"return-to-inbox {name} (") and "cleared" not in out, out
    assert "note: a duplicate" in git(store, "show", f"HEAD~1:{queue}/rejected/{name}")  # kept as history


def test_return_from_processing_leaves_a_note_alone_and_says_nothing(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only leaving a terminal state clears: a processing item's keys are its own."""
    atk = Atk(store, capsys)
    svc = Service(store, actor="user")
    name = add_item(svc)
    assert svc.writes.transition_command("start-processing", [name]).ok
    rc, out, err = atk("wi", "return-to-inbox", name)
    assert rc == 0, err
    assert "cleared" not in out


def test_a_user_move_out_of_adopted_clears_note_and_commit(store: Path) -> None:
    svc = Service(store, actor="user")
    name = add_item(svc)
    assert svc.writes.transition_command("start-processing", [name]).ok
    assert svc.writes.transition_command("adopt", [name], note="merged in #42", commit="a" * 40).ok
    out = svc.writes.move([name], "inbox", expect="adopted")
    assert out.ok, out.message
    item = svc.show(name)
    assert item.note is None and item.commit is None
    assert "the note 'merged in #42'" in out.message and "the commit" in out.message, out.message
    assert "left from adopted" in out.message and "history" in out.message


def test_a_move_of_several_items_names_whose_keys_it_cleared(store: Path) -> None:
    svc = Service(store, clock=Clock(), actor="user")
    a, b = add_item(svc), add_item(svc)
    assert svc.writes.transition_command("start-processing", [a, b]).ok
    assert svc.writes.transition_command("reject", [a], note="not needed").ok and svc.writes.transition_command("reject", [b]).ok
    out = svc.writes.move([a, b], "processing", expect="rejected")
    assert out.ok, out.message
    assert f"{a}'s note 'not needed'" in out.message and f"{b}'s" not in out.message, out.message


def test_return_to_inbox_help_says_what_leaving_rejected_clears(capsys: pytest.CaptureFixture[str]) -> None:
    assert "clears the reject's note, which git history keeps" in _help(capsys, "wi", "return-to-inbox")


# --- 6. --target-repo said per command -----------------------------------------------------


def _help(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    from atk_tui.cli.parser import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args([*args, "--help"])
    return " ".join(capsys.readouterr().out.split())  # argparse wraps: compare words


@pytest.mark.parametrize("queue", ["wi", "mq"])
def test_target_repo_help_per_command(capsys: pytest.CaptureFixture[str], queue: str) -> None:
    add = _help(capsys, queue, "add")
    assert "the new item's target_repo (required)" in add
    assert TARGET_REPO_ITEMS not in add
    for command in ("hold", "show", "adopt", "return-to-inbox", "set-dependencies", "edit"):
        said = _help(capsys, queue, command)
        assert TARGET_REPO_ITEMS in said, command
    assert "list only items whose target_repo is this" in _help(capsys, queue, "list")
    assert target_repo_help("commit") in _help(capsys, queue, "commit")
    top = _help(capsys)
    assert "`add` writes the new item with it" in top and "refuse an item whose target_repo differs" in top


# --- 7. add warns as the dashboard does; the item is still written ------------------------


def test_add_prints_the_lint_warnings_and_writes_the_item(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = Atk(store, capsys)("wi", "add", "--target-repo", "acme/webapp", "# Only a title\n\n- 反映先: x\n")
    assert rc == 0, err
    name = out.splitlines()[0]
    assert (store / "wi" / "inbox" / name).is_file()
    item = Service(store, actor="user").show(name)
    assert item.warnings  # what the dashboard's detail pane lists
    for w in item.warnings:
        assert f"warning: {name}: {w}" in err, err
    assert "missing bullet: 反映内容" in err
    assert "反映先" not in err


def test_add_warns_of_a_missing_plan_file(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = "$(atk config get private_notes)/plans/2026/11/login.md"
    atk = Atk(store, capsys)
    rc, out, err = atk("wi", "add", "--target-repo", "acme/webapp", "--plan-file", plan, AWI_BODY)
    assert rc == 0, err
    name = out.splitlines()[0]
    assert f"warning: {name}: plan file missing: {plan}" in err and "atk plans commit" in err, err
    assert (store / "wi" / "inbox" / name).is_file()
    # the plan stored: no warning
    (store / "plans" / "2026" / "11").mkdir(parents=True)
    (store / "plans" / "2026" / "11" / "login.md").write_text("# plan\n")
    subprocess.run(["git", "-C", str(store), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(store), "commit", "-q", "-m", "plan"], check=True)
    rc, out, err = atk("mq", "add", "--target-repo", "acme/webapp", "--plan-file", plan, "# Split it\n\nbody\n")
    assert rc == 0 and "plan file missing" not in err, err


def test_a_clean_add_warns_nothing(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = Atk(store, capsys)("wi", "add", "--target-repo", "acme/webapp", AWI_BODY)
    name = out.splitlines()[0]  # stdout: the saved item; stderr: the one line saying what was written, no warning
    assert (
        rc == 0
        and err
        == f"added {name} ({git(store, 'rev-parse', '--short=10', 'HEAD').strip()}) not pushed: no remote (no upstream branch is configured)\n"
    ), err


# --- the parser built for one command line parses it as the whole parser does ----------------

PARSED = [
    ["wi", "show", "a.md"], ["--store", "/s", "wi", "list", "--status=ready", "--json"], ["wi", "hold", "a.md"],
    ["mq", "list", "--text", "x"], ["wi", "set-dependencies", "a.md", "--add", "b.md"], ["plans", "commit", "p.md"],
    ["agents", "notify", "hi"], ["wi", "add", "--kind", "uwi", "--target-repo", "r", "--body-file", "-"],
    ["wi", "start-processing", "--skip-push", "a.md"], ["mq", "adopt", "a.md"], ["wi", "answer", "a.md", "--choose", "A"],
    ["--skip-pull", "wi", "show", "list"],  # an item named like a command
]  # fmt: skip


@pytest.mark.parametrize("argv", PARSED, ids=lambda a: " ".join(a))
def test_one_commands_parser_parses_as_the_whole_one(argv: list[str]) -> None:
    from atk_tui.cli.parser import build_parser, parse_args

    assert vars(parse_args(argv)) == vars(build_parser().parse_args(argv))


def test_a_usage_error_is_said_by_the_whole_parser(capsys: pytest.CaptureFixture[str]) -> None:
    from atk_tui.cli.parser import parse_args

    with pytest.raises(SystemExit) as exc:
        parse_args(["wi", "shwo", "a.md"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    # the whole parser says it: the nearest command, and how many `--help` lists (issue 44: not all of them here)
    assert "unknown command 'shwo'; did you mean 'show'?" in err and "`atk wi --help` lists all" in err
