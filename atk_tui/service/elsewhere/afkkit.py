"""Needs you, elsewhere (issue 31): what the afkkit runs left waiting for the person on GitHub.

afkkit (the away-from-keyboard runner the agents use on GitHub) stops a run it cannot finish without
opening a PR: it comments the exact stop state on the issue and labels it for whoever must act
(`needs-planning`: a decision is missing; `blocked`: "Blocked by #N"; or it leaves the issue
`in-progress` with a comment naming the failed command). A run that succeeds opens a PR and
moves its issue to `in-review`, where the person reviews and merges. Before a batch (`afkkit
all`) it shows the `ready` queue in its run order: priority labels high first, the same level
oldest update first, unrated last (by age alone when no issue has a priority label).

This module reads that through the GitHub CLI, read-only: `gh issue list`, `gh pr list` and
`gh issue view --comments`, each with `--json` and a time limit (`procs.Children`). The one
other command it runs is `gh issue|pr view --web` (gh opens the page in the browser). Nothing
is ever written to GitHub. gh's output is untrusted: parsed defensively here (a field of the
wrong type is dropped, never trusted), shown by the front ends through `textsafe`.

The last look is kept in the store's `.git/atk-cache/` (`CACHE_NAME`), beside the dashboard's
other caches: the repositories come from this store's items, the folder is never committed and
may always be deleted, and each store has its own. The dashboard starts from it without asking
GitHub, showing how old it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from atk_tui.host.settings import TABLE, read_table
from atk_tui.service.elsewhere.afkrules import _SAFE_URL, BLOCKED_BY
from atk_tui.service.elsewhere.afkrules import ORDER_BY_AGE as ORDER_BY_AGE
from atk_tui.service.elsewhere.afkrules import ORDER_BY_PRIORITY as ORDER_BY_PRIORITY
from atk_tui.service.elsewhere.afkrules import STOP_MARKERS as STOP_MARKERS
from atk_tui.service.elsewhere.afkrules import first_line as first_line
from atk_tui.service.elsewhere.afkrules import github_repo as github_repo
from atk_tui.service.elsewhere.afkrules import is_stop_report as is_stop_report
from atk_tui.service.elsewhere.afkrules import priority_of as priority_of
from atk_tui.service.elsewhere.ghclient import GH_ENV as GH_ENV
from atk_tui.service.elsewhere.ghclient import GH_MAX_DEPTH as GH_MAX_DEPTH
from atk_tui.service.elsewhere.ghclient import GH_MAX_OUTPUT as GH_MAX_OUTPUT
from atk_tui.service.elsewhere.ghclient import HOW_TO_INSTALL as HOW_TO_INSTALL
from atk_tui.service.elsewhere.ghclient import HOW_TO_LOG_IN as HOW_TO_LOG_IN
from atk_tui.service.elsewhere.ghclient import Gh as Gh
from atk_tui.service.elsewhere.ghclient import GhProblem as GhProblem

#: the labels afkkit leaves an issue with for the person, in the order a row takes its label
#: when an issue has more than one
WAITING_LABELS = ("needs-planning", "blocked", "in-progress", "in-review")
READY, STACKED = "ready", "stacked"
CACHE_NAME = "elsewhere"  # .git/atk-cache/elsewhere.cache (cache/files.py)

#: the `[elsewhere]` table of the config file: key -> default (declared in `host.settings`)
DEFAULTS: dict[str, Any] = {k.name: k.default for k in TABLE["elsewhere"].keys}
#: a rate limit backs off this long, doubling while it lasts, up to `BACKOFF_MAX`
BACKOFF_FIRST, BACKOFF_MAX = timedelta(minutes=5), timedelta(hours=1)
#: at most this many issues (or PRs) a `gh … list` returns per label
LIST_LIMIT = 100
#: a comment kept for the detail is cut to this many characters
COMMENT_MAX = 20_000
TITLE_MAX = 300

# -- what the view shows ------------------------------------------------------------------------


def _iso(t: datetime | None) -> str | None:
    return t.isoformat() if t is not None else None


def _time(value: object) -> datetime | None:
    """A time gh printed (`2026-11-27T09:12:45Z`), None when it is not one."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        t = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Waiting:
    """One row: an issue afkkit left for the person, or the open PR of an `in-review` one."""

    repo: str
    number: int
    kind: str  # "issue" or "pr"
    label: str  # one of WAITING_LABELS
    title: str
    url: str
    since: datetime | None  # waiting since: the stop report, the PR's opening, else the last update
    reason: str = ""  # the first line of the stop reason
    comment: str = ""  # the stop report (Markdown), for the detail
    comment_url: str = ""
    issue: int | None = None  # a PR's in-review issue
    updated: str | None = None  # the issue's updatedAt when its comments were read (cache only)

    @property
    def key(self) -> str:
        return f"{self.repo}#{self.number}"

    def as_json(self, now: datetime | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {
            "repo": self.repo,
            "number": self.number,
            "kind": self.kind,
            "label": self.label,
            "title": self.title,
            "url": self.url,
            "since": _iso(self.since),
            "reason": self.reason,
            "issue": self.issue,
            "comment_url": self.comment_url or None,
        }
        if now is not None and self.since is not None:
            d["waited_seconds"] = max(int((now - self.since).total_seconds()), 0)
        return d

    def to_cache(self) -> dict[str, Any]:
        return {**self.as_json(), "comment": self.comment, "updated": self.updated}

    @classmethod
    def from_cache(cls, d: dict[str, Any]) -> Waiting:
        return cls(
            repo=str(d["repo"]), number=int(d["number"]), kind=str(d["kind"]), label=str(d["label"]),
            title=str(d["title"]), url=str(d["url"]), since=_time(d.get("since")), reason=str(d.get("reason") or ""),
            comment=str(d.get("comment") or ""), comment_url=str(d.get("comment_url") or ""),
            issue=d["issue"] if isinstance(d.get("issue"), int) else None, updated=d.get("updated") if isinstance(d.get("updated"), str) else None,
        )  # fmt: skip


@dataclass(frozen=True)
class ReadyIssue:
    """An issue of the ready queue, at its place in afkkit's run order."""

    repo: str
    number: int
    title: str
    url: str
    updated: datetime | None
    priority: str | None  # the priority label, None: unrated
    level: int | None
    order: int | None  # 1-based place in the run; None: `afkkit all` skips it (`skipped` says why)
    skipped: str = ""

    @property
    def key(self) -> str:
        return f"{self.repo}#{self.number}"

    def as_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo, "number": self.number, "title": self.title, "url": self.url, "updated": _iso(self.updated),
            "priority": self.priority, "order": self.order, "skipped": self.skipped or None,
        }  # fmt: skip

    @classmethod
    def from_cache(cls, d: dict[str, Any]) -> ReadyIssue:
        order, label = d.get("order"), d.get("priority")
        prio = priority_of([label]) if isinstance(label, str) else None
        return cls(
            repo=str(d["repo"]), number=int(d["number"]), title=str(d["title"]), url=str(d["url"]), updated=_time(d.get("updated")),
            priority=prio[1] if prio else None, level=prio[0] if prio else None,
            order=order if isinstance(order, int) else None, skipped=str(d.get("skipped") or ""),
        )  # fmt: skip


