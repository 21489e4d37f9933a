"""The hub stays off every other command's path (issue 40): apprise, aiohttp and the hub's
modules load when `atk hub` runs, never when the CLI builds its parser or runs another command."""

from __future__ import annotations

import subprocess
import sys

BANNED = ("apprise", "aiohttp", "aiosmtpd")


def _loaded_after(code: str) -> list[str]:
    probe = (
        f"import sys\n{code}\n"
        f"print('\\n'.join(m for m in sys.modules if m.split('.')[0] in {BANNED!r} or m.startswith('atk_tui.hub')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return proc.stdout.split()


def test_building_the_whole_parser_loads_no_hub() -> None:
    # every command's parser, `atk hub`'s included: argparse only
    got = _loaded_after("from atk_tui.cli.parser import build_parser\nbuild_parser()")
    assert got == [], got


def test_the_probe_sees_the_hub_when_it_is_imported() -> None:
    got = _loaded_after("import atk_tui.hub.notify\natk_tui.hub.notify.load()")
    assert "apprise" in got and "atk_tui.hub.notify" in got
