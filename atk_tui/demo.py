"""A realistic demo store (SPEC §10: `atk-tui --demo`).

`create_demo_store(base)` makes `base/remote.git` (bare) and `base/store` (a clone of it with
`origin` and upstream `main`), fills the store with about 35 items of an engineering team's
queue, with a history of `atk: <op> <filename>` commits, and pushes it.

The history is replayed from a list of events (add, start-processing, adopt, …) and written
through one `git fast-import` stream, which gives every commit its own date relative to `now`
and keeps the whole creation at a few git calls. Everything is deterministic given `now`:
the same `now` gives byte-identical files and the same commit SHAs.

Notable items (their filenames depend on `now`; `DEMO_KEYS` below names them, and
`demo_filenames(now)` maps those keys to filenames without creating a store):

- `chain-uwi` (unanswered, blocking) <- `chain-1` (plan) <- `chain-2` <- `chain-3`
- `answered-uwi` (answered, in inbox) <- `answered-dep` (awaiting pickup)
- `cooldown` (`cooldown_until` in the future, +09:00)
- `missing-dep` depends on a filename that was removed (`atk: rm`)
- `cycle-a` <-> `cycle-b`; `dep-on-hold` -> `hold-edit`; `cross-repo` (acme/webapp) -> `proc-healthz` (acme/api)
- `comment` (`## ユーザーコメント`), `custom-keys` (unknown frontmatter keys)
- `defective` (YAML error), `lint` (normal AWI missing bullets), `plan-missing` (plan file absent)
- UWIs: `cp-single` (checkpoint, `Decision needed:`), `cp-multi` (checkpoint, 2 numbered
  questions), `md-multi` (`## 質問 1..3`), `post-approval`, `free-text` (no options)
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml

__all__ = ["DEMO_KEYS", "create_demo_store", "demo_filenames", "demo_main"]

AUTHOR_NAME = "atk demo"
AUTHOR_EMAIL = "demo@atk.invalid"
PLAN_PREFIX = "$(atk config get private_notes)/plans"
JST = timezone(timedelta(hours=9), "JST")

# Environment variables that would point git at another repository than the one we mean.
_GIT_ENV_DROP = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
)


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROP}
    env["GIT_TERMINAL_PROMPT"] = "0"
    return env


def _git(*args: str, cwd: Path | None = None, input: bytes | None = None) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=cwd, input=input, capture_output=True, env=_git_env(), check=False
    )
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"git {' '.join(args[:3])} failed ({proc.returncode}): {err}")
    return proc.stdout.decode("utf-8", "replace")


# --- frontmatter rendering ---------------------------------------------------------------


class _Raw(str):
    """A YAML value written exactly as given (timestamps: `2026-11-29T05:12:00Z`)."""


@dataclass(frozen=True)
class _Deps:
    """`depends_on` as item keys; a key that names no item is written as a literal filename."""

    keys: tuple[str, ...]


def _plain_ok(text: str, *, in_list: bool) -> bool:
    if not text or text != text.strip() or "\n" in text:
        return False
    doc = f"k: [{text}]\n" if in_list else f"k: {text}\n"
    try:
        loaded = yaml.safe_load(doc)
    except yaml.YAMLError:
        return False
    return loaded == {"k": [text] if in_list else text}


def _scalar(value: str, *, in_list: bool = False) -> str:
    if isinstance(value, _Raw):
        return str(value)
    if _plain_ok(value, in_list=in_list):
        return value
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def _yaml_value(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v, in_list=True) for v in value) + "]"
    return _scalar(value)


def _iso_z(dt: datetime) -> _Raw:
    return _Raw(dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))


def _sha(*parts: str) -> str:
    """A deterministic 40-hex "commit SHA" for the demo's fictitious repositories."""
    return hashlib.sha1("\0".join(parts).encode()).hexdigest()


# --- the model of the history ------------------------------------------------------------


@dataclass
class _Item:
    key: str
    created: datetime
    slug: str
    title: str
    body: str
    fm: list[tuple[str, Any]]
    final_state: str
    tail: str = ""  # a user-only section added later by an `answer`/`comment` event
    raw_fm: str | None = None  # the frontmatter text verbatim (the defective file)

    @property
    def filename(self) -> str:
        return f"{self.created.strftime('%Y%m%d-%H%M%S')}-{self.slug}.md"


@dataclass
class _Event:
    at: datetime
    seq: int
    op: str
    keys: tuple[str, ...]
    actor: str | None  # None: a hand-made commit without the Atk-Actor trailer
    to: str | None = None
    set: dict[str, Any] | None = None
    tail: bool = False
    remove: bool = False
    files: dict[str, str] = field(default_factory=dict)
    message: str | None = None


def _ago(d: int = 0, h: int = 0, m: int = 0, s: int = 0) -> timedelta:
    return timedelta(days=d, hours=h, minutes=m, seconds=s)


_FM_ORDER = ("kind", "source", "target_repo", "target_commit", "plan_file", "depends_on",
             "cooldown_until", "created", "urgency")


