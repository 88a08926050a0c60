"""Which cells a learner's kernel runs as the grader runs them, and the hook that sends them there.

`import workbook` calls `install`: from then on IPython hands a cell that opens with a test's
docstring ("Visible tests: ..." or "Hidden tests: ...") to `workbook.loopback.run`, which runs it
through the judge's link in the kernel. This module imports nothing heavy: the link is loaded by
the first test cell's own line, never by `import workbook` (which every graded kernel and every
replay of another process does, before it refuses native modules: workbook/link/replay.py).
"""

from __future__ import annotations

import ast
import os
import sys

OPENINGS = ("Visible tests", "Hidden tests")  # how every test cell's docstring begins
MARK = "_workbook_loopback"  # set on the shell once the transformer is in
OFF = "AGENT_LOOP_LOOPBACK"  # =0: test cells run as plain code (a graded kernel starts so: autograder/sandbox)


def is_test_cell(source: str) -> bool:
    """Is `source` a test cell: its first statement a docstring that says which tests it holds?"""
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):
        return False
    first = body[0] if body else None
    return (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str) and first.value.value.startswith(OPENINGS))


def _transform(lines: list[str]) -> list[str]:
    source = "".join(lines)
    if not is_test_cell(source):
        return lines
    return [f"__import__('workbook.loopback', fromlist=['run']).run({source!r})\n"]


def ipython():
    """This process's IPython shell, or None (IPython is looked up, never imported)."""
    module = sys.modules.get("IPython")
    return module.get_ipython() if module is not None else None


def install(shell=None) -> bool:
    """Run test cells through the loop from now on (once) in `shell`, else in this process's
    IPython kernel; False outside a kernel, or where AGENT_LOOP_LOOPBACK=0 asks for test cells
    to run as plain code."""
    if shell is None:
        shell = ipython()
        if shell is None or getattr(shell, "kernel", None) is None:
            return False
    if os.environ.get(OFF) == "0":
        return False
    if not getattr(shell, MARK, False):
        setattr(shell, MARK, True)
        shell.input_transformers_post.append(_transform)
    return True