@dataclass(frozen=True)
class ReadyQueue:
    """One repository's ready queue as `afkkit all` would take it."""

    repo: str
    issues: tuple[ReadyIssue, ...]
    by_priority: bool  # False: no issue has a priority label, the order is by age
    open_prs: int | None = None  # open PRs now (afkkit says so before the queue: each run adds one)

    @property
    def rule(self) -> str:
        return ORDER_BY_PRIORITY if self.by_priority else ORDER_BY_AGE

    def as_json(self) -> dict[str, Any]:
        return {"repo": self.repo, "by_priority": self.by_priority, "rule": self.rule, "open_prs": self.open_prs,
                "issues": [i.as_json() for i in self.issues]}  # fmt: skip

    @classmethod
    def from_cache(cls, d: dict[str, Any]) -> ReadyQueue:
        prs = d.get("open_prs")
        return cls(repo=str(d["repo"]), issues=tuple(ReadyIssue.from_cache(i) for i in d.get("issues") or []),
                   by_priority=bool(d.get("by_priority")), open_prs=prs if isinstance(prs, int) else None)  # fmt: skip


def run_order(repo: str, issues: Sequence[dict[str, Any]], open_prs: int | None = None) -> ReadyQueue:
    """The ready issues (`gh issue list --label ready` records) in afkkit's run order: priority
    high first, the same level the oldest update first, unrated last; by age alone when none is
    rated. `stacked` issues are listed apart: `afkkit all` skips them."""
    rows = []
    for rec in issues:
        names = _label_names(rec)
        prio = priority_of(names)
        rows.append((rec, names, prio))
    by_priority = any(prio is not None for _, _, prio in rows)
    far = datetime.max.replace(tzinfo=UTC)

    def key(row: tuple[dict[str, Any], list[str], tuple[int, str] | None]) -> tuple[int, datetime, int]:
        rec, _, prio = row
        return (prio[0] if prio is not None else 99, _time(rec.get("updatedAt")) or far, rec["number"])

    taken: list[ReadyIssue] = []
    skipped: list[ReadyIssue] = []
    for rec, names, prio in sorted(rows, key=key):
        issue = ReadyIssue(
            repo=repo, number=rec["number"], title=_title(rec), url=_url(rec, repo, "issues"), updated=_time(rec.get("updatedAt")),
            priority=prio[1] if prio else None, level=prio[0] if prio else None, order=None,
        )  # fmt: skip
        if STACKED in names:
            skipped.append(replace(issue, skipped="stacked: `afkkit all` skips stacked issues (run it by number)"))
        elif any(n in names for n in WAITING_LABELS):
            skipped.append(replace(issue, skipped=f"also labelled {next(n for n in WAITING_LABELS if n in names)}"))
        else:
            taken.append(replace(issue, order=len(taken) + 1))
    return ReadyQueue(repo=repo, issues=tuple(taken + skipped), by_priority=by_priority, open_prs=open_prs)


