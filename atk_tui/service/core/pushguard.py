"""What an agent may push and replay (issue 38, SPEC §5, §11, §15): each commit judged by the
commands' own rules, whatever its message says: a user-only section added, changed or
removed, a user-only move, a change to what the user holds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from atk_tui.domain.model import Item, is_valid_filename
from atk_tui.domain.queues import QUEUES, queue_named
from atk_tui.itemfile import headings
from atk_tui.itemfile.items import parse_item
from atk_tui.service.core.holds import TAKE_OVER_TRAILER, holders, is_held_state, may_change
from atk_tui.service.types import _body_of
from atk_tui.text.textsafe import safe_line

if TYPE_CHECKING:
    from atk_tui.service.core.writecore import WriteCore

_FOLDERS: tuple[str, ...] = tuple(q.folder for q in QUEUES)  # the folders items live in


def user_only_commits(core: WriteCore, rev_range: str) -> list[tuple[str, str, list[str]]]:
    """(sha, subject, what it changes) of every commit in `rev_range` (oldest first) that
    makes a change only the user makes, judged as an agent's (SPEC §5, §11, §15): a
    user-only section (`itemfile.headings`) added, changed or removed; a move between
    state folders the transition table gives agents no way to make (`ops.move_refusal`);
    a move of an item the user holds; the removal of an item holding user-only
    sections. Whatever the commit's message says (an `Atk-Actor` line is text anyone can
    type). Three git calls: the commits, their changes, the blobs they touch."""
    log = core.store.git(
        "log", f"--format=%H %P%x00%s%x00%(trailers:key={TAKE_OVER_TRAILER},valueonly,separator=%x2c)", rev_range,
        check=False, env=core.store.read_env,
    )  # fmt: skip
    if log.returncode != 0 or not log.stdout.strip():
        return []
    commits: list[tuple[str, list[str], str]] = []
    taken: dict[str, set[str]] = {}  # sha -> the agents an explicit take-over names (issue 39)
    for line in log.stdout.splitlines():
        head, _, rest = line.partition("\0")
        subject, _, over = rest.partition("\0")
        shas = head.split()
        if shas and len(shas[0]) == 40:
            commits.append((shas[0], shas[1:], subject))
            taken[shas[0]] = {a.strip() for a in over.split(",") if a.strip()}
    commits.reverse()
    changes = _commit_changes(core, [c for c in commits if len(c[1]) <= 1])
    for sha, parents, _ in commits:
        if len(parents) > 1:  # a merge: what it changes against every parent (its own hand)
            changes[sha] = _merge_changes(core, sha, parents[0])
    wanted = sorted({b for entries in changes.values() for _, old, new, _ in entries for b in (old, new) if b})
    data = dict(zip(wanted, core.blobs(wanted), strict=True))
    out = []
    for sha, _parents, subject in commits:
        notes = judge_commit(core, f"{sha}^", changes.get(sha, []), data, taken=taken.get(sha, set()))
        if notes:
            out.append((sha, subject, notes))
    return out

def _commit_changes(core: WriteCore, commits: Sequence[tuple[str, list[str], str]]) -> dict[str, list[tuple[str, str, str, str]]]:
    """sha -> (status, old blob, new blob, path) of each item file the commit changes."""
    if not commits:
        return {}
    proc = core.store.git(
        "diff-tree", "--stdin", "-r", "-z", "--no-renames", "--no-abbrev", "--root", "--format=%H",
        check=False, env=core.store.read_env, input="\n".join(c[0] for c in commits) + "\n",
    )  # fmt: skip
    return _raw_changes(proc.stdout)

def _merge_changes(core: WriteCore, sha: str, first: str) -> list[tuple[str, str, str, str]]:
    names = core.store.git("diff-tree", "--cc", "-r", "-z", "--name-only", "--no-commit-id", sha, check=False).stdout
    paths = [p for p in names.split("\0") if p.strip() and p.split("/")[0] in _FOLDERS]
    if not paths:
        return []
    proc = core.store.git("diff-tree", "-r", "-z", "--no-renames", "--no-abbrev", first, sha, "--", *paths, check=False)
    return _raw_changes(f"{sha}\0" + proc.stdout).get(sha, [])

def judge_commit(
    core: WriteCore, before_rev: str, entries: list[tuple[str, str, str, str]], data: dict[str, bytes | None], *, strict: bool = False,
    taken: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[str]:
    """What of `entries` (status, old blob, new blob, path; the change from `before_rev`)
    only the user may do, judged as an agent's by the commands' own rules: a user-only
    section added, changed or removed; a user-only move (`ops.move_refusal`: into mq's
    editing, out of a terminal state), or one out of a state where the user holds it; the
    removal of an item holding the person's sections or held by the user; a new file
    straight into a terminal state; an edit of a terminal item or of the user's held one.
    `strict` (a replay, `conflicts apply`): every move, removal and addition the verbs
    would refuse an agent, not only the user-only ones."""
    from atk_tui.domain.ops import RULES, Op, move_refusal, refusal

    by_item: dict[tuple[str, str], dict[str, list[tuple[str, str, str]]]] = {}
    for status, old, new, path in entries:
        parts = path.split("/")
        if not (len(parts) == 3 and parts[0] in _FOLDERS and is_valid_filename(parts[2])
                and parts[1] in queue_named(parts[0]).states):  # fmt: skip
            continue
        side = "gone" if status == "D" else "new" if status == "A" else "edited"
        by_item.setdefault((parts[0], parts[2]), {}).setdefault(side, []).append((parts[1], old, new))
    notes: list[str] = []

    def text(blob: str) -> str | None:
        raw = data.get(blob) if blob else None
        return None if raw is None else raw.decode("utf-8", "replace")

    def item_of(name: str, state: str, blob: str, queue: str) -> Item:
        return parse_item(name, state, (text(blob) or "").encode(), queue=queue)

    def held_by_user(queue: str, state: str, name: str) -> bool:
        if not is_held_state(queue, state):
            return False
        path = f"{queue}/{state}/{name}"
        holder = holders(core.store, [path], before_rev, cache=False).get(path)
        if holder is not None and holder.actor == "agent" and (holder.agent_id or "agent") in taken:
            return False  # another agent's hold, taken over explicitly (`--take-over`, issue 39)
        return not may_change(holder, "agent", core.agent_id)

    for (queue, name), sides in sorted(by_item.items()):
        gone, new, edited = sides.get("gone", []), sides.get("new", []), sides.get("edited", [])
        rules = RULES[queue]
        pairs = [(s, o, n, s) for s, o, n in edited]
        for state, _old, _ in edited:
            if state in rules.terminal:
                notes.append(f"edits {queue}/{state}/{name}: terminal items are read-only")
            elif held_by_user(queue, state, name):
                notes.append(f"edits {queue}/{state}/{name}, which the user holds")
        if len(gone) == 1 and len(new) == 1:
            src, dst = gone[0][0], new[0][0]
            pairs.append((src, gone[0][1], new[0][2], dst))
            refused = move_refusal(item_of(name, src, gone[0][1], queue), dst, "agent")
            if refused is not None and src in rules.fenced and item_of(name, dst, new[0][2], queue).plan_file:
                refused = None  # finish-planning: leaves its fenced state with a plan file
            if refused is not None and (strict or refused.code == "user-only" or src in rules.terminal):
                notes.append(f"moves {name} from {src} to {dst} ({refused.message})")
            elif held_by_user(queue, src, name):
                notes.append(f"moves {name} out of {src}, where the user holds it")
            gone, new = [], []
        for state, old, _ in gone:
            found = headings.user_only_sections(_body_of(text(old) or ""))
            refused = refusal(Op.RM, [item_of(name, state, old, queue)], "agent")
            if found:
                notes.append(f"removes {queue}/{state}/{name}, which holds the user-only section '{_heading(found[0])}'")
            elif refused is not None and strict:
                notes.append(f"removes {queue}/{state}/{name} ({refused.message})")
            elif held_by_user(queue, state, name):
                notes.append(f"removes {queue}/{state}/{name}, which the user holds")
        for state, _, _ in new:
            if state in rules.terminal or (strict and state not in queue_named(queue).add_states):
                notes.append(f"adds {queue}/{state}/{name} straight into {state} (a new item goes into "
                             f"{' or '.join(queue_named(queue).add_states)})")  # fmt: skip
        pairs += [(s, "", n, s) for s, _, n in new]
        for src, old, new_blob, dst in pairs:
            before = headings.user_only_sections(_body_of(text(old) or "")) if old else []
            after = headings.user_only_sections(_body_of(text(new_blob) or ""))
            if before == after:
                continue
            added = [x for x in after if x not in before]
            removed = [x for x in before if x not in after]
            if added:
                verb = "changes" if any(k == added[0][0] for k, _ in before) else "adds"
                notes.append(f"{verb} the user-only section '{_heading(added[0])}' of {queue}/{dst}/{name}")
            elif removed:
                notes.append(f"removes the user-only section '{_heading(removed[0])}' from {queue}/{src}/{name}")
    return list(dict.fromkeys(notes))

def replay_refusals(core: WriteCore, sha: str, paths: Sequence[str]) -> list[str]:
    """What applying commit `sha`'s version of `paths` over HEAD would do that only the
    user may (`judge_commit`): `conflicts apply --mine` by an agent, whatever ref it is
    given. Every state folder of each item it touches is compared (the apply keeps one
    copy of an item)."""
    names = {(p.split("/")[0], p.split("/")[2]) for p in paths if p.count("/") == 2 and p.split("/")[0] in _FOLDERS}
    every = sorted({f"{q}/{s}/{n}" for q, n in names for s in queue_named(q).states}) if names else []
    if not every:
        return []
    proc = core.store.git("diff-tree", "-r", "-z", "--no-renames", "--no-abbrev", "HEAD", sha, "--", *every,
                          check=False, env=core.store.read_env)  # fmt: skip
    entries = _raw_changes(f"{sha}\0" + proc.stdout).get(sha, [])
    wanted = sorted({b for _, old, new, _ in entries for b in (old, new) if b})
    data = dict(zip(wanted, core.blobs(wanted), strict=True))
    return judge_commit(core, "HEAD", entries, data, strict=True)


def _heading(section: tuple[str, str]) -> str:
    kind, text = section
    return safe_line(text.splitlines()[0].strip()) if text.strip() else kind


def _raw_changes(out: str) -> dict[str, list[tuple[str, str, str, str]]]:
    """`git diff-tree --format=%H -z --raw` output: sha -> (status, old blob, new blob, path)."""
    found: dict[str, list[tuple[str, str, str, str]]] = {}
    tokens = out.split("\0")
    current: list[tuple[str, str, str, str]] | None = None
    i = 0
    zero = "0" * 40
    while i < len(tokens):
        token = tokens[i].lstrip("\n")
        if token.startswith(":") and i + 1 < len(tokens):
            meta = token[1:].split()
            if current is not None and len(meta) == 5:
                old, new = (b if b != zero else "" for b in meta[2:4])
                current.append((meta[4][:1], old, new, tokens[i + 1]))
            i += 2
            continue
        if len(token) == 40 and all(c in "0123456789abcdef" for c in token):
            current = found.setdefault(token, [])
        i += 1
    return found