class _Demo:
    def __init__(self, now: datetime) -> None:
        self.now = now
        self.items: dict[str, _Item] = {}
        self.events: list[_Event] = []
        self.plan_paths: dict[str, str] = {}

    # -- building ------------------------------------------------------------------------

    def plan_ref(self, created: datetime, name: str) -> tuple[str, str]:
        rel = f"plans/{created:%Y}/{created:%m}/{name}.md"
        return rel, f"{PLAN_PREFIX}/{created:%Y}/{created:%m}/{name}.md"

    def item(
        self,
        key: str,
        age: timedelta,
        slug: str,
        title: str,
        body: str,
        *,
        state: str,
        repo: str,
        kind: str = "awi",
        source: str | None = None,
        target_commit: str | None = None,
        plan: str | None = None,
        plan_text: str | None = None,
        deps: tuple[str, ...] = (),
        cooldown: datetime | None = None,
        urgency: str | None = None,
        custom: tuple[tuple[str, str, Any], ...] = (),
        tail: str = "",
        raw_fm: str | None = None,
        add_message: str | None = None,
    ) -> _Item:
        assert key not in self.items, key
        created = self.now - age
        values: dict[str, Any] = {
            "kind": kind,
            "source": source,
            "target_repo": repo,
            "target_commit": target_commit,
            "plan_file": None,
            "depends_on": _Deps(deps) if deps else None,
            "cooldown_until": _Raw(cooldown.isoformat()) if cooldown else None,
            "created": _iso_z(created),
            "urgency": urgency,
        }
        files: dict[str, str] = {}
        if plan:
            rel, portable = self.plan_ref(created, plan)
            values["plan_file"] = portable
            self.plan_paths[key] = rel
            if plan_text is not None:
                files[rel] = plan_text
        fm = [(k, values[k]) for k in _FM_ORDER if values[k] is not None]
        for after, ckey, cvalue in custom:
            pos = next(i for i, (k, _) in enumerate(fm) if k == after) + 1
            fm.insert(pos, (ckey, cvalue))
        it = _Item(key, created, slug, title, body.strip("\n"), fm, state, tail.strip("\n"), raw_fm)
        self.items[key] = it
        actor = None if add_message else ("agent" if source else "user")
        if files:  # the plan is committed just before the item that refers to it
            self.events.append(_Event(created - _ago(m=4), len(self.events), "plans commit", (), "agent",
                                      files=files, message=f"atk: plans commit {plan}.md"))
        self.events.append(_Event(created, len(self.events), "add", (key,), actor, to="inbox",
                                  message=add_message))
        return it

    def ev(
        self,
        age: timedelta,
        op: str,
        *keys: str,
        actor: str = "agent",
        to: str | None = None,
        set: dict[str, Any] | None = None,
        tail: bool = False,
        remove: bool = False,
    ) -> None:
        self.events.append(_Event(self.now - age, len(self.events), op, keys, actor, to=to, set=set,
                                  tail=tail, remove=remove))

    def lifecycle(self, key: str, *steps: tuple[timedelta, str, str]) -> None:
        """Shorthand for the common moves: (age, op, actor) with op one of
        start-processing | hold | unhold | return-to-inbox | adopt | reject."""
        to = {"start-processing": "processing", "hold": "hold", "unhold": "inbox",
              "return-to-inbox": "inbox", "adopt": "adopted", "reject": "rejected"}
        for age, op, actor in steps:
            self.ev(age, op, key, actor=actor, to=to[op])

    # -- rendering -----------------------------------------------------------------------

    def _fname(self, key: str) -> str:
        return self.items[key].filename if key in self.items else key

    def render(self, it: _Item, fm: list[tuple[str, Any]], with_tail: bool) -> str:
        if it.raw_fm is not None:
            head = it.raw_fm
        else:
            lines = []
            for k, v in fm:
                if isinstance(v, _Deps):
                    v = [self._fname(x) for x in v.keys]
                lines.append(f"{k}: {_yaml_value(v)}\n")
            head = "".join(lines)
        body = it.body
        if with_tail and it.tail:
            body = f"{body}\n\n{it.tail}"
        return f"---\n{head}---\n# {it.title}\n\n{body}\n"

    # -- replay --------------------------------------------------------------------------

    def commits(self) -> list[tuple[datetime, str, dict[str, str | None]]]:
        """Replay the events in time order into commits: (date, message, {path: text|None})."""
        state: dict[str, str] = {}
        fms: dict[str, list[tuple[str, Any]]] = {}
        tails: dict[str, bool] = {}
        out: list[tuple[datetime, str, dict[str, str | None]]] = []
        for ev in sorted(self.events, key=lambda e: (e.at, e.seq)):
            changes: dict[str, str | None] = dict(ev.files)
            for key in ev.keys:
                it = self.items[key]
                if ev.op == "add":
                    assert key not in state, key
                    state[key], fms[key], tails[key] = "inbox", list(it.fm), False
                assert key in state, f"{ev.op} {key} before it exists"
                old = f"wi/{state[key]}/{it.filename}"
                if ev.remove:
                    changes[old] = None
                    del state[key]
                    continue
                if ev.to:
                    state[key] = ev.to
                for k, v in (ev.set or {}).items():
                    cur = fms[key]
                    idx = next((i for i, (ck, _) in enumerate(cur) if ck == k), None)
                    if idx is None:
                        cur.append((k, v))  # like the tool: a new key goes at the end
                    else:
                        cur[idx] = (k, v)
                tails[key] = tails[key] or ev.tail
                new = f"wi/{state[key]}/{it.filename}"
                if new != old and ev.op != "add":
                    changes[old] = None
                changes[new] = self.render(it, fms[key], tails[key])
            if ev.message is not None:
                msg = ev.message.rstrip("\n") + "\n"
            else:
                what = self._fname(ev.keys[0]) if len(ev.keys) == 1 else f"{len(ev.keys)} items"
                msg = f"atk: {ev.op} {what}\n"
            if ev.actor:
                msg += f"\nAtk-Actor: {ev.actor}\n"
            out.append((ev.at, msg, changes))
        for key, it in self.items.items():
            final = state.get(key)
            expected = None if it.final_state == "gone" else it.final_state
            assert final == expected, f"{key}: replay ends in {final}, declared {expected}"
            if expected is not None:
                assert not it.tail or tails[key], f"{key}: tail never added"
        return out


def _fast_import_stream(commits: list[tuple[datetime, str, dict[str, str | None]]]) -> bytes:
    out: list[bytes] = []
    ident = f"{AUTHOR_NAME} <{AUTHOR_EMAIL}>"
    for n, (at, msg, changes) in enumerate(commits, start=1):
        stamp = f"{int(at.timestamp())} +0000"
        m = msg.encode()
        out.append(
            f"commit refs/heads/main\nmark :{n}\nauthor {ident} {stamp}\ncommitter {ident} {stamp}\n"
            f"data {len(m)}\n".encode()
        )
        out.append(m)
        out.append(b"\n")
        if n > 1:
            out.append(f"from :{n - 1}\n".encode())
        for path, text in changes.items():
            if text is None:
                out.append(f"D {path}\n".encode())
            else:
                data = text.encode()
                out.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode())
                out.append(data)
                out.append(b"\n")
        out.append(b"\n")
    out.append(b"done\n")
    return b"".join(out)


# --- the content -------------------------------------------------------------------------

#: Keys of the notable items, for `demo_filenames()`.
DEMO_KEYS: tuple[str, ...] = (
    "chain-uwi", "chain-1", "chain-2", "chain-3", "answered-uwi", "answered-dep", "cooldown",
    "missing-dep", "removed", "cycle-a", "cycle-b", "hold-edit", "dep-on-hold", "cross-repo",
    "proc-healthz", "comment", "custom-keys", "defective", "lint", "plan-missing", "cp-single",
    "cp-multi", "md-multi", "post-approval", "free-text",
)

_PLAN_LOGIN = """\
# 計画: ログインセッションのサーバー側永続化

## 目的
JWT だけで管理しているログインセッションを、サーバー側で失効できるセッションへ移す。
パスワード変更やアカウント停止の直後に、既存のセッションを確実に無効にできる状態を目指す。

## 手順
1. `SessionStore` インターフェースを `src/auth/session/` に追加し、JWT 検証の後段で照会する
2. ストアの実装を追加する (種類は UWI で確認中。回答まで着手しない)
3. ログイン、ログアウト、パスワード変更でセッションを作成・削除する
4. 既存 JWT は 14 日間の移行期間だけ受け付け、初回アクセス時にセッションへ変換する

## 検証
- パスワード変更後 1 秒以内に、他端末のセッションで API を呼ぶと 401 `session_expired` になる
- 負荷試験 (500 rps) で p99 レイテンシの増分が 5 ms 未満

## 未確定事項
- セッションストアの選択 (Redis / PostgreSQL)
"""

