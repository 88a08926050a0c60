"""What the quality gates in tests/ run on: every chapter of the course, plus the pilot chapter.

All gate submissions of all chapters are graded in one parallel batch, in a throwaway course
that links to the real chapter folders (read-only) and releases them afresh.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import platform
import re
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

from autograder import notebooks
from autograder.course import REPO, Course
from autograder.gates import variants
from autograder.sandbox import sandbox
from autograder.settings import Limits
from tests import (
    attacks,
    cell_deps,
    fast_results,
    fast_runner,
    hostile,
    hostile_judge,
    hostile_os,
    hostile_redteam,
)


def sandbox_mode() -> str:
    """GATES_SANDBOX=bwrap|none; by default bubblewrap when it works here (CI sets bwrap)."""
    wanted = os.environ.get("GATES_SANDBOX", "auto")
    if wanted == "auto":
        return "bwrap" if sandbox.bwrap_problem() is None else "none"
    return sandbox.resolve(wanted)


SANDBOX = sandbox_mode()
PILOT = Course(root=REPO / "tests" / "pilot")
PILOT_CHAPTER = "00_pilot"
GATE_LIMITS = Limits(cell_timeout=30, notebook_timeout=300, sandbox=SANDBOX)
MUTANT_LIMITS = Limits(cell_timeout=10, notebook_timeout=120, sandbox=SANDBOX)  # a mutant may loop forever
HOSTILE_LIMITS = Limits(cell_timeout=10, notebook_timeout=120, sandbox=SANDBOX)
# The loops burn their cells' CPU limit: 1 s, not 3, saved ~18 CPU-s of the pilot's gates (114 -> 96,
# 2026-12-07). The pilot's own cells take well under it (its whole solution: 1.3 s with the kernel).
SHORT_LIMITS = Limits(cell_timeout=1, notebook_timeout=60, sandbox=SANDBOX)
ALL_CASES = {**hostile.CASES, **hostile_os.CASES, **hostile_redteam.CASES, **hostile_judge.CASES}
# Graded on every run, never from the cache: tests read their notebooks or look for what they left.
ALWAYS_GRADED = ("os_exit", "huge_output", "read_solutions", *hostile_os.POST_CHECKED,
                 *hostile_redteam.POST_CHECKED)
# git-ignored by default; CI keeps it where the next run on the machine finds it (.ci/run)
CACHE = Path(os.environ.get("GATES_CACHE_DIR") or REPO / "autograder" / "work" / "gate-cache")
# Where grading starts: the pipeline (cohort.grade), the fast runner, and the gates' own cases.
ENTRY_POINTS = ("autograder.pipeline.cohort", "tests.gates", "tests.fast_runner", "tests.fast_results")
OURS = ("autograder", "workbook", "tests")
DATA = ("agent_files",)  # read by the notebooks' tools


def courses() -> list[Course]:
    """The repository's course (when it has chapters) and the pilot course."""
    repo = Course()
    return ([repo] if repo.chapters() else []) + [PILOT]


def chapters() -> list[tuple[Course, str]]:
    """Every gated chapter; GATES_ONLY=00_pilot,03_openai_format (or 00,03: a chapter's number)
    narrows them while authoring; `none` (make quick, nothing touched) gates none. Any other name that
    is no chapter is an error, never a run of none."""
    only = {c.strip() for c in os.environ.get("GATES_ONLY", "").split(",") if c.strip()}
    every = [(course, chapter) for course in courses() for chapter in course.chapters()]
    if not only:
        return every
    if only == {"none"}:  # make quick with no chapter touched
        return []
    unknown = only - {name for _, chapter in every for name in (chapter, chapter[:2])}
    if unknown:
        raise ValueError(f"GATES_ONLY names no chapter: {sorted(unknown)} (a chapter's folder name, "
                         f"or its number: {', '.join(sorted({c[:2] for _, c in every}))})")
    return [(course, chapter) for course, chapter in every if chapter in only or chapter[:2] in only]


# The chapters whose noisy solution the sandboxed pipeline grades in make test (beside the pilot):
# the ones whose solutions start processes of their own in the sandbox (another process, an MCP
# server, a code executor), and those whose tests read the most of the notebook's files through
# the judge (09: a replace() the judge runs, 17: SQLite files; the fast runner has no sandbox, so
# its tests read plain files). Elsewhere the fast runner's solution stands alone, as its stub does;
# make test-real (GATES_REAL=all) grades noisy_without_tests on every chapter. Each pipeline run of
# a chapter cost ~2.4 s of CPU and ~5 s of a pipeline worker's time (issue 47's budget).
PIPELINE_SOLUTIONS = ("08_retries_and_idempotency", "09_trajectories_and_checkpoints", "17_agent_memory",
                      "18_mcp_by_hand", "25_code_as_action")


