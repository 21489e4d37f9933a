"""`atk plans commit`: plan files move from the planning work root into the store (SPEC §13).

Agents write and review a plan (and its same-stem companion files) under the planning work
root, `plans_root` in the config file (default `~/.claude/plans`). `commit_plans` moves them
into `plans/YYYY/MM/` of the store in one commit, after which the portable `plan_file`
value `$(atk config get private_notes)/plans/YYYY/MM/<name>.md` resolves.

- Companions: files beside the plan whose name starts with `<stem>.` (`login.md` takes
  `login.review.md`, `login.notes.txt`), not `login-v2.md`.
- YYYY/MM: the folder an item's `plan_file` already names for this plan name, when one does
  (the value was written when the plan was created and is never rewritten); otherwise the
  current month, UTC.
- A plan already stored (the same name in any `plans/*/*/`) is refused, never overwritten.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path

from atk_tui.domain.model import STATES
from atk_tui.domain.queues import MQ
from atk_tui.host.config import PLAN_PREFIX
from atk_tui.store import AtkError, WriteResult

_NAME_RE = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,200}\Z")
_PLAN_REF = re.compile(r"plans/(\d{4})/(\d{2})/([^/]+)\Z")


@dataclass
class PlansOutcome:
    ok: bool
    message: str
    commit: str | None = None
    stored: list[str] = field(default_factory=list)  # portable plan_file values of the plans
    warnings: tuple[str, ...] = ()
    exit_code: int = 0
    pushed: bool | None = None
    op: str = "plans commit"


def _referenced_months(svc) -> dict[str, tuple[str, str]]:
    """Plan file name -> (YYYY, MM) from every item's plan_file."""
    items, _, _ = svc.load_items({*STATES, *MQ.states})  # both queues' plan_file values
    out: dict[str, tuple[str, str]] = {}
    for item in items.values():
        if item.plan_file:
            m = _PLAN_REF.search(item.plan_file.strip())
            if m:
                out.setdefault(m.group(3), (m.group(1), m.group(2)))
    return out


def _stored_names(root: Path) -> dict[str, str]:
    """Name -> store-relative path of every file already under plans/YYYY/MM/."""
    found: dict[str, str] = {}
    base = root / "plans"
    if not base.is_dir():
        return found
    for year in sorted(base.iterdir()):
        if not year.is_dir():
            continue
        for month in sorted(year.iterdir()):
            if month.is_dir():
                for f in month.iterdir():
                    found.setdefault(f.name, f"plans/{year.name}/{month.name}/{f.name}")
    return found


def _source(given: str, root: Path) -> Path:
    p = Path(os.path.expanduser(given))
    if not p.is_absolute() and not p.exists():
        p = root / p
    if p.is_symlink():
        raise AtkError(f"{given} is a symbolic link; give the plan file itself", exit_code=2)
    p = p.resolve()
    if not p.is_file():
        raise AtkError(f"no plan file {given} (looked in the current folder and in {root})", exit_code=2)
    if root not in p.parents:
        raise AtkError(
            f"{given} is not in the planning work root {root}; plans are written there "
            "(set plans_root in the config file or pass --plans-root)",
            exit_code=2,
        )
    if not _NAME_RE.match(p.name):
        raise AtkError(f"{p.name!r}: a plan file name is letters, digits, '.', '_' and '-' only", exit_code=2)
    return p


#: a plan file (or a companion) larger than this is refused, read no further (issue 25:
#: a file that grows without end must not be read until memory runs out)
PLAN_MAX_BYTES = 16 * 1024 * 1024


def _read_plan(src: Path) -> bytes:
    """A plan file's bytes: a regular file (never a FIFO or a device), at most
    `PLAN_MAX_BYTES` (one byte more is read to tell)."""
    fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as fh:
        import stat

        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise AtkError(f"{src} is not a regular file; give the plan file itself", exit_code=2)
        data = fh.read(PLAN_MAX_BYTES + 1)
    if len(data) > PLAN_MAX_BYTES:
        raise AtkError(
            f"{src} is larger than the plan size limit ({PLAN_MAX_BYTES // (1024 * 1024)} MiB); nothing was stored",
            exit_code=2,
        )
    return data


