"""`atk hub`: the resident process that reaches the person while they are away (SPEC §16;
docs/hub.md). argparse only here: the hub (`atk_tui.hub`), apprise and aiohttp are imported
when `atk hub` runs, never on the way to any other command."""

from __future__ import annotations

import argparse
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HELP = "follow the store and notify the person (phone, email …) of each question that needs them (docs/hub.md)"
DEFAULT_PORT = 8765


def add_hub_parser(sub: Any, common: argparse.ArgumentParser, epilog: str) -> None:
    p = sub.add_parser(
        "hub", parents=[common], help=HELP, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=HELP + ". Runs in the foreground, one log line per event; Ctrl-C stops it. "
        "Notification targets are apprise URLs in the config file's [notify] table.",
    )  # fmt: skip
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"the answer page's port (default {DEFAULT_PORT}; 0: any free one)")
    p.add_argument("--bind", default="127.0.0.1", metavar="ADDR", help="the answer page's address (default 127.0.0.1)")
    p.add_argument("--public-url", metavar="URL",
                   help="the answer page as the phone reaches it (a tunnel or an HTTPS reverse proxy): the links in notifications")
    p.add_argument("--insecure-http", action="store_true",
                   help="serve on a non-loopback address over plain HTTP anyway (refused otherwise)")
    p.add_argument("--poll", type=float, metavar="SECONDS", help="seconds between looks at the remote (default: [notify] poll, 5)")
    p.add_argument("--no-web", action="store_true", help="notifications only: no answer page")
    p.add_argument("--print-service", choices=["systemd", "launchd"],
                   help="print a systemd user unit or a launchd agent that runs this hub at login, and exit")
    p.set_defaults(run=cmd_hub, needs_store=False)
    hs = p.add_subparsers(dest="hubcmd", metavar="{status,…}")
    s = hs.add_parser("status", parents=[common], help="whether a hub runs for the store, its targets, what it announced")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="one JSON object")
    g.add_argument("--no-json", action="store_true")
    s.set_defaults(run=cmd_hub_status, needs_store=False)
    from atk_tui.cli import hubweb  # the answer page's commands: pair, devices, revoke

    hubweb.register(hs)


def _is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost."):
        return True
    try:
        import ipaddress

        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _atk_program() -> str:
    beside = Path(sys.executable).with_name("atk")
    return str(beside) if beside.exists() else (shutil.which("atk") or "atk")


def _hub_argv(store: Path, args: argparse.Namespace) -> list[str]:
    argv = [_atk_program(), "hub", "--store", str(store)]
    if args.port != DEFAULT_PORT:
        argv += ["--port", str(args.port)]
    if args.bind != "127.0.0.1":
        argv += ["--bind", args.bind]
    if args.public_url:
        argv += ["--public-url", args.public_url]
    if args.insecure_http:
        argv.append("--insecure-http")
    if args.poll is not None:
        argv += ["--poll", f"{args.poll:g}"]
    if args.no_web:
        argv.append("--no-web")
    return argv


def service_text(kind: str, store: Path, argv: list[str]) -> str:
    """A systemd user unit (`~/.config/systemd/user/atk-hub.service`) or a launchd agent
    (`~/Library/LaunchAgents/dev.atk.hub.plist`) that runs `argv` at login and again after a crash."""
    if kind == "systemd":
        def quoted(a: str) -> str:
            return a if a and all(c.isalnum() or c in "/-_.:=@+," for c in a) else '"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"'

        return (
            "# ~/.config/systemd/user/atk-hub.service, then:\n"
            "#   systemctl --user daemon-reload && systemctl --user enable --now atk-hub\n"
            "#   journalctl --user -u atk-hub -f      (its log)\n"
            "[Unit]\n"
            f"Description=atk hub for {store}\n"
            "After=network-online.target\n"
            "Wants=network-online.target\n\n"
            "[Service]\n"
            f"ExecStart={' '.join(quoted(a) for a in argv)}\n"
            "Restart=on-failure\n"
            "RestartSec=10\n"
            "Environment=PYTHONUNBUFFERED=1\n\n"
            "[Install]\n"
            "WantedBy=default.target\n"
        )
    from xml.sax.saxutils import escape  # only here: it pulls in urllib on the way

    args = "\n".join(f"        <string>{escape(a)}</string>" for a in argv)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        "<!-- ~/Library/LaunchAgents/dev.atk.hub.plist, then:\n"
        "     launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/dev.atk.hub.plist -->\n"
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
        '<plist version="1.0">\n<dict>\n'
        "    <key>Label</key>\n    <string>dev.atk.hub</string>\n"
        f"    <key>ProgramArguments</key>\n    <array>\n{args}\n    </array>\n"
        "    <key>RunAtLoad</key>\n    <true/>\n"
        "    <key>KeepAlive</key>\n    <dict>\n        <key>SuccessfulExit</key>\n        <false/>\n    </dict>\n"
        "    <key>StandardOutPath</key>\n    <string>/tmp/atk-hub.log</string>\n"
        "    <key>StandardErrorPath</key>\n    <string>/tmp/atk-hub.log</string>\n"
        "</dict>\n</plist>\n"
    )


