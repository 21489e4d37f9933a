"""Issue 25's hostile helpers: cache records forged as another process would forge them
(rewritten, and the CRC-32 that guards them recomputed), endless inputs, a huge dependency
graph. Shared by tests/soak/test_hostile_inputs.py, the hostile corpus and the fault script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from atk_tui.cache import files
from atk_tui.cache.caches import RECORD

ATK = Path(sys.executable).with_name("atk")


def forge_item_record(root: Path, filename: str, scope: str = "active", **fields: Any) -> Path:
    """Rewrite `filename`'s record in the store's item cache (the entry `items-<scope>`) with
    `fields` (names of `cache.caches.RECORD`), size and CRC-32 recomputed: a forgery the
    checksum cannot tell from the real thing. Returns the cache file."""
    got = files.read(root / ".git", f"items-{scope}")
    assert got is not None, f"no item cache items-{scope}"
    entries = json.loads(bytes(got[1]))
    keys = [k for k in entries if k.endswith("/" + filename)]
    assert keys, f"no cache record for {filename} in items-{scope}"
    for key in keys:
        for name, value in fields.items():
            entries[key][RECORD.index(name)] = value
    assert files.write(root / ".git", f"items-{scope}", [json.dumps(entries, separators=(",", ":")).encode("ascii")])
    return files.path_of(root / ".git", f"items-{scope}")


def forge_listing(root: Path, change: Callable[[bytes], bytes]) -> list[Path]:
    """Rewrite every judged listing the store keeps (the entries `list-*`): its lines and meta
    through `change`, size and CRC-32 recomputed. Returns the files rewritten."""
    done = []
    for path in sorted((root / ".git" / "atk-cache").glob("list-*.cache")):
        name = path.name.removesuffix(".cache")
        got = files.read(root / ".git", name, check_key=False)
        assert got is not None, name
        header, whole = got
        cut = header["meta_at"]
        payload, meta = change(bytes(whole[:cut])), change(bytes(whole[cut + 1 :]))
        extra = {k: v for k, v in header.items() if k not in ("code", "key", "size", "crc32")}
        extra["meta_at"] = len(payload)
        assert files.write(root / ".git", name, [payload, b"\n" + meta], header["key"], **extra)
        done.append(path)
    return done


def forge_holders(root: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """Rewrite the holders cache (the entry `holders`, service/core/holds.py): its JSON through
    `change` (in place), size and CRC-32 recomputed. Returns the cache file."""
    got = files.read(root / ".git", "holders", check_key=False)
    assert got is not None, "no holders cache"
    header, whole = got
    data = json.loads(bytes(whole))
    change(data)
    assert files.write(root / ".git", "holders", [json.dumps(data).encode("utf-8")], header["key"])
    return files.path_of(root / ".git", "holders")


def atk_run(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120, memory: int | None = None, **kw: Any
) -> subprocess.CompletedProcess[str]:
    """The `atk` console script, as an agent or a person runs it (`env` added to ours;
    `memory`: its address space capped at that many bytes, so an unbounded read fails
    instead of taking the machine's memory)."""

    def cap() -> None:
        if memory is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [str(ATK), *args], capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})},
        preexec_fn=cap if memory is not None else None, **kw,
    )  # fmt: skip


def process_loop_once(
    root: Path, work: Path, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """`atk wi process-loop --once` with a CMD that records what it was handed:
    (the run, every filename handed out)."""
    work.mkdir(parents=True, exist_ok=True)
    record = work / "handed.txt"
    cmd = f"{sys.executable} -c \"import os; open({str(record)!r}, 'a').write(os.environ['ATK_READY_FILES'] + '\\n')\""
    proc = atk_run("wi", "process-loop", "--once", "--run", cmd, "--store", str(root), "--skip-pull", env=env)
    handed = record.read_text().split() if record.exists() else []
    return proc, handed


def chain_and_star(n: int = 3000) -> dict[str, str]:
    """The graph that froze the dashboard: an `n`-item dependency chain and one item that
    depends on all of them. filename -> item text."""
    names = [f"20261129-{i:06d}-c.md" for i in range(n)]
    files: dict[str, str] = {}
    for i, name in enumerate(names):
        deps = f"depends_on: [{names[i - 1]}]\n" if i else ""
        files[name] = f"---\nkind: awi\ntarget_repo: acme/api\n{deps}---\n# chain {i}\n"
    files["20261130-000000-star.md"] = (
        f"---\nkind: awi\ntarget_repo: acme/api\ndepends_on: [{', '.join(names)}]\n---\n# star\n"
    )
    return files
