"""The triage screen's status line: the store, when it was last in step with its remote, the
sort, the queue switch, the filter, a running process loop, the marks; then what goes wrong or
waits (a hook running, set-aside conflicts, the store lock, a failed sync, the last error)."""

from __future__ import annotations

from typing import Protocol

from rich.text import Text

from atk_tui.domain.ages import ago
from atk_tui.service import hub_footer
from atk_tui.text.textsafe import safe_line


class Shown(Protocol):
    """What the status line reads of the triage screen."""

    sort_mode: str
    queue_view: str | None
    filter_text: str

    def filter_hint(self) -> str: ...
    def marked(self) -> list[str]: ...


def status_line(app, screen: Shown) -> Text:  # (app: the dashboard's, which imports this module)
    parts = [f"store {app.store_label}", *filter(None, [hub_footer(app.service.root)])]  # `atk hub`, SPEC §16
    if app.last_pull:
        parts.append(f"synced {ago(app.last_pull, app.service.clock())}")
    if app.unpushed:
        parts.append(f"{app.unpushed} unpushed")
    if getattr(app, "behind", 0):
        parts.append(f"{app.behind} behind")
    parts.append(f"sort {screen.sort_mode}")
    if screen.queue_view is not None:
        parts.append(f"queue {screen.queue_view} only (Q)")
    if screen.filter_text:
        parts.append(f"filter '{screen.filter_text}'")
        hint = screen.filter_hint()
        if hint:
            parts.append(hint)
    loop = getattr(app, "loop_status", None)
    if loop:
        last = loop.get("last_exit")
        running = [r for r in loop.get("running") or [] if isinstance(r, dict)]
        repos = ", ".join(sorted({str(r.get("repo")) for r in running if r.get("repo")}))
        parts.append(f"loop: {len(running)} running" + (f" ({repos})" if repos else "") + ("" if last is None else f", last exit {last}"))
    marked = len(screen.marked())
    if marked:  # said until the marks are cleared, whatever redraws the line (a refresh, a filter)
        k = app.key_for
        parts = [f"{marked} marked: {k('hold')} hold · {k('unhold')} unhold · {k('move')} move · {k('remove')} remove · Esc clears marks"]
    status = Text(" · ".join(safe_line(p) for p in parts))
    spinner = app.spinner
    if spinner.what and spinner.frame:  # a slow hook: what the write is waiting for
        status = Text.assemble((f"{spinner.frame} running the {spinner.what}…", "bold"), " · ", status)
    if app.conflicts:
        n = app.conflicts
        status.append(f"  ⚠ {n} set-aside conflict{'s' if n != 1 else ''}: C resolves", style="bold yellow")
    if getattr(app, "lock_wait", None):
        status.append("  " + safe_line(app.lock_wait), style="bold reverse")
    if getattr(app, "sync_error", ""):
        status.append("  ✗ sync failed: " + safe_line(app.sync_error), style="bold red")
    if app.last_error:
        status.append("  ✗ " + safe_line(app.last_error), style="bold red")
    return status
