"""Notices: an agent's message for the user (SPEC §13), e.g. "a decision is pending".

A notice is a file of the store, `notices/<YYYYMMDD-HHMMSS-slug>.md`, with a small
frontmatter (`kind: notice`, `source`, `created`) and a Markdown body whose first line or
H1 is its title. Writing one is one commit (`atk: notify F`, any actor); dismissing is a
user-only write (`atk: dismiss F`) that deletes the file: git history keeps it. The text is
untrusted: front ends escape it like item text.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from atk_tui.domain.model import is_valid_filename
from atk_tui.host.regular import read_regular
from atk_tui.itemfile.items import dump_value, find_title
from atk_tui.store import AtkError, WriteResult

NOTICES_DIR = "notices"
MAX_BYTES = 256 * 1024
_FM = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n", re.S)


@dataclass
class Notice:
    filename: str
    title: str
    body: str
    created: datetime | None = None
    source: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "filename": self.filename,
            "title": self.title,
            "created": self.created.isoformat() if self.created else None,
            "source": self.source,
            "body": self.body,
        }


def _parse(name: str, data: bytes) -> Notice:
    text = data.decode("utf-8", "replace")
    meta: dict[str, Any] = {}
    body = text
    m = _FM.match(text)
    if m:
        import yaml

        try:
            loaded = yaml.safe_load(m.group(1))
        except yaml.YAMLError:
            loaded = None
        if isinstance(loaded, dict):
            meta = loaded
            body = text[m.end():]
    created = meta.get("created")
    if not isinstance(created, datetime):
        created = None
    elif created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    source = meta.get("source") if isinstance(meta.get("source"), str) else None
    title = find_title(body) or next((ln.strip() for ln in body.splitlines() if ln.strip()), name[:-3])
    return Notice(name, title, body, created, source)


def list_notices(root: Path | str) -> list[Notice]:
    """Every notice, oldest first. Symbolic links and odd names are skipped (never followed)."""
    folder = os.path.join(str(root), NOTICES_DIR)
    try:
        with os.scandir(folder) as it:
            entries = [e for e in it if e.is_file(follow_symlinks=False) and is_valid_filename(e.name)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    out = []
    for e in sorted(entries, key=lambda e: e.name[:-3]):  # `x.md` before `x-2.md`
        try:
            out.append(_parse(e.name, read_regular(e.path, MAX_BYTES)))  # never blocks (issue 38)
        except OSError:
            continue
    return out


def _new_name(root: Path, body: str, now: datetime) -> str:
    words = re.findall(r"[a-z0-9]+", (find_title(body) or body).lower())
    slug = "-".join(words)[:60].strip("-") or "notice"
    stamp = now.strftime("%Y%m%d-%H%M%S")
    name, n = f"{stamp}-{slug}.md", 2
    while (root / NOTICES_DIR / name).exists():
        name, n = f"{stamp}-{slug}-{n}.md", n + 1
    return name


def notify(svc, body: str, *, source: str | None = None):
    """Store a notice for the user: one commit. Any actor may notify."""
    from atk_tui.service import Outcome

    if not body.strip():
        return Outcome(False, "notify", "the notice is empty: give MESSAGE or --body-file", exit_code=2)
    if len(body.encode("utf-8")) > MAX_BYTES:
        return Outcome(False, "notify", f"the notice is over {MAX_BYTES // 1024} KiB; shorten it", exit_code=2)
    now = svc.clock().astimezone(UTC).replace(microsecond=0)
    fm = "kind: notice\n" + (dump_value("source", source) if source else "") + dump_value("created", now)
    text = f"---\n{fm}---\n{body if body.endswith(chr(10)) else body + chr(10)}"
    holder: list[str] = []
    result = WriteResult()
    try:
        with svc.store.writing("atk: notify", svc.actor, pull=svc.pull_on_write, push=svc.push_on_write, result=result) as tx:
            name = _new_name(svc.root, body, now)
            holder.append(name)
            tx.write(f"{NOTICES_DIR}/{name}", text.encode("utf-8"))
            tx.subject = f"atk: notify {name}"
    except AtkError as exc:
        return Outcome(False, "notify", exc.message, tuple(holder), warnings=tuple(result.warnings), exit_code=exc.exit_code)
    except OSError as exc:
        return Outcome(False, "notify", f"notify failed, nothing was changed: {exc}", exit_code=1)
    return Outcome(True, "notify", f"notified {holder[0]}", tuple(holder), result.commit, result.pushed, tuple(result.warnings))


def dismiss(svc, filenames: list[str]):
    """Remove notices the user has read: a user-only write, one commit."""
    from atk_tui.service import Outcome

    if svc.actor != "user":
        return Outcome(False, "dismiss", "dismissing a notice is a user-only write; refused in an agent environment", exit_code=2)
    if not filenames:
        return Outcome(False, "dismiss", "no notice given", exit_code=2)
    for name in filenames:
        if not is_valid_filename(name):
            return Outcome(False, "dismiss", f"bad notice filename {name!r}; `atk agents notices` lists them", exit_code=2)
    subject = f"atk: dismiss {filenames[0]}" if len(filenames) == 1 else f"atk: dismiss {len(filenames)} notices"
    result = WriteResult()
    try:
        with svc.store.writing(subject, svc.actor, pull=svc.pull_on_write, push=svc.push_on_write, result=result) as tx:
            for name in filenames:
                rel = f"{NOTICES_DIR}/{name}"
                path = svc.root / rel
                if path.is_symlink() or not path.is_file():
                    raise AtkError(f"no notice named {name}; `atk agents notices` lists them")
                tx.delete(rel)
    except AtkError as exc:
        return Outcome(False, "dismiss", exc.message, tuple(filenames), warnings=tuple(result.warnings), exit_code=exc.exit_code)
    n = len(filenames)
    msg = f"dismissed {filenames[0]}" if n == 1 else f"dismissed {n} notices"
    return Outcome(True, "dismiss", msg, tuple(filenames), result.commit, result.pushed, tuple(result.warnings))


def attention(view, notices: list[Notice]) -> dict[str, str]:
    """What calls the user (SPEC §13): every notice and every unanswered blocking question,
    as key -> title. A key the previous look did not have rings the bell."""
    out = {f"notice:{n.filename}": n.title for n in notices}
    for name in view.needs_you:
        item = view.items.get(name)
        if item is not None and item.is_question and item.urgency == "blocking":
            out[f"question:{name}"] = item.title
    return out