def noisy_in_pipeline(chapter: str) -> bool:
    return chapter in (PILOT_CHAPTER, *PIPELINE_SOLUTIONS) or os.environ.get("GATES_REAL") == "all"


def hostile_cases(course: Course, chapter: str) -> dict:
    """Grader cases run on the pilot (GATES_HOSTILE=all: on every chapter); chapter cases everywhere,
    but noisy_without_tests only on PIPELINE_SOLUTIONS outside make test-real."""
    cases = ALL_CASES if course == PILOT or os.environ.get("GATES_HOSTILE") == "all" else hostile.CHAPTER_CASES
    if course != PILOT and not noisy_in_pipeline(chapter):
        cases = {k: v for k, v in cases.items() if k != STAND_INS["solution"]}
    if chapter == hostile_judge.JUDGE_CHAPTER:  # in-process attacks, against a judged chapter
        cases = {**cases, **hostile_judge.CASES}
    elif course == PILOT:  # the judge's own cases run once, on a chapter with fakes and handles
        cases = {k: v for k, v in cases.items() if k not in hostile_judge.CASES}
    return {name: case for name, case in cases.items() if SANDBOX == "bwrap" or not case[1].os_level}


@dataclass(frozen=True)
class Submission:
    """One gate submission and what it must score."""

    chapter: str
    kind: str  # solution | stub | mutant | hostile | attack
    name: str  # mutant or hostile case name ("" otherwise)
    expect: hostile.Expect | None = None  # hostile only

    @property
    def student(self) -> str:
        return f"{self.chapter}--{self.kind}" + (f"--{self.name}" if self.name else "")

    @property
    def exercise(self) -> str:
        return variants.MUTANT_NAME.match(self.name + ".patch").group("exercise") if self.kind == "mutant" else ""


# Which mutants and attacks a run grades (GATES_MUTANTS): "all" (pytest alone, make quick, make
# test-real); "first", each exercise's first mutant and each chapter's first red-team attack, with
# every other submission (make test: issue 47's budget); "rest", every other mutant and attack and
# nothing else (make test-mutants, which CI runs after make test).
MUTANT_MODES = ("all", "first", "rest")


def mutant_mode() -> str:
    mode = os.environ.get("GATES_MUTANTS") or "all"
    if mode not in MUTANT_MODES:
        raise pytest.UsageError(f"GATES_MUTANTS={mode!r}: use one of {', '.join(MUTANT_MODES)}")
    return mode


def mutant_names(course: Course, chapter: str, mode: str) -> list[str]:
    """The chapter's mutants graded in `mode` (see MUTANT_MODES)."""
    every = list(variants.mutants(course, chapter))
    if mode == "all":
        return every
    first = set(variants.first_mutants(course, chapter).values())
    return [m for m in every if (m in first) == (mode == "first")]


def attack_names(chapter: str, mode: str) -> list[str]:
    """The chapter's attacks graded in `mode` (see MUTANT_MODES). The red team's regressions (an
    exercise scored zero or full) split as mutants do: the chapter's first in `first`, the others
    in `rest`. The rebound and rebinding gates, graded as a set, are always with the first."""
    every = [n for n, a in attacks.ATTACKS.items() if a.chapter == chapter]
    if mode == "all":
        return every
    regressions = [n for n in every if attacks.ATTACKS[n].regression]
    rest = regressions[1:]
    return [n for n in every if (n in rest) == (mode == "rest")]


def plan() -> list[tuple[Course, Submission]]:
    """Every gate submission of every chapter that this run grades (cheap: nothing is built yet)."""
    out = []
    mode = mutant_mode()
    for course, chapter in chapters():
        mutants = [(course, Submission(chapter, "mutant", m)) for m in mutant_names(course, chapter, mode)]
        mutants += [(course, Submission(chapter, "attack", a)) for a in attack_names(chapter, mode)]
        if mode == "rest":
            out += mutants
            continue
        out += [(course, Submission(chapter, "solution", "")), (course, Submission(chapter, "stub", ""))]
        out += mutants
        out += [(course, Submission(chapter, "hostile", name, expect))
                for name, (_, expect) in hostile_cases(course, chapter).items()]
    return out


