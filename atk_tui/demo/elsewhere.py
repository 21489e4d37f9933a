"""The demo's "Needs you, elsewhere" (`E`): sample afkkit escalations and a ready queue, saved
as the last look at GitHub, so the demo shows what `E` is for without gh or a network (the
demo never looks at GitHub: `atk-tui --demo` starts the dashboard with `look_elsewhere` off)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from atk_tui.service.elsewhere.afkkit import Elsewhere, ReadyIssue, ReadyQueue, Waiting, save

SAMPLE_NOTE = "the demo's sample rows, not read from GitHub"


def sample_elsewhere(now: datetime) -> Elsewhere:
    def gh(repo: str, kind: str, n: int) -> str:
        return f"https://github.com/{repo}/{'pull' if kind == 'pr' else 'issues'}/{n}"

    waiting = [
        Waiting("acme/api", 1251, "issue", "blocked", "Rate-limit the public search endpoint per API key",
                gh("acme/api", "issue", 1251), now - timedelta(hours=5),
                reason="Which limit should anonymous keys get? The plan leaves it open.",
                comment="## Stopped: a decision is needed\n\nWhich limit should anonymous keys get? The plan leaves it open.\n\n"
                        "- A) 60 requests a minute, as the docs promise\n- B) 10 a minute until the abuse report is closed\n"),
        Waiting("acme/webapp", 488, "issue", "needs-planning", "Move the settings page to the new form components",
                gh("acme/webapp", "issue", 488), now - timedelta(days=1, hours=2),
                reason="The issue names three pages; the plan needs to say which come first."),
        Waiting("acme/api", 1258, "pr", "in-review", "Return 503 with Retry-After while the database fails over",
                gh("acme/api", "pr", 1258), now - timedelta(hours=3), issue=1240),
    ]
    ready = [
        ReadyQueue("acme/api", (
            ReadyIssue("acme/api", 1262, "Log the request ID in every 5xx response", gh("acme/api", "issue", 1262),
                       now - timedelta(hours=7), "priority:high", 1, 1),
            ReadyIssue("acme/api", 1265, "Drop the unused /v0 health check", gh("acme/api", "issue", 1265),
                       now - timedelta(days=2), None, None, 2),
        ), by_priority=True, open_prs=1),
    ]
    return Elsewhere(fetched=now - timedelta(minutes=3), repos=["acme/api", "acme/webapp"], waiting=waiting, ready=ready,
                     problem=SAMPLE_NOTE)


def save_sample_elsewhere(store: Path, now: datetime) -> None:
    save(store / ".git", sample_elsewhere(now))