def companions(plan: Path) -> list[Path]:
    stem = plan.name.split(".")[0]
    return sorted(
        f for f in plan.parent.iterdir()
        if f != plan and f.name.startswith(stem + ".") and f.is_file() and not f.is_symlink() and _NAME_RE.match(f.name)
    )


def pending_plans(svc, root: Path) -> list[str]:
    """The plans this store's items name (`plan_file`) that are still directly under the
    planning root `root`, not stored yet: what a bare `atk plans commit` moves (wi-standards
    writes the command without a path)."""
    stored = _stored_names(svc.root)
    return sorted(name for name in _referenced_months(svc) if name not in stored and (root / name).is_file())


def commit_plans(svc, paths: list[str], root: Path) -> PlansOutcome:
    if not paths:
        paths = pending_plans(svc, root)
        if not paths:
            return PlansOutcome(
                False,
                f"nothing to commit: no item's plan_file names a plan still under the planning root ({root}); "
                "give the plan files to move: `atk plans commit PATH...` (a path under the planning root, or absolute)",
                exit_code=2,
            )
    try:
        plans = list(dict.fromkeys(_source(p, root) for p in paths))
    except AtkError as exc:
        return PlansOutcome(False, exc.message, exit_code=exc.exit_code)
    months = _referenced_months(svc)
    now = svc.clock().astimezone(UTC)
    moves: dict[Path, str] = {}  # source -> store-relative destination
    stored: list[str] = []
    for plan in plans:
        yyyy, mm = months.get(plan.name, (f"{now:%Y}", f"{now:%m}"))
        for f in [plan, *companions(plan)]:
            moves.setdefault(f, f"plans/{yyyy}/{mm}/{f.name}")
        stored.append(f"{PLAN_PREFIX}/plans/{yyyy}/{mm}/{plan.name}")
    names = [Path(d).name for d in moves.values()]
    if len(set(names)) != len(names):
        return PlansOutcome(False, "two of the files have the same name; commit them one at a time", exit_code=2)
    subject = f"atk: plans commit {plans[0].name}" if len(plans) == 1 else f"atk: plans commit {len(plans)} plans"
    result = WriteResult()
    try:
        with svc.store.writing(subject, svc.actor, pull=svc.pull_on_write, push=svc.push_on_write, result=result) as tx:
            already = _stored_names(svc.root)  # inside the lock: after the pull
            for name in names:
                if name in already:
                    raise AtkError(
                        f"{name} is already stored at {already[name]}; a stored plan is not overwritten "
                        "(give the new plan another name)"
                    )
            for src, dst in moves.items():
                tx.write(dst, _read_plan(src))
    except AtkError as exc:
        return PlansOutcome(False, exc.message, warnings=tuple(result.warnings), exit_code=exc.exit_code)
    except OSError as exc:
        return PlansOutcome(False, f"plans commit failed, nothing was changed: {exc}", exit_code=1)
    warnings = list(result.warnings)
    for src in moves:  # committed: the planning root copies are gone (moved, not copied)
        try:
            src.unlink()
        except OSError as exc:
            warnings.append(f"stored, but could not remove {src}: {exc.strerror}")
    extra = sorted(Path(dst).name for src, dst in moves.items() if src not in plans)  # the same-stem companions
    first = plans[0].name if len(plans) == 1 else f"{len(plans)} plans"
    return PlansOutcome(
        True,
        f"stored {first}" + (f" (with the same-stem {'files' if len(extra) > 1 else 'file'} {', '.join(extra[:20])}{', …' if len(extra) > 20 else ''})" if extra else ""),
        result.commit,
        stored,
        tuple(warnings),
        pushed=result.pushed,
    )