def record_of(graded: dict, chapter: str, kind: str, name: str = "") -> dict:
    """The gates' record of one submission; the calling test skips when its chapter is not gated
    here (GATES_ONLY)."""
    student = Submission(chapter, kind, name).student
    if student not in graded["records"]:
        pytest.skip(f"{chapter} is not gated here (GATES_ONLY)")
    return graded["records"][student]


def gate_course(root: Path) -> Course:
    """A course in `root` whose solutions, mutants and release link to every gated chapter's folders."""
    gate = Course(root=root)
    gate.source.mkdir(parents=True)
    gate.mutants.mkdir(parents=True)
    for course, chapter in chapters():
        (gate.source / chapter).symlink_to(course.source / chapter, target_is_directory=True)
        if (course.mutants / chapter).is_dir():
            (gate.mutants / chapter).symlink_to(course.mutants / chapter, target_is_directory=True)
    gate.release.mkdir()
    for course, chapter in chapters():  # the committed release: test_gates.py proves it is what release makes
        (gate.release / chapter).symlink_to(course.release / chapter, target_is_directory=True)
    return gate


def build(gate: Course, todo: list[tuple[Course, Submission]]) -> dict[str, Limits]:
    """Write every submission into the gate course; return the per-student time limits."""
    limits = {}
    for _, sub in todo:
        if sub.kind == "solution":
            nb = notebooks.read(gate.solution_ipynb(sub.chapter))
        elif sub.kind == "stub":
            nb = variants.stub(gate, sub.chapter)
        elif sub.kind == "mutant":
            nb = variants.mutant(gate, sub.chapter, sub.name)
        elif sub.kind == "attack":
            nb = attacks.ATTACKS[sub.name].build(gate)
        else:
            nb = ALL_CASES[sub.name][0](gate, sub.chapter)
        variants.save(nb, gate.submitted / sub.student / sub.chapter / f"{sub.chapter}.ipynb")
        limits[sub.student] = (GATE_LIMITS if sub.kind in ("solution", "stub", "attack") else
                               MUTANT_LIMITS if sub.kind == "mutant" else limits_of(sub.expect))
    return limits


def limits_of(expect: hostile.Expect) -> Limits:
    """The time limits a hostile case is graded with."""
    base = SHORT_LIMITS if expect.short_timeout else HOSTILE_LIMITS
    return dataclasses.replace(base, notebook_timeout=expect.notebook_limit) if expect.notebook_limit else base


def _module_file(root: Path, name: str) -> Path | None:
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)|import[ \t]+([^\n]+))", re.M)
NAMED = re.compile(r"[\"']((?:autograder|workbook|tests)(?:\.\w+)+)[\"']")  # `-m autograder.judge`, import_module
SIBLING = re.compile(r"[\"'](\w+\.py)[\"']")  # Path(__file__).with_name("kernel_limits.py")


