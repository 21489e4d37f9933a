"""Service: transitions per actor, content writes, naming, answers (SPEC §3, §5, §7, §8).

Real git stores in tmp_path; no mocked git.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from support.storekit import (
    AWI_BODY,
    FROZEN,
    SPEC_AGENT_FROM,
    SPEC_TARGET,
    SPEC_USER_FROM_ONLY,
    UWI_BODY,
    Clock,
    add_item,
    git,
    tree_state,
)

from atk_tui.domain.model import STATES
from atk_tui.service import Service

AGENT_FROM, TARGET = SPEC_AGENT_FROM, SPEC_TARGET


def awi_text(repo: str = "acme/webapp", extra: str = "", body: str = AWI_BODY) -> str:
    return f"---\nkind: awi\ntarget_repo: {repo}\n{extra}---\n{body}"


def uwi_text(repo: str = "acme/webapp", extra: str = "", body: str = UWI_BODY) -> str:
    return f"---\nkind: uwi\ntarget_repo: {repo}\n{extra}---\n{body}"


def seed(root: Path, files: dict[str, tuple[str, str | bytes]]) -> None:
    """Put files straight into state folders and commit them in one go (fast set-up)."""
    for name, (state, text) in files.items():
        path = root / "wi" / state / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "seed")


def where(root: Path, name: str) -> list[str]:
    return [s for s in STATES if (root / "wi" / s / name).exists()]


def ncommits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").strip())


def last_commit(root: Path) -> tuple[str, str]:
    subject = git(root, "log", "-1", "--format=%s").strip()
    actor = git(root, "log", "-1", "--format=%(trailers:key=Atk-Actor,valueonly)").strip()
    return subject, actor


def one_per_state(root: Path) -> dict[str, str]:
    names = {s: f"item-{s}.md" for s in STATES}
    seed(root, {n: (s, awi_text()) for s, n in names.items()})
    return names


# --- transitions ----------------------------------------------------------------------


@pytest.mark.parametrize("op", sorted(TARGET))
@pytest.mark.parametrize("actor", ["user", "agent"])
def test_transition_matrix(store: Path, clock: Clock, op: str, actor: str) -> None:
    """Every (actor, op, from-state): allowed ones move and commit once, the rest are a
    state conflict that changes nothing."""
    names = one_per_state(store)
    svc = Service(store, clock=clock, actor=actor)
    target = TARGET[op]
    allowed = AGENT_FROM[op] if actor == "agent" else SPEC_USER_FROM_ONLY.get(op, set(STATES) - {target})
    head = git(store, "rev-parse", "HEAD").strip()
    for state, name in names.items():
        if state in allowed:
            out = svc.writes.transition(op, [name])
            assert out.ok, (state, out.message)
            assert where(store, name) == [target]
            new, parent, subject, who = git(
                store, "log", "-1", "--format=%H%x00%P%x00%s%x00%(trailers:key=Atk-Actor,valueonly)"
            ).strip().split("\0")
            assert parent == head  # exactly one new commit
            assert (subject, who) == (f"atk: {op} {name}", actor)
            assert out.commit == new
            head = new
        else:
            before = tree_state(store)
            out = svc.writes.transition(op, [name])
            assert not out.ok, (state, op)
            assert out.exit_code == 1
            assert out.message.startswith(f"state conflict: {name} is ")
            assert state in out.message
            assert tree_state(store) == before
    assert git(store, "status", "--porcelain") == ""


def test_agent_return_to_inbox_from_rejected(store: Path, clock: Clock) -> None:
    names = one_per_state(store)
    svc = Service(store, clock=clock, actor="agent")
    out = svc.writes.transition_command("return-to-inbox", [names["processing"]], from_state="rejected")
    assert not out.ok and out.code == "state"
    out = svc.writes.transition_command("return-to-inbox", [names["rejected"]], from_state="rejected")
    assert out.ok, out.message
    assert where(store, names["rejected"]) == ["inbox"]
    assert last_commit(store) == (f"atk: return-to-inbox {names['rejected']}", "agent")


def test_agent_adopts_inbox_uwi_only_when_answered(store: Path, clock: Clock) -> None:
    seed(store, {"q.md": ("inbox", uwi_text()), "p.md": ("inbox", awi_text())})
    agent = Service(store, clock=clock, actor="agent")
    out = agent.writes.transition_command("adopt", ["q.md"])
    assert not out.ok
    assert "state conflict: q.md is in inbox" in out.message
    assert "answer" in out.message
    assert not agent.writes.transition_command("adopt", ["p.md"]).ok  # an AWI never goes inbox -> adopted for agents
    user = Service(store, clock=clock, actor="user")
    assert user.answers.answer("q.md", choices={1: "A"}).ok
    out = agent.writes.transition_command("adopt", ["q.md"], note="closed by picker")
    assert out.ok, out.message
    assert where(store, "q.md") == ["adopted"]
    assert "note: closed by picker\n" in (store / "wi/adopted/q.md").read_text()


def test_state_conflict_with_expected_state(svc: Service) -> None:
    name = add_item(svc)
    assert svc.writes.transition_command("hold", [name]).ok
    before = tree_state(svc.root)
    # the dashboard saw it in inbox, someone else held it meanwhile
    out = svc.writes.transition("start-processing", [name], expect="inbox")
    assert not out.ok
    assert out.message == f"state conflict: {name} is in hold, not inbox"
    assert tree_state(svc.root) == before
    out = svc.writes.move([name], "processing", expect="inbox")
    assert not out.ok and out.code == "state"


def test_user_free_move_any_to_any(svc: Service) -> None:
    name = add_item(svc)
    path = ["adopted", "hold", "rejected", "processing", "inbox", "rejected", "adopted", "processing", "hold"]
    for to in path:
        out = svc.writes.move([name], to)
        assert out.ok, (to, out.message)
        assert where(svc.root, name) == [to]
    agent = Service(svc.root, clock=svc.clock, actor="agent")
    out = agent.writes.move([name], "inbox")
    assert not out.ok and out.exit_code == 2


@pytest.mark.parametrize("actor", ["user", "agent"])
def test_start_processing_several_all_or_nothing(store: Path, clock: Clock, actor: str) -> None:
    seed(
        store,
        {
            "a.md": ("inbox", awi_text()),
            "b.md": ("inbox", awi_text()),
            "c.md": ("processing", awi_text()),
            "d.md": ("inbox", awi_text(extra="depends_on: 5\n")),  # defective
        },
    )
    svc = Service(store, clock=clock, actor=actor)
    for bad in (["a.md", "b.md", "c.md"], ["a.md", "b.md", "nope.md"], ["a.md", "d.md"], ["a.md", "a.md"]):
        before = tree_state(store)
        out = svc.writes.transition_command("start-processing", bad)
        assert not out.ok, bad
        assert tree_state(store) == before, bad
    out = svc.writes.transition_command("start-processing", ["a.md", "b.md"])
    assert out.ok, out.message
    assert where(store, "a.md") == where(store, "b.md") == ["processing"]
    assert last_commit(store) == ("atk: start-processing 2 items", actor)
    changed = git(store, "show", "--no-renames", "--name-status", "--format=", "HEAD").split("\n")
    assert len([line for line in changed if line.strip()]) == 4  # two deletions, two additions


def test_transition_refuses_defective_with_reason(store: Path, clock: Clock) -> None:
    seed(store, {"d.md": ("inbox", awi_text(extra="kind2: x\nurgency: soon\n"))})
    svc = Service(store, clock=clock, actor="user")
    out = svc.writes.transition_command("hold", ["d.md"])
    assert not out.ok
    assert "defective" in out.message and "urgency" in out.message


def test_transition_argument_checks(svc: Service) -> None:
    name = add_item(svc)
    assert svc.writes.transition("explode", [name]).exit_code == 2
    assert svc.writes.transition("hold", []).exit_code == 2
    assert svc.writes.transition_command("hold", [name], note="x").exit_code == 2
    assert svc.writes.transition_command("start-processing", [name]).ok
    assert svc.writes.transition_command("adopt", [name], commit="abc123").exit_code == 2
    assert svc.writes.transition_command("reject", [name], commit="a" * 40).exit_code == 2
    out = svc.writes.transition_command("adopt", [name], commit="a" * 40, note="done")
    assert out.ok, out.message
    text = (svc.root / "wi/adopted" / name).read_text()
    assert "note: done\n" in text and f"commit: {'a' * 40}\n" in text


# --- add ------------------------------------------------------------------------------


def test_add_filename_from_clock_and_slug(svc: Service) -> None:
    out = svc.writes.add(kind="awi", target_repo="acme/webapp", body=AWI_BODY)
    assert out.ok, out.message
    assert out.files == ("20261129-120000-use-one-email-validator-everywhere.md",)
    assert last_commit(svc.root) == (f"atk: add {out.files[0]}", "user")
    text = (svc.root / "wi/inbox" / out.files[0]).read_text()
    assert text == (
        "---\nkind: awi\ntarget_repo: acme/webapp\ncreated: 2026-11-29T12:00:00Z\n---\n" + AWI_BODY
    )
    assert "source" not in text  # a user's add stores no source, never a guess
    assert out.item is not None and out.item.filename == out.files[0] and out.item.text == text


def test_add_collisions_get_numbered(svc: Service) -> None:
    names = [svc.writes.add(kind="awi", target_repo="r", body="# Same title\n").files[0] for _ in range(3)]
    assert names == [
        "20261129-120000-same-title.md",
        "20261129-120000-same-title-2.md",
        "20261129-120000-same-title-3.md",
    ]


def test_add_hash_slug_when_title_has_no_ascii_words(svc: Service) -> None:
    out = svc.writes.add(kind="awi", target_repo="r", body="# メール検証の統一\n\n本文\n")
    assert out.ok
    assert re.fullmatch(r"20261129-120000-[0-9a-f]{8}\.md", out.files[0])
    again = svc.writes.add(kind="awi", target_repo="r", body="# メール検証の統一\n\n本文\n")
    assert again.files[0] == out.files[0].removesuffix(".md") + "-2.md"
    # no H1 at all: the slug follows the title, the first line (issue 26); the hash only without words
    out = svc.writes.add(kind="awi", target_repo="r", body="just text\n")
    assert out.files[0] == "20261129-120000-just-text.md"
    out = svc.writes.add(kind="awi", target_repo="r", body="本文だけ\n")
    assert re.fullmatch(r"20261129-120000-[0-9a-f]{8}\.md", out.files[0])


def test_add_slug_is_lowercase_ascii_words(svc: Service) -> None:
    out = svc.writes.add(kind="awi", target_repo="r", body="# Fix: Löwe's API_v2 — now!\n")
    assert out.files[0] == "20261129-120000-fix-l-we-s-api-v2-now.md"


def test_add_uses_one_time_for_name_and_created(store: Path) -> None:
    ticks = iter([FROZEN, FROZEN + timedelta(seconds=5), FROZEN + timedelta(seconds=9)])
    svc = Service(store, clock=lambda: next(ticks), actor="user")
    out = svc.writes.add(kind="awi", target_repo="r", body="# t\n")
    assert out.ok
    stamp = out.files[0][:15]
    assert out.item is not None and out.item.created is not None
    assert out.item.created.strftime("%Y%m%d-%H%M%S") == stamp


def test_add_options_written_in_reserved_order(svc: Service) -> None:
    dep = add_item(svc)
    out = svc.writes.add(
        kind="uwi", target_repo="acme/webapp", body=UWI_BODY, source="process-wi", depends_on=[dep, dep],
        urgency="next-review", target_commit="3f2a",
    )
    assert out.ok, out.message
    head = (svc.root / "wi/inbox" / out.files[0]).read_text().split("---\n")[1]
    assert head.splitlines() == [
        "kind: uwi",
        "source: process-wi",
        "target_repo: acme/webapp",
        "target_commit: 3f2a",
        f"depends_on: [{dep}]",
        "created: 2026-11-29T12:00:01Z",
        "urgency: next-review",
    ]


@pytest.mark.parametrize(
    ("kw", "code"),
    [
        ({"kind": "bug"}, 2),
        ({"target_repo": " "}, 2),
        ({"body": "  \n"}, 2),
        ({"urgency": "blocking"}, 2),  # urgency goes with uwi only
        ({"kind": "uwi", "urgency": "whenever"}, 2),
        ({"kind": "uwi", "plan_file": "$(atk config get private_notes)/plans/x.md"}, 2),
        ({"depends_on": ["../x.md"]}, 2),
        ({"depends_on": ["sub/x.md"]}, 2),
        ({"depends_on": ["missing.md"]}, 1),
    ],
)
def test_add_refusals_write_nothing(svc: Service, kw: dict, code: int) -> None:
    args = {"kind": "awi", "target_repo": "acme/webapp", "body": AWI_BODY, **kw}
    before = tree_state(svc.root)
    out = svc.writes.add(**args)
    assert not out.ok
    assert out.exit_code == code, out.message
    assert tree_state(svc.root) == before


def test_agent_add_rules(store: Path, clock: Clock) -> None:
    agent = Service(store, clock=clock, actor="agent")
    before = tree_state(store)
    out = agent.writes.add(kind="awi", target_repo="r", body=AWI_BODY)
    assert not out.ok and out.exit_code == 2 and "--source" in out.message
    for heading in ("## 回答", "## ユーザーコメント", "## Answer", "## user comment"):
        out = agent.writes.add(kind="awi", target_repo="r", body=f"# t\n\n{heading}\n\nx\n", source="process-wi")
        assert not out.ok and out.exit_code == 2
        assert heading.removeprefix("## ") in out.message
        assert "'## ## " not in out.message
    assert tree_state(store) == before
    out = agent.writes.add(kind="awi", target_repo="r", body=AWI_BODY, source="process-wi")
    assert out.ok
    assert last_commit(store) == (f"atk: add {out.files[0]}", "agent")
    assert "source: process-wi\n" in (store / "wi/inbox" / out.files[0]).read_text()


# --- edit / save_text -----------------------------------------------------------------

COMMENTED = AWI_BODY + "\n## ユーザーコメント\n\nPlease keep the old regex  \r\nfor now.\n\n"


@pytest.mark.parametrize("actor", ["user", "agent"])
def test_edit_keeps_stored_comment_byte_for_byte(store: Path, clock: Clock, actor: str) -> None:
    seed(store, {"a.md": ("inbox", awi_text(body=COMMENTED))})
    old = (store / "wi/inbox/a.md").read_bytes()
    comment = old[old.index("## ユーザーコメント".encode()) :].rstrip(b"\n") + b"\n"
    svc = Service(store, clock=clock, actor=actor)
    out = svc.writes.edit("a.md", "# A new title\n\n- 反映内容: something else\n")
    assert out.ok, out.message
    new = (store / "wi/inbox/a.md").read_bytes()
    assert new.startswith(b"---\nkind: awi\ntarget_repo: acme/webapp\n---\n# A new title\n")
    assert new.endswith(comment)
    assert last_commit(store) == ("atk: edit a.md", actor)


def test_user_edit_may_replace_comment(svc: Service) -> None:
    seed(svc.root, {"a.md": ("inbox", awi_text(body=COMMENTED))})
    out = svc.writes.edit("a.md", "# t\n\n## ユーザーコメント\n\nnew words\n")
    assert out.ok, out.message
    text = (svc.root / "wi/inbox/a.md").read_text()
    assert "old regex" not in text and text.endswith("## ユーザーコメント\n\nnew words\n")


def test_edit_keeps_uwi_answer(svc: Service) -> None:
    seed(svc.root, {"q.md": ("inbox", uwi_text())})
    assert svc.answers.answer("q.md", choices={1: "B"}, text="why not").ok
    agent = Service(svc.root, clock=svc.clock, actor="agent")
    out = agent.writes.edit("q.md", "# Which email validation should be the project standard?\n\n## 質問\nReworded.\n")
    assert out.ok, out.message
    text = (svc.root / "wi/inbox/q.md").read_text()
    assert text.endswith("Reworded.\n\n## 回答\n\n- 1: B) Simple regex\n\nwhy not\n")
    assert agent.list()[0][0].answered


def test_agent_edit_refuses_user_only_headings(store: Path, clock: Clock) -> None:
    seed(store, {"a.md": ("inbox", awi_text(body=COMMENTED))})
    agent = Service(store, clock=clock, actor="agent")
    before = tree_state(store)
    for heading in ("## ユーザーコメント", "## 回答"):
        out = agent.writes.edit("a.md", f"# t\n\n{heading}\n\nforged\n")
        assert not out.ok and out.exit_code == 2 and heading in out.message
    assert tree_state(store) == before


def test_edit_refusals(svc: Service) -> None:
    seed(svc.root, {"t.md": ("adopted", awi_text()), "a.md": ("inbox", awi_text())})
    before = tree_state(svc.root)
    assert not svc.writes.edit("t.md", "# x\n").ok
    assert not svc.writes.edit("a.md", AWI_BODY).ok  # nothing to change
    assert not svc.writes.edit("nope.md", "# x\n").ok
    assert svc.writes.edit("../a.md", "# x\n").exit_code == 2
    assert tree_state(svc.root) == before


def test_save_text_refuses_defective_result(svc: Service) -> None:
    name = add_item(svc)
    before = tree_state(svc.root)
    out = svc.writes.save_text(name, "---\nkind: nope\ntarget_repo: r\n---\n# x\n")
    assert not out.ok and "kind" in out.message
    assert tree_state(svc.root) == before
    out = svc.writes.save_text(name, "---\nkind: awi\ntarget_repo: other/repo\n---\n# x\n")
    assert out.ok, out.message
    assert last_commit(svc.root) == (f"atk: edit {name}", "user")


# --- frontmatter preservation ---------------------------------------------------------

ODD_HEAD = (
    "---\n"
    "# a comment the user wrote\n"
    "kind:   awi      # spacing kept\n"
    "zeta: 1\n"
    "target_repo: 'acme/webapp'\n"
    "custom:\n"
    "  nested: [1, 2]   # inner comment\n"
    "alpha: \"quoted\"\n"
    "depends_on:\n"
    "  - dep-one.md   # listed block style\n"
    "omega: ~\n"
    "---\n"
)


def _head(path: Path) -> bytes:
    data = path.read_bytes()
    return data[: data.index(b"\n---\n", 4) + 5]


def test_frontmatter_bytes_unchanged_by_moves_answer_comment(svc: Service) -> None:
    uwi_head = ODD_HEAD.replace("kind:   awi", "kind:   uwi")
    seed(
        svc.root,
        {
            "dep-one.md": ("adopted", awi_text()),
            "a.md": ("inbox", ODD_HEAD + AWI_BODY),
            "q.md": ("inbox", uwi_head + UWI_BODY),
        },
    )
    a, q = svc.root / "wi/inbox/a.md", svc.root / "wi/inbox/q.md"
    assert _head(a) == ODD_HEAD.encode() and _head(q) == uwi_head.encode()
    assert svc.answers.comment("a.md", "looks good").ok
    assert svc.answers.answer("q.md", choices={1: "C"}).ok
    assert _head(a) == ODD_HEAD.encode() and _head(q) == uwi_head.encode()
    for to in ("hold", "processing", "rejected", "inbox"):
        assert svc.writes.move(["a.md"], to).ok
    assert svc.writes.transition_command("hold", ["q.md"]).ok
    assert _head(svc.root / "wi/inbox/a.md") == ODD_HEAD.encode()
    assert _head(svc.root / "wi/hold/q.md") == uwi_head.encode()
    assert svc.read("a.md").body.endswith("## ユーザーコメント\n\nlooks good\n")


def test_set_dependencies_rewrites_only_its_key(svc: Service) -> None:
    seed(svc.root, {"dep-one.md": ("adopted", awi_text()), "dep-two.md": ("inbox", awi_text()), "a.md": ("inbox", ODD_HEAD + AWI_BODY)})
    assert svc.writes.set_dependencies("a.md", ["dep-two.md", "dep-one.md"]).ok
    lines = _head(svc.root / "wi/inbox/a.md").decode().splitlines()
    expected = ODD_HEAD.splitlines()
    i = expected.index("depends_on:")
    expected[i : i + 2] = ["depends_on: [dep-two.md, dep-one.md]"]
    assert lines == expected
    assert last_commit(svc.root) == ("atk: set-dependencies a.md", "user")
    # no flag clears the key, and nothing else moves
    assert svc.writes.set_dependencies("a.md", []).ok
    expected.remove("depends_on: [dep-two.md, dep-one.md]")
    assert _head(svc.root / "wi/inbox/a.md").decode().splitlines() == expected
    assert svc.read("a.md").data["custom"] == {"nested": [1, 2]}


def test_adopt_note_rewrites_only_its_keys(svc: Service) -> None:
    head = ODD_HEAD.replace("omega: ~\n", "note: old note   # replaced\nomega: ~\n")
    seed(svc.root, {"dep-one.md": ("adopted", awi_text()), "a.md": ("processing", head + AWI_BODY)})
    out = svc.writes.transition_command("adopt", ["a.md"], note="merged in #42: yes", commit="b" * 40)
    assert out.ok, out.message
    lines = _head(svc.root / "wi/adopted/a.md").decode().splitlines()
    expected = head.splitlines()
    expected[expected.index("note: old note   # replaced")] = "note: 'merged in #42: yes'"
    expected.insert(-1, f"commit: {'b' * 40}")
    assert lines == expected
    item = svc.read("a.md")
    assert item.note == "merged in #42: yes" and item.commit == "b" * 40
    assert list(item.data) == ["kind", "zeta", "target_repo", "custom", "alpha", "depends_on", "note", "omega", "commit"]


def test_rewrite_refused_when_layout_is_unsafe(svc: Service) -> None:
    """A flow mapping whose continuation line looks like a top-level key cannot be
    rewritten key by key: refused with a reason, nothing written, no traceback."""
    seed(svc.root, {"a.md": ("processing", "---\nkind: awi\ntarget_repo: r\nx: {a: 1,\nnote: 2}\n---\n# t\n")})
    before = tree_state(svc.root)
    out = svc.writes.transition_command("adopt", ["a.md"], note="hi")
    assert not out.ok and "frontmatter" in out.message
    assert tree_state(svc.root) == before


# --- set-dependencies / convert-to-plan ------------------------------------------------


def test_set_dependencies_refusals(store: Path, clock: Clock) -> None:
    seed(
        store,
        {
            "a.md": ("inbox", awi_text()),
            "b.md": ("inbox", awi_text(extra="depends_on: [a.md]\n")),
            "c.md": ("inbox", awi_text(extra="depends_on: [b.md]\n")),
            "h.md": ("hold", awi_text()),
            "t.md": ("adopted", awi_text()),
        },
    )
    user = Service(store, clock=clock, actor="user")
    agent = Service(store, clock=clock, actor="agent")
    before = tree_state(store)
    out = user.writes.set_dependencies("a.md", ["c.md"])
    assert not out.ok and "a.md -> c.md -> b.md -> a.md" in out.message
    assert "itself" in user.writes.set_dependencies("a.md", ["a.md"]).message
    assert not user.writes.set_dependencies("a.md", ["missing.md"]).ok
    assert user.writes.set_dependencies("a.md", ["../x.md"]).exit_code == 2
    assert not user.writes.set_dependencies("t.md", ["a.md"]).ok
    out = agent.writes.set_dependencies("h.md", ["a.md"])
    assert not out.ok and out.code == "state"
    assert tree_state(store) == before
    assert user.writes.set_dependencies("h.md", ["a.md", "t.md"]).ok
    assert user.read("h.md").depends_on == ["a.md", "t.md"]


def test_convert_to_plan(svc: Service) -> None:
    seed(svc.root, {"a.md": ("inbox", awi_text()), "q.md": ("inbox", uwi_text())})
    plan = "$(atk config get private_notes)/plans/2026/11/login.md"
    out = svc.writes.convert_to_plan("a.md", plan)
    assert out.ok, out.message
    item = svc.read("a.md")
    assert item.plan_file == plan and item.awi_type == "plan"
    assert (svc.root / "wi/inbox/a.md").read_text().startswith("---\nkind: awi\ntarget_repo: acme/webapp\nplan_file: ")
    _items, view = svc.list()
    assert view.judgements["a.md"].status == "blocked"  # the plan file does not exist
    (svc.root / "plans/2026/11").mkdir(parents=True)
    (svc.root / "plans/2026/11/login.md").write_text("# plan\n")
    assert svc.list()[1].judgements["a.md"].ready
    assert not svc.writes.convert_to_plan("q.md", plan).ok
    assert svc.writes.convert_to_plan("a.md", "../../etc/passwd").exit_code == 2
    assert svc.writes.convert_to_plan("a.md", "/etc/passwd").exit_code == 2


# --- answer / comment -----------------------------------------------------------------


def test_answer_forms(svc: Service) -> None:
    seed(svc.root, {"q.md": ("inbox", uwi_text())})
    out = svc.answers.answer("q.md", choices={1: "a"}, text="Strict everywhere.\n## not a heading")
    assert out.ok, out.message
    assert last_commit(svc.root) == ("atk: answer q.md", "user")
    body = svc.read("q.md").body
    assert body.endswith("## 回答\n\n- 1: A) Strict RFC 5322\n\nStrict everywhere.\n\\## not a heading\n")
    assert body.startswith(UWI_BODY)
    # re-answer needs replace
    before = tree_state(svc.root)
    out = svc.answers.answer("q.md", choices={1: "B"})
    assert not out.ok and "--replace" in out.message
    assert tree_state(svc.root) == before
    out = svc.answers.answer("q.md", text="free text only", replace=True)
    assert out.ok
    body = svc.read("q.md").body
    assert body.count("## 回答") == 1 and body.endswith("## 回答\n\nfree text only\n")


@pytest.mark.parametrize(
    ("choices", "text", "code"),
    [({1: "D"}, "", 2), ({2: "A"}, "", 2), ({}, "  ", 2)],
)
def test_answer_bad_choices(svc: Service, choices: dict, text: str, code: int) -> None:
    seed(svc.root, {"q.md": ("inbox", uwi_text())})
    before = tree_state(svc.root)
    out = svc.answers.answer("q.md", choices=choices, text=text)
    assert not out.ok and out.exit_code == code
    assert tree_state(svc.root) == before


def test_answer_refusals(store: Path, clock: Clock) -> None:
    seed(store, {"q.md": ("adopted", uwi_text()), "a.md": ("inbox", awi_text()), "q2.md": ("inbox", uwi_text())})
    user = Service(store, clock=clock, actor="user")
    before = tree_state(store)
    out = user.answers.answer("q.md", choices={1: "A"})
    assert not out.ok and "return it to inbox" in out.message
    out = user.answers.answer("a.md", text="x")
    assert not out.ok and "AWI" in out.message
    out = Service(store, clock=clock, actor="agent").answers.answer("q2.md", choices={1: "A"})
    assert not out.ok and out.exit_code == 2
    assert tree_state(store) == before


def test_comment(store: Path, clock: Clock) -> None:
    seed(store, {"a.md": ("processing", awi_text()), "q.md": ("inbox", uwi_text()), "t.md": ("rejected", awi_text())})
    user = Service(store, clock=clock, actor="user")
    assert user.answers.comment("a.md", "first").ok
    assert user.answers.comment("a.md", "second").ok
    assert last_commit(store) == ("atk: comment a.md", "user")
    item = user.read("a.md")
    assert item.has_comment and item.body.startswith(AWI_BODY)
    assert item.body.count("## ユーザーコメント") == 1
    assert "first" in item.body and item.body.rstrip().endswith("second")
    before = tree_state(store)
    assert not user.answers.comment("q.md", "x").ok
    assert not user.answers.comment("t.md", "x").ok
    assert user.answers.comment("a.md", " \n").exit_code == 2
    assert Service(store, clock=clock, actor="agent").answers.comment("a.md", "x").exit_code == 2
    assert tree_state(store) == before


# --- rm, target repo, history ---------------------------------------------------------


def test_rm(store: Path, clock: Clock) -> None:
    names = one_per_state(store)
    svc = Service(store, clock=clock, actor="agent")
    for state, name in names.items():
        before = tree_state(store)
        out = svc.writes.rm(name)
        if state in ("inbox", "hold"):
            assert out.ok, out.message
            assert where(store, name) == []
            assert last_commit(store) == (f"atk: rm {name}", "agent")
            # recoverable from history
            assert git(store, "show", f"HEAD~1:wi/{state}/{name}") == awi_text()
        else:
            assert not out.ok and out.code == "state"
            assert tree_state(store) == before


def test_target_repo_guard(store: Path, clock: Clock) -> None:
    seed(store, {"a.md": ("inbox", awi_text("acme/webapp")), "b.md": ("inbox", awi_text("acme/other"))})
    svc = Service(store, clock=clock, actor="user", only_repo="acme/other")
    before = tree_state(store)
    for out in (
        svc.writes.transition_command("hold", ["a.md"]),
        svc.writes.transition_command("start-processing", ["b.md", "a.md"]),
        svc.writes.edit("a.md", "# x\n"),
        svc.answers.comment("a.md", "x"),
        svc.writes.set_dependencies("a.md", []),
        svc.writes.rm("a.md"),
    ):
        assert not out.ok
        assert "acme/webapp" in out.message and "acme/other" in out.message
    assert tree_state(store) == before
    with pytest.raises(Exception, match="--target-repo"):
        svc.show("a.md")
    assert [i.filename for i in svc.list()[0]] == ["b.md"]
    assert svc.writes.transition_command("hold", ["b.md"]).ok


def test_history_reports_actor(svc: Service) -> None:
    name = add_item(svc)
    Service(svc.root, clock=svc.clock, actor="agent").writes.transition_command("hold", [name])
    hist = svc.history(name)
    assert [(h.subject, h.actor) for h in hist] == [(f"atk: hold {name}", "agent"), (f"atk: add {name}", "user")]


def test_nothing_to_change_makes_no_commit(svc: Service) -> None:
    name = add_item(svc)
    n = ncommits(svc.root)
    out = svc.writes.set_dependencies(name, [])  # a no-op (process-feedbacks sets each item's set every run): exit 0
    assert out.ok and out.commit is None and "nothing committed" in out.message
    assert ncommits(svc.root) == n


# -- save_text with a base ---------------------------------------------------------------------
# save_text with `base`: an edit session never overwrites a change made meanwhile.


def test_save_text_refuses_when_the_file_changed_since_it_was_opened(svc: Service) -> None:
    name = add_item(svc, AWI_BODY)
    path = svc.root / "wi" / "inbox" / name
    opened = path.read_bytes()
    other = Service(svc.root, actor="agent")
    assert other.writes.edit(name, AWI_BODY.replace("one behaviour", "one behaviour, agreed")).ok
    head = git(svc.root, "rev-parse", "HEAD")
    mine = opened.decode().replace("Use one email", "Use a single email")
    out = svc.writes.save_text(name, mine, base=opened)
    assert not out.ok
    assert "changed by someone else" in out.message
    assert git(svc.root, "rev-parse", "HEAD") == head
    assert b"agreed" in path.read_bytes()
    # with the current bytes as the base the person's text is saved
    out = svc.writes.save_text(name, mine, base=path.read_bytes())
    assert out.ok, out.message
    assert "Use a single email" in path.read_text()


# --- a reserved key no flag sets: kept from the body's frontmatter, validated -------------


def test_a_reserved_key_without_a_flag_is_kept_from_the_body_validated(svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new field of `domain.fields` needs no flag on `add` to be given (ARCHITECTURE.md's
    recipe): the body's frontmatter carries it, validated as the table says, never dropped.
    Shown with `urgency` as if it had no flag."""
    from atk_tui.service.writing.adding import _BodyKeys

    real = _BodyKeys.merge

    def merge(self, key, flag_value, *args, **kw):  # `urgency` as if `add` had no flag for it
        return flag_value if key == "urgency" else real(self, key, flag_value, *args, **kw)

    monkeypatch.setattr(_BodyKeys, "merge", merge)
    body = "---\nurgency: next-review\n---\n# Which?\n\n## 質問\nWhich?\n\n- A) one\n- B) two\n"
    out = svc.writes.add(kind="uwi", target_repo="acme/api", body=body)
    assert out.ok, out.message
    assert out.item is not None and svc.read(out.item.filename).urgency == "next-review"
    bad = svc.writes.add(kind="uwi", target_repo="acme/api", body=body.replace("next-review", "soon"))
    assert not bad.ok and "urgency" in bad.message
