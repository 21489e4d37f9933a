#!/usr/bin/env python3
"""Soak: three "machines" share one bare remote; agents and a person write at the same time.

    python bench/soak.py [--short] [--transport file|daemon|flaky] [--seed N] [--agents N]
                         [--ops N] [--person-ops N] [--out DIR] [--json REPORT] [--keep]

Layout (under a temporary directory, or DIR): `remote.git` (bare) and clones `m1`, `m2`, `m3`.
`--transport` says how the clones reach the remote (SPEC §15, issue 24 point 5): `file` (its
path), `daemon` (a real `git daemon` on 127.0.0.1, an ephemeral port, pushes enabled: git://),
`flaky` (that daemon behind a relay adding ~50 ms per connection and dropping ~15 % of them,
seeded: reads may answer from a stale copy, writes may be "not pushed" until `atk wi commit`).
On m1 and m2, agent processes (real subprocesses, CLAUDECODE=1) run the `atk` CLI through a
seeded, randomised but realistic flow: add (with --source), start-processing, file a UWI and
make the AWI depend on it (set-dependencies), adopt, reject, return-to-inbox (also from
rejected), set-dependencies, rm, and adopt of answered UWIs; now and then an agent tries to
release or re-point an item in hold (someone else's hold, maybe: refused once holds have an
owner). Agents read with plain `atk wi list` (reads pull, at the default freshness window). On
m3 a scripted person drives the `Service(actor="user")` the dashboard uses: answer, edit with
hold / save_text / unhold, hold an item for a while (and edit it, or not) before releasing it,
comment, move, undo, with the dashboard's periodic pull in between.

Every write is logged with its outcome (exit code, commit SHA, subject, pushed or not, warnings).
Afterwards `atk wi commit` runs on each clone (again, a bounded number of rounds, while one says
it could not push), every answer the person recorded is read back on each agent clone, each
clone pulls, and the invariants are checked:

* every operation reported as done landed on the remote (its SHA, or a commit with the same
  subject after a rebase, is in the remote's history) or was reported as unpushed/conflicting
  (and then either landed through `atk wi commit` or was set aside by it, named);
* no filename is in two states (any clone's work tree, the remote's tree);
* no file vanished without an `rm` commit;
* no lock left behind (the lock file may exist but can be taken at once), no journal, no
  index.lock, no rebase in progress;
* every clone converges to the remote: after its own read (`atk wi list`, which only
  fast-forwards) its HEAD is the remote's commit, with a clean work tree;
* every answer the person recorded reaches each agent's next read: for each answer that landed
  on the remote, a plain `atk wi show F --json` (it pulls; ATK_READ_WINDOW=0) on m1 and on m2
  shows the item answered, unless it legitimately moved on (removed by an `rm` commit, or the
  answer undone by the person); a read that says its copy may be stale is asked again (a
  bounded number of times) and counted;
* every read exits 0, whatever the remote does (a stale warning on stderr is fine).

Exit status 0 when every invariant holds. `--short` is what CI runs (tests/soak).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
STATES = ("inbox", "processing", "hold", "adopted", "rejected")
ATK_TIMEOUT = 120.0
TRANSPORTS = ("file", "daemon", "flaky")
FLAKY_LATENCY = 0.05  # seconds added to each connection through the relay
FLAKY_DROP = 0.15  # the fraction of connections it closes at once
FINAL_ROUNDS = 8  # `atk wi commit` rounds at the end, while a clone could not push
READ_TRIES = 8  # reads of one answer on one clone while the read says its copy may be stale
HOLD_FOR = 3.0  # seconds the person keeps an item held at least (the agents' reads see it)
REPOS = ("acme/webapp", "acme/api", "acme/infra")
SOURCES = ("process-wi", "session-review", "plan-and-add-awi")
OBJECTS = (
    "login flow",
    "order export",
    "rate limiter",
    "CI cache",
    "search index",
    "audit log",
    "payment webhooks",
    "feature flags",
    "ログイン画面",
    "監査ログ",
    "夜間バッチ",
)
VERBS = ("fix", "add tests for", "speed up", "document", "refactor", "harden")


# --------------------------------------------------------------------------------------------
# small helpers


def git(cwd: Path, *args: str, check: bool = True, timeout: float = 120) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, errors="surrogateescape"
    )
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {cwd} failed: {proc.stderr.strip()}")
    return proc.stdout


FP_FORMAT = "--format=%H%x00%s%x00%an <%ae>%x00%ad"


def fingerprint(cwd: Path, rev: str) -> tuple[str | None, list[str] | None]:
    """(full SHA, [subject, author, author date]) of a commit: a rebase keeps the latter."""
    out = git(cwd, "show", "-s", FP_FORMAT, "--date=raw", rev, check=False).strip()
    parts = out.split("\0")
    if len(parts) != 4:
        return None, None
    return parts[0], parts[1:]


def fingerprints(cwd: Path, *log_args: str) -> list[list[str]]:
    out = git(cwd, "log", FP_FORMAT, "--date=raw", *log_args, check=False)
    return [line.split("\0")[1:] for line in out.splitlines() if line.count("\0") == 3]


def base_env(tmp: Path, name: str) -> dict[str, str]:
    """A clean, private environment for one machine's processes."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "AI_AGENT",
            "CODEX_CI",
            "CLAUDECODE",
            "CURSOR_AGENT",
            "ATK_PRIVATE_NOTES",
            "GIT_INDEX_FILE",
            "GIT_DIR",
            "GIT_WORK_TREE",
        )
    }
    env.update(
        {
            "XDG_CONFIG_HOME": str(tmp / "xdg"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": name,
            "GIT_COMMITTER_NAME": name,
            "GIT_AUTHOR_EMAIL": f"{name}@soak.invalid",
            "GIT_COMMITTER_EMAIL": f"{name}@soak.invalid",
            "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        }
    )
    return env


def atk_exe() -> str:
    exe = BIN / "atk"
    return str(exe) if exe.exists() else (shutil.which("atk") or "atk")


class Log:
    """JSON Lines, one record per write (and per read, marked `read`)."""

    def __init__(self, path: Path, who: str, clone: Path) -> None:
        self.fh = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by the worker's exit
        self.who = who
        self.clone = clone.name

    def write(self, **rec: Any) -> None:
        rec = {"who": self.who, "clone": self.clone, "t": time.time(), **rec}
        self.fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        self.fh.flush()


def classify_failure(message: str) -> str:
    """The kind of a failed write (exit 1): `busy` (the store lock, or another git process),
    `superseded`, `refused` (a rule: the state moved, a hold someone else owns, ...) or
    `error` (git failed, a hook, a timeout)."""
    m = message.lower()
    if "store busy" in m or "another git process is using the store" in m:
        return "busy"
    if "another machine made the same change" in m:
        return "superseded"
    if "held by" in m or "being edited by" in m:
        return "refused"  # an item someone else holds (SPEC §15): a rule, whatever else it says
    # whole words: an item named "... payment webhooks" is no hook failure
    if "did not finish" in m or ("git " in m and " failed" in m) or re.search(r"\b(hook|timeout)\b", m):
        return "error"
    return "refused"


def classify_exit(code: int, message: str) -> str:
    """`classify_failure`, after exit 2: a usage error, except the rule that keeps an agent off
    the person's text (exit 2 as well: an agent's `rm` of an item the person answered or
    commented on, which a random agent picks now and then): that is the rule holding, `refused`."""
    if code == 2:
        return "refused" if "user-only section" in message else "usage"
    return classify_failure(message)


# --------------------------------------------------------------------------------------------
# the agent: real `atk` processes


#: a write's one line: `<verb> <file> (<sha10>) pushed` or `... (<sha10>) not pushed: <why>`
SHA10_RE = re.compile(r"\(([0-9a-f]{10})\)(?: pushed| not pushed\b.*)?\s*$")


class Agent:
    def __init__(self, name: str, clone: Path, seed: int, budget: int, log: Log) -> None:
        self.name = name
        self.clone = clone
        self.rng = random.Random(seed)
        self.budget = budget
        self.log = log
        self.env = dict(os.environ, CLAUDECODE="1")
        self.mine: list[str] = []  # filenames this agent added
        self.n = 0
        self.exe = atk_exe()

    def atk(self, *args: str) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run(
                [self.exe, *args, "--store", str(self.clone)],
                capture_output=True,
                text=True,
                env=self.env,
                timeout=ATK_TIMEOUT,
                errors="surrogateescape",
            )
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(args, 124, "", f"timeout: atk {args[0]} {args[1]} hung")

    def items(self) -> list[dict[str, Any]]:
        t0 = time.time()
        proc = self.atk("wi", "list", "--status", "all", "--json")
        self.log.write(
            op="list",
            read=True,
            exit=proc.returncode,
            stale=next((ln.strip()[-300:] for ln in proc.stderr.splitlines() if "may be stale" in ln), None),
            message=proc.stderr.strip()[-300:] if proc.returncode else "",
            dt=time.time() - t0,
        )
        out = []
        for line in proc.stdout.splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out

    def write(self, op: str, files: list[str], *args: str) -> tuple[bool, str]:
        """Run one write; log it. Returns (ok, first stdout line)."""
        self.budget -= 1
        t0 = time.time()
        proc = self.atk("wi", op, *args)
        dt = time.time() - t0
        stdout, stderr = proc.stdout, proc.stderr
        warnings = [ln.removeprefix("atk: warning: ") for ln in stderr.splitlines() if ln.startswith("atk: warning: ")]
        errors = [
            ln.removeprefix("atk: ") for ln in stderr.splitlines() if ln.startswith("atk: ") and "warning:" not in ln
        ]
        ok = proc.returncode == 0
        sha = fp = None
        first = stdout.splitlines()[0] if stdout.strip() else ""
        if ok:
            if op == "add":
                files = [first.strip()]
                sha = self._find_subject(f"atk: add {files[0]}")
            else:
                m = SHA10_RE.search(first)
                sha = m.group(1) if m else None
            if sha:
                sha, fp = fingerprint(self.clone, sha)
        rec: dict[str, Any] = {
            "op": op,
            "files": files,
            "args": list(args),
            "exit": proc.returncode,
            "ok": ok,
            "sha": sha,
            "fp": fp,
            "subject": fp[0] if fp else None,
            "warnings": warnings,
            "message": " | ".join(errors)[:500],
            "dt": dt,
        }
        if ok:
            rec["unpushed"] = any("unpushed" in w for w in warnings) or bool(re.search(r"\) not pushed\b", first))
            # exit 0 and no commit, said so (`unhold` of an item already back in inbox)
            rec["noop"] = sha is None and "nothing committed" in first
            rec["said"] = first[:300]
        else:
            rec["category"] = classify_exit(proc.returncode, rec["message"] or stderr)
        self.log.write(**rec)
        if any("atk wi commit" in w for w in warnings):
            self.commit()  # what the warning tells an agent to do
        return ok, first.strip()

    def commit(self) -> None:
        """`atk wi commit`: push what is unpushed (setting aside what conflicts)."""
        t0 = time.time()
        proc = self.atk("wi", "commit", "--yes")
        warnings = [ln.removeprefix("atk: warning: ") for ln in proc.stderr.splitlines() if "warning:" in ln]
        self.log.write(op="commit", read=True, exit=proc.returncode, warnings=warnings, dt=time.time() - t0)

    def _find_subject(self, subject: str) -> str | None:
        # --all: another writer's pull --rebase may have HEAD detached on an older commit now
        out = git(self.clone, "log", "--all", "-n", "1000", "--format=%H%x00%s", check=False)
        for line in out.splitlines():
            sha, _, subj = line.partition("\0")
            if subj == subject:
                return sha
        return None

    # -- the flow --------------------------------------------------------------------------

    def title(self) -> str:
        self.n += 1
        return f"{self.name} {self.n}: {self.rng.choice(VERBS)} {self.rng.choice(OBJECTS)}"

    def add_awi(self) -> str | None:
        body = (
            f"# {self.title()}\n\n"
            f"- 反映内容: change what the title says\n- 反映先: {self.rng.choice(REPOS)}\n"
            f"- 理由: seen {self.rng.randint(2, 90)} times in the logs\n- 適用範囲: this repository\n"
            "- メリット: fewer incidents\n- デメリット: なし\n- 完成条件: tests pass\n"
        )
        ok, name = self.write(
            "add",
            [],
            "--kind",
            "awi",
            "--source",
            self.rng.choice(SOURCES),
            "--target-repo",
            self.rng.choice(REPOS),
            "--body-file",
            self._tmp(body),
        )
        if ok and name:
            self.mine.append(name)
            return name
        return None

    def add_uwi(self, about: str) -> str | None:
        body = (
            f"# {self.title()}: which way for {about[:30]}?\n\n## 背景\nTwo ways were found while working on it.\n\n"
            "## 質問\nWhich approach?\n\n- A) Strict -- safer, more work\n- B) Lenient -- faster, riskier\n"
            "- C) Both behind a flag -- flexible, more code\n\n推奨: A) consistent everywhere\n"
        )
        args = [
            "--kind",
            "uwi",
            "--source",
            "process-wi",
            "--target-repo",
            self.rng.choice(REPOS),
            "--body-file",
            self._tmp(body),
        ]
        if self.rng.random() < 0.5:
            args += ["--urgency", self.rng.choice(("blocking", "next-review", "informational"))]
        ok, name = self.write("add", [], *args)
        if ok and name:
            self.mine.append(name)
            return name
        return None

    def _tmp(self, body: str) -> str:
        path = Path(tempfile.gettempdir()) / f"atk-soak-{os.getpid()}-{self.n}.md"
        path.write_text(body, encoding="utf-8")
        return str(path)

    def pick(self, items: list[dict[str, Any]], pred) -> str | None:
        cands = [i["filename"] for i in items if pred(i)]
        if not cands:
            return None
        own = [c for c in cands if c in self.mine]
        if own and self.rng.random() < 0.7:
            return self.rng.choice(own)
        return self.rng.choice(cands)

    def run(self) -> None:
        rng = self.rng
        while self.budget > 0:
            if rng.random() < 0.6 or not self.mine:
                self.add_awi()
            items = self.items()
            target = self.pick(items, lambda i: i["state"] == "inbox" and i["kind"] == "awi" and i["ready"])
            if target and self.budget > 0:
                ok, _ = self.write("start-processing", [target], target)
                if ok and self.budget > 0:
                    r = rng.random()
                    if r < 0.3:
                        uwi = self.add_uwi(target)
                        if uwi and self.budget > 0:
                            self.write("set-dependencies", [target], target, "--depends-on", uwi)
                        if self.budget > 0:
                            self.write("return-to-inbox", [target], target)
                    elif r < 0.6:
                        args = [target, "--note", f"done by {self.name}"]
                        if rng.random() < 0.5:
                            args += ["--commit", f"{rng.getrandbits(160):040x}"]
                        self.write("adopt", [target], *args)
                    elif r < 0.85:
                        self.write("reject", [target], target, "--note", "not worth it")
                        if rng.random() < 0.4 and self.budget > 0:
                            self.write("return-to-inbox", [target], target, "--state=rejected")
                    else:
                        self.write("return-to-inbox", [target], target)
            if self.budget <= 0:
                break
            r = rng.random()
            if r < 0.25:
                # the picker closes answered UWIs before it starts work
                uwi = self.pick(items, lambda i: i["state"] == "inbox" and i["kind"] == "uwi" and i.get("answered"))
                if uwi:
                    self.write("adopt", [uwi], uwi, "--note", "answer picked up")
            elif r < 0.45:
                depended = {d for j in items for d in j.get("depends_on", [])}
                victim = self.pick(items, lambda i, d=depended: i["state"] == "inbox" and i["filename"] not in d)
                if victim:
                    self.write("rm", [victim], victim)
            elif r < 0.65:
                f = self.pick(items, lambda i: i["state"] in ("inbox", "processing") and not i["defects"])
                if f:
                    deps: list[str] = []
                    if rng.random() < 0.5:
                        other = self.pick(items, lambda i, f=f: i["filename"] != f and i["state"] in STATES[:3])
                        if other:
                            deps = ["--depends-on", other]
                    self.write("set-dependencies", [f], f, *deps)
            elif r < 0.72:
                # an agent that releases or re-points an item in hold: the person's, maybe
                # (refused once a hold has an owner, SPEC §15; allowed before)
                held = self.pick(items, lambda i: i["state"] == "hold")
                if held:
                    if rng.random() < 0.5:
                        self.write("unhold", [held], held)
                    else:
                        self.write("set-dependencies", [held], held)


# --------------------------------------------------------------------------------------------
# the person: the dashboard's Service


class Person:
    def __init__(self, clone: Path, seed: int, budget: int, log: Log) -> None:
        from atk_tui.service import Service

        self.svc = Service(clone, actor="user")
        self.clone = clone
        self.rng = random.Random(seed)
        self.budget = budget
        self.log = log
        self.undo_stack: list[str] = []
        self.held: dict[str, float] = {}  # items the person holds (to edit later, or just to keep): since
        self.n = 0

    def record(self, op: str, files: list[str], out, **extra: Any) -> bool:
        self.budget -= 1
        rec: dict[str, Any] = {
            "op": op,
            "files": list(files),
            "ok": out.ok,
            "exit": out.exit_code,
            "sha": out.commit,
            "warnings": list(out.warnings),
            "message": out.message[:500],
            **extra,
        }
        if out.ok:
            _, fp = fingerprint(self.clone, out.commit) if out.commit else (None, None)
            rec["fp"], rec["subject"] = fp, fp[0] if fp else None
            rec["unpushed"] = out.pushed is False
            rec["noop"] = not out.commit  # done, nothing to commit (an unhold of an item back in inbox)
        else:
            rec["category"] = classify_exit(out.exit_code, out.message)
        self.log.write(**rec)
        if any("atk wi commit" in w for w in out.warnings):
            # the dashboard shows "N unpushed"; the person runs `atk wi commit`
            t0 = time.time()
            res = self.svc.conflicts.commit_pending()
            self.log.write(op="commit", read=True, exit=res.exit_code, warnings=list(res.warnings), dt=time.time() - t0)
        return out.ok

    def refresh(self):
        """What the dashboard does every minute: pull (under the lock), then reload."""
        from atk_tui.store import AtkError, WriteResult

        t0 = time.time()
        try:
            with self.svc.store.locked(timeout=10):
                self.svc.store.remote.pull(WriteResult())
        except AtkError:
            pass
        view = self.svc.queue()
        self.log.write(op="refresh", read=True, exit=0, dt=time.time() - t0)
        return view

    def run(self) -> None:
        from atk_tui.itemfile.questions import parse_questions

        svc, rng = self.svc, self.rng
        while self.budget > 0:
            view = self.refresh()
            items = [i for i in view.items.values() if not i.defects]
            uwis = [i for i in items if i.kind == "uwi" and i.state == "inbox" and not i.answered]
            awis = [i for i in items if i.kind == "awi"]
            inbox = [i for i in items if i.state == "inbox"]
            free = [i for i in inbox if i.filename not in self.held]
            done = [f for f, since in self.held.items() if time.monotonic() - since >= HOLD_FOR]
            actions = (
                ["answer"] * (3 if uwis else 0)
                + ["edit"] * (2 if inbox else 0)
                + ["hold"] * (1 if free and len(self.held) < 2 else 0)
                + ["release"] * (2 if done else 0)
                + ["comment"] * (2 if awis else 0)
                + ["move"] * (2 if items else 0)
                + ["undo"] * (1 if self.undo_stack else 0)
            )
            if not actions:
                time.sleep(0.3)
                self.budget -= 0.25  # type: ignore[assignment]
                continue
            act = rng.choice(actions)
            self.n += 1
            if act == "answer":
                item = rng.choice(uwis)
                try:
                    full = svc.read(item.filename)
                except Exception:
                    continue
                parsed = parse_questions(full.body)
                choices = {
                    q.number: (q.recommendation or rng.choice(q.options).letter) for q in parsed.questions if q.options
                }
                text = "" if choices else "go ahead"
                if rng.random() < 0.3:
                    text = f"note {self.n}: keep it simple"
                out = svc.answers.answer(item.filename, choices=choices, text=text)
                if self.record("answer", [item.filename], out) and out.commit:
                    self.undo_stack.append(out.commit)
            elif act == "edit":
                item = rng.choice(inbox)
                self.edit(item.filename)
            elif act == "hold":
                # the person takes an item aside for a while (the dashboard's `h`)
                item = rng.choice(free)
                if self.record("hold", [item.filename], svc.writes.transition("hold", [item.filename], expect="inbox")):
                    self.held[item.filename] = time.monotonic()
            elif act == "release":
                name = rng.choice(done)
                del self.held[name]
                self.release(name, edit=rng.random() < 0.6)
            elif act == "comment":
                item = rng.choice(awis)
                out = svc.answers.comment(item.filename, f"person {self.n}: please keep the API stable")
                if self.record("comment", [item.filename], out) and out.commit:
                    self.undo_stack.append(out.commit)
            elif act == "move":
                item = rng.choice(items)
                to = rng.choice([s for s in STATES if s != item.state])
                note = "moved by the person" if to in ("adopted", "rejected") else None
                out = svc.writes.move([item.filename], to, note=note, expect=item.state)
                if self.record("move", [item.filename], out) and out.commit:
                    self.undo_stack.append(out.commit)
            elif act == "undo":
                sha = self.undo_stack[-1]
                out = svc.writes.undo(sha)
                self.record("undo", [], out, undoes=sha)
                self.undo_stack.pop()
            time.sleep(rng.random() * 0.2)  # think time
        for name in list(self.held):  # the end of the day: what the person held goes back (one try each)
            del self.held[name]
            self.release(name, edit=False)

    def release(self, filename: str, *, edit: bool) -> None:
        """Back to the inbox, maybe after an edit; refused (and logged) when the item left the
        hold meanwhile (an agent released it, before holds had an owner)."""
        svc = self.svc
        if edit:
            try:
                text = svc.read(filename, "hold").text
            except Exception:
                text = None
            if text is not None:
                new = text.rstrip("\n") + f"\n\nEdited while held ({self.n}).\n"
                self.record("edit", [filename], svc.writes.save_text(filename, new, expect="hold"))
        self.record("unhold", [filename], svc.writes.unhold(filename, expect="hold"))

    def edit(self, filename: str) -> None:
        """The dashboard's $EDITOR flow: hold, save the whole text, unhold."""
        svc = self.svc
        out = svc.writes.transition("hold", [filename], expect="inbox")
        if not self.record("hold", [filename], out):
            return
        try:
            text = svc.read(filename, "hold").text
        except Exception:
            text = None
        if text is not None and self.budget > 0:
            new = text.rstrip("\n") + f"\n\nEdited by the person ({self.n}).\n"
            out = svc.writes.save_text(filename, new, expect="hold")
            self.record("edit", [filename], out)
        out = svc.writes.unhold(filename, expect="hold")
        self.record("unhold", [filename], out)


# --------------------------------------------------------------------------------------------
# setup, run, check


def setup(tmp: Path, seed: int) -> tuple[Path, list[Path]]:
    sys.path.insert(0, str(ROOT))
    from atk_tui.store import init_store

    remote = tmp / "remote.git"
    env = base_env(tmp, "setup")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True, env=env)
    seedroot, _ = init_store(tmp / "seed")
    git(seedroot, "branch", "-M", "main")
    # a few items the person can work on from the start
    old = os.environ.copy()
    os.environ.update(env)
    try:
        from atk_tui.service import Service

        svc = Service(seedroot, actor="user", pull=False, push=False)
        rng = random.Random(seed)
        for n in range(6):
            kind = "uwi" if n % 3 == 0 else "awi"
            body = (
                f"# seed {n}: which way?\n\n## 質問\nWhich?\n\n- A) one -- a\n- B) two -- b\n\n推奨: A)\n"
                if kind == "uwi"
                else f"# seed {n}: {rng.choice(VERBS)} {rng.choice(OBJECTS)}\n\n- 反映内容: x\n"
            )
            out = svc.writes.add(kind=kind, target_repo=rng.choice(REPOS), body=body)
            assert out.ok, out.message
    finally:
        os.environ.clear()
        os.environ.update(old)
    git(seedroot, "remote", "add", "origin", str(remote))
    git(seedroot, "push", "-q", "-u", "origin", "main")
    clones = []
    for name in ("m1", "m2", "m3"):
        dest = tmp / name
        subprocess.run(["git", "clone", "-q", str(remote), str(dest)], check=True, env=env)
        git(dest, "config", "user.name", name)
        git(dest, "config", "user.email", f"{name}@soak.invalid")
        clones.append(dest)
    shutil.rmtree(seedroot)
    return remote, clones


@contextlib.contextmanager
def served(remote: Path, clones: list[Path], transport: str, seed: int) -> Iterator[dict[str, Any]]:
    """The remote as the clones reach it for the run: its path (`file`), a `git daemon` on
    127.0.0.1 (`daemon`), or that daemon behind a `FlakyRelay` (`flaky`); every clone's origin
    points at it. Yields what the report says about it (the relay's counts are filled in when
    the block ends). The daemon and relay are the tests' own (tests/support/remotes.py)."""
    info: dict[str, Any] = {"transport": transport, "url": str(remote)}
    if transport == "file":
        yield info
        return
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from support.remotes import FlakyRelay, git_daemon

    with git_daemon(remote.parent) as base:
        relay = None
        if transport == "flaky":
            relay = FlakyRelay(int(base.rsplit(":", 1)[1]), latency=FLAKY_LATENCY, drop=FLAKY_DROP, seed=seed)
            base = f"git://127.0.0.1:{relay.port}"
        info["url"] = url = f"{base}/{remote.name}"
        try:
            for clone in clones:
                git(clone, "remote", "set-url", "origin", url)
                retry_git(clone, "fetch", "-q", "origin")
            yield info
        finally:
            if relay is not None:
                info.update(relayed=relay.relayed, dropped=relay.dropped)
                relay.close()


def retry_git(cwd: Path, *args: str, tries: int = FINAL_ROUNDS) -> subprocess.CompletedProcess[str]:
    """git, again (a bounded number of times) while it fails: a flaky remote drops connections."""
    for _ in range(tries):
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=ATK_TIMEOUT)
        if proc.returncode == 0:
            break
        time.sleep(0.2)
    return proc


