"""A store with a scripted history of questions (known commit times) for the wait statistics."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from atk_tui.store import init_store

T0 = datetime(2026, 11, 1, 0, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=4)

ONE_Q = """# {title}

## 質問
Which one?

- A) first
- B) second

推奨: A)
"""

TWO_Q = """# {title}

## 質問
### Q1. Retry?
- A) backoff
- B) fixed
推奨: A)

### Q2. Timeout?
- A) 5 s
- B) 30 s
推奨: B)
"""


def uwi(title: str, body: str = ONE_Q, answer: str = "") -> str:
    return f"---\nkind: uwi\ntarget_repo: acme/webapp\nurgency: blocking\n---\n{body.format(title=title)}{answer}"


def awi(title: str, deps: list[str]) -> str:
    dep = f"depends_on: [{', '.join(deps)}]\n" if deps else ""
    return f"---\nkind: awi\ntarget_repo: acme/webapp\n{dep}---\n# {title}\n\n- 反映内容: x\n"


ANSWER_A = "\n## 回答\n\n- 1: A) first\n"
ANSWER_B = "\n## 回答\n\n- 1: B) second\n"
PARTIAL = "\n## 回答\n\n- 1: A) backoff\n"
FULL = "\n## 回答\n\n- 1: A) backoff\n- 2: B) 30 s\n"


class History:
    """Write files and commit them at chosen times, as the service's commits would."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def git(self, *args: str, when: datetime | None = None) -> None:
        env = dict(os.environ)
        if when is not None:
            stamp = when.strftime("%Y-%m-%dT%H:%M:%S+00:00")
            env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
        subprocess.run(["git", *args], cwd=self.root, env=env, check=True, capture_output=True)

    def write(self, state: str, name: str, text: str) -> None:
        path = self.root / "wi" / state / name
        path.write_text(text, encoding="utf-8")
        self.git("add", str(path))

    def commit(self, when: datetime, subject: str) -> None:
        self.git("commit", "-q", "--no-verify", "-m", subject, "-m", "Atk-Actor: user", when=when)

    def move(self, name: str, src: str, dst: str) -> None:
        self.git("mv", f"wi/{src}/{name}", f"wi/{dst}/{name}")

    def rm(self, state: str, name: str) -> None:
        self.git("rm", "-q", f"wi/{state}/{name}")


def scripted_store(tmp_path: Path) -> tuple[Path, History]:
    """q1 answered after 5 h (re-answered later), q5 after 1 h (adopted, returned to inbox),
    q3 removed unanswered after 1 h, q4 partially answered then fully after 1 d, q2 open since
    +2 h; a1 depends on q1, a2 on a1, a3 on q2."""
    root, _ = init_store(tmp_path / "store")
    h = History(root)
    h.write("inbox", "q1.md", uwi("Q one"))
    h.write("inbox", "a1.md", awi("A one", ["q1.md"]))
    h.write("inbox", "a2.md", awi("A two", ["a1.md"]))
    h.write("inbox", "q5.md", uwi("Q five"))
    h.commit(T0, "atk: add q1, a1, a2, q5")
    h.write("inbox", "q5.md", uwi("Q five", answer=ANSWER_A))
    h.commit(T0 + timedelta(hours=1), "atk: answer q5.md")
    h.move("q5.md", "inbox", "adopted")
    h.write("inbox", "q2.md", uwi("Q two"))
    h.write("inbox", "a3.md", awi("A three", ["q2.md"]))
    h.commit(T0 + timedelta(hours=2), "atk: adopt q5.md; add q2, a3")
    h.move("q5.md", "adopted", "inbox")
    h.commit(T0 + timedelta(hours=3), "atk: return-to-inbox q5.md")
    h.write("inbox", "q1.md", uwi("Q one", answer=ANSWER_A))
    h.commit(T0 + timedelta(hours=5), "atk: answer q1.md")
    h.write("inbox", "q1.md", uwi("Q one", answer=ANSWER_B))
    h.commit(T0 + timedelta(hours=6), "atk: answer q1.md (again)")
    h.write("inbox", "q3.md", uwi("Q three"))
    h.commit(T0 + timedelta(days=1), "atk: add q3.md")
    h.rm("inbox", "q3.md")
    h.commit(T0 + timedelta(days=1, hours=1), "atk: rm q3.md")
    h.write("inbox", "q4.md", uwi("Q four", TWO_Q))
    h.commit(T0 + timedelta(days=2), "atk: add q4.md")
    h.write("inbox", "q4.md", uwi("Q four", TWO_Q, PARTIAL))
    h.commit(T0 + timedelta(days=2, hours=1), "atk: answer q4.md (partial)")
    h.write("inbox", "q4.md", uwi("Q four", TWO_Q, FULL))
    h.commit(T0 + timedelta(days=3), "atk: answer q4.md")
    return root, h


