"""`#@include`: given code restated from another chapter, kept in one place.

A chapter that re-provides code taught earlier writes, at the start of a line of a code cell of its
source `solutions/NN_name/NN_name.py`,

    #@include 06_limits call_tool

and `make release` builds the notebooks with that line replaced by the text of the top-level `def`
or `class` named `call_tool` in `solutions/06_limits/06_limits.py` (its decorators, docstring and
comments included; nbgrader's `### BEGIN SOLUTION` / `### END SOLUTION` lines dropped, so the
answer of an exercise becomes given code), or of its top-level assignment `call_tool = ...` (one
plain name as target). The student sees the whole code; the source of truth is the named chapter.
One name per line; blank lines between includes are written around them.

A test cell includes its own chapter's prompts and constants the same way, so that what it expects
is held by the test, not read from a name the notebook can rebind (the judge looks a name a test
does not define up in the student's kernel).

A source is looked up in the named chapter's own text, where it is written out (never through that
chapter's own includes): a name that is not defined there, or defined more than once, stops the
release with an error that says which.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from autograder.course import AutograderError

DIRECTIVE = "#@include"
INCLUDE = re.compile(r"^#@include[ \t]+(?P<chapter>\d\d_[A-Za-z0-9_]+)[ \t]+(?P<name>[A-Za-z_]\w*)[ \t]*$")
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def defines(node: ast.stmt, name: str) -> bool:
    """Whether top-level statement `node` is `def name`/`class name` or `name = ...` (one target)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name == name
    if isinstance(node, ast.Assign):
        return len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.target.id == name and node.value is not None
    return False


def definitions(text: str, name: str) -> list[str]:
    """The source text of every top-level def/class `name` (decorators included) or assignment
    `name = ...` in `text`. Assignments let a test cell hold its own copy of an expected value (a
    prompt, a constant), so a notebook that rebinds the name cannot change what a test expects."""
    lines = text.splitlines(keepends=True)
    found = []
    for node in ast.parse(text).body:
        if defines(node, name):
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            found.append("".join(lines[start - 1:node.end_lineno]))
    return found


def source_of(chapters: Path, chapter: str, name: str, where: str) -> str:
    """The one definition of `name` in chapter `chapter` (under `chapters`), markers dropped."""
    path = chapters / chapter / f"{chapter}.py"
    if not path.is_file():
        raise AutograderError(f"{where}: `{DIRECTIVE} {chapter} {name}`: there is no {path}")
    text = path.read_text(encoding="utf-8")
    try:
        found = definitions(text, name)
    except SyntaxError as e:
        raise AutograderError(f"{where}: `{DIRECTIVE} {chapter} {name}`: {path} does not parse ({e})") from None
    if not found:
        via = [m["chapter"] for m in map(INCLUDE.match, text.splitlines()) if m and m["name"] == name]
        hint = f" (it includes it from {via[0]}: name that chapter)" if via else ""
        raise AutograderError(f"{where}: `{DIRECTIVE} {chapter} {name}`: {path} defines no top-level "
                              f"def, class or assignment {name}{hint}")
    if len(found) > 1:
        raise AutograderError(f"{where}: `{DIRECTIVE} {chapter} {name}`: {path} defines {name} "
                              f"{len(found)} times at top level; which one is meant is ambiguous "
                              f"(keep one and include it in the other places)")
    body = "".join(line for line in found[0].splitlines(keepends=True) if line.strip() not in MARKERS)
    return body if body.endswith("\n") else body + "\n"


def expand(text: str, path: Path) -> str:
    """`text` (the source `path` of a chapter) with every `#@include` line replaced by its source."""
    chapters = Path(path).parent.parent
    out = []
    for n, line in enumerate(text.splitlines(keepends=True), 1):
        if not line.startswith(DIRECTIVE):
            out.append(line)
            continue
        where = f"{path}:{n}"
        match = INCLUDE.match(line.rstrip("\r\n"))
        if match is None:
            raise AutograderError(f"{where}: malformed include {line.strip()!r}; "
                                  f"write `{DIRECTIVE} NN_chapter name` (one name per line)")
        out.append(source_of(chapters, match["chapter"], match["name"], where))
    return "".join(out)


def expand_file(path: Path) -> str:
    """The text of a chapter source with its includes expanded."""
    path = Path(path)
    return expand(path.read_text(encoding="utf-8"), path)
