"""Issue 25's hostile helpers: cache records forged as another process would forge them
(rewritten, and the CRC-32 that guards them recomputed), endless inputs, a huge dependency
graph. Shared by tests/core/test_hardening2.py, the hostile corpus and the fault script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from atk_tui.cache.caches import _HEADER, FIELDS, LISTING_VERSION, VERSION

ATK = Path(sys.executable).with_name("atk")


def forge_item_record(root: Path, filename: str, scope: str = "active", **fields: Any) -> Path:
    """Rewrite `filename`'s record in the store's item cache (`.git/atk-cache/<scope>-vN.json`)
    with `fields` (names of `cache.FIELDS`), header and CRC-32 recomputed: a forgery the
    checksum cannot tell from the real thing. Returns the cache file."""
    path = root / ".git" / "atk-cache" / f"{scope}-v{VERSION}.json"
    raw = path.read_bytes()
    entries = json.loads(raw[raw.index(b"\n") + 1 :])
    keys = [k for k in entries if k.endswith("/" + filename)]
    assert keys, f"no cache record for {filename} in {path.name}"
    for key in keys:
        for name, value in fields.items():
            entries[key][FIELDS.index(name)] = value
    payload = json.dumps(entries, separators=(",", ":")).encode("ascii")
    header = json.dumps({"version": VERSION, "size": len(payload), "crc32": zlib.crc32(payload)}).encode("ascii")
    path.write_bytes(header.ljust(_HEADER) + b"\n" + payload)
    return path


def forge_listing(root: Path, change: Callable[[bytes], bytes]) -> list[Path]:
    """Rewrite every judged listing the store keeps (`.git/atk-cache/list-*`): its lines and
    meta through `change`, size and CRC-32 recomputed. Returns the files rewritten."""
    done = []
    for path in sorted((root / ".git" / "atk-cache").glob(f"list-*-v{LISTING_VERSION}")):
        raw = path.read_bytes()
        size = int(raw[:12])
        end = 13 + size
        nl = raw.find(b"\n", end + 1)
        payload, meta = change(raw[13:end]), change(raw[end + 1 : nl])
        header = json.loads(raw[nl + 1 :])
        header["size"] = len(meta) + len(payload)
        header["crc32"] = zlib.crc32(meta, zlib.crc32(payload))
        path.write_bytes(b"%012d\n" % len(payload) + payload + b"\n" + meta + b"\n" + json.dumps(header).encode())
        done.append(path)
    return done


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