@dataclass
class Elsewhere:
    """The last look at GitHub: the rows, the ready queues, and what went wrong."""

    fetched: datetime | None = None  # when the rows were read (None: never)
    repos: list[str] = field(default_factory=list)
    waiting: list[Waiting] = field(default_factory=list)
    ready: list[ReadyQueue] = field(default_factory=list)
    #: one line for the whole look (gh missing, logged out, rate limited), "" when none
    problem: str = ""
    problem_kind: str = ""  # "missing", "auth", "rate", "" (see GhProblem)
    repo_errors: dict[str, str] = field(default_factory=dict)  # repository -> why it could not be read
    skipped: list[str] = field(default_factory=list)  # target_repo values that name no GitHub repository
    backoff_until: datetime | None = None  # no look at GitHub before this (a rate limit)
    backoff: float = 0.0  # seconds of the current backoff (doubles while the limit lasts)
    #: issue key -> its updatedAt when its comments were read and it was found not waiting (an
    #: `in-progress` issue whose latest comment is no stop report): not read again until it changes
    checked: dict[str, str] = field(default_factory=dict)

    def age(self, now: datetime) -> str:
        """`as of 5m ago`, `never looked`."""
        from atk_tui.domain.ages import ago

        return f"as of {ago(self.fetched, now)}" if self.fetched is not None else "never looked"

    def summary(self, now: datetime) -> str:
        """One line about the data: its age, and why it may be old."""
        parts = [self.age(now)]
        if self.problem:
            parts.append(self.problem)
        for repo, error in sorted(self.repo_errors.items()):
            parts.append(f"{repo}: {error}")
        return " · ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "fetched": _iso(self.fetched), "repos": self.repos, "waiting": [w.to_cache() for w in self.waiting],
            "ready": [q.as_json() for q in self.ready], "problem": self.problem, "problem_kind": self.problem_kind,
            "repo_errors": self.repo_errors, "skipped": self.skipped, "backoff_until": _iso(self.backoff_until),
            "backoff": self.backoff, "checked": self.checked,
        }  # fmt: skip

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Elsewhere:
        errors = d.get("repo_errors") if isinstance(d.get("repo_errors"), dict) else {}
        checked = d.get("checked") if isinstance(d.get("checked"), dict) else {}
        return cls(
            fetched=_time(d.get("fetched")), repos=[str(r) for r in d.get("repos") or []],
            waiting=[Waiting.from_cache(w) for w in d.get("waiting") or []],
            ready=[ReadyQueue.from_cache(q) for q in d.get("ready") or []],
            problem=str(d.get("problem") or ""), problem_kind=str(d.get("problem_kind") or ""),
            repo_errors={str(k): str(v) for k, v in errors.items()}, skipped=[str(s) for s in d.get("skipped") or []],
            backoff_until=_time(d.get("backoff_until")), backoff=float(d.get("backoff") or 0.0),
            checked={str(k): str(v) for k, v in checked.items()},
        )  # fmt: skip


