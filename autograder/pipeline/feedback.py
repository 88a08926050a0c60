"""`feedback`: one HTML page per student and chapter, without the hidden tests' code.

Each page is made in a process of its own with a deadline: PAGE_SECONDS of CPU time (RLIMIT_CPU),
and a wall-clock backstop WALL_FACTOR times that for a page that blocks without computing, counted
from the moment it starts rendering; a page that fails or runs past either is killed and listed, and
every other page is still written. A busy machine stretches the clock, not the CPU a page uses.
"""

from __future__ import annotations

import math
import resource
import signal
import time
from dataclasses import dataclass, field
from multiprocessing.connection import wait

from autograder.course import AutograderError, Course
from autograder.pipeline import results
from autograder.pipeline.grading import pool_context
from autograder.settings import WALL_FACTOR

PAGE_SECONDS = 60.0  # CPU seconds per page (a page costs ~1.5); past them the process is killed
START_SECONDS = 120.0  # for a page's process to start (imports on a busy machine), before that


def render_page(course: Course, student: str, chapter: str) -> str:
    """Make one page with nbgrader's GenerateFeedback (and our filter); return its path."""
    from nbgrader.converters import GenerateFeedback

    from autograder import nbgrader_run
    from autograder.pipeline.feedback_filter import use_course_page
    from autograder.pipeline.grading import quiet
    from autograder.settings import nbgrader_config

    quiet()
    config = nbgrader_config(course)
    use_course_page(config)  # the summary names each exercise; long lines wrap
    nbgrader_run.run(GenerateFeedback, config, chapter, student)
    return str(course.feedback / student / chapter / f"{chapter}.html")


def _child(conn, render, course: Course, student: str, chapter: str, cpu: float = PAGE_SECONDS) -> None:
    """In the page's own process: say it started, then send the page's path or why it failed.
    The kernel ends it with SIGXCPU once it has used `cpu` more seconds of CPU."""
    try:
        used = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(used.ru_utime + used.ru_stime + max(cpu, 0.01))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))
        conn.send(("started", ""))
        conn.send(("ok", str(render(course, student, chapter))))
    except BaseException as e:  # noqa: BLE001 - whatever happens, the parent hears of it
        text = (str(e).splitlines() or [""])[0][:300]
        conn.send(("failed", f"{type(e).__name__}: {text}" if text else type(e).__name__))
    finally:
        conn.close()


@dataclass
class _Page:
    student: str
    chapter: str
    process: object
    conn: object
    due: float  # monotonic time past which the process is killed
    started: bool = False
    outcome: tuple | None = field(default=None)


def _read(page: _Page, deadline: float) -> None:
    """Take whatever the page's process has sent; note when it started rendering."""
    try:
        while page.conn.poll():
            kind, text = page.conn.recv()
            if kind == "started":
                page.started, page.due = True, time.monotonic() + deadline * WALL_FACTOR
            else:
                page.outcome = (kind, text)
    except (EOFError, OSError):
        pass


def _finish(page: _Page, deadline: float) -> str:
    """The line for a page whose process ended or ran out of time (the process is gone after)."""
    if page.outcome is None and page.process.is_alive():
        page.process.kill()
        page.process.join()
        where = (f"no page after {deadline * WALL_FACTOR:g} s of waiting" if page.started else
                 f"its process did not start in {START_SECONDS:g} s")
        text = f"FAILED (timed out: {where}; its process was killed)"
    elif page.outcome is None and page.process.exitcode in (-signal.SIGXCPU, -signal.SIGKILL):
        page.process.join()
        text = f"FAILED (over its {deadline:g} s of CPU time; its process was killed)"
    elif page.outcome is None:
        page.process.join()
        text = f"FAILED: the page's process ended without a page (exit code {page.process.exitcode})"
    else:
        page.process.join(10)
        if page.process.is_alive():
            page.process.kill()
            page.process.join()
        kind, detail = page.outcome
        text = detail if kind == "ok" else f"FAILED: {detail}"
    page.conn.close()
    return f"{page.student:20} {page.chapter:24} {text}"


def run_pages(course: Course, todo: list[tuple[str, str]], workers: int = 2,
              deadline: float = PAGE_SECONDS, render=render_page) -> list[str]:
    """Make each (student, chapter) page in its own process, at most `workers` at once."""
    ctx = pool_context()
    waiting, running, lines = list(todo), [], {}
    while waiting or running:
        while waiting and len(running) < max(1, workers):
            student, chapter = waiting.pop(0)
            here, there = ctx.Pipe(duplex=False)
            process = ctx.Process(target=_child, args=(there, render, course, student, chapter, deadline),
                                  daemon=True)
            process.start()
            there.close()
            running.append(_Page(student, chapter, process, here, time.monotonic() + START_SECONDS))
        timeout = max(0.0, min(p.due for p in running) - time.monotonic())
        wait([p.conn for p in running] + [p.process.sentinel for p in running], timeout)
        for page in list(running):
            _read(page, deadline)
            if page.outcome is not None or not page.process.is_alive() or time.monotonic() >= page.due:
                _read(page, deadline)  # a result sent just before the process ended
                lines[(page.student, page.chapter)] = _finish(page, deadline)
                running.remove(page)
    return [lines[key] for key in todo]


def feedback(course: Course, workers: int = 2, students: list[str] | None = None,
             deadline: float = PAGE_SECONDS, render=render_page) -> list[str]:
    """Generate feedback for every graded submission (or `students`') with an autograded notebook."""
    todo = [(r["student"], r["chapter"]) for r in results.load_all(course)
            if (course.autograded / r["student"] / r["chapter"] / f"{r['chapter']}.ipynb").is_file()
            and (students is None or r["student"] in students)]
    if not todo:
        raise AutograderError(f"nothing to give feedback on in {course.autograded}: run `grade` first")
    if not course.gradebook.is_file():
        raise AutograderError(f"no gradebook at {course.gradebook}: run `grade` first")
    lines = run_pages(course, todo, workers, deadline, render)
    failed = sum("FAILED" in line for line in lines)
    lines.append(f"feedback: {len(todo) - failed} page(s) in {course.feedback}"
                 + (f"; {failed} could not be made (listed above)" if failed else ""))
    return lines
