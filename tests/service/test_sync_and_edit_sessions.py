"""The service methods the dashboard uses instead of reaching into the git store (issue 11):
sync status, pull, head, commits touching an item, titles, history, blobs and the edit
session (hold → edit → save → unhold). Real git stores, a bare remote for push/pull."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.storekit import UWI_BODY, add_item, clone, git

from atk_tui.service import Service, SyncStatus
from atk_tui.service.writing.editing import EditTicket, base_of, kept_scratches
from atk_tui.store import AtkError


def test_sync_status_without_a_remote(svc: Service) -> None:
    add_item(svc)
    assert svc.sync_status() == SyncStatus(unpushed=0, conflicts=0, upstream=None, has_upstream=False)
    assert svc.upstream() is None


def test_sync_status_counts_unpushed_commits(remote_store: tuple[Path, Path], clock) -> None:
    root, _ = remote_store
    offline = Service(root, clock=clock, actor="user", push=False)
    add_item(offline)
    add_item(offline)
    status = offline.sync_status()
    assert status.has_upstream and status.upstream == "origin/main"
    assert status.unpushed == 2
    assert status.conflicts == 0


def test_pull_brings_the_remotes_commits(remote_store: tuple[Path, Path], tmp_path: Path, clock) -> None:
    root, remote = remote_store
    other_root = clone(remote, tmp_path / "other")
    other = Service(other_root, clock=clock, actor="user")
    name = add_item(other)
    svc = Service(root, clock=clock, actor="user")
    assert svc.store.locate(name) is None
    out = svc.pull()
    assert out.ok and out.op == "pull", out.message
    assert svc.store.locate(name) == "inbox"


def test_pull_refused_while_the_store_is_busy(remote_store: tuple[Path, Path], clock) -> None:
    root, _ = remote_store
    svc = Service(root, clock=clock, actor="user")
    with svc.store.locked():
        out = Service(root, clock=clock, actor="user").pull(lock_timeout=0)
    assert not out.ok
    assert out.code == "busy"


def test_head_and_commits_touching(svc: Service) -> None:
    a = add_item(svc)
    b = add_item(svc)
    start = svc.head()
    assert start == git(svc.root, "rev-parse", "HEAD").strip()
    assert svc.writes.transition_command("hold", [a]).ok
    assert svc.writes.transition_command("hold", [b]).ok
    assert svc.writes.unhold(a).ok
    assert svc.commits_touching(a, start) == [f"atk: unhold {a}", f"atk: hold {a}"]
    assert svc.commits_touching(b, start) == [f"atk: hold {b}"]
    assert svc.commits_touching(a, svc.head()) == []
    with pytest.raises(AtkError):
        svc.commits_touching("../x.md", start)


def test_read_titles_items_in_any_state(svc: Service) -> None:
    a = add_item(svc)
    b = add_item(svc, kind="uwi", body=UWI_BODY)
    assert svc.writes.transition_command("hold", [b]).ok
    assert {n: svc.read(n).title for n in (a, b)} == {
        a: "Use one email validator everywhere",
        b: "Which email validation should be the project standard?",
    }
    for unknown in ("nope.md", "../bad"):
        with pytest.raises(AtkError):
            svc.read(unknown)


def test_history_parses_nul_separated_records_with_the_actor(svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    name = add_item(svc)
    monkeypatch.setenv("CLAUDECODE", "1")
    agent = Service(svc.root, clock=svc.clock)
    assert agent.writes.transition_command("hold", [name]).ok  # (an agent may not release the person's hold: SPEC §15)
    monkeypatch.delenv("CLAUDECODE")
    assert svc.writes.unhold(name).ok
    hist = svc.history(name)
    assert [(h.subject, h.actor) for h in hist] == [
        (f"atk: unhold {name}", "user"),
        (f"atk: hold {name}", "agent"),
        (f"atk: add {name}", "user"),
    ]
    assert all(len(h.commit) == 40 for h in hist)


def test_blob_at_reads_old_bytes_exactly(svc: Service) -> None:
    name = add_item(svc)
    first = svc.head()
    before = svc.read_bytes(name)
    assert svc.writes.edit(name, "# Changed\n\n- 反映内容: other\n").ok
    assert svc.store.blob_at(first, f"wi/inbox/{name}") == before
    assert svc.store.blob_at(first, "wi/inbox/none.md") is None
    raw = b"\xff\xfe not utf-8 \x00 bytes\n"
    (svc.root / "plans").mkdir(exist_ok=True)
    (svc.root / "plans" / "x.bin").write_bytes(raw)
    git(svc.root, "add", "plans/x.bin")
    git(svc.root, "commit", "-qm", "raw")
    assert svc.store.blob_at("HEAD", "plans/x.bin") == raw


def test_service_has_no_subprocess() -> None:
    import atk_tui.service as service

    for path in Path(service.__file__).parent.glob("*.py"):
        assert "subprocess" not in path.read_text(encoding="utf-8"), path


# -- the edit session ---------------------------------------------------------------------------


def finished_in(svc: Service, ticket: EditTicket, text: bytes) -> str | None:
    """Finish the edit session with `text` (it must succeed): the state the item is in then."""
    out = svc.writes.finish_edit(ticket, text)
    assert out.ok, out.message
    return svc.store.locate(ticket.filename)


def test_edit_session_holds_saves_and_unholds(svc: Service) -> None:
    name = add_item(svc)
    ticket = svc.writes.begin_edit(name)
    assert ticket.held and ticket.state == "hold"
    assert svc.store.locate(name) == "hold"
    assert ticket.base == svc.read_bytes(name)
    assert ticket.scratch.read_bytes() == ticket.base  # the text is kept from the start
    new = ticket.base.replace(b"replace the two validators", b"use one validator")
    assert finished_in(svc, ticket, new) == "inbox"
    assert svc.read_bytes(name) == new
    assert not ticket.scratch.exists() and not base_of(ticket.scratch).exists()
    assert svc.commits_touching(name, ticket.start) == [f"atk: unhold {name}", f"atk: edit {name}", f"atk: hold {name}"]


def test_edit_session_keeps_a_held_item_held(svc: Service) -> None:
    name = add_item(svc)
    assert svc.writes.transition_command("hold", [name]).ok
    ticket = svc.writes.begin_edit(name)
    assert not ticket.held
    assert finished_in(svc, ticket, ticket.base + b"\nmore\n") == "hold"


def test_edit_session_refuses_a_save_over_a_newer_version(svc: Service) -> None:
    name = add_item(svc)
    ticket = svc.writes.begin_edit(name)
    other = Service(svc.root, clock=svc.clock, actor="user")
    assert other.writes.save_text(name, ticket.base.decode() + "\nsomeone else\n").ok
    mine = ticket.base + b"\nmine\n"
    out = svc.writes.finish_edit(ticket, mine)
    assert not out.ok and out.code == "changed"
    assert svc.store.locate(name) == "hold"  # the session stays open
    assert ticket.scratch.read_bytes() == mine  # and the text is kept
    ticket.base = svc.read_bytes(name)  # the person merged the newer version
    assert finished_in(svc, ticket, ticket.base + b"\nmine\n") == "inbox"


def test_edit_session_unchanged_and_abandoned(svc: Service) -> None:
    name = add_item(svc)
    ticket = svc.writes.begin_edit(name)
    out = svc.writes.finish_edit(ticket, ticket.base)
    assert out.ok and out.code == "unchanged"
    assert svc.store.locate(name) == "inbox"
    ticket = svc.writes.begin_edit(name)
    out = svc.writes.abandon_edit(ticket, keep_text=True)
    assert out.ok
    assert svc.store.locate(name) == "inbox"
    assert kept_scratches(svc.scratch_dir(), name) == [ticket.scratch]


def test_edit_session_refuses_terminal_items(svc: Service) -> None:
    name = add_item(svc)
    assert svc.writes.move([name], "adopted").ok
    with pytest.raises(AtkError) as exc:
        svc.writes.begin_edit(name)
    assert exc.value.code == "state"


def test_edit_session_refuses_an_unpushed_hold_unless_allowed(remote_store: tuple[Path, Path], clock) -> None:
    root, remote = remote_store
    svc = Service(root, clock=clock, actor="user")
    name = add_item(svc)
    # the remote refuses every push from now on
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nexit 1\n")
    hook.chmod(0o755)
    with pytest.raises(AtkError) as exc:
        svc.writes.begin_edit(name)
    assert exc.value.code == "unpushed"
    assert svc.store.locate(name) == "inbox"  # nothing stays held
    assert kept_scratches(svc.scratch_dir(), name) == []
    ticket = svc.writes.begin_edit(name, allow_unpushed=True)
    assert ticket.held and ticket.pushed is False
    assert svc.writes.abandon_edit(ticket).ok
    assert svc.store.locate(name) == "inbox"