# -- settings -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    repos: tuple[str, ...] = ()
    interval: float = DEFAULTS["interval"]  # seconds between the dashboard's looks; 0: only on `u`
    timeout: float = DEFAULTS["timeout"]  # seconds each gh command may take
    errors: tuple[str, ...] = ()


def settings(cfg: dict[str, Any] | None = None) -> Settings:
    """The `[elsewhere]` table of the config file; a bad value is reported (`errors`) and the
    default used:

        [elsewhere]
        repos = ["acme/web"]   # looked at besides the queue's target_repo values
        interval = 300         # seconds between the dashboard's looks (0: only on `u`)
        timeout = 20           # seconds each gh command may take
    """
    from atk_tui.host.config import ConfigError, load_config

    if cfg is None:
        try:
            cfg = load_config()
        except ConfigError as exc:
            return Settings(errors=(f"{exc}; [elsewhere] uses its defaults",))
    got = read_table("elsewhere", cfg if isinstance(cfg, dict) else {})
    errors, repos = got.errors, []
    for r in got.values["repos"]:
        name = github_repo(r)
        if name is None:
            errors.append(f"config: [elsewhere] repos: {r!r} is not OWNER/REPO; left out")
        elif name not in repos:
            repos.append(name)
    return Settings(repos=tuple(repos), interval=got.values["interval"], timeout=got.values["timeout"], errors=tuple(errors))


