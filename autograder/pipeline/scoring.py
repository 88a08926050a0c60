"""Test cells are scored by the grader's own rule, not by nbgrader's `determine_grade`.

nbgrader gives full points when a test cell's first output is an `execute_result` it cannot read
as a number, even when an error follows, and partial points for a number. Here a test cell earns
its points only when the judge passed it (its code ran to its end in the judge: the notebook's
`ended` list, written by the grader) and its cell has no error output and no stderr output of any
kind; otherwise 0. No partial credit.
"""

from __future__ import annotations

from nbgrader.preprocessors import SaveAutoGrades
from nbgrader.utils import is_solution


def score(cell, ended: set[str]) -> float:
    """Points a test cell earns: all of them if it ran to its end without an error, else 0."""
    meta = cell.metadata["nbgrader"]
    failed = any(o.get("output_type") == "error"
                 or (o.get("output_type") == "stream" and o.get("name") == "stderr")
                 for o in cell.get("outputs", []))
    return float(meta.get("points", 0)) if meta["grade_id"] in ended and not failed else 0.0


class SaveOwnGrades(SaveAutoGrades):
    """nbgrader's SaveAutoGrades with `score` instead of `determine_grade` for test cells."""

    def preprocess(self, nb, resources):
        self._ended = set(nb.metadata.get("autograder", {}).get("ended", []))
        return super().preprocess(nb, resources)

    def _add_score(self, cell, resources) -> None:
        if is_solution(cell) or cell.cell_type != "code":
            return super()._add_score(cell, resources)
        grade = self.gradebook.find_grade(cell.metadata["nbgrader"]["grade_id"], self.notebook_id,
                                          self.assignment_id, self.student_id)
        grade.auto_score = score(cell, self._ended)
        grade.needs_manual_grade = grade.manual_score is not None
        self.gradebook.db.commit()
