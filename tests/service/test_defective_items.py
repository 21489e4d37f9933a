"""A corpus of broken item files (SPEC §3, §4, §9): each is listed with its reason, nothing
crashes, moves are refused with the reason, and the file can still be fixed or removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.storekit import AWI_BODY, git, tree_state

from atk_tui.cli.main import run
from atk_tui.service import Service

GOOD = f"---\nkind: awi\ntarget_repo: acme/webapp\n---\n{AWI_BODY}"
LAUGHS = "---\nkind: awi\ntarget_repo: r\n" + "".join(
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9) if i else 'lol'}]\n" for i in range(10)
) + "---\n# laughs\n"

#: filename -> (file bytes, a fragment of the reason it is listed with)
CORPUS: dict[str, tuple[bytes, str]] = {
    "no-frontmatter.md": (b"# Just a title\n\nno metadata\n", "no frontmatter"),
    "unclosed.md": (b"---\nkind: awi\ntarget_repo: r\n# never closed\n", "no frontmatter"),
    "bad-yaml.md": (b"---\nkind: awi\ntarget_repo: [unclosed\n---\n# t\n", "YAML error"),
    "a-list.md": (b"---\n- kind\n- awi\n---\n# t\n", "not a mapping (got list)"),
    "a-scalar.md": (b"---\njust words\n---\n# t\n", "not a mapping (got str)"),
    "wrong-types.md": (b"---\nkind: awi\ntarget_repo: 5\nsource: [a]\n---\n# t\n", "target_repo: must be text, got int"),
    "python-tag.md": (
        b"---\nkind: !!python/object/apply:os.system ['echo pwned > PWNED']\ntarget_repo: r\n---\n# t\n",
        "YAML error",
    ),
    "python-name.md": (b"---\nkind: awi\ntarget_repo: !!python/name:os.system\n---\n# t\n", "YAML error"),
    "laughs.md": (LAUGHS.encode(), "anchors/aliases"),
    "latin1.md": (b"---\nkind: awi\ntarget_repo: r\n---\n# caf\xe9 cr\xe8me\n", "not valid UTF-8"),
    "nul-bytes.md": (b"---\nkind: awi\ntarget_repo: r\n---\n# t\x00\n", "NUL bytes"),
    "huge.md": (GOOD.encode() + b"x" * (5 * 1024 * 1024) + b"\n", "file too large"),
    "empty.md": (b"", "empty file"),
    "naive-cooldown.md": (b"---\nkind: awi\ntarget_repo: r\ncooldown_until: 2026-11-30T09:00:00\n---\n# t\n", "needs a timezone"),
    "date-cooldown.md": (b"---\nkind: awi\ntarget_repo: r\ncooldown_until: 2026-11-30\n---\n# t\n", "needs a time and a timezone"),
    "garbage-time.md": (b"---\nkind: awi\ntarget_repo: r\ncreated: last tuesday\n---\n# t\n", "not an ISO 8601"),
    "unknown-kind.md": (b"---\nkind: bug\ntarget_repo: r\n---\n# t\n", "kind: 'bug' is not one of"),
    "no-kind.md": (b"---\ntarget_repo: r\n---\n# t\n", "kind: required"),
    "unknown-urgency.md": (b"---\nkind: uwi\ntarget_repo: r\nurgency: soonish\n---\n# t\n", "urgency: 'soonish'"),
    "deps-string.md": (b"---\nkind: awi\ntarget_repo: r\ndepends_on: other.md\n---\n# t\n", "depends_on: must be a list"),
    "deps-traversal.md": (b"---\nkind: awi\ntarget_repo: r\ndepends_on: [../x.md]\n---\n# t\n", "bad filename '../x.md'"),
    "deps-path.md": (b"---\nkind: awi\ntarget_repo: r\ndepends_on: [/etc/passwd]\n---\n# t\n", "bad filename '/etc/passwd'"),
    "deps-number.md": (b"---\nkind: awi\ntarget_repo: r\ndepends_on: [3]\n---\n# t\n", "depends_on.0: must be text"),
    "int-key.md": (b"---\n1: one\nkind: awi\ntarget_repo: r\n---\n# t\n", "keys must be text"),
    "uwi-plan.md": (b"---\nkind: uwi\ntarget_repo: r\nplan_file: p.md\n---\n# t\n", "only an AWI can have a plan file"),
    "blank-repo.md": (b"---\nkind: awi\ntarget_repo: '  '\n---\n# t\n", "target_repo: must not be empty"),
    "in-two-states.md": (GOOD.encode(), "in 2 states at once"),
}
BAD_NAMES = {"bad name.md": GOOD.encode(), "-leading-dash.md": GOOD.encode(), "x.txt.md~": GOOD.encode()}


@pytest.fixture
def corpus(store: Path) -> Path:
    for name, (data, _) in CORPUS.items():
        (store / "wi" / "inbox" / name).write_bytes(data)
    (store / "wi" / "hold" / "in-two-states.md").write_bytes(GOOD.encode())
    for name, data in BAD_NAMES.items():
        (store / "wi" / "inbox" / name).write_bytes(data)
    (store / "wi" / "inbox" / "good.md").write_bytes(GOOD.encode())
    (store / "wi" / "inbox" / "needs-broken.md").write_bytes(
        b"---\nkind: awi\ntarget_repo: r\ndepends_on: [bad-yaml.md]\n---\n# t\n"
    )
    git(store, "add", "-A")
    git(store, "commit", "-q", "-m", "corpus")
    return store


def list_json(store: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, dict]:
    capsys.readouterr()
    assert run(["wi", "list", "--json", "--store", str(store), *extra]) == 0
    return {d["filename"]: d for d in map(json.loads, capsys.readouterr().out.splitlines())}


def test_every_defect_is_listed_with_its_reason(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = list_json(corpus, capsys)
    for name, (_, reason) in CORPUS.items():
        d = items[name]
        assert d["status"] == "defective", name
        assert d["ready"] is False
        assert any(reason in r for r in d["defects"]), (name, d["defects"])
        assert any(reason in r for r in d["reasons"]), (name, d["reasons"])
    for name in BAD_NAMES:
        assert any("bad filename" in r for r in items[name]["defects"]), name
    assert items["good.md"]["status"] == "ready"
    blocked = items["needs-broken.md"]
    assert blocked["status"] == "blocked" and any("defective" in r for r in blocked["reasons"])
    assert not (corpus / "PWNED").exists()  # the python tag never ran
    # the huge file is listed, with a preview title, without reading it whole into the cache
    assert items["huge.md"]["title"] == "Use one email validator everywhere"


def test_text_listing_and_store_defects(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert run(["wi", "list", "--store", str(corpus)]) == 0
    out, err = capsys.readouterr()
    rows = {line.split("\t")[0]: line for line in out.splitlines()}
    for name, (_, reason) in CORPUS.items():
        assert "defective" in rows[name] and reason in rows[name], name
    assert "store defect: wi/inbox/bad name.md: filename breaks the item filename pattern" in err
    assert "store defect: wi/inbox/-leading-dash.md" in err
    assert "store defect: in-two-states.md: filename is in 2 states at once: inbox, hold" in err
    # a second run (warm cache) says the same
    assert run(["wi", "list", "--store", str(corpus)]) == 0
    assert capsys.readouterr() == (out, err)


def test_show_defective_items(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, (_, reason) in CORPUS.items():
        capsys.readouterr()
        assert run(["wi", "show", name, "--store", str(corpus)]) == 0, name
        assert reason in capsys.readouterr().err, name
    assert run(["wi", "show", "latin1.md", "--json", "--store", str(corpus)]) == 0
    assert "caf\ufffd" in json.loads(capsys.readouterr().out)["body"]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_defective_item_refuses_moves_but_can_be_fixed_and_removed(corpus: Path, name: str) -> None:
    svc = Service(corpus, actor="user")
    reason = CORPUS[name][1]
    before = tree_state(corpus)
    for out in (svc.writes.transition_command("hold", [name]), svc.writes.transition_command("start-processing", [name, "good.md"]), svc.writes.move([name], "adopted")):
        assert not out.ok
        assert "defective" in out.message and reason in out.message, out.message
    assert not svc.writes.set_dependencies(name, []).ok
    assert tree_state(corpus) == before
    if name != "in-two-states.md":
        # a fix through the whole-file editor path is accepted ...
        out = svc.writes.save_text(name, GOOD.replace("# Use one", "# Fixed: use one"))
        assert out.ok, out.message
        assert svc.read(name).defects == []
        assert svc.writes.transition_command("hold", [name]).ok
        out = svc.writes.rm(name)
    else:
        out = svc.writes.rm(name)  # removes the inbox copy; the hold copy is left for the user
    assert out.ok, out.message
    assert git(corpus, "log", "-1", "--format=%s").strip() == f"atk: rm {name}"


def test_defective_item_can_be_removed_directly(corpus: Path) -> None:
    svc = Service(corpus, actor="agent")
    for name in ("bad-yaml.md", "laughs.md", "huge.md", "empty.md", "latin1.md"):
        out = svc.writes.rm(name)
        assert out.ok, (name, out.message)
        assert not (corpus / "wi/inbox" / name).exists()


def test_invalid_fix_is_refused_with_reason(corpus: Path) -> None:
    svc = Service(corpus, actor="user")
    before = tree_state(corpus)
    out = svc.writes.save_text("bad-yaml.md", "---\nkind: awi\n---\n# still broken\n")
    assert not out.ok and "target_repo: required" in out.message
    out = svc.writes.edit("bad-yaml.md", "# new body only\n")  # the frontmatter stays broken
    assert not out.ok and "YAML error" in out.message
    out = svc.writes.edit("no-frontmatter.md", "# new body\n")
    assert not out.ok and "no frontmatter" in out.message
    assert tree_state(corpus) == before


def test_bad_filenames_are_refused_as_arguments(corpus: Path) -> None:
    svc = Service(corpus, actor="user")
    before = tree_state(corpus)
    for name in BAD_NAMES:
        for out in (svc.writes.transition_command("hold", [name]), svc.writes.rm(name), svc.writes.edit(name, "# x\n"), svc.writes.save_text(name, GOOD)):
            assert not out.ok and out.exit_code == 2, name
    assert tree_state(corpus) == before


def test_dependency_on_defective_items(corpus: Path) -> None:
    svc = Service(corpus, actor="user")
    assert svc.writes.set_dependencies("good.md", ["bad-yaml.md"]).ok
    _items, view = svc.list()
    assert view.judgements["good.md"].status == "blocked"
    assert any("defective" in r.message for r in view.judgements["good.md"].reasons)
