"""Which cells a mutant must run: a name analysis of the notebook's cells (the fast runner's skip).

A mutant changes one exercise's cell. From there on, a name is *tainted* when a statement that
binds it read a tainted name (the changed cell's names to begin with); a name bound again by a
statement that reads nothing tainted is clean again. What a statement reads comes from `symtable`;
a function's body reads its globals when it is called, so it is matched against every name
tainted anywhere (a fixpoint), in the cells before the change too: a function that calls a
changed one, wherever it is defined, is tainted. A statement that reads a tainted name taints what
it binds and what it changes in place (`x[k] = ...`, `x.a = ...`, `x.append(...)`: the root `x`).

A cell must run when it is a changed cell, a graded (test) cell that reads a tainted name, or a
cell that binds a name a later running cell reads. Every other cell is skipped, and a skipped
test cell is given the solution's own verdict for it: by this analysis it cannot see the mutant.
The analysis sees names only, not files or objects reached another way; `GATES_DEPS=0` runs every
cell, and CONTRIBUTING.md says when to compare the two (`tests/test_cell_deps.py` has the rules).
"""

from __future__ import annotations

import ast
import functools
import os
import symtable
from collections.abc import Set

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def enabled() -> bool:
    return os.environ.get("GATES_DEPS", "1") != "0"


# Every mutant of a chapter shares the solution's cells: a cell is parsed once, and what a
# statement (an `ast` node, by identity) binds, changes and reads is found once (~100 s of CPU
# for the gates' 514 mutants otherwise). The results are frozen: callers never change them.


@functools.cache
def binds(node: ast.AST) -> frozenset[str]:
    """The names a statement binds in the notebook's globals (not inside its functions)."""
    out: set[str] = set()

    def walk(n: ast.AST) -> None:
        for child in ast.iter_child_nodes(n):
            if isinstance(child, FUNCTIONS):
                out.add(child.name)
                continue
            if isinstance(child, SCOPES):
                continue
            if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
                out.add(child.id)
            elif isinstance(child, ast.alias):
                out.add((child.asname or child.name).split(".")[0])
            walk(child)

    walk(ast.Module(body=[node if isinstance(node, ast.stmt) else ast.Expr(node)], type_ignores=[]))
    return frozenset(out)


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


