"""`atk hub pair`, `atk hub devices`, `atk hub revoke NAME`: the browsers that may use the
hub's answer page (SPEC §16, issue 41; docs/phone.md). The hub (`atk_tui.hub`) and segno are
imported when one of them runs, never on the way to any other command."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT_BASE = "http://127.0.0.1:8765"


def register(hub_subparsers: Any) -> None:
    """Add `pair`, `devices` and `revoke` under `atk hub`."""
    store_help = "the store (default: $ATK_PRIVATE_NOTES, then private_notes in the config file)"
    p = hub_subparsers.add_parser(
        "pair",
        help="print a one-time pairing URL (and its QR code) that lets a phone's browser use the answer page",
        description="Print a pairing URL and its QR code. Opened on the phone (within the minutes given, once), it gives "
        "that browser a device credential for the answer page; `atk hub devices` lists them, `atk hub revoke` ends one.",
    )
    p.add_argument("--url", metavar="URL", help="the hub's address as the phone reaches it (default: what the running hub "
                   "said: its --public-url, else http://127.0.0.1:PORT)")  # fmt: skip
    p.add_argument("--minutes", type=float, default=10.0, help="how long the URL works (default 10, at most 60)")
    p.add_argument("--no-qr", action="store_true", help="the URL only, no QR code")
    p.add_argument("--store", dest="hubweb_store", metavar="PATH", help=store_help)
    p.set_defaults(run=cmd_pair, needs_store=False)
    d = hub_subparsers.add_parser("devices", help="list the devices paired with the answer page")
    d.add_argument("--store", dest="hubweb_store", metavar="PATH", help=store_help)
    d.set_defaults(run=cmd_devices, needs_store=False)
    r = hub_subparsers.add_parser("revoke", help="end a paired device's access to the answer page")
    r.add_argument("name", metavar="NAME", help="the device's name, as `atk hub devices` lists it")
    r.add_argument("--store", dest="hubweb_store", metavar="PATH", help=store_help)
    r.set_defaults(run=cmd_revoke, needs_store=False)


def _state(args: argparse.Namespace) -> Path:
    from atk_tui.host.config import resolve_store
    from atk_tui.hub.paths import state_dir

    store = resolve_store(getattr(args, "hubweb_store", None) or getattr(args, "store", None)).resolve()
    return state_dir(store)


def _out(text: str) -> None:
    from atk_tui.cli.output import write_text

    write_text(sys.stdout, text)


def _err(text: str) -> None:
    from atk_tui.cli.output import say_err_line

    say_err_line(text)


def cmd_pair(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from atk_tui.host.config import is_agent_env

    if is_agent_env():
        _err("atk hub pair: refused in an agent environment: a paired device answers as the person "
             "(run it yourself, outside the agent's session)")  # fmt: skip
        return 2
    if not 0 < args.minutes <= 60:
        _err(f"atk hub pair: --minutes takes more than 0 and at most 60, got {args.minutes:g}")
        return 2
    from atk_tui.hub.web.devices import new_pairing
    from atk_tui.hub.web.statefiles import saved_address

    state = _state(args)
    base = args.url or saved_address(state) or _running_hub_address(state)
    note = ""
    if not base:
        base = DEFAULT_BASE
        note = f"(no hub has run for this store yet: assuming {DEFAULT_BASE}; pass --url for a tunnel's address)\n"
    if not base.lower().startswith(("http://", "https://")):
        _err(f"atk hub pair: --url must start with http:// or https://, got {base[:100]!r}")
        return 2
    code = new_pairing(state, ttl_s=args.minutes * 60)
    url = f"{base.rstrip('/')}/pair/{code}"
    until = time.strftime("%H:%M", time.localtime(time.time() + args.minutes * 60))
    _out(f"{note}Open this on the phone (works once, until {until}):\n\n  {url}\n\n")
    if not args.no_qr:
        import io

        import segno

        buf = io.StringIO()
        segno.make(url, error="m").terminal(out=buf, compact=True, border=2)
        _out(buf.getvalue() + "\n")
    _out("Then `atk hub devices` lists it and `atk hub revoke NAME` ends it.\n")
    return 0


def _running_hub_address(state: Path) -> str | None:
    """The answer page's address a running hub put in its status (`atk hub --port 0` before
    the page was first asked for anything)."""
    from atk_tui.service.hubstate import hub_state

    found = hub_state(state) or {}
    web = found.get("web")
    return web if found.get("running") and isinstance(web, str) and web.startswith("http") else None


def _when(value: float | None) -> str:
    return "never" if not value else time.strftime("%Y-%m-%d %H:%M", time.localtime(value))


def cmd_devices(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from atk_tui.hub.web.devices import devices
    from atk_tui.text.textsafe import safe_line

    found = devices(_state(args))
    if not found:
        _out("no paired devices (`atk hub pair` pairs one)\n")
        return 0
    width = max(len(d.name) for d in found)
    _out(f"{'NAME':<{width}}  PAIRED            LAST SEEN\n")
    for d in found:
        _out(f"{safe_line(d.name):<{width}}  {_when(d.paired):<16}  {_when(d.last_seen)}\n")
    return 0


def cmd_revoke(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from atk_tui.hub.web.devices import revoke
    from atk_tui.text.textsafe import safe_line

    gone = revoke(_state(args), args.name)
    if gone is None:
        _err(f"atk hub revoke: no paired device named {safe_line(args.name)!r} (`atk hub devices` lists them)")
        return 1
    _out(f"revoked {safe_line(gone.name)}: its browser opens nothing of the answer page from now on\n")
    return 0