def run_workers(tmp: Path, clones: list[Path], args: argparse.Namespace) -> tuple[list[Path], list[str]]:
    logs: list[Path] = []
    procs: list[tuple[str, subprocess.Popen]] = []
    machines = [clones[i % 2] for i in range(args.agents)]
    for i, clone in enumerate(machines):
        name = f"agent{i + 1}"
        log = tmp / f"{name}.jsonl"
        logs.append(log)
        env = base_env(tmp, f"{name}-{clone.name}")
        cmd = [
            sys.executable,
            __file__,
            "worker",
            "agent",
            "--name",
            name,
            "--clone",
            str(clone),
            "--seed",
            str(args.seed * 1000 + i),
            "--ops",
            str(args.ops),
            "--log",
            str(log),
        ]
        procs.append(
            (name, subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        )
    log = tmp / "person.jsonl"
    logs.append(log)
    cmd = [
        sys.executable,
        __file__,
        "worker",
        "person",
        "--name",
        "person",
        "--clone",
        str(clones[2]),
        "--seed",
        str(args.seed * 1000 + 999),
        "--ops",
        str(args.person_ops),
        "--log",
        str(log),
    ]
    procs.append(
        (
            "person",
            subprocess.Popen(
                cmd, env=base_env(tmp, "person-m3"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            ),
        )
    )
    problems = []
    deadline = time.time() + args.timeout
    for name, proc in procs:
        try:
            _, err = proc.communicate(timeout=max(deadline - time.time(), 1))
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            problems.append(f"{name}: worker did not finish within {args.timeout:g} s")
        if proc.returncode != 0:
            problems.append(f"{name}: worker exited {proc.returncode}: {err.strip()[-2000:]}")
    return logs, problems


def read_logs(logs: list[Path]) -> list[dict[str, Any]]:
    recs = []
    for path in logs:
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    recs.append(json.loads(line))
    return recs


def remote_history(remote: Path) -> list[tuple[str, str]]:
    out = git(remote, "log", "--format=%H%x00%s", "main")
    return [tuple(line.split("\0", 1)) for line in out.splitlines() if "\0" in line]  # type: ignore[misc]


def tree_names(cwd: Path, rev: str) -> dict[str, list[str]]:
    """filename -> states it is in, from a commit's tree."""
    out = git(cwd, "ls-tree", "-r", "--name-only", "-z", rev, "--", "wi")
    found: dict[str, list[str]] = {}
    for path in out.split("\0"):
        parts = path.split("/")
        if len(parts) == 3 and parts[2] != ".gitkeep":
            found.setdefault(parts[2], []).append(parts[1])
    return found


def worktree_names(root: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for state in STATES:
        d = root / "wi" / state
        for p in d.iterdir() if d.is_dir() else ():
            if p.name != ".gitkeep" and not p.name.startswith(".atk-"):
                found.setdefault(p.name, []).append(state)
    return found


def lock_free(clone: Path) -> bool:
    """The store lock can be taken at once (flock-based: a leftover file is fine)."""
    code = (
        "import sys; from filelock import FileLock, Timeout\n"
        "l = FileLock(sys.argv[1], timeout=0)\n"
        "try:\n l.acquire(); l.release(); print('free')\nexcept Timeout:\n print('held')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(clone / ".git" / "atk.lock")], capture_output=True, text=True
    )
    return proc.stdout.strip() == "free"


def last_answer(tmp: Path, clones: list[Path], seed: int) -> Path:
    """The seeds' answer flow across clones, once the workers are done: an agent on m1 files a
    UWI (`atk wi add --kind uwi`), the person answers it on m3 (`atk wi answer`, at a terminal:
    no agent env); nothing but their next reads can bring that answer to m1 and m2. Logged
    like the workers' writes (the person's answer is one the invariant checks)."""
    path = tmp / "last.jsonl"
    agent = Agent("agent0", clones[0], seed, 4, Log(path, "agent0", clones[0]))
    agent.env = dict(base_env(tmp, "agent0-m1"), CLAUDECODE="1")
    uwi = agent.add_uwi("the last question of the day")
    if uwi and ahead_of_upstream(clones[0]):
        final_commits(tmp, clones[:1])  # a flaky remote dropped the push, and the commit's too
    if uwi and ahead_of_upstream(clones[2]):
        final_commits(tmp, clones[2:])  # the person's own unpushed work first: a read cannot fast-forward over it
    if uwi:
        # the person's dashboard shows the new question once its read brings it in
        env = dict(base_env(tmp, "person-m3"), ATK_READ_WINDOW="0")
        for _ in range(READ_TRIES):
            proc = subprocess.run(
                [atk_exe(), "wi", "show", uwi, "--json", "--store", str(clones[2])],
                capture_output=True,
                text=True,
                env=env,
                timeout=ATK_TIMEOUT,
            )
            if proc.returncode == 0 and '"stale"' not in proc.stdout:
                break
        person = Agent("person", clones[2], seed, 4, Log(path, "person", clones[2]))
        person.env = base_env(tmp, "person-m3")
        for _ in range(3):  # refused only if the question never reached m3 (a flaky remote): bounded
            ok, _ = person.write("answer", [uwi], uwi, "--choose", "1=A", "--text", "last answer of the day")
            if ok:
                break
    return path


def final_commits(tmp: Path, clones: list[Path]) -> list[dict[str, Any]]:
    """`atk wi commit` on each clone, what a person does at the end of the day; again, a
    bounded number of rounds, on a clone whose commit failed or left commits unpushed (a
    flaky remote drops the push; a conflict set aside makes it exit 1 once)."""
    out: list[dict[str, Any]] = []
    pending = list(clones)
    for rnd in range(FINAL_ROUNDS):
        again = []
        for clone in pending:
            proc = subprocess.run(
                [atk_exe(), "wi", "commit", "--yes", "--store", str(clone)],
                capture_output=True,
                text=True,
                env=base_env(tmp, f"final-{clone.name}"),
                timeout=ATK_TIMEOUT,
            )
            ahead = git(clone, "rev-list", "--count", "@{u}..HEAD", check=False).strip()
            rec = {"clone": clone.name, "round": rnd, "exit": proc.returncode, "ahead": ahead}
            out.append(rec | {"stdout": proc.stdout.strip()[-500:], "stderr": proc.stderr.strip()[-500:]})
            if proc.returncode != 0 or ahead != "0":
                again.append(clone)
        pending = again
        if not pending:
            break
    return out


def ahead_of_upstream(clone: Path) -> bool:
    """Commits the remote has not got (by what the clone last heard of it), or uncommitted items."""
    ahead = git(clone, "rev-list", "--count", "@{u}..HEAD", check=False).strip()
    dirty = git(clone, "status", "--porcelain", "--", "wi", "plans", check=False).strip()
    return ahead != "0" or bool(dirty)


def final_pulls(clones: list[Path]) -> list[dict[str, Any]]:
    """Each clone brings in what the remote has by the product's own read (`atk wi list
    --count`: it fast-forwards; ATK_READ_WINDOW=0), asked again while it says its copy may be
    stale (a flaky remote drops connections; at most READ_TRIES times): no hand `git pull`."""
    out = []
    env = dict(os.environ, CLAUDECODE="1", ATK_READ_WINDOW="0")
    for clone in clones:
        for tries in range(1, READ_TRIES + 1):  # noqa: B007 (said after the loop)
            proc = subprocess.run(
                [atk_exe(), "wi", "list", "--count", "--store", str(clone)],
                capture_output=True, text=True, env=env, timeout=ATK_TIMEOUT,
            )  # fmt: skip
            if proc.returncode != 0 or "may be stale" not in proc.stderr:
                break
            time.sleep(0.2)
        out.append({"clone": clone.name, "read": proc.returncode, "tries": tries, "stderr": proc.stderr.strip()[-300:]})
    return out


def landed_on(remote: Path) -> tuple[set[str], set[tuple[str, ...]]]:
    """The remote's commit SHAs and fingerprints (a rebased commit keeps its fingerprint)."""
    shas = {sha for sha, _ in remote_history(remote)}
    return shas, {tuple(fp) for fp in fingerprints(remote, "main")}


def fingerprint_map(remote: Path) -> list[tuple[str, list[str]]]:
    """(SHA, fingerprint) of each commit on the remote's main."""
    out = git(remote, "log", FP_FORMAT, "--date=raw", "main")
    return [(p[0], p[1:]) for p in (line.split("\0") for line in out.splitlines()) if len(p) == 4]


def has_commit(clone: Path, sha: str) -> bool:
    """Whether the clone's HEAD contains `sha` (False when it never fetched it)."""
    proc = subprocess.run(["git", "merge-base", "--is-ancestor", sha, "HEAD"], cwd=clone, capture_output=True)
    return proc.returncode == 0


def removed_names(remote: Path) -> set[str]:
    """Filenames an `rm` (or the undo of an `add`) deleted on the remote."""
    removed: set[str] = set()
    log = git(remote, "log", "--diff-filter=D", "--no-renames", "--format=%x00%s", "--name-only", "main", "--", "wi")
    for chunk in log.split("\0")[1:]:
        lines = chunk.splitlines()
        if lines and (lines[0].startswith("atk: rm ") or lines[0].startswith("atk: undo add ")):
            removed.update(p.split("/")[-1] for p in lines[1:] if p.strip())
    return removed


def check_answers(tmp: Path, remote: Path, agent_clones: list[Path], recs: list[dict[str, Any]]) -> dict[str, Any]:
    """Every answer the person recorded reaches each agent's next read (issue 24 point 5).

    For each answer that landed on the remote: when the remote still has the item answered,
    a plain read on each agent clone (`atk wi show F --json`: it pulls, ATK_READ_WINDOW=0 so
    it asks the remote every time) must show it answered; a read that says its copy may be
    stale is asked again (at most READ_TRIES times). Legitimately moved on: the item removed by
    an `rm` commit, or the answer undone by the person (`atk: undo answer F` on the remote).
    Every read must exit 0. `answers_pulled_by_read` counts the (answer, clone) pairs the clone
    did not have before its read: those prove the read pulled."""
    from atk_tui.itemfile.items import parse_item

    shas, fps = landed_on(remote)
    by_fp = {tuple(fp): sha for sha, fp in fingerprint_map(remote)}
    subjects = {subj for _, subj in remote_history(remote)}
    head = tree_names(remote, "main")
    removed = removed_names(remote)
    answers = [r for r in recs if r["who"] == "person" and r["op"] == "answer" and r["ok"]]
    landed = [r for r in answers if r.get("sha") in shas or (r.get("fp") and tuple(r["fp"]) in fps)]
    failures: list[str] = []
    moved_on = undone = 0
    expected: dict[str, list[str]] = {}  # filename -> the remote's commits of its landed answers
    for r in landed:
        name = r["files"][0]
        if name not in head:
            if name in removed:
                moved_on += 1
            else:
                failures.append(f"answered {name} is gone from the remote without an rm commit")
            continue
        state = head[name][0]
        data = subprocess.run(
            ["git", "cat-file", "blob", f"main:wi/{state}/{name}"], cwd=remote, capture_output=True, check=True
        ).stdout
        if not parse_item(name, state, data).answered:
            if r.get("subject") and f"atk: undo {r['subject'].removeprefix('atk: ')}" in subjects:
                undone += 1
            else:
                failures.append(
                    f"answer to {name} landed ({r.get('subject')!r}) but the remote's {state}/{name} is unanswered"
                )
            continue
        expected.setdefault(name, []).append(r["sha"] if r.get("sha") in shas else by_fp[tuple(r["fp"])])
    checked = stale_reads = pulled = 0
    env = dict(base_env(tmp, "reader"), CLAUDECODE="1", ATK_READ_WINDOW="0")
    env.pop("ATK_READ_TIMEOUT", None)
    for clone in agent_clones:
        # the answers this clone has not got yet (before its first read: a read fast-forwards
        # the whole branch): only its reads can bring them in
        new = {name: sum(1 for sha in commits if not has_commit(clone, sha)) for name, commits in expected.items()}
        for name, commits in sorted(expected.items()):
            for _ in range(READ_TRIES):
                proc = subprocess.run(
                    [atk_exe(), "wi", "show", name, "--json", "--store", str(clone)],
                    capture_output=True,
                    text=True,
                    env=env,
                    timeout=ATK_TIMEOUT,
                )
                if proc.returncode != 0:
                    failures.append(
                        f"{clone.name}: `atk wi show {name}` exited {proc.returncode}: {proc.stderr.strip()[-300:]}"
                    )
                    break
                try:
                    shown = json.loads(proc.stdout.splitlines()[0])
                except (ValueError, IndexError):
                    failures.append(
                        f"{clone.name}: `atk wi show {name} --json` printed no record: {proc.stdout[:200]!r}"
                    )
                    break
                if shown.get("stale"):
                    stale_reads += 1
                    continue
                if shown.get("answered"):
                    checked += len(commits)
                    pulled += new[name]
                else:
                    failures.append(
                        f"{clone.name}: the person's answer to {name} did not reach the agent's read "
                        f"(shown {shown.get('state')}, answered={shown.get('answered')})"
                    )
                break
            else:
                failures.append(f"{clone.name}: {READ_TRIES} reads of {name} in a row said the copy may be stale")
    return {
        "answers_recorded": len(answers),
        "answers_landed": len(landed),
        "answers_checked": checked,
        "answers_pulled_by_read": pulled,
        "answers_moved_on": moved_on,
        "answers_undone": undone,
        "answer_reads_stale": stale_reads,
        "answer_failures": failures,
    }


def check(tmp: Path, remote: Path, clones: list[Path], recs: list[dict[str, Any]]) -> dict[str, Any]:
    failures: list[str] = []
    history = remote_history(remote)
    remote_shas = {sha for sha, _ in history}
    subjects = Counter(subj for _, subj in history)
    writes = [r for r in recs if not r.get("read")]
    ok = [r for r in writes if r["ok"]]

    # where every reported success ended: in the remote (as made, or rebased: same subject,
    # author and author date), set aside by `atk wi commit` (refs/atk/conflicts/*), or
    # dropped by a rebase because the remote already had the very same change
    remote_fps = {tuple(fp) for fp in fingerprints(remote, "main")}
    aside_fps: set[tuple[str, ...]] = set()
    for clone in clones:
        aside_fps |= {tuple(fp) for fp in fingerprints(clone, "--no-walk", "--glob=refs/atk/conflicts/*")}
    landed = landed_late = conflicts = duplicates = lost = noops = 0
    for r in ok:
        fp = tuple(r["fp"]) if r.get("fp") else None
        if r.get("noop"):
            r["outcome"] = "noop"
            noops += 1
        elif r.get("sha") in remote_shas or (fp and fp in remote_fps):
            r["outcome"] = "landed"
            if r.get("unpushed"):
                landed_late += 1
            else:
                landed += 1
        elif fp and fp in aside_fps:
            r["outcome"] = "conflict"
            conflicts += 1
            if not r.get("unpushed"):
                failures.append(f"set aside but reported as pushed: {r['who']} {r['op']} {r['files']}")
        elif r.get("unpushed") and r.get("subject") and subjects[r["subject"]] > 0:
            r["outcome"] = "duplicate"
            duplicates += 1
        else:
            r["outcome"] = "lost"
            lost += 1
            failures.append(f"LOST: {r['who']} {r['op']} {r['files']} sha={r.get('sha')} subject={r.get('subject')!r}")

    # 2. no filename in two states
    head_names = tree_names(remote, "main")
    for name, where in head_names.items():
        if len(where) > 1:
            failures.append(f"remote: {name} is in {where}")
    for clone in clones:
        for name, where in worktree_names(clone).items():
            if len(where) > 1:
                failures.append(f"{clone.name}: {name} is in {where}")

    # 3. no file vanished without an rm commit
    ever: set[str] = set()
    log = git(remote, "log", "--format=%x00%s", "--name-only", "main", "--", "wi")
    removed_by_rm: set[str] = set()
    for chunk in log.split("\0")[1:]:
        lines = chunk.splitlines()
        for p in (p for p in lines[1:] if p.strip()):
            name = p.split("/")[-1]
            if name != ".gitkeep":
                ever.add(name)
    removed_by_rm |= removed_names(remote)
    for r in ok:
        if r["op"] == "add" and r.get("outcome") == "landed":
            ever.update(r["files"])
    vanished = sorted(ever - set(head_names) - removed_by_rm)
    for name in vanished:
        failures.append(f"vanished without an rm commit: {name}")

    # 4. nothing left behind
    for clone in clones:
        g = clone / ".git"
        if not lock_free(clone):
            failures.append(f"{clone.name}: the store lock is still held")
        for leftover in ("atk-journal.json", "index.lock", "rebase-merge", "rebase-apply", "atk-index.tmp"):
            if (g / leftover).exists():
                failures.append(f"{clone.name}: .git/{leftover} left behind")

    # 5. convergence: each clone's branch is the remote's, commit for commit (after its read)
    remote_head = git(remote, "rev-parse", "main").strip()
    for clone in clones:
        here = git(clone, "rev-parse", "HEAD").strip()
        if here != remote_head:
            ahead = git(clone, "rev-list", "--count", f"{remote_head}..HEAD", check=False).strip()
            behind = git(clone, "rev-list", "--count", f"HEAD..{remote_head}", check=False).strip()
            failures.append(
                f"{clone.name}: HEAD {here[:10]} is not the remote's {remote_head[:10]} "
                f"({ahead or '?'} commits it lacks, {behind or '?'} it has not brought in)"
            )
        dirty = git(clone, "status", "--porcelain", "--", "wi", "plans").strip()
        if dirty:
            failures.append(f"{clone.name}: work tree not clean: {dirty.splitlines()[:3]}")

    # 6. every read answers, whatever the remote does (a stale copy is said, not an error)
    reads = [r for r in recs if r.get("read") and r["op"] == "list"]
    for r in reads:
        if r["exit"] != 0:
            failures.append(f"{r['who']} on {r['clone']}: a read exited {r['exit']}: {r.get('message', '')[:200]}")

    failed = [r for r in writes if not r["ok"]]
    cats = Counter(r.get("category", "refused") for r in failed)
    by_op = Counter(r["op"] for r in writes)
    return {
        "attempted": len(writes),
        "landed": landed,
        "landed_late": landed_late,
        "noops": noops,
        "conflicts_set_aside": conflicts,
        "duplicates_dropped": duplicates,
        "superseded": cats.get("superseded", 0),
        "reported_unpushed": sum(1 for r in ok if r.get("unpushed")),
        "refused": cats.get("refused", 0),
        "busy": cats.get("busy", 0),
        "errors": cats.get("error", 0),
        "usage_errors": cats.get("usage", 0),
        "lost": lost,
        "reads": sum(1 for r in recs if r.get("read") and r["op"] != "commit"),
        "reads_stale": sum(1 for r in reads if r.get("stale")),
        "reads_failed": sum(1 for r in reads if r["exit"] != 0),
        "held_by_refusals": sum(
            1 for r in failed if r.get("category") == "refused" and re.search(r"(held|being edited) by", r["message"])
        ),
        "commit_runs": sum(1 for r in recs if r["op"] == "commit"),
        "set_aside_warnings": sum(1 for r in recs for w in r.get("warnings", []) if w.startswith("set aside")),
        "by_op": dict(sorted(by_op.items())),
        "remote_commits": len(history),
        "items_in_remote": len(head_names),
        "files_ever": len(ever),
        "removed_by_rm": len(removed_by_rm),
        "failures": failures,
        "refusal_samples": sorted({r["message"][:100] for r in failed})[:12],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--short", action="store_true", help="the CI size: 4 agents, about 30 s")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--transport",
        choices=TRANSPORTS,
        default="file",
        help="how the clones reach the remote: its path, a local `git daemon` (git://), or that daemon "
        f"behind a relay adding {FLAKY_LATENCY * 1000:g} ms and dropping {FLAKY_DROP:.0%} of the connections",
    )
    ap.add_argument("--agents", type=int, default=None)
    ap.add_argument("--ops", type=int, default=None, help="writes per agent")
    ap.add_argument("--person-ops", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=None, help="seconds before the workers are killed")
    ap.add_argument("--out", type=Path, help="work in DIR (kept) instead of a temporary directory")
    ap.add_argument("--json", type=Path, help="also write the report as JSON to this path")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args(argv)
    if args.agents is None:
        args.agents = 4 if args.short else 6
    if args.ops is None:
        args.ops = 6 if args.short else 40
    if args.person_ops is None:
        args.person_ops = 8 if args.short else 60
    if args.timeout is None:
        args.timeout = 240.0 if args.short else 1800.0
    if args.agents < 4:
        ap.error("--agents must be at least 4")

    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix="soak-", dir=args.out))
    else:
        tmp = Path(tempfile.mkdtemp(prefix="atk-soak-"))
    t0 = time.time()
    try:
        remote, clones = setup(tmp, args.seed)
        with served(remote, clones, args.transport, args.seed) as net:
            t_setup = time.time() - t0
            logs, problems = run_workers(tmp, clones, args)
            t_run = time.time() - t0 - t_setup
            logs.append(last_answer(tmp, clones, args.seed))
            # what the person left unpushed lands first; an agent clone with unpushed commits
            # pushes them (a read never fast-forwards over them); then the agents' reads, which
            # must bring in the rest themselves; then everyone's end-of-day `atk wi commit`
            final = final_commits(tmp, clones[2:])
            final += final_commits(tmp, [c for c in clones[:2] if ahead_of_upstream(c)])
            recs = read_logs(logs)
            answers = check_answers(tmp, remote, clones[:2], recs)
            final += final_commits(tmp, clones)
            final += final_pulls(clones)
        report = check(tmp, remote, clones, recs)
        report["failures"] = problems + answers.pop("answer_failures") + report["failures"]
        report.update(answers)
        report["final"] = final
        report["commit_rounds"] = 1 + max((f["round"] for f in final if "round" in f), default=0)
        report.update(
            transport=args.transport,
            remote=net,
            clones=len(clones),
            wall_s=round(time.time() - t0, 2),
            run_s=round(t_run, 2),
            setup_s=round(t_setup, 2),
            agents=args.agents,
            seed=args.seed,
            dir=str(tmp),
        )
    finally:
        if not (args.keep or args.out):
            shutil.rmtree(tmp, ignore_errors=True)
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    return 0 if not report["failures"] else 1


def print_report(r: dict[str, Any]) -> None:
    print(
        f"soak: {r['agents']} agent processes on 2 clones + 1 person on a third ({r['clones']} clones), "
        f"seed {r['seed']}, transport {r['transport']}"
    )
    net = r["remote"]
    if "dropped" in net:
        print(
            f"  remote                   {net['url']}  (relay: {net['relayed']} connections, {net['dropped']} dropped)"
        )
    elif r["transport"] != "file":
        print(f"  remote                   {net['url']}")
    print(f"  operations attempted     {r['attempted']:>6}   ({', '.join(f'{k} {v}' for k, v in r['by_op'].items())})")
    print(f"  landed                   {r['landed']:>6}")
    print(
        f"  done, nothing to commit  {r['noops']:>6}   (exit 0, 'nothing committed': e.g. unhold of an item back in inbox)"
    )
    print(
        f"  reported unpushed        {r['reported_unpushed']:>6}   (landed later by `atk wi commit`: {r['landed_late']}, "
        f"set aside as conflicts: {r['conflicts_set_aside']})"
    )
    print(
        f"  refused by rule (exit 1) {r['refused'] + r['superseded']:>6}   (of which 'another machine made the same "
        f"change first': {r['superseded']}; unpushed duplicates dropped at `atk wi commit`: {r['duplicates_dropped']})"
    )
    print(f"  of which 'held by'       {r['held_by_refusals']:>6}")
    print(f"  store busy / git errors  {r['busy']:>6} / {r['errors']}")
    print(f"  lost                     {r['lost']:>6}")
    print(
        f"  reads                    {r['reads']:>6}   (+ {r['commit_runs']} `atk wi commit` runs after an "
        f"'unpushed' warning, which set aside {r['set_aside_warnings']} conflicting commits); "
        f"stale {r['reads_stale']}, failed {r['reads_failed']}"
    )
    print(
        f"  answers checked          {r['answers_checked']:>6}   (the person recorded {r['answers_recorded']}, "
        f"{r['answers_landed']} landed; each read back on m1 and m2, {r['answers_pulled_by_read']} brought in by "
        f"that read itself; moved on {r['answers_moved_on']}, "
        f"undone {r['answers_undone']}; stale reads asked again {r['answer_reads_stale']})"
    )
    print(f"  final `atk wi commit`    {r['commit_rounds']:>6}   round(s)")
    print(
        f"  remote: {r['remote_commits']} commits, {r['items_in_remote']} items; {r['files_ever']} filenames ever, "
        f"{r['removed_by_rm']} removed by rm"
    )
    print(f"  wall time                {r['wall_s']:>6.1f} s  (workers {r['run_s']:.1f} s)")
    if r["failures"]:
        print("INVARIANTS BROKEN:")
        for f in r["failures"]:
            print("  - " + f)
    else:
        print(
            "  invariants: all hold (no loss, no two-state file, no vanished file, no lock left, clones converged, "
            "every answer reached both agents' reads, every read exited 0)"
        )


def worker_main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("role", choices=["agent", "person"])
    ap.add_argument("--name", required=True)
    ap.add_argument("--clone", type=Path, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--ops", type=int, required=True)
    ap.add_argument("--log", type=Path, required=True)
    a = ap.parse_args(argv)
    log = Log(a.log, a.name, a.clone)
    if a.role == "agent":
        Agent(a.name, a.clone, a.seed, a.ops, log).run()
    else:
        sys.path.insert(0, str(ROOT))
        Person(a.clone, a.seed, a.ops, log).run()
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        sys.exit(worker_main(sys.argv[2:]))
    sys.exit(main())
