"""A hold has an owner (SPEC §15, issue 24 point 3, issue 26 "mq editing"): the actor of the
commit that moved the item into hold (`Atk-Actor`, and `Atk-Agent` from ATK_AGENT_ID). An agent
on another clone cannot release, edit, remove or otherwise change the person's hold, nor a named
agent's; it is told who holds it since when and what to do. The person changes any hold.
Real git: a bare remote and two or three clones, `atk` in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.holdkit import ANON, Clones, trailers
from support.storekit import UWI_BODY, git

from atk_tui.service import Service


@pytest.fixture
def world(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Clones:
    return Clones.make(tmp_path, capsys, "a", "b", "c")


@pytest.fixture
def held(world: Clones) -> str:
    """An item the person (clone A) holds, pushed; clone B has pulled it."""
    name = world.add("a")
    rc, _, err = world.atk("a", "wi", "hold", name)
    assert rc == 0, err
    world.pull("b")
    return name


def _nothing_changed(world: Clones, before: dict[str, str]) -> None:
    assert world.remote_head() == before["remote"]
    for where in ("a", "b"):
        assert world.head(where) == before[where], where
        assert git(world[where], "status", "--porcelain", "--", "wi", "mq").strip() == "", where


def _heads(world: Clones) -> dict[str, str]:
    return {"remote": world.remote_head(), "a": world.head("a"), "b": world.head("b")}


AGENT_WRITES = {
    "unhold": ["wi", "unhold", "{F}"],
    "edit": ["wi", "edit", "{F}", "--body-file", "{BODY}"],
    "rm": ["wi", "rm", "{F}"],
    "set-dependencies": ["wi", "set-dependencies", "{F}"],
    "convert-to-plan": [
        "wi",
        "convert-to-plan",
        "{F}",
        "--plan-file",
        "$(atk config get private_notes)/plans/2026/12/p.md",
    ],
    "set-cooldown": ["wi", "set-cooldown", "{F}", "--until", "2h"],
    "start-processing": ["wi", "start-processing", "{F}"],
    "hold": ["wi", "hold", "{F}"],
    "adopt": ["wi", "adopt", "{F}"],
}


@pytest.mark.parametrize("op", sorted(AGENT_WRITES))
def test_an_agent_on_another_clone_cannot_change_the_persons_hold(
    world: Clones, held: str, op: str, tmp_path: Path
) -> None:
    body = tmp_path / "body.md"
    body.write_text("# Rewritten by an agent\n\nnew text\n", encoding="utf-8")
    args = [a.replace("{F}", held).replace("{BODY}", str(body)) for a in AGENT_WRITES[op]]
    before = _heads(world)
    rc, out, err = world.atk("b", *args, agent=ANON)
    assert rc == 1, (out, err)
    assert f"{held} is held by the user since " in err and " UTC " in err
    assert "wait for the person to release it" in err
    _nothing_changed(world, before)
    assert world.state("b", held) == "hold"


def test_a_hand_move_committed_by_atk_wi_commit_is_refused_too(world: Clones, held: str) -> None:
    git(world["b"], "mv", f"wi/hold/{held}", f"wi/inbox/{held}")
    before = _heads(world)
    rc, out, err = world.atk("b", "wi", "commit", agent=ANON)
    assert rc == 1, (out, err)
    assert "held by the user" in err and "undo it" in err
    assert world.remote_head() == before["remote"] and world.head("b") == before["b"]
    assert git(world["b"], "ls-tree", "-r", "--name-only", "HEAD", "--", "wi/hold").split() == [
        "wi/hold/.gitkeep",
        f"wi/hold/{held}",
    ]


def test_the_dashboards_edit_hold_belongs_to_the_person(world: Clones) -> None:
    name = world.add("a")
    ticket = Service(world["a"], actor="user").writes.begin_edit(name)  # what `e` does first
    assert ticket.held and ticket.pushed
    world.pull("b")
    before = _heads(world)
    rc, _, err = world.atk("b", "wi", "unhold", name, agent="worker-1")
    assert rc == 1 and "held by the user" in err
    _nothing_changed(world, before)


def test_named_agents_own_their_holds(world: Clones) -> None:
    name = world.add("a")
    world.pull("b")
    rc, _, err = world.atk("b", "wi", "hold", name, agent="worker-x")
    assert rc == 0, err
    assert trailers(world["b"]) == ("agent", "worker-x")
    world.pull("c")
    for other in ("worker-y", ANON):  # another named agent, an unnamed one: refused
        rc, _, err = world.atk("c", "wi", "unhold", name, agent=other)
        assert rc == 1, err
        assert f"{name} is held by agent worker-x since" in err and "only agent worker-x or the user" in err
    rc, _, err = world.atk("c", "wi", "unhold", name, agent="worker-x")  # itself, on any clone
    assert rc == 0, err
    assert trailers(world["c"]) == ("agent", "worker-x")


def test_an_unnamed_agents_hold_is_any_agents_and_the_person_releases_any(world: Clones) -> None:
    first, second = world.add("a", "One"), world.add("a", "Two")
    world.pull("b")
    assert world.atk("b", "wi", "hold", first, agent=ANON)[0] == 0
    assert trailers(world["b"]) == ("agent", "")
    world.pull("c")
    assert world.atk("c", "wi", "unhold", first, agent="worker-y")[0] == 0  # anyone's
    assert world.atk("b", "wi", "hold", second, agent="worker-x")[0] == 0
    assert trailers(world["b"]) == ("agent", "worker-x")
    rc, _, err = world.atk("a", "wi", "unhold", second)  # the person, no agent variables
    assert rc == 0, err
    assert world.state("a", second) == "inbox"


def test_a_bad_agent_id_is_refused(world: Clones) -> None:
    name = world.add("a")
    for bad in ("has space", "x" * 65, "semi;colon", "ü"):
        rc, out, err = world.atk("a", "wi", "hold", name, agent=bad)
        assert rc == 2, (bad, out, err)
        assert "ATK_AGENT_ID" in err and "not a valid agent id" in err
        rc, _, err = world.atk("a", "wi", "list", agent=bad)
        assert rc == 2 and "not a valid agent id" in err
    assert world.state("a", name) == "inbox"


def test_show_and_list_say_who_holds_it(world: Clones, held: str) -> None:
    other = world.add("a", "Other")
    world.pull("b")
    rc, out, err = world.atk("b", "wi", "list", "--json")
    assert rc == 0, err
    records = {r["filename"]: r for r in map(json.loads, out.splitlines())}
    hold_commit = git(world["a"], "log", "-1", "--format=%H", "--diff-filter=A", "--", f"wi/hold/{held}").strip()
    by = records[held]["held_by"]
    assert by["actor"] == "user" and by["agent_id"] is None and by["commit"] == hold_commit
    assert by["since"].endswith("Z") and by["state"] == "hold"
    assert "held_by" not in records[other]
    # the warm listing (served from its cache) says the same
    rc2, out2, _ = world.atk("b", "wi", "list", "--json")
    assert rc2 == 0 and out2 == out
    rc, out, err = world.atk("b", "wi", "show", held, "--json")
    assert rc == 0 and json.loads(out)["held_by"] == by
    rc, out, err = world.atk("b", "wi", "show", held)  # text: the stored text on stdout, the holder beside it
    assert rc == 0 and out.startswith("---\n") and "held by" not in out
    assert f"{held}: held by the user since " in err
    world.pull("c")
    assert world.atk("c", "wi", "unhold", held)[0] == 0  # the person again, on clone C
    assert world.atk("c", "wi", "hold", held, agent="worker-x")[0] == 0
    rc, out, _ = world.atk("c", "wi", "list", "--json", "--status", "hold")
    (rec,) = map(json.loads, out.splitlines())
    assert (rec["held_by"]["actor"], rec["held_by"]["agent_id"]) == ("agent", "worker-x")


def test_listing_many_held_items_is_one_walk_and_right(world: Clones, monkeypatch: pytest.MonkeyPatch) -> None:
    svc = Service(world["a"], actor="user", pull=False, push=False)
    from support.storekit import add_item

    names = [add_item(svc, f"# Item {n}\n\nbody {n}\n") for n in range(30)]
    for n, name in enumerate(names):
        agent = Service(world["a"], actor="agent" if n % 2 else "user", pull=False, push=False)
        assert agent.writes.transition_command("hold", [name]).ok
    from atk_tui.store.gitstore import GitStore

    walks: list[tuple[str, ...]] = []
    real = GitStore.stream

    def spy(self, *args, **kw):
        if args[:1] == ("log",):
            walks.append(args)
        return real(self, *args, **kw)

    monkeypatch.setattr(GitStore, "stream", spy)
    found = Service(world["a"], actor="user").held_in(["hold"])
    assert len(walks) == 1
    assert {n: h.actor for n, h in found.items()} == {n: ("agent" if i % 2 else "user") for i, n in enumerate(names)}


# -- the feedback queue: hold and editing -------------------------------------------------


def test_mq_hold_and_editing_belong_to_the_person(world: Clones, tmp_path: Path) -> None:
    held, editing = world.add("a", "Held", queue="mq"), world.add("a", "Being edited", queue="mq")
    assert world.atk("a", "mq", "hold", held)[0] == 0
    ticket = Service(world["a"], actor="user").writes.begin_edit(editing)  # the dashboard's `e`: editing
    assert ticket.state == "editing"
    world.pull("b")
    body = tmp_path / "b.md"
    body.write_text("# Rewritten\n\nby an agent\n", encoding="utf-8")
    before = _heads(world)
    for args in (
        ["mq", "edit", editing, "--body-file", str(body)],
        ["mq", "unhold", editing],
        ["mq", "rm", editing],
        ["mq", "edit", held, "--body-file", str(body)],
        ["mq", "unhold", held],
    ):
        rc, out, err = world.atk("b", *args, agent=ANON)
        assert rc == 1, (args, out, err)
        assert "by the user since" in err, (args, err)
    _nothing_changed(world, before)
    rc, out, _ = world.atk("b", "mq", "list", "--json")
    records = {r["filename"]: r for r in map(json.loads, out.splitlines())}
    assert records[editing]["held_by"]["state"] == "editing" and records[editing]["held_by"]["actor"] == "user"
    assert records[held]["held_by"]["actor"] == "user"


def test_mq_editing_is_the_editors_only(world: Clones, tmp_path: Path) -> None:
    """issue 26: `atk mq edit` of an item in editing is refused for anyone but its owner."""
    name = world.add("a", "Edited", queue="mq")
    Service(world["a"], actor="user").writes.begin_edit(name)
    world.pull("b")
    body = tmp_path / "b.md"
    body.write_text("# Rewritten\n\nby an agent\n", encoding="utf-8")
    rc, _, err = world.atk("b", "mq", "edit", name, "--body-file", str(body), agent="worker-x")
    assert rc == 1 and f"{name} is being edited by the user since" in err
    rc, _, err = world.atk("b", "mq", "edit", name, "--body-file", str(body))  # the person: theirs
    assert rc == 0, err


# -- answers: the question the person read is the one recorded --------------------------------

REWORDED = UWI_BODY.replace("- A) Strict RFC 5322", "- A) Simple regex").replace(
    "- B) Simple regex", "- B) Strict RFC 5322"
)


def _question(world: Clones) -> str:
    rc, out, err = world.atk("a", "wi", "add", "--kind", "uwi", "--target-repo", "acme/webapp", UWI_BODY)
    assert rc == 0, err
    world.pull("b")
    return out.splitlines()[0].strip()


def _agent_rewrites(world: Clones, name: str, body: str, tmp_path: Path) -> None:
    path = tmp_path / "q.md"
    path.write_text(body, encoding="utf-8")
    rc, _, err = world.atk("b", "wi", "edit", name, "--body-file", str(path), agent=ANON)
    assert rc == 0, err


def test_an_answer_is_refused_when_the_pull_brings_a_reworded_question(world: Clones, tmp_path: Path) -> None:
    name = _question(world)
    _agent_rewrites(world, name, REWORDED, tmp_path)  # on clone B, pushed; clone A has not seen it
    remote = world.remote_head()
    rc, out, err = world.atk("a", "wi", "answer", name, "--choose", "A")
    assert rc == 1, (out, err)
    assert "the question in" in err and "changed since you read it" in err
    assert "option A is now 'Simple regex' (was 'Strict RFC 5322')" in err
    assert "Nothing was recorded" in err
    assert world.remote_head() == remote and world.head("a") == remote  # pulled, nothing of its own
    assert "## 回答" not in (world["a"] / "wi" / "inbox" / name).read_text(encoding="utf-8")
    rc, _, err = world.atk("a", "wi", "answer", name, "--choose", "A")  # read again: now it is recorded
    assert rc == 0, err
    # a change beside the question (its context) does not refuse an answer
    beside = REWORDED.replace("Two patterns were found.", "Two patterns were found in auth.")
    _agent_rewrites(world, name, beside, tmp_path)  # (the stored answer is kept: SPEC §8)
    rc, _, err = world.atk("a", "wi", "answer", name, "--choose", "B", "--replace")
    assert rc == 0, err


def test_the_dashboards_answer_says_what_changed_in_the_question(world: Clones, tmp_path: Path) -> None:
    name = _question(world)
    svc = Service(world["a"], actor="user")
    base = svc.read_bytes(name)  # what the form showed
    _agent_rewrites(world, name, REWORDED, tmp_path)
    out = svc.answers.answer(name, choices={1: "A"}, base=base)
    assert not out.ok and out.code == "changed"
    assert "option A is now 'Simple regex'" in out.message and "Nothing was recorded" in out.message


def test_the_holders_cache_follows_new_holds_and_rewritten_history(world: Clones) -> None:
    name = world.add("a")

    def holder() -> tuple[str, str | None]:
        rc, out, err = world.atk("a", "wi", "list", "--json", "--status", "hold", "--skip-pull")
        assert rc == 0, err
        (rec,) = map(json.loads, out.splitlines())
        return rec["held_by"]["actor"], rec["held_by"]["agent_id"]

    assert world.atk("a", "wi", "hold", name)[0] == 0
    assert holder() == ("user", None)
    assert (world["a"] / ".git" / "atk-cache" / "holders.cache").is_file()
    assert world.atk("a", "wi", "unhold", name)[0] == 0
    assert world.atk("a", "wi", "hold", name, agent="worker-x")[0] == 0
    assert holder() == ("agent", "worker-x")  # held again since the cached HEAD: the newer hold
    git(world["a"], "reset", "-q", "--hard", "HEAD~2")  # history under the cache rewritten
    assert holder() == ("user", None)
    rc, _, err = world.atk("a", "wi", "unhold", name, "--skip-pull", "--skip-push", agent="worker-x")
    assert rc == 1 and "held by the user" in err  # the write's check asks this HEAD too


def test_an_answer_is_refused_when_a_read_since_the_persons_show_brought_a_reworded_question(
    world: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reads pull (SPEC §15): a plain `atk wi list` after the person read the question with
    `atk wi show` may bring in a reworded one; the answer is checked against what `show`
    printed to the person, not against whatever the clone holds by then."""
    monkeypatch.setenv("ATK_READ_WINDOW", "0")
    name = _question(world)
    rc, out, _ = world.atk("a", "wi", "show", name)  # the person reads: A is Strict RFC 5322
    assert rc == 0 and "A) Strict RFC 5322" in out
    _agent_rewrites(world, name, REWORDED, tmp_path)
    assert world.atk("a", "wi", "list")[0] == 0  # this read brings the new wording in, unseen
    assert "A) Simple regex" in (world["a"] / "wi" / "inbox" / name).read_text(encoding="utf-8")
    remote = world.remote_head()
    rc, out, err = world.atk("a", "wi", "answer", name, "--choose", "A")
    assert rc == 1, (out, err)
    assert "option A is now 'Simple regex' (was 'Strict RFC 5322')" in err and "Nothing was recorded" in err
    assert world.remote_head() == remote
    assert "## 回答" not in (world["a"] / "wi" / "inbox" / name).read_text(encoding="utf-8")
    rc, out, _ = world.atk("a", "wi", "show", name)  # read again: the new version is the one read
    assert rc == 0 and "A) Simple regex" in out
    rc, _, err = world.atk("a", "wi", "answer", name, "--choose", "A")
    assert rc == 0, err
    # an agent's show is no person's reading of it
    other = _question(world)
    world.atk("a", "wi", "show", other, agent=ANON)
    rc, _, err = world.atk("a", "wi", "answer", other, "--choose", "B")
    assert rc == 0, err
