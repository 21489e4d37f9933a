"""Stuck work (issue 15): items in processing for days, and answered questions nobody picked
up. "Since" is when the item's file last changed in git in its current state (the move into
processing, the answer), so it needs no frontmatter field."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from atk_tui.store import item_path

STUCK_AFTER = timedelta(days=2)


@dataclass(frozen=True)
class Stuck:
    filename: str
    title: str
    state: str
    since: datetime | None
    why: str


def _last_change(svc: Any, path: str) -> datetime | None:
    proc = svc.store.git("log", "-1", "--format=%cI", "--", path, check=False)
    text = (proc.stdout or "").strip()
    try:
        return datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def stuck_items(svc: Any, view: Any, *, after: timedelta | None = None) -> list[Stuck]:
    """Processing items untouched for `after` or longer, and answered UWIs in the inbox
    waiting as long for an agent to pick them up; the longest-waiting first."""
    now = view.now
    after = after if after is not None else STUCK_AFTER
    found: list[Stuck] = []
    for item in view.items.values():
        j = view.judgements.get(item.filename)
        if item.state == "processing":
            why = "processing"
        elif item.state == "inbox" and item.is_question and j is not None and j.status == "answered":
            why = "answered, not picked up"
        else:
            continue
        since = _last_change(svc, item_path(item.state, item.filename, item.queue))  # either queue
        if since is None or now - since >= after:
            days = f"{(now - since).days}d" if since else "?"
            found.append(Stuck(item.filename, item.title, item.state, since, f"{why} for {days}"))
    found.sort(key=lambda s: (s.since is not None, s.since or now))
    return found
