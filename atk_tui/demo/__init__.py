"""A realistic demo store (SPEC §10: `atk-tui --demo`).

`create_demo_store(base)` makes `base/remote.git` (bare) and `base/store` (a clone of it with
`origin` and upstream `main`), fills the store with about 35 items of an engineering team's
queue, with a history of `atk: <op> <filename>` commits, and pushes it.

The queue is data, not code: `history.yaml` lists, in order, the items (their text in
`items/<key>.md`, a user-only section added later in `items/<key>.tail.md`, plans in
`plans/<name>.md`) and the operations on them. It is replayed here into commits (the
frontmatter written by the product's own `items.dump_value`) and written through one
`git fast-import` stream, which gives every commit its own date relative to `now`
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

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml

from atk_tui.domain.fields import NAMES
from atk_tui.domain.model import STATES
from atk_tui.host.config import PLAN_PREFIX
from atk_tui.itemfile.items import dump_value

__all__ = ["DEMO_KEYS", "create_demo_store", "demo_filenames", "demo_main"]

AUTHOR_NAME = "atk demo"
AUTHOR_EMAIL = "demo@atk.invalid"
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


def _iso_z(dt: datetime) -> _Raw:
    return _Raw(dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))


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




class _Demo:
    def __init__(self, now: datetime) -> None:
        self.now = now
        self.items: dict[str, _Item] = {}
        self.events: list[_Event] = []
        self.plan_paths: dict[str, str] = {}

    # -- building ------------------------------------------------------------------------

    def plan_ref(self, created: datetime, name: str) -> tuple[str, str]:
        rel = f"plans/{created:%Y}/{created:%m}/{name}.md"
        return rel, f"{PLAN_PREFIX}/{rel}"

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
        fm = [(k, values[k]) for k in NAMES if values.get(k) is not None]
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
                # the product's own writer (items.dump_value); a `_Raw` value is written as given
                lines.append(f"{k}: {v}\n" if isinstance(v, _Raw) else dump_value(k, v))
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

DATA = Path(__file__).parent  # history.yaml, items/<key>.md (+ .tail.md), plans/<name>.md
_AGE_RE = re.compile(r"(\d+)([dhms])")
_UNITS = {"d": "days", "h": "hours", "m": "minutes", "s": "seconds"}


def _age(text: str) -> timedelta:
    """`20d 3h 14m 52s` -> a timedelta."""
    return timedelta(**{_UNITS[u]: int(n) for n, u in _AGE_RE.findall(str(text))})


def _value(v: Any) -> Any:
    """A frontmatter value from the script: `{item_keys: [...]}` is a `depends_on` by item key,
    `{raw: ...}` a value written exactly as given."""
    if isinstance(v, dict) and "item_keys" in v:
        return _Deps(tuple(v["item_keys"]))
    if isinstance(v, dict) and "raw" in v:
        return _Raw(v["raw"])
    return v


def _cooldown(now: datetime, spec: dict[str, str]) -> datetime:
    """`{after, utc_offset, floor: hour, then}`: `after` from now, in that offset, floored to
    the hour, plus `then` (a cooldown that ends on a round local hour)."""
    sign, hh, mm = spec["utc_offset"][0], spec["utc_offset"][1:3], spec["utc_offset"][4:6]
    offset = timedelta(hours=int(hh), minutes=int(mm)) * (-1 if sign == "-" else 1)
    local = (now + _age(spec["after"])).astimezone(timezone(offset, "JST" if offset == timedelta(hours=9) else None))
    if spec.get("floor") == "hour":
        local = local.replace(minute=0, second=0)
    return local + _age(spec.get("then", "0s"))


def _build(now: datetime) -> _Demo:
    """Replay `history.yaml` into a `_Demo` for `now`."""
    d = _Demo(now)
    script = yaml.safe_load((DATA / "history.yaml").read_text(encoding="utf-8"))
    for step in script["steps"]:
        if "item" in step:
            a = dict(step["item"])
            key, age = a.pop("key"), _age(a.pop("age"))
            text = (DATA / "items" / f"{key}.md").read_text(encoding="utf-8")
            first, _, body = text.partition("\n")
            tail = DATA / "items" / f"{key}.tail.md"
            if tail.is_file():
                a["tail"] = tail.read_text(encoding="utf-8")
            if a.pop("plan_text", False):
                a["plan_text"] = (DATA / "plans" / f"{a['plan']}.md").read_text(encoding="utf-8")
            if "deps" in a:
                a["deps"] = tuple(a["deps"])
            if "custom" in a:
                a["custom"] = tuple(tuple(c) for c in a["custom"])
            if "raw_fm" in a:
                a["raw_fm"] = a["raw_fm"].format(created=_iso_z(now - age))
            if "cooldown" in a:
                a["cooldown"] = _cooldown(now, a["cooldown"])
            d.item(key, age, a.pop("slug"), first.removeprefix("# "), body, **a)
        else:
            a = dict(step["event"])
            age, op, keys = _age(a.pop("age")), a.pop("op"), a.pop("keys")
            if a.get("set"):
                a["set"] = {k: _value(v) for k, v in a["set"].items()}
            d.ev(age, op, *keys, **a)
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


def create_demo_store(base: Path, now: datetime | None = None, *, feedback_queue: bool = False, elsewhere: bool = False) -> Path:
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
        {f"wi/{state}/.gitkeep": "" for state in STATES},
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
    if feedback_queue:  # the mq queue, written through the service (feedback.py)
        from atk_tui.demo.feedback import add_feedback_queue

        add_feedback_queue(store, now, wi_dependency=demo.items["adopt-429"].filename)
    if elsewhere:  # `E`'s sample escalations, as the last look at GitHub (the demo never looks)
        from atk_tui.demo.elsewhere import save_sample_elsewhere

        save_sample_elsewhere(store, now)
    return store.resolve()


def demo_main() -> Path:
    """Create a demo store in a fresh temporary directory and return the store path."""
    return create_demo_store(Path(tempfile.mkdtemp(prefix="atk-demo-")), feedback_queue=True, elsewhere=True)


if __name__ == "__main__":  # pragma: no cover
    print(demo_main())
