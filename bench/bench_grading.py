"""Autograde seconds per submission: plain `nbgrader autograde` vs `grade --workers 1` and `--workers 2`,
each with and without the bubblewrap sandbox (the sandbox's overhead is measured in the same run),
`grade --cluster` on 2 Dask workers and on a LocalCluster, and the floor: the same notebooks
executed by bare nbclient in 2 processes. Every row but plain nbgrader's is the fastest of BENCH_ROUNDS
runs (default 3).

The synthetic cohort is made from one chapter's own notebooks (solved, partial, untouched, mutants),
so every way grades exactly the same notebooks. BENCH_STUDENTS (default 40) sets its size,
BENCH_CHAPTER the chapter (default the first; chapter 09 is one that crosses the judge's link
often: a fake model's client, tools, checkpoint files).
"""

from __future__ import annotations

import io
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from autograder.course import REPO, Course
from autograder.gates import variants
from autograder.pipeline import cohort, gradebook
from autograder.release.release import build_release
from autograder.sandbox.sandbox import bwrap_problem
from autograder.settings import Limits
from bench import print_table
from bench.dask_cluster import Cluster

PILOT = Course(root=REPO / "tests" / "pilot")  # the small pilot chapter, when solutions/ has none

PLAIN_CONFIG = """\
c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "chapters"
c.CourseDirectory.submitted_directory = "plain/submitted"
c.CourseDirectory.autograded_directory = "plain/autograded"
c.CourseDirectory.db_url = "sqlite:///{root}/plain/gradebook.db"
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", ".*", "[0-9][0-9]_*.py"]
"""


def _course(root: Path) -> tuple[Course, str]:
    """A throwaway course linking to one real chapter (BENCH_CHAPTER, a name or its number; else the
    first), or the pilot's, released afresh."""
    real = Course()
    wanted = os.environ.get("BENCH_CHAPTER", "")
    chosen = [c for c in real.chapters() if wanted and (c == wanted or c[:2] == wanted.zfill(2))]
    if wanted and not chosen:
        raise SystemExit(f"BENCH_CHAPTER={wanted}: no such chapter (one of {', '.join(real.chapters())})")
    source, chapter = (real, (chosen or real.chapters())[0]) if real.chapters() else (PILOT, PILOT.chapters()[0])
    course = Course(root=root)
    course.source.mkdir(parents=True)
    (course.source / chapter).symlink_to(source.source / chapter, target_is_directory=True)
    if (source.mutants / chapter).is_dir():
        course.mutants.mkdir(parents=True)
        (course.mutants / chapter).symlink_to(source.mutants / chapter, target_is_directory=True)
    course.release.mkdir()
    build_release(course, course.release)
    return course, chapter


def _cohort(course: Course, chapter: str, size: int) -> list:
    """`size` notebooks cycling through solved, partial, untouched and every mutant."""
    first = variants.answer_ids(variants.stub(course, chapter))[:1]
    kinds = [variants.solved(course, chapter), variants.solved(course, chapter, only=first),
             variants.stub(course, chapter)]
    kinds += [variants.mutant(course, chapter, m) for m in variants.mutants(course, chapter)]
    return [kinds[i % len(kinds)] for i in range(size)]


def _plain(course: Course, chapter: str, nbs: list) -> float:
    """nbgrader's own CLI, as an instructor would run it without this repository's autograder."""
    for i, nb in enumerate(nbs):
        variants.save(nb, course.root / "plain" / "submitted" / f"s{i:03}" / chapter / f"{chapter}.ipynb")
    (course.root / "nbgrader_config.py").write_text(PLAIN_CONFIG.format(root=str(course.root)))
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    nbgrader = [sys.executable, "-m", "nbgrader"]
    subprocess.run([*nbgrader, "generate_assignment", chapter, "--force"], cwd=course.root, env=env,
                   check=True, capture_output=True)
    started = time.monotonic()
    subprocess.run([*nbgrader, "autograde", chapter, "--force"], cwd=course.root, env=env,
                   check=True, capture_output=True)
    return time.monotonic() - started


