"""`#@include` (autograder/release/includes.py): given code restated from another chapter is written once.

The expansion is exact (the source's text, solution markers dropped), a missing, unknown or
ambiguous source stops the build saying which, a changed source is picked up by the next build,
and no chapter goes back to restating given code by hand."""

import ast
import collections

import pytest

from autograder import notebooks
from autograder.course import AutograderError, Course
from autograder.release import includes, release
from workbook.paths import ROOT

SOURCE = '''\
# %% nbgrader={"grade": false, "grade_id": "shout", "locked": false, "schema_version": 3, "solution": true}
import functools


@functools.cache
def shout(text):
    """Upper case, with a bang."""
    ### BEGIN SOLUTION
    return text.upper() + "!"  # the answer
    ### END SOLUTION


class Twice:
    pass
'''

USER = '''\
# %% [markdown]
# Given code from chapter 01.

# %%
import functools


#@include 01_source shout


#@include 01_source Twice
print(shout("hi"))
'''

EXPANDED = '''\
# %% [markdown]
# Given code from chapter 01.

# %%
import functools


@functools.cache
def shout(text):
    """Upper case, with a bang."""
    return text.upper() + "!"  # the answer


class Twice:
    pass
print(shout("hi"))
'''


def chapter(root, name, text):
    folder = root / "solutions" / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def course(tmp_path):
    chapter(tmp_path, "01_source", SOURCE)
    chapter(tmp_path, "02_user", USER)
    return Course(root=tmp_path)


def test_an_include_is_the_sources_text_without_solution_markers(course):
    assert includes.expand_file(course.solution_py("02_user")) == EXPANDED
    nb = notebooks.from_py(course.solution_py("02_user"))
    assert "".join(nb.cells[1].source) == EXPANDED.split("# %%\n", 1)[1].rstrip("\n")
    assert "#@include" not in notebooks.dumps(nb)


def code(path):
    return "\n".join(c.source for c in notebooks.read(path).cells if c.cell_type == "code")


def test_release_builds_the_expanded_notebook_and_picks_up_a_changed_source(course):
    release.build_sources(course, ["02_user"])
    assert 'return text.upper() + "!"' in code(course.solution_ipynb("02_user"))
    source = course.solution_py("01_source")
    source.write_text(SOURCE.replace('+ "!"', '+ "?"'), encoding="utf-8")
    assert release.build_sources(course, ["02_user"]) == [course.solution_ipynb("02_user")]
    built = code(course.solution_ipynb("02_user"))
    assert 'return text.upper() + "?"' in built and '+ "!"' not in built


@pytest.mark.parametrize(("line", "error"), [
    ("#@include 07_nowhere shout", r"there is no .*07_nowhere/07_nowhere\.py"),
    ("#@include 01_source whisper", r"01_source\.py defines no top-level def, class or assignment whisper"),
    ("#@include 01_source functools", r"defines no top-level def, class or assignment functools"),
    ("#@include 01_source", r"malformed include '#@include 01_source'"),
    ("#@include 01_source shout Twice", r"malformed include .*one name per line"),
])
def test_a_missing_source_stops_the_release_saying_which(course, line, error):
    path = chapter(course.root, "02_user", f"# %%\n{line}\n")
    with pytest.raises(AutograderError, match=error) as raised:
        release.build_sources(course, ["02_user"])
    assert f"{path}:2" in str(raised.value)
    assert not course.solution_ipynb("02_user").exists(), "nothing is built from a broken include"


def test_an_ambiguous_source_stops_the_release(course):
    chapter(course.root, "01_source", SOURCE + "\n\ndef shout(text):\n    return text\n")
    with pytest.raises(AutograderError, match=r"defines shout 2 times at top level; .* ambiguous"):
        notebooks.from_py(course.solution_py("02_user"))


def test_an_include_names_the_chapter_that_writes_the_code_out(course):
    chapter(course.root, "03_later", "# %%\n#@include 02_user shout\n")
    with pytest.raises(AutograderError, match=r"02_user\.py defines no top-level def, class or assignment shout "
                                              r"\(it includes it from 01_source: name that chapter\)"):
        notebooks.from_py(course.solution_py("03_later"))


def test_a_test_cell_holds_its_own_copy_of_an_assignment(course):
    """`NAME = ...` at top level is included as written (a test's own copy of a prompt); a tuple
    target or an augmented assignment is no definition; a name bound twice is ambiguous."""
    source = ('# %%\nPROMPT = ("Answer with one word: "\n          "{classes}")  # the router\'s\n'
              'LIMIT: int = 5\nA, B = 1, 2\nLIMIT_SEEN = 0\nLIMIT_SEEN += 1\n')
    chapter(course.root, "01_source", source)
    path = chapter(course.root, "02_user", "# %%\n#@include 01_source PROMPT\n#@include 01_source LIMIT\n"
                                           "assert PROMPT\n")
    assert includes.expand_file(path) == ('# %%\nPROMPT = ("Answer with one word: "\n          "{classes}")'
                                          '  # the router\'s\nLIMIT: int = 5\nassert PROMPT\n')
    for name in ("A", "B"):
        with pytest.raises(AutograderError, match=f"defines no top-level def, class or assignment {name}"):
            includes.expand(f"# %%\n#@include 01_source {name}\n", path)
    # `+=` is no definition: LIMIT_SEEN is bound once, by its `=`
    assert includes.expand("#@include 01_source LIMIT_SEEN\n", path) == "LIMIT_SEEN = 0\n"
    chapter(course.root, "01_source", source + "PROMPT = 'again'\n")
    with pytest.raises(AutograderError, match="defines PROMPT 2 times at top level"):
        includes.expand_file(path)


def test_a_line_that_only_mentions_the_directive_is_left_alone(course):
    text = '# %% [markdown]\n# Write `#@include 01_source shout` to restate it.\n\n# %%\nx = "#@include"\n'
    path = chapter(course.root, "02_user", text)
    assert includes.expand_file(path) == text


def test_no_chapter_restates_given_code_by_hand():
    """A def or class of 3+ lines written out twice (in two chapters, or twice in one) is given code
    restated by hand: write it once and #@include it."""
    seen = collections.defaultdict(list)
    for path in sorted((ROOT / "solutions").glob("*/*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        for node in ast.parse(text).body:  # one parse per file (includes.definitions parses per name)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                body = "".join(lines[start - 1:node.end_lineno])
                if len(body.splitlines()) >= 3:
                    seen[body].append(f"{path.parent.name}:{node.name}")
    copies = sorted({tuple(where) for where in seen.values() if len(where) > 1})
    assert not copies, f"given code written out more than once (use #@include): {copies}"


def test_every_include_in_the_course_names_one_source():
    lines = [(path, n, line) for path in sorted((ROOT / "solutions").glob("*/*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if line.startswith(includes.DIRECTIVE)]
    assert lines, "the course uses #@include"
    for path, n, line in lines:
        match = includes.INCLUDE.match(line)
        assert match, f"{path}:{n}: malformed {line!r}"
        includes.source_of(ROOT / "solutions", match["chapter"], match["name"], f"{path}:{n}")
