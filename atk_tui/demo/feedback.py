"""The demo store's feedback queue (SPEC §12, `atk-tui --demo`).

Written through the product's own service (`Service(queue="mq")`): every item is an
`atk: <op> …` commit with its `Atk-Actor`, exactly as agents and the user would make it.
Filenames are deterministic given `now`:

- `tbd-tone` (unanswered, blocking) <- `fb-login-copy` and `fb-signup-copy`
- `fb-retry-plan` (plan-type, its plan committed under plans/) in processing
- `fb-editing` in `editing` (the user is editing it in the dashboard)
- `fb-planning` in `planning` (its plan is being written; seen only with --status=planning)
- `fb-cross` depends on a wi item (dependencies cross queues)
- `tbd-answered` (answered) <- `fb-after-answer` (ready: an answered TBD counts as satisfied)
"""

from __future__ import annotations

import tempfile
from datetime import datetime, timedelta
from pathlib import Path

_TBD_TONE = """\
# Which tone should error messages take (エラーメッセージの語調)?

## 背景
ログイン画面と会員登録画面のフィードバックが、どちらもエラーメッセージの書き換えを求めている。語調が決まらないと両方の文言を確定できない。

## 質問
エラーメッセージの語調はどちらに揃えますか。

- A) 簡潔な事実のみ (例: 「パスワードが違います」) -- 短く、翻訳しやすい
- B) 丁寧な案内付き (例: 「パスワードが違うようです。もう一度お試しください」) -- 親切だが長い

推奨: A) 画面幅の狭い端末でも 1 行に収まる
"""

_FB_LOGIN = """\
# Shorten the login error message (ログイン失敗時のメッセージを短く)

- 反映内容: ログイン失敗時の 3 文のエラーメッセージを 1 文にする
- 反映先: acme/webapp の `src/auth/messages.ts`
- 理由: 利用者が 3 文を読まずに問い合わせてくる (先月 41 件)
- 適用範囲: ログイン画面のエラーメッセージ全般。語調は TBD の回答に従う
- メリット: 問い合わせが減る
- デメリット: 翻訳の更新が要る
- 完成条件: ログイン失敗時のメッセージが 1 文で表示される
"""

_FB_SIGNUP = """\
# Align the signup error messages with login (会員登録の文言を揃える)

- 反映内容: 会員登録フォームのエラーメッセージをログイン画面と同じ語調・長さに揃える
- 反映先: acme/webapp の `src/signup/messages.ts`
- 理由: 画面ごとに語調が違うとの指摘 (ユーザーテスト 5 人中 3 人)
- 適用範囲: 会員登録フォームの全エラー。語調は TBD の回答に従う
- メリット: 一貫した体験
- デメリット: なし
- 完成条件: 会員登録の全エラーメッセージがログイン画面と同じ語調で表示される
"""

_FB_RETRY = """\
# Retry failed webhook deliveries with exponential backoff

Plan-type feedback: the steps and checks are in the plan file.
"""

_PLAN_RETRY = """\
# Plan: webhook retries with exponential backoff

1. Add a `retry_at` column to `webhook_deliveries`.
2. A worker picks due deliveries; delays 1 m, 5 m, 30 m, 2 h, then gives up.
3. Metrics: `webhook_retry_total`, `webhook_gave_up_total`.

Checks: a receiver returning 500 three times gets the fourth delivery; no delivery is retried after a 2xx.
"""

_FB_EDITING = """\
# Explain the 2FA recovery codes on the settings page

- 反映内容: add one paragraph explaining what recovery codes are and where to keep them
- 反映先: acme/webapp settings page
- 理由: support tickets ask what the codes are for
- 完成条件: the settings page shows the paragraph above the codes
"""

_FB_PLANNING = """\
# Split the nightly export into per-tenant jobs

The nightly export times out for the three largest tenants. A plan is being written.
"""

_FB_CROSS = """\
# Document the new rate-limit headers in the public API guide

- 反映内容: describe `Retry-After` and the 429 response in the API guide
- 反映先: acme/docs `api/rate-limits.md`
- 理由: the API now returns 429 (see the wi item it depends on)
- 完成条件: the guide shows a 429 example with `Retry-After`
"""

_TBD_ANSWERED = """\
# Should the changelog list internal refactors?

## 質問
Should internal refactors appear in the public changelog?

- A) No -- user-visible changes only
- B) Yes -- in a separate "Internal" section

推奨: A) the changelog is read by customers
"""

_FB_AFTER = """\
# Drop internal refactors from CHANGELOG.md

- 反映内容: remove the refactor entries from the last three releases' changelog
- 反映先: acme/webapp `CHANGELOG.md`
- 理由: customers read it; refactors are noise to them
- 完成条件: CHANGELOG.md lists only user-visible changes
"""


class _Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def add_feedback_queue(store: Path | str, now: datetime, wi_dependency: str | None = None) -> dict[str, str]:
    """Fill the demo store's `mq/` queue (see the module doc); returns key -> filename.
    `wi_dependency`: a wi item's filename `fb-cross` depends on (none: no cross-queue edge)."""
    from atk_tui.service import Service
    from atk_tui.service.writing.plans import commit_plans

    clock = _Clock(now - timedelta(hours=6))

    def svc(actor: str) -> Service:
        return Service(store, clock=clock, actor=actor, queue="mq", use_cache=False)

    agent, user = svc("agent"), svc("user")
    names: dict[str, str] = {}

    def add(key: str, body: str, *, kind: str = "feedback", repo: str = "acme/webapp", **kw) -> str:
        out = agent.writes.add(kind=kind, target_repo=repo, body=body, source="add-feedback", **kw)
        if not out.ok:
            raise RuntimeError(f"demo: {key}: {out.message}")
        names[key] = out.files[0]
        clock.now += timedelta(minutes=7)
        return names[key]

    def check(out) -> None:
        if not out.ok:
            raise RuntimeError(f"demo: {out.op}: {out.message}")

    tone = add("tbd-tone", _TBD_TONE, kind="tbd")
    add("fb-login-copy", _FB_LOGIN, depends_on=[tone])
    add("fb-signup-copy", _FB_SIGNUP, depends_on=[tone])
    with tempfile.TemporaryDirectory(prefix="atk-demo-plans-") as tmp:
        plan = Path(tmp) / "webhook-retries.md"
        plan.write_text(_PLAN_RETRY, encoding="utf-8")
        check(commit_plans(agent, [str(plan)], Path(tmp)))
    month = f"{clock.now:%Y/%m}"
    retry = add("fb-retry-plan", _FB_RETRY, repo="acme/api",
                plan_file=f"$(atk config get private_notes)/plans/{month}/webhook-retries.md")
    check(agent.writes.transition("start-processing", [retry]))
    editing = add("fb-editing", _FB_EDITING)
    check(user.writes.move([editing], "editing", expect="inbox"))
    add("fb-planning", _FB_PLANNING, repo="acme/api", state="planning")
    add("fb-cross", _FB_CROSS, repo="acme/docs", depends_on=[wi_dependency] if wi_dependency else [])
    answered = add("tbd-answered", _TBD_ANSWERED, kind="tbd", urgency="next-review")
    add("fb-after-answer", _FB_AFTER, depends_on=[answered])
    check(user.answers.answer(answered, choices={1: "A"}, text="Keep it for customers."))
    return names
