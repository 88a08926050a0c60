"""The workbook's imports run one way, all at the top of their modules (docs/DESIGN.md, "Layering").

The layers are documented twice and checked against both: the package's in LAYERS below (and the
same table in docs/DESIGN.md), the engine's own order in `workbook/engine/__init__.py`'s
docstring. A module imports only modules of its own layer or lower ones; a new module must be
placed in a layer (the test says so).

A workbook module imported inside a function resolves against the student's `sys.modules` when
it runs, not against the private copy `checks.fresh()` loaded: a student's cell that replaces
`workbook.scenarios.get` would then change what `fresh().fake_llm.FakeLLM("name")` plays. So:
no such imports, no import cycles, and a test that plays the student replacing everything.

`python -m tests.test_layering` prints the import cycles (none, we hope).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "workbook"
DESIGN = PACKAGE_DIR.parent / "docs" / "DESIGN.md"

# The package's layers, lowest first ("x*" is x and every module under it). Keep docs/DESIGN.md's
# "Layering" table the same (a test compares them).
LAYERS = [
    ("the fake's machinery, and plain data and tools",
     ["workbook.engine*", "workbook.paths", "workbook.schemas", "workbook.shop", "workbook.payments",
      "workbook.prices", "workbook.display", "workbook.probes", "workbook.notebook_side", "workbook.quiz_format",
      "workbook.mcp_servers*", "workbook.kb", "workbook.sqlite_reader", "workbook.cli", "workbook.compare",
      "workbook.process_watch", "workbook.i18n*", "workbook.fresh", "workbook.test_cells"]),
    ("the scenarios", ["workbook.scenarios*"]),
    ("what stands on them: name lookup, traces, quizzes, the judge's link",
     ["workbook.fake_llm*", "workbook.trace*", "workbook.frameworks", "workbook.env", "workbook.saved_answers",
      "workbook.quiz", "workbook.link*"]),
    ("the entry points: providers, checks, progress", [
        "workbook", "workbook.__main__", "workbook.providers", "workbook.checks", "workbook.progress",
        "workbook.validate", "workbook.loopback"]),
]


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


def _matches(name: str, pattern: str) -> bool:
    base = pattern.removesuffix("*")
    return name == base or (pattern.endswith("*") and name.startswith(base + "."))


def layer_of(name: str, layers=LAYERS) -> int | None:
    """The index of the layer a module belongs to (the most specific pattern wins)."""
    hits = [(len(p), i) for i, (_, patterns) in enumerate(layers) for p in patterns if _matches(name, p)]
    return max(hits)[1] if hits else None


def engine_layers() -> list[list[str]]:
    """The engine's own order, read from the table in `workbook/engine/__init__.py`'s docstring."""
    doc = ast.get_docstring(ast.parse((PACKAGE_DIR / "engine" / "__init__.py").read_text("utf-8")))
    rows = doc.split("Layers", 1)[1].split("\n\n")[1].splitlines()
    table = [[n.strip() for n in re.split(r"\s{2,}", row.strip())[0].split(",")] for row in rows]
    return [row for row in table if not any("." in n for n in row)]  # the rows above the package


def upward_imports(graph: dict[str, set[str]] | None = None, layers=LAYERS) -> list[str]:
    """`a -> b` for each import of a higher layer (package layers, then the engine's order)."""
    graph = import_graph() if graph is None else graph
    engine = {f"workbook.engine.{n}": i for i, row in enumerate(engine_layers()) for n in row}
    out = []
    for a, targets in graph.items():
        for b in targets:
            la, lb = layer_of(a, layers), layer_of(b, layers)
            if la is not None and lb is not None and lb > la:
                out.append(f"{a} (layer {la}) -> {b} (layer {lb})")
            elif a in engine and b in engine and engine[b] > engine[a]:
                out.append(f"{a} (engine layer {engine[a]}) -> {b} (engine layer {engine[b]})")
    return sorted(out)


def test_every_module_has_a_layer():
    known = modules()
    unplaced = sorted(n for n in known if layer_of(n) is None)
    assert not unplaced, f"place these in LAYERS (tests/test_layering.py) and docs/DESIGN.md: {unplaced}"
    engine = {f"workbook.engine.{n}" for row in engine_layers() for n in row}
    missing = sorted(n for n in known if n.startswith("workbook.engine.") and n not in engine)
    assert not missing, f"workbook/engine/__init__.py's layer table does not place {missing}"
    assert engine <= set(known), f"the engine's table names modules that do not exist: {engine - set(known)}"


def test_imports_go_only_to_the_same_or_a_lower_layer():
    assert upward_imports() == [], "an import runs against the documented layer order"


def test_an_upward_import_is_reported():
    """The check itself: a scenario imported by the engine, and core imported by tokens, are caught."""
    graph = {"workbook.engine.core": {"workbook.scenarios.base"},
             "workbook.engine.tokens": {"workbook.engine.core"},
             "workbook.scenarios.base": {"workbook.engine.core"}}
    assert upward_imports(graph) == [
        "workbook.engine.core (layer 0) -> workbook.scenarios.base (layer 1)",
        "workbook.engine.tokens (engine layer 0) -> workbook.engine.core (engine layer 6)"]


def test_design_md_shows_the_same_layers():
    text = DESIGN.read_text(encoding="utf-8").split("## Layering", 1)[1]
    block = text.split("```", 2)[1].strip().splitlines()[1:]  # after the fence's language word
    shown = [[p.strip() for p in line.rsplit(":", 1)[1].split(",")] for line in block]
    assert shown == [patterns for _, patterns in LAYERS], "docs/DESIGN.md's Layering table differs"


def test_no_workbook_import_inside_a_function():
    assert late_imports() == [], "import these at the top of the module (see docs/DESIGN.md, Layering)"


def test_no_import_cycles():
    assert cycles() == []


if __name__ == "__main__":
    found = cycles()
    print(f"{len(found)} import cycle(s) in workbook/" + (":" if found else ""))
    for group in found:
        print("  " + " <-> ".join(group))
    upward = upward_imports()
    print(f"{len(upward)} import(s) against the layer order" + (":" if upward else ""))
    for line in upward:
        print("  " + line)
    late = late_imports()
    print(f"{len(late)} workbook import(s) inside functions" + (":" if late else ""))
    for line in late:
        print("  " + line)
    sys.exit(1 if found or late or upward else 0)
