"""A cold `atk wi list` on two cores (`core.halves`): the second half of the files parsed, and
of the lines made, in a forked child. The listing, and the item cache it leaves, are byte for
byte those of one core."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from gen_store import generate_store
from support.storekit import UWI_BODY, add_item

from atk_tui.cache import halves
from atk_tui.cli import main as cli
from atk_tui.cli import output
from atk_tui.service import Service, reads

LISTINGS = (
    ["wi", "list", "--json"],
    ["wi", "list", "--json", "--status=all"],
    ["wi", "list", "--no-json"],
    ["wi", "list", "--count", "--status=blocked"],
    ["wi", "list", "--json", "--status=ready", "--offset", "3", "--limit", "40"],
)


def test_map_halves_is_the_plain_map() -> None:
    work = list(range(101))
    mine, theirs = halves.map_halves(lambda n: (n, n * n), work, lambda r: [r[0], str(r[1])])
    assert mine == [(n, n * n) for n in range(50)]
    assert theirs == [[n, str(n * n)] for n in range(50, 101)]


def test_a_child_that_fails_leaves_its_half_to_the_parent() -> None:
    parent = os.getpid()

    def send(r: int) -> object:
        if os.getpid() != parent:
            raise RuntimeError("the child cannot send this")
        return r

    mine, theirs = halves.map_halves(lambda n: n + 1, list(range(10)), send)
    assert mine + theirs == list(range(1, 11))


def test_a_result_marshal_cannot_carry_is_made_by_the_parent() -> None:
    mine, theirs = halves.map_halves(lambda n: n, list(range(6)), lambda r: [r] if r % 2 else object())
    assert mine == [0, 1, 2]
    assert theirs[0] == [3] and type(theirs[1]) is object and theirs[2] == [5]  # made here: marshal refused


@pytest.mark.parametrize("value", [
    {"a": 1.5, "b": [None, True, "ü\u202e"], "c": {"d": float("inf")}}, {}, {"x": "\udcff", "y": 10**30},
])  # fmt: skip
def test_the_line_encoder_writes_what_json_does(value: dict) -> None:
    assert output.encode_dict(value) == output.JSON.encode(value)


def test_no_fork_while_another_thread_runs() -> None:
    assert halves.can_fork() or (os.cpu_count() or 1) < 2
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert not halves.can_fork()
    finally:
        stop.set()
        t.join()


def _run(root: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, dict[str, bytes]]:
    """(stdout, the item cache files) of a cold `atk ARGV --store ROOT`."""
    cache = root / ".git" / "atk-cache"
    for f in cache.glob("*") if cache.is_dir() else ():
        f.unlink()
    capsys.readouterr()
    assert cli.run([*argv, "--store", str(root)]) == 0
    out = capsys.readouterr().out
    files = {f.name: f.read_bytes() for f in sorted(cache.glob("items-*.cache"))}
    return out, files


@pytest.fixture(scope="module")
def varied_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The benchmark generator's mix (answered and partly answered UWIs, comments, defective
    files, dependencies, cooldowns), small, with an answered feedback item and a UWI whose
    body gives a second core's parse something to disagree about if it could."""
    base = tmp_path_factory.mktemp("halves")
    root = generate_store(base, active=400, terminal=120, seed=7)
    svc = Service(root, actor="user", pull=False, push=False)
    name = add_item(svc, body=UWI_BODY + "\n## 回答\n\n- 1: A\n", kind="uwi")
    assert name
    return root


@pytest.mark.parametrize("argv", LISTINGS, ids=" ".join)
def test_two_cores_list_what_one_lists(varied_store: Path, argv: list[str], capsys, monkeypatch) -> None:
    assert halves.can_fork(), "this test needs a second CPU and no other thread"
    forks = []
    real = halves.map_halves

    def counted(*a: object) -> object:
        forks.append(len(a[1]))  # type: ignore[arg-type]
        return real(*a)  # type: ignore[arg-type]

    with monkeypatch.context() as m:
        m.setattr(halves, "can_fork", lambda: False)
        m.setattr(reads, "can_fork", lambda: False)
        one = _run(varied_store, argv, capsys)
    with monkeypatch.context() as m:
        m.setattr(reads, "HALVES_FROM", 2)
        m.setattr(halves, "map_halves", counted)
        m.setattr(reads, "map_halves", counted)
        two = _run(varied_store, argv, capsys)
    assert forks and forks[0] > 300  # the parse went to two cores (and the lines, for JSON)
    assert two[0] == one[0]
    assert two[1] == one[1] and two[1]  # the item cache it leaves, byte for byte


def test_a_listing_with_text_stays_on_one_core(varied_store: Path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(reads, "HALVES_FROM", 2)
    monkeypatch.setattr(reads, "map_halves", lambda *a: pytest.fail("forked for --text"))
    _run(varied_store, ["wi", "list", "--json", "--text", "cache"], capsys)


def test_the_dashboard_never_forks(varied_store: Path, monkeypatch) -> None:
    monkeypatch.setattr(reads, "HALVES_FROM", 2)
    monkeypatch.setattr(reads, "map_halves", lambda *a: pytest.fail("the service forked"))
    view = Service(varied_store, pull=False, push=False, use_cache=False).queue()
    assert len(view.items) > 400
