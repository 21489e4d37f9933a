"""`scan.twins_in`, the fast look for one name's case twins in a folder a write makes (issue 38,
issue 45 point 6): the same answer as the key of every name, compared on mixed folders."""

from __future__ import annotations

import pytest

from atk_tui.store.scan import twin_key, twins_in


def slow(names: list[str], filename: str) -> list[str]:
    key = twin_key(filename)
    return [n for n in names if n != filename and twin_key(n) == key]


FOLDERS = [
    [],
    ["a.md"],
    ["a.md", "A.md", "b.md", "a.MD", "a.md.bak"],
    ["task.md", "Task.md", "TASK.md", "other.md", "Task.md.orig"],
    ["ｔａｓｋ.md", "task.md", "Task.md"],  # fullwidth: NFKC makes it ASCII
    ["straße.md", "STRASSE.md", "strasse.md"],  # casefold: ß is ss
    ["line\nbreak.md", "LINE\nbreak.md", "x.md"],  # a newline inside a name
    [".gitkeep", "a.md"],
]
NAMES = ["a.md", "A.md", "task.md", "Task.md", "ｔａｓｋ.md", "straße.md", "strasse.md", "line\nbreak.md", "zzz.md"]


@pytest.mark.parametrize("names", FOLDERS)
@pytest.mark.parametrize("filename", NAMES)
def test_twins_in_is_the_key_of_every_name(names: list[str], filename: str) -> None:
    assert twins_in(names, filename, twin_key(filename)) == slow(names, filename)


def test_twins_in_finds_every_twin_in_order() -> None:
    names = ["b.md", "Task.md", "c.md", "TASK.md", "task.md", "tAsK.md"]
    assert twins_in(names, "task.md", "task.md") == ["Task.md", "TASK.md", "tAsK.md"]
    assert twins_in(names, "none.md", "none.md") == []
