"""Given code is written once: a chapter that re-provides code from another chapter (or a test cell
that needs a helper another cell has) writes `#@include` (autograder/release/includes.py), so the copies
cannot drift. This guard finds the copies still written out by hand, exact or not: two top-level
defs or classes whose code is at least 90 % similar (difflib's ratio on their text), with names,
docstrings, comments, type hints and solution markers ignored. Each one becomes an `#@include` or
an entry of ALLOWED below, which says why the two differ (and, for the ones that must stay the same
code, checks that they do)."""

from __future__ import annotations

import ast
import difflib

import pytest

from workbook.paths import ROOT

THRESHOLD = 0.9  # difflib.SequenceMatcher.ratio() of the normalized texts
MIN_LINES = 4  # shorter definitions (a one-line helper, a two-field record) are not counted

SAME = "same code"  # the pair must stay AST-equal (names and hints aside): only comments differ
DIFFERENT = "different on purpose"

# (first, second) -> (SAME or DIFFERENT, why they are written out twice). "chapter:name", the pair
# in the order `near_copies` names it (shorter text first). A chapter's own test cells each hold
# their own small helper (the visible and the hidden test run alone, and word their failures for
# what they check), so such pairs differ by their messages.
ALLOWED = {
    ("02_the_loop:AgentResult", "09_trajectories_and_checkpoints:AgentResult"):
        (SAME, "09's field comments name the PAUSED status its checkpoints add"),
    ("06_limits:run_agent", "13_react_and_plan_execute:run_agent"):
        (SAME, "06's is an exercise whose solution carries a maintainers' comment an include would show"),
    ("05_errors_are_observations:execute", "11_capstone:execute"):
        (DIFFERENT, "11's passes a text result (a file it read) to the model as it is, not as a JSON "
                    "string; every other step is 05's"),
    ("14_one_agent_or_a_team:run_agent", "07_what_code_decides:run_agent"):
        (DIFFERENT, "14's loop starts from the messages an agent is handed and runs tools with execute; "
                    "07's starts from a question and runs them with run_call"),
    ("06_limits:tool_message", "09_trajectories_and_checkpoints:tool_message"):
        (DIFFERENT, "09's takes a call as a plain dict (a trajectory's) and passes its id to call_tool"),
    ("09_trajectories_and_checkpoints:make_refund_tool", "08_retries_and_idempotency:make_refund_tool"):
        (DIFFERENT, "the same tool; 08's is the exercise, its key built in two commented steps. "
                    "A candidate for `#@include 08_retries_and_idempotency make_refund_tool` in 09"),
    ("05_errors_are_observations:run", "07_what_code_decides:ex"):
        (DIFFERENT, "test helpers around each chapter's own execute, whose arguments differ"),
    ("03_openai_format:run", "04_parallel_calls:run"):
        (DIFFERENT, "test helpers around each chapter's own exercise, with its own hint"),
    ("13_react_and_plan_execute:run", "13_react_and_plan_execute:run"):
        (DIFFERENT, "two test cells' helpers: their own call cap, model and hint"),
    ("13_react_and_plan_execute:parse", "13_react_and_plan_execute:parse"):
        (DIFFERENT, "the visible and the hidden test's helper, each naming what it checks"),
    ("16_context_engineering:squash", "16_context_engineering:squash"):
        (DIFFERENT, "two tests' stand-in compactions: one also records the keep_last it was given"),
    ("18_mcp_by_hand:outcome", "18_mcp_by_hand:outcome"):
        (DIFFERENT, "the visible and the hidden test's helper, each wording the failure its own way"),
    ("09_trajectories_and_checkpoints:mover", "09_trajectories_and_checkpoints:mover"):
        (DIFFERENT, "the visible and the hidden test's spy on os.replace, each wording its failure"),
    ("06_limits:Clock", "06_limits:Clock"):
        (DIFFERENT, "two tests' fake clocks: one starts at a time it is given, one at 100.0"),
}


class _Anonymous(ast.NodeTransformer):
    """Names become v0, v1, ... in order of appearance; docstrings and type hints go. A record's
    field names and types stay: they are what a dataclass's code is."""

    def __init__(self):
        self.names: dict[str, str] = {}

    def _name(self, name: str) -> str:
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node):
        node.id = self._name(node.id)
        return node

    def visit_arg(self, node):
        node.arg, node.annotation = self._name(node.arg), None
        return node

    def _body(self, node):
        if ast.get_docstring(node) is not None:
            node.body = node.body[1:] or [ast.Pass()]

    def visit_FunctionDef(self, node):
        node.name, node.returns = "f", None
        self._body(node)
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        node.name = "C"
        self._body(node)
        fields = [s for s in node.body if isinstance(s, ast.AnnAssign)]
        node.body = [s if s in fields else self.visit(s) for s in node.body]
        node.bases = [self.visit(b) for b in node.bases]
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        return node


