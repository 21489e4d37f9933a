"""The rules the afkkit view reads from afkkit's comments and labels (`afkkit`): what makes a
comment a stop report, a blocker named, a priority label, a GitHub repository or link."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: what makes a comment a stop report: afkkit's escalation comments name the stop state (the
#: open questions, the failed command with its exit code and output, the blocker IDs left, the
#: phase it stopped at) and say why it stopped. One table; a test holds examples of each.
STOP_MARKERS = re.compile(
    r"\bescalat(?:ed|es|ing|ion)\b|\bstopped\b|\bstop (?:state|report|reason)\b|"
    r"\bblocked by #\d+|\bexit (?:code|status)\b|\b(?:remaining|unresolved) blockers?\b|\bblockers? (?:left|remain)|"
    r"\bneeds-planning\b|\bgate failed\b|"
    r"停止|エスカレーション|終了コード|ブロッカー|中断",
    re.IGNORECASE,
)
BLOCKED_BY = re.compile(r"blocked by\s+((?:[\w.-]+/[\w.-]+)?#\d+)", re.IGNORECASE)

#: issuekit's priority labels, by level (0 first): `critical`, `priority: high`, `priority/low`,
#: `P1`, `high-priority` …
PRIORITY_WORDS = {"critical": 0, "urgent": 0, "high": 1, "medium": 2, "normal": 2, "low": 3}
_PRIORITY = re.compile(
    r"\A(?:(?:priority|prio)[\s:/_-]*)?(critical|urgent|high|medium|normal|low)(?:[\s:/_-]*(?:priority|prio))?\Z"
    r"|\Ap([0-3])\Z",
    re.IGNORECASE,
)
ORDER_BY_PRIORITY = "priority labels high first, the same level oldest update first, unrated last"
ORDER_BY_AGE = "no priority labels: ordered by age (oldest update first)"

# `OWNER/REPO` or `HOST/OWNER/REPO` (what `gh --repo` takes), also from a URL or an ssh remote
_REPO = re.compile(r"\A(?:([A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2,})/)?([A-Za-z0-9][A-Za-z0-9-]{0,38})/([A-Za-z0-9._-]{1,100})\Z")
_URL = re.compile(r"\A(?:https?://|ssh://git@|git@)([A-Za-z0-9.-]+)[/:]([^/]+/[^/]+?)(?:\.git)?/?\Z")
_SAFE_URL = re.compile(r"\Ahttps://[A-Za-z0-9.-]+/[A-Za-z0-9._~%/#?=&:+-]*\Z")


def github_repo(value: object) -> str | None:
    """The repository `value` names as `gh --repo` takes it (`acme/web`, `ghe.example.com/acme/web`),
    or None when it names none (a path, a bare name): a `target_repo` may be anything."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    m = _URL.match(text)
    if m:
        host, path = m.groups()
        text = path if host.lower() in ("github.com", "www.github.com") else f"{host}/{path}"
    elif text.lower().startswith(("github.com/", "www.github.com/")):
        text = text.split("/", 1)[1]
    m = _REPO.match(text)
    if m is None or m.group(3) in (".", ".."):
        return None
    return text


def priority_of(labels: Iterable[str]) -> tuple[int, str] | None:
    """(level, label) of the highest priority label among `labels`, None when unrated."""
    best: tuple[int, str] | None = None
    for name in labels:
        m = _PRIORITY.match(name.strip())
        if m is None:
            continue
        level = PRIORITY_WORDS[m.group(1).lower()] if m.group(1) else int(m.group(2))
        if best is None or level < best[0]:
            best = (level, name)
    return best


def is_stop_report(body: str) -> bool:
    return bool(STOP_MARKERS.search(body))


def first_line(text: str, limit: int = 200) -> str:
    """The first line with words of a Markdown text, without its heading, quote, list or
    emphasis marks: a stop reason's one line."""
    for raw in text.splitlines():
        line = re.sub(r"\*\*|__|`", "", raw.strip().lstrip("#>*-+_ \t")).strip()
        if line and not line.startswith(("```", "~~~", "<!--")):
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""
