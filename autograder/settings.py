"""The nbgrader configuration for a course: folders, time and output limits, preprocessors."""

from __future__ import annotations

from dataclasses import dataclass

from traitlets.config import Config

from autograder.course import COURSE_ID, Course

# The jupytext source of a chapter (NN_name.py) holds the solutions: never copy it anywhere.
IGNORE = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".*", "[0-9][0-9]_*.py"]


@dataclass(frozen=True)
class Limits:
    """What protects a grading run from a submission."""

    cell_timeout: int = 30  # CPU seconds per cell (the clock: x WALL_FACTOR); the contract says a test cell takes < 2 s
    notebook_timeout: int = 300  # CPU seconds per notebook (the clock: x WALL_FACTOR); later cells "not run"
    output_chars: int = 100_000  # per cell; more is dropped while it arrives
    output_lines: int = 1000  # per cell, nbgrader's LimitOutput
    memory_mb: int = 4096  # address-space limit of the grading kernel (0: none)
    private: bool = True  # refuse reads of solutions/, mutants and the gradebook from the kernel
    sandbox: str = "auto"  # auto | bwrap | none: the kernel's OS sandbox (sandbox.py)


WALL_FACTOR = 5  # a busy machine (load 8 per core) stretches a cell's CPU seconds about that much


def nbgrader_config(course: Course | None = None, db: str | None = None,
                    limits: Limits | None = None) -> Config:
    """The traitlets Config that every nbgrader step of this course runs with."""
    from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        CheckCellMetadata,
        GetGrades,
        IgnorePattern,
        LimitOutput,
    )

    from autograder.pipeline.execute import SafeExecute
    from autograder.pipeline.feedback_filter import HideHiddenTests
    from autograder.pipeline.scoring import SaveOwnGrades

    course = course or Course()
    limits = limits or Limits()
    c = Config()
    cd = c.CourseDirectory
    cd.course_id = COURSE_ID
    cd.root = str(course.root)
    cd.source_directory = course.rel(course.source)
    # Only ever written to, never matched as a regexp, so it may live outside the root.
    cd.release_directory = (course.rel(course.release) if course.release.is_relative_to(course.root)
                            else str(course.release))
    cd.submitted_directory = course.rel(course.submitted)
    cd.autograded_directory = course.rel(course.autograded)
    cd.feedback_directory = course.rel(course.feedback)
    cd.db_url = db or f"sqlite:///{course.gradebook}"
    cd.ignore = IGNORE

    # Deleted test cells come back (and run), so deleting a failing test gains nothing.
    c.OverwriteCells.add_missing_cells = True
    c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    c.Autograde.autograde_preprocessors = [
        SafeExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveOwnGrades,
        AssignLatePenalties, CheckCellMetadata]
    # A cell's limit counts its sandbox's CPU time; the clock is a backstop WALL_FACTOR times longer.
    c.SafeExecute.timeout = limits.cell_timeout * WALL_FACTOR
    c.SafeExecute.cell_cpu = limits.cell_timeout
    c.SafeExecute.startup_timeout = 120  # a busy machine can take long to start a kernel
    c.SafeExecute.notebook_timeout = limits.notebook_timeout
    c.SafeExecute.output_chars = limits.output_chars
    c.SafeExecute.memory_mb = limits.memory_mb
    c.SafeExecute.private_paths = [str(p) for p in course.private_paths()] if limits.private else []
    c.SafeExecute.sandbox = limits.sandbox  # "auto" is resolved when the kernel starts
    c.SafeExecute.source_directory = str(course.source)  # where a chapter's exercise names are read
    c.SafeExecute.hidden_paths = c.SafeExecute.private_paths + [str(course.root)]
    c.LimitOutput.max_lines = limits.output_lines
    c.LimitOutput.max_traceback = 100
    c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]
    c.HTMLExporter.sanitize_html = True  # a student's markdown or HTML output runs no script in feedback
    # Solution and feedback files are written read-only by default; authors and graders re-run.
    c.GenerateAssignment.permissions = 644
    c.Autograde.permissions = 644
    c.GenerateFeedback.permissions = 644
    return c
