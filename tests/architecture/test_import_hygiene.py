"""The architecture, enforced on the source.

- the contracts of `.importlinter` (the layers, Textual only in the dashboard, no import
  circles): `lint-imports` must keep them all (`.ci/run` runs it too);
- the TUI never reaches through the service into its store (`service.store...`): it asks the
  service;
- only the TUI modules that launch programs (the editor, desktop notifications) import
  `subprocess`; the service never does (git runs through the store, with its time limits);
- importing the CLI or the dashboard does not import pydantic or gitpython (they are
  imported where they serve, on first use).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import atk_tui

PKG = Path(__file__).resolve().parents[2] / "atk_tui"

#: TUI modules allowed to start programs: the $EDITOR launch and merge (edit_session.py) and
#: desktop notifications (alerts.py)
TUI_SUBPROCESS = {"tui/writes/edit_session.py", "tui/feeds/alerts.py"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, module: str | None = None) -> set[str]:
    """Every module `path` (module `module`, by default from its place in the package)
    imports, relative imports resolved, at any depth in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = (module or _module_name(path)).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            found.add(mod)
            found.update(f"{mod}.{a.name}" for a in node.names)
    return found


def sources(sub: str) -> list[Path]:
    return sorted((PKG / sub).rglob("*.py"))


def _hits(mods: set[str], banned: tuple[str, ...]) -> list[str]:
    return sorted(m for m in mods if any(m == b or m.startswith(b + ".") for b in banned))


def test_the_source_tree_is_where_the_test_looks() -> None:
    assert len(sources("service")) > 10 and len(sources("tui")) > 10
    assert "atk_tui.store.gitstore" in imports(PKG / "store/__init__.py")


