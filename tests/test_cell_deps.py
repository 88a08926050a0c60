"""The fast runner's skip (tests/cell_deps.py): which cells a mutant must run, by name analysis,
and a skipped test cell scored with the solution's own verdict."""

from tests import cell_deps, fast_results

BASE = [
    "import json\nTOOLS = {}",                                         # 0
    "def add(a, b):\n    return a + b",                                 # 1  exercise add
    "assert add(1, 2) == 3",                                            # 2  test add
    "def twice(x):\n    return add(x, x)",                              # 3  uses add
    "assert twice(2) == 4",                                             # 4  test twice
    "def name():\n    return 'n'",                                      # 5  exercise name
    "assert name() == 'n'",                                             # 6  test name
    "demo = twice(5)\nprint(demo)",                                     # 7  a demo, not graded
    "assert json.dumps(name()) == '\"n\"'",                             # 8  test name again
]
GRADED = [False, False, True, False, True, False, True, False, True]


def _run(changed: dict[int, str], cells=BASE, graded=GRADED):
    new = list(cells)
    for i, source in changed.items():
        new[i] = source
    start = min(changed)
    return sorted(cell_deps.must_run(cells, new, graded, start))


def test_a_test_that_cannot_reach_the_change_is_skipped():
    assert _run({1: "def add(a, b):\n    return a - b"}) == [1, 2, 3, 4], (
        "add's test, twice (it calls add) and its test run; name's tests and the demo do not")


def test_a_change_late_in_the_notebook_runs_only_its_own_tests():
    assert _run({5: "def name():\n    return 'm'"}) == [5, 6, 8]


def test_a_demo_runs_when_a_later_running_cell_reads_what_it_binds():
    cells = [*BASE, "assert demo == 10"]
    assert _run({1: "def add(a, b):\n    return 0"}, cells, [*GRADED, True]) == [1, 2, 3, 4, 7, 9]


def test_a_clean_binding_ends_the_taint_and_imports_never_carry_it():
    cells = ["def f():\n    return 1", "import math\nwb = f()\nassert wb == 1", "wb = 2\nassert wb == 2",
             "assert math.pi > 3"]
    assert sorted(cell_deps.must_run(cells, ["def f():\n    return 0", *cells[1:]], [False, True, True, True],
                                     0)) == [0, 1], "wb is bound again cleanly; math came from an import"


def test_an_in_place_change_carries_the_taint():
    cells = ["def f():\n    return 1", "TOOLS = {}\nTOOLS['f'] = f", "seen = []\nseen.append(f)",
             "assert TOOLS['f']() == 1", "assert seen[0]() == 1", "assert True"]
    got = cell_deps.must_run(cells, ["def f():\n    return 0", *cells[1:]], [False, False, False, True, True, True], 0)
    assert sorted(got) == [0, 1, 2, 3, 4]


def test_a_with_target_a_loop_and_a_syntax_error():
    cells = ["def f():\n    return [1]", "with open_it(f) as h:\n    pass", "assert h", "for x in f():\n    y = x",
             "assert y == 1", "assert (", "assert 1"]
    got = cell_deps.must_run(cells, ["def f():\n    return [0]", *cells[1:]], [False, False, True, False, True, True, True], 0)
    assert sorted(got) == [0, 1, 2, 3, 4, 5], "the cell that does not parse runs as the grader would run it"


def test_a_skipped_cell_takes_the_solutions_step():
    base = [{"index": 2, "error": None, "ended": True, "cpu": 0.1}, {"index": 4, "error": None, "ended": True, "cpu": 0.2}]
    outcome = {"ending": "ok", "steps": [{"index": 2, "error": "AssertionError", "ended": False, "cpu": 0.1},
                                         {"index": 4, "skipped": True}]}
    filled = fast_results.fill_skipped(outcome, base)
    assert filled["steps"] == [outcome["steps"][0], base[1]]
    assert fast_results.fill_skipped(outcome, [])["steps"] == [outcome["steps"][0]], (
        "with no solution's step the cell is not run (and the record says so)")


def test_a_function_defined_before_the_change_meets_it_when_called():
    """Chapter 07's read_file tests call make_file_tools, defined cells before read_file: a body
    reads its globals when it runs (9 mutants kept their points by a skip that missed this)."""
    cells = ["def tools():\n    return {'read': read_file}", "def read_file(p):\n    return p", "t = tools()",
             "assert t['read']('x') == 'x'", "assert 1 == 1"]
    got = cell_deps.must_run(cells, [cells[0], "def read_file(p):\n    return ''", *cells[2:]],
                             [False, False, False, True, True], 1)
    assert sorted(got) == [1, 2, 3]


def test_a_function_defined_early_meets_a_name_tainted_later():
    cells = ["def f():\n    return 1", "def g():\n    return h()", "h = f", "assert g() == 1", "assert 2"]
    got = cell_deps.must_run(cells, ["def f():\n    return 0", *cells[1:]], [False, False, False, True, True], 0)
    assert sorted(got) == [0, 1, 2, 3], "g's body calls h, which is bound to the changed f after g is defined"


def test_what_a_function_before_the_change_reads_is_bound():
    """make_file_tools (before the change) reads read_file and write_note when it is called; a
    test that calls it needs write_note's cell run, though write_note did not change."""
    cells = ["def tools():\n    return {'read': read_file, 'write': write_note}", "def read_file(p):\n    return p",
             "def write_note(p):\n    return p", "assert tools()['write']('x') == 'x'"]
    got = cell_deps.must_run(cells, [cells[0], "def read_file(p):\n    return ''", *cells[2:]],
                             [False, False, False, True], 1)
    assert sorted(got) == [1, 2, 3]