_PLAN_SLO = """\
# 計画: SLO ベースのアラートへの置き換え

## 目的
CPU やエラー件数の静的しきい値アラートを、エラーバジェット消費率 (burn rate) のアラートへ置き換え、
夜間の誤報を減らしつつ、利用者に影響する劣化だけを通知する。

## 手順
1. acme/api と acme/webapp の SLI (可用性、p95 レイテンシ) を recording rule として定義する
2. 1h/6h と 6h/3d の 2 組の multi-window burn rate アラートを追加する
3. 2 週間は旧アラートと並行稼働し、通知の差分を #ops-alerts に記録する
4. 差分を確認して旧アラートを削除する

## 検証
- 障害注入 (エラー率 5%) で 5 分以内に page が飛ぶ
- 並行稼働期間の誤報件数が旧アラートの半分以下
"""

_PLAN_TFSTATE = """\
# 計画: Terraform state の S3 + DynamoDB への移行

## 目的
開発者のローカルにある `terraform.tfstate` をやめ、S3 バックエンドと DynamoDB ロックで共有する。

## 手順
1. state 用の S3 バケット (バージョニング、SSE-KMS) と DynamoDB テーブルを bootstrap で作成する
2. 環境ごとに `backend "s3"` を設定し、`terraform init -migrate-state` で移行する
3. ローカルの state ファイルを削除し、`.gitignore` に追加する

## 検証
- 2 人が同時に `terraform apply` すると、後の 1 人がロック待ちになる
- 全環境で `terraform plan` の差分がない
"""


