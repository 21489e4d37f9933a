"""What `atk` prints, said one way for every command: text through the one sanitiser, the
`--json` record of an item, and the one line a write prints (README "Say what was written").

Exit codes: 0 success; 1 refused or failed; 2 usage error, or a user-only write attempted
from an agent environment."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from atk_tui.domain.errors import AtkError
from atk_tui.domain.model import Item
from atk_tui.domain.readiness import Judgement
from atk_tui.service import records
from atk_tui.service.records import item_json
from atk_tui.text.textsafe import safe_json_line, safe_line, safe_text

#: the service of the command running now (`cli.main.run`): `report` asks it why a commit was
#: not pushed
SERVICE: Any = None


_SURROGATE = re.compile("[\ud800-\udfff]")


def write_text(stream: Any, text: str) -> None:
    """Write `text` as valid text: the surrogates a file name that is not UTF-8 decodes to are
    written as backslash escapes (`\\udcff`, also a valid JSON escape), never as raw bytes,
    and characters the stream cannot encode are escaped instead of raising."""
    if _SURROGATE.search(text):
        text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    try:
        stream.write(text)
    except UnicodeEncodeError:
        enc = getattr(stream, "encoding", None) or "utf-8"
        stream.write(text.encode(enc, "backslashreplace").decode(enc))


def say(text: str = "") -> None:
    # escaped piped or not: `atk wi show F | cat` (or `| less -R`) must not replay an OSC 52
    text = safe_text(text)
    write_text(sys.stdout, text if text.endswith("\n") or not text else text + "\n")


def say_err(text: str) -> None:
    """A message on stderr, through the one sanitiser as stdout is (`safe_text`: line breaks
    the message itself makes are kept, the lines after the first indented; a tab is shown
    escaped). A field from the store in it (a filename, a defect, a warning) goes through
    `safe_line` first, `say_err_line` for a one-line record: a raw newline or tab in a
    filename must not make a line of its own (issue 25)."""
    lines = safe_text(text).rstrip("\n").replace("\t", "\\t").split("\n")
    # the message's own further lines are indented: a newline in a path or a name it quotes
    # cannot start a line that passes for a record of its own ("atk: ...")
    write_text(sys.stderr, "atk: " + "\n  ".join(lines) + "\n")


def say_err_line(text: str) -> None:
    """One record on one stderr line (a warning, a loop's log line): newlines and tabs in it
    are shown escaped (`safe_line`)."""
    say_err(safe_line(text))


def _read_bounded(fd: int, limit: int) -> bytes:
    """At most `limit` bytes from `fd`, waiting for more in short steps: a pipe or a FIFO whose
    writer is quiet (and never closes it) blocks no read for long, so Ctrl-C is always seen
    (a signal that came just before a blocking read would otherwise wait for the writer)."""
    import select

    chunks: list[bytes] = []
    size = 0
    while size < limit:
        if not select.select([fd], [], [], 0.25)[0]:
            continue
        chunk = os.read(fd, min(1 << 16, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_input_file(path: str) -> str:
    """A user-given file's text (`-`: stdin), read for an item: at most the item size limit
    and one byte more, so an endless stream (`/dev/zero`, a FIFO, a pipe) is refused once it
    is over the limit instead of read until memory runs out (issue 25)."""
    from atk_tui.itemfile.items import MAX_ITEM_BYTES

    try:
        if path == "-":
            raw = getattr(sys.stdin, "buffer", None)  # a text stream in its place (a test, an embedder)
            if raw is None:
                data = sys.stdin.read(MAX_ITEM_BYTES + 1).encode()
            else:
                try:
                    fd = raw.fileno()
                except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is an OSError
                    fd = None
                data = _read_bounded(fd, MAX_ITEM_BYTES + 1) if fd is not None else raw.read(MAX_ITEM_BYTES + 1)
        else:
            fd = os.open(path, os.O_RDONLY)
            try:
                data = _read_bounded(fd, MAX_ITEM_BYTES + 1)
            finally:
                os.close(fd)
    except OSError as exc:
        raise AtkError(f"cannot read {path}: {exc.strerror}", exit_code=2) from exc
    if len(data) > MAX_ITEM_BYTES:
        where = "stdin" if path == "-" else path
        raise AtkError(
            f"{where} is larger than the item size limit ({MAX_ITEM_BYTES // (1024 * 1024)} MiB); read stopped there "
            "and nothing was changed (an item must fit in 1 MiB: shorten it, or keep the long part in a plan file)",
            exit_code=2,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AtkError(f"{path} is not UTF-8 text", exit_code=2) from exc


def body_of(args: argparse.Namespace, *, attr: str = "body_file") -> str:
    file = getattr(args, attr, None)
    if file and args.message is not None:
        raise AtkError("give the body as MESSAGE or as a file, not both", exit_code=2)
    if file:
        return read_input_file(file)
    if args.message is None:
        raise AtkError("no body: give MESSAGE or --body-file", exit_code=2)
    return args.message


def text_row(d: dict[str, Any], now: Any) -> list[str]:
    """A text listing's row (filename, state, kind, repo, title, status) from the item's
    `--json` record (`item_json`), each cell escaped: piped or not, `| less -R` or `| cat`
    must not replay an OSC 52 from an item's text."""
    from datetime import datetime

    from atk_tui.domain.ages import time_left
    from atk_tui.domain.model import REQUEST_KINDS

    badge = d["status"] or "?"
    if d["reasons"] and badge in ("blocked", "defective"):
        badge += f" ({d['reasons'][0]})"
    elif badge == "cooldown" and d["cooldown_until"]:
        badge += " " + time_left(datetime.fromisoformat(d["cooldown_until"]), now)
    kind = f"{(d['kind'] or '').upper()}/{d['type'] if d['kind'] in REQUEST_KINDS else d['urgency']}"
    return [safe_line(str(f)) for f in (d["filename"], d["state"], kind, d["target_repo"], d["title"], badge)]


JSON = json.JSONEncoder(ensure_ascii=False)  # one encoder for every line of a listing


def _dict_encoder() -> Callable[[dict[str, Any]], str]:
    """`JSON.encode` of a dict (the same text), without the encoder `JSONEncoder.encode`
    sets up again for every call: json's C encoder made once (without the circular reference
    check: a listing's line holds none). `JSON.encode` where json has no C encoder."""
    make, strings = getattr(json.encoder, "c_make_encoder", None), getattr(json.encoder, "c_encode_basestring", None)
    if make is None or strings is None:
        return JSON.encode
    j = JSON
    encode = make(None, j.default, strings, j.indent, j.key_separator, j.item_separator, j.sort_keys, j.skipkeys, j.allow_nan)
    return lambda d: "".join(encode(d, 0))


encode_dict = _dict_encoder()


def json_line(i: Item, j: Judgement | None, blocks: tuple[int, int] | None, holder: Any = None) -> str:
    """A listing's JSON line, as `write_text` prints it: a name that is not UTF-8 as its escape
    (the listing cache is UTF-8)."""
    return safe_json_line(encode_dict(item_json(i, j, blocks, holder)))


def terminal_table(rows: list[list[str]], width: int, caps: Sequence[int] = ()) -> list[str]:
    """Rows as aligned columns measured in terminal cells (a CJK character is two), each
    column padded to its widest cell (at most its cap, longer cells cut with `…`), every
    line cut to `width` cells."""
    from atk_tui.text.cells import cell_len, cut, fit

    if not rows:
        return []
    ncol = max(len(r) for r in rows)
    widths = []
    for c in range(ncol):
        w = max((cell_len(r[c]) for r in rows if c < len(r)), default=0)
        widths.append(min(w, caps[c]) if c < len(caps) else w)
    out = []
    for r in rows:
        cells = [fit(v, widths[c]) if c < ncol - 1 else cut(v, widths[c]) for c, v in enumerate(r)]
        out.append(cut("  ".join(cells).rstrip(), max(width - 1, 10)))
    return out


def rows_into(rows: list[list[str]]) -> Callable[[Iterable[str]], None]:
    """What takes a listing's `--json` records as they come: their text rows (`text_row`)
    printed at once when piped (a few thousand lines to a write), else kept in `rows` for
    `print_rows` to align. 80,000 records are never held at once."""
    from datetime import UTC, datetime
    from itertools import islice

    now = datetime.now(UTC)
    if sys.stdout.isatty():
        return lambda records: rows.extend(text_row(json.loads(r), now) for r in records)

    def printed(records: Iterable[str]) -> None:
        it = iter(records)
        while part := ["\t".join(text_row(json.loads(r), now)) for r in islice(it, 2000)]:
            say("\n".join(part))

    return printed


#: a terminal listing's columns, as indexes into a `text_row`: status, title, state, kind,
#: repository, filename; `LIST_DROP` names the ones left out, in this order, when the title
#: would get fewer than `LIST_TITLE_MIN` cells
LIST_ORDER = (5, 4, 1, 2, 3, 0)
LIST_CAPS = (26, 72, 10, 13, 24, 30)
LIST_DROP = (4, 3, 2)  # repository, kind, state (positions in a row of LIST_ORDER)
LIST_TITLE_MIN = 24


def list_table(rows: list[list[str]], width: int, *, wide: bool = False) -> list[str]:
    """A listing on a terminal `width` cells wide: status and title first, then state, kind,
    repository and the filename, these two shortened in the middle (their ends tell items apart);
    every line fits in `width - 1` cells, the repository, kind and state left out, in that order,
    where the title would be too narrow. `wide`: every column, the filename and the title
    whole, lines as long as they need (the terminal wraps them)."""
    from atk_tui.text.cells import cell_len, cut, cut_middle, fit

    if not rows:
        return []
    table = [[r[i] for i in LIST_ORDER] for r in rows]
    natural = [max(cell_len(r[c]) for r in table) for c in range(len(LIST_ORDER))]
    if wide:
        widths = natural
        shown = list(range(len(LIST_ORDER)))
    else:
        widths = [min(w, cap) for w, cap in zip(natural, LIST_CAPS, strict=True)]
        shown = list(range(len(LIST_ORDER)))
        budget = max(width - 1, 20)

        def others() -> int:
            return sum(widths[c] for c in shown if c != 1) + 2 * (len(shown) - 1)

        for c in LIST_DROP:
            if budget - others() >= min(LIST_TITLE_MIN, widths[1]):
                break
            shown.remove(c)
        widths[1] = max(min(widths[1], budget - others()), 8)
    out = []
    for r in table:
        cells = []
        for k, c in enumerate(shown):
            if wide:
                cells.append(r[c] + " " * (widths[c] - cell_len(r[c])))
            elif c in (4, 5):  # the repository and the filename: both ends kept
                cells.append(fit(cut_middle(r[c], widths[c]), widths[c]))
            else:
                cells.append(fit(r[c], widths[c]) if k < len(shown) - 1 else cut(r[c], widths[c]))
        line = "  ".join(cells).rstrip()
        out.append(line if wide else cut(line, max(width - 1, 20)))
    return out


def print_rows(rows: list[list[str]], status: str, notes: list[str], *, wide: bool = False) -> None:
    """A text listing: its rows (`text_row`) tab-separated and whole when piped (filename
    first, for scripts), aligned on a terminal as `list_table` lays them out; then its notes
    on stderr."""
    if not sys.stdout.isatty():
        for row in rows:
            say("\t".join(row))
    else:
        import shutil

        if not rows:
            say("no items" + ("" if status == "active" else f" (--status={status})"))
        for line in list_table(rows, shutil.get_terminal_size((120, 24)).columns, wide=wide):
            say(line)
    for note in notes:
        say_err_line(note)


def push_said(out: Any) -> tuple[str, tuple[str, ...]]:
    """`service.records.push_said` for the write of the command running now."""
    return records.push_said(out, SERVICE)


def written_line(out: Any) -> tuple[str, list[str]]:
    """`service.records.written_line` (the one line a write prints, and its warnings and notes)
    for the write of the command running now."""
    return records.written_line(out, SERVICE)


def report(out: Any) -> int:
    """What a write did, said one way (README "Say what was written"): warnings on stderr,
    then exactly one line `<verb> <file> (<sha>) pushed|not pushed: <why>` for a write that
    committed (the message alone for one that committed nothing: a no-op), on stdout; `add`
    and `edit` print the saved item on stdout instead, filename first (what they promise),
    and that line on stderr. A refusal is its message on stderr (exit 1 or 2)."""
    if not out.ok:
        for w in out.warnings:
            say_err_line(f"warning: {w}")
        if out.code == "conflict":
            say(out.message)  # what was not pushed and how to resolve it: the command's result
        else:
            say_err(out.message)
        return out.exit_code or 1
    line, beside = written_line(out)
    for w in beside:
        say_err_line(w)
    if out.op in ("add", "edit") and out.item is not None:
        say(out.item.filename)
        say(out.item.text)
        write_text(sys.stderr, safe_text(line).rstrip("\n") + "\n")
    else:
        say(line)
    return 0


def stale_of(args: argparse.Namespace) -> str | None:
    """Why this read's copy may be behind the remote (`freshen_for_read`), None if current."""
    return getattr(args, "stale", None)
