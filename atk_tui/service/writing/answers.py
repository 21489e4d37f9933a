"""The user-only writes: a UWI's answer, an AWI's comment (SPEC §7, §8, §11)."""

from __future__ import annotations

import re

from atk_tui.domain.model import Item, is_valid_filename
from atk_tui.domain.ops import Op, refusal
from atk_tui.domain.queues import queue_named
from atk_tui.itemfile import sections
from atk_tui.itemfile.items import parse_item
from atk_tui.service.core.writecore import WriteCore
from atk_tui.service.types import Outcome, _body_of
from atk_tui.store import AtkError, Transaction, item_path

#: in .git: the question bodies `atk wi show` last printed to the person (`Answers.note_shown`)
SHOWN_FILE = "atk-shown.json"
SHOWN_KEEP = 16  # questions remembered at most (the newest shown)


class Answers:
    """The user-only writes, on the write core: `svc.answers.answer(...)`, `.comment(...)`."""

    def __init__(self, core: WriteCore) -> None:
        self.core = core

    def note_shown(self, items: list[Item]) -> None:
        """Remember the body of each question printed to the person (`atk wi show`; never an
        agent's read): an answer given on the command line is checked against what they read
        (`read_by_person`), not against whatever a later read pulled in (SPEC §15)."""
        import json

        from atk_tui.store.files import _atomic_write

        questions = [i for i in items if i.is_question]
        if self.core.actor != "user" or not questions:
            return
        path = self.core.store.git_dir / SHOWN_FILE
        shown = self._shown(path)
        for item in questions:
            shown.pop(item.filename, None)
            shown[item.filename] = item.body
        kept = dict(list(shown.items())[-SHOWN_KEEP:])
        try:
            _atomic_write(path, json.dumps(kept, ensure_ascii=False).encode("utf-8"))
        except OSError:
            pass  # then the answer is checked against the local copy, as without a show

    @staticmethod
    def _shown(path) -> dict[str, str]:
        import json

        from atk_tui.store.files import _read_private

        try:
            data = json.loads(_read_private(path))
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}

    def read_by_person(self, filename: str) -> str | None:
        """What the person read of this question before answering it on the command line: the
        body `atk wi show` last printed to them (`note_shown`), checked against the question's
        history. Fails closed (issue 38), AtkError code "unread" (exit 1; the CLI then shows
        the question and asks to run the answer again): a record that is no version of this
        question (not its local copy, nor a committed one); or no record (`.git/atk-shown.json`
        missing, or not naming it) while the question has had more than one version (its
        history, the local copy included): which one was read cannot be told, and the local
        copy may be one an agent's read pulled in since. Without a record, a question that
        never changed could only have been read as it is. None: no such question."""
        local = self.local_body(filename)
        if local is None or self.core.actor != "user":
            return local  # an agent's answer is refused as the user's write it is
        found = self.core.find(filename)
        item = self.core.parse_bounded(filename, found[0][1], found[0][0]) if found else None
        if item is None or not item.is_question:
            return local
        shown = self._shown(self.core.store.git_dir / SHOWN_FILE).get(filename)
        if shown is not None and shown == local:
            return shown
        versions = self._versions(item)
        if shown is not None and shown in versions:
            return shown
        if shown is None and not any(question_changes(v, local) for v in versions):
            return local
        why = (
            "no record of which version of it you read (it has changed since it was asked)" if shown is None
            else "a record of what you read that is no version of it"
        )  # fmt: skip
        raise AtkError(
            f"not saved: atk has {why} ({filename}); nothing was recorded. Here is the question as it is now: "
            f"read it, then run the same `atk {item.queue} answer` again",
            code="unread",
        )

    def _versions(self, item: Item, limit: int = 100) -> list[str]:
        """The bodies `item` had at its last `limit` commits (newest first)."""
        log = self.core.store.git("log", f"-n{limit}", "--format=%H", "--", f":(glob){item.queue}/*/{item.filename}",
                             check=False, env=self.core.store.read_env).stdout.split()  # fmt: skip
        states = queue_named(item.queue).states
        specs = [f"{sha}:{item_path(s, item.filename, item.queue)}" for sha in log for s in states]
        out = []
        for data in self.core.blobs(specs):
            if data is not None:
                out.append(parse_item(item.filename, item.state, data, queue=item.queue).body)
        return out

    def answer(
        self,
        filename: str,
        *,
        choices: dict[int, str] | None = None,
        text: str = "",
        replace: bool = False,
        partial: bool = False,
        base: bytes | None = None,
        seen: str | None = None,
        trailers: tuple[str, ...] = (),
    ) -> Outcome:
        """Write the UWI's `## 回答` section (SPEC §7, §11). `trailers`: more commit trailer
        lines (`Atk-Device: NAME`: the answer page's paired device; `add_trailers`). `seen`: the body the answer was
        made against (the CLI: the local file before the pull); refused with code "changed",
        saying what changed, when the questions the pull brought in read otherwise (SPEC §15). `choices` maps a question number
        to a letter or "other" (`- N: other — see notes`). Re-answering (`replace`) replaces
        the whole section, so a question left out becomes missing again (how a choice is
        cleared). Refused with code "partial" when a question is left without a choice unless
        `partial`; with code "changed" when `base` (the bytes the user saw) is not what is
        stored any more."""

        def change(tx: Transaction) -> Item:
            add_trailers(tx, trailers)
            return self._answer_in(tx, filename, choices, text, replace=replace, partial=partial, base=base, seen=seen)

        return self.core.write("answer", [filename], change)

    def local_body(self, filename: str) -> str | None:
        """The item's body as the local work tree has it now, read without any pull (what an
        answer given on the command line was made against: `answer(seen=...)`)."""
        found = self.core.find(filename) if is_valid_filename(filename) else []
        if not found:
            return None
        try:
            return self.core.parse_bounded(filename, found[0][1], found[0][0]).body
        except (AtkError, OSError):
            return None

    def accept_recommendations(self, filenames: list[str]) -> Outcome:
        """Answer each UWI with the recommended option of every question, all in one commit:
        the dashboard's batch approval ("one OK for the batch"). Nothing is written, and the
        items are named, when one of them has a question without a recommendation."""
        from atk_tui.itemfile.questions import parse_questions

        def change(tx: Transaction) -> Item | None:
            self.core.user_only("answer")
            plans: list[tuple[str, dict[int, str]]] = []
            without: list[str] = []
            twins = self.core.case_twins(filenames)  # every folder listed once for the batch
            for name in filenames:
                item = self.core.current(name, twins=twins[name])
                questions = parse_questions(item.body).questions
                missing = [q.number for q in questions if not q.recommendation]
                if missing or not questions:
                    without.append(f"{name} (question {missing[0]})" if missing else f"{name} (no questions)")
                else:
                    plans.append((name, {q.number: q.recommendation for q in questions}))
            if without:
                raise AtkError(
                    f"nothing accepted: no recommendation to accept in {', '.join(without)}; "
                    "answer those one by one, or leave them out of the batch",
                    code="invalid",
                )
            last = None
            for name, choices in plans:
                last = self._answer_in(tx, name, choices, "")
            return last

        return self.core.write("answer", list(filenames), change)

    def _answer_in(
        self,
        tx: Transaction,
        filename: str,
        choices: dict[int, str] | None,
        text: str,
        *,
        replace: bool = False,
        partial: bool = False,
        base: bytes | None = None,
        seen: str | None = None,
    ) -> Item:
        """The answer of one UWI written into `tx` (see `answer`)."""
        from atk_tui.itemfile.questions import OTHER, OTHER_LINE, answer_progress, parse_questions  # only for answers

        choices = dict(choices or {})
        self.core.user_only("answer")
        item = self.core.current(filename)
        if base is not None and base != self.core.store.read_bytes(item.state, item.filename, queue=item.queue):
            seen = _body_of(base.decode("utf-8", "replace"))
        if seen is not None:
            changes = question_changes(seen, item.body)
            if changes:
                raise AtkError(
                    f"not saved: the question in {filename} changed since you read it (a newer version came in "
                    f"from the remote): {'; '.join(changes)}. Nothing was recorded: read it again "
                    f"(`atk {item.queue} show {filename}`) and answer the new version",
                    code="changed",
                )
        self.core.check_base(item, base)
        self.core.raise_refusal(refusal(Op.ANSWER, [item], self.core.actor))
        if item.answered and not replace:
            raise AtkError(f"{filename} is already answered; confirm to replace the answer (--replace)", code="state")
        parsed = parse_questions(item.body)
        kept: dict[int, str] = {}
        if item.answer_partial and not replace:
            # a partial answer is added to (SPEC §11: it still needs the user): its choices stay,
            # a choice for one of its questions must say the same (else --replace), its notes stay
            kept, notes = sections.split_answer(sections.answer_text(item.body) or "")
            given = answer_progress(item.body, parsed).answered
            for number, letter in choices.items():
                had = kept.get(number)
                if had is None:
                    continue
                now = OTHER if letter.strip().casefold() == OTHER else letter.upper()
                if given.get(number) != now:
                    raise AtkError(
                        f"question {number} of {filename} is answered already in its partial answer ({had}); "
                        "--replace replaces the whole answer (questions left out are then unanswered again)",
                        code="state",
                    )
            if notes.strip():
                text = notes.strip() + ("\n\n" + text if text.strip() else "")
        labels: dict[int, str] = {}
        for number, letter in sorted(choices.items()):
            q = next((q for q in parsed.questions if q.number == number), None)
            if q is None:
                raise AtkError(
                    f"there is no question {number} (questions: {', '.join(str(q.number) for q in parsed.questions)})",
                    exit_code=2,
                )
            if letter.strip().casefold() == OTHER:
                labels[number] = OTHER_LINE
                continue
            opt = q.option(letter)
            if opt is None:
                letters = ", ".join(o.letter for o in q.options) or "none"
                raise AtkError(
                    f"question {number} has no option {letter} (options: {letters}; or {number}=other with --text)",
                    exit_code=2,
                )
            labels[number] = opt.display
        if not labels and not text.strip():
            raise AtkError("an answer needs a choice or some text", exit_code=2)
        labels = {**kept, **labels}
        body = sections.set_answer(item.body, sections.format_answer(labels, text))
        if not body.endswith("\n"):
            body += "\n"
        progress = answer_progress(body, parsed)
        if not progress.complete and not partial:
            bare = [n for n in progress.missing if labels.get(n) == OTHER_LINE]
            if bare:  # "other" says: see the notes; there are none (SPEC §11: other needs text)
                which = ", ".join(str(n) for n in bare)
                raise AtkError(
                    f"not saved: question{'s' if len(bare) > 1 else ''} {which} of {filename} "
                    f'{"are" if len(bare) > 1 else "is"} answered "other" with no text; say what with '
                    "--text TEXT (or --text-file P), choose an option instead, or pass --partial to save "
                    "a partial answer (the item then still blocks)",
                    code="partial",
                )
            missing = ", ".join(str(n) for n in progress.missing)
            raise AtkError(
                f"not saved: question{'s' if len(progress.missing) > 1 else ''} {missing} of {filename} "
                f"ha{'ve' if len(progress.missing) > 1 else 's'} no answer; choose one "
                f"(--choose {progress.missing[0]}=LETTER, or {progress.missing[0]}=other with --text), "
                "or pass --partial to save a partial answer (the item then still blocks)",
                code="partial",
            )
        return self.core.save(tx, item, item.fm_block + body)

    def comment(self, filename: str, text: str, *, base: bytes | None = None, trailers: tuple[str, ...] = ()) -> Outcome:
        """Append to the AWI's trailing `## ユーザーコメント` section. With `base` (the bytes the
        user saw), refused with code "changed" when the stored file differs. `trailers`: as
        `answer`'s."""

        def change(tx: Transaction) -> Item:
            add_trailers(tx, trailers)
            self.core.user_only("comment")
            item = self.core.current(filename)
            self.core.check_base(item, base)
            self.core.raise_refusal(refusal(Op.COMMENT, [item], self.core.actor))
            if not text.strip():
                raise AtkError("the comment is empty", exit_code=2)
            body = sections.append_comment(item.body, text)
            return self.core.save(tx, item, item.fm_block + body)

        return self.core.write("comment", [filename], change)