def _build(now: datetime) -> _Demo:
    d = _Demo(now)
    A, U = "agent", "user"

    # ---------------------------------------------------------------- terminal history
    d.item(
        "adopt-node", _ago(20, 3, 14, 52), "ci-node-22-lts", "CI の Node.js を 22 LTS へ更新する", """
- 反映内容: CI ワークフローと `.nvmrc` の Node.js を 20 から 22 LTS へ上げ、`package.json` の `engines` を `>=22` に揃える
- 反映先: acme/webapp の `.github/workflows/ci.yml`、`.nvmrc`、`package.json`
- 理由: Node.js 20 のメンテナンス期間が終わり、`vite` の次期メジャーが Node.js 22 以上を要求している
- メリット: セキュリティ修正を受け続けられ、依存ライブラリの更新が止まらない
- デメリット: 各開発者がローカルの Node.js を更新する必要がある
- 完成条件: main の CI が Node.js 22 で成功し、ジョブログの `node --version` が v22 系を示す。開発者へ追加の操作は要求しない
""", state="adopted", repo="acme/webapp")
    d.lifecycle("adopt-node", (_ago(20, 1, 2), "start-processing", A))
    d.ev(_ago(19, 22, 41), "adopt", "adopt-node", to="adopted",
         set={"note": "merged in acme/webapp#412", "commit": _sha("webapp", "node22")})

    d.item(
        "adopt-429", _ago(18, 5, 3, 11), "return-429-with-retry-after",
        "Return 429 with Retry-After when the rate limiter trips", """
- 反映内容: When the token-bucket limiter rejects a request, respond with HTTP 429 and a `Retry-After` header (seconds until the bucket refills) instead of the current 503
- 反映先: acme/api, `src/middleware/ratelimit.ts` and its tests
- 理由: Mobile clients treat 503 as an outage and show a full-screen error; last week's access logs show 1,240 such 503s, all from the limiter
- 適用範囲: Every route behind `rateLimit()`; the mechanism depends only on the middleware's rejection path, not on the route. Observed on `POST /v2/login`; `GET /v2/orders` during the nightly report burst is another case with a different surface (no user-facing error, but a failed export)
- メリット: Clients can back off correctly; fewer false outage alerts
- デメリット: Clients that special-case 503 for retries must also handle 429 (the mobile app already does)
- 完成条件: A request over the limit gets 429 with an integer `Retry-After`; no route behind the limiter returns 503 for rate limiting. Clients need no change
""", state="adopted", repo="acme/api", source="process-wi", target_commit=_sha("api", "ratelimit-base"))
    d.lifecycle("adopt-429", (_ago(18, 4, 30), "start-processing", A))
    d.ev(_ago(18, 1, 12), "adopt", "adopt-429", to="adopted",
         set={"note": "merged in acme/api#1187", "commit": _sha("api", "429")})

    d.item(
        "adopt-tfstate", _ago(16, 2, 20, 5), "terraform-state-s3", "Terraform state を S3 + DynamoDB ロックへ移行する", """
開発者のローカルにある `terraform.tfstate` を S3 バックエンドへ移し、DynamoDB でロックする。手順と検証は計画ファイルを参照。
""", state="adopted", repo="acme/infra", source="plan-and-add-awi", plan="terraform-remote-state",
        plan_text=_PLAN_TFSTATE)
    d.lifecycle("adopt-tfstate", (_ago(15, 23, 10), "start-processing", A))
    d.ev(_ago(15, 3, 48), "adopt", "adopt-tfstate", to="adopted",
         set={"note": "全環境を移行済み (acme/infra#77)", "commit": _sha("infra", "tfstate")})

    d.item(
        "adopt-uwi", _ago(15, 1, 7, 40), "pagination-cursor-or-offset",
        "一覧 API のページネーションは cursor 方式と offset 方式のどちらにしますか", """
## 背景
`GET /v2/orders` と `GET /v2/customers` の実装中に、既存の `/v1` 系が offset 方式、検索 API が cursor 方式であることを確認した。新しい一覧 API をどちらに揃えるかで、クライアント SDK の生成コードが変わる。

## 質問
新しい一覧 API のページネーション方式をどれにしますか。

- A) Cursor 方式 -- 大きな表でも一定速度。ページ番号への直接ジャンプはできない
- B) Offset 方式 -- 既存の `/v1` と同じ。深いページほど遅くなる
- C) 両対応 -- クライアントが選べるが、実装とテストが倍になる

推奨: A) 件数が増え続ける orders で速度が落ちないため
""", state="adopted", repo="acme/api", kind="uwi", source="process-wi", urgency="next-review", tail="""
## 回答

- 1: A) Cursor 方式

管理画面のページ番号表示は「次へ / 前へ」に変えてよい。
""")
    d.ev(_ago(14, 20, 15), "answer", "adopt-uwi", actor=U, tail=True)
    d.ev(_ago(14, 18, 2), "adopt", "adopt-uwi", to="adopted",
         set={"note": "回答を acme/api の一覧 API 設計へ反映済み"})

    d.item(
        "reject-moment", _ago(14, 6, 31, 9), "replace-moment-with-date-fns", "Replace moment.js with date-fns", """
- 反映内容: Replace all `moment` imports with `date-fns` equivalents and drop the dependency
- 反映先: acme/webapp, `src/**` (41 files import moment)
- 理由: moment is in maintenance mode and adds 72 kB (gzip) to the main bundle according to the bundle analyzer run in this session
- 適用範囲: Any module importing `moment`; the bundle cost depends on the import, not on which helper is used. Seen in `src/orders/format.ts`; `src/reports/export.ts` is a different surface (server-side CSV export) with the same dependency
- メリット: Smaller bundle, tree-shakable date helpers
- デメリット: 41 files to touch; locale formatting differs in edge cases and needs review
- 完成条件: `moment` no longer appears in `package.json` or the bundle; date rendering in the orders and reports pages is unchanged
""", state="rejected", repo="acme/webapp", source="session-review")
    d.lifecycle("reject-moment", (_ago(13, 2, 5), "start-processing", A))
    d.ev(_ago(12, 22, 40), "reject", "reject-moment", to="rejected",
         set={"note": "Not adopted: the analyzer counted moment twice; since the vite switch it is lazy-loaded "
                      "and costs 3 kB on the main bundle"})

    d.item(
        "reject-rds", _ago(11, 2, 44, 30), "prod-db-instance-class", "本番 DB のインスタンスクラスを 1 段階上げる", """
- 反映内容: 本番 RDS のインスタンスクラスを db.r6g.large から db.r6g.xlarge へ変更する
- 反映先: acme/infra の `envs/prod/rds.tf`
- 理由: 月末バッチ中に CPU 使用率が 85% を超えるアラートが 3 回発生した
- 適用範囲: 月末の集計バッチが走る期間に限る。CPU 使用率はバッチの同時実行数に依存し、インスタンスクラス以外の要因 (クエリ計画の退行) でも同じ症状が出る
- メリット: バッチ中のレイテンシ悪化を避けられる
- デメリット: 月額費用が約 2 倍になる
- 完成条件: 月末バッチ中の CPU 使用率が 70% 未満に収まる
""", state="rejected", repo="acme/infra", source="process-wi")
    d.lifecycle("reject-rds", (_ago(11, 1, 50), "start-processing", A))
    d.ev(_ago(10, 20, 3), "reject", "reject-rds", to="rejected",
         set={"note": "負荷試験でクエリ計画の退行 (index 未使用) が原因と判明。acme/api 側で修正済みのため不採用"})

    d.item(
        "removed", _ago(10, 4, 12, 0), "migrate-mobile-clients-to-v2-login",
        "Migrate mobile clients to the v2 login endpoint", """
- 反映内容: Switch the iOS and Android apps from `/v1/login` to `/v2/login`
- 反映先: acme/api (client SDK)
- 理由: v1 login keeps the legacy hash fallback alive
- メリット: Unblocks removing the v1 handler
- デメリット: Needs an app release
- 完成条件: No v1 login calls in the access logs for 7 days
""", state="gone", repo="acme/api")

    d.item(
        "adopt-reqid", _ago(9, 4, 2, 18), "request-id-in-structured-logs", "Add request ID to structured logs", """
- 反映内容: Generate a request ID (or accept `X-Request-ID` from the load balancer) and include it in every structured log line and in the response headers
- 反映先: acme/api, logging middleware
- 理由: Correlating a customer report with log lines currently needs a timestamp search across three services
- メリット: One ID links load balancer, API and worker logs
- デメリット: Slightly larger log lines (about 40 bytes each)
- 完成条件: Every log line for a request carries the same `request_id`, and the response has an `X-Request-ID` header with that value
""", state="adopted", repo="acme/api")
    d.lifecycle("adopt-reqid", (_ago(8, 23, 55), "start-processing", A))
    d.ev(_ago(8, 2, 30), "adopt", "adopt-reqid", to="adopted",
         set={"note": "merged in acme/api#1219", "commit": _sha("api", "reqid")})

    d.item(
        "reject-graphql", _ago(8, 7, 26, 44), "add-a-graphql-endpoint", "Add a GraphQL endpoint", """
- 反映内容: Expose the order and customer models through a `/graphql` endpoint
- 反映先: acme/api
- 理由: The partner team asked for flexible queries for their dashboard
- メリット: Partners can fetch exactly the fields they need
- デメリット: A second API surface to secure, document and version
- 完成条件: Partners can query orders and customers through `/graphql` with the same authorization rules as REST
""", state="rejected", repo="acme/api")
    d.ev(_ago(7, 3, 10), "reject", "reject-graphql", actor=U, to="rejected",
         set={"note": "Out of scope for Q4; the partner dashboard will use the REST export instead"})

    # ---------------------------------------------------------------- missing dependency
    d.item(
        "missing-dep", _ago(7, 2, 9, 33), "remove-legacy-v1-login", "Remove the legacy /v1/login handler", """
- 反映内容: Delete the `/v1/login` route, its controller and the password-hash fallback it still uses
- 反映先: acme/api, `src/routes/v1/login.ts`, `src/auth/legacyHash.ts`
- 理由: All first-party clients are meant to move to `/v2/login`; the v1 handler keeps a weaker hash fallback alive
- メリット: Removes the last caller of the legacy hash code
- デメリット: Any client still on v1 breaks; the mobile migration must land first
- 完成条件: `/v1/login` returns 404, `legacyHash.ts` is gone, and the login success rate on the dashboard does not drop
""", state="inbox", repo="acme/api", deps=("removed",))
    d.ev(_ago(2, 3, 15), "rm", "removed", actor=U, remove=True)

    # ---------------------------------------------------------------- a 2-item cycle
    d.item(
        "cycle-a", _ago(6, 1, 4, 27), "split-billing-package", "Split billing into its own package", """
- 反映内容: Move `src/billing/**` into a workspace package `@acme/billing` with an explicit public interface
- 反映先: acme/api
- 理由: Billing changes currently need a full API deploy, and three teams edit the same folder
- メリット: Billing can be versioned and tested on its own
- デメリット: One more package to publish; import paths change in about 30 files
- 完成条件: `@acme/billing` builds and tests on its own and the API imports billing only through its public interface
""", state="inbox", repo="acme/api")
    d.item(
        "cycle-b", _ago(6, 0, 51, 2), "invoice-pdf-behind-billing-interface",
        "Move invoice PDF rendering behind the billing interface", """
- 反映内容: Route invoice PDF rendering through a `BillingDocuments` interface instead of calling the renderer directly from the orders controller
- 反映先: acme/api, `src/orders/invoice.ts`
- 理由: The orders controller reaches into billing internals, which blocks the package split
- メリット: The orders code stops depending on billing internals
- デメリット: A thin extra layer around the renderer
- 完成条件: `src/orders` has no import from `src/billing` except the `BillingDocuments` interface; generated PDFs are byte-identical for the sample invoices
""", state="inbox", repo="acme/api", deps=("cycle-a",))
    # a hand edit in $EDITOR closed the loop (set-dependencies would have refused it)
    d.ev(_ago(5, 6, 12), "edit", "cycle-a", actor=U, set={"depends_on": _Deps(("cycle-b",))})

    # ---------------------------------------------------------------- hold
    d.item(
        "hold-plan", _ago(5, 3, 0, 16), "deprecate-v1-users-endpoint", "Deprecate the v1 /users endpoint", """
- 反映内容: Mark `GET /v1/users` as deprecated (`Deprecation` and `Sunset` headers), log its callers, and announce a removal date
- 反映先: acme/api, `src/routes/v1/users.ts`; the acme/docs changelog
- 理由: v1 /users has 3 callers left according to the access logs, and it exposes fields that v2 hides
- 適用範囲: Any v1 route that returns the full user record; the exposure depends on the v1 serializer, not the path. Seen on `/v1/users`; `/v1/teams/:id/members` uses the same serializer under a different path
- メリット: Callers get a machine-readable warning before removal
- デメリット: Needs a communication round with the three callers
- 完成条件: Responses from v1 /users carry `Deprecation` and `Sunset` headers and the changelog names the removal date
""", state="hold", repo="acme/api", source="add-awi")
    d.lifecycle("hold-plan", (_ago(5, 1, 20), "hold", A))  # held while a plan is written

    d.item(
        "hold-edit", _ago(4, 6, 38, 50), "unify-signup-validation-messages",
        "サインアップフォームのバリデーションメッセージを統一する", """
- 反映内容: サインアップフォームの入力エラー文言を、ログインと同じ文言集 (`src/i18n/validation.ja.json`) から引くように変える
- 反映先: acme/webapp の `src/signup/` 一式
- 理由: 同じ「メールアドレスの形式が正しくありません」が 3 通りの表現で表示され、問い合わせが来ている
- メリット: 文言が一箇所で管理でき、翻訳漏れもなくなる
- デメリット: 既存のスナップショットテストの更新が必要
- 完成条件: サインアップとログインで同じ入力誤りに同じ文言が表示される。ユーザーへ新たな操作は要求しない
""", state="hold", repo="acme/webapp")
    d.lifecycle("hold-edit", (_ago(1, 2, 5), "hold", U))  # the user is editing it

    # ---------------------------------------------------------------- comment section
    d.item(
        "comment", _ago(4, 2, 17, 3), "ci-cache-key-lockfile-hash", "CI のキャッシュキーに lockfile のハッシュを含める", """
- 反映内容: CI の依存キャッシュのキーを `runner.os` だけでなく `hashFiles('**/package-lock.json', '**/poetry.lock')` を含む形に変える
- 反映先: acme/infra の共有ワークフロー `.github/workflows/reusable-ci.yml`
- 理由: lockfile を更新しても古いキャッシュが復元され、依存の不整合でテストが 2 回失敗した (セッション中に再現)
- 適用範囲: 共有ワークフローを使う全リポジトリ。不具合はキャッシュキーが lockfile に依存しないことだけに起因する。観測は acme/webapp の npm、表面の異なる該当例として acme/api の poetry キャッシュがある
- メリット: lockfile 更新時に確実にキャッシュが作り直される
- デメリット: lockfile 更新直後の 1 回はキャッシュなしで実行され、数分遅くなる
- 完成条件: lockfile を変更したコミットの CI でキャッシュが再作成され、変更しないコミットではキャッシュが復元される
""", state="inbox", repo="acme/infra", source="session-review", tail="""
## ユーザーコメント

GitHub Actions だけでなく、セルフホストの Buildkite パイプラインも同じ対応をしてください。キャッシュの保持期間は 7 日のままで構いません。
""")
    d.ev(_ago(1, 0, 40), "comment", "comment", actor=U, tail=True)

    # ---------------------------------------------------------------- unknown keys
    d.item(
        "custom-keys", _ago(3, 7, 2, 12), "document-oncall-escalation-policy", "Document the on-call escalation policy", """
- 反映内容: Write the on-call escalation policy (who is paged, after how long, and how to hand over) as a page in the handbook
- 反映先: acme/docs, `handbook/oncall/escalation.md`
- 理由: The last two incidents lost 20+ minutes because nobody knew when to escalate to the secondary
- メリット: Faster escalation; new hires can learn the policy without asking
- デメリット: The page has to be kept in sync with the PagerDuty schedule
- 完成条件: The handbook has an escalation page that names the primary, secondary and manager steps with their timeouts, linked from the on-call index
""", state="inbox", repo="acme/docs",
        custom=(("target_repo", "priority", "high"), ("created", "labels", ["oncall", "process"]),
                ("labels", "reviewer", "@mika"), ("reviewer", "x-jira", "OPS-1432")))

    d.item(
        "dep-on-hold", _ago(3, 5, 45, 0), "signup-e2e-tests", "サインアップ画面の E2E テストを追加する", """
- 反映内容: サインアップの正常系と、入力誤り 4 種のエラー表示を確認する E2E テストを追加する
- 反映先: acme/webapp の `e2e/signup.spec.ts`
- 理由: 文言統一の変更で表示が変わるため、回帰を検出するテストが必要
- 適用範囲: 入力誤りの表示を持つフォーム全般。表示の差異はフォームごとのバリデーション実装に依存する。観測はサインアップだが、表面の異なる該当例としてパスワード再設定フォームがある
- メリット: 文言やレイアウトの回帰を CI で検出できる
- デメリット: E2E の実行時間が約 40 秒増える
- 完成条件: CI で新しい E2E テストが成功し、文言を壊す変更を入れると失敗する
""", state="inbox", repo="acme/webapp", source="add-awi", deps=("hold-edit",))

    # ---------------------------------------------------------------- processing
    d.item(
        "proc-healthz", _ago(3, 2, 13, 21), "healthz-readiness-endpoint",
        "Add a /healthz readiness endpoint that checks the database", """
- 反映内容: Add `GET /healthz` returning 200 when the DB pool answers `SELECT 1` within 200 ms, else 503 with the failing check named
- 反映先: acme/api
- 理由: The load balancer uses `/` as health check, which stays green while the DB is unreachable
- メリット: Bad pods are taken out of rotation automatically
- デメリット: One extra DB query per pod every 10 s
- 完成条件: With the DB stopped, `/healthz` returns 503 within 1 s and the load balancer drains the pod; with the DB up it returns 200
""", state="processing", repo="acme/api", deps=("adopt-reqid",))
    d.lifecycle("proc-healthz", (_ago(0, 4, 6), "start-processing", A))

    d.item(
        "answered-uwi", _ago(2, 9, 0, 35), "feature-flag-provider", "Which feature-flag provider should the webapp use?", """
## Context
The checkout redesign has to ship dark (behind a flag) so it can be enabled per customer segment. The webapp has no flag system yet; acme/api reads flags from environment variables, which cannot target segments.

## Question
Which feature-flag provider should the webapp adopt?

- A) LaunchDarkly -- hosted, segment targeting and audit log out of the box; about $1,200/month at our seat count
- B) Unleash (self-hosted) -- free, runs in our cluster; we operate and upgrade it ourselves
- C) Environment variables -- no new service, but no per-segment targeting, so the redesign would ship to everyone at once

Recommendation: B) segment targeting at no licence cost, and acme/infra already runs similar services
""", state="inbox", repo="acme/webapp", kind="uwi", source="process-wi", urgency="blocking", tail="""
## 回答

- 1: B) Unleash (self-hosted)

Use the existing Postgres cluster for Unleash's database; no new RDS instance.
""")
    d.ev(_ago(0, 20, 11), "answer", "answered-uwi", actor=U, tail=True)

    d.item(
        "answered-dep", _ago(2, 8, 2, 58), "checkout-redesign-feature-flag", "Wire the checkout redesign to a feature flag", """
- 反映内容: Render the new checkout only when the `checkout-redesign` flag is on for the current customer's segment; otherwise the current checkout
- 反映先: acme/webapp, `src/checkout/`
- 理由: The redesign must ship dark and be enabled per segment (see the flag-provider question)
- 適用範囲: Pages reached from the cart; the switch depends on the checkout route entry, not on individual components. Observed for the cart button; the "buy again" link in the order history reaches the same route from a different page
- メリット: The redesign can be rolled out and rolled back without a deploy
- デメリット: Two checkout implementations live side by side until the rollout ends
- 完成条件: Turning the flag on for a segment shows the new checkout to that segment only; turning it off reverts within one minute, without a deploy
""", state="inbox", repo="acme/webapp", source="process-wi", deps=("answered-uwi",))

    d.item(
        "proc-slo", _ago(2, 5, 30, 8), "slo-based-alerts", "Prometheus アラートルールを SLO ベースへ置き換える", """
静的しきい値のアラートを、エラーバジェット消費率 (multi-window burn rate) のアラートへ置き換える。手順と検証は計画ファイルを参照。
""", state="processing", repo="acme/infra", source="plan-and-add-awi", plan="slo-alerts", plan_text=_PLAN_SLO)

    d.item(
        "cross-repo", _ago(2, 1, 20, 40), "admin-header-api-health", "管理画面に API のヘルス状態を表示する", """
- 反映内容: 管理画面のヘッダーに acme/api の `/healthz` の結果 (正常/異常と失敗したチェック名) を表示する
- 反映先: acme/webapp の `src/admin/Header.tsx`
- 理由: 障害時にサポート担当が API の状態を確認する手段がない
- メリット: 一次切り分けをサポート担当だけで行える
- デメリット: 30 秒ごとのポーリングが 1 本増える
- 完成条件: API の DB を止めると 30 秒以内にヘッダーが「異常: database」と表示し、復旧すると正常表示に戻る
""", state="inbox", repo="acme/webapp", deps=("proc-healthz",))

    # ---------------------------------------------------------------- the blocked chain
    d.item(
        "chain-1", _ago(1, 8, 10, 0), "server-side-login-sessions", "ログインセッションをサーバー側で永続化する", """
現在 JWT だけで管理しているログインセッションを、サーバー側で失効できるセッションへ移す。手順、移行と検証は計画ファイルを参照。
""", state="inbox", repo="acme/api", source="plan-and-add-awi", plan="login-session", plan_text=_PLAN_LOGIN)
    d.lifecycle("chain-1", (_ago(1, 7, 2), "start-processing", A))

    d.item(
        "chain-uwi", _ago(1, 6, 0, 14), "session-store-redis-or-postgres",
        "セッションストアに Redis と PostgreSQL のどちらを使いますか", """
## 背景
ログインセッションのサーバー側永続化 (計画 login-session) の実装中に、セッションストアの選択が計画で未確定だと分かった。acme/infra には既に Redis (ElastiCache) があるがキャッシュ用途で永続化は無効、PostgreSQL は本番 DB と同じクラスタになる。選択によってインフラ変更の有無と障害時の挙動が変わるため、実装を止めて確認する。

## 質問
セッションストアをどれにしますか。

- A) Redis (永続化を有効にした専用クラスタ) -- 読み書きが速く TTL で自動失効する。acme/infra に新しいクラスタが必要で月額が増える
- B) PostgreSQL (既存クラスタに sessions 表) -- 追加インフラ不要。ログインごとに書き込みが増え、期限切れ行の掃除ジョブが必要
- C) 既存 Redis を共用 -- 最も早く導入できるが、キャッシュの退避ポリシーでセッションが消えうる

推奨: A) セッション消失を避けつつ、本番 DB へ負荷を足さないため
""", state="inbox", repo="acme/api", kind="uwi", source="process-wi", urgency="blocking")
    d.ev(_ago(1, 5, 59, 30), "set-dependencies", "chain-1", set={"depends_on": _Deps(("chain-uwi",))})
    d.lifecycle("chain-1", (_ago(1, 5, 59), "return-to-inbox", A))

    d.item(
        "chain-2", _ago(1, 5, 12, 47), "redirect-to-login-on-session-expiry", "セッション期限切れ時にログイン画面へ戻す", """
- 反映内容: API が 401 `session_expired` を返したら、入力中のフォーム内容を保存してログイン画面へ遷移し、再ログイン後に元の画面へ戻す
- 反映先: acme/webapp の `src/api/client.ts` と `src/auth/`
- 理由: サーバー側セッションの導入後は、失効したセッションで操作すると 401 になり、現在は空白画面になる
- 適用範囲: API クライアントを経由する全画面。挙動は 401 の処理がクライアント共通層にないことに依存する。観測は注文編集画面、表面の異なる該当例として CSV エクスポートのダウンロードがある
- メリット: セッション失効時に入力内容を失わない
- デメリット: 保存したフォーム内容を一時的に sessionStorage に置く
- 完成条件: セッションを失効させた状態で保存操作をすると、ログイン画面へ移り、再ログイン後に元の画面へ入力内容付きで戻る
""", state="inbox", repo="acme/webapp", source="process-wi", deps=("chain-1",))

    d.item(
        "proc-darkmode", _ago(1, 3, 26, 19), "dark-mode-first-load", "Dark mode: respect prefers-color-scheme on first load", """
- 反映内容: Read `prefers-color-scheme` before the first paint (inline script in `index.html`) when the user has no saved theme
- 反映先: acme/webapp, `index.html`, `src/theme/init.ts`
- 理由: Users with a dark OS theme see a white flash and then the light theme until they toggle it
- 適用範囲: First load without a saved theme in localStorage. The flash depends on theme resolution running after hydration, not on the page; seen on `/login`, and `/orders` shows the same flash through a different layout
- メリット: No white flash; the theme matches the OS on first visit
- デメリット: A small inline script that the CSP must allow (hash-based)
- 完成条件: With a dark OS theme and empty storage, the first paint is dark on every page; the toggle still overrides it
""", state="processing", repo="acme/webapp", source="process-wi")
    d.ev(_ago(1, 2, 48), "start-processing", "proc-slo", "proc-darkmode", to="processing")

    d.item(
        "chain-3", _ago(1, 1, 3, 55), "session-store-dashboard-and-alerts",
        "セッションストアの監視ダッシュボードとアラートを追加する", """
- 反映内容: セッションストアの接続数、レイテンシ、退避件数を Grafana に表示し、退避が発生したら通知する
- 反映先: acme/infra の `dashboards/`、`alerts/`
- 理由: セッションが消えるとユーザー全員が再ログインになるため、予兆を把握したい
- メリット: 障害前に容量不足を検知できる
- デメリット: ダッシュボードの保守が増える
- 完成条件: ダッシュボードで 3 指標が見え、テスト用に退避を起こすと 5 分以内に #ops-alerts へ通知が届く
""", state="inbox", repo="acme/infra", deps=("chain-2",))

    # ---------------------------------------------------------------- recent inbox
    d.item(
        "lint", _ago(0, 22, 7, 31), "lazy-load-catalog-images", "商品一覧の画像を遅延読み込みにする", """
- 反映内容: 商品一覧の画像に `loading="lazy"` と `decoding="async"` を付ける
- 反映先: acme/webapp の `src/catalog/ProductCard.tsx`
- 理由: Lighthouse のモバイル計測で LCP が 4.1 秒、画面外の画像 48 枚が初期表示で読み込まれている
- メリット: 初期表示の転送量が約 2.3 MB 減る
""", state="inbox", repo="acme/webapp", source="add-awi")

    d.item(
        "plan-missing", _ago(0, 19, 14, 2), "opentelemetry-tracing-api",
        "Introduce OpenTelemetry tracing across API handlers", """
Instrument HTTP handlers, database calls and outgoing HTTP requests with OpenTelemetry and export spans to the collector run by acme/infra. Steps and verification are in the plan file.
""", state="inbox", repo="acme/api", source="plan-and-add-awi", plan="otel-tracing")

    defective_created = now - _ago(0, 17, 33, 8)
    d.item(
        "defective", _ago(0, 17, 33, 8), "postgres-17-docker-compose",
        "ローカル開発用 docker-compose の Postgres を 17 に上げる", """
- 反映内容: `docker-compose.yml` の `postgres:15` を `postgres:17` に上げ、初期化スクリプトを合わせる
- 反映先: acme/api の `docker-compose.yml`、`scripts/db-init.sql`
- 理由: 本番が 17 に上がり、ローカルとの差で `MERGE ... RETURNING` を使うテストがローカルだけ失敗する
- メリット: ローカルと本番の挙動が揃う
- デメリット: 既存のローカル DB ボリュームの作り直しが必要
- 完成条件: `docker compose up` 後の `SELECT version()` が 17 系を返し、テストがローカルで成功する
""", state="inbox", repo="acme/api",
        # hand-written and committed outside atk: `acme/api: local` is a YAML error
        raw_fm=f"kind: awi\ntarget_repo: acme/api: local\ncreated: {_iso_z(defective_created)}\n",
        add_message="add postgres 17 request (hand-written)")

    d.item(
        "cp-single", _ago(0, 15, 2, 44), "staging-spot-instances", "Should staging move to spot instances?", """
Found while reviewing the November AWS bill for acme/infra.

AWAITING_USER_INPUT
---
Urgency: next-review
Context: Staging is 38% of the AWS bill this month. Its EKS node group runs three on-demand m6i.xlarge nodes around the clock, while the workloads are idle outside office hours. Spot capacity for m6i/m7i in ap-northeast-1 was interrupted twice in the last 30 days according to the spot advisor.
Decision needed: Should the staging EKS node group move to spot instances?
Options:
  A) Spot only -- about 60% cheaper; a node can be reclaimed with two minutes' notice, so a deploy may need a retry
  B) Mixed (one on-demand node plus spot) -- about 45% cheaper; the ingress controller stays on the on-demand node
  C) Keep on-demand -- no change in cost or behaviour
Recommendation: B) Mixed, because the ingress should survive a reclaim while most of the saving is kept
---
""", state="inbox", repo="acme/infra", kind="uwi", source="process-wi", urgency="next-review")

    d.item(
        "hand-svg-logo", _ago(0, 13, 40, 6), "header-logo-svg", "ヘッダーのロゴを SVG に差し替える", """
- 反映内容: ヘッダーのロゴ画像を PNG (2 種の解像度) から単一の SVG に替える
- 反映先: acme/webapp の `src/layout/Header.tsx`、`public/logo*.png`
- 理由: 高解像度ディスプレイでロゴがぼやけ、ブランドチームから指摘があった
- メリット: どの解像度でも鮮明になり、画像が 1 枚で済む
- デメリット: なし
- 完成条件: ヘッダーのロゴが SVG で表示され、PNG のロゴファイルがリポジトリから消えている
""", state="inbox", repo="acme/webapp")

    d.item(
        "cp-multi", _ago(0, 9, 18, 27), "checkout-e2e-setup", "E2E test setup for the checkout redesign", """
AWAITING_USER_INPUT
---
Urgency: blocking
Context: Setting up end-to-end tests for the checkout redesign (behind the checkout-redesign flag). acme/webapp has smoke tests in e2e/ written for Cypress, while acme/admin uses Playwright. The choice decides the CI image and where the new tests live.
Decisions needed:

1. Which E2E framework?
   A) Playwright -- already used by acme/admin; runs Chromium, Firefox and WebKit in one job
   B) Cypress -- matches the existing smoke tests, but only Chromium-family browsers on our plan
   Recommendation: A) Playwright, so both apps share one CI image and one set of helpers

2. Where do the tests live?
   A) Colocated (src/checkout/__e2e__/) -- next to the feature code, easy to keep in sync
   B) Top-level (e2e/checkout/) -- matches the existing smoke tests
   Recommendation: B) Top-level, to match the existing smoke tests
---
""", state="inbox", repo="acme/webapp", kind="uwi", source="process-wi", urgency="blocking")

    d.item(
        "agent-index", _ago(0, 7, 5, 50), "orders-created-at-index", "Add an index on orders(created_at) for the daily report", """
- 反映内容: Add a B-tree index on `orders(created_at)` with a migration that uses `CREATE INDEX CONCURRENTLY`
- 反映先: acme/api, `migrations/`
- 理由: The daily report query does a sequential scan over 41 M rows and takes 94 s (EXPLAIN ANALYZE in the session log); the report times out twice a week
- 適用範囲: Queries that filter orders by a `created_at` range; the scan depends on the missing index, not on the report. Observed in the daily report; the admin "orders this week" widget runs the same range filter from a different code path
- メリット: The report runs in under 2 s; the widget gets faster too
- デメリット: About 900 MB more disk and slightly slower inserts
- 完成条件: The daily report query uses an index scan and finishes under 5 s on production data; no application code change is required
""", state="inbox", repo="acme/api", source="process-wi", target_commit=_sha("api", "orders-report"))

    d.item(
        "cooldown", _ago(0, 6, 21, 9), "retry-terraform-aws-provider-6", "Terraform AWS provider 6.x への更新を再試行する", """
- 反映内容: `envs/*/versions.tf` の AWS provider を 5.x から 6.x へ上げ、`terraform plan` の差分がないことを確認して適用する
- 反映先: acme/infra
- 理由: 前回の試行は Terraform Registry からのダウンロードがレート制限 (HTTP 429) で失敗した。レスポンスの `Retry-After` が 10800 秒を示しており、時間経過で解除される
- 適用範囲: Registry からの provider 取得を伴う全環境。失敗は取得元のレート制限に依存し、環境名には依存しない。観測は `envs/staging`、表面の異なる該当例として CI の `terraform init` がある
- メリット: provider 5.x のサポート終了前に移行できる
- デメリット: なし (差分がないことを確認してから適用する)
- 完成条件: 全環境の `terraform plan` が差分なしで、`terraform version` が provider 6.x を示す
""", state="inbox", repo="acme/infra", source="process-wi",
        cooldown=(now + _ago(0, 3, 0, 0)).astimezone(JST).replace(minute=0, second=0) + _ago(h=1))

    d.item(
        "md-multi", _ago(0, 5, 0, 12), "api-error-response-format", "API のエラーレスポンス形式を統一するための確認 (3 件)", """
## 背景
セッションレビューで、acme/api のエラーレスポンスが 3 形式 (`{error: string}`、`{message, code}`、RFC 7807 の `application/problem+json`) 混在していることを確認した。統一する形式、移行の進め方、エラーコードの命名を決めないと、新しいエンドポイントの実装がまた別の形式を増やす。

## 質問 1
統一するエラー形式をどれにしますか。

- A) RFC 7807 (problem+json) -- 標準形式でクライアントライブラリの対応がある。`type` URI の管理が必要
- B) 独自形式 `{code, message, details}` -- 単純。外部の慣習とは合わない

推奨: A) 標準に寄せれば外部パートナーへの説明が不要になるため

## 質問 2
既存エンドポイントの移行はどう進めますか。

- A) 一括切り替え -- 次のメジャーで全エンドポイントを変える。クライアントの同時更新が必要
- B) `Accept` ヘッダーで選択 -- 旧形式を当面残す。実装が二重になる
- C) 新規エンドポイントだけ -- 既存は変えない。混在は解消しない

推奨: B) モバイルアプリの更新を待たずに移行を始められるため

## 質問 3
エラーコードの命名規則はどれにしますか。

- A) `snake_case` (例: `session_expired`) -- 既存の 60% がこの形
- B) `UPPER_SNAKE` (例: `SESSION_EXPIRED`) -- 決済プロバイダーの形式と揃う

推奨: A) 既存コードの変更が少ないため
""", state="inbox", repo="acme/api", kind="uwi", source="session-review", urgency="next-review")

    d.item(
        "post-approval", _ago(0, 3, 11, 38), "approve-staging-db-password-rotation",
        "Approve the staging DB password rotation I already performed?", """
## Context
While fixing the failing staging deploy (acme/infra#88) I found the staging Postgres password printed in a CI log that every org member can read. I rotated the password, stored the new one in AWS Secrets Manager (`staging/db`), and restarted the api deployment. Staging is healthy and the CI log has been deleted.

How to revert: make the previous secret version current again with `aws secretsmanager update-secret-version-stage --secret-id staging/db --version-stage AWSCURRENT --move-to-version-id <previous-version-id>`, then `kubectl -n staging rollout restart deploy/api`. The previous version id is in the secret's version list.

## Question
Do you approve keeping the rotation?

- A) Approve -- keep the new password; nothing else to do
- B) Revert -- I restore the previous secret version and restart the pods; the leaked password becomes valid again

Recommendation: A) the old password was exposed and should not be valid anywhere
""", state="inbox", repo="acme/infra", kind="uwi", source="process-wi", urgency="informational")

    d.item(
        "free-text", _ago(0, 2, 4, 59), "sla-page-support-hours", "What support hours should the public SLA page state?", """
## Context
The new SLA page in acme/docs needs the support hours. The sales deck says "24/7", the support team's rota covers 09:00-21:00 JST on weekdays, and the contract template says "business hours".

## Question
What support hours should the SLA page state, and should weekends be mentioned explicitly?
""", state="inbox", repo="acme/docs", kind="uwi", source="session-review")

    return d


