"""Chapters are self-contained, so later ones re-provide earlier reference code as given cells;
most do it with `#@include` (one source). The copies still written out by hand must not drift
from the chapter that teaches them: compared as code (AST), so comments, docstrings, type hints
and solution markers do not matter."""

import ast

import pytest

from workbook.paths import ROOT

# name -> (the chapter that teaches it, chapters that still re-provide it by hand). Every other
# chapter #@includes its given code (autograder/includes.py, tests/test_includes.py); the copies
# left differ from their source on purpose, in ways the AST comparison below ignores: 09's
# AgentResult (its comments name the PAUSED status), 13's run_agent (06's solution carries a
# maintainers' comment), and 11's file and number tools (type hints added, so its `execute`
# validates the model's arguments against them). This file goes when they do.
COPIES = {
    "AgentResult": ("02_the_loop", ["09_trajectories_and_checkpoints"]),
    "run_agent": ("06_limits", ["13_react_and_plan_execute"]),
    "read_file": ("07_what_code_decides", ["11_capstone"]),
    "write_note": ("07_what_code_decides", ["11_capstone"]),
    "calculate": ("07_what_code_decides", ["11_capstone"]),
}


def definition(chapter: str, name: str) -> str:
    source = (ROOT / "solutions" / chapter / f"{chapter}.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            if ast.get_docstring(node) is not None:  # a copy may word its docstring for its chapter
                node.body = node.body[1:]
            if isinstance(node, ast.FunctionDef):  # ... and add type hints (tool schemas need them)
                node.returns = None
                for arg in node.args.args + node.args.kwonlyargs:
                    arg.annotation = None
            return ast.dump(node)
    raise AssertionError(f"{chapter} does not define {name}")


@pytest.mark.parametrize("name,teacher,copy", [(n, t, c) for n, (t, cs) in COPIES.items() for c in cs])
def test_given_copy_matches_the_teaching_chapter(name, teacher, copy):
    assert definition(copy, name) == definition(teacher, name), (
        f"{copy} re-provides {name} but it differs from {teacher}'s: copy the current version")