def check_answer_author(core: WriteCore, item: Item) -> None:
    """Defence in depth (SPEC §11): an agent closes a UWI only when the commit that
    introduced its current answer is a user's (`Atk-Actor: user`)."""
    current = sections.answer_text(item.body)
    if not (current or "").strip():
        return
    name = item.filename
    refuse = AtkError(
        f"refused: the answer in {name} was not written by the user (its newest change is not an "
        "`Atk-Actor: user` commit); only the user answers — leave it for the user to answer in the dashboard",
        exit_code=2,
        code="user-only",
    )
    head_text = core.committed_text("HEAD", name, item.state, item.queue)
    if head_text is None or sections.answer_text(parse_item(name, item.state, head_text.encode(), queue=item.queue).body) != current:
        raise refuse  # the answer is not even committed
    fmt = "%H%x1f%(trailers:key=Atk-Actor,valueonly,separator=%x2c)%x1e"
    log = core.store.git("log", "-n200", f"--format={fmt}", "--", f":(glob){item.queue}/*/{name}", check=False).stdout
    commits = [tuple(r.strip("\n").split("\x1f")) for r in log.split("\x1e") if r.strip()]

    revs = [r for sha, _ in commits for r in (sha, f"{sha}^")]
    states = queue_named(item.queue).states
    blobs = core.blobs([f"{rev}:{item_path(s, name, item.queue)}" for rev in revs for s in states])
    answers: dict[str, str | None] = {}
    for n, rev in enumerate(revs):
        data = next((b for b in blobs[n * len(states) : (n + 1) * len(states)] if b is not None), None)
        answers[rev] = None if data is None else sections.answer_text(parse_item(name, "inbox", data, queue=item.queue).body)
    for sha, actor in commits:
        if answers[sha] != answers[f"{sha}^"]:
            if actor.strip() != "user":
                raise refuse
            return
    raise refuse