def test_the_import_contracts_are_kept() -> None:
    """`lint-imports` (import-linter) with the contracts in `.importlinter`."""
    exe = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run(
        [str(exe), str(PKG.parent / ".importlinter")],
        cwd=PKG.parent, capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


@pytest.mark.parametrize("path", sources("tui"), ids=lambda p: str(p.relative_to(PKG)))
def test_tui_never_reaches_into_the_store(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    reach = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "store"]
    assert reach == [], f"{path.name}: `.store` at lines {reach}: add a Service method instead"


@pytest.mark.parametrize("path", sources("tui"), ids=lambda p: str(p.relative_to(PKG)))
def test_only_named_tui_modules_start_programs(path: Path) -> None:
    rel = path.relative_to(PKG).as_posix()
    if rel not in TUI_SUBPROCESS:
        assert _hits(imports(path), ("subprocess",)) == [], f"{rel} imports subprocess"


@pytest.mark.parametrize("path", sources("tui"), ids=lambda p: str(p.relative_to(PKG)))
def test_the_tui_runs_no_git(path: Path) -> None:
    """git (even `git merge-file` on scratch files) runs in core, not from a screen."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value == "git"]
    assert found == [], f"{path.name}: \"git\" at lines {found}: ask the service or core"


@pytest.mark.parametrize("path", sources("service"), ids=lambda p: str(p.relative_to(PKG)))
def test_service_runs_no_processes_itself(path: Path) -> None:
    assert _hits(imports(path), ("subprocess", "os.system")) == []


def test_a_banned_import_is_seen(tmp_path: Path) -> None:
    """The checker itself: a relative import of the TUI from core is found."""
    fake = tmp_path / "probe.py"
    fake.write_text("def f():\n    from ..tui import app\n    import subprocess\n", encoding="utf-8")
    found = imports(fake, "atk_tui.service.probe")
    assert _hits(found, ("atk_tui.tui",)) == ["atk_tui.tui", "atk_tui.tui.app"]
    assert _hits(found, ("subprocess",)) == ["subprocess"]


@pytest.mark.parametrize(
    ("module", "banned"),
    [
        ("atk_tui.cli.main", ("pydantic", "git", "textual", "apprise")),
        ("atk_tui.tui.app", ("pydantic", "git", "apprise")),
        ("atk_tui.service", ("pydantic", "git", "textual", "apprise")),
    ],
)
def test_heavy_libraries_stay_off_the_start_up_path(module: str, banned: tuple[str, ...]) -> None:
    code = (
        f"import sys, {module}\n"
        f"print('\\n'.join(m for m in sys.modules if m.split('.')[0] in {banned!r}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.split() == [], f"importing {module} imported {proc.stdout.split()[:5]}"


# -- the dashboard's shape ---------------------------------------------------------------------
# The code's shape (issues 11 and 45): no module over 600 lines, no folder with more than
# 15 modules at one level, no screen borrowing attributes through `type: ignore`, and no part of
# it importing the app (the app imports them; they talk to it by Textual messages).


TUI = Path(atk_tui.__file__).parent / "tui"
MAX_LINES = 600
MAX_MODULES = 15
#: no module of the dashboard imports the app: the entry point (`atk_tui/__main__.py`) builds it
#: with `make_app`
APP = "atk_tui.tui.app"


def _modules() -> list[Path]:
    return sorted(TUI.rglob("*.py"))


def test_no_module_is_over_600_lines() -> None:
    """Issue 45: the whole package, not the dashboard alone."""
    package = TUI.parent
    long = {
        str(p.relative_to(package)): n
        for p in sorted(package.rglob("*.py")) if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }  # fmt: skip
    assert long == {}, f"split these modules by role: {long}"


def _entries(folder: Path) -> list[str]:
    """A package folder's modules at its own level: its .py files but `__init__.py`, and its
    subpackages."""
    return sorted(
        p.name for p in folder.iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py") or (p.is_dir() and (p / "__init__.py").exists())
    )  # fmt: skip


def test_no_package_folder_holds_more_than_15_modules() -> None:
    package = TUI.parent
    folders = [p.parent for p in package.rglob("__init__.py")]
    crowded = {str(f.relative_to(package.parent)): len(e) for f in folders if len(e := _entries(f)) > MAX_MODULES}
    assert crowded == {}, f"group these folders' modules into subpackages by role: {crowded}"


def test_the_folder_count_sees_modules_and_subpackages() -> None:
    top = _entries(TUI)
    assert "app.py" in top and "screens" in top and "__init__.py" not in top and "fonts" not in top


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(TUI)))
def test_no_dashboard_module_imports_the_app(path: Path) -> None:
    """Not even under TYPE_CHECKING (`imports` reads every import in the file): a circle that
    import-linter does not see (it leaves TYPE_CHECKING imports out) is still a circle."""
    if path == TUI / "app.py":
        return
    found = _hits(imports(path), (APP,))
    assert found == [], f"{path.relative_to(TUI)} imports the app: post a message to it, or take what it needs as an argument"


def test_an_import_of_the_app_is_seen(tmp_path: Path) -> None:
    """The checker itself: the app imported for type checking only, or by a relative import
    from a subpackage, is found."""
    fake = tmp_path / "probe.py"
    fake.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..app import AtkApp\n", encoding="utf-8")
    assert _hits(imports(fake, "atk_tui.tui.writes.probe"), (APP,)) == ["atk_tui.tui.app", "atk_tui.tui.app.AtkApp"]
    fake.write_text("from atk_tui.tui import app\n", encoding="utf-8")
    assert _hits(imports(fake, "atk_tui.tui.writes.probe"), (APP,)) == ["atk_tui.tui.app"]


def test_no_screen_borrows_attributes_it_does_not_declare() -> None:
    ignores = [str(p.relative_to(TUI)) for p in _modules() if "type: ignore[attr-defined]" in p.read_text(encoding="utf-8")]
    assert ignores == []


def _tui_graph() -> dict[str, set[str]]:
    """The dashboard's modules and the dashboard modules each imports, at any depth in the file:
    under TYPE_CHECKING and inside functions too."""
    names = {_module_name(p): p for p in _modules()}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        found = set()
        for mod in imports(path):
            while mod and mod not in names:  # `atk_tui.tui.x.Name` -> `atk_tui.tui.x`
                mod = mod.rpartition(".")[0]
            if mod and mod != name and not (path.name == "__init__.py" or names[mod].name == "__init__.py"):
                found.add(mod)
        graph[name] = found
    return graph


def _a_circle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of `graph` (its modules in order), or []."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str]:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return []
        for nxt in sorted(graph.get(node, ())):
            if found := visit(nxt, [*path, node]):
                return found
        done.add(node)
        return []

    for start in sorted(graph):
        if found := visit(start, []):
            return found
    return []


def test_no_import_circle_in_the_dashboard_even_for_type_checking() -> None:
    """import-linter's acyclic contract leaves TYPE_CHECKING imports out (`.importlinter`); a
    circle hidden there (the commands and the app, the detail follower and the triage screen)
    is still one: a part that needs the app's or a screen's type names a Protocol of its own."""
    assert _a_circle(_tui_graph()) == []


def test_the_circle_finder_finds_one() -> None:
    assert _a_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _a_circle({"a": {"b"}, "b": set()}) == []
    graph = _tui_graph()
    assert "atk_tui.tui.writes.commands" in graph["atk_tui.tui.app"]  # the graph sees the app's imports
