"""Items of the feedback queue (`atk mq`): a feedback item and a TBD, seeded into a store."""

from __future__ import annotations

from pathlib import Path

from support.storekit import git

FEEDBACK = """# Shorten the login error copy

- 反映内容: one sentence instead of three
- 反映先: acme/web login form
- 理由: users do not read three sentences
"""

TBD = """# Which tone should error messages take?

## 質問
Which tone?

- A) Neutral -- plain statements
- B) Friendly -- more words

推奨: A) shorter
"""


def feedback(repo: str = "acme/web", extra: str = "", body: str = FEEDBACK) -> str:
    return f"---\nkind: feedback\ntarget_repo: {repo}\n{extra}---\n{body}"


def tbd(repo: str = "acme/web", extra: str = "", body: str = TBD) -> str:
    return f"---\nkind: tbd\ntarget_repo: {repo}\n{extra}---\n{body}"


def seed(root: Path, files: dict[str, tuple[str, str]], queue: str = "mq") -> None:
    """Files as `name: (state, text)`, in `queue` (or "wi/…"/"mq/…" in the state)."""
    for name, (state, text) in files.items():
        folder = state if "/" in state else f"{queue}/{state}"
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "seed")
