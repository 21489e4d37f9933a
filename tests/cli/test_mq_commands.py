"""`atk mq` (SPEC §12, issue 12): every command the feedback seed types, typed as it types
them, against a real git store with a bare remote, in and out of an agent environment.
The same service as `atk wi` (a queue parameter): same commits, trailers, lock, pull/push,
agent boundary, name resolution; dependencies cross the two queues."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.clikit import Atk, awi, last_commit, uwi
from support.mqkit import FEEDBACK, TBD, feedback, seed, tbd
from support.storekit import git, make_remote_pair, tree_state

from atk_tui.domain.queues import MQ
from atk_tui.store import init_store

PLAN = "$(atk config get private_notes)/plans/2026/11/login.md"


@pytest.fixture
def remote(tmp_path: Path) -> tuple[Path, Path]:
    return make_remote_pair(tmp_path)


@pytest.fixture
def atk(remote: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> Atk:
    root, _ = remote
    return Atk(root, capsys)


def remote_log(remote: Path) -> list[str]:
    out = git(remote, "log", "--format=%s|%(trailers:key=Atk-Actor,valueonly)", "main")
    return [line for line in out.split("\n") if line]


def pushed(atk: Atk) -> bool:
    git(atk.store, "fetch", "-q")
    return git(atk.store, "rev-parse", "HEAD").strip() == git(atk.store, "rev-parse", "origin/main").strip()


def jl(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


# --- layout ------------------------------------------------------------------------------


def test_init_makes_every_mq_state_folder(tmp_path: Path) -> None:
    root, created = init_store(tmp_path / "s")
    assert created
    for state in MQ.states:
        assert (root / "mq" / state / ".gitkeep").is_file()
    assert f"mq/{MQ.states[0]}/.gitkeep" in git(root, "ls-files")


def test_an_existing_store_gets_the_mq_folders_on_first_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = init_store(tmp_path / "s")
    git(root, "rm", "-q", "-r", "mq")
    git(root, "commit", "-q", "-m", "a store from before the feedback queue")
    atk = Atk(root, capsys)
    rc, out, err = atk("mq", "list")  # reading needs no folders, and writes nothing
    assert rc == 0 and out == "" and not (root / "mq").exists()
    rc, out, err = atk("mq", "add", "--target-repo=acme/web", FEEDBACK)
    assert rc == 0, err
    name = out.splitlines()[0]
    files = git(root, "show", "--name-only", "--format=", "HEAD").split()
    assert f"mq/inbox/{name}" in files
    assert {f"mq/{s}/.gitkeep" for s in MQ.states} <= set(files)  # in the same commit
    assert last_commit(root) == f"atk: add {name}|user"


def test_atk_init_adds_the_mq_folders_to_an_older_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from atk_tui.cli.main import run

    root, _ = init_store(tmp_path / "s")
    git(root, "rm", "-q", "-r", "mq")
    git(root, "commit", "-q", "-m", "old")
    capsys.readouterr()
    assert run(["init", str(root)]) == 0
    assert "added the feedback queue's folders" in capsys.readouterr().out
    assert last_commit(root) == "atk: init mq queue|user"
    assert run(["init", str(root)]) == 0
    assert "nothing changed" in capsys.readouterr().out


# --- the seed's commands, typed as it types them, as an agent ----------------------------


def test_the_seed_flow_as_an_agent(atk: Atk, remote: tuple[Path, Path], env_agent: None) -> None:
    root, bare = remote
    (root / "plans/2026/11").mkdir(parents=True)
    (root / "plans/2026/11/login.md").write_text("# plan\n")
    seed(root, {
        "20261129-100000-a.md": ("inbox", feedback()),
        "20261129-100100-b.md": ("inbox", feedback()),
        "20261129-100200-c.md": ("inbox", feedback()),
        "20261129-100300-other.md": ("inbox", feedback("acme/other")),
        "20261129-100400-held.md": ("hold", feedback()),
        "20261129-100500-editing.md": ("editing", feedback()),
        "20261129-100600-planning.md": ("planning", feedback()),
    })
    git(root, "push", "-q")

    # 1. atk mq list --status=active --target-repo=…  (JSON Lines: an agent environment)
    rc, out, err = atk("mq", "list", "--status=active", "--target-repo=acme/web")
    assert rc == 0, err
    rows = jl(out)
    assert [r["filename"] for r in rows] == [
        "20261129-100000-a.md", "20261129-100100-b.md", "20261129-100200-c.md",
        "20261129-100500-editing.md", "20261129-100400-held.md",
    ]
    assert {r["state"] for r in rows} == {"inbox", "editing", "hold"}
    assert all(r["kind"] == "feedback" and r["type"] == "normal" for r in rows)

    # 2. atk mq show F1 F2 … --target-repo=… --skip-pull: several in one call, as text (process-feedbacks:
    # JSON Lines by default is list's only), each after a line naming its file; --json for records
    rc, out, err = atk("mq", "show", "20261129-100000-a.md", "20261129-100100-b.md", "--target-repo=acme/web", "--skip-pull")
    assert rc == 0, err
    assert out.startswith("==> mq/inbox/20261129-100000-a.md <==\n---\nkind: feedback")
    assert "\n==> mq/inbox/20261129-100100-b.md <==\n---\n" in out and FEEDBACK in out
    rc, out, err = atk(
        "mq", "show", "20261129-100000-a.md", "20261129-100100-b.md", "--target-repo=acme/web", "--skip-pull", "--json"
    )
    assert rc == 0, err
    shown = jl(out)
    assert [d["filename"] for d in shown] == ["20261129-100000-a.md", "20261129-100100-b.md"]
    assert shown[0]["body"] == FEEDBACK and shown[0]["status"] == "ready"
    rc, out, err = atk("mq", "show", "20261129-100300-other.md", "--target-repo=acme/web", "--skip-pull")
    assert rc == 1 and "targets acme/other, not acme/web" in err
    rc, out, err = atk("mq", "show", "a", "--target-repo=acme/web", "--skip-pull")  # a slug prefix
    assert rc == 0 and out.startswith("---\nkind: feedback")

    # 4. set-dependencies --depends-on= ... --target-repo=, and none clears
    rc, out, err = atk("mq", "set-dependencies", "20261129-100200-c.md",
                       "--depends-on=20261129-100000-a.md", "--depends-on=20261129-100100-b.md", "--target-repo=acme/web")
    assert rc == 0, err
    assert last_commit(root) == "atk: set-dependencies 20261129-100200-c.md|agent"
    assert "depends_on: [20261129-100000-a.md, 20261129-100100-b.md]" in (root / "mq/inbox/20261129-100200-c.md").read_text()
    assert pushed(atk)
    rc, out, err = atk("mq", "set-dependencies", "20261129-100200-c.md", "--target-repo=acme/web")
    assert rc == 0, err
    assert "depends_on" not in (root / "mq/inbox/20261129-100200-c.md").read_text()

    # 7. start-processing, all at once, filenames ascending
    rc, out, err = atk("mq", "start-processing", "20261129-100000-a.md", "20261129-100100-b.md",
                       "20261129-100200-c.md", "--target-repo=acme/web")
    assert rc == 0, err
    assert last_commit(root) == "atk: start-processing 3 items|agent"
    assert sorted(p.name for p in (root / "mq/processing").glob("*.md")) == [
        "20261129-100000-a.md", "20261129-100100-b.md", "20261129-100200-c.md"]

    # §4: convert-to-plan --plan-file=
    rc, out, err = atk("mq", "convert-to-plan", "20261129-100000-a.md", f"--plan-file={PLAN}", "--target-repo=acme/web")
    assert rc == 0, err
    rc, out, err = atk("mq", "list", "--status=processable", "--target-repo=acme/web")
    types = {r["filename"]: r["type"] for r in jl(out)}
    assert types["20261129-100000-a.md"] == "plan" and types["20261129-100100-b.md"] == "normal"

    # §5: adopt --note= --commit=<full SHA>, --skip-push on all but the last, one by one
    sha = "3f2a" + "0" * 36
    rc, out, err = atk("mq", "adopt", "20261129-100000-a.md", "--note=shortened the copy", f"--commit={sha}",
                       "--target-repo=acme/web", "--skip-push")
    assert rc == 0, err
    assert not pushed(atk)  # --skip-push: the commit waits for the last one
    rc, out, err = atk("mq", "reject", "20261129-100100-b.md", "--note=not wanted: the copy is legal text",
                       "--target-repo=acme/web", "--skip-push")
    assert rc == 0, err
    rc, out, err = atk("mq", "adopt", "20261129-100200-c.md", "--note=done", f"--commit={sha}", "--target-repo=acme/web")
    assert rc == 0, err
    assert pushed(atk)  # the last one pushes every waiting commit
    log = remote_log(bare)
    assert log[:3] == ["atk: adopt 20261129-100200-c.md|agent", "atk: reject 20261129-100100-b.md|agent",
                       "atk: adopt 20261129-100000-a.md|agent"]
    text = (root / "mq/adopted/20261129-100000-a.md").read_text()
    assert f"commit: {sha}\n" in text and "note: shortened the copy\n" in text
    rc, out, err = atk("mq", "adopt", "20261129-100500-editing.md", "--commit=abc", "--target-repo=acme/web")
    assert rc == 2 and "40-hex" in err

    # return-to-inbox [--state=rejected]
    rc, out, err = atk("mq", "return-to-inbox", "20261129-100100-b.md", "--target-repo=acme/web")
    assert rc == 1 and "state conflict: 20261129-100100-b.md is in rejected" in err
    rc, out, err = atk("mq", "return-to-inbox", "20261129-100100-b.md", "--state=rejected", "--target-repo=acme/web")
    assert rc == 0, err
    assert (root / "mq/inbox/20261129-100100-b.md").exists()

    # editing and planning are outside automatic processing
    for name in ("20261129-100500-editing.md", "20261129-100600-planning.md", "20261129-100400-held.md"):
        rc, out, err = atk("mq", "start-processing", name, "--target-repo=acme/web")
        assert rc == 1 and "state conflict" in err, name


def test_list_status_sets_and_planning(atk: Atk) -> None:
    seed(atk.store, {
        "i.md": ("inbox", feedback()), "p.md": ("processing", feedback()), "e.md": ("editing", feedback()),
        "h.md": ("hold", feedback()), "pl.md": ("planning", feedback()), "ad.md": ("adopted", feedback()),
        "rj.md": ("rejected", feedback()),
    })

    def names(*args: str) -> list[str]:
        rc, out, err = atk("mq", "list", *args)
        assert rc == 0, err
        return sorted(line.split("\t")[0] for line in out.splitlines())

    assert names() == ["e.md", "h.md", "i.md", "p.md"]
    assert names("--status=active") == ["e.md", "h.md", "i.md", "p.md"]
    assert names("--status=processable") == ["i.md", "p.md"]
    assert names("--status=ready") == ["i.md", "p.md"]
    assert names("--status=blocked") == []
    assert names("--status=planning") == ["pl.md"]
    assert names("--status=all") == ["ad.md", "e.md", "h.md", "i.md", "p.md", "rj.md"]  # planning only by name
    assert names("--status=editing") == ["e.md"]
    rc, out, _ = atk("mq", "list", "--count")
    assert out == "4\n"
    rc, _, err = atk("mq", "list", "--status=nonsense")
    assert rc == 2 and "planning" in err
    rc, _, err = atk("wi", "list", "--status=planning")  # not a wi state
    assert rc == 2


def test_list_output_in_and_out_of_an_agent_environment(atk: Atk, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(atk.store, {"i.md": ("inbox", feedback()), "q.md": ("inbox", tbd())})
    rc, out, _ = atk("mq", "list")
    assert out.splitlines()[0].split("\t")[:3] == ["i.md", "inbox", "FEEDBACK/normal"]
    assert out.splitlines()[1].split("\t")[:3] == ["q.md", "inbox", "TBD/blocking"]
    monkeypatch.setenv("CODEX_CI", "1")
    rc, out, _ = atk("mq", "list")
    rows = jl(out)
    assert rows[1]["kind"] == "tbd" and rows[1]["answered"] is False and rows[1]["status"] == "waiting"
    rc, out, _ = atk("mq", "list", "--no-json")
    assert out.startswith("i.md\tinbox\t")
    rc, out, _ = atk("mq", "list", "--count")
    assert rc == 0 and out == "2\n"
    _rc, out, _ = atk("mq", "show", "i.md")  # show keeps its text output (one file)
    assert out.startswith("---\nkind: feedback")


def test_start_processing_is_all_or_nothing_and_names_every_bad_file(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {
        "good.md": ("inbox", feedback()),
        "held.md": ("hold", feedback()),
        "broken.md": ("inbox", "---\nkind: feedback\ntarget_repo: [oops\n---\n# x\n"),
        "other.md": ("inbox", feedback("acme/other")),
        "busy.md": ("processing", feedback()),
    })
    before = tree_state(atk.store)
    rc, _, err = atk("mq", "start-processing", "good.md", "held.md", "broken.md", "other.md", "busy.md", "gone.md",
                       "--target-repo=acme/web")
    assert rc == 1
    assert "nothing moved: 5 of 6 items cannot start-processing" in err
    assert "held.md is in hold" in err
    assert "broken.md is defective" in err
    assert "other.md targets acme/other, not acme/web" in err
    assert "busy.md is already in processing" in err
    assert "no item named gone.md" in err
    assert "good.md" not in err
    assert tree_state(atk.store) == before
    rc, _out, err = atk("mq", "start-processing", "good.md", "--target-repo=acme/web")
    assert rc == 0 and last_commit(atk.store) == "atk: start-processing good.md|agent"


def test_agent_boundary(atk: Atk, env_agent: None) -> None:
    seed(atk.store, {"q.md": ("inbox", tbd()), "f.md": ("inbox", feedback())})
    before = tree_state(atk.store)
    rc, _, err = atk("mq", "add", "--target-repo=acme/web", FEEDBACK)
    assert rc == 2 and "--source" in err
    rc, _, err = atk("mq", "add", "--target-repo=acme/web", "--source=process-feedbacks", FEEDBACK + "\n## 回答\n- 1: A\n")
    assert rc == 2 and "user-only" in err
    rc, _, err = atk("mq", "answer", "q.md", "--choose", "A")
    assert rc == 2 and "user-only write" in err
    rc, _, err = atk("mq", "comment", "f.md", "please keep it short")
    assert rc == 2 and "user-only write" in err
    rc, _, err = atk("mq", "edit", "f.md", "# New\n\n### ユーザーコメント\nforged\n")
    assert rc == 2
    assert tree_state(atk.store) == before
    # a forged answer written by hand and committed with `atk mq commit` is refused too
    path = atk.store / "mq/inbox/q.md"
    path.write_text(path.read_text() + "\n## 回答\n\n- 1: A) Neutral\n")
    rc, _, err = atk("mq", "commit")
    assert rc == 2 and "user-only section" in err
    assert git(atk.store, "status", "--porcelain").strip() == "M mq/inbox/q.md"
    git(atk.store, "checkout", "--", "mq/inbox/q.md")
    rc, out, err = atk("mq", "add", "--kind=tbd", "--target-repo=acme/web", "--source=process-feedbacks", TBD)
    assert rc == 0, err
    assert last_commit(atk.store) == f"atk: add {out.splitlines()[0]}|agent"
    assert "source: process-feedbacks" in out


def test_user_answers_and_comments_and_the_agent_closes_the_tbd(atk: Atk, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(atk.store, {"q.md": ("inbox", tbd()), "f.md": ("inbox", feedback(extra="depends_on: [q.md]\n"))})
    rc, out, _ = atk("mq", "list", "--status=ready")
    assert out == ""
    rc, _, err = atk("mq", "answer", "q.md", "--choose", "A")
    assert rc == 0, err
    assert last_commit(atk.store) == "atk: answer q.md|user"
    assert "- 1: A) Neutral" in (atk.store / "mq/inbox/q.md").read_text()
    rc, out, _ = atk("mq", "list", "--status=ready")
    assert sorted(line.split("\t")[0] for line in out.splitlines()) == ["f.md", "q.md"]  # answered = satisfied
    rc, _, err = atk("mq", "comment", "f.md", "keep it to one sentence")
    assert rc == 0, err
    assert "## ユーザーコメント" in (atk.store / "mq/inbox/f.md").read_text()
    rc, _, err = atk("mq", "answer", "f.md", "--choose", "A")
    assert rc == 1 and "only a question (TBD) can be answered" in err
    rc, _, err = atk("mq", "comment", "q.md", "hm")
    assert rc == 1 and "answer it instead" in err
    monkeypatch.setenv("AI_AGENT", "1")
    rc, _, err = atk("mq", "adopt", "q.md", "--note=answered: neutral")  # an answered TBD closes from inbox
    assert rc == 0, err
    assert last_commit(atk.store) == "atk: adopt q.md|agent"


def test_partial_answer_of_a_tbd(atk: Atk) -> None:
    two = TBD.replace("## 質問\n", "## 質問 1\n") + "\n## 質問 2\nWhere?\n\n- A) Top\n- B) Bottom\n"
    seed(atk.store, {"q.md": ("inbox", tbd(body=two))})
    rc, _, err = atk("mq", "answer", "q.md", "--choose", "1=A")
    assert rc == 1 and "question 2" in err and "--partial" in err
    rc, _, err = atk("mq", "answer", "q.md", "--choose", "1=A", "--partial")
    assert rc == 0, err
    rc, out, _ = atk("mq", "list", "--json")
    assert jl(out)[0]["answer_partial"] is True and jl(out)[0]["status"] == "waiting"


def test_add_edit_hold_unhold_rm_and_planning(atk: Atk, remote: tuple[Path, Path]) -> None:
    root, bare = remote
    (root / "plans/2026/11").mkdir(parents=True)
    (root / "plans/2026/11/login.md").write_text("# plan\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "plan")
    rc, out, err = atk("mq", "add", "--target-repo=acme/web", "--state=planning", FEEDBACK)
    assert rc == 0, err
    name = out.splitlines()[0]
    assert (root / "mq/planning" / name).exists() and pushed(atk)
    rc, out, err = atk("mq", "add", "--kind=tbd", "--target-repo=acme/web", "--state=planning", TBD)
    assert rc == 2 and "planning: a feedback item only" in err
    rc, out, _ = atk("mq", "list")
    assert out == ""  # planning is not active
    rc, _, err = atk("mq", "hold", name)
    assert rc == 1 and "finish-planning" in err
    second = atk("mq", "add", "--target-repo=acme/web", "--state=planning", "# Second\n")[1].splitlines()[0]
    rc, _, err = atk("mq", "finish-planning", name, "inbox-nope.md", f"--plan-file={PLAN}")
    assert rc == 1 and "nothing moved" in err and (root / "mq/planning" / name).exists()
    rc, out, err = atk("mq", "finish-planning", name, second, f"--plan-file={PLAN}", "--skip-push")
    assert rc == 0, err
    assert last_commit(root) == "atk: finish-planning 2 items|user" and not pushed(atk)
    for n in (name, second):
        assert f"plan_file: {PLAN}\n" in (root / "mq/inbox" / n).read_text()
    rc, out, _ = atk("mq", "list", "--json")
    assert {r["type"] for r in jl(out)} == {"plan"}
    assert atk("mq", "hold", name)[0] == 0 and (root / "mq/hold" / name).exists()
    assert atk("mq", "unhold", name)[0] == 0 and (root / "mq/inbox" / name).exists()
    rc, out, err = atk("mq", "edit", name, "# Shorter copy\n")
    assert rc == 0 and out.startswith(name + "\n") and last_commit(root) == f"atk: edit {name}|user"
    assert atk("mq", "rm", second)[0] == 0 and not (root / "mq/inbox" / second).exists()
    assert pushed(atk)
    assert remote_log(bare)[0] == f"atk: rm {second}|user"


def test_wi_and_mq_name_their_own_items(atk: Atk) -> None:
    seed(atk.store, {"w.md": ("wi/inbox", awi()), "m.md": ("inbox", feedback())})
    before = tree_state(atk.store)
    rc, _, err = atk("wi", "hold", "m.md")
    assert rc == 1 and "it is a mq item (use `atk mq …` for it)" in err
    rc, _, err = atk("mq", "hold", "w.md")
    assert rc == 1 and "it is a wi item" in err
    rc, _, err = atk("mq", "add", "--kind=awi", "--target-repo=acme/web", "# x\n")
    assert rc == 2
    assert tree_state(atk.store) == before
    rc, out, _ = atk("wi", "list")
    assert out.startswith("w.md\t") and "m.md" not in out


# --- dependencies across queues, and readiness's repair reasons --------------------------


def test_dependencies_cross_queues(atk: Atk) -> None:
    seed(atk.store, {
        "wq.md": ("wi/inbox", uwi()),
        "wa.md": ("wi/inbox", awi()),
        "f.md": ("inbox", feedback()),
        "t.md": ("inbox", tbd()),
    })
    assert atk("mq", "set-dependencies", "f.md", "--depends-on=wq")[0] == 0  # resolved in the wi queue
    assert "depends_on: [wq.md]" in (atk.store / "mq/inbox/f.md").read_text()
    assert atk("wi", "set-dependencies", "wa.md", "--depends-on=t.md")[0] == 0
    rc, out, _ = atk("mq", "list", "--json")
    row = {r["filename"]: r for r in jl(out)}
    assert row["f.md"]["reasons"] == ["waiting on wq.md (inbox, unanswered)"]
    assert row["t.md"]["blocks"] == {"direct": 1, "transitive": 1}  # it blocks the wi item
    # a cycle through both queues is refused, with its path
    before = tree_state(atk.store)
    rc, _, err = atk("mq", "set-dependencies", "t.md", "--depends-on=wa.md")
    assert rc == 1 and "cycle: t.md -> wa.md -> t.md" in err
    rc, _, err = atk("mq", "set-dependencies", "t.md", "--depends-on=t.md")
    assert rc == 1 and "cannot depend on itself" in err
    rc, _, err = atk("mq", "set-dependencies", "t.md", "--depends-on=nowhere.md")
    assert rc == 1 and "no item named nowhere.md" in err
    assert tree_state(atk.store) == before
    # answering the TBD satisfies the wi item's dependency; answering the UWI the feedback's
    assert atk("mq", "answer", "t.md", "--choose", "A")[0] == 0
    assert atk("wi", "answer", "wq.md", "--choose", "A")[0] == 0
    rc, out, _ = atk("wi", "list", "--status=ready")
    assert "wa.md" in out
    rc, out, _ = atk("mq", "list", "--status=ready")
    assert "f.md" in out


def test_repair_reasons(atk: Atk) -> None:
    seed(atk.store, {
        "missing.md": ("inbox", feedback(extra="depends_on: [gone.md]\n")),
        "self.md": ("inbox", feedback(extra="depends_on: [self.md]\n")),
        "c1.md": ("inbox", feedback(extra="depends_on: [c2.md]\n")),
        "c2.md": ("inbox", feedback(extra="depends_on: [c1.md]\n")),
        "cool.md": ("inbox", feedback(extra="cooldown_until: 2026-11-30T09:00:00\n")),
        "broken.md": ("inbox", "---\nkind: feedback\ntarget_repo: acme/web\ndepends_on: nope\n---\n# x\n"),
        "plan.md": ("inbox", feedback(extra=f"plan_file: {PLAN}\n")),
        "wrongkind.md": ("inbox", awi()),
    })
    _rc, out, _ = atk("mq", "list", "--status=blocked", "--json")
    reasons = {r["filename"]: " | ".join(r["reasons"]) for r in jl(out)}
    assert "missing dependency: gone.md" in reasons["missing.md"]
    assert "depends on itself" in reasons["self.md"]
    assert "cycle: c1.md -> c2.md -> c1.md" in reasons["c1.md"]
    assert "cooldown_until" in reasons["cool.md"] and "timezone" in reasons["cool.md"]
    assert "depends_on" in reasons["broken.md"]
    assert "plan file missing" in reasons["plan.md"]
    assert "kind: 'awi' is not one of 'feedback' or 'tbd'" in reasons["wrongkind.md"]


def test_global_options_before_mq_and_one_name_in_both_queues(atk: Atk, capsys: pytest.CaptureFixture[str]) -> None:
    from atk_tui.cli.main import run

    seed(atk.store, {"a.md": ("inbox", feedback("acme/one")), "b.md": ("inbox", feedback("acme/two"))})
    capsys.readouterr()
    assert run(["--store", str(atk.store), "--target-repo", "acme/two", "mq", "list"]) == 0
    assert capsys.readouterr().out.startswith("b.md\tinbox\t")
    # the same filename in both queues is a store defect, shown, never "fixed"
    seed(atk.store, {"a.md": ("wi/inbox", awi())})
    rc, out, err = atk("mq", "list")
    assert rc == 0 and "store defect: a.md: filename is in both queues at once: wi and mq" in err
    rc, out, err = atk("wi", "list")
    assert out.startswith("a.md\tinbox") and "defective (filename is in both queues at once" in out
    rc, _, err = atk("mq", "hold", "a.md")
    assert rc == 1 and "both queues" in err