def _ours(course: Course, chapter: str, nbs: list, workers: int, sandbox: str,
          cluster: str | None = None) -> float:
    shutil.rmtree(course.workspace, ignore_errors=True)
    for i, nb in enumerate(nbs):
        variants.save(nb, course.submitted / f"s{i:03}" / chapter / f"{chapter}.ipynb")
    gradebook.ensure_assignments(course, [chapter])  # untimed, like generate_assignment above
    started = time.monotonic()
    cohort.grade(course, workers=workers, limits=Limits(cell_timeout=60, sandbox=sandbox), out=io.StringIO(),
                 cluster=cluster)
    return time.monotonic() - started


def _execute(path: str) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    NotebookClient(nb, timeout=60, allow_errors=True, kernel_name="python3",
                   resources={"metadata": {"path": os.path.dirname(path)}}).execute()


def _limit(course: Course, chapter: str) -> float:
    """The floor: the notebooks just graded (hidden tests and all) run by bare nbclient in 2 processes."""
    paths = sorted(str(p) for p in course.autograded.glob(f"*/{chapter}/{chapter}.ipynb"))
    started = time.monotonic()
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(_execute, paths))
    return time.monotonic() - started


def _cluster_rows(course: Course, chapter: str, nbs: list, tmp: Path, rounds: int) -> list[tuple[str, float]]:
    """2 `dask worker` processes, a LocalCluster of 2, and the floor, in turn, the fastest of
    `rounds` each: one run each (issue 16) moved a row by a fifth of its floor between runs (issue 44)."""
    mode = "none" if bwrap_problem() else "bwrap"
    best: dict[str, float] = {}
    with Cluster(tmp / "dask") as cluster:
        runs = {f"grade --cluster (dask scheduler + 2 workers, {mode})":
                lambda: _ours(course, chapter, nbs, 2, mode, cluster.address),
                f"grade --cluster local --workers 2 ({mode})": lambda: _ours(course, chapter, nbs, 2, mode, "local"),
                "the floor: bare nbclient, 2 processes, no sandbox": lambda: _limit(course, chapter)}
        for _ in range(rounds):
            for name, run in runs.items():
                best[name] = min(best.get(name, float("inf")), run())
    return list(best.items())


def main(size: int | None = None) -> None:
    size = size or int(os.environ.get("BENCH_STUDENTS", "40"))
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        course, chapter = _course(Path(tmp) / "course")
        nbs = _cohort(course, chapter, size)
        load = os.getloadavg()
        # Sandboxed and unsandboxed runs alternate, BENCH_ROUNDS times each, and the fastest of each
        # counts: a burst of load from elsewhere hits both alike and is not what is measured.
        rounds = int(os.environ.get("BENCH_ROUNDS", "3"))
        timings = [("nbgrader autograde (plain)", _plain(course, chapter, nbs))]
        for workers in (1, 2):
            modes = ["none"] + ([] if bwrap_problem() else ["bwrap"])
            best = {m: _ours(course, chapter, nbs, workers, m) for m in modes}
            for _ in range(rounds - 1):
                for m in modes:
                    best[m] = min(best[m], _ours(course, chapter, nbs, workers, m))
            timings.append((f"grade --workers {workers} --sandbox none", best["none"]))
            if "bwrap" in best:
                timings.append((f"grade --workers {workers} (bwrap sandbox)", best["bwrap"]))
        timings += _cluster_rows(course, chapter, nbs, Path(tmp), rounds)
        after = os.getloadavg()
    base = timings[0][1]
    print(f"{size} submissions of {chapter}, fastest of {os.environ.get('BENCH_ROUNDS', '3')} rounds; "
          f"{os.cpu_count()} CPUs; load average "
          f"{load[0]:.2f} before, {after[0]:.2f} after\n")
    floor = timings[-1][1]
    print_table(["how", "total s", "s / submission", "vs plain nbgrader", "vs the floor"],
                [[name, f"{seconds:.1f}", f"{seconds / size:.2f}", f"{base / seconds:.2f}x faster",
                  f"{seconds / floor:.2f}x its time"] for name, seconds in timings])
    if len(timings) >= 5 and "bwrap" in timings[2][0]:
        for workers, plain, boxed in ((1, timings[1][1], timings[2][1]), (2, timings[3][1], timings[4][1])):
            print(f"sandbox overhead, --workers {workers}: {100 * (boxed - plain) / plain:+.1f} % "
                  f"({(boxed - plain) / size:+.2f} s per submission)")
    else:
        print(f"no sandbox rows: {bwrap_problem()}")


if __name__ == "__main__":
    main()
