"""Japanese line breaking and whole tokens (`core.linebreak`, issue 29)."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from atk_tui.text.linebreak import NO_END, NO_START, wrap

SENTENCE = "セッションストアに Redis か PostgreSQL のどちらを使うか、決めてください。「推奨」は src/session/store.py と https://example.com/docs/session を参照。"


@pytest.mark.parametrize("width", range(8, 60))
def test_kinsoku_and_whole_tokens_at_every_width(width: int) -> None:
    lines = wrap(SENTENCE, width)
    assert "".join(lines).replace(" ", "") == SENTENCE.replace(" ", "")  # nothing lost or added
    for i, line in enumerate(lines):
        assert cell_len(line) <= width, (width, line)
        assert line, (width, lines)
        if i:
            assert line[0] not in NO_START, (width, lines)
        if i < len(lines) - 1:
            assert line[-1] not in NO_END, (width, lines)
    for token in ("Redis", "PostgreSQL", "src/session/store.py", "https://example.com/docs/session"):
        if len(token) <= width:  # a token that fits a line is never split
            assert any(token in line for line in lines), (width, token, lines)


def test_the_known_cases() -> None:
    assert wrap("決めてください。", 16) == ["決めてください。"]
    assert wrap("決めてください。", 14) == ["決めてくださ", "い。"]  # 。 never starts a line
    assert wrap("これは「推奨」です", 8) == ["これは", "「推奨」", "です"]  # 「 never ends one
    assert wrap("ちょっと待って", 6) == ["ちょっ", "と待っ", "て"]  # nor small kana start one
    assert wrap("ファイル foo/bar.md を見る", 12) == ["ファイル", "foo/bar.md", "を見る"]
    assert wrap("see src/session/store.py now", 12) == ["see", "src/session/", "store.py now"]  # only a token wider than the line folds
    assert wrap("two\nlines", 20) == ["two", "lines"]


def test_cut_middle_keeps_both_ends() -> None:
    from atk_tui.text.cells import cut_middle

    name = "20261126-065751-upstream-timeout-default.md"
    assert cut_middle(name, 60) == name
    for width in range(4, len(name)):
        cut = cut_middle(name, width)
        assert (cell_len(cut) <= width and "…" in cut and cut[0] == "2" and cut.endswith("d")) or width < 6, (width, cut)
    assert cut_middle("セッションストアに Redis", 9) == "セッ…edis"
