"""The demo store (atk_tui.demo) and the benchmark store generator (bench/gen_store.py)."""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from atk_tui.demo import DEMO_KEYS, create_demo_store, demo_filenames
from atk_tui.domain.model import FILENAME_RE, STATES

NOW = datetime(2026, 11, 29, 16, 0, 0, tzinfo=UTC)
PLAN_PREFIX = "$(atk config get private_notes)/plans/"
BULLETS = ("反映内容", "反映先", "理由", "メリット", "デメリット", "完成条件")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


class Doc:
    """One item file: raw text, loaded frontmatter (None when defective) and body."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = path.name
        self.state = path.parent.name
        self.text = path.read_text(encoding="utf-8")
        m = re.match(r"\A---\n(.*?)^---\n(.*)\Z", self.text, re.S | re.M)
        assert m, f"{self.name}: no frontmatter block"
        self.fm_text, self.body = m.group(1), m.group(2)
        try:
            data = yaml.safe_load(self.fm_text)
            self.fm: dict | None = data if isinstance(data, dict) else None
            self.error: str | None = None if isinstance(data, dict) else "not a mapping"
        except yaml.YAMLError as exc:
            self.fm, self.error = None, str(exc)

    def get(self, key: str, default=None):
        return (self.fm or {}).get(key, default)

    @property
    def valid(self) -> bool:
        return self.fm is not None and self.fm.get("kind") in ("awi", "uwi") and bool(self.fm.get("target_repo"))

    @property
    def deps(self) -> list[str]:
        d = self.get("depends_on") or []
        return d if isinstance(d, list) else []

    def h2s(self) -> list[str]:
        return re.findall(r"^## (.+)$", self.body, re.M)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_demo_store(tmp_path_factory.mktemp("demo"), now=NOW)


@pytest.fixture(scope="module")
def docs(demo: Path) -> dict[str, Doc]:
    return {p.name: Doc(p) for p in sorted((demo / "wi").glob("*/*.md"))}


def test_git_clean_and_pushed(demo: Path) -> None:
    assert demo.name == "store" and (demo.parent / "remote.git").is_dir()
    assert git(demo, "status", "--porcelain") == ""
    assert git(demo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git(demo, "rev-parse", "--abbrev-ref", "@{u}").strip() == "origin/main"
    assert git(demo, "rev-list", "@{u}..HEAD") == ""
    assert git(demo, "remote", "get-url", "origin").strip() == str((demo.parent / "remote.git").resolve())
    remote_head = git(demo.parent / "remote.git", "rev-parse", "main").strip()
    assert remote_head == git(demo, "rev-parse", "HEAD").strip()
    assert git(demo, "config", "user.name").strip() == "atk demo"
    assert git(demo, "config", "user.email").strip() == "demo@atk.invalid"


def test_history_looks_like_atk(demo: Path) -> None:
    log = git(demo, "log", "--format=%s%x00%b%x00%ct%x01")
    entries = [e.split("\0") for e in log.split("\x01") if e.strip()]
    assert len(entries) >= 10
    subjects = [s.strip() for s, _, _ in entries]
    ops = {s.split()[1] for s in subjects if s.startswith("atk: ")}
    assert {"add", "start-processing", "adopt", "reject", "hold", "answer", "rm"} <= ops
    atk_commits = [(s, b) for s, b, _ in entries if s.strip().startswith("atk: ")]
    assert all(re.search(r"^Atk-Actor: (user|agent)$", b, re.M) for _, b in atk_commits)
    assert any("Atk-Actor: user" in b for _, b in atk_commits)
    assert any("Atk-Actor: agent" in b for _, b in atk_commits)
    assert any(re.fullmatch(r"atk: adopt \S+\.md", s) for s in subjects)
    times = [int(t) for _, _, t in entries]
    assert times == sorted(times, reverse=True)  # newest first, dated relative to now
    assert max(times) <= NOW.timestamp() and min(times) >= (NOW - timedelta(days=60)).timestamp()


def test_layout_and_filenames(demo: Path, docs: dict[str, Doc]) -> None:
    for state in STATES:
        assert (demo / "wi" / state / ".gitkeep").is_file()
        assert any(d.state == state for d in docs.values()), state
    assert 25 <= len(docs) <= 45
    names = [p.name for p in (demo / "wi").glob("*/*.md")]
    assert len(names) == len(set(names))
    for d in docs.values():
        assert FILENAME_RE.match(d.name), d.name
        assert re.fullmatch(r"\d{8}-\d{6}-[a-z0-9]+(-[a-z0-9]+)*\.md", d.name), d.name
    assert (demo / "plans").is_dir()
    for p in (demo / "plans").rglob("*.md"):
        assert re.fullmatch(r"plans/\d{4}/\d{2}/[a-z0-9-]+\.md", p.relative_to(demo).as_posix())


def test_file_format_and_created(docs: dict[str, Doc]) -> None:
    for d in docs.values():
        assert d.text.startswith("---\n") and d.text.endswith("\n") and not d.text.endswith("\n\n")
        assert re.match(r"# \S.*\n\n\S", d.body), d.name
        if not d.valid:
            continue
        created = d.get("created")
        assert isinstance(created, datetime), d.name
        assert re.search(r"^created: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", d.fm_text, re.M)
        assert created.strftime("%Y%m%d-%H%M%S") == d.name[:15]
        assert created <= NOW


def test_normal_awis(demo: Path, docs: dict[str, Doc]) -> None:
    normal = [d for d in docs.values() if d.valid and d.get("kind") == "awi" and not d.get("plan_file")]
    complete = [d for d in normal if all(f"- {b}: " in d.body for b in BULLETS)]
    human = [d for d in complete if d.get("source") is None]
    agent = [d for d in complete if d.get("source") is not None]
    assert len(human) >= 3 and len(agent) >= 3
    assert {"process-wi", "session-review", "add-awi"} <= {d.get("source") for d in agent}
    for d in agent:  # 適用範囲 follows 理由 in agent-sourced bodies
        assert d.body.index("- 理由: ") < d.body.index("- 適用範囲: ") < d.body.index("- メリット: "), d.name
    order_ok = [d for d in complete if [d.body.index(f"- {b}: ") for b in BULLETS] == sorted(
        d.body.index(f"- {b}: ") for b in BULLETS)]
    assert order_ok == complete
    lint = [d for d in normal if d.state == "inbox" and not all(f"- {b}: " in d.body for b in BULLETS)]
    assert len(lint) == 1 and "- 反映内容: " in lint[0].body


def test_plan_awis(demo: Path, docs: dict[str, Doc]) -> None:
    plans = [d for d in docs.values() if d.get("plan_file")]
    assert len(plans) >= 3
    present, missing = [], []
    for d in plans:
        pf = d.get("plan_file")
        assert pf.startswith(PLAN_PREFIX) and re.fullmatch(r"\d{4}/\d\d/[a-z0-9-]+\.md", pf[len(PLAN_PREFIX):])
        assert f"plan_file: {pf}\n" in d.fm_text  # written literally, unquoted
        (present if (demo / "plans" / pf[len(PLAN_PREFIX):]).is_file() else missing).append(d)
    assert len(missing) == 1 and missing[0].state == "inbox"
    assert {d.state for d in present} >= {"inbox", "processing", "adopted"}


def test_uwi_forms(docs: dict[str, Doc]) -> None:
    uwis = [d for d in docs.values() if d.valid and d.get("kind") == "uwi"]
    bodies = {d.name: d.body for d in uwis}

    def having(*needles: str, absent: tuple[str, ...] = ()) -> list[str]:
        return [n for n, b in bodies.items() if all(x in b for x in needles) and not any(x in b for x in absent)]

    assert having("## 背景\n", "## 質問\n", "- A) ", " -- ", "推奨: A) ")
    multi_md = having("## 質問 1\n", "## 質問 2\n", "## 質問 3\n")
    assert multi_md
    assert having("## Context\n", "## Question\n", "Recommendation: ", absent=("AWAITING_USER_INPUT",))
    single_cp = having("AWAITING_USER_INPUT\n---\n", "Decision needed: ", "Options:\n  A) ")
    multi_cp = having("AWAITING_USER_INPUT\n---\n", "Decisions needed:\n", "\n1. ", "\n2. ", "   A) ")
    assert single_cp and multi_cp
    for n in single_cp + multi_cp:
        assert re.search(r"^Urgency: (blocking|next-review|informational)$", bodies[n], re.M)
        assert bodies[n].rstrip().endswith("---")
    assert {d.get("urgency") for d in uwis} >= {"blocking", "next-review", "informational"}
    assert any(d.get("urgency") is None for d in uwis)  # default urgency
    assert any("revert" in d.body.lower() and d.get("urgency") == "informational" for d in uwis)  # post-approval
    assert any("- A) " not in d.body and "AWAITING_USER_INPUT" not in d.body for d in uwis)  # free text


def test_answered_uwi_awaiting_pickup(docs: dict[str, Doc]) -> None:
    answered = [d for d in docs.values() if d.get("kind") == "uwi" and d.state == "inbox" and "回答" in d.h2s()]
    assert len(answered) == 1
    a = answered[0]
    assert a.h2s()[-1] == "回答"
    assert re.search(r"^## 回答\n\n- 1: [A-Z]\) \S", a.body, re.M)
    dependents = [d for d in docs.values() if a.name in d.deps]
    assert any(d.state == "inbox" and d.get("kind") == "awi" for d in dependents)
    assert any(d.state == "adopted" and d.get("kind") == "uwi" and "回答" in d.h2s() for d in docs.values())


def test_chain_blocked_on_unanswered_uwi(docs: dict[str, Doc]) -> None:
    def dependents_of(name: str) -> set[str]:
        out, todo = set(), [name]
        while todo:
            cur = todo.pop()
            for d in docs.values():
                if cur in d.deps and d.name not in out:
                    out.add(d.name)
                    todo.append(d.name)
        return out

    unanswered = [d for d in docs.values() if d.get("kind") == "uwi" and d.state == "inbox" and "回答" not in d.h2s()]
    best = max(unanswered, key=lambda d: len(dependents_of(d.name)))
    chain = dependents_of(best.name)
    assert len(chain) == 3 and all(docs[n].state == "inbox" for n in chain)
    assert best.get("urgency") == "blocking"
    one = [n for n in chain if docs[n].deps == [best.name]]
    assert len(one) == 1
    two = [n for n in chain if docs[n].deps == one]
    three = [n for n in chain if docs[n].deps == two]
    assert len(two) == 1 and len(three) == 1


def test_dependency_edge_cases(docs: dict[str, Doc]) -> None:
    names = set(docs)
    assert any(dep not in names for d in docs.values() for dep in d.deps)  # missing
    assert any(b in names and a.name in docs[b].deps for a in docs.values() for b in a.deps)  # 2-cycle
    assert any(docs[x].state == "hold" for d in docs.values() if d.state == "inbox" for x in d.deps if x in names)
    assert any(docs[x].get("target_repo") != d.get("target_repo")
               for d in docs.values() if d.state == "inbox" for x in d.deps if x in names and docs[x].valid)
    for d in docs.values():
        assert all(FILENAME_RE.match(x) for x in d.deps)


def test_cooldown(docs: dict[str, Doc]) -> None:
    cd = [d for d in docs.values() if d.get("cooldown_until") is not None]
    assert len(cd) == 1
    until = cd[0].get("cooldown_until")
    assert isinstance(until, datetime) and until.utcoffset() == timedelta(hours=9)
    assert re.search(r"^cooldown_until: \S+\+09:00$", cd[0].fm_text, re.M)
    assert NOW < until < NOW + timedelta(days=1)


def test_comment_custom_keys_defective(docs: dict[str, Doc]) -> None:
    commented = [d for d in docs.values() if "ユーザーコメント" in d.h2s()]
    assert commented and all(d.h2s()[-1] == "ユーザーコメント" and d.get("kind") == "awi" for d in commented)
    reserved = {"kind", "source", "target_repo", "target_commit", "plan_file", "depends_on", "cooldown_until",
                "created", "urgency", "note", "commit"}
    custom = [d for d in docs.values() if d.fm and set(d.fm) - reserved]
    assert len(custom) == 1 and len(set(custom[0].fm) - reserved) >= 2
    keys = list(custom[0].fm)
    assert keys.index("target_repo") < keys.index("priority") < keys.index("created")  # between reserved keys
    defective = [d for d in docs.values() if not d.valid]
    assert len(defective) == 1 and defective[0].error and defective[0].state == "inbox"


def test_states_content(docs: dict[str, Doc]) -> None:
    by_state = {s: [d for d in docs.values() if d.state == s] for s in STATES}
    assert len(by_state["processing"]) >= 2 and all(d.get("kind") == "awi" for d in by_state["processing"])
    assert len(by_state["hold"]) >= 2
    assert len(by_state["adopted"]) >= 3 and len(by_state["rejected"]) >= 2
    assert all(d.get("note") for d in by_state["adopted"] + by_state["rejected"])
    shas = [d.get("commit") for d in by_state["adopted"] if d.get("commit")]
    assert len(shas) >= 3 and all(re.fullmatch(r"[0-9a-f]{40}", s) for s in shas)
    assert {d.get("target_repo") for d in docs.values() if d.valid} >= {"acme/webapp", "acme/api", "acme/infra"}
    text = "".join(d.text for d in docs.values())
    assert re.search(r"[ぁ-んァ-ン]", text) and re.search(r"\bthe\b", text)


def test_deterministic(tmp_path: Path, demo: Path) -> None:
    a = create_demo_store(tmp_path / "a", now=NOW)

    def files(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes()
                for p in root.rglob("*") if p.is_file() and ".git" not in p.relative_to(root).parts}

    assert files(a) == files(demo)
    assert git(a, "rev-parse", "HEAD") == git(demo, "rev-parse", "HEAD")
    names = demo_filenames(NOW)
    assert set(DEMO_KEYS) <= set(names)
    on_disk = {p.name for p in (demo / "wi").glob("*/*.md")}
    assert {n for k, n in names.items() if k != "removed"} == on_disk
    assert names["removed"] not in on_disk
    later = create_demo_store(tmp_path / "b", now=NOW + timedelta(hours=1))
    assert files(later) != files(demo)  # relative to now


def test_generate_store(tmp_path: Path) -> None:
    from gen_store import generate_store
    store = generate_store(tmp_path / "big", 200, 500, seed=1, remote=True)
    items = list((store / "wi").glob("*/*.md"))
    assert len(items) == 700
    assert len({p.name for p in items}) == 700
    assert all(FILENAME_RE.match(p.name) for p in items)
    assert {p.parent.name for p in items} == set(STATES)
    assert git(store, "status", "--porcelain") == ""
    assert git(store, "rev-list", "@{u}..HEAD") == ""
    assert sum(1 for p in items if p.parent.name in ("inbox", "processing", "hold")) == 200
