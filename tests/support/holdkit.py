"""Hold ownership across clones (SPEC §15): a bare remote, the person's clone and agents'
clones, `atk` run in process as the person or as an (optionally named) agent.

    world = Clones.make(tmp_path, "a", "b")
    world.atk("a", "wi", "hold", name)                       # the person on clone A
    world.atk("b", "wi", "unhold", name, agent="worker-1")   # an agent on clone B
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from atk_tui.cli.main import run
from support.environ import patched_environ
from support.remotes import bare_with_clones
from support.storekit import git

ANON = ""  # `agent=ANON`: an agent session that names itself with nothing


@dataclass
class Clones:
    """A bare remote and named clones of it (`remotes.bare_with_clones`)."""

    remote: Path
    roots: dict[str, Path]
    capsys: pytest.CaptureFixture[str]
    calls: list[tuple[str, ...]] = field(default_factory=list)

    @classmethod
    def make(cls, tmp: Path, capsys: pytest.CaptureFixture[str], *names: str) -> Clones:
        remote, roots = bare_with_clones(tmp, names)
        return cls(remote, roots, capsys)

    def __getitem__(self, name: str) -> Path:
        return self.roots[name]

    def atk(self, where: str, *args: str, agent: str | None = None) -> tuple[int, str, str]:
        """`atk ARGS --store <clone>` in process: (exit code, stdout, stderr). `agent`: run in
        an agent environment (CLAUDECODE=1), named by ATK_AGENT_ID unless it is ANON; None:
        as the person."""
        env: dict[str, str | None] = {"CLAUDECODE": None, "ATK_AGENT_ID": None}
        if agent is not None:
            env["CLAUDECODE"] = "1"
            env["ATK_AGENT_ID"] = agent or None
        self.calls.append((where, *args))
        self.capsys.readouterr()
        with patched_environ(**env):
            try:
                rc = run([*args, "--store", str(self.roots[where])])
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 1
        out, err = self.capsys.readouterr()
        return rc, out, err

    def remote_head(self) -> str:
        return git(self.remote, "rev-parse", "main").strip()

    def head(self, where: str) -> str:
        return git(self.roots[where], "rev-parse", "HEAD").strip()

    def pull(self, where: str) -> None:
        git(self.roots[where], "pull", "-q", "--rebase")

    def state(self, where: str, name: str, queue: str = "wi") -> str | None:
        found = [p.parent.name for p in (self.roots[where] / queue).glob(f"*/{name}")]
        assert len(found) <= 1, found
        return found[0] if found else None

    def add(self, where: str, title: str = "Fix the login", queue: str = "wi", kind: str | None = None) -> str:
        """A new item (by the person), pushed; its filename."""
        body = (
            f"# {title}\n\n- 反映内容: x\n- 反映先: y\n- 理由: z\n- メリット: m\n- デメリット: なし\n- 完成条件: done\n"
        )
        args = [queue, "add", "--target-repo", "acme/webapp", body]
        if kind:
            args[2:2] = ["--kind", kind]
        rc, out, err = self.atk(where, *args)
        assert rc == 0, err
        return out.splitlines()[0].strip()


def trailers(root: Path, rev: str = "HEAD") -> tuple[str, str]:
    """(Atk-Actor, Atk-Agent) of a commit."""
    fmt = "%(trailers:key=Atk-Actor,valueonly)%x1f%(trailers:key=Atk-Agent,valueonly)"
    actor, agent = git(root, "show", "-s", f"--format={fmt}", rev).split("\x1f")
    return actor.strip(), agent.strip()