#: a trailer a write may add: `Key: value` on one line, never one of atk's own keys
_TRAILER_RE = re.compile(r"[A-Z][A-Za-z0-9-]{0,40}: [^\x00-\x1f\x7f]{1,200}")


def add_trailers(tx: Transaction, trailers: tuple[str, ...] | list[str]) -> None:
    """Put `trailers` on `tx`'s commit; AtkError (nothing written) for a line that is not one
    `Key: value` trailer, or that names `Atk-Actor`/`Atk-Agent` (who wrote is atk's to say)."""
    for line in trailers:
        key = line.split(":", 1)[0].casefold()
        if not _TRAILER_RE.fullmatch(line) or key in ("atk-actor", "atk-agent"):
            raise AtkError(f"not a commit trailer atk may add: {line!r}", exit_code=2, code="invalid")
        tx.trailers.append(line)


def question_changes(before: str, after: str) -> list[str]:
    """How the questions of body `after` differ from those of `before` (text, options,
    their order and wording), one phrase each, at most eight; [] when they read the same
    (a changed recommendation or context is not a changed question)."""
    from atk_tui.itemfile.questions import parse_questions

    def short(text: str) -> str:
        text = " ".join(text.split())
        return repr(text if len(text) <= 70 else text[:69] + "…")

    old = {q.number: q for q in parse_questions(before).questions}
    new = {q.number: q for q in parse_questions(after).questions}
    out: list[str] = []
    for n in sorted(old.keys() | new.keys()):
        a, b = old.get(n), new.get(n)
        if a is None or b is None:
            out.append(f"question {n} is {'new' if a is None else 'gone'}")
            continue
        if " ".join(a.text.split()) != " ".join(b.text.split()):
            out.append(f"question {n} now reads {short(b.text)} (was {short(a.text)})")
        if [o.letter for o in a.options] != [o.letter for o in b.options] or [o.label for o in a.options] != [
            o.label for o in b.options
        ]:
            was = {o.letter: o for o in a.options}
            for o in b.options:
                p = was.get(o.letter)
                if p is None:
                    out.append(f"question {n} has a new option {o.letter}) {short(o.label)}")
                elif (p.label, p.implications) != (o.label, o.implications):
                    out.append(f"question {n} option {o.letter} is now {short(o.label)} (was {short(p.label)})")
            gone = [letter for letter in was if letter not in {o.letter for o in b.options}]
            if gone:
                out.append(f"question {n} no longer has option{'s' if len(gone) > 1 else ''} {', '.join(gone)}")
        elif [(o.label, o.implications) for o in a.options] != [(o.label, o.implications) for o in b.options]:
            for p, o in zip(a.options, b.options, strict=True):
                if p.implications != o.implications:
                    now, was = short(o.implications), short(p.implications)
                    out.append(f"question {n} option {o.letter} now says {now} (was {was})")
    return out[:8]
