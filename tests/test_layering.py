"""The workbook's imports run one way, all at the top of their modules (DESIGN, "Layering").

A workbook module imported inside a function resolves against the student's `sys.modules` when
it runs, not against the private copy `checks.fresh()` loaded: a student's cell that replaces
`workbook.scenarios.get` would then change what `fresh().fake_llm.FakeLLM("name")` plays. So:
no such imports, no import cycles, and a test that plays the student replacing everything.

`python -m tests.test_layering` prints the import cycles (none, we hope).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "workbook"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    """Every module of the workbook package: dotted name -> file."""
    return {_module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


def _is_package(name: str, known: dict[str, Path]) -> bool:
    return name in known and known[name].name == "__init__.py"


def _targets(node: ast.AST, here: str, known: dict[str, Path]) -> list[str]:
    """The workbook modules an import statement loads (a `from pkg import sub` loads pkg.sub)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "workbook"]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:  # relative: resolve against this module's package
        package = here if _is_package(here, known) else here.rpartition(".")[0]
        package = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
        base = f"{package}.{base}" if base else package
    if base.split(".")[0] != "workbook":
        return []
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]


def late_imports() -> list[str]:
    """`file:line: import ...` for every import of a workbook module inside a function."""
    known, out = modules(), []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            for node in ast.walk(fn):
                if _targets(node, name, known):
                    out.append(f"{path.relative_to(PACKAGE_DIR.parent)}:{node.lineno}: "
                               f"{ast.unparse(node)}")
    return sorted(set(out))


def import_graph() -> dict[str, set[str]]:
    """Module -> the workbook modules it imports (anywhere in the file), with their packages.

    Importing `workbook.a.b` first runs `workbook/a/__init__.py`, so it is an edge to `workbook.a`
    as well, unless the importer lives inside `workbook.a` (then that package is already loading).
    """
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for target in _targets(node, name, known):
                parts = target.split(".")
                for i in range(2, len(parts) + 1):
                    step = ".".join(parts[:i])
                    inside = name == step or name.startswith(step + ".")
                    if step in known and step != name and (step == target or not inside):
                        graph[name].add(step)
    return graph


def cycles(graph: dict[str, set[str]] | None = None) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    graph = import_graph() if graph is None else graph
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_no_workbook_import_inside_a_function():
    assert late_imports() == [], "import these at the top of the module (see DESIGN, Layering)"


def test_no_import_cycles():
    assert cycles() == []


if __name__ == "__main__":
    found = cycles()
    print(f"{len(found)} import cycle(s) in workbook/" + (":" if found else ""))
    for group in found:
        print("  " + " <-> ".join(group))
    late = late_imports()
    print(f"{len(late)} workbook import(s) inside functions" + (":" if late else ""))
    for line in late:
        print("  " + line)
    sys.exit(1 if found or late else 0)
