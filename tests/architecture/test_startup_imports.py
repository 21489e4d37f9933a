"""What the dashboard imports before its first frame: only what that frame draws.

The dialogs, the editor session, the graph screen, the Markdown renderer, the question parser
and the wait statistics are imported where they are first used; `atk-tui` parses its arguments (`--version` included) without importing the
CLI. Each check runs in a fresh interpreter and reads `sys.modules`.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

#: imported on first use, never on the way to the dashboard's first frame
DEFERRED = (
    "atk_tui.cli.main",
    "atk_tui.tui.writes.edit_session",
    "atk_tui.tui.modals.answer",
    "atk_tui.tui.modals.conflicts",
    "atk_tui.tui.modals.dependencies",
    "atk_tui.tui.modals.dialogs",
    "atk_tui.tui.screens.graph",
    "atk_tui.graph",
    "rich.markdown",
    "markdown_it",
    # the first rows need them (the detail's questions, the needs-you headline), not the frame
    "atk_tui.itemfile.questions",
    "atk_tui.itemfile.question_lines",
    "atk_tui.service.history.stats",
    "textual.widgets._text_area",  # the dialogs make the first TextArea
)


def imported_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))\n"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(proc.stdout.split())


def test_the_probe_sees_an_import() -> None:
    assert "atk_tui.tui.modals.dialogs" in imported_after("import atk_tui.tui.modals.dialogs")


def test_the_dashboard_defers_what_its_first_frame_does_not_draw() -> None:
    mods = imported_after("import atk_tui.tui.app\nfrom atk_tui.tui.screens.main import MainScreen")
    assert "atk_tui.tui.widgets.detail" in mods  # the first frame's own widgets are there
    assert sorted(m for m in DEFERRED if m in mods) == []


@pytest.mark.parametrize("argv", [["--store", "/nowhere"], ["--demo", "--read-only"]])
def test_atk_tui_parses_its_arguments_without_the_cli(argv: list[str]) -> None:
    mods = imported_after(f"from atk_tui.cli.tui_args import build_parser\nbuild_parser().parse_args({argv!r})")
    assert "atk_tui.cli.main" not in mods and "textual" not in mods


def test_atk_tui_version_without_the_cli() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom atk_tui.__main__ import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\nprint(sorted(m for m in sys.modules if m.startswith('atk_tui')))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    first, mods = proc.stdout.splitlines()[0], proc.stdout.splitlines()[-1]
    assert first.startswith("atk-tui ")
    assert "atk_tui.cli.main" not in mods and "atk_tui.version" in mods


# -- `atk`'s start-up: the MCP SDK only for `atk mcp` ---------------------------------------------

#: what only `atk mcp` imports: the MCP SDK (and its types) and the server package
MCP_ONLY = ("mcp", "mcp_types", "atk_tui.mcpserver", "atk_tui.mcpserver.server")

ATK_RUN = """
import sys
from atk_tui.cli.quicklist import main
out, sys.argv = sys.argv[1], ["atk", *sys.argv[2:]]
try:
    main()
except SystemExit:
    pass
open(out, "w").write("\\n".join(sys.modules))
"""


def atk_imports(tmp_path, *words: str) -> set[str]:
    """The modules `atk WORDS…` (the console script's entry) has imported when it is done."""
    out = tmp_path / "modules.txt"
    subprocess.run([sys.executable, "-c", ATK_RUN, str(out), *words], capture_output=True, text=True, check=True)
    return set(out.read_text().split())


@pytest.mark.parametrize("words", [("wi", "list"), ("wi", "list", "--status=all", "--json"), ("mq", "list"), ("--help",),
                                   ("mcp", "--list-tools")])  # fmt: skip
def test_atk_starts_without_the_mcp_sdk(store, tmp_path, words: tuple[str, ...]) -> None:
    cold = atk_imports(tmp_path, "--store", str(store), *words)  # the first listing: the full command line
    warm = atk_imports(tmp_path, "--store", str(store), *words)  # the next: the cached listing, if any
    assert "atk_tui.cli.parser" in cold  # the whole command line ran (a first listing fills the cache)
    assert sorted(m for m in MCP_ONLY if m in cold | warm and m != "atk_tui.mcpserver") == []
    if words[0] != "mcp":
        assert "atk_tui.mcpserver" not in cold | warm


# -- the collector until the first frame (tui/startup.py) ------------------------------------------

PAUSED_AT_RUN = """
import gc, sys
from atk_tui.tui.app import AtkApp
AtkApp.run = lambda self, *a, **k: print("collector on at run:", gc.isenabled())
from atk_tui.__main__ import main
try:
    main(["--store", sys.argv[1]])
except SystemExit:
    pass
print("collector on after:", gc.isenabled())
"""

RESUMED_AFTER_FIRST_FRAME = """
import asyncio, gc, sys
from atk_tui.tui.startup import pause_gc
pause_gc()
from atk_tui.tui.app import make_app
app = make_app(sys.argv[1], watch=False)
async def run():
    async with app.run_test() as pilot:
        await pilot.pause()
        print("collector on:", gc.isenabled())
asyncio.run(run())
"""


def test_atk_tui_runs_the_app_with_the_collector_paused(store) -> None:
    proc = subprocess.run([sys.executable, "-c", PAUSED_AT_RUN, str(store)], capture_output=True, text=True, check=True)
    assert proc.stdout.splitlines() == ["collector on at run: False", "collector on after: False"]


def test_the_app_resumes_the_collector_after_its_first_frame(store) -> None:
    proc = subprocess.run([sys.executable, "-c", RESUMED_AFTER_FIRST_FRAME, str(store)], capture_output=True, text=True, check=True)
    assert proc.stdout.splitlines()[-1] == "collector on: True"


def test_an_app_made_elsewhere_leaves_the_collector_alone() -> None:
    """Only `atk-tui` pauses it: a resume without a pause (the tests, the screenshots) does nothing."""
    code = "import gc\nfrom atk_tui.tui.startup import resume_gc\ngc.disable()\nresume_gc()\nprint(gc.isenabled())"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.split() == ["False"]
