"""Issue 25 (hardening round 2): answers that are not complete, decisions resting on a
forged cache record, unbounded reads, tracebacks instead of messages, a raw newline on
stderr, duplicate frontmatter keys. Real stores, the real `atk` (in process or as the
console script); the graph freeze is in tests/graph/test_graph_budget.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.clikit import Atk, awi, seed, uwi
from support.forge import atk_run, forge_item_record, forge_listing, process_loop_once
from support.storekit import git

from atk_tui.itemfile import questions
from atk_tui.itemfile.items import MAX_ITEM_BYTES, parse_item
from atk_tui.service import Service

TWO_Q = """# Test layout

## 質問 1
Which framework?

- A) pytest
- B) unittest

## 質問 2
Where do tests live?

- A) next to the code
- B) tests/ at the top
"""
AGENT = {"CLAUDECODE": "1"}
MEMORY = 1 << 31  # an `atk` reading without bound fails here instead of taking the machine's memory


@pytest.fixture
def atk(store: Path, capsys: pytest.CaptureFixture[str]) -> Atk:
    return Atk(store, capsys)


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def hand_answer(root: Path, name: str, answer: str, body: str = TWO_Q) -> None:
    """The person writes `## 回答` by hand and commits it with `atk wi commit` (as the user)."""
    (root / "wi/inbox" / name).write_text(uwi(body=body) + "\n## 回答\n\n" + answer)
    out = Service(root, actor="user", pull=False, push=False).conflicts.commit_pending()
    assert out.ok, out.message


# --- 1. an answer is complete only when every question has a choice, "other" has text ----------


def test_an_empty_choice_line_answers_nothing() -> None:
    p = questions.answer_progress(TWO_Q + "\n## 回答\n\n- 1: A) pytest\n- 2:\n")
    assert p.answered == {1: "A"} and p.missing == (2,) and not p.complete
    p = questions.answer_progress(TWO_Q + "\n## 回答\n\n- 1:\n- 2:   \n")
    assert p.missing == (1, 2)
    # "other" names the notes: without notes it answers nothing; with words of its own it does
    assert questions.answer_progress(TWO_Q + "\n## 回答\n\n- 1: A) pytest\n- 2: other — see notes\n").missing == (2,)
    assert questions.answer_progress(TWO_Q + "\n## 回答\n\n- 1: A\n- 2: other — see notes\n\nin src/\n").complete
    assert questions.answer_progress(TWO_Q + "\n## 回答\n\n- 1: A\n- 2: other: under src/tests\n").complete
    assert questions.answer_progress(TWO_Q + "\n## 回答\n\n- 1: A\n- 2: in a folder of their own\n").complete


def test_a_hand_answer_with_an_empty_line_unblocks_nothing(store: Path, tmp_path: Path) -> None:
    seed(store, {"q.md": ("inbox", uwi()), "w.md": ("inbox", awi(extra="depends_on: [q.md]\n"))})
    (store / "wi/inbox/q.md").write_text(uwi(body=TWO_Q))
    git(store, "commit", "-qam", "two questions")
    hand_answer(store, "q.md", "- 1: A) pytest\n- 2:\n")
    svc = Service(store, actor="user")
    item = svc.read("q.md")
    assert not item.answered and item.answer_partial
    view = svc.queue()
    assert view.judgements["q.md"].status == "waiting" and "q.md" in view.needs_you
    assert not view.judgements["w.md"].ready
    assert "partially answered" in view.judgements["w.md"].reasons[0].message
    # nothing hands the dependent out, nothing closes the question
    proc, handed = process_loop_once(store, tmp_path / "loop", env=AGENT)
    assert proc.returncode == 0, proc.stderr
    assert "w.md" not in handed
    before = head(store)
    rc = atk_run("wi", "adopt", "q.md", "--store", str(store), "--skip-pull", "--skip-push", env=AGENT)
    assert rc.returncode == 1 and "partially answered" in rc.stderr
    assert head(store) == before
    listed = atk_run("wi", "list", "--status=ready", "--json", "--store", str(store))
    assert "w.md" not in listed.stdout


def test_choose_other_without_text_is_refused_unless_partial(atk: Atk) -> None:
    seed(atk.store, {"q.md": ("inbox", uwi()), "w.md": ("inbox", awi(extra="depends_on: [q.md]\n"))})
    before = head(atk.store)
    rc, _, err = atk("wi", "answer", "q.md", "--choose", "1=other")
    assert rc == 1 and '"other" with no text' in err and "--text" in err and "--partial" in err
    assert head(atk.store) == before and "## 回答" not in (atk.store / "wi/inbox/q.md").read_text()
    rc, _, err = atk("wi", "answer", "q.md", "--choose", "1=other", "--partial")
    assert rc == 0, err
    svc = Service(atk.store, actor="user")
    assert svc.read("q.md").answer_partial and not svc.read("q.md").answered
    assert not svc.queue().judgements["w.md"].ready
    rc, _, err = atk("wi", "answer", "q.md", "--choose", "1=other", "--text", "a library", "--replace")
    assert rc == 0, err
    assert svc.read("q.md").answered and svc.queue().judgements["w.md"].ready


# --- 2. decisions never rest on a cache record -----------------------------------------------------


def test_a_forged_item_cache_record_decides_nothing(store: Path, tmp_path: Path) -> None:
    """The record says the question is answered (CRC-32 recomputed): the listing is fooled
    (it is only a view, see core/cache.py), nothing that gates work is."""
    seed(store, {"q.md": ("inbox", uwi()), "w.md": ("inbox", awi(extra="depends_on: [q.md]\n"))})
    svc = Service(store, actor="user")
    assert not svc.queue().judgements["w.md"].ready  # and the item cache is written
    forge_item_record(store, "q.md", answered=True)
    assert Service(store, actor="user").queue().judgements["w.md"].ready, "the forgery did not take"
    before = head(store)
    # the process-loop judges what it hands out from the files
    proc, handed = process_loop_once(store, tmp_path / "loop", env=AGENT)
    assert proc.returncode == 0, proc.stderr
    assert handed == []
    assert "not handed out: w.md" in proc.stderr and "q.md" in proc.stderr
    # adopting the question from inbox is decided from the file
    out = atk_run("wi", "adopt", "q.md", "--store", str(store), "--skip-pull", "--skip-push", env=AGENT)
    assert out.returncode == 1 and "not answered yet" in out.stderr
    shown = atk_run("wi", "show", "w.md", "q.md", "--json", "--store", str(store)).stdout
    assert '"ready": false' in shown and '"ready": true' not in shown and '"answered": false' in shown
    judged = Service(store, actor="user").judge_from_files(["w.md", "q.md"])
    assert not judged["w.md"][1].ready and judged["q.md"][1].status == "waiting"
    assert head(store) == before  # and no commit was made by any of it


def test_a_forged_listing_cache_decides_nothing(store: Path, tmp_path: Path) -> None:
    seed(store, {"q.md": ("inbox", uwi()), "w.md": ("inbox", awi(extra="depends_on: [q.md]\n"))})
    from support.listingkit import settle

    settle(store)
    assert atk_run("wi", "list", "--json", "--store", str(store)).returncode == 0
    assert forge_listing(store, lambda b: b.replace(b'"ready": false', b'"ready": true').replace(b"false]", b"true]"))
    shown = atk_run("wi", "list", "--status=ready", "--json", "--store", str(store)).stdout
    proc, handed = process_loop_once(store, tmp_path / "loop", env=AGENT)
    assert proc.returncode == 0, proc.stderr
    assert "w.md" not in handed
    got = atk_run("wi", "show", "w.md", "--json", "--store", str(store)).stdout
    assert '"ready": false' in got, got  # `show` judges from the files
    assert isinstance(shown, str)


def test_a_forged_record_cannot_hide_a_cycle_from_set_dependencies(store: Path) -> None:
    seed(store, {"a.md": ("inbox", awi(extra="depends_on: [b.md]\n")), "b.md": ("inbox", awi())})
    svc = Service(store, actor="user", pull=False, push=False)
    svc.queue()
    forge_item_record(store, "a.md", depends_on=[])
    before = head(store)
    out = Service(store, actor="user", pull=False, push=False).writes.set_dependencies("b.md", ["a.md"])
    assert not out.ok and out.code == "cycle", out.message
    assert "b.md -> a.md -> b.md" in out.message
    assert head(store) == before


def test_an_uncommitted_answer_hands_nothing_out(store: Path, tmp_path: Path) -> None:
    """An answer written into the work tree (an agent's hand edit in a shared tree) and not
    committed is not the person's decision: the loop does not count it."""
    seed(store, {"q.md": ("inbox", uwi()), "w.md": ("inbox", awi(extra="depends_on: [q.md]\n"))})
    path = store / "wi/inbox/q.md"
    path.write_text(path.read_text() + "\n## 回答\n\n- 1: A) Strict RFC 5322\n")
    proc, handed = process_loop_once(store, tmp_path / "loop", env=AGENT)
    assert proc.returncode == 0, proc.stderr
    assert "w.md" not in handed


# --- 3. reads of a user-given file are bounded --------------------------------------------------


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "endless.fifo"
    os.mkfifo(path)
    return path


BOUNDED = [
    ("wi", "add", "--kind", "awi", "--target-repo", "r", "--body-file", "{src}"),
    ("wi", "add", "--kind", "awi", "--target-repo", "r", "--body-file={src}"),
    ("wi", "edit", "a.md", "--body-file", "{src}"),
    ("wi", "edit", "a.md", "--whole-file", "{src}"),
    ("wi", "answer", "q.md", "--choose", "A", "--text-file", "{src}"),
    ("wi", "comment", "a.md", "--text-file", "{src}"),
    ("mq", "add", "--target-repo", "r", "--body-file", "{src}"),
    ("agents", "notify", "--body-file", "{src}"),
]


@pytest.mark.parametrize("source", ["dev-zero", "stdin", "fifo"])
@pytest.mark.parametrize(
    "argv", BOUNDED, ids=lambda a: "-".join(x for x in a[:2]) + ("-" + a[-2] if a[-2].startswith("--") else "")
)
def test_an_endless_input_is_refused_after_the_size_limit(
    store: Path, tmp_path: Path, argv: tuple[str, ...], source: str
) -> None:
    seed(store, {"q.md": ("inbox", uwi()), "a.md": ("inbox", awi())})
    before = head(store)
    feeder = None
    stdin = subprocess.DEVNULL
    if source == "dev-zero":
        src = "/dev/zero"
    elif source == "stdin":
        src = "-"
        stdin = open("/dev/zero", "rb")  # noqa: SIM115 - closed below
    else:
        fifo = _fifo(tmp_path)
        src = str(fifo)
        # an endless writer: `yes` keeps the pipe full until the reader closes it
        feeder = subprocess.Popen(f"exec yes x > {fifo}", shell=True)
    args = [a.replace("{src}", src) for a in argv]
    try:
        proc = atk_run(
            *args, "--store", str(store), "--skip-pull", "--skip-push", stdin=stdin, timeout=60, memory=MEMORY
        )
    finally:
        if stdin is not subprocess.DEVNULL:
            stdin.close()
        if feeder is not None:
            feeder.kill()
            feeder.wait()
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-500:])
    assert "Traceback" not in proc.stderr
    assert f"larger than the item size limit ({MAX_ITEM_BYTES // 1024 // 1024} MiB)" in proc.stderr
    assert head(store) == before


