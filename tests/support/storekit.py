"""Helpers shared by every test folder: real git stores in tmp_path, a bare remote, a clock.

Imported as `from support.storekit import ...`."""

from __future__ import annotations

import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

from atk_tui.service import Service
from atk_tui.store import init_store
from support.clock import NOW

FROZEN = NOW

AWI_BODY = """# Use one email validator everywhere

- 反映内容: replace the two validators with one
- 反映先: acme/webapp auth module
- 理由: auth and signup disagree on edge cases
- メリット: one behaviour
- デメリット: なし
- 完成条件: every form uses the same validator
"""

UWI_BODY = """# Which email validation should be the project standard?

## 背景
Two patterns were found.

## 質問
Which approach should be the standard?

- A) Strict RFC 5322 -- rejects fewer valid addresses, harder to maintain
- B) Simple regex -- faster, may accept malformed addresses
- C) Context-dependent -- strict for auth, lenient for forms

推奨: A) consistent everywhere
"""




#: SPEC §5's agent transition table, written out from the spec (not from the product's
#: `core.ops` table, which the tests check against it): op -> (from states without flags, target)
SPEC_AGENT_FROM: dict[str, set[str]] = {
    "hold": {"inbox"},
    "unhold": {"hold"},
    "start-processing": {"inbox"},
    "adopt": {"processing"},
    "reject": {"processing"},
    "return-to-inbox": {"processing"},
}
#: the person's verbs that keep their meaning (SPEC §5): hold is inbox -> hold for everyone; the
#: others start from any state but their target (the explicit any -> any move is `atk wi move`)
SPEC_USER_FROM_ONLY: dict[str, set[str]] = {"hold": {"inbox"}}
SPEC_TARGET: dict[str, str] = {
    "hold": "hold",
    "unhold": "inbox",
    "start-processing": "processing",
    "adopt": "adopted",
    "reject": "rejected",
    "return-to-inbox": "inbox",
}


def git(cwd: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if check and proc.returncode:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def make_remote_pair(tmp: Path, name: str = "store") -> tuple[Path, Path]:
    """A bare remote and a store cloned from it, with upstream set."""
    remote = tmp / f"{name}-remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    root, _ = init_store(tmp / name)
    git(root, "branch", "-M", "main")
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "-u", "origin", "main")
    return root, remote


def clone(remote: Path, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(remote), str(dest)], check=True)
    return dest






class Clock:
    def __init__(self, now: datetime = FROZEN) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now






def add_item(svc: Service, body: str = AWI_BODY, **kw) -> str:
    kw.setdefault("kind", "awi")
    kw.setdefault("target_repo", "acme/webapp")
    out = svc.writes.add(body=body, **kw)
    assert out.ok, out.message
    # distinct timestamps keep generated filenames apart
    if hasattr(svc.clock, "now"):
        from datetime import timedelta

        svc.clock.now += timedelta(seconds=1)
    return out.files[0]


def tree_state(root: Path) -> dict[str, object]:
    """Everything a rollback must restore: HEAD, the index, and the work tree files."""
    files = {}
    for p in sorted(root.rglob("*")):
        if ".git" in p.relative_to(root).parts or not p.is_file():
            continue
        files[str(p.relative_to(root))] = p.read_bytes()
    return {
        "head": git(root, "rev-parse", "HEAD").strip(),
        "index": git(root, "ls-files", "-s"),
        "files": files,
    }






def spy_parses(monkeypatch: Any) -> list[str]:
    """The names of the item files the service parses from now on, in order (every read of an
    item file by a listing or refresh goes through `Reads._parse_file`)."""
    from atk_tui.service.reading import reads

    parsed: list[str] = []
    real = reads.Reads._parse_file

    def spy(root: str, rel: str, name: str, state: str, queue: str) -> Any:
        parsed.append(name)
        return real(root, rel, name, state, queue)

    monkeypatch.setattr(reads.Reads, "_parse_file", staticmethod(spy))
    return parsed


def rewind_remote(remote: Path, rev: str, how: str = "force-push", scratch: Path | None = None) -> None:
    """Rewrite the bare `remote`'s main back to `rev` (dropping what was pushed after it), as
    a careless `git push --force` from another clone (`scratch`: where that clone goes) or
    an admin's `git update-ref` in the bare repository does."""
    if how == "update-ref":
        git(remote, "update-ref", "refs/heads/main", rev)
        return
    other = clone(remote, scratch or remote.with_name(remote.name + "-rewinder"))
    git(other, "push", "-q", "--force", "origin", f"{rev}:refs/heads/main")
