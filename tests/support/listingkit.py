"""Helpers of the judged-listing cache's tests (`atk wi list`): a small store, time passing,
and a listing served from the cache or computed from scratch.

Imported as `from support.listingkit import ...`."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import atk_tui.cli as cli_package
from atk_tui.cache import caches as cache_mod
from atk_tui.cli import main as cli
from atk_tui.service import Service
from atk_tui.store import init_store
from support.storekit import AWI_BODY, UWI_BODY, add_item, git


def age(root: Path, seconds: float = 30) -> None:
    """Time passes: every stat time in the store moves into the past (so the listing is not
    racy and gets saved), as it would between an agent's commands."""
    past = time.time() - seconds
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            os.utime(os.path.join(dirpath, name), (past, past), follow_symlinks=False)
        os.utime(dirpath, (past, past))


def settle(root: Path) -> None:
    """Time passes and git has looked at the work tree since (`git update-index --refresh`,
    as `git status` or a commit does): the index's record of every unchanged file matches
    the file again, and the index itself is in the past too."""
    age(root, 30)
    git(root, "update-index", "-q", "--refresh", check=False)  # fails (and says so) while a file differs
    past = time.time() - 20
    os.utime(root / ".git" / "index", (past, past))


def rewrite_in_place(path: Path, text: str) -> None:
    """`text` written over the file in place (same inode, so its folder does not change) and
    its mtime set back to what it was: only the change time tells. Written in a later second
    than the file's last change, as it would be after a listing is saved (the saved index is
    2 s old): git compares change times to the second (and file times come from a clock a
    few milliseconds behind `time.time()`)."""
    st = path.stat()
    time.sleep(max(0.0, st.st_ctime_ns // 1_000_000_000 + 1.05 - time.time()))
    with open(path, "r+b") as fh:
        fh.write(text.encode())
        fh.truncate()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def listing(root: Path, argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
            *, scratch: bool) -> tuple[str, bool]:  # fmt: skip
    """(stdout, served from the listing cache) of `atk ARGV --store ROOT`."""
    served = []
    real = cli_package.cached_list

    def spy(r: Path, args: object, stale: str | None = None) -> bool:
        hit = False if scratch else real(r, args, stale)  # type: ignore[arg-type]
        served.append(hit)
        return hit

    with monkeypatch.context() as m:
        m.setattr(cli_package, "cached_list", spy)
        if scratch:
            m.setattr(cache_mod.ListingCache, "writer", lambda self: None)  # made from the store, not kept
            m.setattr(cache_mod.ItemCache, "load", lambda self: setattr(self, "entries", {}))
            m.setattr(cache_mod.ItemCache, "save", lambda self, keep=None: None)
            m.setattr(cache_mod.LineCache, "stream", lambda self: None)  # (its lines then go to `save`)
        capsys.readouterr()
        assert cli.run([*argv, "--store", str(root)]) == 0
        out = capsys.readouterr().out
    return out, served[0]


def make_store(tmp: Path) -> tuple[Path, Service]:
    root, _ = init_store(tmp / "store")
    git(root, "branch", "-M", "main")
    svc = Service(root, actor="user", pull=False, push=False)
    a = add_item(svc, target_repo="acme/api")
    add_item(svc, body=UWI_BODY, kind="uwi", target_repo="acme/api", depends_on=[a])
    b = add_item(svc, body=AWI_BODY.replace("Use one", "Use two"), depends_on=[a])
    add_item(svc, body=AWI_BODY.replace("Use one", "Use three"), depends_on=[b])
    svc.writes.transition_command("hold", [b])
    return root, svc


def items_in(root: Path, state: str) -> list[str]:
    return sorted(p.name for p in (root / "wi" / state).glob("*.md"))
