"""Who holds a held item (SPEC §15): the actor of the commit that moved it into its held state.

A hold (wi `hold`, mq `hold` and `editing`) belongs to the party that took it: the
`Atk-Actor` trailer of the commit that added the item's file to that folder (`user` or
`agent`), and, for an agent that names itself (`ATK_AGENT_ID`), that commit's `Atk-Agent`
trailer. The person may change any hold; an agent may change an unnamed agent's hold, and a
named agent's only when it is that agent (`may_change`).

The holder is found with git, never stored: `holders` walks the history once, newest first,
for every path asked about, and stops as soon as each one's adding commit is found (so its
cost is bounded by how far back the oldest of those holds was taken, one git process for any
number of items). Only paths that are in HEAD's tree are looked for: an uncommitted hold (a
hand `git mv`) has no holder yet.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from atk_tui.domain.errors import AtkError

if TYPE_CHECKING:
    from atk_tui.store import GitStore

#: the states an item is held in, by queue (SPEC §12: mq's `editing` is the dashboard's hold)
HELD_STATES: Mapping[str, tuple[str, ...]] = {"wi": ("hold",), "mq": ("hold", "editing")}
#: the environment variable an agent session names itself with, and the trailer it goes in
AGENT_ID_ENV = "ATK_AGENT_ID"
AGENT_TRAILER = "Atk-Agent"
AGENT_ID_RE = re.compile(r"[A-Za-z0-9._:@-]{1,64}")
#: how long the history walk may take before the holder is given up as unknown
WALK_TIMEOUT = 60.0
#: the states an item is owned in without being held (issue 39): processing belongs to the
#: agent that started it (its `start-processing` commit's Atk-Actor and Atk-Agent)
OWNED_STATES: Mapping[str, tuple[str, ...]] = {"wi": ("processing",), "mq": ("processing",)}
#: the trailer a take-over (`--take-over`) writes: the previous owner's agent id
TAKE_OVER_TRAILER = "Atk-Take-Over"
HELD_FOLDERS = tuple(f"{q}/{s}" for q, states in HELD_STATES.items() for s in states) + tuple(
    f"{q}/{s}" for q, states in OWNED_STATES.items() for s in states
)
#: holders kept in the holders cache at most (beyond: only those asked last)
MAX_CACHED = 5000


def is_held_state(queue: str, state: str) -> bool:
    return state in HELD_STATES.get(queue, ())


def is_owned_state(queue: str, state: str) -> bool:
    """A held state, or one an agent owns while it works (processing)."""
    return state in HELD_STATES.get(queue, ()) or state in OWNED_STATES.get(queue, ())


def held_paths(filename: str) -> list[str]:
    """Every path `filename` would have in a held state folder (either queue)."""
    return [f"{q}/{s}/{filename}" for q, states in HELD_STATES.items() for s in states]


def owned_paths(filename: str) -> list[str]:
    """Every path `filename` would have in a held or owned (processing) state folder."""
    return held_paths(filename) + [f"{q}/{s}/{filename}" for q, states in OWNED_STATES.items() for s in states]


def agent_id_from_env(environ: Mapping[str, str] | None = None) -> str | None:
    """`ATK_AGENT_ID`, validated (None when unset or empty). Raises AtkError (exit 2) for a
    value that is not 1-64 characters of letters, digits and `._:@-`."""
    env = os.environ if environ is None else environ
    value = env.get(AGENT_ID_ENV)
    if not value:
        return None
    if not AGENT_ID_RE.fullmatch(value):
        shown = value if len(value) <= 80 else value[:80] + "…"
        raise AtkError(
            f"{AGENT_ID_ENV}={shown!r} is not a valid agent id: use 1-64 characters of letters, digits "
            "and . _ : @ - (e.g. ATK_AGENT_ID=worker-2); nothing was done",
            exit_code=2,
            code="invalid",
        )
    return value


@dataclass(frozen=True)
class Holder:
    """Who holds an item: from the commit that moved it into `state`. `actor`: the commit's
    `Atk-Actor` ("user", "agent"; None when the commit has none: made outside atk)."""

    path: str
    actor: str | None
    agent_id: str | None
    since: datetime | None
    commit: str
    subject: str = ""

    @property
    def state(self) -> str:
        return self.path.split("/")[1]

    def who(self) -> str:
        """ "the user", "agent worker-2", "an unnamed agent", "unknown (…)"."""
        if self.actor == "user":
            return "the user"
        if self.actor == "agent":
            return f"agent {self.agent_id}" if self.agent_id else "an unnamed agent"
        return "an unknown party (its hold commit has no Atk-Actor trailer)"

    def when(self) -> str:
        return self.since.strftime("%Y-%m-%d %H:%M UTC") if self.since else "an unknown time"

    def describe(self) -> str:
        """ "held by the user since 2026-12-01 20:03 UTC (commit 1a2b3c4d5e)"."""
        verb = {"editing": "being edited", "processing": "being processed"}.get(self.state, "held")
        return f"{verb} by {self.who()} since {self.when()} (commit {self.commit[:10]})"

    def as_json(self) -> dict[str, Any]:
        return {
            "actor": self.actor,
            "agent_id": self.agent_id,
            "since": self.since.strftime("%Y-%m-%dT%H:%M:%SZ") if self.since else None,
            "commit": self.commit,
            "state": self.state,
        }


def may_change(holder: Holder | None, actor: str, agent_id: str | None) -> bool:
    """Whether `actor` (with `agent_id`) may change an item `holder` holds: the user any;
    an agent an unnamed agent's hold, a named agent's only as that agent, never the user's.
    A hold no atk commit made (no trailer, or none found) binds nobody."""
    if actor == "user" or holder is None:
        return True
    if holder.state not in ("hold", "editing") and holder.actor != "agent":
        return True  # processing the person (or a hand commit) started binds no agent
    if holder.actor == "user":
        return False
    if holder.actor == "agent":
        return not holder.agent_id or holder.agent_id == agent_id
    return True


def held_refusal(holder: Holder, filename: str, queue: str, agent_id: str | None, *, take_over: bool = False) -> AtkError:
    """The refusal an agent gets for changing an item `holder` holds or owns (exit 1, code
    "held"): it names the owner, the explicit take-over (`--take-over`, never for the
    person's holds) and the person's way."""
    where = {"editing": "in the dashboard's edit session", "processing": "in processing"}.get(holder.state, "in hold")
    person = f"the person can move it in the dashboard (or `atk {queue} move {filename} --to inbox` as the person)"
    if holder.actor == "user":
        todo = (
            "wait for the person to release it (it returns to inbox when they finish), or ask them "
            f"(e.g. `atk agents notify`) if you need it sooner; do not work around the hold "
            f"(`--take-over` never takes the person's hold{': it was refused' if take_over else ''})"
        )
    else:
        me = f"this session is agent {agent_id}" if agent_id else f"this session is an unnamed agent: no {AGENT_ID_ENV}"
        release = (
            f"`atk {queue} unhold {filename}` by that agent" if holder.state == "hold"
            else "adopt, reject or return-to-inbox by that agent" if holder.state == "processing"
            else "that agent finishing"
        )
        todo = (
            f"only {holder.who()} or the user may change it ({me}): wait until it is released ({release}); "
            f"or take it over explicitly by running the same command with `--take-over` (recorded in the commit as "
            f"`{TAKE_OVER_TRAILER}: {holder.agent_id or 'agent'}`; only when that agent is gone, e.g. this session "
            f"resumed under another {AGENT_ID_ENV}); or {person}"
        )
    return AtkError(
        f"refused: {filename} is {holder.describe()}, {where}; an agent may not change it: {todo}. Nothing was changed",
        code="held",
    )


def _parse_time(stamp: str) -> datetime | None:
    try:
        return datetime.fromtimestamp(int(stamp), UTC)
    except (ValueError, OverflowError, OSError):
        return None


_FORMAT = (
    "%x1e%H%x1f%at%x1f%(trailers:key=Atk-Actor,valueonly,separator=%x2c)"
    f"%x1f%(trailers:key={AGENT_TRAILER},valueonly,separator=%x2c)%x1f%s%x1f"
)


def _records(buf: bytes, final: bool) -> tuple[list[bytes], bytes]:
    """Complete commit records in `buf` (each up to the next record's start), and the rest."""
    parts = buf.split(b"\x1e")
    if final:
        return [p for p in parts if p], b""
    return [p for p in parts[:-1] if p], parts[-1]


def holders(store: GitStore, paths: Iterable[str], rev: str = "HEAD", *, cache: bool = True) -> dict[str, Holder]:
    """The holder of each held path (`wi/hold/F`, `mq/editing/F` …) that is in `rev`'s tree:
    the newest commit that added it there. A path not in `rev` (not held, or held only in the
    work tree) is left out, as is one whose commit the walk did not reach in time.

    Cost: one `git ls-tree`, then what the holders cache (`cache`) does not
    answer: the holders found at an earlier HEAD stay right at a later one unless a commit
    since added the path again (one `git log` of the commits since, when that HEAD is an
    ancestor); the rest are found by one walk back from `rev`, stopped as soon as each has
    its commit."""
    wanted = list(dict.fromkeys(p for p in paths if p.count("/") == 2 and is_owned_state(*p.split("/")[:2])))
    if not wanted:
        return {}
    if rev == "HEAD":
        head = store.head() or ""
    else:
        head = store.git(
            "rev-parse", "-q", "--verify", f"{rev}^{{commit}}", check=False, env=store.read_env
        ).stdout.strip()
    if not head:
        return {}
    folders = sorted({p.rsplit("/", 1)[0] for p in wanted})
    listed = store.git("ls-tree", "-r", "-z", "--name-only", head, "--", *folders, check=False, env=store.read_env)
    present = set(wanted) & set(listed.stdout.split("\0"))
    if not present:
        return {}
    known: dict[str, Holder] = {}
    memo = _load(store) if cache else None
    if memo is not None:
        before, known = memo
        if before != head:
            # what was added to a held folder since: newer than the cached holder of that path
            fresh = before and known and _is_ancestor(store, before, head)
            known = {**known, **_walk(store, [f"{before}..{head}", "--", *HELD_FOLDERS], None)} if fresh else {}
    found = {p: known[p] for p in present if p in known}
    missing = present - found.keys()
    if missing:
        # a few items: their own paths (git then looks at nothing else); many: their folders
        specs = sorted(missing) if len(missing) <= 64 else sorted({p.rsplit("/", 1)[0] for p in missing})
        walked = _walk(store, [head, "--", *specs], missing)
        found.update(walked)
        known.update(walked)
    if cache and (missing or memo is None or memo[0] != head):
        _save(store, head, known if len(known) <= MAX_CACHED else found)
    return found


def _walk(store: GitStore, args: list[str], present: set[str] | None) -> dict[str, Holder]:
    """`git log` (newest first) of the commits that added any of `present`: each path's
    first one, the walk ended as soon as every path has one; None: every held path the
    commits add (the whole range is read)."""
    stop = present is not None
    found: dict[str, Holder] = {}
    buf = b""
    for chunk in store.stream(
        "log", "--no-renames", "--diff-filter=A", "-z", "--name-only", f"--format={_FORMAT}", *args, timeout=WALK_TIMEOUT
    ):
        done, buf = _records(buf + chunk, not chunk)
        for rec in done:
            _take(rec, present, found)
        if stop and len(found) >= len(present or ()):
            break  # every path has its commit: the rest of the history is not read
    return found


def _is_ancestor(store: GitStore, older: str, newer: str) -> bool:
    return store.git("merge-base", "--is-ancestor", older, newer, check=False, env=store.read_env).returncode == 0


def _load(store: GitStore) -> tuple[str, dict[str, Holder]] | None:
    """(the HEAD the cached holders were found at, path -> holder), None without a cache
    (the entry `holders`: `cache.files`)."""
    import json

    from atk_tui.cache import files

    got = files.read(store.git_dir, "holders")
    if got is None:
        return None
    try:
        data = json.loads(bytes(got[1]))
        head, rows = data["head"], data["holders"]
        known = {
            p: Holder(p, actor, agent, _parse_time(str(stamp)), sha, subject)
            for p, (sha, stamp, actor, agent, subject) in rows.items()
        }
        return str(head), known
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _save(store: GitStore, head: str, found: Mapping[str, Holder]) -> None:
    import json

    from atk_tui.cache import files

    rows = {
        p: [h.commit, int(h.since.timestamp()) if h.since else "", h.actor, h.agent_id, h.subject]
        for p, h in found.items()
    }
    files.write(store.git_dir, "holders", [json.dumps({"head": head, "holders": rows}).encode("utf-8")])


def _take(rec: bytes, present: set[str] | None, found: dict[str, Holder]) -> None:
    """One commit record of the walk: its header fields, then the paths it added."""
    head, sep, names = rec.rpartition(b"\x1f")
    if not sep:
        return
    fields = head.decode("utf-8", "replace").split("\x1f")
    if len(fields) != 5:
        return
    sha, stamp, actor, agent, subject = fields
    actor = actor.strip().split(",")[-1].strip()
    actor = actor if actor in ("user", "agent") else None
    agent = agent.strip().split(",")[-1].strip() or None
    if agent is not None and not AGENT_ID_RE.fullmatch(agent):
        agent = None  # a trailer atk did not write: not a name anyone can claim
    for raw in names.split(b"\0"):
        path = raw.strip(b"\n").decode("utf-8", "surrogateescape")
        held = present is None and path.count("/") == 2 and is_owned_state(*path.split("/")[:2])
        if (held or (present is not None and path in present)) and path not in found:
            found[path] = Holder(path, actor, agent if actor == "agent" else None, _parse_time(stamp), sha, subject)


def holder_of(store: GitStore, queue: str, state: str, filename: str, rev: str = "HEAD") -> Holder | None:
    """The holder of one item in a held state, None when it is not held (at `rev`)."""
    if not is_held_state(queue, state):
        return None
    path = f"{queue}/{state}/{filename}"
    return holders(store, [path], rev).get(path)
