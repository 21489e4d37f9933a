"""`[notify.elsewhere] push = "now"`: what afkkit left for the person on GitHub (the Elsewhere
view's rows, read through `gh`) is announced once each, by the hub, like a question (issue 40).
`gh` is the recorded fake of tests/support/ghkit.py, first on the hub's PATH."""

from __future__ import annotations

import os

from support.ghkit import WAITING
from support.hubkit import wait_for_looks, wait_until, write_notify_config


def test_afkkits_escalations_on_github_are_announced_once_each(world, ntfy, fake_gh) -> None:
    world.env.update(PATH=os.environ["PATH"], ATK_FAKE_GH_DIR=os.environ["ATK_FAKE_GH_DIR"])
    world.env.pop("ATK_GH", None)
    write_notify_config(world.home / "config", {"urls": [ntfy.url()], "poll": 0.3, "elsewhere": {"push": "now"}},
                        extra='[elsewhere]\nrepos = ["acme/web"]\n\n')  # fmt: skip
    hub = world.hub()
    got = wait_until(lambda: len(ntfy.received()) >= len(WAITING) and ntfy.received(), 60, "the waiting rows")
    wait_for_looks(world.env, hub, 3)
    assert {p.title.split(":", 1)[0] for p in got} == set(WAITING)
    assert len(ntfy.received()) == len(WAITING)
    twelve = next(p for p in got if p.title.startswith("acme/web#12:"))
    assert "GitHub issue · needs-planning" in twelve.message
    assert twelve.click and twelve.click.startswith("https://github.com/acme/web/issues/12")
    assert fake_gh.only_reads()
    hub.wait_for_line("elsewhere: acme/web#12 (needs-planning)")
