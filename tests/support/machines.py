"""Many machines from the command line: `atk` run as the console script on a clone, as the
person or as a named agent (CLAUDECODE=1, ATK_AGENT_ID), as the agent skills type it. Shared by
tests/service/test_many_machines_round2.py and the multi-clone soak."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.storekit import git

ATK = str(Path(sys.executable).with_name("atk"))


def atk(root: Path, *args: str, agent: str | None = None, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    """`atk ARGS --store ROOT`; `agent`: as that agent (CLAUDECODE=1 and ATK_AGENT_ID=agent;
    "" for an unnamed agent), else as the person."""
    full = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "ATK_AGENT_ID")}
    full.update({"ATK_READ_WINDOW": "0", **env})
    if agent is not None:
        full["CLAUDECODE"] = "1"
        if agent:
            full["ATK_AGENT_ID"] = agent
    return subprocess.run([ATK, *args, "--store", str(root)], capture_output=True, text=True, env=full, timeout=timeout)


def ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, f"{proc.args}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def add_awi(root: Path, title: str = "Ship it", *, agent: str | None = "adder", body: str | None = None) -> str:
    text = body or f"# {title}\n\n- 反映内容: {title}\n- 反映先: acme/webapp\n- 完成条件: done\n"
    out = ok(atk(root, "wi", "add", "--kind", "awi", "--target-repo", "acme/webapp", "--source", "add-awi", text, agent=agent))
    return out.stdout.splitlines()[0].strip()


def shown(root: Path, filename: str) -> dict:
    """`atk wi show F --json` on this clone (it pulls first)."""
    out = ok(atk(root, "wi", "show", filename, "--json", agent=""))
    return json.loads(out.stdout.splitlines()[0])


def set_aside(root: Path) -> list[str]:
    """The commits set aside on this clone (refs/atk/conflicts/*)."""
    return git(root, "for-each-ref", "--format=%(refname)", "refs/atk/conflicts").split()


def where(root: Path, filename: str) -> str:
    """The state folder `filename` is in on this clone's work tree ("" when nowhere)."""
    found = [p.parent.name for p in root.glob(f"wi/*/{filename}")]
    return ",".join(sorted(found))
