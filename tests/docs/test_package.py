"""The package as an index shows it (issue 44): its metadata (classifiers, project URLs,
author, the SPDX licence and its files), a README whose links work on an index page (absolute,
under the project's Source URL), and a build with no warning that passes `twine check`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)")


def test_the_metadata_an_index_shows() -> None:
    assert PROJECT["license"] == "MIT", "an SPDX expression, not a table"
    for path in PROJECT["license-files"]:
        assert (ROOT / path).is_file(), path
    assert PROJECT["authors"] and PROJECT["authors"][0]["name"]
    classifiers = PROJECT["classifiers"]
    assert "Programming Language :: Python :: 3.11" in classifiers and "Environment :: Console" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")], "the licence is said once, by `license`"
    urls = PROJECT["urls"]
    assert {"Homepage", "Source", "Documentation", "Issues", "Changelog"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())


def test_readme_links_work_on_an_index_page() -> None:
    """No relative link: an index shows the README without the repository beside it."""
    source = PROJECT["urls"]["Source"].rstrip("/")
    links = LINK.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(links) >= 10
    relative = [u for u in links if not u.startswith(("https://", "http://", "#"))]
    assert relative == []
    for u in links:
        if u.startswith(source):
            rest = u[len(source) :]
            m = re.match(r"/(?:blob|raw)/main/([^#]+)", rest)
            if m:
                assert (ROOT / m.group(1)).exists(), f"the README links {u}, which is no file of the repository"


def _tree_copy(dest: Path) -> None:
    """The files git knows (tracked, and new ones not ignored), copied: a build never writes
    into the work tree."""
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, names):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def test_the_package_builds_without_a_warning_and_passes_twine_check(tmp_path: Path) -> None:
    pytest.importorskip("build", reason="the test extra installs build")
    pytest.importorskip("twine", reason="the test extra installs twine")
    src, dist = tmp_path / "src", tmp_path / "dist"
    _tree_copy(src)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # its own warning
    # --no-isolation: the test extra's setuptools (>=77) builds it, no network needed
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)],
                          capture_output=True, text=True, env=env, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    warned = [line for line in (proc.stdout + proc.stderr).splitlines() if re.search(r"warn", line, re.IGNORECASE)]
    assert warned == []
    built = sorted(p.name for p in dist.iterdir())
    assert len(built) == 2 and built[0].endswith(".whl") and built[1].endswith(".tar.gz"), built
    check = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.iterdir())],
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("PASSED") == 2, check.stdout


def test_the_web_stack_is_loaded_only_by_serve_and_the_hub() -> None:
    """Why it may stay in the base install (docs/development.md#design-notes): `atk` and the
    dashboard start without importing it."""
    probe = "import atk_tui.cli.main, atk_tui.cli.quicklist, atk_tui.tui.app, sys; print(' '.join(sys.modules))"
    loaded = set(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split())
    assert not {"aiohttp", "textual_serve", "jinja2", "aiohttp_jinja2"} & loaded
