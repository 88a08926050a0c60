"""`feedback`: one HTML page per student and chapter, without the hidden tests' code."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

from autograder import results
from autograder.course import AutograderError, Course


def _one(course: Course, student: str, chapter: str) -> str:
    from nbgrader.converters import GenerateFeedback

    from autograder import nbgrader_run
    from autograder.grading import quiet
    from autograder.settings import nbgrader_config

    quiet()
    nbgrader_run.run(GenerateFeedback, nbgrader_config(course), chapter, student)
    return str(course.feedback / student / chapter / f"{chapter}.html")


def feedback(course: Course, workers: int = 2, students: list[str] | None = None) -> list[str]:
    """Generate feedback for every graded submission (or `students`') with an autograded notebook."""
    todo = [(r["student"], r["chapter"]) for r in results.load_all(course)
            if (course.autograded / r["student"] / r["chapter"] / f"{r['chapter']}.ipynb").is_file()
            and (students is None or r["student"] in students)]
    if not todo:
        raise AutograderError(f"nothing to give feedback on in {course.autograded}: run `grade` first")
    if not course.gradebook.is_file():
        raise AutograderError(f"no gradebook at {course.gradebook}: run `grade` first")
    lines = []
    from autograder.grading import pool_context

    ctx = pool_context()
    with ProcessPoolExecutor(max(1, min(workers, len(todo))), mp_context=ctx) as pool:
        futures = [(s, c, pool.submit(_one, course, s, c)) for s, c in todo]
        for student, chapter, future in futures:
            try:
                lines.append(f"{student:20} {chapter:24} {future.result()}")
            except Exception as e:  # one page that cannot be made never stops the others
                lines.append(f"{student:20} {chapter:24} FAILED: {str(e).splitlines()[0][:300]}")
    lines.append(f"feedback: {len(todo)} page(s) in {course.feedback}")
    return lines
