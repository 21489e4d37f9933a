"""The three-way merge of one item over its parts (issue 39, `store.merge.merge_item`):
changes to different parts on two sides merge to both; the same part changed differently on
both sides is a conflict; the person's sections are never lost. Property tests over a model
of an item (its state, frontmatter keys, `depends_on`, body sections) rendered to a file."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from atk_tui.itemfile import sections
from atk_tui.itemfile.items import parse_item, split_frontmatter
from atk_tui.store.merge import merge_item

NAME = "20261201-000000-item.md"
STATES = ("inbox", "hold", "processing", "adopted", "rejected")
KEYS = ("target_commit", "x-area", "x-label", "x-owner")
HEADINGS = ("## 背景", "## 詳細", "## 完成条件", "## Notes")
DEPS = tuple(f"2026120{i}-000000-dep{i}.md" for i in range(1, 8))
COMMENT = "## ユーザーコメント"
WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz あいう", min_size=1, max_size=12).map(str.strip).filter(bool)


@dataclass
class Model:
    state: str = "inbox"
    keys: dict[str, str] = field(default_factory=dict)
    deps: list[str] = field(default_factory=list)
    sections: dict[str, str] = field(default_factory=dict)  # heading -> text (one line)
    comment: str | None = None

    def render(self) -> tuple[str, bytes]:
        fm = "kind: awi\nsource: add-awi\ntarget_repo: acme/webapp\n"
        for key, value in self.keys.items():
            fm += f"{key}: {value}\n"
        if self.deps:
            fm += f"depends_on: [{', '.join(self.deps)}]\n"
        fm += "created: 2026-12-01T00:00:00Z\n"
        body = "# The item\n\n- 反映内容: x\n- 反映先: acme/webapp\n- 完成条件: y\n"
        for heading, text in self.sections.items():
            body += f"\n{heading}\n{text}\n"
        if self.comment is not None:
            body += f"\n{COMMENT}\n{self.comment}\n"
        return self.state, f"---\n{fm}---\n{body}".encode()


def read(version: tuple[str, bytes]) -> dict:
    """What a merged item says, part by part."""
    state, data = version
    item = parse_item(NAME, state, data)
    assert not item.defects, item.defects
    _head, _fm, body = split_frontmatter(data.decode())
    secs = {s.heading: s.text.strip() for s in sections.split_sections(body) if s.level == 2}
    return {
        "state": state,
        "keys": {k: v for k, v in (item.extra or {}).items()} if hasattr(item, "extra") else {},
        "target_commit": item.target_commit,
        "deps": set(item.depends_on),
        "sections": {h: t for h, t in secs.items() if h != COMMENT},
        "comment": secs.get(COMMENT),
        "fm": _fm,
    }


# the parts a side may change, and how
@st.composite
def base_models(draw) -> Model:
    m = Model()
    for key in draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=3)):
        m.keys[key] = f"v-{draw(WORDS).replace(' ', '-')}"
    m.deps = draw(st.lists(st.sampled_from(DEPS), unique=True, max_size=3))
    for heading in draw(st.lists(st.sampled_from(HEADINGS), unique=True, min_size=1, max_size=4)):
        m.sections[heading] = draw(WORDS)
    if draw(st.booleans()):
        m.comment = draw(WORDS)
    return m


def parts_of(m: Model) -> list[str]:
    """Every part of `m` a side could change (and a new section, a new key)."""
    out = ["state", "deps-add", "deps-remove"]
    out += [f"key:{k}" for k in KEYS]
    out += [f"sec:{h}" for h in HEADINGS if h in m.sections]  # (two sections added at one place: a conflict)
    return out


def change(m: Model, part: str, value: str, tag: str) -> Model:
    """`m` with `part` changed (`tag` makes the change this side's own)."""
    m = copy.deepcopy(m)
    if part == "state":
        m.state = {"inbox": "hold", "hold": "inbox"}.get(m.state, "inbox") if tag == "m" else "processing" if m.state != "processing" else "inbox"
    elif part == "deps-add":
        m.deps.append(f"20261209-000000-{tag}{sum(map(ord, value)) % 97}.md")
        m.deps = list(dict.fromkeys(m.deps))
    elif part == "deps-remove":
        if m.deps:
            m.deps.pop(0 if tag == "m" else -1)
    elif part.startswith("key:"):
        m.keys[part[4:]] = f"{tag}-{value.replace(' ', '-')}"
    elif part.startswith("sec:"):
        m.sections[part[4:]] = f"{tag} {value}"
    return m


@settings(max_examples=150, deadline=None)
@given(base=base_models(), data=st.data())
def test_changes_to_different_parts_merge_to_both(base: Model, data: st.DataObject) -> None:
    parts = parts_of(base)
    mine_parts = data.draw(st.lists(st.sampled_from(parts), unique=True, min_size=1, max_size=3), label="mine")
    # deps-add and deps-remove on the two sides are different changes to the one set: both apply
    theirs_parts = data.draw(
        st.lists(st.sampled_from([p for p in parts if p not in mine_parts and not (p == "state" and "state" in mine_parts)]),
                 unique=True, min_size=1, max_size=3), label="theirs",
    )  # fmt: skip
    mine, theirs = base, base
    for p in mine_parts:
        mine = change(mine, p, data.draw(WORDS), "m")
    for p in theirs_parts:
        theirs = change(theirs, p, data.draw(WORDS), "t")
    if "deps-remove" in mine_parts and "deps-remove" in theirs_parts:
        return  # not drawn (disjoint), kept for clarity
    got = merge_item(base.render(), mine.render(), theirs.render(), filename=NAME)
    assert got.ok, (got.conflicts, mine_parts, theirs_parts)
    seen = read(got.result)
    # the state: whichever side moved it
    assert seen["state"] == (mine.state if mine.state != base.state else theirs.state)
    # every key: the side that changed it
    for key in KEYS:
        want = mine.keys.get(key) if mine.keys.get(key) != base.keys.get(key) else theirs.keys.get(key)
        assert (f"{key}: {want}\n" in seen["fm"]) if want is not None else (f"{key}:" not in seen["fm"]), key
    # depends_on as a set: both sides' additions and removals
    removed = (set(base.deps) - set(mine.deps)) | (set(base.deps) - set(theirs.deps))
    assert seen["deps"] == (set(base.deps) | set(mine.deps) | set(theirs.deps)) - removed
    # every section: the side that changed it
    for heading in HEADINGS:
        b, m, t = base.sections.get(heading), mine.sections.get(heading), theirs.sections.get(heading)
        want = m if m != b else t
        assert seen["sections"].get(heading) == want, heading


@settings(max_examples=100, deadline=None)
@given(base=base_models(), data=st.data())
def test_the_same_part_changed_differently_on_both_sides_is_a_conflict(base: Model, data: st.DataObject) -> None:
    part = data.draw(st.sampled_from(["state", *(f"key:{k}" for k in KEYS), *(f"sec:{h}" for h in base.sections)]))
    mine = change(base, part, data.draw(WORDS), "m")
    theirs = change(base, part, data.draw(WORDS), "t")
    if mine.render() == theirs.render():
        return
    others = [p for p in parts_of(base) if p != part and not p.startswith("deps")]
    for p in data.draw(st.lists(st.sampled_from(others), unique=True, max_size=2)):
        mine = change(mine, p, data.draw(WORDS), "m")
    got = merge_item(base.render(), mine.render(), theirs.render(), filename=NAME)
    assert not got.ok and got.result is None
    assert got.conflicts


@settings(max_examples=150, deadline=None)
@given(base=base_models(), data=st.data())
def test_the_persons_sections_are_never_lost(base: Model, data: st.DataObject) -> None:
    """The person comments (adds to or starts the comment section) on one side; an agent
    changes anything else on the other, in either order of replay: the comment is kept."""
    person = copy.deepcopy(base)
    person.comment = ((base.comment + "\n\n") if base.comment else "") + data.draw(WORDS)
    agent = base
    for p in data.draw(st.lists(st.sampled_from(parts_of(base)), unique=True, min_size=1, max_size=4)):
        agent = change(agent, p, data.draw(WORDS), "m")
    if data.draw(st.booleans()):
        agent = copy.deepcopy(agent)
        agent.comment = None  # an agent's body without the section (a forgery the guard refuses): never drops it
    for mine, theirs, mine_user, theirs_user in ((agent, person, False, True), (person, agent, True, False)):
        got = merge_item(base.render(), mine.render(), theirs.render(), mine_user=mine_user, theirs_user=theirs_user, filename=NAME)
        assert got.ok, got.conflicts
        assert read(got.result)["comment"] == person.comment.strip()


def test_a_merge_result_equal_to_one_side_is_that_side_byte_for_byte() -> None:
    base = Model(sections={"## 背景": "old"}).render()
    mine = Model(state="hold", sections={"## 背景": "old"}).render()
    assert merge_item(base, mine, base).result == mine
    assert merge_item(base, base, mine).result == mine
    assert merge_item(base, None, base).result is None  # removed on one side only
    assert not merge_item(base, None, mine).ok  # removed on one side, moved on the other


def test_the_dependency_sets_merge_with_both_additions_and_removals() -> None:
    base = Model(deps=[DEPS[0], DEPS[1]])
    mine = Model(deps=[DEPS[0], DEPS[1], DEPS[2]])  # --add U1
    theirs = Model(deps=[DEPS[1], DEPS[3]])  # --remove 0 --add U2
    got = merge_item(base.render(), mine.render(), theirs.render(), filename=NAME)
    assert got.ok and read(got.result)["deps"] == {DEPS[1], DEPS[2], DEPS[3]}
    assert "depends_on" in got.parts


def test_an_answer_under_a_question_changed_on_the_other_side_is_a_conflict() -> None:
    """The person answers the question as they read it: when the question's text changed on
    the other side meanwhile, the merge refuses rather than put the answer under a question
    the person never saw; a comment still merges with such an edit."""
    base = Model(sections={"## 詳細": "pick A or B"})
    edited = Model(sections={"## 詳細": "pick A or C"})
    answered = Model(sections={"## 詳細": "pick A or B", "## 回答": "B"})
    for mine, theirs in ((edited, answered), (answered, edited)):
        got = merge_item(base.render(), mine.render(), theirs.render(), filename=NAME)
        assert not got.ok and any("answered" in c for c in got.conflicts), got.conflicts
    commented = Model(sections={"## 詳細": "pick A or B"}, comment="looks fine")
    got = merge_item(base.render(), edited.render(), commented.render(), filename=NAME)
    assert got.ok, got.conflicts
    assert read(got.result)["sections"]["## 詳細"] == "pick A or C"
    assert read(got.result)["comment"] == "looks fine"