def normalized(node: ast.AST) -> str:
    """The code of a def or class with names, docstrings, comments and type hints ignored."""
    return ast.unparse(_Anonymous().visit(node))


def definitions(files) -> list[tuple[str, str]]:
    """("chapter:name", normalized code) of every top-level def and class of MIN_LINES or more."""
    found = []
    for path in files:
        for node in ast.parse(path.read_text(encoding="utf-8"), str(path)).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                label, code = f"{path.parent.name}:{node.name}", normalized(node)
                if len(code.splitlines()) >= MIN_LINES:
                    found.append((label, code))
    return found


def near_copies(defs: list[tuple[str, str]], threshold: float = THRESHOLD) -> dict[tuple[str, str], float]:
    """(label, label) -> similarity, for every pair of `defs` at least `threshold` similar."""
    defs = sorted(defs, key=lambda d: (len(d[1]), d[0]))
    found = {}
    for i, (a, text_a) in enumerate(defs):
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(text_a)
        for b, text_b in defs[i + 1:]:
            if 2 * len(text_a) / (len(text_a) + len(text_b)) < threshold:
                break  # sorted by length: every later text is too long to be this similar
            matcher.set_seq1(text_b)
            if matcher.real_quick_ratio() >= threshold and matcher.quick_ratio() >= threshold:
                if (ratio := matcher.ratio()) >= threshold:
                    found[(a, b)] = round(ratio, 3)
    return found


def _chapter_files():
    return sorted((ROOT / "solutions").glob("*/*.py"))


@pytest.fixture(scope="module")
def defs():
    return definitions(_chapter_files())


@pytest.fixture(scope="module")
def copies(defs):
    return near_copies(defs)


def test_names_docstrings_and_hints_do_not_hide_a_copy():
    one = ast.parse('def total(items: list) -> int:\n    """Sum."""\n    n = 0\n    for x in items:\n'
                    '        n += x.price\n    return n\n').body[0]
    two = ast.parse('def amount(rows):\n    # by hand\n    acc = 0\n    for row in rows:\n'
                    '        acc += row.price\n    return acc\n').body[0]
    other = ast.parse('def amount(rows):\n    acc = 1\n    for row in rows:\n        acc *= row.price\n'
                      '    return acc\n').body[0]
    assert normalized(one) == normalized(two)
    assert normalized(one) != normalized(other)


def test_near_copies_finds_a_restated_function_and_only_it(tmp_path):
    """The check can fail: a copy with one line changed and its names renamed is found; a
    function that does something else is not."""
    source = ("def read(base, path):\n    root = Path(base).resolve()\n    target = (root / path).resolve()\n"
              "    if not target.is_relative_to(root):\n        raise PermissionError(f'{path!r} is outside')\n"
              "    return target.read_text(encoding='utf-8')\n")
    copy = source.replace("read(base, path)", "load(folder, name)").replace("base", "folder") \
        .replace("path", "name").replace("'utf-8'", "'utf-8', errors='replace'")
    other = "def shout(text):\n    text = text.upper()\n    text = text + '!'\n    return text\n"
    for chapter, text in (("01_a", source), ("02_b", copy), ("03_c", other)):
        (tmp_path / chapter).mkdir()
        (tmp_path / chapter / f"{chapter}.py").write_text(text)
    found = near_copies(definitions(sorted(tmp_path.glob("*/*.py"))))
    assert list(found) in ([("01_a:read", "02_b:load")], [("02_b:load", "01_a:read")]), found


def test_no_given_code_is_restated_by_hand(copies):
    new = {pair: ratio for pair, ratio in copies.items() if pair not in ALLOWED}
    assert not new, (
        "code written out again by hand (similarity of names-ignored code): write it once and "
        "`#@include` it (CONTRIBUTING.md, 'Given code from another chapter'), or add the pair to "
        f"ALLOWED with the reason it differs: {new}")


def test_every_allowed_copy_is_still_one(copies):
    stale = [pair for pair in ALLOWED if pair not in copies]
    assert not stale, f"no longer near copies (an #@include, or they grew apart): drop from ALLOWED: {stale}"


@pytest.mark.parametrize("pair", [p for p, (kind, _) in ALLOWED.items() if kind == SAME])
def test_copies_of_the_same_code_stay_the_same(pair, defs):
    code = dict(defs)
    first, second = pair
    assert code[first] == code[second], (
        f"{second} restates {first} but the code differs: copy the current version")
