"""Run one nbgrader converter in-process with our config, its log captured, errors made readable."""

from __future__ import annotations

import functools
import io
import logging
import os
import sys

from nbgrader.converters.base import NbGraderException
from nbgrader.coursedir import CourseDirectory

from autograder.course import AutograderError


@functools.cache
def _alembic_head() -> str:
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    return ScriptDirectory(ALEMBIC_DIR).get_current_head()


def fast_gradebooks() -> None:
    """A new gradebook asks `alembic heads` in a subprocess (~4 s); read the same head in-process."""
    import nbgrader.api

    nbgrader.api.get_alembic_version = _alembic_head


def tools_on_path() -> None:
    """nbgrader runs `alembic` from PATH to create a gradebook: make the venv's bin/ findable."""
    bindir = os.path.dirname(sys.executable)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def run(converter_class, config, assignment: str, student: str = "*", force: bool = True,
        **traits) -> str:
    """Run `converter_class` for one assignment (and student); return its log text."""
    tools_on_path()
    fast_gradebooks()
    stream = io.StringIO()
    log = logging.getLogger(f"autograder.nbgrader.{id(stream)}")
    log.propagate = False
    log.setLevel(logging.INFO)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
    log.addHandler(handler)
    coursedir = CourseDirectory(config=config, log=log)
    coursedir.assignment_id = assignment
    coursedir.student_id = student
    converter = converter_class(coursedir=coursedir, config=config, log=log, **traits)
    converter.force = force
    try:
        converter.start()
    except (NbGraderException, Exception) as e:
        detail = _last_error(stream.getvalue()) or f"{type(e).__name__}: {e}"
        raise AutograderError(f"nbgrader {converter_class.__name__} failed for {assignment}"
                              f"{'' if student in ('*', '.') else ' / ' + student}:\n  {detail}") from None
    finally:
        log.removeHandler(handler)
    return stream.getvalue()


def _last_error(log: str) -> str:
    """The most telling lines of a failed nbgrader run: the last traceback's final line, if any."""
    lines = [line for line in log.splitlines() if line.strip()]
    tail = [line for line in lines if not line.startswith("[")]
    errors = [line for line in lines if line.startswith("[ERROR]") and "Traceback" not in line]
    return "\n  ".join(([tail[-1].strip()] if tail else []) + errors[:2])
