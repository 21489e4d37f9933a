"""`atk completion bash|zsh|fish` in the real shells: each generated script is loaded by its
shell and asked to complete `atk wi star` (bash through COMP_WORDS and the function that
`complete -p atk` names, fish through `complete -C`, zsh by a real Tab in tmux after
`compinit`). A test skips only when its shell is not installed, saying so; `.ci/run` installs
zsh and fish, so CI runs them all."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support.tmux import tmux_session
from support.tools import need_tool

ATK = Path(sys.executable).with_name("atk")


def shell_or_skip(name: str) -> str:
    return need_tool(name)


def script(tmp_path: Path, shell: str, name: str) -> Path:
    """The script as a user installs it: written by the real `atk` binary."""
    out = subprocess.run([str(ATK), "completion", shell], capture_output=True, text=True, check=True).stdout
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(out)
    return path


def env_with_atk() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{ATK.parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_bash_registers_atk_and_completes_a_subcommand(tmp_path: Path) -> None:
    bash = shell_or_skip("bash")
    path = script(tmp_path, "bash", "atk.bash")
    prog = f"""
source {shlex.quote(str(path))}
spec=$(complete -p atk) || exit 3
echo "spec: $spec"
fn=${{spec##*-F }}; fn=${{fn%% *}}
COMP_WORDS=(atk wi star); COMP_CWORD=2; COMP_LINE="atk wi star"; COMP_POINT=${{#COMP_LINE}}
"$fn" atk star wi
printf 'reply: %s\\n' "${{COMPREPLY[@]}}"
COMP_WORDS=(atk wi set-urgency F ''); COMP_CWORD=4; COMP_LINE="atk wi set-urgency F "; COMP_POINT=${{#COMP_LINE}}
"$fn" atk '' F
printf 'reply: %s\\n' "${{COMPREPLY[@]}}"
"""
    out = subprocess.run([bash, "--norc", "--noprofile", "-c", prog], capture_output=True, text=True, env=env_with_atk())
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("spec: complete ") and lines[0].endswith(" atk"), lines
    replies = [line.removeprefix("reply: ") for line in lines[1:]]
    assert replies[0] == "start-processing"
    assert set(replies[1:]) == {"blocking", "next-review", "informational"}


def test_fish_completes_subcommands_with_their_help(tmp_path: Path) -> None:
    fish = shell_or_skip("fish")
    path = script(tmp_path, "fish", "atk.fish")

    def complete(line: str) -> list[list[str]]:
        prog = f"source {shlex.quote(str(path))}; complete -C {shlex.quote(line)}"
        out = subprocess.run([fish, "--no-config", "-c", prog], capture_output=True, text=True, env=env_with_atk())
        assert out.returncode == 0, out.stderr
        return [line.split("\t") for line in out.stdout.splitlines()]

    assert [c[0] for c in complete("atk wi star")] == ["start-processing"]
    offered = {c[0]: c[1:] for c in complete("atk wi ")}
    assert {"list", "show", "add", "hold", "log", "answer", "start-processing"} <= set(offered)
    assert offered["log"] and "commits that touched an item" in offered["log"][0]
    assert "--patch" in [c[0] for c in complete("atk wi log --pa")]


@pytest.mark.parametrize("prog", ["atk", "atk-tui"])
def test_fish_loads_the_script_from_the_path_its_header_names(tmp_path: Path, prog: str) -> None:
    """The install path the script (and docs/user-guide.md) gives is where fish looks on demand:
    no `source`, a fresh HOME, fish's own config dirs."""
    fish = shell_or_skip("fish")
    from atk_tui.cli.parser import completion_install_path

    out = subprocess.run([str(ATK), "completion", "fish", "--prog", prog], capture_output=True, text=True, check=True).stdout
    where = completion_install_path("fish", prog)
    assert f"> {where}" in out.splitlines()[1]
    home = tmp_path / "home"
    target = Path(where.replace("~", str(home), 1))
    target.parent.mkdir(parents=True)
    target.write_text(out)
    env = {k: v for k, v in env_with_atk().items() if not k.startswith("XDG_")}
    env["HOME"] = str(home)
    line = "atk wi star" if prog == "atk" else "atk-tui --de"
    got = subprocess.run([fish, "-c", f"complete -C {shlex.quote(line)}"], capture_output=True, text=True, env=env)
    assert got.returncode == 0, got.stderr
    assert [c.split("\t")[0] for c in got.stdout.splitlines()] == (["start-processing"] if prog == "atk" else ["--demo"])


def test_zsh_script_parses_and_completes_after_compinit(tmp_path: Path) -> None:
    zsh = shell_or_skip("zsh")
    fpath = tmp_path / "zfunc"
    path = script(tmp_path, "zsh", "zfunc/_atk")
    syntax = subprocess.run([zsh, "-n", str(path)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr
    # the README's install: the script as _atk on fpath, then compinit
    setup = f"fpath=({shlex.quote(str(fpath))} $fpath); autoload -U compinit; compinit -u -D"
    found = subprocess.run([zsh, "-f", "-c", f"{setup}; print -r -- $_comps[atk]"], capture_output=True, text=True)
    assert found.stdout.strip() == "_atk", found.stderr
    prompt = "zsh-ready> "
    shell = f"env PATH={shlex.quote(str(ATK.parent))}:$PATH PS1={shlex.quote(prompt)} {zsh} -f -i"
    with tmux_session(tmp_path, prompt, shell=shell) as t:
        t.type(f"{setup}; clear")
        t.send("Enter")
        t.wait_for(lambda s: s.strip().startswith(prompt.strip()) and "compinit" not in s, "compinit to run")
        t.type("atk wi star")
        t.send("Tab")
        t.wait_for(lambda s: "atk wi start-processing" in s, "zsh to complete start-processing")
        t.send("C-u")
        t.type("atk wi ad")
        t.send("Tab")
        screen = t.wait_for(lambda s: "adopt" in s and "add" in s.split("atk wi ad", 1)[-1], "zsh to list add and adopt")
        assert "processing -> adopted" in screen  # with each command's help
