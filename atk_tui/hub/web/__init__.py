"""The answer page (SPEC §16, issue 41): what needs the person, answerable from a phone, served
by `atk hub` in its own process. `build_app` makes the aiohttp application; `links` makes the
notifications' one-tap "Accept recommended" links and the links that open a question;
`devices` pairs and revokes the browsers that may use it. See app.py for the access rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

    from aiohttp import web

    from atk_tui.service import Service


def build_app(
    service_factory: Callable[[], Service],
    *,
    state_dir: Path,
    public_url: str | None,
    link_ttl_s: float,
    bind_host: str,
    port: int,
    rate_limits: Mapping[str, tuple[int, float]] | None = None,
) -> web.Application:
    """The answer page's aiohttp application (`app.build_app`)."""
    from atk_tui.hub.web.app import build_app as build

    return build(service_factory, state_dir=state_dir, public_url=public_url, link_ttl_s=link_ttl_s,
                 bind_host=bind_host, port=port, rate_limits=rate_limits)  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in ("accept_link", "open_link"):
        from atk_tui.hub.web import links

        return getattr(links, name)
    raise AttributeError(f"module 'atk_tui.hub.web' has no attribute {name!r}")


__all__ = ["accept_link", "build_app", "open_link"]
