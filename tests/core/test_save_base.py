"""save_text with `base`: an edit session never overwrites a change made meanwhile."""

from __future__ import annotations

from support.storekit import AWI_BODY, add_item, git

from atk_tui.service import Service


def test_save_text_refuses_when_the_file_changed_since_it_was_opened(svc: Service) -> None:
    name = add_item(svc, AWI_BODY)
    path = svc.root / "wi" / "inbox" / name
    opened = path.read_bytes()
    other = Service(svc.root, actor="agent")
    assert other.edit(name, AWI_BODY.replace("one behaviour", "one behaviour, agreed")).ok
    head = git(svc.root, "rev-parse", "HEAD")
    mine = opened.decode().replace("Use one email", "Use a single email")
    out = svc.save_text(name, mine, base=opened)
    assert not out.ok
    assert "changed by someone else" in out.message
    assert git(svc.root, "rev-parse", "HEAD") == head
    assert b"agreed" in path.read_bytes()
    # with the current bytes as the base the person's text is saved
    out = svc.save_text(name, mine, base=path.read_bytes())
    assert out.ok, out.message
    assert "Use a single email" in path.read_text()
