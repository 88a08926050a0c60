"""A test cell's names in the judge: its own, else one of the chapter's exercises, asked of the kernel.

No other name is ever looked up in the notebook: given code, prompts, constants and helpers a test
uses are its own (`#@include`, the workbook), so what they mean is fixed by the chapter.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any, Protocol


class Asks(Protocol):
    """The judge's end, as a test's names use it (judge_end.py `JudgeEnd`, which imports this module)."""

    namespace: Any

    def lookup(self, name: str) -> Any: ...


class Namespace(dict):
    """A test cell's globals in the judge: what the test cells define, else one of the chapter's
    exercise names (what its answer cells define, read from the course's notebook: `exercises`),
    looked up in the notebook. No other name is ever asked of the kernel: given code, prompts,
    constants and helpers a test uses are its own (`#@include`, the workbook), so what they mean
    is fixed by the chapter, never by the notebook."""

    def __init__(self, end: Asks, exercises=()):
        super().__init__()
        self.end = end
        end.namespace = self
        self.exercises = frozenset(exercises)
        self.from_kernel: set[str] = set()
        self.missing: set[str] = set()

    def __missing__(self, name: str):
        if name not in self.exercises or name in self.missing or hasattr(builtins, name):
            raise KeyError(name)
        try:
            value = self.end.lookup(name)
        except NameError:
            self.missing.add(name)
            raise KeyError(name) from None
        self[name] = value
        self.from_kernel.add(name)
        return value

    def own(self) -> dict:
        """The names the test's own code defined (not those the kernel gave it)."""
        return {k: v for k, v in list(dict.items(self)) if k not in self.from_kernel}

    def forget_kernel(self) -> None:
        """Before each test cell: the notebook may have redefined anything since the last one."""
        for name in self.from_kernel:
            self.pop(name, None)
        self.from_kernel.clear()
        self.missing.clear()


def defined_names(source: str) -> set[str]:
    """The names a cell defines at top level (`def`, `class`, `name = ...`); none if it is not Python.
    An answer cell's are the chapter's exercise names (autograder/notebooks.py `exercise_names`)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign | ast.AugAssign) else []
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def read_names(source: str) -> set[str]:
    """The names a cell reads anywhere (a decorator, a default, a body); none if it is not Python."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