def test_a_file_at_the_limit_is_read_and_one_byte_more_is_refused(store: Path, tmp_path: Path, atk: Atk) -> None:
    from atk_tui.cli.output import read_input_file as _read_file

    src = tmp_path / "big.md"
    src.write_bytes(b"x" * MAX_ITEM_BYTES)
    assert len(_read_file(str(src))) == MAX_ITEM_BYTES
    src.write_bytes(b"x" * (MAX_ITEM_BYTES + 1))
    from atk_tui.store import AtkError

    with pytest.raises(AtkError, match="size limit"):
        _read_file(str(src))


# --- 5. tracebacks instead of messages, raw text on stderr, duplicate keys ----------------------


def test_set_cooldown_out_of_range_is_a_refusal(atk: Atk) -> None:
    seed(atk.store, {"a.md": ("inbox", awi())})
    before = head(atk.store)
    for until in ("999999999d", "99999999999999999999h", "9999-12-31T23:59:59+00:00x"):
        rc, _, err = atk("wi", "set-cooldown", "a.md", "--until", until)
        assert rc == 2, (until, err)
        assert "--until" in err and "Traceback" not in err
    assert head(atk.store) == before
    proc = atk_run("wi", "set-cooldown", "a.md", "--until", "999999999d", "--store", str(atk.store))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "too far" in proc.stderr