def repositories(target_repos: Iterable[str], configured: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """(the repositories to look at, sorted: the queue's `target_repo` values that name one and
    the configured ones; the values that name none, sorted)."""
    found: set[str] = set(configured)
    skipped: set[str] = set()
    for value in target_repos:
        name = github_repo(value)
        if name is None:
            skipped.add(value)
        else:
            found.add(name)
    return sorted(found, key=str.casefold), sorted(skipped)


ISSUE_FIELDS = "number,title,labels,updatedAt,url"
PR_FIELDS = "number,title,url,headRefName,body,createdAt,updatedAt,isDraft"
VIEW_FIELDS = "body,comments,updatedAt"


def _records(data: Any) -> list[dict[str, Any]]:
    """The records of a `--json` list that have a number (an int, never a bool)."""
    if not isinstance(data, list):
        raise GhProblem("failed", "gh printed JSON that is not a list")
    return [r for r in data if isinstance(r, dict) and isinstance(r.get("number"), int) and not isinstance(r.get("number"), bool) and r["number"] > 0]


def _label_names(rec: dict[str, Any]) -> list[str]:
    labels = rec.get("labels")
    if not isinstance(labels, list):
        return []
    return [lab["name"] for lab in labels if isinstance(lab, dict) and isinstance(lab.get("name"), str)]


def _title(rec: dict[str, Any]) -> str:
    t = rec.get("title")
    t = t if isinstance(t, str) else ""
    return t if len(t) <= TITLE_MAX else t[: TITLE_MAX - 1] + "…"


def _url(rec: dict[str, Any], repo: str, kind: str) -> str:
    """gh's URL for the record when it is a plain https URL, else the one GitHub would have."""
    u = rec.get("url")
    if isinstance(u, str) and len(u) <= 500 and _SAFE_URL.match(u):
        return u
    parts = repo.split("/")
    host = parts[0] if len(parts) == 3 else "github.com"
    return f"https://{host}/{parts[-2]}/{parts[-1]}/{kind}/{rec['number']}"


def _comments(data: Any) -> list[dict[str, Any]]:
    comments = data.get("comments") if isinstance(data, dict) else None
    if not isinstance(comments, list):
        return []
    out = []
    for c in comments:
        if isinstance(c, dict) and isinstance(c.get("body"), str) and c.get("isMinimized") is not True:
            out.append(c)
    return out


def _issue_view(gh: Gh, repo: str, number: int) -> dict[str, Any]:
    data = gh.json(["issue", "view", str(number), f"--repo={repo}", "--comments", "--json", VIEW_FIELDS])
    if not isinstance(data, dict):
        raise GhProblem("failed", f"gh printed no issue for {repo}#{number}")
    return data


def _stop_row(repo: str, rec: dict[str, Any], label: str, view: dict[str, Any]) -> Waiting | None:
    """The row of an issue labelled `label` from its comments (`gh issue view --comments`);
    None for an `in-progress` issue whose latest comment is no stop report (a run is at work)."""
    comments = _comments(view)
    latest = comments[-1] if comments else None
    if label == "in-progress":
        stop = latest if latest is not None and is_stop_report(latest["body"]) else None
        if stop is None:
            return None
    else:  # the latest stop report, else the latest comment
        stop = next((c for c in reversed(comments) if is_stop_report(c["body"])), latest)
    body = stop["body"] if stop is not None else ""
    reason = first_line(body)
    if label == "blocked":
        body_text = view.get("body") if isinstance(view.get("body"), str) else ""
        m = BLOCKED_BY.search(body) or BLOCKED_BY.search(body_text)
        if m and m.group(1) not in reason:
            reason = f"Blocked by {m.group(1)}" + (f": {reason}" if reason else "")
    since = (_time(stop.get("createdAt")) if stop is not None else None) or _time(rec.get("updatedAt"))
    comment_url = stop.get("url") if stop is not None and isinstance(stop.get("url"), str) and _SAFE_URL.match(stop["url"]) else ""
    return Waiting(
        repo=repo, number=rec["number"], kind="issue", label=label, title=_title(rec), url=_url(rec, repo, "issues"), since=since,
        reason=reason, comment=body[:COMMENT_MAX], comment_url=comment_url, updated=rec.get("updatedAt") if isinstance(rec.get("updatedAt"), str) else None,
    )  # fmt: skip


def _closes(pr: dict[str, Any], number: int) -> bool:
    """Whether the PR is the one of issue `number`: afkkit's branch `issue-<n>-<slug>`, or a
    closing keyword for it in the body."""
    head = pr.get("headRefName")
    if isinstance(head, str) and head.startswith(f"issue-{number}-"):
        return True
    body = pr.get("body")
    return isinstance(body, str) and re.search(rf"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s+#{number}\b", body, re.IGNORECASE) is not None


def read_repo(gh: Gh, repo: str, previous: dict[str, Waiting], checked: dict[str, str]) -> tuple[list[Waiting], ReadyQueue, dict[str, str]]:
    """One repository's rows, its ready queue, and the issues read and found not waiting.
    An issue's comments are read again only when it changed (`updatedAt`) since the last look."""
    by_label: dict[str, list[dict[str, Any]]] = {}
    for label in (*WAITING_LABELS, READY):
        args = ["issue", "list", f"--repo={repo}", "--state=open", f"--label={label}", f"--limit={LIST_LIMIT}", "--json", ISSUE_FIELDS]
        by_label[label] = _records(gh.json(args))
    prs = _records(gh.json(["pr", "list", f"--repo={repo}", "--state=open", f"--limit={LIST_LIMIT}", "--json", PR_FIELDS]))
    rows: list[Waiting] = []
    seen: set[int] = set()
    now_checked: dict[str, str] = {}
    for label in WAITING_LABELS:
        for rec in by_label[label]:
            n = rec["number"]
            if n in seen:
                continue
            seen.add(n)
            if label == "in-review":
                mine = [p for p in prs if _closes(p, n)]
                for p in mine:
                    rows.append(Waiting(
                        repo=repo, number=p["number"], kind="pr", label=label, title=_title(p), url=_url(p, repo, "pull"),
                        since=_time(p.get("createdAt")) or _time(p.get("updatedAt")), reason=f"review and merge (for #{n})"
                        + (" · draft" if p.get("isDraft") is True else ""), issue=n,
                    ))  # fmt: skip
                if not mine:
                    rows.append(Waiting(
                        repo=repo, number=n, kind="issue", label=label, title=_title(rec), url=_url(rec, repo, "issues"),
                        since=_time(rec.get("updatedAt")), reason="in review, but no open PR names it (branch issue-N-…)",
                    ))  # fmt: skip
                continue
            key, updated = f"{repo}#{n}", rec.get("updatedAt")
            old = previous.get(key)
            if isinstance(updated, str) and old is not None and old.updated == updated and old.label == label:
                rows.append(replace(old, title=_title(rec)))  # unchanged since it was read
                continue
            if label == "in-progress" and isinstance(updated, str) and checked.get(key) == updated:
                now_checked[key] = updated
                continue
            row = _stop_row(repo, rec, label, _issue_view(gh, repo, n))
            if row is not None:
                rows.append(row)
            elif isinstance(updated, str):
                now_checked[key] = updated
    ready = run_order(repo, [r for r in by_label[READY]], open_prs=len(prs))
    return rows, ready, now_checked


def refresh(gh: Gh, repos: Sequence[str], previous: Elsewhere | None, now: datetime, skipped: Sequence[str] = ()) -> Elsewhere:
    """A new look at every repository. A problem that stops every look (gh missing, logged out,
    a rate limit) keeps the last rows with that problem said; a repository that cannot be read
    keeps its last rows with its error. During a rate limit's backoff nothing is asked."""
    prev = previous or Elsewhere()
    if prev.backoff_until is not None and now < prev.backoff_until:
        left = prev.backoff_until - now
        from atk_tui.domain.ages import format_duration

        return replace(prev, problem=f"GitHub's rate limit: backing off, next look in {format_duration(left.total_seconds())}", problem_kind="rate")
    old_rows = {w.key: w for w in prev.waiting if w.kind == "issue"}
    out = Elsewhere(fetched=now, repos=list(repos), skipped=list(skipped))
    for repo in repos:
        try:
            rows, ready, checked = read_repo(gh, repo, old_rows, prev.checked)
        except GhProblem as exc:
            if exc.kind in ("missing", "auth", "rate", "stopped"):
                return _stopped(prev, exc, now, repos, skipped)
            out.repo_errors[repo] = exc.message
            out.waiting.extend(w for w in prev.waiting if w.repo == repo)
            out.ready.extend(q for q in prev.ready if q.repo == repo)
            out.checked.update({k: v for k, v in prev.checked.items() if k.startswith(repo + "#")})
            continue
        out.waiting.extend(rows)
        out.ready.append(ready)
        out.checked.update(checked)
    if repos and len(out.repo_errors) == len(repos) and prev.fetched is not None:
        out.fetched = prev.fetched  # nothing was read: the rows are as old as before
    return out


def _stopped(prev: Elsewhere, exc: GhProblem, now: datetime, repos: Sequence[str], skipped: Sequence[str]) -> Elsewhere:
    """The last rows, with why no look could be made now (and a rate limit's backoff)."""
    from atk_tui.domain.ages import format_duration

    if exc.kind == "rate":
        step = min(max(prev.backoff * 2, BACKOFF_FIRST.total_seconds()), BACKOFF_MAX.total_seconds())
        until = now + timedelta(seconds=step)
        message = f"GitHub's rate limit was reached: backing off, next look in {format_duration(step)}"
        return replace(prev, problem=message, problem_kind="rate", backoff=step, backoff_until=until, repos=list(repos), skipped=list(skipped))
    if exc.kind == "stopped":
        return prev
    return replace(prev, problem=exc.message, problem_kind=exc.kind, repos=list(repos), skipped=list(skipped))


def open_in_browser(gh: Gh, repo: str, number: int, kind: str) -> None:
    """`gh issue|pr view N --repo R --web`: gh opens the page in the browser (GhProblem if not)."""
    if github_repo(repo) != repo or isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise GhProblem("failed", f"{repo}#{number} names no GitHub issue or pull request")
    gh.run(["pr" if kind == "pr" else "issue", "view", str(number), f"--repo={repo}", "--web"])


# -- the cache ----------------------------------------------------------------------------------


def load(git_dir: Path) -> Elsewhere | None:
    """The last look, None when there is none (or it cannot be read: a cache is never news)."""
    from atk_tui.cache import files

    got = files.read(git_dir, CACHE_NAME)
    if got is None:
        return None
    try:
        data = json.loads(bytes(got[1]))
        return Elsewhere.from_json(data) if isinstance(data, dict) else None
    except (ValueError, KeyError, TypeError):
        return None


def save(git_dir: Path, found: Elsewhere) -> bool:
    from atk_tui.cache import files

    data = json.dumps(found.to_json(), ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogateescape")
    return files.write(git_dir, CACHE_NAME, [data])
