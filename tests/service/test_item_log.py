"""An item's log (`Service.item_log`, `atk wi log`): every commit that touched it, following its
moves between state folders and a hand-made rename, with the actor from the `Atk-Actor`
trailer and each commit's diff of the item. Real git repositories in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.storekit import AWI_BODY, add_item, git

from atk_tui.cli.main import run
from atk_tui.domain.errors import AtkError
from atk_tui.service import Service

EDITED = AWI_BODY.replace("replace the two validators with one", "replace both validators with the auth one")


@pytest.fixture
def worked(svc: Service) -> tuple[Service, str]:
    """A user's item an agent started, edited and returned; the user then held it."""
    name = add_item(svc)
    agent = Service(svc.root, clock=svc.clock, actor="agent")
    assert agent.writes.transition_command("start-processing", [name]).ok
    assert agent.writes.edit(name, EDITED).ok
    assert agent.writes.transition_command("return-to-inbox", [name], from_state="processing").ok
    assert svc.writes.transition_command("hold", [name]).ok
    return svc, name


def test_the_log_lists_every_commit_newest_first_with_actor_and_change(worked: tuple[Service, str]) -> None:
    svc, name = worked
    log = svc.item_log(name)
    assert [(c.actor_label, c.summary, c.subject) for c in log.commits] == [
        ("user", "moved inbox → hold", f"atk: hold {name}"),
        ("agent", "moved processing → inbox", f"atk: return-to-inbox {name}"),
        ("agent", "edited in processing", f"atk: edit {name}"),
        ("agent", "moved inbox → processing", f"atk: start-processing {name}"),
        ("user", "created in inbox", f"atk: add {name}"),
    ]
    assert log.older == 0
    assert log.commits[0].paths == (f"wi/inbox/{name}", f"wi/hold/{name}")
    assert all(len(c.commit) == 40 and c.short == c.commit[:8] for c in log.commits)


def test_the_diff_shows_what_the_agent_changed(worked: tuple[Service, str]) -> None:
    svc, name = worked
    edit = svc.item_log(name).commits[2]
    diff = svc.item_diff(name, edit)
    assert diff.summary == ["edited in processing"]
    assert f"--- a/wi/processing/{name}" in diff.lines and f"+++ b/wi/processing/{name}" in diff.lines
    assert "-- 反映内容: replace the two validators with one" in diff.lines
    assert "+- 反映内容: replace both validators with the auth one" in diff.lines
    assert not any(line.startswith(("+#", "-#")) for line in diff.lines)  # only the changed line and its context


def test_a_move_is_a_summary_without_a_text_diff(worked: tuple[Service, str]) -> None:
    svc, name = worked
    start = svc.item_log(name).commits[3]
    diff = svc.item_diff(name, start)
    assert diff.summary == ["moved inbox → processing"] and diff.lines == []


def test_a_terminal_item_keeps_its_whole_log_and_a_move_with_an_edit_shows_both(svc: Service) -> None:
    name = add_item(svc)
    agent = Service(svc.root, clock=svc.clock, actor="agent")
    assert agent.writes.transition_command("start-processing", [name]).ok
    assert agent.writes.transition_command("adopt", [name], note="merged in #42").ok
    adopt = svc.item_log(name).commits[0]
    assert adopt.summary == "moved processing → adopted (and edited)"
    diff = svc.item_diff(name, adopt.commit[:10])  # a SHA prefix will do
    assert "+note: 'merged in #42'" in diff.lines


def test_a_commit_without_the_trailer_is_unknown_and_a_hand_rename_is_followed(svc: Service) -> None:
    name = add_item(svc)
    root = svc.root
    git(root, "mv", f"wi/inbox/{name}", "wi/inbox/renamed.md")
    git(root, "commit", "-q", "-m", "rename by hand")
    log = svc.item_log("renamed.md")
    assert [(c.actor_label, c.summary) for c in log.commits] == [
        ("unknown", f"renamed wi/inbox/{name} → wi/inbox/renamed.md"),
        ("user", "created in inbox"),
    ]
    assert svc.item_diff("renamed.md", log.commits[0]).lines == []


def test_a_long_log_is_capped_and_counts_the_older_commits(svc: Service) -> None:
    name = add_item(svc)
    for _ in range(3):
        assert svc.writes.transition_command("hold", [name]).ok and svc.writes.unhold(name).ok
    log = svc.item_log(name, limit=4)
    assert len(log.commits) == 4 and log.older == 3