@functools.cache
def changes(node: ast.AST) -> frozenset[str]:
    """Root names a statement may change in place: assigned items and attributes, method calls."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.Attribute, ast.Subscript)) and not isinstance(n.ctx, ast.Load):
            out.add(_root(n))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            out.add(_root(n.func.value))
    return frozenset(out - {None})


@functools.cache
def reads(node: ast.AST | None) -> tuple[frozenset[str], frozenset[str]]:
    """The global names a statement or expression reads: (as it runs, later: in its functions'
    bodies, which read a name when they are called, not where they are defined)."""
    if node is None:
        return frozenset(), frozenset()
    now: set[str] = set()
    later: set[str] = set()

    def walk(table: symtable.SymbolTable, top: bool) -> None:
        for sym in table.get_symbols():
            if sym.is_referenced() and (top or sym.is_global()):
                (now if top else later).add(sym.get_name())
        for child in table.get_children():
            walk(child, False)

    walk(symtable.symtable(ast.unparse(node), "<cell>", "exec"), True)
    return frozenset(now), frozenset(later)


class Taint:
    """Tainted names as the cells run (a clean binding ends a taint), and `late`: every name
    tainted anywhere, which a function body may meet whenever it is called."""

    def __init__(self, tainted: Set[str], late: set[str]):
        self.tainted, self.late, self.ever = set(tainted), late, set(tainted)

    def add(self, names: Set[str]) -> None:
        self.tainted |= names
        self.ever |= names

    def step(self, read: tuple[Set[str], Set[str]], bound: Set[str], keep: Set[str] = frozenset()) -> bool:
        if read[0] & self.tainted or read[1] & self.late:
            self.add(bound)
            return True
        self.tainted -= bound - keep  # a clean binding; an in-place change of a tainted name stays
        return False

    def flow(self, body: list[ast.stmt]) -> bool:
        """Through statements in order: did one read a tainted name?"""
        hit = False
        for st in body:
            if isinstance(st, (ast.With, ast.AsyncWith)):
                head = [reads(i.context_expr) for i in st.items]
                targets = set().union(*(binds(i.optional_vars) for i in st.items if i.optional_vars is not None))
                hit |= self.step((set().union(*(h[0] for h in head)), set().union(*(h[1] for h in head))), targets)
                hit |= self.flow(st.body)
            elif isinstance(st, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.Try)):
                target = binds(st.target) if isinstance(st, (ast.For, ast.AsyncFor)) else set()
                hit |= self.step(reads(getattr(st, "iter", None) or getattr(st, "test", None)), target)
                bodies = [st.body, getattr(st, "orelse", []), getattr(st, "finalbody", [])]
                bodies += [h.body for h in getattr(st, "handlers", [])]
                before = set(self.tainted)
                for _ in range(2):  # a loop's second pass sees what its first tainted
                    for inner in bodies:
                        hit |= self.flow(inner)
                        before |= self.tainted
                        self.tainted = set(before)  # a branch not taken may leave its taint
            else:
                hit |= self.step(reads(st), binds(st) | changes(st), keep=changes(st))
        return hit


@functools.cache
def _cell_binds(tree: ast.Module) -> frozenset[str]:
    return frozenset().union(*(binds(st) for st in tree.body))


@functools.cache
def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def must_run(base: list[str], cells: list[str], graded: list[bool], start: int) -> set[int]:
    """Positions in `cells` (from `start`) a variant must run; `base` is the solution's sources."""
    trees = [_parse(c) for c in cells]
    changed = [i >= len(base) or cells[i] != base[i] for i in range(len(cells))]
    late: set[str] = set()
    for i in range(start, len(cells)):
        if changed[i] and trees[i] is not None:
            late |= _cell_binds(trees[i])
    while True:  # to a fixpoint: `late` grows with every name a pass taints
        hits = _pass(trees, changed, start, late)
        if hits[1] <= late:
            break
        late |= hits[1]
    facts = []
    for i in range(start, len(cells)):
        tree = trees[i]
        if tree is None:
            facts.append((True, set(), set(), set()))  # the grader runs it as it is: so do we
            continue
        free, called, seen = set(), set(), set()
        for st in tree.body:  # what the cell reads before it binds it itself; what its functions read
            now, later = reads(st)
            free |= now - seen
            called |= later
            seen |= binds(st)
        facts.append((changed[i] or (i in hits[0] and graded[i]), free, called, seen))
    # read by a function of a running cell or of one run before the fork: it may be called after any cell
    anywhere: set[str] = set().union(*(reads(st)[1] for t in trees[:start] if t is not None for st in t.body))
    while True:
        run, needed = set(), set()
        for offset in range(len(facts) - 1, -1, -1):
            own, free, called, bound = facts[offset]
            if own or bound & (needed | anywhere):
                run.add(start + offset)
                needed |= free
                anywhere |= called
        if not any(facts[i - start][3] & anywhere for i in range(start, len(cells)) if i not in run):
            return run


def _pass(trees, changed, start, late) -> tuple[set[int], set[str]]:
    """One forward pass: (the cells from `start` that read a tainted name, every name tainted)."""
    taint = Taint(set(), late)
    for tree in trees[:start]:  # run before the fork: only their functions' bodies can meet the change
        for st in tree.body if tree is not None else []:
            if reads(st)[1] & late:
                taint.add(binds(st) | changes(st))
    hit_cells = set()
    for i in range(start, len(trees)):
        tree = trees[i]
        if tree is None:
            continue
        if changed[i]:
            taint.add(_cell_binds(tree))
            hit_cells.add(i)
        elif taint.flow(tree.body):
            hit_cells.add(i)
    return hit_cells, taint.ever
