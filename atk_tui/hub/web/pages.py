"""The answer page's HTML, made on the server (issue 41): no script, no external resource.

Every piece of store text goes through `t()`: unsafe characters shown escaped
(`text.textsafe.safe_text`: control, bidirectional and invisible format characters), then
HTML-escaped. Nothing from an item is ever put in the page as markup; the body is shown as
text in a `<pre>`.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from atk_tui.text.textsafe import safe_line, safe_text


def t(text: object) -> str:
    """Store text (several lines) as HTML text."""
    return html.escape(safe_text(str(text)), quote=True)


def t1(text: object) -> str:
    """Store text on one line (a title, a filename, a repository) as HTML text."""
    return html.escape(safe_line(str(text)), quote=True)


def item_href(queue: str, filename: str) -> str:
    return f"/i/{queue}/{quote(filename, safe='')}"


def page(title: str, main: str, *, device: str | None = None) -> str:
    """A whole page around `main` (already HTML)."""
    who = f'<span class="who">paired as {t1(device)}</span>' if device else ""
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        '<meta name="referrer" content="same-origin">'
        f"<title>{t1(title)} · atk</title>"
        '<link rel="stylesheet" href="/static/page.css">'
        "</head><body>"
        f'<header class="top"><a href="/">Needs you</a>{who}</header>'
        f'<main id="main">{main}</main>'
        "</body></html>\n"
    )


@dataclass(frozen=True)
class Status:
    """What happened, said at the top of a page: `kind` ok | warn | bad."""

    kind: str
    heading: str
    lines: tuple[str, ...] = ()  # plain text, escaped here
    links: tuple[tuple[str, str], ...] = ()  # (href, label)
    recorded: str = ""  # what was written (an answer's section), shown as it is stored

    def html(self) -> str:
        role = "status" if self.kind == "ok" else "alert"
        body = "".join(f"<p>{t(line)}</p>" for line in self.lines)
        if self.recorded:
            body += f'<p>Recorded:</p><pre class="body">{t(self.recorded)}</pre>'
        body += "".join(f'<p><a href="{html.escape(href)}">{t1(label)}</a></p>' for href, label in self.links)
        return f'<section class="status {self.kind}" role="{role}" aria-live="polite"><h2>{t1(self.heading)}</h2>{body}</section>'


@dataclass(frozen=True)
class Row:
    """One line of a list: an item to open."""

    queue: str
    filename: str
    title: str
    kind: str
    urgency: str
    age: str
    repo: str
    overdue: str = ""  # "overdue 2h" / "" ; shown first when set
    due: str = ""  # "answer by …, 3h left"
    partial: bool = False
    state: str = ""


def _row(r: Row) -> str:
    badges = []
    if r.overdue:
        badges.append(f'<span class="badge overdue">{t1(r.overdue)}</span>')
    if r.kind in ("uwi", "tbd"):
        badges.append(f'<span class="badge {t1(r.urgency)}">{t1(r.urgency)}</span>')
    if r.partial:
        badges.append('<span class="badge partial">partly answered</span>')
    meta = " · ".join(x for x in (f"asked {r.age}", r.repo, r.due, r.state) if x)
    return (
        f'<li><a href="{item_href(r.queue, r.filename)}">'
        f'<span class="title">{t1(r.title or r.filename)}</span>'
        f'<span class="meta">{" ".join(badges)} {t1(meta)}</span></a></li>'
    )


def list_page(needs: Sequence[Row], others: Sequence[Row], *, device: str, notes: Iterable[str] = ()) -> str:
    """The needs-you list (in the dashboard's order), then the open work items."""
    parts = ['<h1 id="needs">Needs you</h1>']
    parts += [f'<p class="meta">{t(n)}</p>' for n in notes]
    if needs:
        parts.append('<ol class="items" aria-labelledby="needs">' + "".join(_row(r) for r in needs) + "</ol>")
    else:
        parts.append('<p class="empty">Nothing needs you now.</p>')
    if others:
        parts.append('<h2 id="others">Open work items</h2>')
        parts.append('<ul class="items" aria-labelledby="others">' + "".join(_row(r) for r in others) + "</ul>")
    return page("Needs you", "".join(parts), device=device)


@dataclass
class QuestionView:
    number: int
    text: str
    options: list[tuple[str, str, str]]  # (letter, label, implications)
    recommended: str | None
    answered: str | None = None  # what its partial answer says already (a letter or "other")


@dataclass
class ItemView:
    """An item as the page shows it."""

    queue: str
    filename: str
    title: str
    kind: str
    state: str
    repo: str
    urgency: str
    age: str
    body: str
    is_question: bool
    answered: bool
    partial: bool
    digest: str  # questions: the content digest; others: the file's SHA-256
    questions: list[QuestionView] = field(default_factory=list)
    due: str = ""
    overdue: str = ""
    answer_text: str = ""  # a partial answer's section as stored


@dataclass
class Form:
    """What the person filled in (kept when a submit is refused, so nothing is lost)."""

    choices: dict[int, str] = field(default_factory=dict)
    text: str = ""
    partial: bool = False


def _question(q: QuestionView, form: Form | None) -> str:
    legend = f"Question {q.number}: {q.text}" if q.text else f"Question {q.number}"
    out = [f'<fieldset><legend>{t(legend)}</legend>']
    if q.answered is not None:
        said = "other (see the notes)" if q.answered == "other" else q.answered
        out.append(f'<p class="answered">Answered already in the partial answer: {t1(said)}</p></fieldset>')
        return "".join(out)
    name = f"q{q.number}"
    chosen = form.choices.get(q.number) if form is not None else (q.recommended or (None if q.options else "other"))
    for letter, label, implications in q.options:
        rec = ' <span class="rec">recommended</span>' if letter == q.recommended else ""
        checked = " checked" if chosen == letter else ""
        small = f"<small>{t(implications)}</small>" if implications else ""
        out.append(
            f'<label class="opt"><input type="radio" name="{name}" value="{letter}"{checked}>'
            f"<span><b>{letter})</b> {t(label)}{rec}{small}</span></label>"
        )
    other = " checked" if chosen == "other" else ""
    what = "Other: say what in the notes below" if q.options else "Answer in the notes below"
    out.append(f'<label class="opt"><input type="radio" name="{name}" value="other"{other}><span>{what}</span></label>')
    none = " checked" if chosen in ("", None) and form is not None else ""
    out.append(
        f'<label class="opt"><input type="radio" name="{name}" value=""{none}>'
        "<span>Not yet (leave it for a partial answer)</span></label>"
    )
    out.append("</fieldset>")
    return "".join(out)


def _meta(v: ItemView) -> str:
    bits = [f"{v.kind.upper()} in {v.state}", f"asked {v.age}", v.repo]
    if v.is_question:
        bits.insert(1, v.urgency)
    if v.due:
        bits.append(v.due)
    badge = f'<span class="badge overdue">{t1(v.overdue)}</span> ' if v.overdue else ""
    return f'<p class="meta">{badge}{t1(" · ".join(b for b in bits if b))} · <code>{t1(v.filename)}</code></p>'


def item_page(v: ItemView, *, csrf: str, device: str, status: Status | None = None, form: Form | None = None) -> str:
    """A UWI with its answer form, or an AWI read-only with a comment box."""
    parts = [status.html() if status else "", f"<h1>{t1(v.title or v.filename)}</h1>", _meta(v)]
    action = item_href(v.queue, v.filename)
    hidden = (
        f'<input type="hidden" name="csrf" value="{html.escape(csrf)}">'
        f'<input type="hidden" name="digest" value="{html.escape(v.digest)}">'
    )
    if v.is_question and not v.answered:
        parts.append(f"<details><summary>The whole question as written</summary><pre class=\"body\">{t(v.body)}</pre></details>")
        if v.partial and v.answer_text:
            parts.append(f'<p class="meta">Partly answered so far:</p><pre class="body">{t(v.answer_text)}</pre>')
        parts.append(f'<form method="post" action="{action}/answer">{hidden}')
        parts.extend(_question(q, form) for q in v.questions)
        text = t(form.text) if form else ""
        parts.append(
            '<label class="field" for="notes">Notes (free text, recorded as you write it)</label>'
            f'<textarea id="notes" name="text" rows="4">{text}</textarea>'
        )
        checked = " checked" if form and form.partial else ""
        parts.append(
            f'<label class="check"><input type="checkbox" name="partial" value="1"{checked}>'
            "<span>Save as a partial answer (the item keeps waiting for you)</span></label>"
        )
        parts.append("<button type=\"submit\">Answer</button></form>")
    elif v.is_question:
        parts.append('<p class="answered">This question is answered.</p>')
        parts.append(f'<pre class="body">{t(v.body)}</pre>')
    else:
        parts.append(f'<pre class="body" aria-label="The work item, read-only">{t(v.body)}</pre>')
        parts.append(f'<form method="post" action="{action}/comment">{hidden}')
        text = t(form.text) if form else ""
        parts.append(
            '<label class="field" for="comment">Your comment (added under ユーザーコメント)</label>'
            f'<textarea id="comment" name="text" rows="4" required>{text}</textarea>'
            '<button type="submit">Comment</button></form>'
        )
    return page(v.title or v.filename, "".join(parts), device=device)


def message_page(title: str, status: Status, *, device: str | None = None, extra: str = "") -> str:
    return page(title, status.html() + extra, device=device)


def pair_page(code: str, csrf: str, *, refusal: str | None = None) -> str:
    """The page a pairing URL opens: name this device, then pair."""
    if refusal:
        return message_page("Pair this device", Status("bad", "Not paired", (refusal,)))
    form = (
        "<h1>Pair this device</h1>"
        "<p>This browser will be able to answer the questions of this store, as you, until you end it with "
        "<code>atk hub revoke NAME</code> on the computer running the hub.</p>"
        f'<form method="post" action="/pair/{html.escape(code)}">'
        f'<input type="hidden" name="csrf" value="{html.escape(csrf)}">'
        '<label class="field" for="name">Name of this device (shown in the history of every answer it gives)</label>'
        '<input type="text" id="name" name="name" value="phone" maxlength="32" required autocomplete="off">'
        '<button type="submit">Pair</button></form>'
    )
    return page("Pair this device", form)


def unpaired_page(reason: str = "") -> str:
    lines = (
        "This browser is not paired with this hub, so it can neither see nor answer anything. Nothing was written.",
        *((reason,) if reason else ()),
        "To pair it: on the computer running `atk hub`, run `atk hub pair` and open the address it prints "
        "(or scan its QR code) on this device.",
    )
    return message_page("Pair this device", Status("bad", "Pair this device first", lines))


def confirm_page(title: str, choices: Sequence[str], action: str, csrf: str, *, device: str | None) -> str:
    """A one-tap link opened in a browser: one button that accepts the recommendation."""
    items = "".join(f"<li>{t(c)}</li>" for c in choices)
    main = (
        f"<h1>{t1(title)}</h1>"
        "<p>Accept the recommended answer:</p>"
        f"<ul>{items}</ul>"
        f'<form method="post" action="{html.escape(action)}">'
        f'<input type="hidden" name="csrf" value="{html.escape(csrf)}">'
        '<button type="submit">Accept recommended</button></form>'
    )
    return page(title, main, device=device)