def cmd_hub(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from atk_tui.cli.output import say_err_line, write_text
    from atk_tui.host.config import ConfigError, is_agent_env, resolve_store

    store = resolve_store(args.store).resolve()
    if args.print_service:
        write_text(sys.stdout, service_text(args.print_service, store, _hub_argv(store, args)))
        return 0
    if is_agent_env():
        say_err_line("refused: the hub runs on the person's side (it answers as the user); "
                     "this is an agent environment (unset the agent variables to run it)")  # fmt: skip
        return 1
    if not args.no_web and not _is_loopback(args.bind):
        https = bool(args.public_url and args.public_url.lower().startswith("https://"))
        if not https and not args.insecure_http:
            say_err_line(
                f"refused to serve the answer page on {args.bind} over plain HTTP: anyone who can reach "
                "that address could read the questions and answer them, and the pairing link and every credential "
                "would cross the network in the clear. Keep the default --bind 127.0.0.1 and reach it through a "
                "tunnel (Tailscale, SSH) or an HTTPS reverse proxy with --public-url https://…, or pass "
                "--insecure-http if this network is yours alone"
            )
            return 2
    if not 0 <= args.port <= 65535:
        say_err_line(f"--port takes 0-65535, got {args.port}")
        return 2
    from atk_tui.hub.config import notify_settings

    try:
        settings = notify_settings()
    except ConfigError as exc:
        say_err_line(str(exc))
        return 1
    if args.poll is not None:
        if not 0.2 <= args.poll <= 3600:
            say_err_line(f"--poll takes 0.2-3600 seconds, got {args.poll:g}")
            return 2
        from dataclasses import replace

        settings = replace(settings, poll=args.poll)
    import asyncio

    from atk_tui.hub.daemon import Hub, HubError
    from atk_tui.hub.paths import state_dir

    def log(line: str) -> None:
        write_text(sys.stdout, line + "\n")
        sys.stdout.flush()

    hub = Hub(store, settings, state_dir(store), bind=args.bind, port=args.port, public_url=args.public_url,
              web=not args.no_web, log=log)  # fmt: skip
    try:
        return asyncio.run(hub.run())
    except HubError as exc:
        say_err_line(str(exc))
        return 1
    except KeyboardInterrupt:
        return 130


def _when(value: Any, now: datetime) -> str:
    if not value:
        return "never"
    try:
        t = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    s = int((now - t).total_seconds())
    ago = f"{s} s" if s < 120 else f"{s // 60} min" if s < 7200 else f"{s // 3600} h" if s < 172800 else f"{s // 86400} d"
    return f"{t.astimezone().strftime('%Y-%m-%d %H:%M:%S')} ({ago} ago)"


def cmd_hub_status(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from atk_tui.cli.output import write_text
    from atk_tui.host.config import is_agent_env, resolve_store
    from atk_tui.hub.paths import state_dir
    from atk_tui.service.hubstate import hub_state
    from atk_tui.text.textsafe import safe_json_dumps, safe_line

    store = resolve_store(args.store).resolve()
    where = state_dir(store, create=False)
    state = hub_state(where)
    as_json = args.json or (is_agent_env() and not args.no_json)
    if as_json:
        write_text(sys.stdout, safe_json_dumps({"store": str(store), "state_dir": str(where), "ever_ran": state is not None,
                                                **(state or {"running": False})}) + "\n")  # fmt: skip
        return 0
    now = datetime.now(UTC)
    if state is None:
        write_text(sys.stdout, f"no hub has run for {store}\n(state directory {where}; start one with `atk hub --store {store}`)\n")
        return 0
    lines = []
    if state["running"]:
        lines.append(f"hub: running (pid {state.get('pid')} on {safe_line(str(state.get('host')))}, since {_when(state.get('started'), now)})")
    else:
        lines.append(f"hub: not running (last ran as pid {state.get('pid')} on {safe_line(str(state.get('host')))}; "
                     f"stopped {_when(state.get('stopped') or state.get('last_look'), now)})")  # fmt: skip
    lines.append(f"store: {state.get('store')}")
    lines.append(f"state: {where}")
    lines.append(f"last look at the store: {_when(state.get('last_look'), now)} (every {state.get('poll_seconds')} s)")
    if state.get("pull_problem"):
        lines.append(f"the remote: {safe_line(str(state['pull_problem']))}")
    lines.append(f"answer page: {state.get('web') or safe_line(str(state.get('web_problem') or 'not served'))}")
    targets = [t for t in state.get("targets") or [] if isinstance(t, dict)]
    if not targets:
        lines.append("targets: none (add apprise URLs to [notify] urls in the config file; see docs/hub.md)")
    for t in targets:
        head = f"target {safe_line(str(t.get('name')))}: "
        if t.get("failing"):
            head += f"FAILING since {_when(t.get('failing_since'), now)}: {safe_line(str(t.get('reason')))}; next try {_when(t.get('retry_at'), now)}"
        else:
            head += "ok"
        head += f"; last success {_when(t.get('last_ok'), now)}"
        if t.get("last_fail") and not t.get("failing"):
            head += f"; last failure {_when(t.get('last_fail'), now)}: {safe_line(str(t.get('reason')))}"
        head += f"; {t.get('sent', 0)} sent, {t.get('pending', 0)} waiting"
        lines.append(head)
    overdue = [str(f) for f in state.get("overdue") or []]
    lines.append(f"questions waiting: {state.get('waiting', 0)}, announced: {state.get('announced', 0)}, overdue: {len(overdue)}")
    lines += [f"  overdue: {safe_line(f)}" for f in overdue]
    write_text(sys.stdout, "\n".join(lines) + "\n")
    return 0

