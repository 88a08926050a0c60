"""The messages a learner reads outside the chapter text, as templates for the catalogs
(`i18n/<lang>/messages.json`, `i18n/<lang>/ui.json`; docs/TRANSLATING.md, "Messages").

Read by `ast`, never run:
- a chapter's test cells (visible and hidden: a hidden test's message reaches the feedback page):
  the message of every `assert`, of every `raise X("...")`, every string a test helper shows
  (`equal`'s `what` and `hint`, `expect`'s message, `raises(what=...)`, ...), every `print`;
- the test helpers' own sentences (`workbook/checks.py`, `workbook/compare.py`) and the released
  stub's "not answered yet";
- the tools' words: every `tr(lang, "...")` and `say("...")` in `workbook/` and `autograder/`,
  and the constants a chapter's live cell prints as they are (`PRINTED`), which the kernel's stdout
  hook translates (workbook/i18n/kernel.py).

An f-string is its template with each value a placeholder named by its expression's text:
`f"it was called {model.calls} times"` is `it was called {model.calls} times`.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

from autograder import notebooks
from autograder.course import REPO, Course
from autograder.release.release import STUB_MESSAGE
from workbook.i18n.templates import fields, usable

# helper -> (positions, keywords) of the arguments a learner reads
SHOWN = {"equal": ((2, 3), ("what", "hint")), "is_type": ((2,), ("what",)), "expect": ((1,), ("message",)),
         "error_text": ((1,), ("what",)), "raises": ((), ("what",)), "no_raise": ((0,), ("what", "hint")),
         "CappedClient": ((2,), ("hint",)), "failure": ((0,), ()), "spans": ((0,), ("what",))}
SHOWN_KEYWORDS = ("what", "hint", "message", "msg")
LIBRARY = ("workbook/checks.py", "workbook/compare.py")
HIDDEN_MARK = "### BEGIN HIDDEN TESTS"
CODE_FOLDERS = ("workbook", "autograder")
SKIPPED = ("mutants", "sample_cohort", "work", "__pycache__")
PRINTED = {"workbook/providers.py": ("SKIP_HINT",)}  # file -> constants live cells print(...) as they are


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _field(node: ast.FormattedValue) -> str:
    text = ast.unparse(node.value)
    if node.conversion != -1:
        text += "!" + chr(node.conversion)
    if node.format_spec is not None:
        spec = node.format_spec
        text += ":" + "".join(str(v.value) if isinstance(v, ast.Constant) else "{" + ast.unparse(v) + "}"
                              for v in getattr(spec, "values", [spec]))
    return "{" + text + "}"


def templates_of(node: ast.AST | None) -> list[str]:
    """The templates an expression can make: a string, an f-string, a `+` of them, either branch of
    an `x if c else y`; [] for anything else (a name, a call)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [_escape(node.value)]
    if isinstance(node, ast.JoinedStr):
        return ["".join(_escape(v.value) if isinstance(v, ast.Constant) else _field(v)  # type: ignore[arg-type]
                        for v in node.values)]
    if isinstance(node, ast.IfExp):
        return templates_of(node.body) + templates_of(node.orelse)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = templates_of(node.left), templates_of(node.right)
        if left or right:
            left = left or ["{" + ast.unparse(node.left) + "}"]
            right = right or ["{" + ast.unparse(node.right) + "}"]
            return [a + b for a in left for b in right]
    return []


def _name(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def shown_in(source: str) -> list[str]:
    """The templates of what a test cell shows the learner, in order, each once."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            found += templates_of(node.msg)
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            found += templates_of(node.exc.args[0])
        elif isinstance(node, ast.Call):
            name = _name(node.func)
            positions, keywords = SHOWN.get(name, ((), ()))
            if name == "print":
                positions = tuple(range(len(node.args)))
            found += [t for i in positions if i < len(node.args) for t in templates_of(node.args[i])]
            found += [t for k in node.keywords if k.arg in keywords + SHOWN_KEYWORDS for t in templates_of(k.value)]
    return [t for t in dict.fromkeys(found) if usable(t)]


def chapter_templates(course: Course, chapter: str, hidden: bool | None = None) -> list[str]:
    """The templates of a chapter's test cells (its source notebook), all of them, or only those
    of its visible tests (`hidden=False`: messages.json, which students' copies carry), or only
    those no visible test says (`hidden=True`: hidden.json, which stays with the instructor)."""
    path = course.solution_ipynb(chapter)
    data = path.read_bytes() if path.is_file() else b""  # no such file: notebooks.read says so below
    visible, secret = _test_templates((path, hashlib.sha256(data).hexdigest()))
    if hidden is None:
        return list(dict.fromkeys(visible + secret))
    if hidden:
        return [t for t in dict.fromkeys(secret) if t not in visible]
    return list(dict.fromkeys(visible))


@functools.lru_cache(maxsize=64)
def _test_templates(version: tuple[Path, str]) -> tuple[list[str], list[str]]:
    """(visible, hidden) templates of a notebook's test cells, found once per version of the file
    (`version`: its path and the hash of its bytes)."""
    visible: list[str] = []
    secret: list[str] = []
    for cell in notebooks.read(version[0]).cells:
        if cell.cell_type == "code" and notebooks.is_test(cell):
            (secret if HIDDEN_MARK in cell.source else visible).extend(shown_in(cell.source))
    return visible, secret


def library_templates(root: Path = REPO) -> list[str]:
    """The test helpers' own sentences, and the stub's."""
    found = [STUB_MESSAGE.format("{exercise}")]
    for name in LIBRARY:
        tree = ast.parse((root / name).read_text(encoding="utf-8"))
        found += [t for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for t in templates_of(node)]
        found += [t for node in ast.walk(tree) if isinstance(node, ast.Call) and _name(node.func) == "failure"
                  and node.args for t in templates_of(node.args[0])]  # a message and its " — hint"
    return [t for t in dict.fromkeys(found) if usable(t)]


def ui_templates(root: Path = REPO) -> dict[str, list[str]]:
    """The tools' words: template -> the files that say it (`tr(lang, "...")`, `say("...")`, and
    the constants in `PRINTED`)."""
    found: dict[str, list[str]] = {}
    for top in CODE_FOLDERS:
        for path in sorted((root / top).rglob("*.py")):
            if any(part in SKIPPED for part in path.relative_to(root).parts):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                         and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                         for t in n.targets if isinstance(t, ast.Name)}  # FIX = "..." said as tr(lang, FIX)
            where = path.relative_to(root).as_posix()
            for name in PRINTED.get(where, ()):
                if name not in constants:
                    raise ValueError(f"{where}: no string constant {name} (i18n_messages.PRINTED)")
                found.setdefault(constants[name], []).append(where)
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or _name(node.func) not in ("tr", "say"):
                    continue
                at = 1 if _name(node.func) == "tr" else 0
                arg = node.args[at] if len(node.args) > at else None
                text = arg.value if isinstance(arg, ast.Constant) else constants.get(arg.id) if isinstance(arg, ast.Name) else None
                if isinstance(text, str):
                    found.setdefault(text, []).append(str(path.relative_to(root)))
    return found


def placeholder_problems(entries: dict[str, str]) -> list[str]:
    """Translations whose placeholders are not their English template's (a value lost or made up)."""
    out = []
    for english, translation in entries.items():
        try:
            if set(fields(english)) != set(fields(translation)):
                out.append(f"{english!r}: the translation has {sorted(fields(translation))}, "
                           f"the English {sorted(fields(english))}")
        except ValueError as e:
            out.append(f"{english!r}: {e}")
    return out