def _normalise_now(now: datetime | None) -> datetime:
    if now is None:
        now = datetime.now(UTC)
    elif now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    return now.astimezone(UTC).replace(microsecond=0)


def demo_filenames(now: datetime) -> dict[str, str]:
    """The filename of every demo item by key (see the module docstring), for `now`."""
    d = _build(_normalise_now(now))
    return {key: it.filename for key, it in d.items.items()}


def create_demo_store(base: Path, now: datetime | None = None, *, feedback_queue: bool = False) -> Path:
    """Create `base/remote.git` (bare) and `base/store` (its clone, pushed); return the store.

    The content is deterministic given `now` (default: the current time); every timestamp in
    it, file names included, is relative to `now`.
    """
    now = _normalise_now(now)
    base = Path(base)
    base.mkdir(parents=True, exist_ok=True)
    remote = base / "remote.git"
    store = base / "store"
    if remote.exists() or store.exists():
        raise FileExistsError(f"{base} already holds a demo store (remote.git or store exists)")

    demo = _build(now)
    init = (
        now - _ago(30, 2),
        "atk: init\n\nAtk-Actor: user\n",
        {f"wi/{state}/.gitkeep": "" for state in ("inbox", "processing", "hold", "adopted", "rejected")},
    )
    stream = _fast_import_stream([init, *demo.commits()])

    _git("-c", "init.defaultBranch=main", "init", "-q", "--bare", str(remote))
    _git("-c", "init.defaultBranch=main", "clone", "-q",
         "-c", f"user.name={AUTHOR_NAME}", "-c", f"user.email={AUTHOR_EMAIL}",
         str(remote.resolve()), str(store))
    _git("symbolic-ref", "HEAD", "refs/heads/main", cwd=store)
    _git("fast-import", "--quiet", "--date-format=raw", cwd=store, input=stream)
    _git("reset", "-q", "--hard", "main", cwd=store)
    _git("push", "-q", "-u", "origin", "main", cwd=store)
    if feedback_queue:  # the mq queue, written through the service (demo_mq.py)
        from .demo_mq import add_feedback_queue

        add_feedback_queue(store, now, wi_dependency=demo.items["adopt-429"].filename)
    return store.resolve()


def demo_main() -> Path:
    """Create a demo store in a fresh temporary directory and return the store path."""
    return create_demo_store(Path(tempfile.mkdtemp(prefix="atk-demo-")), feedback_queue=True)


if __name__ == "__main__":  # pragma: no cover
    print(demo_main())
