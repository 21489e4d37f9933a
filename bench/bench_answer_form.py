#!/usr/bin/env python3
"""Time opening the answer form (`a`) on a UWI with very many questions (SPEC §14, issue 10).

    python bench/bench_answer_form.py [--counts 1000,10000] [--size 120x40]

For each count: a store holding one UWI with that many questions (three options each; the
10,000-question body is ~0.8 MB, under the 1 MiB item limit), the dashboard in process
(`App.run_test`, headless), and the seconds from pressing `a` until the form is mounted and
idle; also the seconds to parse the body and to show the item's detail pane. Prints one line
per count. A benchmark, not a test: it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from atk_tui.itemfile.questions import parse_questions  # noqa: E402
from atk_tui.store import init_store  # noqa: E402


def uwi_body(n: int) -> str:
    """n questions of three options each, ~83 bytes a question (10,000: ~830 KB)."""
    qs = [f"### Q{i}. Retry policy {i}?\n- A) backoff\n- B) fixed\n- C) none\n推奨: A)\n" for i in range(1, n + 1)]
    return "# Retry policies for every service\n\n## 背景\nMany services.\n\n## 質問\n" + "\n".join(qs)


def make_store(base: Path, n: int) -> tuple[Path, str]:
    import subprocess

    root, _ = init_store(base / f"store-{n}")
    name = f"2026-11-29-many-questions-{n}.md"
    text = f"---\nkind: uwi\ntarget_repo: acme/webapp\nurgency: blocking\n---\n{uwi_body(n)}"
    (root / "wi" / "inbox" / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "add"], cwd=root, check=True)
    return root, name


async def measure(root: Path, name: str, size: tuple[int, int]) -> tuple[float, float]:
    from support.actions_support import settle
    from support.tui_helpers import build_app

    app = build_app(root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        t0 = time.perf_counter()
        app.main.jump_to(name)
        await settle(pilot)
        detail = time.perf_counter() - t0
        t0 = time.perf_counter()
        await pilot.press("a")
        await settle(pilot)
        form = time.perf_counter() - t0
        assert type(app.screen).__name__ == "AnswerScreen", app.screen
        await pilot.press("escape")
        await settle(pilot)
    return detail, form


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--counts", default="1000,10000")
    ap.add_argument("--size", default="120x40")
    args = ap.parse_args()
    w, h = (int(x) for x in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(c) for c in args.counts.split(",")):
            root, name = make_store(Path(tmp), n)
            size_kb = (root / "wi" / "inbox" / name).stat().st_size / 1024
            t0 = time.perf_counter()
            parsed = parse_questions((root / "wi" / "inbox" / name).read_text())
            parse_s = time.perf_counter() - t0
            assert len(parsed.questions) >= min(n, 9999), len(parsed.questions)  # numbers have 4 digits at most
            detail, form = asyncio.run(measure(root, name, (w, h)))
            print(f"{n:>6} questions ({size_kb:,.0f} KB): parse {parse_s:.3f} s, detail pane {detail:.3f} s, open answer form {form:.3f} s")


if __name__ == "__main__":
    main()