def test_a_diff_is_refused_for_a_commit_that_did_not_touch_the_item(svc: Service) -> None:
    a, b = add_item(svc), add_item(svc)
    other = svc.item_log(b).commits[0].commit
    with pytest.raises(AtkError, match=f"did not change {a}.*atk wi log {a}"):
        svc.item_diff(a, other)
    with pytest.raises(AtkError, match="commit SHA"):
        svc.item_diff(a, "HEAD; rm -rf /")


def test_history_for_the_detail_pane_is_the_same_log(worked: tuple[Service, str]) -> None:
    svc, name = worked
    assert [h.commit for h in svc.history(name)] == [c.commit for c in svc.item_log(name).commits]


# --- atk wi log ----------------------------------------------------------------------------


def test_atk_wi_log_prints_one_row_per_commit(worked: tuple[Service, str], capsys: pytest.CaptureFixture[str]) -> None:
    svc, name = worked
    assert run(["wi", "log", name, "--store", str(svc.root)]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [(r[2], r[3]) for r in rows] == [
        ("user", "moved inbox → hold"), ("agent", "moved processing → inbox"), ("agent", "edited in processing"),
        ("agent", "moved inbox → processing"), ("user", "created in inbox"),
    ]  # fmt: skip


def test_atk_wi_log_patch_and_json(worked: tuple[Service, str], capsys: pytest.CaptureFixture[str]) -> None:
    svc, name = worked
    stem = name[:-3]  # the one resolver: without .md
    assert run(["wi", "log", stem, "--patch", "--store", str(svc.root)]) == 0
    out = capsys.readouterr().out
    assert "+- 反映内容: replace both validators with the auth one" in out
    assert "moved inbox → processing  atk: start-processing" in out
    assert run(["wi", "log", stem, "--patch", "--json", "--limit", "2", "--store", str(svc.root)]) == 0
    captured = capsys.readouterr()
    records = [json.loads(line) for line in captured.out.splitlines()]
    assert [r["change"] for r in records] == ["moved inbox → hold", "moved processing → inbox"]
    assert records[0]["actor"] == "user" and records[0]["patch"] == ""
    assert "3 older commits not shown (--limit 5 shows them)" in captured.err


def test_atk_wi_log_prints_json_lines_in_an_agent_environment(
    worked: tuple[Service, str], capsys: pytest.CaptureFixture[str], env_agent: None
) -> None:
    svc, name = worked
    assert run(["wi", "log", name, "--store", str(svc.root)]) == 0
    assert [json.loads(line)["actor"] for line in capsys.readouterr().out.splitlines()] == ["user", "agent", "agent", "agent", "user"]
    assert run(["wi", "log", name, "--no-json", "--store", str(svc.root)]) == 0
    assert capsys.readouterr().out.splitlines()[0].split("\t")[3] == "moved inbox → hold"


def test_atk_wi_log_of_an_unknown_item_says_where_to_look(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["wi", "log", "nothing-here", "--store", str(store)]) == 1
    assert "no commit touched nothing-here.md; `atk wi list --status=all` lists the items" in capsys.readouterr().err


def test_hostile_text_in_a_diff_is_printed_escaped(svc: Service, capsys: pytest.CaptureFixture[str]) -> None:
    name = add_item(svc, body="# Title\n\nline \x1b]52;c;cHduZWQ=\x07 [bold]not markup[/] \x1b[2J\n")
    assert run(["wi", "log", name, "--patch", "--store", str(svc.root)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "+line \\x1b]52;c;cHduZWQ=\\x07 [bold]not markup[/] \\x1b[2J" in out


def test_atk_mq_log_follows_a_feedback_item(svc: Service, capsys: pytest.CaptureFixture[str]) -> None:
    mq = Service(svc.root, clock=svc.clock, actor="user", queue="mq")
    out = mq.writes.add(kind="feedback", target_repo="acme/webapp", body=AWI_BODY)
    assert out.ok, out.message
    name = out.files[0]
    assert mq.writes.transition_command("hold", [name]).ok
    assert run(["mq", "log", name, "--store", str(svc.root)]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [r[3] for r in rows] == ["moved mq/inbox → mq/hold", "created in mq/inbox"]
    assert run(["mq", "log", name, "--limit", "0", "--store", str(svc.root)]) == 2
    assert "--limit takes a number of commits >= 1" in capsys.readouterr().err
