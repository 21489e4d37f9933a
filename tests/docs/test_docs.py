"""The docs are tested: every shell block marked runnable in README.md and docs/*.md is run,
and its output compared with what the block shows (issue 30).

The convention (docs/development.md#tested-docs says it for writers):

- a fence whose info string is ``sh runnable`` (or ``console runnable``) is run; any other
  fence is only read;
- the blocks of one document run in order, in one fresh store (`atk init`, named by
  $ATK_PRIVATE_NOTES), with HOME and XDG_CONFIG_HOME in a temporary folder, no agent variables,
  the working directory a scratch folder; exported variables carry from a block to the next;
- in a block with lines starting ``$ ``, each such line is a command (a line ending in ``\\``
  or a heredoc goes on), and the lines after it, up to the next command, are its expected
  output (stdout and stderr together). ``...`` alone on a line stands for any lines (none
  too); ``...`` inside a line stands for any text. A command shown with no output lines is
  run and its output not compared. Every command must succeed: show a failure as
  ``$ atk … || echo "exit $?"``;
- a block without ``$ `` lines is a script: it must exit 0, its output is not compared.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\S*)(.*)$")
MARK = "\x1eatk-doc-step"
AGENT_VARS = ("AI_AGENT", "CODEX_CI", "CLAUDECODE", "CURSOR_AGENT")
HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")


@dataclass
class Step:
    line: int  # 1-based line of the command in the document
    command: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Block:
    doc: Path
    line: int  # the fence's line
    text: str
    steps: list[Step]  # empty: a script


def is_runnable(info: str, rest: str) -> bool:
    return info in ("sh", "bash", "console", "shell") and "runnable" in rest.split()


def blocks_of(doc: Path) -> list[Block]:
    lines = doc.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or (not m.group(1) and not m.group(2)):
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        if is_runnable(m.group(1), m.group(2)):
            body = lines[start + 1 : j]
            out.append(Block(doc, start + 1, "\n".join(body) + "\n", parse_steps(body, start + 2)))
        i = j + 1
    return out


def parse_steps(body: list[str], first_line: int) -> list[Step]:
    if not any(line.startswith("$ ") for line in body):
        return []
    steps: list[Step] = []
    k = 0
    while k < len(body):
        line = body[k]
        if not line.startswith("$ "):
            if not steps:
                raise AssertionError(f"line {first_line + k}: output before the first `$ ` command")
            steps[-1].expected.append(line.rstrip())
            k += 1
            continue
        cmd = [line[2:]]
        at = first_line + k
        k += 1
        while cmd[-1].endswith("\\") and k < len(body):
            cmd.append(body[k].removeprefix("> "))
            k += 1
        here = HEREDOC.search(" ".join(cmd))
        if here:
            while k < len(body):
                cmd.append(body[k].removeprefix("> "))
                k += 1
                if cmd[-1].strip() == here.group(1):
                    break
        steps.append(Step(at, "\n".join(cmd)))
    for s in steps:
        while s.expected and not s.expected[-1].strip():
            s.expected.pop()
    return steps


def line_matches(pattern: str, line: str) -> bool:
    if "..." not in pattern:
        return pattern == line
    return re.fullmatch(".*".join(re.escape(p) for p in pattern.split("...")), line) is not None


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """`...` alone matches any run of lines; inside a line, any text."""
    memo: dict[tuple[int, int], bool] = {}

    def go(e: int, a: int) -> bool:
        if (e, a) not in memo:
            if e == len(expected):
                ok = a == len(actual)
            elif expected[e].strip() == "...":
                ok = go(e + 1, a) or (a < len(actual) and go(e, a + 1))
            else:
                ok = a < len(actual) and line_matches(expected[e], actual[a]) and go(e + 1, a + 1)
            memo[(e, a)] = ok
        return memo[(e, a)]

    return go(0, 0)


def doc_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in AGENT_VARS and not k.startswith("ATK_")}
    home = tmp / "home"
    home.mkdir()
    env.update(
        HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        TZ="UTC", LC_ALL="C.UTF-8", COLUMNS="100", ATK_PRIVATE_NOTES=str(tmp / "notes"),
        ATK_GH=str(home / "no-gh"),  # a doc never reaches GitHub: gh is "not installed" there
    )
    env.pop("VISUAL", None)
    env.pop("EDITOR", None)
    subprocess.run([str(BIN / "atk"), "init", str(tmp / "notes")], env=env, check=True, capture_output=True)
    return env


def run_block(block: Block, env: dict[str, str], work: Path, state: Path) -> None:
    where = f"{block.doc.relative_to(ROOT)}:{block.line}"
    parts = ["exec 2>&1", "set -eo pipefail", f'[ -f "{state}" ] && . "{state}"']
    steps = block.steps or [Step(block.line + 1, block.text)]
    for n, step in enumerate(steps):
        parts += [f"printf '{MARK} {n}\\n'", step.command]
    parts += [f"printf '{MARK} end\\n'", f'export -p > "{state}"']
    script = "\n".join(parts) + "\n"
    proc = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=180)
    chunks = re.split(rf"\n?{MARK} (\d+|end)\n", "\n" + proc.stdout)
    outputs: dict[str, str] = dict(zip(chunks[1::2], chunks[2::2], strict=False))
    if proc.returncode != 0 or "end" not in outputs:
        failed = max((int(k) for k in outputs if k != "end"), default=0)
        step = steps[failed]
        raise AssertionError(
            f"{where}: the command at line {step.line} failed (exit {proc.returncode}):\n"
            f"$ {step.command}\n{outputs.get(str(failed), proc.stdout)}"
        )
    if not block.steps:
        return
    for n, step in enumerate(steps):
        if not step.expected:
            continue
        actual = outputs[str(n)].rstrip("\n").split("\n") if outputs[str(n)].strip() else []
        actual = [a.rstrip() for a in actual]
        if not output_matches(step.expected, actual):
            raise AssertionError(
                f"{block.doc.relative_to(ROOT)}:{step.line}: the output of\n$ {step.command}\n"
                f"no longer matches the document.\n--- the document shows:\n" + "\n".join(step.expected)
                + "\n--- the command printed:\n" + "\n".join(actual)
            )


RUNNABLE = {doc: blocks_of(doc) for doc in DOCS}


@pytest.mark.parametrize("doc", [d for d in DOCS if RUNNABLE[d]], ids=lambda d: str(d.relative_to(ROOT)))
def test_runnable_blocks(doc: Path, tmp_path: Path) -> None:
    env = doc_env(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    for block in RUNNABLE[doc]:
        run_block(block, env, work, tmp_path / "state.sh")


def test_enough_blocks_are_run_and_the_agent_flow_is_one_of_them() -> None:
    blocks = [b for bs in RUNNABLE.values() for b in bs]
    assert len(blocks) >= 12, [f"{b.doc.name}:{b.line}" for b in blocks]
    text = "\n".join(b.text for b in RUNNABLE[ROOT / "README.md"])
    for command in ("atk wi list", "atk wi show", "atk wi answer", "atk wi adopt", "atk wi unhold", "atk wi wait"):
        assert command in text, f"the README's runnable blocks do not run {command}"


# -- the matcher itself ------------------------------------------------------------------


def test_the_matcher_takes_wildcards_and_rejects_a_changed_line() -> None:
    assert output_matches(["added ...-login.md (...) not pushed: no remote"], ["added 20261201-101010-login.md (abc) not pushed: no remote"])
    assert output_matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert output_matches(["a", "...", "z"], ["a", "z"])
    assert not output_matches(["a", "z"], ["a", "b", "z"])
    assert not output_matches(["added ... pushed"], ["removed x pushed"])


def test_a_block_whose_output_changed_fails(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("```sh runnable\n$ echo hello\nhello\n$ echo two\nthree\n```\n")
    (block,) = blocks_of(doc)
    env = dict(os.environ)
    with pytest.raises(AssertionError, match="no longer matches"):
        run_block_at(block, env, tmp_path)


def run_block_at(block: Block, env: dict[str, str], tmp: Path) -> None:
    global ROOT
    saved, ROOT = ROOT, tmp
    try:
        run_block(block, env, tmp, tmp / "state.sh")
    finally:
        ROOT = saved
