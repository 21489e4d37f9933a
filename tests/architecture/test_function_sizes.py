"""The graph layout in named steps (issue 45, point 5): no function of `atk_tui/graph/` longer
than 80 lines. `layout_graph` was one function of ~290 lines (cyclomatic ~121); it is now a
pipeline of steps (`pipeline._Run`), each doing one thing its docstring names. A step that grows
past the limit is split, not left to grow."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "atk_tui"
MAX_FUNCTION_LINES = 80


def _long_functions(folder: Path, limit: int, root: Path = PKG) -> dict[str, int]:
    """`module:qualified.name` -> lines, for every function (methods and nested ones too) over `limit`."""
    long: dict[str, int] = {}
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

        def walk(node: ast.AST, prefix: str, path: Path = path) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                        lines = (child.end_lineno or child.lineno) - start + 1
                        if lines > limit:
                            long[f"{path.relative_to(root)}:{name}"] = lines
                    walk(child, name + ".")
                else:
                    walk(child, prefix)

        walk(tree, "")
    return long


def test_the_measure_sees_a_long_function(tmp_path: Path) -> None:
    """The check below can fail: a function of 81 lines (a method, nested in a class) is found."""
    body = "\n".join(f"        x{i} = {i}" for i in range(80))
    (tmp_path / "m.py").write_text(f"class C:\n    def f(self):\n{body}\n", encoding="utf-8")
    assert _long_functions(tmp_path, MAX_FUNCTION_LINES, root=tmp_path) == {"m.py:C.f": 81}
    assert _long_functions(tmp_path, 81, root=tmp_path) == {}


def test_no_graph_function_is_over_80_lines() -> None:
    folder = PKG / "graph"
    assert list(folder.rglob("*.py")), "atk_tui/graph has no modules: the check would pass on nothing"
    long = _long_functions(folder, MAX_FUNCTION_LINES)
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines in atk_tui/graph (split them into named steps): {long}"
