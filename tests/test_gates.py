"""Static gates on every chapter (and the pilot): sources agree, chapters/ is fresh, the contract holds.

The gates that grade notebooks are in test_gates_grading.py.
"""

import ast
import filecmp
import json

import pytest

from autograder import notebooks
from autograder.course import AutograderError
from autograder.gates import sample, variants
from autograder.i18n.i18n_release import released
from autograder.release.release import README, generate
from tests import attacks, gates

CHAPTERS = gates.chapters()
IDS = [chapter for _, chapter in CHAPTERS]
COURSES = gates.courses()


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=IDS)
def test_solution_py_and_ipynb_agree(course, chapter):
    py, ipynb = course.solution_py(chapter), course.solution_ipynb(chapter)
    assert ipynb.is_file(), f"{ipynb} is missing: run `make release`"
    if not py.is_file():
        pytest.skip("authored as .ipynb only")
    assert notebooks.dumps(notebooks.from_py(py)) == ipynb.read_text(encoding="utf-8"), (
        f"{ipynb} was not built from {py.name}: run `make release` and commit both")


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=IDS)
def test_solution_notebook_has_no_outputs(course, chapter):
    nb = notebooks.read(course.solution_ipynb(chapter))
    dirty = [i for i, c in enumerate(nb.cells)
             if c.cell_type == "code" and (c.outputs or c.execution_count is not None)]
    assert not dirty, f"{chapter}: cells {dirty} have outputs; solutions are committed without outputs"


def _stale(made, committed):
    """What differs between a folder release made and the committed one (cell ids ignored)."""
    stale = []
    for path in sorted(p for p in made.rglob("*") if p.is_file()):
        there = committed / path.relative_to(made)
        if not there.is_file():
            stale.append(f"missing {there}")
        elif path.suffix == ".ipynb":
            if notebooks.strip_ids(notebooks.read(path)) != notebooks.strip_ids(notebooks.read(there)):
                stale.append(f"differs {there}")
        elif not filecmp.cmp(path, there, shallow=False):
            stale.append(f"differs {there}")
    extra = [p for p in committed.rglob("*") if p.is_file() and ".ipynb_checkpoints" not in p.parts
             and not (made / p.relative_to(committed)).exists()]
    return stale + [f"not made by release: {p}" for p in extra]


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=IDS)
def test_chapters_folder_is_what_release_makes(course, chapter, tmp_path):
    """chapters/<chapter> equals nbgrader generate_assignment output from solutions/ (one test per
    chapter, so pytest -n spreads them; release.generate is what build_release runs per chapter)."""
    generate(course, [chapter], tmp_path / "out", tmp_path / "gradebook.db")
    stale = _stale(tmp_path / "out" / chapter, course.release / chapter)
    assert not stale, "chapters/ is out of date; run `make release` and commit it:\n" + "\n".join(stale)


@pytest.mark.parametrize("course", COURSES, ids=[str(c.root.name) for c in COURSES])
def test_chapters_folder_holds_only_what_release_makes(course):
    assert (course.release / "README.md").read_text(encoding="utf-8") == README, "run `make release`"
    made = {"README.md", *course.chapters(), *released(course)}  # and the translated editions, chapters/<lang>/
    extra = sorted(p.name for p in course.release.iterdir() if p.name not in made and p.name != ".ipynb_checkpoints")
    assert not extra, f"not made by release: {extra}; run `make release` and commit it"


def _docstring_first(source):
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    return bool(body) and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=IDS)
def test_cells_follow_the_authoring_contract(course, chapter):
    nb = notebooks.read(course.solution_ipynb(chapter))
    answers = variants.answer_ids(nb)
    assert len(answers) >= 1, f"{chapter} has no graded exercise"
    problems = []
    for cell in nb.cells:
        meta = notebooks.nbmeta(cell)
        grade_id = meta.get("grade_id")
        if not meta.get("grade") or meta.get("solution"):
            continue
        exercise = notebooks.exercise_of(grade_id)
        if exercise not in answers:
            problems.append(f"{grade_id}: no answer cell with grade_id {exercise!r} "
                            "(test cells are named <exercise>_tests / <exercise>_hidden_tests)")
        if not _docstring_first(cell.source):
            problems.append(f"{grade_id}: a test cell opens with a docstring saying what it checks")
        if "fresh()" in cell.source and "from workbook.checks import fresh" not in cell.source:
            problems.append(f"{grade_id}: import fresh in the test cell itself; a student may rebind the name")
    assert not problems, f"{chapter}:\n" + "\n".join(problems)


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=IDS)
def test_every_exercise_has_a_mutant(course, chapter):
    answers = variants.answer_ids(notebooks.read(course.solution_ipynb(chapter)))
    found = variants.mutants(course, chapter)  # also checks the file names
    covered = {variants.MUTANT_NAME.match(p.name).group("exercise") for p in found.values()}
    unknown = sorted(covered - set(answers))
    assert not unknown, f"{chapter}: mutants for exercises the chapter does not have: {unknown}"
    missing = [a for a in answers if a not in covered]
    assert not missing, (f"{chapter}: no mutant for {missing}; add "
                         f"{course.mutants / chapter}/<exercise>-<mistake>.patch for each (python -m autograder mutant-diff)")


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=IDS)
def test_make_test_and_make_test_mutants_share_the_mutants_out(course, chapter):
    """GATES_MUTANTS: `first` (make test) has one mutant per exercise and one red-team regression
    per chapter that has any, `rest` (make test-mutants) every other one; neither repeats the other
    and together they are every mutant and every attack."""
    every, first, rest = (gates.mutant_names(course, chapter, m) for m in gates.MUTANT_MODES)
    assert sorted(first + rest) == sorted(every) and not set(first) & set(rest)
    exercises = [variants.MUTANT_NAME.match(m + ".patch")["exercise"] for m in first]
    assert sorted(exercises) == sorted(set(exercises)) == sorted(variants.first_mutants(course, chapter))
    every, first, rest = (gates.attack_names(chapter, m) for m in gates.MUTANT_MODES)
    assert sorted(first + rest) == sorted(every) and not set(first) & set(rest)
    regressions = [a for a in every if attacks.ATTACKS[a].regression]
    assert [a for a in first if a in regressions] == regressions[:1], f"{chapter}: make test grades {first}"


def test_sample_cohort_is_fresh(tmp_path):
    """autograder/sample_cohort is what `python -m autograder sample-cohort` makes now."""
    course = gates.courses()[0]
    if course == gates.PILOT:
        pytest.skip("no chapters in solutions/ yet")
    fix = "run `python -m autograder sample-cohort` (after `make release`) and commit it"
    try:
        sample.build(course, tmp_path)
    except AutograderError as e:
        pytest.fail(f"cannot build the sample cohort ({e}); {fix}")
    committed = course.sample_cohort
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    have = sorted(p.relative_to(committed) for p in committed.rglob("*") if p.is_file()) if committed.is_dir() else []
    assert made == have, f"sample cohort files differ; {fix}"
    for rel in made:
        a, b = (tmp_path / rel).read_text(), (committed / rel).read_text()
        if rel.suffix == ".ipynb":
            a, b = json.loads(a), json.loads(b)
        assert a == b, f"{committed / rel} is stale; {fix}"