def _imports(path: Path, module: str) -> set[str]:
    """Our modules that `path` (module `module`) may import: every import statement anywhere in
    it (inside functions, and in code it sends elsewhere as text), and every string that names one
    of our modules (`python -m autograder.judge`, `import_module(...)`). A regular expression, not
    a parse: it may find more than Python would import, never less, and it is fast."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for base, names, plain in IMPORT.findall(path.read_text(encoding="utf-8")):
        if plain:
            found |= {n.split(" as ")[0].strip() for n in re.sub(r"#.*", "", plain).split(",")}
            continue
        if base.startswith("."):
            level = len(base) - len(base.lstrip("."))
            parts = package.split(".")
            base = ".".join(parts[:len(parts) - level + 1] + ([base.lstrip(".")] if base.lstrip(".") else []))
        names = re.sub(r"#[^\n]*", "", names).strip("()")
        found |= {base} | {f"{base}.{n.split(' as ')[0].strip()}" for n in names.split(",") if n.strip()}
    found |= {n for name in NAMED.findall(path.read_text(encoding="utf-8")) for n in (name, f"{name}.__main__")}
    return {n for n in found if n.split(".")[0] in OURS}


def graded_files(root: Path = REPO) -> list[Path]:
    """Every file a gate result can depend on: the modules reachable from ENTRY_POINTS and from
    every workbook module (what notebooks import) by an import walk, their packages' __init__
    files, the sibling files they name (kernel_limits.py, read by path), and the agent's files."""
    todo = list(ENTRY_POINTS) + [".".join(p.relative_to(root).with_suffix("").parts)
                                 for p in (root / "workbook").rglob("*.py") if "__pycache__" not in p.parts]
    seen: dict[str, Path] = {}
    while todo:
        name = todo.pop().removesuffix(".__init__")
        parts = name.split(".")
        for i in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__ and a/b/__init__ too
            prefix = ".".join(parts[:i])
            if prefix in seen:
                continue
            path = _module_file(root, prefix)
            if path is None:
                continue
            seen[prefix] = path
            todo += sorted(_imports(path, prefix))
    files = set(seen.values())
    for path in list(files):  # files a module reads by name, next to itself
        files |= {path.parent / n for n in SIBLING.findall(path.read_text(encoding="utf-8")) if (path.parent / n).is_file()}
    for folder in DATA:
        files |= {p for p in (root / folder).rglob("*") if p.is_file() and not {"out", "__pycache__"} & set(p.parts)}
    files |= {p for p in (root / "workbook").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    return sorted(files)


@functools.cache
def installed() -> list[str]:
    """name==version of every installed distribution (what `pip freeze` lists), sorted."""
    return sorted({f"{d.metadata['Name']}=={d.version}".lower() for d in metadata.distributions()})


def environment_key(root: Path = REPO) -> str:
    """What every gate result depends on besides the notebooks: the Python version, every
    installed distribution's version, and the bytes of every file in graded_files()."""
    h = hashlib.sha256(f"{platform.python_version()}|{sys.executable}".encode())
    for line in installed():
        h.update(line.encode() + b"\n")
    for path in graded_files(root):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def cache_key(env: str, gate: Course, sub: Submission, limits: Limits, runner: str = "real") -> str:
    """A submission's result is reusable while its notebook, its chapter and `env` are unchanged."""
    h = hashlib.sha256(f"{env}|{runner}|{sub.student}|{limits}".encode())
    for path in sorted((gate.source / sub.chapter).rglob("*")):  # the notebook and any data files
        if path.is_file():
            h.update(path.name.encode() + path.read_bytes())
    h.update((gate.submitted / sub.student / sub.chapter / f"{sub.chapter}.ipynb").read_bytes())
    return h.hexdigest()


def cached(keys: dict[str, str]) -> dict[str, dict]:
    """student -> result record, for the keys already in the cache."""
    found = {}
    for student, key in keys.items():
        path = CACHE / f"{key}.json"
        if path.is_file():
            found[student] = json.loads(path.read_text(encoding="utf-8"))
    return found


def remember(keys: dict[str, str], records: list[dict], timeouts: frozenset[str] = frozenset()) -> None:
    """Cache results that are facts about the notebooks: not a grader failure, and not a timeout
    unless the submission is meant to time out (`timeouts`): a clock backstop reached on a busy
    machine says something about the machine, and a cached one would stand for every later run."""
    CACHE.mkdir(parents=True, exist_ok=True)
    for record in records:
        meant = record["status"] != "timeout" or record["student"] in timeouts
        if record["status"] != "error" and meant and record["student"] in keys:
            (CACHE / f"{keys[record['student']]}.json").write_text(json.dumps(record), encoding="utf-8")


FAST_KINDS = ("solution", "stub", "mutant", "attack")  # our own code: the fast runner checks them all
# What the pipeline grades of a chapter in place of its solution and its stub, to prove the fast
# runner equal to it: noisy_without_tests is the solution (stderr noise in its answer cells, its
# test cells deleted: the grader puts them back), cheats_everywhere answers what the stub leaves.
STAND_INS = {"solution": "noisy_without_tests", "stub": "cheats_everywhere"}


def fast_hostile(sub: Submission) -> bool:
    """A hostile case the fast runner grades: cheats_everywhere outside the pilot chapter. It tests
    the chapter's own tests (lying values, shadowed names, a replaced workbook), which the judge
    decides whatever runs the kernel; the pipeline grades it on the pilot, and everywhere under
    GATES_REAL=all (make test-real). Graded in the pipeline on every chapter it cost ~21 s of
    wall time each, a third of the gates' pipeline time."""
    return (sub.kind == "hostile" and sub.name == STAND_INS["stub"] and sub.chapter != PILOT_CHAPTER
            and os.environ.get("GATES_REAL") != "all")


def in_pipeline(sub: Submission) -> bool:
    """What the sandboxed pipeline grades: every hostile case but `fast_hostile`'s, and the pilot's
    solution and stub (the feedback gates read their pages); GATES_REAL=all adds every solution,
    stub and mutant. Elsewhere a chapter's noisy solution stands for its solution in the pipeline:
    graded once, not twice (each end-to-end run costs seconds of CPU)."""
    if os.environ.get("GATES_REAL") == "all":
        return True
    return (sub.kind == "hostile" and not fast_hostile(sub)) or \
        (sub.kind in ("solution", "stub") and sub.chapter == PILOT_CHAPTER)


def stand_in(sub: Submission) -> str | None:
    """The pipeline's student that a fast-runner solution or stub is compared with (None: a stub
    outside the pilot, whose stand-in the fast runner grades, or a solution outside
    PIPELINE_SOLUTIONS, whose stand-in is not graded; make test-real compares both)."""
    if in_pipeline(sub):
        return sub.student
    other = Submission(sub.chapter, "hostile", STAND_INS[sub.kind])
    if fast_hostile(other) or (sub.kind == "solution" and not noisy_in_pipeline(sub.chapter)):
        return None
    return other.student


def fast_jobs(gate: Course, todo: list[Submission], limits_for: dict[str, Limits]) -> dict[str, dict]:
    """chapter -> the fast runner's job: the solved notebook's cells, and each submission's."""
    jobs: dict[str, dict] = {}
    for sub in todo:
        if sub.chapter not in jobs:
            source = notebooks.read(gate.solution_ipynb(sub.chapter))
            jobs[sub.chapter] = {"chapter": sub.chapter, "base_limit": GATE_LIMITS.cell_timeout,
                                 "base": fast_runner.cells_of(variants.solved(gate, sub.chapter), source),
                                 "tests": notebooks.chapter_tests(source), "source": source, "variants": {},
                                 "exercises": notebooks.exercise_names(source)}
        job, limits = jobs[sub.chapter], limits_for[sub.student]
        nb = notebooks.read(gate.submitted / sub.student / sub.chapter / f"{sub.chapter}.ipynb")
        cells = fast_runner.cells_of(nb, job["source"])
        variant = {"cells": cells, "cell_limit": limits.cell_timeout, "notebook_limit": limits.notebook_timeout}
        if sub.kind in ("mutant", "attack") and not in_pipeline(sub):  # their gates read scores and errors only
            variant["cells"] = cells = fast_runner.through_last_test(cells)
            if sub.kind == "mutant" and cell_deps.enabled():
                base = [c["source"] for c in job["base"]]
                start = fast_runner.first_difference(cells, job["base"])
                run = cell_deps.must_run(base, [c["source"] for c in cells], [c["graded"] for c in cells], start)
                variant["skip"] = [i for i in range(start, len(cells)) if i not in run]
        job["variants"][sub.student] = variant
    return jobs


def fast_grade(gate: Course, todo: list[Submission], limits_for: dict[str, Limits],
               workers: int = 2) -> list[dict]:
    """Result records for `todo` from the fast runner; a variant a fork could not run (the prefix
    left threads running) is run again from its first cell in a process of its own. Nothing to run
    (make quick with no chapter touched, a warm cache) starts no template process."""
    if not todo:
        return []
    jobs = fast_jobs(gate, todo, limits_for)
    tests = {c: job.pop("tests") for c, job in jobs.items()}
    for job in jobs.values():
        del job["source"]
    records, started = [], time.monotonic()
    base_steps: dict[str, list[dict]] = {}  # per chapter: the solved notebook's steps (skipped cells take them)
    for attempt in range(2):
        found = fast_results.grade(jobs, workers=workers)
        retry: dict[str, dict] = {}
        for chapter, outcomes in found.items():
            seen = set()
            base_steps.setdefault(chapter, next((o["steps"] for o in outcomes if o.get("base")), []))
            for outcome in outcomes:
                student = outcome.get("student")
                if student is None:
                    continue
                outcome = fast_results.fill_skipped(outcome, base_steps[chapter])
                seen.add(student)
                if outcome["ending"] == "retry" and attempt == 0:
                    retry.setdefault(chapter, {**jobs[chapter], "base": [], "variants": {}})
                    retry[chapter]["variants"][student] = jobs[chapter]["variants"][student]
                    continue
                if outcome["ending"] == "retry":
                    outcome = {"ending": "error", "message": "the fast runner could not run it"}
                cells = jobs[chapter]["variants"][student]["cells"]
                records.append(fast_results.record(student, chapter, tests[chapter], cells, outcome,
                                                  time.monotonic() - started))
            log = next((o for o in outcomes if "log" in o), {}).get("log", "")
            for student in sorted(set(jobs[chapter]["variants"]) - seen):
                records.append(fast_results.record(student, chapter, tests[chapter], [], {
                    "ending": "error", "message": f"the fast runner's chapter process failed: {log}"[-500:]}, 0.0))
        if not retry:
            break
        jobs = retry
    return records
