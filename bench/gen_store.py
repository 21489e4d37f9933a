#!/usr/bin/env python3
"""Generate a large, realistic atk store quickly (for benchmarks).

    python bench/gen_store.py --active 10000 --terminal 50000 --out DIR --seed 1 [--remote]

makes `DIR/store` (a git work tree, one commit) and, with `--remote`, `DIR/remote.git` (bare,
set as the store's `origin` with upstream `main`). Other bench scripts import it:

    sys.path.insert(0, str(Path(__file__).parent))
    from gen_store import generate_store

How it is fast: the items are rendered in one pass; each blob goes to one `git fast-import`
stream (blobs only: a pack, written by git on the other core) while two threads write the
files; `git add -A` then finds every object already stored and only hashes and stats the
files to build the index, and `write-tree`/`commit-tree` make the single commit. Measured
for 10k + 50k items (about 40 MB of Markdown, 68k files with the plan files) on a 2-core box
shared with other jobs (load 7-10), CPU seconds (user + sys, all processes):

    this scheme (fast-import blobs + files + git add)       ~9-20 s CPU, 22-55 s wall
    one fast-import commit with all files + reset --hard      29 s CPU, 71 s wall
    Python writes files + git add -A (loose objects) + commit 31 s CPU, 96 s wall

(fast-import inserts tree entries by linear search, so one commit with 48k files in one
directory is quadratic; `git add` on new content writes 68k loose objects.) With ~9 s of
CPU spread over two cores, an idle 2-core machine should need well under 15 s (not measured:
the box was never idle).

The mix: kinds (about 15% UWIs, in both question forms, some answered), urgencies, plan AWIs
(a few with a missing plan file), `depends_on` chains (also across repositories, on UWIs, on
hold items, some 2- and 3-cycles, some missing names and self-dependencies), cooldowns in the
past and future, unknown frontmatter keys, user comments, notes and commit SHAs on terminal
items, and 1% defective files of several kinds.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

STATES = ("inbox", "processing", "hold", "adopted", "rejected")
PLAN_PREFIX = "$(atk config get private_notes)/plans"
JST = timezone(timedelta(hours=9))

_GIT_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                 "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE")

REPOS = ("acme/webapp", "acme/api", "acme/infra", "acme/docs", "acme/mobile", "acme/data-pipeline",
         "acme/admin", "acme/billing")
REPO_CUM = tuple(sum((26, 26, 14, 6, 10, 8, 6, 4)[: i + 1]) for i in range(8))
SOURCES = (None, "process-wi", "session-review", "add-awi", "plan-and-add-awi", "agent")
SOURCE_CUM = (30, 60, 75, 90, 96, 100)

# --- vocabulary for titles and bodies -------------------------------------------------------

EN_VERBS = ("Add", "Fix", "Remove", "Refactor", "Document", "Speed up", "Migrate", "Deprecate",
            "Harden", "Split", "Cache", "Validate", "Log", "Retry", "Upgrade", "Test")
EN_OBJECTS = ("the login flow", "order export", "rate limiter", "session handling", "CI cache",
              "checkout page", "invoice PDFs", "search index", "user settings", "audit log",
              "payment webhooks", "image uploads", "feature flags", "health checks",
              "error responses", "nightly report", "password reset", "dark mode", "API pagination",
              "Terraform modules", "Helm charts", "on-call runbook", "email templates",
              "push notifications", "data retention job", "admin dashboard", "billing events")
EN_TAILS = ("", "", "", " for mobile clients", " in staging", " behind a flag", " on first load",
            " for large accounts", " under load", " in the EU region", " before the Q1 freeze")
JA_OBJECTS = ("ログイン画面", "注文エクスポート", "レート制限", "セッション管理", "CI のキャッシュ",
              "決済 Webhook", "検索インデックス", "監査ログ", "パスワード再設定", "管理画面",
              "請求書 PDF", "通知メール", "画像アップロード", "夜間バッチ", "エラーレスポンス",
              "Terraform モジュール", "API のページネーション", "ダッシュボード")
JA_VERBS = ("を改善する", "の不具合を直す", "を整理する", "にテストを追加する", "を高速化する",
            "の仕様を文書化する", "を新方式へ移行する", "の監視を追加する", "を廃止する")
REASONS = (
    "the access logs show {n} failures in the last week",
    "two incidents this month were traced back to it",
    "customers reported it {n} times through support",
    "the p95 latency is {n} ms, above the 300 ms target",
    "直近 1 週間で {n} 件のエラーがログに出ている",
    "問い合わせが月に {n} 件あり、サポートの負担になっている",
    "負荷試験で p95 が {n} ms になり目標を超えた",
)
BENEFITS = ("fewer support tickets", "faster pages for every user", "one place to change it",
            "incidents are easier to diagnose", "問い合わせが減る", "運用の手間が減る",
            "障害時の切り分けが速くなる", "保守する箇所が一つになる")
COSTS = ("なし", "a migration for existing data", "about a day of review", "slightly more memory",
         "既存テストの更新が必要", "設定項目が一つ増える", "one more service to operate")
DONE = ("the dashboard shows the new metric and the alert fires in a drill",
        "the end-to-end test passes and the old code path is gone",
        "the error rate stays below 0.1% for 7 days after the release",
        "変更後の画面で同じ操作をしてもエラーが出ない",
        "CI が成功し、旧実装への参照がリポジトリから消えている",
        "ドキュメントの手順だけで新人が作業を完了できる")
OPTION_SETS = (
    (("Strict", "rejects more input, safer"), ("Lenient", "accepts more, may let bad data in"),
     ("Configurable", "both, at the cost of a setting to maintain")),
    (("Redis", "fast, needs a new cluster"), ("PostgreSQL", "no new infra, more DB writes")),
    (("今すぐ実施", "影響は小さいが作業が割り込む"), ("次のスプリント", "計画に入れて実施する"),
     ("見送る", "現状のまま運用する")),
    (("Keep it", "nothing else to do"), ("Revert", "I undo the change and redeploy")),
)


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROP}
    env["GIT_TERMINAL_PROMPT"] = "0"
    return env


def _git(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env={**_git_env(), **(env or {})},
                          check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout.decode()


_SLUGS: dict[str, str] = {}


def _slug(title: str) -> str:
    hit = _SLUGS.get(title)
    if hit is not None:
        return hit
    words = []
    for raw in title.lower().replace("/", " ").split():
        w = "".join(c for c in raw if c.isascii() and c.isalnum())
        if w:
            words.append(w)
    if not words:  # no ASCII word: a hash of the title, as atk does
        return hashlib.sha1(title.encode()).hexdigest()[:8]
    _SLUGS[title] = slug = "-".join(words[:7])
    return slug


def _title(rng: random.Random) -> str:
    if rng.random() < 0.35:
        return rng.choice(JA_OBJECTS) + rng.choice(JA_VERBS)
    return f"{rng.choice(EN_VERBS)} {rng.choice(EN_OBJECTS)}{rng.choice(EN_TAILS)}"


def _awi_body(rng: random.Random, repo: str, source: str | None, lint_gap: bool) -> str:
    n = rng.randint(3, 4000)
    lines = [
        f"- 反映内容: change {rng.choice(EN_OBJECTS)} so that {rng.choice(BENEFITS)}",
        f"- 反映先: {repo}, `src/{rng.choice(('auth', 'orders', 'billing', 'ui', 'jobs', 'infra'))}/`",
        f"- 理由: {rng.choice(REASONS).format(n=n)}",
    ]
    if source is not None:
        lines.append("- 適用範囲: every caller of the shared helper; the fault depends on the helper, not on the "
                     f"page. Observed in {rng.choice(EN_OBJECTS)}; {rng.choice(EN_OBJECTS)} is a case with a "
                     "different surface")
    lines += [f"- メリット: {rng.choice(BENEFITS)}", f"- デメリット: {rng.choice(COSTS)}",
              f"- 完成条件: {rng.choice(DONE)}"]
    if lint_gap:
        del lines[-rng.randint(1, 3):]
    text = "\n".join(lines)
    if rng.random() < 0.3:
        text += "\n\n## 再現手順\n\n1. open the page\n2. repeat the action " + str(rng.randint(2, 9)) + " times\n"
    return text


def _uwi_body(rng: random.Random, multi: int, urgency: str) -> str:
    form = rng.random()
    ctx = f"While working on {rng.choice(EN_OBJECTS)} I found that {rng.choice(REASONS).format(n=rng.randint(2, 900))}."
    qs = [rng.choice(OPTION_SETS) for _ in range(multi)]
    if form < 0.45:  # Markdown, Japanese headings
        out = [f"## 背景\n{ctx}\n"]
        for i, opts in enumerate(qs, 1):
            head = "## 質問" if multi == 1 else f"## 質問 {i}"
            out.append(f"{head}\nどの方針にしますか。\n")
            out.append("\n".join(f"- {chr(65 + j)}) {a} -- {b}" for j, (a, b) in enumerate(opts)))
            out.append(f"\n推奨: A) {opts[0][1]}\n")
        return "\n".join(out)
    if form < 0.65:  # Markdown, English headings
        opts = qs[0]
        return (f"## Context\n{ctx}\n\n## Question\nWhich way should we go?\n\n"
                + "\n".join(f"- {chr(65 + j)}) {a} -- {b}" for j, (a, b) in enumerate(opts))
                + f"\n\nRecommendation: A) {opts[0][1]}\n")
    if multi == 1:
        opts = qs[0]
        body = "\n".join(f"  {chr(65 + j)}) {a} -- {b}" for j, (a, b) in enumerate(opts))
        return (f"AWAITING_USER_INPUT\n---\nUrgency: {urgency}\nContext: {ctx}\n"
                f"Decision needed: Which way should we go?\nOptions:\n{body}\n"
                f"Recommendation: A) {opts[0][0]}\n---\n")
    parts = []
    for i, opts in enumerate(qs, 1):
        parts.append(f"{i}. Question {i}?\n" + "\n".join(f"   {chr(65 + j)}) {a} -- {b}" for j, (a, b) in enumerate(opts))
                     + f"\n   Recommendation: A) {opts[0][0]}")
    return (f"AWAITING_USER_INPUT\n---\nUrgency: {urgency}\nContext: {ctx}\nDecisions needed:\n\n"
            + "\n\n".join(parts) + "\n---\n")


def _iso(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


class _Gen:
    """Plans the whole store in memory (metadata only), then renders item by item."""

    def __init__(self, active: int, terminal: int, seed: int, now: datetime) -> None:
        self.rng = rng = random.Random(seed)
        self.now = now
        n = active + terminal
        # Terminal items lean older, active ones newer; the interleaving looks like real life.
        order = sorted([(rng.random() * 0.85, "T") for _ in range(terminal)]
                       + [(0.15 + rng.random() * 0.85, "A") for _ in range(active)])
        gaps = [rng.randint(1, 900) for _ in range(n)]
        t = now - timedelta(seconds=sum(gaps) + 60)
        self.created: list[datetime] = []
        for g in gaps:
            t += timedelta(seconds=g)
            self.created.append(t)
        self.state: list[str] = []
        self.kind: list[str] = []
        self.title: list[str] = []
        self.name: list[str] = []
        self.repo: list[str] = []
        self.source: list[str | None] = []
        for i, (_, group) in enumerate(order):
            kind = "uwi" if rng.random() < 0.15 else "awi"
            if group == "T":
                state = "adopted" if rng.random() < 0.8 else "rejected"
                if kind == "uwi":
                    state = "adopted"
            else:
                r = rng.random()
                state = "inbox" if r < 0.72 else "processing" if r < 0.82 else "hold"
                if kind == "uwi" and state == "processing":
                    state = "inbox"
            title = _title(rng)
            self.state.append(state)
            self.kind.append(kind)
            self.title.append(title)
            self.name.append(f"{self.created[i]:%Y%m%d-%H%M%S}-{_slug(title)}.md")
            self.repo.append(rng.choices(REPOS, cum_weights=REPO_CUM)[0])
            src = rng.choices(SOURCES, cum_weights=SOURCE_CUM)[0]
            if kind == "uwi" and src is None:
                src = "process-wi"
            self.source.append(src)
        self.deps: list[list[str]] = [[] for _ in range(n)]
        self.answered = [self.kind[i] == "uwi" and (self.state[i] == "adopted" or rng.random() < 0.35)
                         for i in range(n)]
        self._plan_dependencies()

    def _plan_dependencies(self) -> None:
        rng, n = self.rng, len(self.name)
        active_idx = [i for i in range(n) if self.state[i] in ("inbox", "processing", "hold")]
        inbox_awi = [i for i in active_idx if self.state[i] == "inbox" and self.kind[i] == "awi"]
        for pos, i in enumerate(active_idx):
            if rng.random() < 0.30:
                for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
                    if rng.random() < 0.6 and pos > 0:  # chains among recent active items
                        j = active_idx[max(0, pos - rng.randint(1, 200))]
                    else:
                        j = rng.randrange(0, i) if i else None
                    if j is not None and j != i and self.name[j] not in self.deps[i]:
                        self.deps[i].append(self.name[j])
        for i in range(n):  # some history among terminal items too
            if self.state[i] in ("adopted", "rejected") and i and rng.random() < 0.05:
                self.deps[i].append(self.name[rng.randrange(0, i)])
        # unanswered UWIs block later AWIs (the triage number)
        for pos, i in enumerate(active_idx):
            if self.kind[i] == "uwi" and not self.answered[i] and rng.random() < 0.5:
                later = active_idx[pos + 1: pos + 60]
                for j in rng.sample(later, min(len(later), rng.randint(1, 4))):
                    if self.kind[j] == "awi" and self.name[i] not in self.deps[j]:
                        self.deps[j].append(self.name[i])
        for _ in range(max(1, len(active_idx) // 200)):  # missing dependencies
            i = rng.choice(active_idx) if active_idx else None
            if i is not None:
                gone = self.created[i] - timedelta(days=rng.randint(1, 30))
                self.deps[i].append(f"{gone:%Y%m%d-%H%M%S}-removed-item.md")
        for _ in range(max(1, len(inbox_awi) // 400)):  # cycles of 2 and 3
            k = rng.choice((2, 2, 3))
            if len(inbox_awi) < k:
                break
            ring = rng.sample(inbox_awi, k)
            for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
                if self.name[b] not in self.deps[a]:
                    self.deps[a].append(self.name[b])
        for _ in range(len(inbox_awi) // 2000):  # self-dependencies
            i = rng.choice(inbox_awi)
            self.deps[i].append(self.name[i])

    def items(self) -> Iterator[tuple[str, str]]:
        """Yield (path, text) for every file: items and plan files."""
        rng, now = self.rng, self.now
        for i, name in enumerate(self.name):
            state, kind, repo, src = self.state[i], self.kind[i], self.repo[i], self.source[i]
            created = self.created[i]
            fm = [f"kind: {kind}"]
            if src is not None:
                fm.append(f"source: {src}")
            fm.append(f"target_repo: {repo}")
            if rng.random() < 0.2:
                fm.append(f"target_commit: {rng.getrandbits(160):040x}")
            plan_rel = None
            if kind == "awi" and (src == "plan-and-add-awi" or rng.random() < 0.12):
                plan_rel = f"plans/{created:%Y}/{created:%m}/{name.removesuffix('.md')[16:] or 'plan'}-{i}.md"
                fm.append(f"plan_file: {PLAN_PREFIX}/{plan_rel.removeprefix('plans/')}")
            if rng.random() < 0.02:
                fm.append(f"priority: {rng.choice(('high', 'low', 'p2'))}")
            if self.deps[i]:
                fm.append("depends_on: [" + ", ".join(self.deps[i]) + "]")
            if state in ("inbox", "processing") and rng.random() < 0.03:
                until = now + timedelta(minutes=rng.randint(-48 * 60, 72 * 60))
                stamp = until.astimezone(JST).isoformat() if rng.random() < 0.7 else _iso(until)
                fm.append(f"cooldown_until: {stamp}")
            fm.append(f"created: {_iso(created)}")
            urgency = "blocking"
            if kind == "uwi" and rng.random() < 0.85:
                urgency = rng.choices(("blocking", "next-review", "informational"), cum_weights=(5, 8, 10))[0]
                fm.append(f"urgency: {urgency}")
            if rng.random() < 0.01:
                fm.append("labels: [perf, customer]")
            if state == "adopted":
                fm.append(f"note: merged in {repo}#{rng.randint(10, 9999)}" if kind == "awi"
                          else "note: answer applied")
                if kind == "awi" and rng.random() < 0.7:
                    fm.append(f"commit: {rng.getrandbits(160):040x}")
            elif state == "rejected":
                fm.append(f"note: {rng.choice(('superseded by a later item', 'not reproducible', 'out of scope for this quarter', '効果が費用に見合わないため不採用'))}")

            if kind == "uwi":
                body = _uwi_body(rng, rng.choices((1, 2, 3), cum_weights=(80, 95, 100))[0], urgency)
                if self.answered[i]:
                    body += f"\n## 回答\n\n- 1: A) {rng.choice(('Strict', 'Redis', '今すぐ実施', 'Keep it'))}\n"
            elif plan_rel is not None:
                body = f"Implement the reviewed plan for {self.title[i]}. Steps and verification are in the plan file.\n"
            else:
                body = _awi_body(rng, repo, src, lint_gap=rng.random() < 0.03)
                if rng.random() < 0.05:
                    body += "\n\n## ユーザーコメント\n\nPlease keep the old behaviour behind a flag for a week.\n"

            # about 1% defective files, of several kinds
            if rng.random() < 0.01:
                fm, body = self._defect(rng, fm, body)
            text = "---\n" + "\n".join(fm) + "\n---\n# " + self.title[i] + "\n\n" + body.rstrip("\n") + "\n"
            if fm == ["<none>"]:
                text = "# " + self.title[i] + "\n\n" + body.rstrip("\n") + "\n"
            yield f"wi/{state}/{name}", text
            if plan_rel is not None and rng.random() < 0.96:  # a few plans are missing
                yield plan_rel, (f"# 計画: {self.title[i]}\n\n## 目的\n{rng.choice(BENEFITS)}\n\n"
                                 "## 手順\n1. 調査\n2. 実装\n3. 検証\n\n## 検証\n- " + rng.choice(DONE) + "\n")

    @staticmethod
    def _defect(rng: random.Random, fm: list[str], body: str) -> tuple[list[str], str]:
        k = rng.randrange(8)
        fm = list(fm)
        if k == 0:
            fm[0] = "kind: task"
        elif k == 1:
            fm = [line for line in fm if not line.startswith("target_repo:")]
        elif k == 2:
            fm.append("depends_on: [unclosed.md")
        elif k == 3:
            fm.append("cooldown_until: 2026-12-01T09:00:00")
        elif k == 4:
            fm = [line for line in fm if not line.startswith("depends_on:")] + ["depends_on: some-item.md"]
        elif k == 5:
            fm.append("target_repo: acme/api: prod")
        elif k == 6:
            fm = ["<none>"]
        else:
            fm = [line for line in fm if not line.startswith("depends_on:")] + ["depends_on: [../../etc/passwd.md]"]
        return fm, body


def generate_store(out: Path, active: int, terminal: int, seed: int, remote: bool = False,
                   now: datetime | None = None, timings: dict[str, float] | None = None) -> Path:
    """Generate `out/store` (and `out/remote.git` with `remote`); return the store path.

    Deterministic given `seed` and `now` (default: the current time, which only shifts the
    timestamps and therefore the filenames). `timings`, when given, receives the wall time of
    each phase in seconds.
    """
    timings = {} if timings is None else timings
    mark = time.perf_counter()

    def phase(name: str) -> None:
        nonlocal mark
        t = time.perf_counter()
        timings[name] = t - mark
        mark = t

    now = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    out = Path(out)
    store = out / "store"
    if store.exists() and any(store.iterdir()):
        raise FileExistsError(f"{store} exists and is not empty")
    store.mkdir(parents=True, exist_ok=True)
    _git("-c", "init.defaultBranch=main", "init", "-q", str(store))
    _git("config", "user.name", "atk bench", cwd=store)
    _git("config", "user.email", "bench@atk.invalid", cwd=store)

    gen = _Gen(active, terminal, seed, now)
    phase("plan")
    # Blobs go to one fast-import pack (in parallel, on the other core), files are written by
    # two threads (file creation is mostly kernel time), and `git add` then finds every
    # object already stored and only hashes and stats the files to build the index.
    proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=store,
                            stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=_git_env())
    assert proc.stdin is not None
    dirs: set[str] = set()
    for state in STATES:
        (store / "wi" / state).mkdir(parents=True)
        (store / "wi" / state / ".gitkeep").write_bytes(b"")
        dirs.add(f"wi/{state}")
    root = str(store)

    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)

    def write_batch(batch: list[tuple[str, bytes]]) -> None:
        for rel, data in batch:
            fd = os.open(os.path.join(root, rel), flags, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)

    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = []
        batch: list[tuple[str, bytes]] = []
        blobs: list[bytes] = []
        for rel, text in gen.items():
            data = text.encode()
            d = rel.rpartition("/")[0]
            if d not in dirs:
                os.makedirs(os.path.join(root, d), exist_ok=True)
                dirs.add(d)
            batch.append((rel, data))
            blobs.append(b"blob\ndata %d\n%s\n" % (len(data), data))
            if len(batch) >= 256:
                futures.append(pool.submit(write_batch, batch))
                proc.stdin.write(b"".join(blobs))
                batch, blobs = [], []
        futures.append(pool.submit(write_batch, batch))
        proc.stdin.write(b"".join(blobs) + b"done\n")
        proc.stdin.close()
        for f in futures:
            f.result()
    err = proc.stderr.read() if proc.stderr else b""
    if proc.wait() != 0:
        raise RuntimeError(f"git fast-import failed: {err.decode(errors='replace').strip()}")
    phase("write files + fast-import blobs")

    stamp = f"{int(now.timestamp())} +0000"
    env = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    _git("add", "-A", cwd=store)
    phase("git add")
    tree = _git("write-tree", cwd=store).strip()
    commit = _git("commit-tree", tree, "-m", f"atk: import {active + terminal} items\n\nAtk-Actor: agent",
                  cwd=store, env=env).strip()
    _git("update-ref", "refs/heads/main", commit, cwd=store)
    phase("commit")

    if remote:
        bare = out / "remote.git"
        _git("clone", "-q", "--bare", str(store.resolve()), str(bare))
        _git("remote", "add", "origin", str(bare.resolve()), cwd=store)
        _git("fetch", "-q", "origin", cwd=store)
        _git("branch", "-q", "--set-upstream-to=origin/main", "main", cwd=store)
        phase("remote")
    return store.resolve()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--active", type=int, default=10000, help="items in inbox/processing/hold")
    ap.add_argument("--terminal", type=int, default=50000, help="items in adopted/rejected")
    ap.add_argument("--out", type=Path, required=True, help="directory to create the store in (DIR/store)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--remote", action="store_true", help="also create DIR/remote.git as origin")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    store = generate_store(args.out, args.active, args.terminal, args.seed, remote=args.remote, timings=timings)
    dt = time.perf_counter() - t0
    print(f"{store}: {args.active} active + {args.terminal} terminal items in {dt:.2f} s")
    print("  " + ", ".join(f"{k} {v:.2f} s" for k, v in timings.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