def test_init_on_existing_things_says_what_to_do(tmp_path: Path) -> None:
    store = tmp_path / "s"
    assert atk_run("init", str(store)).returncode == 0
    again = atk_run("init", str(store))
    assert again.returncode == 0 and "already a store; nothing changed" in again.stdout
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine\n")
    proc = atk_run("init", str(full))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "not empty" in proc.stderr and "notes.txt" in proc.stderr
    assert not (full / ".git").exists() and sorted(p.name for p in full.iterdir()) == ["notes.txt"]
    afile = tmp_path / "afile"
    afile.write_text("x")
    proc = atk_run("init", str(afile))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and "not a folder" in proc.stderr
    clash = tmp_path / "clash"
    clash.mkdir()
    git(clash, "init", "-q")
    (clash / "plans").write_text("a file where the plans folder goes\n")
    proc = atk_run("init", str(clash))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and "plans" in proc.stderr
    inside = atk_run("init", str(store / "wi" / "inbox"))
    assert inside.returncode == 1 and "Traceback" not in inside.stderr


def test_store_defect_on_stderr_cannot_fake_a_line(store: Path) -> None:
    seed(store, {"a.md": ("inbox", awi())})
    evil = "20261129-000001-x.md\n\tatk: all good\t.md"
    (store / "wi/inbox" / evil).write_text(awi())
    proc = atk_run("wi", "list", "--store", str(store))
    assert proc.returncode == 0
    lines = proc.stderr.splitlines()
    assert not any(line.startswith("\tatk: all good") or line.startswith("atk: all good") for line in lines), lines
    assert "\t" not in proc.stderr and "\\x0a" in proc.stderr and "\\x09" in proc.stderr
    assert all(line.startswith("atk: ") for line in lines), lines


