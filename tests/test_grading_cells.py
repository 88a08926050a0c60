"""A notebook of more cells than the grader runs is refused before it runs (red team 17: 60,000
empty cells cost the grader ~10 ms each of its own time and held a worker for 10 minutes)."""

from __future__ import annotations

import nbformat
import pytest

from autograder import nbgrader_run
from autograder.course import Course
from autograder.pipeline import grading
from autograder.settings import Limits


@pytest.mark.parametrize("cells", [grading.MAX_CELLS, grading.MAX_CELLS + 1])
def test_a_notebook_of_too_many_cells_is_refused_before_it_runs(tmp_path, monkeypatch, cells):
    course, ran = Course(root=tmp_path), []
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass") for _ in range(cells)])
    path = course.submitted / "ada" / "01_x" / "01_x.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    monkeypatch.setattr(nbgrader_run, "run", lambda *a: ran.append(a) or "ran")
    monkeypatch.setattr(grading.gradebook, "scores", lambda *a: {})
    monkeypatch.setattr(grading.results, "build", lambda *a, **k: {"status": "ok", "message": a[5]})
    monkeypatch.setattr(grading.results, "save", lambda *a: None)
    record = grading._grade_one(course, None, tmp_path / "gradebook.db", "ada", "01_x", Limits(sandbox="none"))
    if cells > grading.MAX_CELLS:
        assert not ran and record["status"] == "error", record
        assert f"{cells:,} cells" in record["message"] and "at most 2,000" in record["message"], record
    else:
        assert ran, "a notebook of MAX_CELLS cells is graded"
