"""Helpers for the graph and dependency-editor tests: small stores built for one case each,
apps from `make_app` with a frozen clock, and waits that settle instead of sleeping.

Stores whose dependencies `set-dependencies` would refuse (cycles, missing items) are written as
files and committed with git; the others go through `svc.writes.add`, whose filenames come from the
injected clock (it steps one second per item, so every name is fixed by `NOW`).
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from atk_tui.service import Service
from atk_tui.store import init_store
from atk_tui.tui.app import AtkApp
from support.apps import DEMO, STORE_LABEL, THEME, build_app, make_recorded, press, screen_text, settle  # noqa: F401 (re-exported)
from support.clock import NOW, SteppingClock, frozen_clock  # noqa: F401 (re-exported)
from support.storekit import git

SIZE = (120, 40)


@asynccontextmanager
async def graph_of(root: Path, center: str, **kw: Any) -> AsyncIterator[tuple[AtkApp, Pilot]]:
    """The app on `root`, loaded, with the graph around `center` open (`v`); its
    notifications recorded in `app.notes`."""
    app = make_recorded(root, **kw)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main.jump_to(center), center
        await settle(pilot)
        await press(pilot, "v")
        yield app, pilot


# -- stores ---------------------------------------------------------------------------------


def body(title: str) -> str:
    return f"""# {title}

- 反映内容: {title}
- 反映先: the code
- 理由: a test
- メリット: one
- デメリット: none
- 完成条件: done
"""


UWI_BODY = """# {title}

## 質問
Which one?

- A) The first -- simple
- B) The second -- fast

推奨: A) simple
"""


def service(root: Path) -> Service:
    return Service(root, clock=SteppingClock(), actor="user", pull=False, push=False)


def add(svc: Service, title: str, *, deps: tuple[str, ...] = (), repo: str = "acme/webapp", uwi: bool = False) -> str:
    out = svc.writes.add(
        kind="uwi" if uwi else "awi",
        target_repo=repo,
        body=UWI_BODY.format(title=title) if uwi else body(title),
        depends_on=list(deps),
    )
    assert out.ok, out.message
    return out.files[0]


def item_text(
    title: str, *, deps: list[str] | None = None, repo: str = "acme/webapp", created: str = "2026-11-29T06:00:00Z"
) -> str:
    lines = ["---", "kind: awi", f"target_repo: {repo}"]
    if deps:
        lines.append("depends_on: [" + ", ".join(deps) + "]")
    lines += [f"created: {created}", "---", ""]
    return "\n".join(lines) + body(title)


def write_items(root: Path, files: dict[tuple[str, str], str], message: str = "test: items") -> None:
    """Write `(state, filename) -> text` into the store and commit them in one commit."""
    for (state, name), text in files.items():
        (root / "wi" / state / name).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def new_store(tmp_path: Path) -> Path:
    root, _ = init_store(tmp_path / "notes")
    return root


def chain_store(tmp_path: Path) -> tuple[Path, list[str]]:
    """done <- a (UWI) <- b <- c <- d: a chain with a done dependency at its start."""
    root = new_store(tmp_path)
    done = "20261120-090000-old-groundwork.md"
    write_items(root, {("adopted", done): item_text("Old groundwork, adopted last week")})
    svc = service(root)
    a = add(svc, "Pick the session store", uwi=True)
    b = add(svc, "Persist login sessions", deps=(a, done))
    c = add(svc, "Redirect on session expiry", deps=(b,))
    d = add(svc, "Session store dashboard", deps=(c,))
    return root, [done, a, b, c, d]


def diamond_store(tmp_path: Path) -> tuple[Path, list[str]]:
    """a <- b, a <- c, b <- d, c <- d."""
    root = new_store(tmp_path)
    svc = service(root)
    a = add(svc, "Shared schema")
    b = add(svc, "API endpoint", deps=(a,))
    c = add(svc, "Background job", deps=(a,))
    d = add(svc, "Release notes", deps=(b, c))
    return root, [a, b, c, d]


CYCLE_NAMES = [
    "20261129-060000-split-billing.md",
    "20261129-060100-invoice-pdf.md",
    "20261129-060200-tax-report.md",
    "20261129-060300-self-reference.md",
    "20261129-060400-billing-docs.md",
]


def cycle_store(tmp_path: Path) -> tuple[Path, list[str]]:
    """split <-> invoice <- tax -> split (two cycles), a self-dependency, and docs depending on split."""
    root = new_store(tmp_path)
    split, invoice, tax, selfref, docs = CYCLE_NAMES
    write_items(
        root,
        {
            ("inbox", split): item_text("Split billing interface", deps=[invoice]),
            ("inbox", invoice): item_text("Move invoice PDF", deps=[tax]),
            ("inbox", tax): item_text("Tax report", deps=[split, invoice]),
            ("inbox", selfref): item_text("Refers to itself", deps=[selfref]),
            ("inbox", docs): item_text("Billing docs", deps=[split]),
        },
    )
    return root, CYCLE_NAMES


MISSING = "20261101-080000-removed-long-ago.md"


def missing_store(tmp_path: Path) -> tuple[Path, list[str]]:
    """login <- (missing) and login <- signup, plus signup depending on a second missing name."""
    root = new_store(tmp_path)
    login, signup = "20261129-070000-login-endpoint.md", "20261129-070100-signup-form.md"
    write_items(
        root,
        {
            ("inbox", login): item_text("Login endpoint", deps=[MISSING]),
            ("inbox", signup): item_text("Signup form", deps=[login, "20261102-090000-also-gone.md"]),
        },
    )
    return root, [login, signup, MISSING]


def cross_repo_store(tmp_path: Path) -> tuple[Path, list[str]]:
    """A webapp item depending on an api item depending on an infra item (and a webapp one)."""
    root = new_store(tmp_path)
    svc = service(root)
    infra = add(svc, "Provision the Redis cluster", repo="acme/infra")
    api = add(svc, "Health endpoint", repo="acme/api", deps=(infra,))
    lib = add(svc, "Shared HTTP client", repo="acme/webapp")
    web = add(svc, "Admin header shows API health", repo="acme/webapp", deps=(api, lib))
    return root, [infra, api, lib, web]


def fifty_store(tmp_path: Path) -> tuple[Path, list[str]]:
    """50 items in 6 levels, each depending on one or two items of the level before (all of
    them depend, directly or not, on the root UWI)."""
    root = new_store(tmp_path)
    rng = random.Random(5)
    sizes = [1, 4, 8, 12, 13, 12]
    names: list[list[str]] = []
    files: dict[tuple[str, str], str] = {}
    n = 0
    words = ("cache", "login", "export", "search", "billing", "docs", "alerts", "ci", "schema", "api")
    for level, size in enumerate(sizes):
        row = []
        for _ in range(size):
            name = f"20261129-{8 + n // 60:02d}{n % 60:02d}00-item-{n:02d}.md"
            deps = sorted(rng.sample(names[-1], min(len(names[-1]), rng.choice((1, 1, 2))))) if names else []
            title = f"{words[n % len(words)]} step {level}.{len(row)}"
            repo = "acme/api" if n % 7 == 3 else "acme/webapp"
            files[("inbox", name)] = item_text(title, deps=deps, repo=repo)
            row.append(name)
            n += 1
        names.append(row)
    write_items(root, files)
    return root, [x for row in names for x in row]