def test_a_duplicate_frontmatter_key_is_a_defect_both_ways() -> None:
    text = b"---\nkind: awi\ntarget_repo: acme/api\nkind: uwi\n---\n# dup\n"
    item = parse_item("20261129-000001-dup.md", "inbox", text)
    assert any("duplicate key 'kind'" in d for d in item.defects), item.defects
    # a line the fast reader does not take (a quoted value) goes to PyYAML: the same verdict
    slow = b"---\nkind: 'awi'\ntarget_repo: acme/api\nkind: uwi\n---\n# dup\n"
    assert parse_item("20261129-000001-dup.md", "inbox", slow).defects == item.defects
    nested = b"---\nkind: awi\ntarget_repo: acme/api\nx: {a: 1, a: 2}\n---\n# dup\n"
    assert any("duplicate key 'a'" in d for d in parse_item("20261129-000001-dup.md", "inbox", nested).defects)
    merged = b"---\nkind: awi\ntarget_repo: acme/api\nbase: &b {a: 1}\n---\n# m\n"
    assert not any("duplicate" in d for d in parse_item("20261129-000001-m.md", "inbox", merged).defects)


def test_a_duplicate_key_item_is_listed_as_defective(store: Path) -> None:
    seed(store, {"d.md": ("inbox", "---\nkind: awi\ntarget_repo: acme/api\nkind: uwi\n---\n# dup\n")})
    proc = atk_run("wi", "list", "--json", "--store", str(store))
    assert "duplicate key 'kind'" in proc.stdout and '"status": "defective"' in proc.stdout


def test_atk_tui_says_its_errors_through_the_sanitiser(tmp_path: Path) -> None:
    """`atk-tui`'s own stderr lines (a store path from the environment, which may be anything)
    never carry a raw newline, tab or escape: a fake line on stderr is not possible."""
    import sys

    exe = Path(sys.executable).with_name("atk-tui")
    env = {**os.environ, "ATK_PRIVATE_NOTES": str(tmp_path / "no\nsuch\t\x1b[31mstore"), "XDG_CONFIG_HOME": str(tmp_path)}
    out = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode != 0
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("atk-tui: ") and "\\x0a" in lines[0], out.stderr
    assert "\x1b" not in out.stderr and "\t" not in out.stderr
